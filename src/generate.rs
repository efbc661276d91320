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
//! This file runs the phases in order ([`generate_with`]); each phase's work lives in
//! a module of its own: [`plan`] (the units and the partition of a list's rows by
//! filter values), [`render`] (a unit into files), [`write`] (the one write path:
//! hard links of unchanged files, precompressed siblings), [`generations`] (the
//! folders beside the live tree and the atomic swap), [`spare`] (the replaced
//! generation kept and updated in place), [`input`] (the record of what a
//! generation was rendered from, so an unchanged input keeps the live tree).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::time::Instant;

use anyhow::{anyhow, Context};
use rayon::prelude::*;

use crate::store;

pub mod dataset;
mod entry;
mod generations;
pub mod input;
mod keys;
mod plan;
mod previous;
mod publish;
mod render;
mod spare;
mod units;
pub mod verify;
mod write;

pub use dataset::Dataset;
pub(crate) use generations::{clean_leftovers, generation_name, generation_prefix, swap_in};
pub use render::PAGES_HEADERS;

use entry::Entry;
use generations::remove_tree;
use plan::plan;
use render::render_unit;
pub use write::Precompress;
use write::Writer;

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
/// `dataset` says which records to publish.
// Long as the run is: the lock, the nothing-changed shortcut, the new generation
// rendered (into the spare or a fresh folder), recorded and swapped in, the replaced
// one kept as the spare. The steps share the
// lock, the paths and the previous manifest; each is commented where it starts.
pub fn generate_with(opts: &Options, dataset: Option<Dataset>) -> anyhow::Result<Summary> {
    let started = Instant::now();
    let (parent, prefix) = generation_prefix(&opts.out)?;
    fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    // One run at a time: what is beside the tree is this run's to clean up.
    let _lock = crate::lock::exclusive(
        &crate::lock::beside_folder(&opts.out)?,
        "generate",
        &opts.out,
        opts.wait,
    )?;
    let conn = store::open_api(&opts.db)?;
    let live_target = fs::read_link(&opts.out).ok().map(|t| parent.join(t));
    // The spare generation stays until the run knows whether it can use it.
    let mut recorded_spare = spare::recorded(&opts.out, &prefix);
    let spare_dir = recorded_spare.as_ref().map(|(name, _)| parent.join(name));
    let keep: Vec<&Path> = [live_target.as_deref(), spare_dir.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    clean_leftovers(&parent, &prefix, &keep);
    input::remove_stale_temps(&opts.out);

    let previous_root = if opts.out.is_dir() {
        Some(opts.out.canonicalize()?)
    } else {
        None
    };
    // Same input as the live generation, and the live tree whole: it is already what
    // this run would write.
    let input = input::fingerprint(opts, dataset)?;
    // The live tree's files found missing or of another size: never linked or kept
    // by this run, so it places them again.
    let mut damaged = std::collections::HashSet::new();
    if let (Some(input), Some(live)) = (&input, &live_target) {
        if let Some(record) = input::read_record(&opts.out) {
            if record.fingerprint == input.fingerprint
                && live.file_name() == Some(std::ffi::OsStr::new(&record.generation))
                && live.join(MANIFEST).is_file()
            {
                let missing = verify::quick_tree(live).unwrap_or_default();
                if missing.is_empty() {
                    drop(conn);
                    return keep_live(opts, &parent, live, &record, started);
                }
                eprintln!(
                    "roost: {} file(s) of the live tree {} do not match its manifest \
                     (first: {}); rendering it again",
                    missing.len(),
                    opts.out.display(),
                    missing[0]
                );
                damaged.extend(missing.into_iter().map(|p| p.path));
            }
        }
    }

    let previous = previous::Previous::open(previous_root.as_deref());
    let gen_name = generation_name(&prefix);
    let gen_dir = parent.join(&gen_name);

    // The keys of the live generation's files: a file whose key is among them is
    // linked without being rendered.
    let mut file_keys = match &input {
        Some(_) => keys::FileKeys::load(
            &opts.out,
            live_target
                .as_deref()
                .and_then(Path::file_name)
                .and_then(|n| n.to_str()),
        ),
        None => keys::FileKeys::default(),
    };
    // The new generation: the spare one renamed and updated in place when there is
    // one to use (and keys to tell which of its files are current), else a new folder.
    // A spare that shares few files with the live generation (after a new executable,
    // or when most of the data changed) would cost more to update, a file replaced
    // being two operations, than a fresh folder filled with links: it is removed after
    // the swap instead, as a replaced generation is.
    let spare = match &live_target {
        Some(live) if file_keys.has_previous() => recorded_spare
            .take()
            .and_then(|(name, keys)| spare::find(&parent, &name, keys, live))
            .filter(|s| file_keys.shared_with(&s.keys) * 2 >= file_keys.previous_len()),
        _ => None,
    };
    spare::forget(&opts.out);
    let mut spare_paths = None;
    if let Some(s) = spare {
        if fs::rename(&s.dir, &gen_dir).is_ok() {
            file_keys.set_spare(s.keys);
            spare_paths = Some(s.own_paths);
        }
    }
    let unused_spare = spare_dir.filter(|d| d.exists() && Some(d) != live_target.as_ref());
    if spare_paths.is_none() {
        fs::create_dir_all(&gen_dir).with_context(|| format!("creating {}", gen_dir.display()))?;
    }
    let records = units::records_dir(&opts.out)?;
    let keying = input.as_ref().map(|i| render::Keying {
        salt: &i.salt,
        digests: &i.digests,
        files: &file_keys,
        records: &records,
        rowid_tables: Default::default(),
    });
    let mut documents = 0;
    let mut keys_file: Option<std::thread::JoinHandle<Vec<u8>>> = None;
    let in_place = spare_paths.is_some();
    let result = (|| -> anyhow::Result<Summary> {
        let plan = plan(&conn)?;
        let order = plan::longest_first(&conn, &plan);
        drop(conn);
        let writer = Writer::new(
            gen_dir.clone(),
            previous_root.clone(),
            previous,
            opts.precompress,
            spare_paths.is_some(),
        )
        .never_linking(std::mem::take(&mut damaged));
        let bar = if opts.progress {
            indicatif::ProgressBar::new(plan.len() as u64)
        } else {
            indicatif::ProgressBar::hidden()
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} units {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.jobs.unwrap_or(0))
            .build()?;
        let conns = render::Connections::new(&opts.db);
        // The units taken from one queue, longest expected first, each by the first
        // worker free: the long units (a large list's orderings, its details) start
        // at once and the short ones fill in after them, so no long unit starts last
        // while the other worker has nothing left to take.
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let parts = pool.install(|| {
            (0..rayon::current_num_threads())
                .into_par_iter()
                .map(|_| {
                    let mut done = Vec::new();
                    while !stop.load(AtomicOrdering::Relaxed) {
                        let Some(&i) = order.get(next.fetch_add(1, AtomicOrdering::Relaxed)) else {
                            break;
                        };
                        let part = render_unit(&writer, opts, &plan[i], keying.as_ref(), &conns)
                            .inspect_err(|_| stop.store(true, AtomicOrdering::Relaxed))?;
                        bar.inc(1);
                        done.push(part);
                    }
                    anyhow::Ok(done)
                })
                .collect::<anyhow::Result<Vec<_>>>()
        })?;
        let parts: Vec<_> = parts.into_iter().flatten().collect();
        bar.finish_and_clear();
        let units_skipped = parts.iter().filter(|(_, skipped)| *skipped).count() as u64;
        let mut files: Vec<Entry> = parts.into_iter().flat_map(|(files, _)| files).collect();
        pool.install(|| files.par_sort_unstable_by(|a, b| a.path.cmp(&b.path)));
        // Updating the spare: what it holds that this generation does not is
        // removed, the API's files before the docs page picks its examples from them.
        // That is the previous generation's paths no longer listed and the spare's
        // own paths (from the chunks it does not share with the live generation).
        let written_last = |p: &str| {
            p.strip_prefix(crate::tree::API_DIR)
                .is_some_and(|p| p.starts_with("/docs/"))
                || p.strip_prefix(crate::manifest::DATASET_DIR)
                    .is_some_and(|p| p.starts_with('/'))
        };
        let stale = |files: &[Entry], gone: &[String], last: bool| match &spare_paths {
            Some(own) => {
                let listed = |p: &str| files.binary_search_by(|e| e.path.as_str().cmp(p)).is_ok();
                spare::remove_stale(
                    &gen_dir,
                    gone.iter()
                        .map(String::as_str)
                        .chain(own.iter().map(String::as_str).filter(|p| !listed(p)))
                        .filter(|p| written_last(p) == last),
                )
            }
            None => Ok(()),
        };
        if spare_paths.is_some() {
            let gone = writer
                .previous
                .missing_from(&files, &writer.fresh_among(&files));
            stale(&files, &gone, false)?;
        }
        // The docs page and the dataset, sorted and merged into the sorted units'
        // entries (not the whole list sorted again).
        let mut later = render::render_docs(&writer, &files)?;
        if let Some(which) = dataset {
            later.extend(
                pool.install(|| dataset::write(&writer, &opts.db, which, keying.as_ref()))?,
            );
        }
        // Every file's key is in: the keys file is made beside the manifest.
        if input.is_some() {
            let (keys, generation) = (file_keys.take_new(), gen_name.clone());
            keys_file = Some(std::thread::spawn(move || keys.encode(&generation)));
        }
        later.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let files = merge_sorted(files, later);
        let twice = pool.install(|| files.par_windows(2).find_first(|w| w[0].path == w[1].path));
        if let Some(dup) = twice {
            return Err(anyhow!("two answers map to one file: {}", dup[0].path));
        }
        let fresh = writer.fresh_among(&files);
        let gone = writer.previous.missing_from(&files, &fresh);
        stale(&files, &gone, true)?;
        let removed = gone.len() as u64;
        let bytes = files.iter().map(|e| e.size).sum();
        let count = files.len() as u64;
        let written = publish::write(&writer, &files, &fresh, gone)?;
        drop_aside(files);
        documents = written.documents;
        if in_place {
            spare::remove_stale_chunks(&gen_dir, written.paths.iter().map(String::as_str))?;
        }
        // What this run wrote, and the folders it placed documents in; a document it
        // linked is the previous generation's file, on disk already.
        let mut synced = written.written;
        synced.extend(
            [crate::manifest::CHUNK_DIR, "changes"]
                .into_iter()
                .filter(|folder| gen_dir.join(folder).is_dir())
                .map(str::to_string),
        );
        generations::sync_paths(&gen_dir, synced.iter().map(String::as_str))?;
        Ok(Summary {
            files: count,
            documents,
            bytes,
            written: writer.written.load(AtomicOrdering::Relaxed),
            unchanged: writer.unchanged.load(AtomicOrdering::Relaxed),
            removed,
            rendered: count.saturating_sub(writer.by_key.load(AtomicOrdering::Relaxed)),
            units: plan.len() as u64,
            units_skipped,
            millis: 0,
        })
    })();
    let mut summary = match result {
        Ok(s) => s,
        Err(e) => {
            remove_tree(&gen_dir);
            return Err(e);
        }
    };
    // The record of this generation's input, before it is swapped in (a record naming
    // a generation that is not live is ignored).
    let recorded = match &input {
        // A run that reached here with an input record started its keys file.
        Some(input) => match keys_file.map(std::thread::JoinHandle::join) {
            Some(Ok(bytes)) => keys::write_next(&opts.out, &bytes),
            _ => Err(anyhow!("making the keys file of {gen_name} failed")),
        }
        .and_then(|()| {
            input::write_record(
                &opts.out,
                &input::Record {
                    generation: gen_name.clone(),
                    fingerprint: input.fingerprint.clone(),
                    files: summary.files,
                    bytes: summary.bytes,
                    documents,
                },
            )
        }),
        None => {
            input::remove_record(&opts.out);
            keys::remove(&opts.out);
            units::remove_all(&opts.out);
            Ok(())
        }
    };
    if let Err(e) = recorded {
        remove_tree(&gen_dir);
        if let Ok(next) = keys::next_keys_path(&opts.out) {
            let _ = fs::remove_file(next);
        }
        return Err(e);
    }
    // The last step that can fail; after it, only the removal of the replaced
    // generation, which never fails the run (a folder it cannot remove is a leftover
    // the next run removes).
    swap_in(&opts.out, &parent, &gen_name).inspect_err(|_| {
        remove_tree(&gen_dir);
        if let Ok(next) = keys::next_keys_path(&opts.out) {
            let _ = fs::remove_file(next);
        }
    })?;
    // The replaced generation becomes the spare when its keys can go with it.
    let keep_spare = input.is_some()
        && keys::promote(&opts.out, file_keys.has_previous() && live_target.is_some());
    if let Some(old) = live_target {
        if old.file_name() != Some(std::ffi::OsStr::new(&gen_name)) && !keep_spare {
            remove_tree(&old);
        }
    }
    if let Some(unused) = unused_spare {
        remove_tree(&unused);
    }
    // The unit records no generation beside the tree can use any more.
    if input.is_some() {
        units::collect_garbage(&records, |key| file_keys.unit_in_use(key));
    }
    summary.millis = started.elapsed().as_millis() as u64;
    Ok(summary)
}

/// Drops `value` on a thread of its own. The run's entries are one allocation each,
/// over a million at the largest scales: freeing them one by one is a share of a
/// run that changed little, and nothing after the manifest needs them, so the rest
/// of the run (syncs, the swap) does not wait for it, and a process that exits
/// first leaves the memory to the system. Dropped here when no thread can be made.
fn drop_aside<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("roost-drop".into())
        .spawn(move || drop(value));
}

