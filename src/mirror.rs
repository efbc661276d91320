//! `roost mirror URL --out DIR`: a local copy of a published tree, kept in sync by its
//! split manifest (docs/architecture.md §4, "Manifest").
//!
//! A run fetches `manifest/root.json`; when it is the live copy's, there is nothing to
//! do. Otherwise it takes each chunk from the live copy when it has one of that hash,
//! else fetches it; a file listed with the same size and hash as before is
//! hard-linked from the live copy, one that a run killed earlier already fetched is
//! linked from what that run left (after checking its hash), and only the rest is
//! fetched, several at a time, each file's size and SHA-256 checked against the
//! manifest before it gets its name. `manifest.json`, when the root names one, is
//! rebuilt from the chunks and checked against the root's hash, `changes/` lists
//! what this run changed, and
//! `DIR/site` is swapped to the new generation with one rename, as `roost generate`
//! does: a run that fails or is killed leaves the previous copy as it was, and its
//! folder is reused, then removed, by the next run.
//!
//! With `--with-dataset` the published dataset (`dataset/*.jsonl.gz`, otherwise left
//! out) is fetched too and imported into `DIR/roost.db` (all or nothing, like
//! `roost db import`) when it changed, before the tree is swapped, so
//! `roost serve --site DIR/site --db DIR/roost.db` answers everything offline.
//!
//! When the published tree changes while a run reads it (a chunk or file is gone, or
//! has other bytes), the run starts over from the new root, keeping what it fetched;
//! after three such restarts it gives up.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{anyhow, Context};
use rayon::prelude::*;

use crate::generate;
use crate::manifest::{
    self, split, Changes, Chunk, ManifestEntry, Root, DATASET_DIR, MANIFEST, ROOT,
};

mod http;
mod local;

pub use http::{Client, FetchError};
use local::Local;

/// The largest root manifest read (about 4.5 million files).
const ROOT_LIMIT: u64 = 1 << 30;
/// Restarts after the published tree changed under a run.
const RESTARTS: u32 = 3;

/// Options of one mirror run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The URL of the published site folder (where `manifest.json` is).
    pub url: String,
    /// The mirror's folder: `DIR/site` (and `DIR/roost.db` with the dataset).
    pub out: PathBuf,
    /// Also fetch the published dataset and import it into `DIR/roost.db`.
    pub with_dataset: bool,
    /// Files fetched at a time.
    pub jobs: usize,
    /// Draw a progress bar (on a terminal).
    pub progress: bool,
    /// When another run holds the copy's lock: wait for it (else fail at once).
    pub wait: bool,
}

/// What a mirror run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Files of the copy (what was mirrored) and their size.
    pub files: u64,
    pub bytes: u64,
    /// Files fetched, linked to an identical file of the new copy (fetched or
    /// unchanged) instead of fetched, linked from a run killed earlier, linked
    /// unchanged, removed.
    pub fetched: u64,
    pub identical: u64,
    pub reused: u64,
    pub unchanged: u64,
    pub removed: u64,
    /// Manifest documents fetched (the root and the chunks the copy did not have).
    pub manifest_fetched: u64,
    /// HTTP requests made and body bytes received (as sent, compressed or not).
    pub requests: u64,
    pub received: u64,
    /// Nothing had changed: no new generation.
    pub up_to_date: bool,
    /// The dataset was imported into `DIR/roost.db`.
    pub imported: bool,
    pub millis: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.millis as f64 / 1000.0;
        let mb = |b: u64| b as f64 / 1_000_000.0;
        if self.up_to_date {
            write!(
                f,
                "up to date: {} files, {:.1} MB",
                self.files,
                mb(self.bytes)
            )?;
        } else {
            write!(
                f,
                "mirrored {} files ({} fetched, {} identical, {} reused, {} unchanged, {} removed), {:.1} MB",
                self.files,
                self.fetched,
                self.identical,
                self.reused,
                self.unchanged,
                self.removed,
                mb(self.bytes)
            )?;
        }
        write!(
            f,
            "; {} requests ({} manifest documents), {:.3} MB received in {:.2} s",
            self.requests,
            self.manifest_fetched,
            mb(self.received),
            secs
        )?;
        if self.imported {
            write!(f, "; dataset imported")?;
        }
        Ok(())
    }
}

/// Why one attempt stopped.
enum Stop {
    /// The published tree changed under the run: start over.
    Moved(FetchError),
    Failed(anyhow::Error),
}

