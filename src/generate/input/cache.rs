//! The dataset's digests recorded beside the tree, `<parent>/.<name>.digests`, with
//! the point of the dataset's change log ([`crate::store::changelog`]) they describe,
//! so the next run reads again only the tables and rows the log names since.
//!
//! The record holds the file it was made from (device and inode: a dataset rebuilt or
//! replaced by another file is another), the dataset's identity (`user_version`, new
//! at every build), its `schema_version` (moved by every schema change: a trigger
//! dropped, a table altered, `VACUUM`) and schema digest, the log's last entry (its
//! `seq` and random nonce: a file restored from an older copy and edited again has
//! another entry at that `seq`), and the digests of every table whose changes are
//! logged. The rows' digests of the tables read row by row are in a base beside it
//! ([`super::base`], named on the record's second line); the record holds each such
//! table's count and sum and the rows changed since the base. Any of them different,
//! or the base missing, and the record is not used: every table is read whole. It is
//! written aside and renamed into place, not synced: it describes the dataset, not a
//! generation, and a record lost or torn fails its checksum (XXH3-128: the record
//! guards against a torn or damaged file, not a forger) and costs one full read.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::io::Write as _;
use std::path::Path;

use rusqlite::Connection;
use xxhash_rust::xxh3::xxh3_128;

use crate::generate::keys::{Digests, Key, Rows, Sum, PATCH_SHARE};
use crate::generate::summed::Summed;
use crate::generate::units::Reader;
use crate::store::changelog;

const MAGIC: &[u8] = b"roost dataset digests 3\n";

/// The checksum closing the record: its XXH3-128, little-endian.
const SUM: usize = 16;

/// The file a dataset is read from: a rebuilt or replaced dataset is another file
/// (another inode, or the same inode number given to a new file: another birth time
/// where the file system keeps one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileIdentity {
    dev: u64,
    ino: u64,
    born: u64,
}

impl FileIdentity {
    pub(super) fn of(path: &Path) -> Option<FileIdentity> {
        use std::os::unix::fs::MetadataExt as _;
        let m = fs::metadata(path).ok()?;
        let born = m
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64);
        Some(FileIdentity {
            dev: m.dev(),
            ino: m.ino(),
            born,
        })
    }
}

/// A table's digest, and its rows' when read row by row.
type Table = ([u8; 32], Option<Rows>);

/// A record read back.
pub(super) struct Cached {
    file: FileIdentity,
    identity: i64,
    schema_version: i64,
    schema_hash: [u8; 32],
    last: Option<(i64, Vec<u8>)>,
    tables: HashMap<String, Table>,
}

/// What a table's digests can be made from.
pub(super) enum Kept {
    /// Nothing changed: the recorded digest (and rows).
    Whole([u8; 32], Option<Rows>),
    /// The recorded rows, with these rows (ascending `rowid`s) to read again.
    Rows(Rows, Vec<i64>),
    /// Read the table whole.
    Nothing,
}

/// A table's changes since the record.
enum Change {
    Whole,
    Rows(BTreeSet<i64>),
}

/// What a run can take from the record.
#[derive(Default)]
pub(super) struct Reuse {
    tables: HashMap<String, Table>,
    changes: HashMap<String, Change>,
    logged: std::collections::HashSet<String>,
    /// The record describes the dataset as it is now (nothing logged since).
    current: bool,
}

