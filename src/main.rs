#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    // Crash points armed by FAILPOINTS, in a build with the `failpoints` feature only.
    let _crash_points = roost::crash::setup();
    match roost::cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("roost: {}", roost::error::report(&e));
            ExitCode::from(roost::cli::EXIT_CANNOT_RUN)
        }
    }
}
