//! What a generation was made from, so a run whose input did not change keeps the live
//! generation instead of rebuilding it file by file.
//!
//! The input of a generation is everything its bytes depend on: the dataset's content
//! (the schema and every row of every table, read through SQL, so a re-import of the
//! same records is the same input however SQLite laid out its pages; not the search
//! indexes' full-text tables, which `serve` reads live and no file is made from), the roost
//! executable that renders it (its size and modification time: a rebuilt or upgraded
//! binary renders anew), and the options that change the tree (`--precompress`,
//! `--public-url`, `--with-dataset`/`--public-only`, `--no-manifest-json`, and the
//! date `is_upcoming` files are rendered for). [`fingerprint`] hashes them into one
//! SHA-256. The dataset's part
//! is read whole only the first time: the digests of its tables and rows are recorded
//! beside the tree with the point of the dataset's change log they describe
//! ([`cache`]), and the next run reads again only what the log names since.
//!
//! Every run records the fingerprint beside the tree, in `<parent>/.<name>.input`
//! ([`Record`]), with the generation it describes and that generation's counts. The
//! record is written (synced, then renamed into place) before the swap, so the swap
//! stays the last step that can fail: a swap that then fails leaves a record naming a
//! generation that is not live, which is ignored. A later run that computes the same
//! fingerprint while `<name>` still points at the recorded generation, and finds every
//! file of its manifest present with its size, has nothing to render: its tree would
//! be the same bytes at the same paths. The record is outside the generation folder
//! (it is not a file of the tree, and trees are copied file by file); a record that
//! names another generation (a mirror or a plain folder replaced the tree, a swap
//! failed) is ignored.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rayon::prelude::*;
use rusqlite::types::ValueRef;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Dataset, Options};
use crate::store;

mod base;
mod cache;

/// The record of the live generation's input, beside the tree.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Record {
    /// The generation folder's name (`.<name>.g<stamp>`) the record describes.
    pub generation: String,
    /// [`fingerprint`] of its input.
    pub fingerprint: String,
    /// Files in its manifest and their bytes.
    pub files: u64,
    pub bytes: u64,
    /// Manifest documents (`manifest.json`, `manifest/root.json`, chunks).
    pub documents: u64,
    /// Every folder of the generation holding its files, as it was when the run
    /// recorded it ([`super::verify::stamp_folders`]); none in a record of an older
    /// roost (then every file is asked about).
    #[serde(default)]
    pub folders: Vec<super::verify::Folder>,
    /// The files at the generation's root (not in a folder), with their sizes.
    #[serde(default)]
    pub top: Vec<(String, u64)>,
}

/// Where the record of the tree at `out` lives: `<parent>/.<name>.input`.
pub fn record_path(out: &Path) -> anyhow::Result<PathBuf> {
    let (parent, prefix) = super::generation_prefix(out)?;
    // `prefix` is `.<name>.g`; the record is `.<name>.input` (not a generation name).
    let name = prefix.trim_end_matches('g');
    Ok(parent.join(format!("{name}input")))
}

/// Where the dataset's digests are recorded for the tree at `out`
/// (`<parent>/.<name>.digests`, [`cache`]).
pub fn digests_path(out: &Path) -> anyhow::Result<PathBuf> {
    let (parent, prefix) = super::generation_prefix(out)?;
    let name = prefix.trim_end_matches('g');
    Ok(parent.join(format!("{name}digests")))
}

