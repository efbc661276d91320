//! `roost generate`: renders the whole REST v0 tree from the dataset.
//!
//! Phases: plan the work units (one per list × scope × ordering, one per batch of
//! details, plus the fixed documents), render and write them in parallel with rayon
//! into a new directory beside the live tree (the spare generation renamed, or a
//! fresh one), write the manifest, then swap the live tree (a symlink) to the new
//! directory with one atomic rename. A failed or killed run leaves the live tree as
//! it was.
//!
//! Incremental: a file whose key ([`keys`]) or bytes equal the previous tree's is its
//! file (the spare's, already in place, or hard-linked), so it keeps its inode and
//! mtime; files no longer produced are removed from the spare or never placed in a
//! fresh folder ([`spare`]).
//!
//! Beside the tree files a generation writes its manifest documents and change lists
//! ([`crate::manifest`]) and, when asked, the dataset itself ([`dataset`]).
//!
//! This file runs the phases in order ([`generate_with`], each phase a method of
//! [`run::Run`] or [`run::Generation`], listed in [`run`]); the work behind them lives
//! in modules of their own: [`plan`] (the units and the partition of a list's rows by
//! filter values), [`render`] (a unit into files), [`write`] (the one write path:
//! hard links of unchanged files, precompressed siblings), [`generations`] (the
//! folders beside the live tree and the atomic swap), [`spare`] (the replaced
//! generation kept and updated in place), [`input`] (the record of what a
//! generation was rendered from, so an unchanged input keeps the live tree).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

mod bodies;
mod change_lists;
mod compare;
pub mod dataset;
mod delta;
mod entry;
mod generations;
pub mod input;
mod keys;
mod listed;
mod plan;
mod previous;
mod publish;
mod render;
mod run;
mod runs;
mod sorted;
mod spare;
mod summed;
mod units;
pub mod verify;
mod write;

pub use dataset::Dataset;
pub(crate) use generations::{clean_leftovers, generation_name, generation_prefix, swap_in};
pub use listed::first_listed;
pub use render::PAGES_HEADERS;

pub use write::Precompress;

/// Options of one generation.
#[derive(Debug, Clone)]
pub struct Options {
    pub db: PathBuf,
    pub out: PathBuf,
    pub jobs: Option<usize>,
    /// The precompressed siblings to write ([`Precompress`]).
    pub precompress: Precompress,
    /// The UTC date the `is_upcoming` files are rendered for (`YYYY-MM-DD`).
    pub today: String,
    /// Draw a progress bar (on a terminal).
    pub progress: bool,
    /// Public base URL without trailing slash, for absolute links (root `docs_url`).
    pub public_url: Option<String>,
    /// When another run holds the tree's lock: wait for it (else fail at once).
    pub wait: bool,
    /// Write `manifest.json`, every entry in one document, beside the split manifest
    /// (the default). Without it the chunks and their root are the manifest, and a
    /// run's manifest step follows the chunks that changed, not the tree.
    pub manifest_json: bool,
}

/// What a generation did. Every file the writer placed in the new generation is
/// counted once, as written or as unchanged: `written + unchanged == files +
/// documents`. The change lists (`changes/`) describe the run and are counted in
/// none of these.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// The tree's files, as the manifest lists them (precompressed siblings included).
    pub files: u64,
    /// The manifest documents (`manifest.json` and its chunks), outside the manifest.
    pub documents: u64,
    /// The bytes of the tree's files.
    pub bytes: u64,
    /// Files (tree files and manifest documents) written with new bytes.
    pub written: u64,
    /// Files hard-linked from the previous generation, their bytes unchanged.
    pub unchanged: u64,
    /// Tree files of the previous generation the new one no longer has.
    pub removed: u64,
    /// Tree files made from the dataset by this run (written, or linked because their
    /// bytes came out the same); the others were linked by their key without being
    /// made ([`keys`]: nothing they are made from changed).
    pub rendered: u64,
    /// The work units of the plan (lists × scope × ordering, detail resources, the
    /// fixed documents), and of them those skipped whole: their inputs unchanged,
    /// their files placed from their record without reading the dataset ([`units`]).
    pub units: u64,
    pub units_skipped: u64,
    pub millis: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.millis as f64 / 1000.0;
        let mb = self.bytes as f64 / 1_000_000.0;
        write!(
            f,
            "generated {} tree files + {} manifest documents: {} written, {} unchanged; \
             {} removed; {} rendered{}; {:.1} MB in {:.2} s ({:.1} MB/s)",
            self.files,
            self.documents,
            self.written,
            self.unchanged,
            self.removed,
            self.rendered,
            // A run that kept the live generation planned no units.
            if self.units > 0 {
                format!(" ({} of {} units skipped)", self.units_skipped, self.units)
            } else {
                String::new()
            },
            mb,
            secs,
            if secs > 0.0 { mb / secs } else { 0.0 }
        )
    }
}

pub use crate::manifest::{read_manifest, Manifest, ManifestEntry, MANIFEST};

/// Renders the whole tree into `opts.out` (see the module doc).
pub fn generate(opts: &Options) -> anyhow::Result<Summary> {
    generate_with(opts, None)
}

