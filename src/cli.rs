//! The `roost` command line (docs/architecture.md "Commands"): one file per command
//! under `cli/`, each holding its arguments and what runs them ([`db`], [`generate`],
//! [`serve`], [`credentials`] for `keys` and `sessions`, [`mirror`], [`site`]), what
//! they share in [`common`], and here the command list and its dispatch.

mod common;
mod credentials;
mod db;
mod generate;
mod mirror;
mod serve;
mod site;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use clap::{Parser, Subcommand};

pub use self::common::{EXIT_CANNOT_RUN, EXIT_PROBLEMS};
use crate::config;
use crate::credentials::Kind;

#[derive(Debug, Parser)]
#[command(
    name = "roost",
    version = config::VERSION,
    about = "roost: the public directory API (REST v0 tree, shim, GraphQL)",
    after_help = "Exit status: 0 done; 1 problems found (db check); 2 a usage error or a \
                  command that could not run."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Manage the dataset (SQLite).
    #[command(subcommand)]
    Db(db::DbCommand),
    /// Render the whole REST v0 tree from the dataset.
    Generate(generate::GenerateArgs),
    /// Serve the tree behind API keys and rate limits, plus /graphql/.
    Serve(Box<serve::ServeArgs>),
    /// Manage REST API keys.
    #[command(subcommand)]
    Keys(credentials::CredentialCommand),
    /// Manage GraphQL sessions for the frontend.
    #[command(subcommand)]
    Sessions(credentials::CredentialCommand),
    /// Copy a published tree to a local folder, fetching only what changed.
    Mirror(mirror::MirrorArgs),
    /// Print a shell completion script, e.g. `roost completions bash >
    /// /etc/bash_completion.d/roost`.
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of roost, or with --out write one page per command.
    Man {
        /// Write roost.1, roost-serve.1, … into this folder instead.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Check a generated tree.
    #[command(subcommand)]
    Site(site::SiteCommand),
}

/// Runs the command line; the process exit code. An error is a command that could
/// not run: `main` prints it and exits with [`EXIT_CANNOT_RUN`].
pub fn run() -> anyhow::Result<ExitCode> {
    match Cli::parse().command {
        Command::Db(cmd) => db::exec(cmd),
        Command::Generate(args) => generate::exec(args),
        Command::Serve(args) => serve::exec(*args),
        Command::Keys(cmd) => credentials::exec(Kind::Key, cmd),
        Command::Sessions(cmd) => credentials::exec(Kind::Session, cmd),
        Command::Mirror(args) => mirror::exec(args),
        Command::Site(cmd) => site::exec(cmd),
        Command::Completions { shell } => {
            use clap::CommandFactory as _;
            clap_complete::generate(shell, &mut Cli::command(), "roost", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man { out } => {
            man(out.as_deref())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `roost man`: the page of roost on stdout, or with `--out DIR` one page per command
/// (`roost.1`, `roost-serve.1`, `roost-db-import.1`, …).
fn man(out: Option<&Path>) -> anyhow::Result<()> {
    use clap::CommandFactory as _;
    let command = Cli::command();
    match out {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            use std::io::Write as _;
            std::io::stdout().write_all(&page)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| anyhow!("creating {}: {e}", dir.display()))?;
            clap_mangen::generate_to(command, dir)
                .map_err(|e| anyhow!("writing the manual pages into {}: {e}", dir.display()))?;
            println!("wrote the manual pages into {}", dir.display());
        }
    }
    Ok(())
}