/// The record beside `out`, if there is a readable one.
pub fn read_record(out: &Path) -> Option<Record> {
    let bytes = fs::read(record_path(out).ok()?).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Replaces the record beside `out`: written aside and synced, then renamed over it.
/// The temporary file is removed when any step fails.
pub fn write_record(out: &Path, record: &Record) -> anyhow::Result<()> {
    super::generations::replace_file(
        &record_path(out)?,
        &serde_json::to_vec(record)?,
        "generate::record_input",
    )
}

/// Removes the record beside `out` (before a generation that will not record one).
pub fn remove_record(out: &Path) {
    if let Ok(path) = record_path(out) {
        let _ = fs::remove_file(path);
    }
}

/// Where a run that keeps the live generation writes its new change lists before they
/// replace the generation's (`<parent>/.<name>.changes`, with `.tmp-<pid>` appended):
/// beside the tree, never inside it.
pub fn change_lists_path(out: &Path) -> anyhow::Result<PathBuf> {
    let (parent, prefix) = super::generation_prefix(out)?;
    let name = prefix.trim_end_matches('g');
    Ok(parent.join(format!("{name}changes")))
}

/// Removes the temporary files `.<name>.input.tmp-<pid>`, `.<name>.digests.tmp-<pid>`,
/// `.<name>.digests-base.tmp-<pid>` and `.<name>.*keys.tmp-<pid>`, and the folders
/// `.<name>.changes.tmp-<pid>`, left by processes that no longer exist; and the bases
/// of the digests record that it does not name.
pub fn remove_stale_temps(out: &Path) {
    for path in [
        record_path(out),
        digests_path(out),
        change_lists_path(out),
        super::keys::keys_path(out),
        super::keys::next_keys_path(out),
        super::keys::spare_keys_path(out),
    ]
    .into_iter()
    .flatten()
    {
        remove_stale_temps_of(&path);
    }
    if let Ok(path) = digests_path(out) {
        base::remove_stale_temps(&path);
        let named = cache::base_named(&path);
        base::remove_stray(&path, named.as_deref().filter(|b| !b.is_empty()));
    }
}

fn remove_stale_temps_of(path: &Path) {
    if let (Some(parent), Some(name)) = (path.parent(), path.file_name()) {
        crate::atomic::remove_stale(parent, &[format!("{}.tmp-", name.to_string_lossy())]);
    }
}

/// What a generation renders from: the [`fingerprint`] of it all, the salt of its
/// file keys (all but the dataset's rows and the date) and the dataset's digests.
pub struct Input {
    pub fingerprint: String,
    pub salt: Vec<u8>,
    pub(crate) digests: super::keys::Digests,
}

/// The SHA-256 (hex) of everything a generation with `opts` and `dataset` renders from,
/// with the salt and digests of [`super::keys`]. `None` when the executable cannot be
/// identified (then every run renders every file).
pub fn fingerprint(opts: &Options, dataset: Option<Dataset>) -> anyhow::Result<Option<Input>> {
    let Some(executable) = executable_identity() else {
        return Ok(None);
    };
    let cache = digests_path(&opts.out).ok();
    let (content, schema, digests) = dataset_content(&opts.db, cache.as_deref())?;
    let mut salt = Sha256::new();
    let field = |hasher: &mut Sha256, name: &str, value: &[u8]| {
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((value.len() as u64).to_le_bytes());
        hasher.update(value);
    };
    field(&mut salt, "roost", env!("CARGO_PKG_VERSION").as_bytes());
    field(&mut salt, "executable", executable.as_bytes());
    field(&mut salt, "precompress", opts.precompress.name().as_bytes());
    field(
        &mut salt,
        "public_url",
        opts.public_url.as_deref().unwrap_or("").as_bytes(),
    );
    field(&mut salt, "schema", &schema);
    let salt = salt.finalize().to_vec();
    let mut hasher = Sha256::new();
    field(&mut hasher, "salt", &salt);
    field(&mut hasher, "today", opts.today.as_bytes());
    let dataset = match dataset {
        None => "none",
        Some(Dataset::Full) => "full",
        Some(Dataset::PublicOnly) => "public-only",
    };
    field(&mut hasher, "dataset", dataset.as_bytes());
    let manifest_json: &[u8] = if opts.manifest_json { b"yes" } else { b"no" };
    field(&mut hasher, "manifest_json", manifest_json);
    field(&mut hasher, "content", content.as_bytes());
    Ok(Some(Input {
        fingerprint: hex::encode(hasher.finalize()),
        salt,
        digests,
    }))
}

/// The running executable's size and modification time (nanoseconds).
fn executable_identity() -> Option<String> {
    let meta = fs::metadata(std::env::current_exe().ok()?).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!("{}:{}", meta.len(), modified.as_nanos()))
}