/// What of `cached` the dataset of `conn` (whose log is `log`, read from `file`, with
/// the schema digest `schema_hash`) lets a run keep; nothing when it is another file,
/// another build, another schema or another history.
pub(super) fn reusable(
    conn: &Connection,
    cached: Cached,
    log: &changelog::State,
    file: FileIdentity,
    schema_hash: &[u8; 32],
) -> rusqlite::Result<Reuse> {
    let same = cached.file == file
        && cached.identity == log.identity
        && cached.schema_version == log.schema_version
        && &cached.schema_hash == schema_hash;
    if !same {
        return Ok(Reuse::default());
    }
    let from = match &cached.last {
        None => 0,
        Some((seq, nonce)) => {
            if changelog::nonce_at(conn, *seq)?.as_ref() != Some(nonce) {
                return Ok(Reuse::default());
            }
            *seq
        }
    };
    let to = log.last.as_ref().map_or(0, |(seq, _)| *seq);
    let mut changes: HashMap<String, Change> = HashMap::new();
    if to > from {
        for (table, row) in changelog::since(conn, from, to)? {
            let change = changes
                .entry(table)
                .or_insert_with(|| Change::Rows(BTreeSet::new()));
            match (change, row) {
                (Change::Rows(rows), Some(row)) => {
                    rows.insert(row);
                }
                (change, _) => *change = Change::Whole,
            }
        }
    }
    Ok(Reuse {
        tables: cached.tables,
        changes,
        logged: log.logged.iter().cloned().collect(),
        current: cached.last == log.last,
    })
}

impl Reuse {
    /// What the digests of `table` (read row by row when `by_row`) can be made from.
    pub(super) fn take(&mut self, table: &str, by_row: bool) -> Kept {
        if !self.logged.contains(table) {
            return Kept::Nothing;
        }
        let Some((digest, rows)) = self.tables.remove(table) else {
            return Kept::Nothing;
        };
        if by_row != rows.is_some() {
            return Kept::Nothing;
        }
        match (self.changes.get(table), rows) {
            (None, rows) => Kept::Whole(digest, rows),
            // Past a quarter of the table, one pass costs less than lookups.
            (Some(Change::Rows(changed)), Some(rows)) if changed.len() <= rows.len() / 4 => {
                Kept::Rows(rows, changed.iter().copied().collect())
            }
            _ => Kept::Nothing,
        }
    }

    /// Every recorded table's digest, before any is taken; `None` when the record is
    /// not used.
    pub(super) fn recorded_tables(&self) -> Option<HashMap<String, [u8; 32]>> {
        (!self.tables.is_empty()).then(|| {
            self.tables
                .iter()
                .map(|(name, (digest, _))| (name.clone(), *digest))
                .collect()
        })
    }

    /// Whether the record describes the dataset as it is now: no need to write it.
    pub(super) fn current(&self) -> bool {
        self.current
    }
}

/// The record at `path`; `None` when it is absent, unreadable or torn, or its base is.
pub(super) fn read(path: &Path) -> Option<Cached> {
    decode(&fs::read(path).ok()?, path)
}

/// The name of the base the record at `path` names, if it is readable.
pub(super) fn base_named(path: &Path) -> Option<String> {
    let bytes = fs::read(path).ok()?;
    let (name, _) = base_line(&bytes)?;
    Some(name.to_string())
}

/// The base's name on a record's second line, and what follows that line.
fn base_line(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let end = rest.iter().position(|&b| b == b'\n')?;
    Some((std::str::from_utf8(&rest[..end]).ok()?, &rest[end + 1..]))
}

fn decode(bytes: &[u8], path: &Path) -> Option<Cached> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(SUM)?)?;
    if xxh3_128(body).to_le_bytes() != sum {
        return None;
    }
    let (base_name, rest) = base_line(body)?;
    let mut sections = match base_name {
        "" => HashMap::new(),
        name => super::base::open(path, name)?,
    };
    let mut r = Reader(rest);
    let file = FileIdentity {
        dev: r.u64()?,
        ino: r.u64()?,
        born: r.u64()?,
    };
    let identity = r.i64()?;
    let schema_version = r.i64()?;
    let schema_hash = r.hash()?;
    let last = match r.take(1)?[0] {
        0 => None,
        _ => {
            let seq = r.i64()?;
            let n = r.u64()? as usize;
            Some((seq, r.take(n)?.to_vec()))
        }
    };
    let count = r.u64()?;
    let mut tables = HashMap::new();
    for _ in 0..count {
        let n = r.u64()? as usize;
        let name = std::str::from_utf8(r.take(n)?).ok()?.to_string();
        let digest = r.hash()?;
        let rows = match r.take(1)?[0] {
            0 => None,
            _ => {
                let len = r.u64()? as usize;
                let sum = Sum::from_bytes(r.hash()?);
                let n = r.u64()? as usize;
                let mut patch = Vec::with_capacity(n.min(r.0.len() / 25));
                for _ in 0..n {
                    let id = r.i64()?;
                    let key = match r.take(1)?[0] {
                        0 => None,
                        _ => Some(Key::from_le_bytes(r.take(16)?.try_into().ok()?)),
                    };
                    patch.push((id, key));
                }
                let section = sections.remove(&name)?;
                Some(Rows::of_base(section, patch, len, sum)?)
            }
        };
        tables.insert(name, (digest, rows));
    }
    r.0.is_empty().then_some(Cached {
        file,
        identity,
        schema_version,
        schema_hash,
        last,
        tables,
    })
}

