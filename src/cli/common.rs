//! What several commands share: exit statuses, default paths, the `--db`,
//! `--auth-db` and `--wait` arguments, their parsers, and the `--json` output.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;

use crate::config::Env;

/// Exit statuses (docs/architecture.md §2): 0 done, 1 problems found (`db check`),
/// 2 a usage error or a command that could not run (clap's own usage errors exit 2).
pub const EXIT_PROBLEMS: u8 = 1;
pub const EXIT_CANNOT_RUN: u8 = 2;

/// The default paths; `serve` creates the sample dataset by itself only at these
/// (in the local environment).
pub const DEFAULT_DB: &str = "data/roost.db";
pub const DEFAULT_SITE: &str = "site";
pub const DEFAULT_AUTH_DB: &str = "data/auth.db";

/// `--wait`: of the commands that write one target at a time.
#[derive(Debug, Args, Clone)]
pub struct WaitArg {
    /// When another roost is writing the same target, wait for it to finish instead
    /// of exiting at once.
    #[arg(long)]
    pub wait: bool,
}

#[derive(Debug, Args, Clone)]
pub struct DbArg {
    /// The dataset file.
    #[arg(long, env = "ROOST_DB", default_value = DEFAULT_DB)]
    pub db: PathBuf,
}

#[derive(Debug, Args, Clone)]
pub struct AuthDbArg {
    /// API keys and sessions (separate from the dataset).
    #[arg(long, env = "ROOST_AUTH_DB", default_value = DEFAULT_AUTH_DB)]
    pub auth_db: PathBuf,
}

/// `--env`: the names of [`Env::ALL`], listed in `--help`.
pub fn env_parser() -> impl TypedValueParser<Value = Env> {
    PossibleValuesParser::new(Env::ALL.map(Env::as_str)).try_map(|s| s.parse::<Env>())
}

/// A count of at least 1.
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{s}': expected a whole number of at least 1")),
    }
}

/// Counts by name as a JSON object, for `--json` summaries.
pub fn count_object<'a>(
    counts: impl Iterator<Item = (&'a str, u64)>,
) -> serde_json::Map<String, serde_json::Value> {
    counts
        .map(|(name, n)| (name.to_string(), n.into()))
        .collect()
}

/// One JSON document on its own line of stdout (`--json`).
pub fn print_json(value: &impl serde::Serialize) {
    match serde_json::to_string(value) {
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("roost: writing JSON: {e}"),
    }
}