impl From<FetchError> for Stop {
    fn from(e: FetchError) -> Stop {
        if e.tree_moved() {
            Stop::Moved(e)
        } else {
            Stop::Failed(e.into())
        }
    }
}

impl From<anyhow::Error> for Stop {
    fn from(e: anyhow::Error) -> Stop {
        Stop::Failed(e)
    }
}

impl From<manifest::ManifestError> for Stop {
    fn from(e: manifest::ManifestError) -> Stop {
        Stop::Failed(e.into())
    }
}

/// Brings the tree published at `opts.url` to `opts.out` (see the module doc).
pub fn mirror(opts: &Options) -> anyhow::Result<Summary> {
    let started = Instant::now();
    if opts.jobs == 0 {
        return Err(anyhow!("--jobs must be at least 1"));
    }
    let client = Client::new(&opts.url, opts.jobs).map_err(|e| anyhow!(e))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()?;
    // One run at a time (the lock `roost generate` takes on a tree at DIR/site too):
    // what is beside the copy is this run's to reuse or remove.
    let site = opts.out.join("site");
    let _lock = crate::lock::exclusive(
        &crate::lock::beside_folder(&site)?,
        "mirror",
        &site,
        opts.wait,
    )?;
    crate::crash::point("mirror::lock");
    let mut restarts = 0;
    let mut summary = loop {
        let local = Local::open(&opts.out)?;
        // The newest folder left by an earlier run or attempt is kept for its files.
        local.remove_leftovers(1);
        match pool.install(|| sync(opts, &client, &local)) {
            Ok(summary) => break summary,
            Err(Stop::Moved(e)) if restarts < RESTARTS => {
                restarts += 1;
                eprintln!("roost: the published tree changed while mirroring ({e}); starting over");
            }
            Err(Stop::Moved(e)) => {
                return Err(anyhow::Error::new(e)
                    .context("the published tree kept changing while it was mirrored"))
            }
            Err(Stop::Failed(e)) => return Err(e),
        }
    };
    summary.requests = client.requests.load(Ordering::Relaxed);
    summary.received = client.bytes.load(Ordering::Relaxed);
    summary.millis = started.elapsed().as_millis() as u64;
    Ok(summary)
}

/// Where a chunk's entries came from.
enum ChunkSource {
    /// The live copy has this chunk: its files are unchanged.
    Live,
    /// Fetched (its bytes).
    Fetched(Vec<u8>),
}

