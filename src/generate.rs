//! `roost generate`: renders the whole REST v0 tree from the dataset.
//!
//! Phases: plan the work units (one per list × scope × ordering, one per batch of
//! details, plus the fixed documents), render and write them in parallel with rayon
//! into a fresh directory beside the live tree, write the manifest, then swap the
//! live tree (a symlink) to the new directory with one atomic rename. A failed or
//! killed run leaves the live tree as it was.
//!
//! Incremental: a file whose bytes equal the previous tree's (by the manifest's
//! hash) is hard-linked from it instead of written, so it keeps its inode and mtime;
//! files no longer produced are simply absent from the new tree.
//!
//! Beside the tree files a generation writes its manifest documents and change lists
//! ([`crate::manifest`]) and, when asked, the dataset itself ([`dataset`]).
//!
//! Why one file of about 750 lines: the phases share the plan, the write path and the
//! incremental bookkeeping (hard links of unchanged files), and read best top to
//! bottom in the order they run; the manifest and the published dataset, which stand
//! on their own, already live in their modules.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{anyhow, Context};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::catalog::{self, FilterValue, ListQuery, ListSpec, OrderChoice, ParamKind};
use crate::store;
use crate::tree;

pub mod dataset;
pub mod input;

pub use dataset::Dataset;

/// Options of one generation.
#[derive(Debug, Clone)]
pub struct Options {
    pub db: PathBuf,
    pub out: PathBuf,
    pub jobs: Option<usize>,
    pub precompress: bool,
    /// The UTC date the `is_upcoming` files are rendered for (`YYYY-MM-DD`).
    pub today: String,
    /// Draw a progress bar (on a terminal).
    pub progress: bool,
    /// Public base URL without trailing slash, for absolute links (root `docs_url`).
    pub public_url: Option<String>,
}

/// What a generation did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: u64,
    pub bytes: u64,
    pub written: u64,
    pub unchanged: u64,
    pub removed: u64,
    pub millis: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.millis as f64 / 1000.0;
        let mb = self.bytes as f64 / 1_000_000.0;
        write!(
            f,
            "generated {} files ({} written, {} unchanged, {} removed), {:.1} MB in {:.2} s ({:.1} MB/s)",
            self.files,
            self.written,
            self.unchanged,
            self.removed,
            mb,
            secs,
            if secs > 0.0 { mb / secs } else { 0.0 }
        )
    }
}

pub use crate::manifest::{read_manifest, Manifest, ManifestEntry, MANIFEST};

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Writes files into the new tree, linking unchanged ones from the previous tree.
struct Writer {
    root: PathBuf,
    previous_root: Option<PathBuf>,
    previous: HashMap<String, (u64, String)>,
    precompress: bool,
    written: AtomicU64,
    unchanged: AtomicU64,
    /// Folders of the new tree already created, so a file's parent is made once and
    /// not asked about (`stat`) for every file.
    folders: Mutex<HashSet<PathBuf>>,
}

impl Writer {
    /// Writes one file (and its compressed siblings when asked).
    fn put(&self, rel: &Path, bytes: &[u8], out: &mut Vec<ManifestEntry>) -> anyhow::Result<()> {
        let unchanged = self.put_one(rel, bytes, out)?;
        if self.precompress {
            let siblings: [(&str, Compressor); 2] = [("gz", gzip), ("br", brotli)];
            for (extension, compress) in siblings {
                let mut sibling = rel.as_os_str().to_owned();
                sibling.push(".");
                sibling.push(extension);
                let sibling = PathBuf::from(sibling);
                if !(unchanged && self.link_previous(&sibling, out)) {
                    self.put_one(&sibling, &compress(bytes)?, out)?;
                }
            }
        }
        Ok(())
    }

    fn key(rel: &Path) -> String {
        rel.to_string_lossy().replace('\\', "/")
    }

    /// Hard-links `rel` from the previous tree, keeping its inode and mtime; false
    /// when the previous tree has no such file.
    fn link_previous(&self, rel: &Path, out: &mut Vec<ManifestEntry>) -> bool {
        let key = Self::key(rel);
        let (Some((size, hash)), Some(previous_root)) =
            (self.previous.get(&key), self.previous_root.as_ref())
        else {
            return false;
        };
        let target = self.root.join(rel);
        if self.ensure_parent(&target).is_err()
            || fs::hard_link(previous_root.join(rel), &target).is_err()
        {
            return false;
        }
        self.unchanged.fetch_add(1, AtomicOrdering::Relaxed);
        out.push(ManifestEntry {
            path: key,
            size: *size,
            sha256: hash.clone(),
        });
        true
    }

