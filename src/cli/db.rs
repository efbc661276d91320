//! `roost db init|import|synth|check|export|sample`: the dataset.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Subcommand;

use super::common::{count_object, print_json, DbArg, WaitArg, EXIT_PROBLEMS};
use crate::synth::Scale;
use crate::{generate, store};

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Create the dataset from the sample shipped with roost (data/sample/).
    Init {
        #[command(flatten)]
        db: DbArg,
        /// Replace an existing dataset.
        #[arg(long)]
        force: bool,
    },
    /// Load a dataset from a folder of JSON Lines files or from the original service's
    /// PostgreSQL database, validated, all or nothing; prints the records imported per
    /// kind (and, from a database, the rows left out by reason).
    Import {
        /// The folder of interchange files (KIND.jsonl and community.json; any other
        /// name is refused), or a `postgresql://user@host:port/db` URL of a database
        /// holding the original's schema (read in one read-only snapshot; the password
        /// from the URL, PGPASSWORD, PGPASSFILE or ~/.pgpass, and never printed).
        #[arg(value_name = "SOURCE")]
        dir: PathBuf,
        #[command(flatten)]
        db: DbArg,
        /// Let the import empty this kind of record although the dataset it replaces
        /// holds some (repeatable; `all` for every kind). Without it such an import
        /// is refused.
        #[arg(long, value_name = "KIND", value_parser = allow_empty_parser())]
        allow_empty: Vec<String>,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        wait: WaitArg,
    },
    /// Write a deterministic synthetic dataset of realistic shape, for benchmarks.
    Synth {
        /// The size of the dataset.
        #[arg(long, value_parser = scale_parser())]
        scale: Scale,
        /// The seed: the same scale and seed give the same dataset.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        db: DbArg,
    },
    /// Integrity report; exit status 1 when it finds problems, 2 when it cannot run.
    Check {
        #[command(flatten)]
        db: DbArg,
        /// Print the report as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write the dataset out as JSON Lines files, the format `db import` reads.
    Export {
        /// The folder to write (created; refused when not empty, unless --force).
        dir: PathBuf,
        #[command(flatten)]
        db: DbArg,
        /// Replace what a non-empty DIR holds.
        #[arg(long)]
        force: bool,
        /// Only what the API shows (no inactive chapters, committees or projects,
        /// unpublished releases, snapshots not completed, hidden fields).
        #[arg(long)]
        public_only: bool,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        wait: WaitArg,
    },
    /// Write the sample dataset shipped with roost (data/sample/) from its generator:
    /// deterministic, the same bytes every run. The folder is replaced whole, so one
    /// holding other files is refused.
    Sample {
        /// The folder to write (written beside it, then moved into place).
        #[arg(long, value_name = "DIR", default_value = "data/sample")]
        out: PathBuf,
    },
}

/// `--allow-empty`: a kind of record ([`store::KINDS`]) or `all`.
fn allow_empty_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(std::iter::once("all").chain(store::KINDS.iter().copied()))
}

/// `--scale`: the names of [`Scale::ALL`], listed in `--help`.
fn scale_parser() -> impl TypedValueParser<Value = Scale> {
    PossibleValuesParser::new(Scale::ALL.map(Scale::as_str)).try_map(|s| s.parse::<Scale>())
}

