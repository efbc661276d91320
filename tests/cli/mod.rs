//! The commands and the `roost` binary: `db import`/`check`, `db synth`, `db export`,
//! `generate`, `roost serve` as a process, what commands refuse, the command-line
//! conventions, the README's examples, the migration of an old auth.db, the
//! streaming build `db synth` writes with, and the module graph of `src/` (which no
//! command owns; it is read from the files).

mod conventions;
mod credentials_migration;
mod export;
mod faults;
mod generate;
mod generate_delta;
mod import;
mod import_mentorship;
mod import_pages;
mod layering;
mod mirror;
mod original_import;
mod postgres_server;
mod public_dataset;
mod readme;
mod refusals;
mod sample;
mod sample_coverage;
mod serve;
mod shutdown;
mod streaming;
mod synth;
mod tree_snapshot;
mod warmup;