    /// Writes one file unless the previous tree has the same bytes (then links it).
    /// Returns whether it was unchanged.
    fn put_one(
        &self,
        rel: &Path,
        bytes: &[u8],
        out: &mut Vec<ManifestEntry>,
    ) -> anyhow::Result<bool> {
        let hash = sha256_hex(bytes);
        let key = Self::key(rel);
        let same = matches!(self.previous.get(&key), Some((size, h)) if *size == bytes.len() as u64 && *h == hash);
        if same && self.link_previous(rel, out) {
            return Ok(true);
        }
        let target = self.root.join(rel);
        self.ensure_parent(&target)?;
        fs::write(&target, bytes).with_context(|| format!("writing {}", target.display()))?;
        self.written.fetch_add(1, AtomicOrdering::Relaxed);
        out.push(ManifestEntry {
            path: key,
            size: bytes.len() as u64,
            sha256: hash,
        });
        Ok(false)
    }

    /// Creates the parent folder of `path` unless this run already made it.
    fn ensure_parent(&self, path: &Path) -> anyhow::Result<()> {
        let Some(parent) = path.parent() else {
            return Ok(());
        };
        let known = |folders: &HashSet<PathBuf>| folders.contains(parent);
        if known(&self.folders.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(());
        }
        fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        self.folders
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(parent.to_path_buf());
        Ok(())
    }
}

/// A compression of a file's bytes for a precompressed sibling.
type Compressor = fn(&[u8]) -> anyhow::Result<Vec<u8>>;

fn gzip(bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut enc = flate2::GzBuilder::new().write(Vec::new(), flate2::Compression::new(9));
    enc.write_all(bytes)?;
    Ok(enc.finish()?)
}

fn brotli(bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 9, 22);
        w.write_all(bytes)?;
    }
    Ok(out)
}

/// One independent piece of the tree.
enum Unit {
    List {
        spec: &'static ListSpec,
        snapshot: Option<(i64, String)>,
        upcoming: bool,
        ordering: Option<OrderChoice>,
    },
    Details {
        spec: &'static catalog::DetailSpec,
    },
    Fixed,
}

fn orderings(spec: &ListSpec) -> Vec<Option<OrderChoice>> {
    let mut out = vec![None];
    for field in 0..spec.orderings.len() {
        out.push(Some(OrderChoice { field, desc: false }));
        out.push(Some(OrderChoice { field, desc: true }));
    }
    out
}

fn plan(conn: &rusqlite::Connection) -> anyhow::Result<Vec<Unit>> {
    let mut units = vec![Unit::Fixed];
    for spec in catalog::LISTS {
        let scopes: &[bool] = if spec.upcoming.is_some() {
            &[false, true]
        } else {
            &[false]
        };
        for &upcoming in scopes {
            for ordering in orderings(spec) {
                units.push(Unit::List {
                    spec,
                    snapshot: None,
                    upcoming,
                    ordering,
                });
            }
        }
    }
    let snapshots = catalog::snapshot_keys(conn)?;
    for spec in catalog::SNAPSHOT_LISTS {
        for snapshot in &snapshots {
            for ordering in orderings(spec) {
                units.push(Unit::List {
                    spec,
                    snapshot: Some(snapshot.clone()),
                    upcoming: false,
                    ordering,
                });
            }
        }
    }
    for spec in catalog::DETAILS {
        units.push(Unit::Details { spec });
    }
    Ok(units)
}

/// One combination of filter values (parameter index, value) and its rows in order.
type Group = (Vec<(usize, FilterValue)>, Vec<u32>);