/// One attempt.
// Long as one attempt is: the root document, the chunks it names, the plan against
// the local copy, then the fill and swap (`fill_and_swap`); each stage returns its
// own `Stop`, and they share the root and the client.
fn sync(opts: &Options, client: &Client, local: &Local) -> Result<Summary, Stop> {
    let root_bytes = match client.bytes(ROOT, ROOT_LIMIT, true) {
        Err(FetchError::Missing(url)) => {
            return Err(Stop::Failed(anyhow!(
                "{url}: not found; is {} the site folder of a tree written by roost generate?",
                opts.url
            )))
        }
        other => other?,
    };
    let root = Root::parse(&root_bytes)?;
    let wanted = |path: &str| opts.with_dataset || !path.starts_with(&format!("{DATASET_DIR}/"));
    let live_root = local
        .root_bytes()
        .and_then(|b| Root::parse(&b).ok().map(|r| (b, r)));

    if let Some((bytes, _)) = &live_root {
        if *bytes == root_bytes && dataset_in_step(opts, local, &root) {
            local.remove_leftovers(0);
            return Ok(Summary {
                files: root.files,
                bytes: root.bytes,
                up_to_date: true,
                manifest_fetched: 1,
                ..Summary::default()
            });
        }
    }

    // The chunks: from the live copy when it has them, else fetched.
    let fetched_documents = AtomicU64::new(1);
    let chunks: Vec<(ChunkSource, Vec<ManifestEntry>)> = root
        .chunks
        .par_iter()
        .map(|chunk| -> Result<_, Stop> {
            if let Some(entries) = local.chunk(chunk) {
                return Ok((ChunkSource::Live, entries));
            }
            let bytes = client.bytes(&chunk.path, chunk.size, false)?;
            let entries = split::parse_chunk(chunk, &bytes).map_err(|e| {
                Stop::Moved(FetchError::Mismatch {
                    url: client.url(&chunk.path),
                    problem: e.to_string(),
                })
            })?;
            fetched_documents.fetch_add(1, Ordering::Relaxed);
            Ok((ChunkSource::Fetched(bytes), entries))
        })
        .collect::<Result<_, _>>()?;

    // What the live copy held in the chunks that changed.
    let new_names: HashSet<&str> = root.chunks.iter().map(|c| c.path.as_str()).collect();
    let old_changed: HashMap<String, (u64, String)> = live_root
        .as_ref()
        .map(|(_, old)| {
            old.chunks
                .iter()
                .filter(|c| !new_names.contains(c.path.as_str()))
                .filter_map(|c| local.chunk(c))
                .flatten()
                .filter(|e| wanted(&e.path))
                .map(|e| (e.path, (e.size, e.sha256)))
                .collect()
        })
        .unwrap_or_default();

    // Which files can be linked from the live copy and which are needed.
    let mut from_live: Vec<&ManifestEntry> = Vec::new();
    let mut needed: Vec<&ManifestEntry> = Vec::new();
    for (source, entries) in &chunks {
        for entry in entries.iter().filter(|e| wanted(&e.path)) {
            let unchanged = match source {
                ChunkSource::Live => true,
                ChunkSource::Fetched(_) => {
                    old_changed.get(&entry.path) == Some(&(entry.size, entry.sha256.clone()))
                }
            };
            if unchanged {
                from_live.push(entry);
            } else {
                needed.push(entry);
            }
        }
    }

    let (generation, generation_name) = new_generation(local)?;
    let result = fill_and_swap(
        opts,
        client,
        local,
        &root,
        &root_bytes,
        &chunks,
        &old_changed,
        from_live,
        needed,
        (&generation, &generation_name),
    );
    if let Err(Stop::Failed(e)) = &result {
        // Out of space: what this run wrote, and the leftovers it reused, would only
        // keep the next one from succeeding (the copy stays as it was).
        if is_disk_full(e) {
            let _ = fs::remove_dir_all(&generation);
            local.remove_leftovers(0);
        }
    }
    let mut summary = result?;
    summary.manifest_fetched = fetched_documents.load(Ordering::Relaxed);
    Ok(summary)
}

/// Whether `e` was caused by a full disk or an exhausted quota (`ENOSPC`, `EDQUOT`,
/// or SQLite's "database or disk is full" while importing the dataset).
fn is_disk_full(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let io = cause
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::raw_os_error)
            .is_some_and(|code| code == 28 || code == 122);
        let sqlite = match cause.downcast_ref::<crate::store::StoreError>() {
            Some(crate::store::StoreError::Sqlite(e)) => Some(e),
            _ => cause.downcast_ref::<rusqlite::Error>(),
        }
        .and_then(rusqlite::Error::sqlite_error_code)
            == Some(rusqlite::ErrorCode::DiskFull);
        io || sqlite
    })
}

