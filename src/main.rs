#![forbid(unsafe_code)]

use std::process::ExitCode;

// mimalloc returns freed memory to the system, where glibc's malloc keeps it in up to
// 8 arenas per core: a `serve` under the soak (bench/soak.py) grew from 216 to 477 MB
// with glibc and stays flat with mimalloc. The declaration needs no `unsafe`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