/// Groups sorted rows by every combination of enumerable filter values (each filter
/// absent or set to a value of the row; repeatable filters: every subset of the
/// values occurring in the scope that contains the row's value). Each group keeps
/// the sort order.
fn partition(spec: &ListSpec, rows: &catalog::SortedRows) -> Vec<Group> {
    // Per enumerable parameter: the distinct values occurring, in sorted order.
    let mut values: Vec<Vec<&str>> = vec![Vec::new(); rows.params.len()];
    for keys in &rows.keys {
        for (k, v) in keys.iter().enumerate() {
            values[k].push(v.as_str());
        }
    }
    for v in &mut values {
        v.sort_unstable();
        v.dedup();
    }
    let multi: Vec<bool> = rows
        .params
        .iter()
        .map(|&i| matches!(spec.params[i].kind, ParamKind::Choices(_)))
        .collect();
    // Bucket key: per parameter 0 = absent, else value index + 1 (single) or a
    // non-empty bit mask of value indices (repeatable).
    let mut buckets: HashMap<Vec<u64>, Vec<u32>> = HashMap::new();
    let mut order: Vec<Vec<u64>> = Vec::new();
    for (row, keys) in rows.keys.iter().enumerate() {
        let mut choices: Vec<Vec<u64>> = Vec::with_capacity(keys.len());
        for (k, v) in keys.iter().enumerate() {
            let index = values[k].binary_search(&v.as_str()).unwrap_or(0);
            let mut options = vec![0u64];
            if !requestable(spec.params[rows.params[k]].kind, v) {
                // A value no request can name (an empty string, a choice outside the
                // allowed set) only appears with the filter absent.
            } else if multi[k] {
                let n = values[k].len().min(20);
                let bit = 1u64 << index;
                options.extend((1u64..(1 << n)).filter(|mask| mask & bit != 0));
            } else {
                options.push(index as u64 + 1);
            }
            choices.push(options);
        }
        let mut combo = vec![0usize; choices.len()];
        loop {
            let key: Vec<u64> = combo
                .iter()
                .enumerate()
                .map(|(k, &c)| choices[k][c])
                .collect();
            match buckets.get_mut(&key) {
                Some(list) => list.push(row as u32),
                None => {
                    order.push(key.clone());
                    buckets.insert(key, vec![row as u32]);
                }
            }
            // Next combination (odometer).
            let mut k = 0;
            loop {
                if k == combo.len() {
                    break;
                }
                combo[k] += 1;
                if combo[k] < choices[k].len() {
                    break;
                }
                combo[k] = 0;
                k += 1;
            }
            if k == combo.len() {
                break;
            }
        }
    }
    if rows.keys.is_empty() {
        // An empty scope still has its (empty) default page.
        order.push(vec![0; rows.params.len()]);
        buckets.insert(vec![0; rows.params.len()], Vec::new());
    }
    order
        .into_iter()
        .map(|key| {
            let filters = key
                .iter()
                .enumerate()
                .filter(|(_, &c)| c != 0)
                .map(|(k, &c)| {
                    let param = rows.params[k];
                    let value = if multi[k] {
                        FilterValue::Many(
                            (0..values[k].len())
                                .filter(|bit| c & (1 << bit) != 0)
                                .map(|bit| values[k][bit].to_string())
                                .collect(),
                        )
                    } else {
                        let v = values[k][(c - 1) as usize];
                        match spec.params[param].kind {
                            ParamKind::Bool => FilterValue::Bool(v == "true"),
                            _ => FilterValue::One(v.to_string()),
                        }
                    };
                    (param, value)
                })
                .collect();
            let rows = buckets.remove(&key).unwrap_or_default();
            (filters, rows)
        })
        .collect()
}

/// Whether a filter value can be written in a request (and so needs files).
fn requestable(kind: ParamKind, value: &str) -> bool {
    match kind {
        ParamKind::Choice(allowed) | ParamKind::Choices(allowed) => allowed.contains(value),
        _ => !value.is_empty(),
    }
}