/// The record of `digests` (of `tables`) at the log's point `log`, its rows a patch of
/// the base `base` (`""`: none), written to `out` as it is encoded, its checksum last.
fn encode(
    out: impl std::io::Write,
    log: &changelog::State,
    file: FileIdentity,
    schema_hash: &[u8; 32],
    tables: &[&str],
    digests: &Digests,
    base: &str,
) -> std::io::Result<()> {
    let mut w = Summed::new(out);
    w.write_all(MAGIC)?;
    w.write_all(base.as_bytes())?;
    w.write_all(b"\n")?;
    for n in [file.dev, file.ino, file.born] {
        w.write_all(&n.to_le_bytes())?;
    }
    w.write_all(&log.identity.to_le_bytes())?;
    w.write_all(&log.schema_version.to_le_bytes())?;
    w.write_all(schema_hash)?;
    match &log.last {
        None => w.write_all(&[0])?,
        Some((seq, nonce)) => {
            w.write_all(&[1])?;
            w.write_all(&seq.to_le_bytes())?;
            w.write_all(&(nonce.len() as u64).to_le_bytes())?;
            w.write_all(nonce)?;
        }
    }
    let tables: Vec<(&str, &[u8; 32])> = tables
        .iter()
        .filter_map(|t| Some((*t, digests.tables.get(*t)?)))
        .collect();
    w.write_all(&(tables.len() as u64).to_le_bytes())?;
    for (name, digest) in tables {
        w.write_all(&(name.len() as u64).to_le_bytes())?;
        w.write_all(name.as_bytes())?;
        w.write_all(digest)?;
        match digests.rows.get(name) {
            None => w.write_all(&[0])?,
            Some(rows) => {
                w.write_all(&[1])?;
                w.write_all(&(rows.len() as u64).to_le_bytes())?;
                w.write_all(&rows.sum().to_bytes())?;
                let patch = if rows.base_name() == Some(base) {
                    rows.patch()
                } else {
                    &[]
                };
                w.write_all(&(patch.len() as u64).to_le_bytes())?;
                for &(id, key) in patch {
                    w.write_all(&id.to_le_bytes())?;
                    match key {
                        None => w.write_all(&[0])?,
                        Some(key) => {
                            w.write_all(&[1])?;
                            w.write_all(&key.to_le_bytes())?;
                        }
                    }
                }
            }
        }
    }
    w.finish().map(drop)
}

/// Writes the record of `digests` (of the tables `tables`, those whose changes are
/// logged) at the log's point `log`: written aside, then renamed into place.
pub(super) fn write(
    path: &Path,
    log: &changelog::State,
    file: FileIdentity,
    schema_hash: &[u8; 32],
    tables: &[&str],
    digests: &Digests,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let base = match base_kept(tables, digests) {
        Some(base) => base,
        None => {
            let rows: Vec<(&str, &Rows)> = tables
                .iter()
                .filter_map(|t| Some((*t, digests.rows.get(*t)?)))
                .collect();
            super::base::write(path, &rows)?
        }
    };
    let temp = crate::atomic::with_suffix(path, &format!(".tmp-{}", std::process::id()));
    crate::atomic::replace_file(
        &temp,
        path,
        |temp| {
            fs::File::create(temp)
                .and_then(|f| {
                    let out = std::io::BufWriter::with_capacity(1 << 20, f);
                    encode(out, log, file, schema_hash, tables, digests, &base)
                })
                .with_context(|| format!("writing {}", temp.display()))?;
            crate::crash::point("generate::digests");
            Ok(())
        },
        |e| anyhow::Error::new(e).context(format!("renaming into {}", path.display())),
    )?;
    super::base::remove_stray(path, Some(base.as_str()).filter(|b| !b.is_empty()));
    Ok(())
}