/// Fills the new generation (links from the live copy and from leftovers, fetches,
/// manifest documents, change lists, the dataset) and swaps it in.
#[allow(clippy::too_many_arguments)]
// The generation is filled in the order a reader may rely on (links, fetches,
// manifest documents, change lists, dataset) before the one swap; the stages share
// the new folder and its counts, so they stay in one place.
fn fill_and_swap<'a>(
    opts: &Options,
    client: &Client,
    local: &Local,
    root: &Root,
    root_bytes: &[u8],
    chunks: &[(ChunkSource, Vec<ManifestEntry>)],
    old_changed: &HashMap<String, (u64, String)>,
    from_live: Vec<&'a ManifestEntry>,
    mut needed: Vec<&'a ManifestEntry>,
    (generation, generation_name): (&Path, &str),
) -> Result<Summary, Stop> {
    let wanted = |path: &str| opts.with_dataset || !path.starts_with(&format!("{DATASET_DIR}/"));
    let generation = generation.to_path_buf();
    let linked: Vec<bool> = from_live
        .par_iter()
        .map(|e| local.link_live(&generation, &e.path))
        .collect();
    let unchanged = linked.iter().filter(|l| **l).count() as u64;
    needed.extend(
        from_live
            .iter()
            .zip(&linked)
            .filter(|(_, l)| !**l)
            .map(|(e, _)| *e),
    );
    let to_fetch: Vec<&ManifestEntry> = needed
        .par_iter()
        .filter(|e| !local.link_leftover(&generation, e))
        .copied()
        .collect();
    let reused = (needed.len() - to_fetch.len()) as u64;
    let in_place = from_live
        .iter()
        .zip(&linked)
        .filter(|(_, l)| **l)
        .map(|(e, _)| *e);
    let (mut to_fetch, copies) = identical_files(in_place, to_fetch);
    fetch_files(opts, client, &generation, &to_fetch)?;
    let not_copied: Vec<&ManifestEntry> = copies
        .par_iter()
        .filter(|(e, source)| !link_copy(&generation, source, &e.path))
        .map(|(e, _)| *e)
        .collect();
    let identical = (copies.len() - not_copied.len()) as u64;
    fetch_files(opts, client, &generation, &not_copied)?;
    to_fetch.extend(not_copied);
    crate::crash::point("mirror::documents");

    // The manifest documents, then what changed.
    let mut all: Vec<ManifestEntry> = Vec::with_capacity(root.files as usize);
    let mut fetched_entries: Vec<ManifestEntry> = Vec::new();
    for ((source, entries), chunk) in chunks.iter().zip(&root.chunks) {
        write_chunk(local, &generation, chunk, source)?;
        if matches!(source, ChunkSource::Fetched(_)) {
            fetched_entries.extend(entries.iter().filter(|e| wanted(&e.path)).cloned());
        }
        all.extend(entries.iter().cloned());
    }
    // A tree published without `manifest.json` is copied without one too.
    if let Some(named) = &root.manifest {
        let full = manifest::full_manifest(&all)?;
        if manifest::sha256_hex(&full) != named.sha256 {
            return Err(Stop::Failed(anyhow!(
                "the chunks of {} do not add up to the manifest.json it names",
                client.url(ROOT)
            )));
        }
        write_file(&generation, MANIFEST, &full)?;
    }
    write_file(&generation, ROOT, root_bytes)?;
    let changes = changes(local, &generation, &fetched_entries, old_changed)?;
    for (path, bytes) in changes.documents() {
        write_file(&generation, &path, &bytes)?;
    }

    let present: Vec<&ManifestEntry> = all.iter().filter(|e| wanted(&e.path)).collect();
    let mut imported = false;
    if opts.with_dataset {
        let record = local::dataset_record(present.iter().copied());
        if !local.db().is_file() || local.dataset_source().as_deref() != Some(record.as_str()) {
            local.import_dataset(&generation, &record, opts.wait)?;
            imported = true;
        }
    }

    generate::swap_in(&local.site, &local.parent, generation_name, "mirror").inspect_err(|_| {
        let _ = fs::remove_dir_all(&generation);
    })?;
    crate::crash::point("mirror::swapped");
    generate::clean_leftovers(
        &local.parent,
        &local.prefix,
        &[generation.as_path()],
        "mirror",
    );
    Ok(Summary {
        files: present.len() as u64,
        bytes: present.iter().map(|e| e.size).sum(),
        fetched: to_fetch.len() as u64,
        identical,
        reused,
        unchanged,
        removed: changes
            .removed
            .iter()
            .filter(|p| split::is_safe_path(p))
            .count() as u64,
        imported,
        ..Summary::default()
    })
}

/// Whether the replica's dataset is the one the (unchanged) live tree publishes, or
/// no dataset is wanted.
fn dataset_in_step(opts: &Options, local: &Local, root: &Root) -> bool {
    if !opts.with_dataset {
        return true;
    }
    // Only the chunks whose path range can hold `dataset/…` are read.
    let (low, high) = (format!("{DATASET_DIR}/"), format!("{DATASET_DIR}0"));
    let mut entries = Vec::new();
    for (i, chunk) in root.chunks.iter().enumerate() {
        let next = root.chunks.get(i + 1).map(|c| c.first.as_str());
        let overlaps =
            chunk.first.as_str() < high.as_str() && next.is_none_or(|n| n > low.as_str());
        if overlaps {
            match local.chunk(chunk) {
                Some(found) => entries.extend(found),
                None => return false,
            }
        }
    }
    let record = local::dataset_record(&entries);
    let files_present = entries
        .iter()
        .filter(|e| e.path.starts_with(&low))
        .all(|e| {
            local
                .live
                .as_ref()
                .is_some_and(|l| l.join(&e.path).is_file())
        });
    files_present
        && local.db().is_file()
        && local.dataset_source().as_deref() == Some(record.as_str())
}

