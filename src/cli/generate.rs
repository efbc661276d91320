//! `roost generate`: the tree from the dataset.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use clap::Args;

use super::common::{print_json, DbArg, WaitArg, DEFAULT_SITE};
use crate::{config, generate, records};

#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The live tree (a symlink to the current generation).
    #[arg(long, env = "ROOST_SITE", default_value = DEFAULT_SITE)]
    pub out: PathBuf,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Precompressed siblings of every file of 1 KiB or more: gzip (the default:
    /// .gz), gzip,br (also .br; what a bare --precompress asks for), or none.
    #[arg(
        long,
        value_name = "CODECS",
        num_args = 0..=1,
        require_equals = false,
        default_value = "gzip",
        default_missing_value = "gzip,br",
        value_parser = generate::Precompress::parse
    )]
    pub precompress: generate::Precompress,
    /// Write no precompressed siblings (--precompress none).
    #[arg(long, conflicts_with = "precompress")]
    pub no_precompress: bool,
    /// Render the is_upcoming files as of this UTC date (default: today).
    #[arg(long, hide = true)]
    pub today: Option<String>,
    /// Public base URL (e.g. https://api.example.org) for absolute links in the tree
    /// (the root's docs_url); without it they are host-relative paths.
    #[arg(long, env = "ROOST_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Also publish the dataset, gzip-compressed, under dataset/ in the tree.
    #[arg(long)]
    pub with_dataset: bool,
    /// With --with-dataset: only what the API shows.
    #[arg(long, requires = "with_dataset")]
    pub public_only: bool,
    /// Leave out manifest.json (every file in one document): the split manifest
    /// (manifest/root.json and its chunks) lists the same files, and a run after a
    /// small change then reads and writes only the chunks that changed.
    #[arg(long)]
    pub no_manifest_json: bool,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub wait: WaitArg,
}

pub fn generate_options(args: &GenerateArgs) -> anyhow::Result<generate::Options> {
    let today = match &args.today {
        Some(d) => {
            records::Date::parse(d)
                .map_err(|e| anyhow!("--today: {e}"))?
                .0
        }
        None => config::today(),
    };
    if args.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    Ok(generate::Options {
        db: args.db.db.clone(),
        out: args.out.clone(),
        jobs: args.jobs,
        precompress: if args.no_precompress {
            generate::Precompress::NONE
        } else {
            args.precompress
        },
        today,
        progress: std::io::stderr().is_terminal(),
        public_url: args
            .public_url
            .as_ref()
            .map(|u| u.trim_end_matches('/').to_string()),
        wait: args.wait.wait,
        manifest_json: !args.no_manifest_json,
    })
}

/// Runs `roost generate`.
pub fn exec(args: GenerateArgs) -> anyhow::Result<ExitCode> {
    let opts = generate_options(&args)?;
    // With RUST_LOG set (`RUST_LOG=roost::generate=debug`), the run's steps and how
    // long each took, on standard error.
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .try_init();
    }
    let dataset = match (args.with_dataset, args.public_only) {
        (false, _) => None,
        (true, false) => Some(generate::Dataset::Full),
        (true, true) => Some(generate::Dataset::PublicOnly),
    };
    let summary = generate::generate_with(&opts, dataset)?;
    if args.json {
        print_json(&summary);
    } else {
        println!("{summary}");
    }
    Ok(ExitCode::SUCCESS)
}
