//! What a generation was made from, so a run whose input did not change keeps the live
//! generation instead of rebuilding it file by file.
//!
//! The input of a generation is everything its bytes depend on: the dataset's content
//! (the schema and every row of every table, read through SQL, so a re-import of the
//! same records is the same input however SQLite laid out its pages), the roost
//! executable that renders it (its size and modification time: a rebuilt or upgraded
//! binary renders anew), and the options that change the tree (`--precompress`,
//! `--public-url`, `--with-dataset`/`--public-only`, and the date `is_upcoming` files
//! are rendered for). [`fingerprint`] hashes them into one SHA-256.
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

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rayon::prelude::*;
use rusqlite::types::ValueRef;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Dataset, Options};
use crate::store;

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
}

/// Where the record of the tree at `out` lives: `<parent>/.<name>.input`.
pub fn record_path(out: &Path) -> anyhow::Result<PathBuf> {
    let (parent, prefix) = super::generation_prefix(out)?;
    // `prefix` is `.<name>.g`; the record is `.<name>.input` (not a generation name).
    let name = prefix.trim_end_matches('g');
    Ok(parent.join(format!("{name}input")))
}

/// The record beside `out`, if there is a readable one.
pub fn read_record(out: &Path) -> Option<Record> {
    let bytes = fs::read(record_path(out).ok()?).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Replaces the record beside `out`: written aside and synced, then renamed over it.
/// The temporary file is removed when any step fails.
pub fn write_record(out: &Path, record: &Record) -> anyhow::Result<()> {
    super::generations::replace_file(&record_path(out)?, &serde_json::to_vec(record)?)
}

/// Removes the record beside `out` (before a generation that will not record one).
pub fn remove_record(out: &Path) {
    if let Ok(path) = record_path(out) {
        let _ = fs::remove_file(path);
    }
}

/// Removes the temporary files `.<name>.input.tmp-<pid>` and `.<name>.*keys.tmp-<pid>`
/// left by processes that no longer exist.
pub fn remove_stale_temps(out: &Path) {
    for path in [
        record_path(out),
        super::keys::keys_path(out),
        super::keys::next_keys_path(out),
        super::keys::spare_keys_path(out),
    ]
    .into_iter()
    .flatten()
    {
        remove_stale_temps_of(&path);
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
    let (content, schema, digests) = dataset_content(&opts.db)?;
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

/// The SHA-256 of the dataset's schema and of every row of every table (one table per
/// rayon task, each on its own read-only connection), in table-name order; the
/// SHA-256 of the schema alone; the digests of every table and of the rows of the
/// tables the file keys read row by row ([`super::keys::row_tables`]).
fn dataset_content(db: &Path) -> anyhow::Result<(String, Vec<u8>, super::keys::Digests)> {
    let conn = store::open_read(db)?;
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
    drop(conn);
    // Virtual tables (full-text indexes) are derived from the tables they index; their
    // shadow tables are ordinary tables and are hashed like the others.
    tables.retain(|(_, sql)| !sql.to_ascii_uppercase().starts_with("CREATE VIRTUAL"));
    let by_row = super::keys::row_tables();
    let hashes = tables
        .par_iter()
        .map(|(name, _)| table_hash(db, name, by_row.contains(name.as_str())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut hasher = Sha256::new();
    for line in schema {
        hasher.update((line.len() as u64).to_le_bytes());
        hasher.update(line.as_bytes());
    }
    let schema_hash = hasher.clone().finalize().to_vec();
    let mut digests = super::keys::Digests::default();
    for ((name, _), (hash, rows)) in tables.iter().zip(hashes) {
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update(hash);
        digests.tables.insert(name.clone(), hash);
        if let Some(rows) = rows {
            digests.rows.insert(name.clone(), rows);
        }
    }
    Ok((hex::encode(hasher.finalize()), schema_hash, digests))
}

/// One table's digest, and its rows' by `rowid` when `by_row`.
type TableDigest = ([u8; 32], Option<HashMap<i64, super::keys::Key>>);

/// The SHA-256 of one table's rows, in the order a full scan returns them (its key
/// order), each value tagged with its type and length. With `by_row`, each row is
/// hashed alone (its digest kept by `rowid`) and the table's digest is made of those.
fn table_hash(db: &Path, table: &str, by_row: bool) -> anyhow::Result<TableDigest> {
    let conn = store::open_read(db)?;
    let quoted = table.replace('"', "\"\"");
    let rowid = if by_row { "rowid, " } else { "" };
    let mut stmt = conn
        .prepare(&format!("SELECT {rowid}* FROM \"{quoted}\""))
        .with_context(|| format!("reading table {table}"))?;
    let first = usize::from(by_row);
    let columns = stmt.column_count();
    let mut rows = stmt.query([])?;
    let mut hasher = Sha256::new();
    let mut keys = by_row.then(HashMap::new);
    // Values are gathered into a buffer and hashed in large pieces.
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    while let Some(row) = rows.next()? {
        if keys.is_some() {
            buf.clear();
        }
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
        if let Some(keys) = &mut keys {
            let key = super::keys::row_key(&buf);
            hasher.update(key.to_le_bytes());
            keys.insert(row.get::<_, i64>(0)?, key);
        } else if buf.len() >= 1 << 16 {
            hasher.update(&buf);
            buf.clear();
        }
    }
    if keys.is_none() {
        hasher.update(&buf);
    }
    Ok((hasher.finalize().into(), keys))
}
