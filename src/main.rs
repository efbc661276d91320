#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    match roost::cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("roost: {}", roost::error::report(&e));
            ExitCode::from(roost::cli::EXIT_CANNOT_RUN)
        }
    }
}