/// The base the rows of `tables` are all patches of, while their patches are within
/// [`PATCH_SHARE`] of it (`""` when no table is read row by row); `None` when a new
/// base must be written.
fn base_kept(tables: &[&str], digests: &Digests) -> Option<String> {
    let (mut name, mut patched, mut based) = (None, 0, 0);
    for rows in tables.iter().filter_map(|t| digests.rows.get(*t)) {
        let base = rows.base_name()?;
        if *name.get_or_insert(base) != base {
            return None;
        }
        patched += rows.patch().len();
        based += rows.base_len();
    }
    match name {
        None => Some(String::new()),
        Some(name) => (patched * PATCH_SHARE <= based).then(|| name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_only_whole_and_with_its_base() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".site.digests");
        let log = changelog::State {
            identity: 7,
            schema_version: 3,
            logged: vec!["a".into(), "b".into()],
            last: Some((12, vec![1, 2, 3])),
        };
        let file = FileIdentity {
            dev: 1,
            ino: 2,
            born: 3,
        };
        let mut digests = Digests::default();
        let rows = Rows::new(vec![1, 2, 9], vec![10, 20, 90]).unwrap();
        digests.tables.insert("a".into(), [1; 32]);
        digests.tables.insert("b".into(), rows.sum().to_bytes());
        digests.rows.insert("b".into(), rows);
        // The rows held in memory: a base is written.
        write(&path, &log, file, &[5; 32], &["a", "b"], &digests).unwrap();
        let base = base_named(&path).unwrap();
        assert!(dir.path().join(&base).is_file());
        let back = read(&path).unwrap();
        assert_eq!(back.file, file);
        assert_eq!((back.identity, back.schema_version), (7, 3));
        assert_eq!(back.last, log.last);
        assert_eq!(back.tables["a"], ([1; 32], None));
        let rows = back.tables["b"].1.clone().unwrap();
        assert_eq!(
            (rows.get(9), rows.base_name()),
            (Some(90), Some(base.as_str()))
        );
        // A row changed: the record holds it, the base is kept.
        let changed = rows.updated(&[(2, Some(21))]);
        digests.tables.insert("b".into(), changed.sum().to_bytes());
        digests.rows.insert("b".into(), changed.clone());
        write(&path, &log, file, &[5; 32], &["a", "b"], &digests).unwrap();
        assert_eq!(base_named(&path).unwrap(), base);
        let back = read(&path).unwrap();
        let rows = back.tables["b"].1.as_ref().unwrap();
        assert_eq!(rows, &changed);
        assert_eq!((rows.get(2), rows.patch().len()), (Some(21), 1));
        // Past its share, the patch is folded into a new base; the old one is removed.
        let folded = changed.updated(&[(1, None), (3, Some(30))]);
        digests.rows.insert("b".into(), folded.clone());
        write(&path, &log, file, &[5; 32], &["a", "b"], &digests).unwrap();
        let second = base_named(&path).unwrap();
        assert_ne!(second, base);
        assert!(!dir.path().join(&base).exists());
        let back = read(&path).unwrap();
        let rows = back.tables["b"].1.as_ref().unwrap();
        assert_eq!((rows, rows.patch().len()), (&folded, 0));
        // Torn or damaged, the record is not read; nor without its base.
        let bytes = fs::read(&path).unwrap();
        for cut in [0, MAGIC.len(), bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], &path).is_none(), "torn at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[MAGIC.len() + 40] ^= 1;
        assert!(decode(&flipped, &path).is_none());
        assert!(decode(&bytes, &path).is_some());
        fs::remove_file(dir.path().join(&second)).unwrap();
        assert!(decode(&bytes, &path).is_none(), "without its base");
    }
}