/// Two lists of entries sorted by path, merged into one: the few entries of `b` put
/// in place, the runs of `a` between them moved whole.
fn merge_sorted(a: Vec<Entry>, b: Vec<Entry>) -> Vec<Entry> {
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut a = a.into_iter();
    for entry in b {
        let before = a.as_slice().partition_point(|e| e.path <= entry.path);
        out.extend(a.by_ref().take(before));
        out.push(entry);
    }
    out.extend(a);
    out
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
    for (path, bytes) in crate::manifest::Changes::default().documents() {
        let target = live.join(&path);
        if fs::read(&target).is_ok_and(|old| old == bytes) {
            continue;
        }
        if let Some(folder) = target.parent() {
            fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
        }
        generations::replace_file(&target, &bytes)?;
    }
    swap_in(&opts.out, parent, &record.generation)?;
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

/// Whether the tree at `site` is missing or older than the dataset `db`.
pub fn tree_is_stale(site: &Path, db: &Path) -> bool {
    let manifest = site.join(crate::generate::MANIFEST);
    let Ok(manifest_meta) = std::fs::metadata(&manifest) else {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(paths: &[&str], size: u64) -> Vec<Entry> {
        paths
            .iter()
            .map(|p| Entry {
                path: p.to_string(),
                size,
                sha256: [0; 32],
            })
            .collect()
    }

    #[test]
    fn merged_entries_are_in_path_order_with_the_first_lists_first() {
        let a = entries(&["a/1", "a/3", "b/1", "b/1", "c/9"], 1);
        let b = entries(&["0", "a/2", "b/1", "b/2", "d"], 2);
        let merged = merge_sorted(a, b);
        let got: Vec<(&str, u64)> = merged.iter().map(|e| (e.path.as_str(), e.size)).collect();
        assert_eq!(
            got,
            [
                ("0", 2),
                ("a/1", 1),
                ("a/2", 2),
                ("a/3", 1),
                ("b/1", 1),
                ("b/1", 1),
                ("b/1", 2),
                ("b/2", 2),
                ("c/9", 1),
                ("d", 2),
            ]
        );
        assert_eq!(merge_sorted(entries(&["x"], 1), Vec::new()).len(), 1);
        assert_eq!(merge_sorted(Vec::new(), entries(&["x", "y"], 1)).len(), 2);
    }
}
