//! `roost db synth`: deterministic synthetic datasets for benchmarks.

use std::path::Path;

use crate::cli::Scale;

pub fn synth(_scale: Scale, _seed: u64, _db: &Path) -> anyhow::Result<()> {
    anyhow::bail!("db synth is not built yet")
}
