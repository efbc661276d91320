//! Whole units skipped: a unit (a list in one scope and ordering, a detail resource)
//! whose inputs did not change makes exactly the files it made, so a run neither
//! reads its rows nor renders or keys its files.
//!
//! A unit's key ([`super::keys::unit_key`]) is a digest of the run's salt, the unit's
//! identity and the digest of every table its statements read
//! ([`super::keys::unit_tables`], checked as it renders). After a unit is rendered,
//! its *record* is written to `<parent>/.<name>.units/<key in hex>`: the keys of its
//! files (one per page or record) and the manifest entries of the files each key
//! covers (with their precompressed siblings). The unit key goes with the file keys
//! of the generation (`.<name>.keys`, written, synced, promoted and kept with the
//! spare as they are), so "the live generation has this unit's files" is a key
//! lookup. A later run whose unit key the live generation has reads the record
//! instead of the dataset: the files the spare being updated already holds (its keys
//! have the unit key, or the file's key) stay as they are, the others are linked from
//! the live generation; the record's entries go to the manifest and its keys to the
//! new generation's.
//!
//! A record is named by its unit key, which determines its content, so a record
//! written by any run (a failed one included) is the record of every run with that
//! key: records are written aside and renamed into place, not synced (a record lost
//! or torn by a crash fails its checksum and the unit is rendered). A record that is
//! missing, unreadable, malformed or names another key is ignored and the unit
//! rendered. Records no key of the live, spare or new generation names are removed
//! after each swap.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::manifest::ManifestEntry;

use super::keys::Key;

const MAGIC: &[u8] = b"roost unit record 1\n";

/// The files of one unit: per file key, how many of `entries` (in order) it covers.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Record {
    pub groups: Vec<(Key, u32)>,
    pub entries: Vec<ManifestEntry>,
}

/// Where the unit records of the tree at `out` live: `<parent>/.<name>.units/`.
pub(super) fn records_dir(out: &Path) -> anyhow::Result<PathBuf> {
    let (parent, prefix) = super::generation_prefix(out)?;
    let name = prefix.trim_end_matches('g');
    Ok(parent.join(format!("{name}units")))
}

fn file_name(key: Key) -> String {
    format!("{key:032x}")
}

/// The record of the unit `key` in `dir`; `None` when it is absent, unreadable,
/// malformed or describes another unit.
pub(super) fn read(dir: &Path, key: Key) -> Option<Record> {
    let bytes = fs::read(dir.join(file_name(key))).ok()?;
    decode(&bytes, key)
}

fn decode(bytes: &[u8], key: Key) -> Option<Record> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(32)?)?;
    if Sha256::digest(body).as_slice() != sum {
        return None;
    }
    let mut r = Reader(body.strip_prefix(MAGIC)?);
    if r.u128()? != key {
        return None;
    }
    let groups = usize::try_from(r.u64()?).ok()?;
    let mut record = Record {
        groups: Vec::with_capacity(groups.min(r.0.len() / 20)),
        entries: Vec::new(),
    };
    let mut total = 0usize;
    for _ in 0..groups {
        let (k, n) = (r.u128()?, r.u32()?);
        total = total.checked_add(n as usize)?;
        record.groups.push((k, n));
    }
    record.entries.reserve(total.min(r.0.len() / 44));
    for _ in 0..total {
        let len = r.u32()? as usize;
        let path = std::str::from_utf8(r.take(len)?).ok()?.to_string();
        let size = r.u64()?;
        let sha256 = hex::encode(r.take(32)?);
        record.entries.push(ManifestEntry { path, size, sha256 });
    }
    r.0.is_empty().then_some(record)
}

/// Reads little-endian fields from the front of a byte slice (`None` past its end).
pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
    pub(super) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(super) fn hash(&mut self) -> Option<[u8; 32]> {
        self.take(32)?.try_into().ok()
    }
}

fn encode(record: &Record, key: Key) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(MAGIC.len() + 64 + record.entries.len() * 120);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&(record.groups.len() as u64).to_le_bytes());
    for (k, n) in &record.groups {
        out.extend_from_slice(&k.to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
    }
    for e in &record.entries {
        out.extend_from_slice(&u32::try_from(e.path.len())?.to_le_bytes());
        out.extend_from_slice(e.path.as_bytes());
        out.extend_from_slice(&e.size.to_le_bytes());
        let mut sha = [0u8; 32];
        hex::decode_to_slice(&e.sha256, &mut sha)?;
        out.extend_from_slice(&sha);
    }
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    Ok(out)
}

/// Writes the record of the unit `key` into `dir` (created when missing): written
/// aside, then renamed into place.
pub(super) fn write(dir: &Path, key: Key, record: &Record) -> anyhow::Result<()> {
    use anyhow::Context;
    let bytes = encode(record, key)?;
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let target = dir.join(file_name(key));
    let temp = crate::atomic::with_suffix(&target, &format!(".tmp-{}", std::process::id()));
    crate::atomic::replace_file(
        &temp,
        &target,
        |temp| fs::write(temp, &bytes).with_context(|| format!("writing {}", temp.display())),
        |e| anyhow::Error::new(e).context(format!("renaming into {}", target.display())),
    )
}

/// Removes from `dir` the records whose key `in_use` rejects, and the temporary files
/// of processes that no longer exist. Best effort.
pub(super) fn collect_garbage(dir: &Path, in_use: impl Fn(Key) -> bool) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let stale = match name.split_once(".tmp-") {
            Some((_, pid)) => pid
                .parse::<u32>()
                .is_ok_and(|pid| !crate::atomic::process_is_alive(pid)),
            None => u128::from_str_radix(&name, 16)
                .ok()
                .filter(|_| name.len() == 32)
                .is_none_or(|key| !in_use(key)),
        };
        if stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Removes every unit record beside `out` (before a generation that records no keys).
pub(super) fn remove_all(out: &Path) {
    if let Ok(dir) = records_dir(out) {
        let _ = fs::remove_dir_all(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Record {
        let entry = |path: &str, size| ManifestEntry {
            path: path.to_string(),
            size,
            sha256: hex::encode(Sha256::digest(path.as_bytes())),
        };
        Record {
            groups: vec![(7, 2), (9, 1)],
            entries: vec![
                entry("api/v0/issues/index.json", 4000),
                entry("api/v0/issues/index.json.gz", 900),
                entry("api/v0/issues/page/2.json", 800),
            ],
        }
    }

    #[test]
    fn a_record_reads_back_only_whole_and_for_its_own_unit() {
        let record = sample();
        let bytes = encode(&record, 42).unwrap();
        assert_eq!(decode(&bytes, 42), Some(sample()));
        assert_eq!(decode(&bytes, 43), None, "another unit's key");
        for cut in [0, 1, MAGIC.len(), bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(decode(&bytes[..cut], 42), None, "torn at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[MAGIC.len() + 20] ^= 1;
        assert_eq!(decode(&flipped, 42), None, "a flipped bit");
    }

    #[test]
    fn garbage_collection_keeps_the_records_in_use() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), 1, &sample()).unwrap();
        write(dir.path(), 2, &sample()).unwrap();
        fs::write(dir.path().join("stray"), b"x").unwrap();
        collect_garbage(dir.path(), |k| k == 2);
        assert_eq!(read(dir.path(), 1), None);
        assert_eq!(read(dir.path(), 2), Some(sample()));
        assert!(!dir.path().join("stray").exists());
    }
}