/// The SHA-256 of the dataset's schema and of every row of every table, in table-name
/// order; the SHA-256 of the schema alone; the digests of every table and of the rows
/// of the tables the file keys read row by row ([`super::keys::row_tables`]).
///
/// A table is read whole (one rayon task per table, on a read-only connection per
/// rayon job) unless the digests recorded beside the tree (`cache`,
/// [`cache::Cached`]) are the same file's at an earlier point of its change log
/// ([`store::changelog`]) and the table's changes are logged: then its digest is the
/// recorded one when the log names none of its rows since, and for a table read row
/// by row the rows it names are read again and the others kept. The digests are the
/// same either way (a test compares them).
// Long because its steps share one snapshot and one running hash: the schema, the
// log's position and the recorded digests are read in one transaction before any
// row, and every table's digest joins the dataset's hash in table-name order.
fn dataset_content(
    db: &Path,
    cache: Option<&Path>,
) -> anyhow::Result<(String, Vec<u8>, super::keys::Digests)> {
    let conn = store::open_read(db)?;
    // One read transaction: the log's position is read before any row, so every row
    // read after it (on this connection or another) is at least that recent.
    conn.execute_batch("BEGIN")?;
    let mut tables: Vec<(String, String)> = conn
        .prepare(
            "SELECT name, coalesce(sql, '') FROM sqlite_master \
             WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let schema: Vec<String> = conn
        .prepare("SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut hasher = Sha256::new();
    for line in schema {
        hasher.update((line.len() as u64).to_le_bytes());
        hasher.update(line.as_bytes());
    }
    let schema_hash: [u8; 32] = hasher.clone().finalize().into();
    // The search indexes (full-text tables, their shadow tables written by SQLite
    // itself) are served live from the dataset and no file of the tree is made from
    // them: they are not content, and skipping them spares every run a full read of
    // the shadow tables, which no trigger can log (80 MB at `10x`). The change log is
    // not content either: the rows it names are.
    let shadow: std::collections::HashSet<String> = conn
        .prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    tables.retain(|(name, sql)| {
        !sql.to_ascii_uppercase().starts_with("CREATE VIRTUAL")
            && !shadow.contains(name)
            && name != store::changelog::LOG
    });
    let log = store::changelog::state(&conn)?;
    let file = cache::FileIdentity::of(db);
    let mut reuse = cache::Reuse::default();
    if let (Some(log), Some(file), Some(path)) = (&log, file, cache) {
        if let Some(cached) = cache::read(path) {
            reuse = cache::reusable(&conn, cached, log, file, &schema_hash)?;
        }
    }
    conn.execute_batch("COMMIT")?;
    drop(conn);
    let mut since = reuse.recorded_tables().map(|tables| super::keys::Since {
        tables,
        rows: Default::default(),
    });
    let by_row = super::keys::row_tables();
    let logged: std::collections::HashSet<&str> = log
        .as_ref()
        .map(|l| l.logged.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let kept: Vec<(&str, bool, cache::Kept)> = tables
        .iter()
        .map(|(name, _)| {
            let rows = by_row.contains(name.as_str());
            (name.as_str(), rows, reuse.take(name, rows))
        })
        .collect();
    if let Some(since) = &mut since {
        for (name, _, kept) in &kept {
            let changed = match kept {
                cache::Kept::Whole(_, Some(_)) => Vec::new(),
                cache::Kept::Rows(_, changed) => changed.clone(),
                _ => continue,
            };
            since.rows.insert(name.to_string(), changed);
        }
    }
    // A connection per rayon job rather than per table: opening one parses the whole
    // schema, which costs more than reading most tables.
    let hashes = kept
        .into_par_iter()
        .map_init(
            || None,
            |conn: &mut Option<rusqlite::Connection>, (name, rows, kept)| {
                if let cache::Kept::Whole(digest, kept) = kept {
                    return Ok((digest, kept));
                }
                let conn = match conn {
                    Some(c) => c,
                    None => conn.insert(store::open_read(db)?),
                };
                match kept {
                    cache::Kept::Rows(before, changed) => {
                        update_rows(conn, name, &before, &changed)
                    }
                    _ => table_hash(conn, name, rows),
                }
            },
        )
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut digests = super::keys::Digests {
        since,
        ..Default::default()
    };
    let mut record = Vec::new();
    for ((name, _), (hash, rows)) in tables.iter().zip(hashes) {
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update(hash);
        digests.tables.insert(name.clone(), hash);
        if logged.contains(name.as_str()) {
            record.push(name.as_str());
        }
        if let Some(rows) = rows {
            digests.rows.insert(name.clone(), rows);
        }
    }
    if let (Some(log), Some(file), Some(path)) = (&log, file, cache) {
        if !reuse.current() {
            // Best effort: without the record the next run reads every table.
            let _ = cache::write(path, log, file, &schema_hash, &record, &digests);
        }
    }
    Ok((
        hex::encode(hasher.finalize()),
        schema_hash.to_vec(),
        digests,
    ))
}

/// One table's digest, and its rows' when read row by row.
type TableDigest = ([u8; 32], Option<super::keys::Rows>);

/// One row's values (after the first `first` columns) as the digests read them:
/// each value tagged with its type and length, after a newline.
fn encode_row(
    row: &rusqlite::Row<'_>,
    first: usize,
    columns: usize,
    buf: &mut Vec<u8>,
) -> rusqlite::Result<()> {
    buf.push(b'\n');
    for i in first..columns {
        match row.get_ref(i)? {
            ValueRef::Null => buf.push(0),
            ValueRef::Integer(v) => {
                buf.push(1);
                buf.extend_from_slice(&v.to_le_bytes());
            }
            ValueRef::Real(v) => {
                buf.push(2);
                buf.extend_from_slice(&v.to_bits().to_le_bytes());
            }
            ValueRef::Text(v) => {
                buf.push(3);
                buf.extend_from_slice(&(v.len() as u64).to_le_bytes());
                buf.extend_from_slice(v);
            }
            ValueRef::Blob(v) => {
                buf.push(4);
                buf.extend_from_slice(&(v.len() as u64).to_le_bytes());
                buf.extend_from_slice(v);
            }
        }
    }
    Ok(())
}

/// The digest of a table read row by row: the sum of its rows' ids and digests
/// ([`super::keys::Sum`]), which a changed row updates alone.
fn rows_digest(rows: &super::keys::Rows) -> [u8; 32] {
    rows.sum().to_bytes()
}

/// The SHA-256 of one table's rows, in the order a full scan returns them (its key
/// order), each value tagged with its type and length. With `by_row`, each row is
/// hashed alone (its digest kept by `rowid`) and the table's digest is made of those.
fn table_hash(
    conn: &rusqlite::Connection,
    table: &str,
    by_row: bool,
) -> anyhow::Result<TableDigest> {
    #[cfg(test)]
    tests::WHOLE_READS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let quoted = table.replace('"', "\"\"");
    let rowid = if by_row { "rowid, " } else { "" };
    let mut stmt = conn
        .prepare(&format!("SELECT {rowid}* FROM \"{quoted}\""))
        .with_context(|| format!("reading table {table}"))?;
    let first = usize::from(by_row);
    let columns = stmt.column_count();
    let mut rows = stmt.query([])?;
    let mut hasher = Sha256::new();
    let (mut ids, mut keys) = (Vec::new(), Vec::new());
    // Values are gathered into a buffer and hashed in large pieces.
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    while let Some(row) = rows.next()? {
        if by_row {
            buf.clear();
        }
        encode_row(row, first, columns, &mut buf)?;
        if by_row {
            ids.push(row.get::<_, i64>(0)?);
            keys.push(super::keys::row_key(&buf));
        } else if buf.len() >= 1 << 16 {
            hasher.update(&buf);
            buf.clear();
        }
    }
    if !by_row {
        hasher.update(&buf);
        return Ok((hasher.finalize().into(), None));
    }
    let rows = super::keys::Rows::new(ids, keys)
        .with_context(|| format!("the rows of table {table} are not in rowid order"))?;
    Ok((rows_digest(&rows), Some(rows)))
}

/// The digests of a table read row by row whose rows `changed` (ascending `rowid`s)
/// changed since `before`: those rows read again, the others kept.
fn update_rows(
    conn: &rusqlite::Connection,
    table: &str,
    before: &super::keys::Rows,
    changed: &[i64],
) -> anyhow::Result<TableDigest> {
    let quoted = table.replace('"', "\"\"");
    let mut stmt = conn
        .prepare(&format!(
            "SELECT rowid, * FROM \"{quoted}\" WHERE rowid = ?1"
        ))
        .with_context(|| format!("reading table {table}"))?;
    let columns = stmt.column_count();
    let mut buf = Vec::new();
    let mut now = Vec::with_capacity(changed.len());
    for &id in changed {
        let mut rows = stmt.query([id])?;
        let key = match rows.next()? {
            Some(row) => {
                buf.clear();
                encode_row(row, 1, columns, &mut buf)?;
                Some(super::keys::row_key(&buf))
            }
            None => None,
        };
        now.push((id, key));
    }
    let rows = before.updated(&now);
    Ok((rows_digest(&rows), Some(rows)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables read whole by [`table_hash`] (only this module's test reads digests).
    pub(super) static WHOLE_READS: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);

    fn whole_reads() -> usize {
        WHOLE_READS.swap(0, std::sync::atomic::Ordering::Relaxed)
    }

    /// The digests and fingerprint content of `db`, read whole, and read again from
    /// the record at `cache` (written by the first run when it had none).
    fn both(db: &Path, cache: &Path) -> [(String, Vec<u8>, super::super::keys::Digests); 2] {
        [
            dataset_content(db, None).unwrap(),
            dataset_content(db, Some(cache)).unwrap(),
        ]
    }

    /// How many tables a run with the record at `cache` reads whole.
    fn read_whole_with(db: &Path, cache: &Path) -> usize {
        whole_reads();
        dataset_content(db, Some(cache)).unwrap();
        whole_reads()
    }

    fn same(pair: &[(String, Vec<u8>, super::super::keys::Digests); 2], what: &str) {
        let [(whole, schema, a), (kept, schema2, b)] = pair;
        assert_eq!(whole, kept, "{what}: fingerprint content");
        assert_eq!(schema, schema2, "{what}: schema");
        assert_eq!(a.tables, b.tables, "{what}: table digests");
        assert_eq!(a.rows, b.rows, "{what}: row digests");
    }

    #[test]
    fn digests_kept_from_the_change_log_equal_the_digests_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roost.db");
        store::init_db(&db, false, crate::idx::build).unwrap();
        let cache = dir.path().join(".site.digests");
        let first = both(&db, &cache);
        same(&first, "the first run");
        assert!(cache.is_file(), "the record is written");
        let edit = |sql: &str| {
            rusqlite::Connection::open(&db)
                .unwrap()
                .execute_batch(sql)
                .unwrap()
        };
        let tables = first[0].2.tables.len();
        let conn = store::open_read(&db).unwrap();
        let logged = store::changelog::state(&conn)
            .unwrap()
            .unwrap()
            .logged
            .len();
        drop(conn);
        assert!(
            logged > 30 && logged <= tables,
            "{logged} of {tables} tables logged"
        );
        let mut previous = first[0].0.clone();
        // What each edit reads whole, and whether the fingerprint sees it.
        for (what, sql, whole, seen) in [
            ("nothing", "", 0, false),
            ("a title", "UPDATE issues SET title = title || ' x' WHERE id = 1", 0, true),
            ("a body", "UPDATE issue_bodies SET body = 'b' WHERE rowid = (SELECT min(rowid) FROM issue_bodies)", 0, true),
            ("a row removed", "DELETE FROM issue_labels WHERE rowid = (SELECT max(rowid) FROM issue_labels)", 1, true),
            ("a row added", "INSERT INTO meta (key, value) VALUES ('note', 'x')", 1, true),
            ("a rowid moved", "PRAGMA foreign_keys = OFF; UPDATE issues SET id = 1000000 WHERE id = 2", 0, true),
            ("a search facet", "INSERT INTO search_facets (name, value, doc) VALUES ('x.y', 'z', 1)", 1, true),
            // The full-text tables and their shadow tables are not the tree's input.
            ("a full-text row", "INSERT INTO search_fts_users (rowid, head, body) VALUES (999999, 'zz', 'yy')", 0, false),
        ] {
            if !sql.is_empty() {
                edit(sql);
            }
            // Only the tables the log does not follow, and those it names that are
            // not read row by row, are read whole.
            let copy = dir.path().join("before.digests");
            std::fs::copy(&cache, &copy).unwrap();
            assert_eq!(read_whole_with(&db, &copy), tables - logged + whole, "{what}");
            let now = both(&db, &cache);
            same(&now, what);
            assert_eq!(now[0].0 != previous, seen, "{what}: seen");
            previous = now[0].0.clone();
        }
        // The file put back as it was (the same inode) and edited again: another
        // history at the same log entries.
        let saved = std::fs::read(&db).unwrap();
        edit("UPDATE issues SET title = 'a' WHERE id = 3; UPDATE issues SET title = 'b' WHERE id = 4");
        same(&both(&db, &cache), "two more titles");
        std::fs::write(&db, &saved).unwrap();
        edit("UPDATE issues SET title = 'c' WHERE id = 5; UPDATE issues SET title = 'd' WHERE id = 6");
        same(&both(&db, &cache), "an older copy edited again");
        // A record of another file is not used.
        let copy = dir.path().join("copy.db");
        std::fs::copy(&db, &copy).unwrap();
        rusqlite::Connection::open(&copy)
            .unwrap()
            .execute_batch("UPDATE issues SET title = 'other' WHERE id = 3")
            .unwrap();
        same(&both(&copy, &cache), "a copy edited");
    }
}