fn render_list_unit(
    w: &Writer,
    conn: &rusqlite::Connection,
    spec: &'static ListSpec,
    snapshot: &Option<(i64, String)>,
    upcoming: bool,
    ordering: Option<OrderChoice>,
    today: &str,
) -> anyhow::Result<Vec<ManifestEntry>> {
    let rows = catalog::sorted_rows(
        conn,
        spec,
        snapshot.as_ref().map(|s| s.0),
        upcoming,
        ordering,
        today,
    )
    .with_context(|| format!("reading {}", spec.operation_id))?;
    let dir: Vec<String> = match snapshot {
        Some((_, key)) => tree::snapshot_list_dir(key, spec),
        None => vec![spec.path.to_string()],
    };
    let upcoming_param = spec
        .params
        .iter()
        .position(|p| p.kind == ParamKind::Upcoming);
    let groups = partition(spec, &rows);
    groups
        .par_iter()
        .map(|(filters, members)| -> anyhow::Result<Vec<ManifestEntry>> {
            let mut out = Vec::new();
            let mut query = ListQuery {
                ordering,
                filters: filters.clone(),
                ..ListQuery::default()
            };
            if upcoming {
                if let Some(i) = upcoming_param {
                    query.filters.push((i, FilterValue::Bool(true)));
                    query.filters.sort_by_key(|(i, _)| *i);
                }
            }
            let total = members.len() as u64;
            let pages = catalog::total_pages(total, catalog::PAGE_SIZE);
            for page in 1..=pages {
                query.page = page;
                let Some(rel) = tree::list_file(&dir, &query.canonical(spec)) else {
                    continue;
                };
                let start = ((page - 1) * catalog::PAGE_SIZE) as usize;
                let end = (start + catalog::PAGE_SIZE as usize).min(members.len());
                let items = members[start..end]
                    .iter()
                    .map(|&r| rows.items[r as usize].as_slice());
                let body = catalog::render_page(items, page, catalog::PAGE_SIZE, total);
                w.put(&rel, &body, &mut out)?;
            }
            Ok(out)
        })
        .collect::<anyhow::Result<Vec<_>>>()
        .map(|v| v.into_iter().flatten().collect())
}

fn render_unit(w: &Writer, opts: &Options, unit: &Unit) -> anyhow::Result<Vec<ManifestEntry>> {
    let mut out = Vec::new();
    match unit {
        Unit::Fixed => {
            w.put_one(Path::new(PAGES_HEADERS), &pages_headers(), &mut out)?;
            w.put(
                &PathBuf::from(tree::API_DIR).join("index.json"),
                &catalog::root(&format!(
                    "{}{}/docs",
                    opts.public_url.as_deref().unwrap_or(""),
                    tree::API_PREFIX
                )),
                &mut out,
            )?;
            let openapi =
                crate::openapi::document_json().context("serialising the OpenAPI document")?;
            w.put(
                &PathBuf::from(tree::API_DIR).join("openapi.json"),
                &openapi,
                &mut out,
            )?;
            for (rel, bytes) in crate::docs::render(&openapi)? {
                w.put(
                    &PathBuf::from(tree::API_DIR).join("docs").join(rel),
                    &bytes,
                    &mut out,
                )?;
            }
        }
        Unit::List {
            spec,
            snapshot,
            upcoming,
            ordering,
        } => {
            let conn = store::open_read(&opts.db)?;
            out = render_list_unit(w, &conn, spec, snapshot, *upcoming, *ordering, &opts.today)?;
        }
        Unit::Details { spec } => {
            let conn = store::open_read(&opts.db)?;
            catalog::all_details(&conn, spec, |ids, body| {
                if let Some(rel) = tree::detail_file(spec.path, &ids) {
                    w.put(&rel, &body, &mut out)?;
                }
                Ok(())
            })
            .with_context(|| format!("rendering {}", spec.operation_id))?;
        }
    }
    Ok(out)
}

/// The headers file of Pages-style static hosts (Netlify, Cloudflare Pages), at the
/// root of the tree.
pub const PAGES_HEADERS: &str = "_headers";

/// `_headers`: the lists and details (one pattern per resource folder), the root
/// documents and the manifest are JSON, kept by shared caches for five minutes (the
/// policy of the nginx configuration and the edge function too).
fn pages_headers() -> Vec<u8> {
    let mut patterns = vec![
        format!("/{MANIFEST}"),
        format!("{}/index.json", tree::API_PREFIX),
        format!("{}/openapi.json", tree::API_PREFIX),
    ];
    patterns.extend(
        catalog::LISTS
            .iter()
            .map(|spec| format!("{}/{}/*", tree::API_PREFIX, spec.path)),
    );
    let mut text = String::from(
        "# Response headers for Pages-style static hosts, written by roost generate.\n",
    );
    for pattern in patterns {
        text.push_str(&pattern);
        text.push_str("\n  Content-Type: application/json\n  Cache-Control: public, max-age=300\n");
    }
    text.into_bytes()
}

/// Sibling paths of the live tree: `<parent>/.<name>.g<stamp>` generations.
pub(crate) fn generation_prefix(out: &Path) -> anyhow::Result<(PathBuf, String)> {
    let name = out
        .file_name()
        .ok_or_else(|| anyhow!("--out {} has no folder name", out.display()))?
        .to_string_lossy()
        .into_owned();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, format!(".{name}.g")))
}

