//! The commands and the `roost` binary: `db import`/`check`, `db synth`, `db export`,
//! `generate`, the migration of an old auth.db, and the module graph of `src/`.

mod credentials_migration;
mod export;
mod generate;
mod import;
mod layering;
mod serve;
mod synth;
