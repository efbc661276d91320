//! `roost site check`: a tree against its manifest.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use super::common::EXIT_PROBLEMS;
use crate::generate;

/// `roost site …`.
#[derive(Debug, Subcommand)]
pub enum SiteCommand {
    /// Check every file of the tree against its manifest (presence, size, SHA-256);
    /// exits non-zero naming the files that differ.
    Check {
        /// The tree: the folder (or the symlink to its live generation) that holds
        /// manifest.json (or, without one, manifest/root.json).
        #[arg(long, env = "ROOST_SITE", default_value = "site")]
        site: PathBuf,
    },
}

/// Runs `roost site …`.
pub fn exec(cmd: SiteCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        SiteCommand::Check { site } => {
            let (files, problems) = generate::verify::full(&site)?;
            if problems.is_empty() {
                println!(
                    "{}: all {files} files of the manifest present and intact",
                    site.display()
                );
            } else {
                for p in &problems {
                    println!("{p}");
                }
                eprintln!(
                    "{} of {files} files of {} do not match its manifest",
                    problems.len(),
                    site.display()
                );
                return Ok(ExitCode::from(EXIT_PROBLEMS));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