/// Runs `roost db …`.
pub fn exec(cmd: DbCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        DbCommand::Init { db, force } => {
            store::init_db(&db.db, force, crate::idx::build)?;
            println!("created {} from the embedded sample", db.db.display());
        }
        DbCommand::Import {
            dir,
            db,
            allow_empty,
            json,
            wait,
        } => import(&dir, &db.db, allow_empty, json, wait.wait)?,
        DbCommand::Synth { scale, seed, db } => {
            crate::synth::synth(scale, seed, &db.db)?;
            println!(
                "wrote a synthetic {} dataset (seed {seed}) to {}",
                scale.as_str(),
                db.db.display()
            );
        }
        DbCommand::Sample { out } => {
            let files = crate::synth::sample::write(&out)?;
            println!("wrote the sample ({files} files) to {}", out.display());
        }
        DbCommand::Check { db, json } => return check(&db.db, json),
        DbCommand::Export {
            dir,
            db,
            force,
            public_only,
            json,
            wait,
        } => export(&dir, &db.db, force, public_only, json, wait.wait)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `roost db import SOURCE`: from a folder, or from the original's database (a URL),
/// one writer at a time.
fn import(
    dir: &Path,
    db: &Path,
    allow_empty: Vec<String>,
    json: bool,
    wait: bool,
) -> anyhow::Result<()> {
    let lock = crate::lock::beside_file(db)?;
    let _lock = crate::lock::exclusive(&lock, "db import", db, wait)?;
    crate::crash::point("import::lock");
    let allow_empty = if allow_empty.iter().any(|k| k == "all") {
        store::AllowEmpty::All
    } else {
        store::AllowEmpty::Kinds(allow_empty)
    };
    if let Some(url) = dir.to_str().filter(|s| store::original::is_url(s)) {
        return import_original(url, db, &allow_empty, json);
    }
    let counts = store::import_dir_keeping(dir, db, &allow_empty, crate::idx::build)?;
    if json {
        let records = count_object(counts.0.iter().map(|(kind, n)| (*kind, *n)));
        print_json(&serde_json::json!({
            "dir": dir,
            "db": db,
            "records": records,
            "total": counts.total(),
        }));
    } else {
        println!(
            "imported {counts} ({} records) from {} into {}",
            store::thousands(counts.total()),
            dir.display(),
            db.display()
        );
    }
    Ok(())
}

/// `roost db check`: [`EXIT_PROBLEMS`] when it finds any.
fn check(db: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let problems = store::check(db)?;
    if json {
        print_json(&serde_json::json!({
            "db": db,
            "ok": problems.is_empty(),
            "problems": problems,
        }));
    } else if problems.is_empty() {
        println!("{}: no problems found", db.display());
    } else {
        for p in &problems {
            println!("{p}");
        }
        eprintln!("{} problem(s) found in {}", problems.len(), db.display());
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_PROBLEMS)
    })
}

/// `roost db export DIR`, one writer of DIR at a time.
fn export(
    dir: &Path,
    db: &Path,
    force: bool,
    public_only: bool,
    json: bool,
    wait: bool,
) -> anyhow::Result<()> {
    let lock = crate::lock::beside_folder(dir)?;
    let _lock = crate::lock::exclusive(&lock, "db export", dir, wait)?;
    crate::crash::point("export::lock");
    let which = if public_only {
        generate::Dataset::PublicOnly
    } else {
        generate::Dataset::Full
    };
    let conn = generate::dataset::open_for_export(db, which)?;
    let counts = store::export::export_dir(&conn, dir, force)?;
    let records: usize = counts.iter().map(|(_, n)| n).sum();
    if json {
        let files = count_object(counts.iter().map(|(file, n)| (*file, *n as u64)));
        print_json(&serde_json::json!({
            "db": db,
            "dir": dir,
            "public_only": public_only,
            "files": files,
            "records": records,
        }));
    } else {
        println!(
            "exported {records} records in {} files from {} to {}",
            counts.len(),
            db.display(),
            dir.display()
        );
    }
    Ok(())
}

/// `roost db import postgresql://…`: the dataset from the original service's database,
/// with the rows it left out by reason (printed to stderr, or in the JSON summary).
fn import_original(
    url: &str,
    db: &Path,
    allow_empty: &store::AllowEmpty,
    json: bool,
) -> anyhow::Result<()> {
    let done = store::original::import_original(url, db, allow_empty, crate::idx::build)?;
    let source = store::original::shown(url);
    if json {
        let records = count_object(done.counts.0.iter().map(|(kind, n)| (*kind, *n)));
        print_json(&serde_json::json!({
            "source": source,
            "db": db,
            "records": records,
            "total": done.counts.total(),
            "skipped": done.skipped,
            "absent_tables": done.absent,
        }));
        return Ok(());
    }
    for table in &done.absent {
        eprintln!(
            "roost: {table}: not in this database (the original's public dump leaves it \
             out); its records are left empty"
        );
    }
    for skipped in &done.skipped {
        eprintln!("roost: {skipped}");
    }
    println!(
        "imported {} ({} records) from {source} into {}",
        done.counts,
        store::thousands(done.counts.total()),
        db.display()
    );
    Ok(())
}