/// Identical files stored once: of the files `to_fetch`, those with the size and
/// SHA-256 of a file already `in_place` in the new generation or of an earlier file to
/// fetch, each with the path it can be linked to (the tree holds identical list pages
/// as hard links to one file; the copy keeps them so). The files to fetch, and the
/// copies.
fn identical_files<'a>(
    in_place: impl Iterator<Item = &'a ManifestEntry>,
    to_fetch: Vec<&'a ManifestEntry>,
) -> (Vec<&'a ManifestEntry>, Vec<(&'a ManifestEntry, &'a str)>) {
    let mut first: HashMap<(&str, u64), &str> = HashMap::new();
    for e in in_place {
        first.entry((&e.sha256, e.size)).or_insert(&e.path);
    }
    let (mut fetch, mut copies) = (Vec::new(), Vec::new());
    for e in to_fetch {
        match first.entry((&e.sha256, e.size)) {
            std::collections::hash_map::Entry::Occupied(at) => copies.push((e, *at.get())),
            std::collections::hash_map::Entry::Vacant(at) => {
                at.insert(&e.path);
                fetch.push(e);
            }
        }
    }
    (fetch, copies)
}

/// Hard-links `source` of the new generation (a file placed or fetched, with the
/// same bytes) to `path`; false when it cannot (the file is then fetched).
fn link_copy(generation: &Path, source: &str, path: &str) -> bool {
    let target = generation.join(path);
    target
        .parent()
        .is_none_or(|parent| fs::create_dir_all(parent).is_ok())
        && fs::hard_link(generation.join(source), &target).is_ok()
}

/// A fresh generation folder beside `DIR/site`.
fn new_generation(local: &Local) -> anyhow::Result<(PathBuf, String)> {
    let name = generate::generation_name(&local.prefix);
    let path = local.parent.join(&name);
    fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
    crate::crash::point("mirror::new_generation");
    Ok((path, name))
}

/// Fetches `files` into `generation`, `opts.jobs` at a time (the calling pool's
/// threads), with a progress bar on a terminal.
fn fetch_files(
    opts: &Options,
    client: &Client,
    generation: &Path,
    files: &[&ManifestEntry],
) -> Result<(), Stop> {
    let bar = if opts.progress {
        indicatif::ProgressBar::new(files.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} files")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let result = files.par_iter().try_for_each(|entry| -> Result<(), Stop> {
        let target = generation.join(&entry.path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        client.file(&entry.path, entry.size, &entry.sha256, &target)?;
        bar.inc(1);
        Ok(())
    });
    bar.finish_and_clear();
    result
}

/// Puts a chunk into the new generation: linked from the live copy, else written.
fn write_chunk(
    local: &Local,
    generation: &Path,
    chunk: &Chunk,
    source: &ChunkSource,
) -> Result<(), Stop> {
    match source {
        ChunkSource::Live if local.link_live(generation, &chunk.path) => Ok(()),
        ChunkSource::Live => {
            let live = local
                .live
                .as_ref()
                .ok_or_else(|| anyhow!("the live copy disappeared"))?;
            let bytes = fs::read(live.join(&chunk.path))
                .with_context(|| format!("reading {}", live.join(&chunk.path).display()))?;
            write_file(generation, &chunk.path, &bytes)
        }
        ChunkSource::Fetched(bytes) => write_file(generation, &chunk.path, bytes),
    }
}

fn write_file(generation: &Path, path: &str, bytes: &[u8]) -> Result<(), Stop> {
    let target = generation.join(path);
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    fs::write(&target, bytes).with_context(|| format!("writing {}", target.display()))?;
    Ok(())
}

/// What this run changed in the copy: the files of the chunks that changed, and the
/// manifest documents.
fn changes(
    local: &Local,
    generation: &Path,
    fetched_entries: &[ManifestEntry],
    old_changed: &HashMap<String, (u64, String)>,
) -> Result<Changes, Stop> {
    let mut fetched_entries = fetched_entries.to_vec();
    fetched_entries.sort_by(|a, b| a.path.cmp(&b.path));
    let mut out = Changes::between(&fetched_entries, old_changed);
    let old_documents = split::documents_by_path(local.live.as_deref());
    let mut new_documents = split::documents_of_tree(generation);
    new_documents.sort_by(|a, b| a.path.cmp(&b.path));
    out.merge(Changes::between(&new_documents, &old_documents));
    Ok(out)
}
