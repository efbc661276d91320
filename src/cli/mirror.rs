//! `roost mirror`: a published tree copied to a local folder.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::common::{at_least_one, WaitArg};
use crate::mirror;

#[derive(Debug, Args)]
pub struct MirrorArgs {
    /// The URL of the published site folder (where manifest.json is), http:// or
    /// https://.
    pub url: String,
    /// The mirror's folder: DIR/site is the copy (and DIR/roost.db the dataset).
    #[arg(long)]
    pub out: PathBuf,
    /// Also fetch the published dataset and import it into DIR/roost.db, so
    /// `roost serve --site DIR/site --db DIR/roost.db` answers everything.
    #[arg(long)]
    pub with_dataset: bool,
    /// Files fetched at a time.
    #[arg(long, default_value_t = 8, value_parser = at_least_one)]
    pub jobs: usize,
    #[command(flatten)]
    pub wait: WaitArg,
}

/// Runs `roost mirror`.
pub fn exec(args: MirrorArgs) -> anyhow::Result<ExitCode> {
    let summary = mirror::mirror(&mirror::Options {
        url: args.url.clone(),
        out: args.out.clone(),
        with_dataset: args.with_dataset,
        jobs: args.jobs,
        progress: std::io::stderr().is_terminal(),
        wait: args.wait.wait,
    })?;
    println!("{} from {}: {summary}", args.out.display(), args.url);
    Ok(ExitCode::SUCCESS)
}