/// Renders the whole tree into `opts.out`, with the dataset under `dataset/` when
/// `dataset` says which records to publish: the run's phases in order ([`run`]).
pub fn generate_with(opts: &Options, dataset: Option<Dataset>) -> anyhow::Result<Summary> {
    let mut run = run::Run::start(opts, dataset)?;
    run.mark("start");
    run.clean_leftovers()?;
    run.mark("leftovers");
    run.fingerprint()?;
    run.mark("fingerprint");
    if let Some(kept) = run.keep_live_if_current()? {
        run.mark("live kept");
        return Ok(kept);
    }
    run.mark("live checked");
    let mut generation = run.new_generation()?;
    run.mark("new generation");
    let written = generation
        .fill(&mut run)
        .and_then(|summary| generation.record(&run, &summary).map(|()| summary))
        .inspect(|_| run.mark("record"))
        .and_then(|summary| generation.swap_in(&run).map(|()| summary));
    let mut summary = match written {
        Ok(summary) => summary,
        Err(e) => {
            generation.discard(&run);
            return Err(e);
        }
    };
    run.mark("swap");
    run.retire(generation);
    run.mark("retire");
    summary.millis = run.millis();
    Ok(summary)
}

/// A run whose input is the live generation's: the tree stays as it is (every file
/// keeps its inode and mtime, nothing is rendered, linked or removed); the change lists
/// are replaced by empty ones (nothing changed since the previous run), and the
/// symlink is renewed so the tree is newer than its dataset.
fn keep_live(
    opts: &Options,
    parent: &Path,
    live: &Path,
    record: &input::Record,
    started: Instant,
) -> anyhow::Result<Summary> {
    empty_change_lists(opts, live)?;
    crate::crash::point("generate::keep_swap");
    swap_in(&opts.out, parent, &record.generation, "generate")?;
    Ok(Summary {
        files: record.files,
        documents: record.documents,
        bytes: record.bytes,
        written: 0,
        unchanged: record.files + record.documents,
        removed: 0,
        rendered: 0,
        units: 0,
        units_skipped: 0,
        millis: started.elapsed().as_millis() as u64,
    })
}

/// The change lists of the live generation `live` replaced by empty ones, unless they
/// are empty already. They are written into a folder beside the tree
/// ([`input::change_lists_path`]: no temporary name ever appears in the tree), which
/// is then exchanged with the generation's `changes/` in one step, so a reader finds
/// every old list or every new one; the old lists, now in that folder, are removed
/// with it. Where the file system cannot exchange two names, each list is renamed
/// over its old one. A run killed in between leaves the folder beside the tree, where
/// the next run's clean-up of dead processes' temporary names removes it.
fn empty_change_lists(opts: &Options, live: &Path) -> anyhow::Result<()> {
    let documents = crate::manifest::Changes::default().documents();
    let changes = live.join(crate::manifest::changes::CHANGES_DIR);
    let listed = |dir: &Path| -> Option<usize> { Some(fs::read_dir(dir).ok()?.count()) };
    if listed(&changes) == Some(documents.len())
        && documents.iter().all(|(path, bytes)| {
            // Sized first: after a full run a list names every file (a gigabyte at
            // `10x`), and is not read to be found different.
            let path = live.join(path);
            fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64)
                && fs::read(&path).is_ok_and(|old| old == *bytes)
        })
    {
        return Ok(());
    }
    let temp = crate::atomic::with_suffix(
        &input::change_lists_path(&opts.out)?,
        &format!(".tmp-{}", std::process::id()),
    );
    let _ = fs::remove_dir_all(&temp);
    let written = (|| {
        fs::create_dir(&temp).with_context(|| format!("creating {}", temp.display()))?;
        for (path, bytes) in &documents {
            let name = Path::new(path).file_name().unwrap_or_default();
            crate::atomic::write_synced(&temp.join(name), bytes)
                .with_context(|| format!("writing {}", temp.join(name).display()))?;
        }
        crate::crash::point("generate::keep_changes");
        let swapped = if fs::symlink_metadata(&changes).is_err() {
            fs::rename(&temp, &changes)
        } else {
            match crate::atomic::exchange(&temp, &changes) {
                Err(e) if crate::atomic::cannot_exchange(&e) => {
                    documents.iter().try_for_each(|(path, _)| {
                        let name = Path::new(path).file_name().unwrap_or_default();
                        fs::rename(temp.join(name), live.join(path))
                    })
                }
                other => other,
            }
        };
        swapped.with_context(|| format!("replacing {}", changes.display()))
    })();
    let _ = fs::remove_dir_all(&temp);
    written
}

/// Whether the tree at `site` is missing or older than the dataset `db`.
pub fn tree_is_stale(site: &Path, db: &Path) -> bool {
    // `manifest.json`, or the split manifest's root in a tree without one.
    let manifest_meta = [crate::generate::MANIFEST, crate::manifest::ROOT]
        .into_iter()
        .find_map(|rel| std::fs::metadata(site.join(rel)).ok());
    let Some(manifest_meta) = manifest_meta else {
        return true;
    };
    let Ok(db_time) = std::fs::metadata(db).and_then(|m| m.modified()) else {
        return false;
    };
    // The symlink is replaced by every generation; the manifest may keep an old
    // mtime when its bytes did not change.
    let tree_time = [
        std::fs::symlink_metadata(site)
            .and_then(|m| m.modified())
            .ok(),
        manifest_meta.modified().ok(),
    ]
    .into_iter()
    .flatten()
    .max();
    tree_time.is_none_or(|t| t < db_time)
}