/// Removes generation folders left by killed runs (not the live one).
pub(crate) fn clean_leftovers(parent: &Path, prefix: &str, live: Option<&Path>) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(prefix) {
            continue;
        }
        let path = entry.path();
        if live.is_some_and(|l| l.file_name() == path.file_name()) {
            continue;
        }
        let _ = fs::remove_dir_all(&path);
    }
}

/// Renders the whole tree into `opts.out` (see the module doc).
pub fn generate(opts: &Options) -> anyhow::Result<Summary> {
    generate_with(opts, None)
}

/// Renders the whole tree into `opts.out`, with the dataset under `dataset/` when
/// `dataset` says which records to publish.
pub fn generate_with(opts: &Options, dataset: Option<Dataset>) -> anyhow::Result<Summary> {
    let started = Instant::now();
    let conn = store::open_read(&opts.db)?;
    let (parent, prefix) = generation_prefix(&opts.out)?;
    fs::create_dir_all(&parent)?;
    let live_target = fs::read_link(&opts.out).ok().map(|t| parent.join(t));
    clean_leftovers(&parent, &prefix, live_target.as_deref());

    // Same input as the live generation: its tree is already what this run would write.
    let fingerprint = input::fingerprint(opts, dataset)?;
    if let (Some(fingerprint), Some(live)) = (&fingerprint, &live_target) {
        if let Some(record) = input::read_record(&opts.out) {
            if record.fingerprint == *fingerprint
                && live.file_name() == Some(std::ffi::OsStr::new(&record.generation))
                && live.join(MANIFEST).is_file()
            {
                drop(conn);
                return keep_live(opts, &parent, live, &record, started);
            }
        }
    }

    let previous_root = if opts.out.is_dir() {
        Some(opts.out.canonicalize()?)
    } else {
        None
    };
    let previous: HashMap<String, (u64, String)> = previous_root
        .as_deref()
        .and_then(read_manifest)
        .map(|m| {
            m.files
                .into_iter()
                .map(|e| (e.path, (e.size, e.sha256)))
                .collect()
        })
        .unwrap_or_default();
    let stamp = format!(
        "{}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
        std::process::id()
    );
    let gen_name = format!("{prefix}{stamp}");
    let gen_dir = parent.join(&gen_name);
    fs::create_dir_all(&gen_dir).with_context(|| format!("creating {}", gen_dir.display()))?;

    let mut documents = 0;
    let result = (|| -> anyhow::Result<Summary> {
        let units = plan(&conn)?;
        drop(conn);
        let mut writer = Writer {
            root: gen_dir.clone(),
            previous_root: previous_root.clone(),
            previous,
            precompress: opts.precompress,
            written: AtomicU64::new(0),
            unchanged: AtomicU64::new(0),
            folders: Mutex::new(HashSet::new()),
        };
        let bar = if opts.progress {
            indicatif::ProgressBar::new(units.len() as u64)
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
        let parts = pool.install(|| {
            units
                .par_iter()
                .map(|unit| {
                    let r = render_unit(&writer, opts, unit);
                    bar.inc(1);
                    r
                })
                .collect::<anyhow::Result<Vec<_>>>()
        })?;
        bar.finish_and_clear();
        let mut files: Vec<ManifestEntry> = parts.into_iter().flatten().collect();
        if let Some(which) = dataset {
            files.extend(pool.install(|| dataset::write(&writer, &opts.db, which))?);
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some(dup) = files.windows(2).find(|w| w[0].path == w[1].path) {
            return Err(anyhow!("two answers map to one file: {}", dup[0].path));
        }
        let removed = writer
            .previous
            .keys()
            .filter(|k| files.binary_search_by(|e| e.path.as_str().cmp(k)).is_err())
            .count() as u64;
        let bytes = files.iter().map(|e| e.size).sum();
        let count = files.len() as u64;
        documents = write_manifests(&mut writer, &files, previous_root.as_deref())?;
        Ok(Summary {
            files: count,
            bytes,
            written: writer.written.load(AtomicOrdering::Relaxed),
            unchanged: writer.unchanged.load(AtomicOrdering::Relaxed),
            removed,
            millis: 0,
        })
    })();
    let mut summary = match result {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_dir_all(&gen_dir);
            return Err(e);
        }
    };
    swap_in(&opts.out, &parent, &gen_name).inspect_err(|_| {
        let _ = fs::remove_dir_all(&gen_dir);
    })?;
    match fingerprint {
        Some(fingerprint) => input::write_record(
            &opts.out,
            &input::Record {
                generation: gen_name.clone(),
                fingerprint,
                files: summary.files,
                bytes: summary.bytes,
                documents,
            },
        )?,
        None => input::remove_record(&opts.out),
    }
    if let Some(old) = live_target {
        if old.file_name() != Some(std::ffi::OsStr::new(&gen_name)) {
            remove_tree(&old);
        }
    }
    summary.millis = started.elapsed().as_millis() as u64;
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
    for (path, bytes) in crate::manifest::Changes::default().documents() {
        let target = live.join(&path);
        if fs::read(&target).is_ok_and(|old| old == bytes) {
            continue;
        }
        if let Some(folder) = target.parent() {
            fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
        }
        let mut tmp = target.as_os_str().to_owned();
        tmp.push(format!(".tmp-{}", std::process::id()));
        fs::write(&tmp, bytes).with_context(|| format!("writing {}", target.display()))?;
        fs::rename(&tmp, &target).with_context(|| format!("writing {}", target.display()))?;
    }
    swap_in(&opts.out, parent, &record.generation)?;
    Ok(Summary {
        files: record.files,
        bytes: record.bytes,
        written: 0,
        unchanged: record.files + record.documents,
        removed: 0,
        millis: started.elapsed().as_millis() as u64,
    })
}

/// Deletes a previous generation, its folders in parallel (file deletion is kernel
/// work per file; two threads remove a large tree in about half the time).
fn remove_tree(root: &Path) {
    fn remove(folder: &Path) {
        let Ok(entries) = fs::read_dir(folder) else {
            return;
        };
        let mut folders = Vec::new();
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(entry.path()),
                _ => {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        folders.par_iter().for_each(|f| remove(f));
        let _ = fs::remove_dir(folder);
    }
    remove(root);
    // Whatever the parallel pass could not remove.
    let _ = fs::remove_dir_all(root);
}

/// The manifest documents and change lists of the new generation
/// ([`crate::manifest::publish`]). The manifest documents go through the writer, so
/// unchanged ones are linked from the previous generation; the change lists describe
/// this generation and are written as they are, outside the counts.
fn write_manifests(
    writer: &mut Writer,
    files: &[ManifestEntry],
    previous_root: Option<&Path>,
) -> anyhow::Result<u64> {
    let published = crate::manifest::publish(files, &writer.previous, previous_root)?;
    for e in published.previous_documents {
        writer.previous.insert(e.path, (e.size, e.sha256));
    }
    let mut sink = Vec::new();
    for (path, bytes) in &published.documents {
        writer.put_one(Path::new(path), bytes, &mut sink)?;
    }
    for (path, bytes) in published.changes.documents() {
        let target = writer.root.join(&path);
        writer.ensure_parent(&target)?;
        fs::write(&target, bytes).with_context(|| format!("writing {}", target.display()))?;
    }
    Ok(published.documents.len() as u64)
}

/// Points `out` at the new generation with one atomic rename of a symlink.
pub(crate) fn swap_in(out: &Path, parent: &Path, gen_name: &str) -> anyhow::Result<()> {
    let meta = fs::symlink_metadata(out);
    if let Ok(meta) = &meta {
        if meta.is_dir() {
            // A plain folder from elsewhere: keep it as a generation so it is cleaned up.
            let (_, prefix) = generation_prefix(out)?;
            let aside = parent.join(format!("{prefix}old-{}", std::process::id()));
            fs::rename(out, &aside)
                .with_context(|| format!("moving the old tree {} aside", out.display()))?;
        } else if !meta.file_type().is_symlink() {
            return Err(anyhow!("{} exists and is not a folder", out.display()));
        }
    }
    let link_tmp = parent.join(format!("{gen_name}.link"));
    let _ = fs::remove_file(&link_tmp);
    std::os::unix::fs::symlink(gen_name, &link_tmp)
        .with_context(|| format!("creating {}", link_tmp.display()))?;
    fs::rename(&link_tmp, out).with_context(|| format!("swapping in {}", out.display()))?;
    Ok(())
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
