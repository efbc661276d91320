//! The bases of the dataset's row digests: beside the digests record
//! `<parent>/.<name>.digests`, the file `.<name>.digests-<hex>` holds every row's
//! digest of the tables read row by row, as of the run that wrote it, and the record
//! holds only the rows changed since (a patch). So a run after a small change reads
//! and writes a record of its size, not of the dataset's: a base is read only where
//! a run looks a row up (or whole, once it looks up many).
//!
//! A base is written whole (when the record cannot be kept, or when its patches pass
//! a 32nd of the base), synced, then renamed to its name: `<hex>` is the XXH3-128 of
//! its bytes, which close it as in every checksummed file of the generator. The name
//! is checked when a base is opened, and its layout (every section inside the file,
//! the file's length exact); its keys are not read to check the sum, which would be
//! the full read a base exists to spare. A base damaged in place can only give a row
//! another digest than the one rendered from, so the files of that row are rendered
//! again, never kept wrongly: the changed rows, the count and the sum are in the
//! checksummed record.
//!
//! A base no record names is removed after the record that replaced it, and at the
//! start of every run ([`remove_stray`]).

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{BufWriter, Write as _};
use std::os::unix::fs::FileExt as _;
use std::path::Path;
use std::sync::Arc;

use crate::generate::keys::{BaseFile, Rows, Section};
use crate::generate::summed::{write_in_pieces, Summed};

const MAGIC: &[u8] = b"roost dataset digests base 1\n";

/// The trailing checksum's length.
const SUM: usize = 16;

/// The file name of the base of the record at `record` whose checksum is `sum`.
fn name_for(record: &Path, sum: u128) -> Option<String> {
    Some(format!("{}-{sum:032x}", record.file_name()?.to_str()?))
}

/// Whether `name` is the name of a base of the record named `record_name`.
fn is_base_of(name: &str, record_name: &str) -> bool {
    name.strip_prefix(record_name)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(is_sum)
}

/// Whether `hex` is a base's checksum as its name ends with it.
fn is_sum(hex: &str) -> bool {
    hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The sections of the base `name` beside the record at `record`, by table; `None`
/// when it is missing, not named as a base, or not laid out whole.
pub(super) fn open(record: &Path, name: &str) -> Option<HashMap<String, Section>> {
    let (stem, sum) = name.rsplit_once('-')?;
    if stem.contains('/') || !is_sum(sum) {
        return None;
    }
    let file = File::open(record.with_file_name(name)).ok()?;
    let len = file.metadata().ok()?.len();
    let body = len.checked_sub(SUM as u64)?;
    let base = Arc::new(BaseFile {
        name: name.to_string(),
        file,
    });
    // Bounds first: a damaged length never sizes a buffer past the file.
    let read = |at: u64, n: usize| -> Option<Vec<u8>> {
        (at.checked_add(n as u64)? <= body).then_some(())?;
        let mut bytes = vec![0u8; n];
        base.file.read_exact_at(&mut bytes, at).ok()?;
        Some(bytes)
    };
    let u64_at =
        |at: u64| -> Option<u64> { Some(u64::from_le_bytes(read(at, 8)?.try_into().ok()?)) };
    (read(0, MAGIC.len())? == MAGIC).then_some(())?;
    let mut at = MAGIC.len() as u64;
    let count = u64_at(at)?;
    at += 8;
    let mut sections = HashMap::new();
    for _ in 0..count {
        let n = usize::try_from(u64_at(at)?).ok()?;
        let table = String::from_utf8(read(at + 8, n)?).ok()?;
        at += 8 + n as u64;
        let n = u64_at(at)?;
        let ids = at + 8;
        let keys = ids.checked_add(n.checked_mul(8)?)?;
        at = keys.checked_add(n.checked_mul(16)?)?;
        (at <= body).then_some(())?;
        let n = usize::try_from(n).ok()?;
        let section = Section {
            base: base.clone(),
            table: table.clone(),
            ids,
            keys,
            n,
        };
        sections.insert(table, section);
    }
    (at == body).then_some(sections)
}

/// Writes a base of `tables` (each table's rows) beside the record at `record`:
/// written aside, synced, then renamed to its name, which is returned.
pub(super) fn write(record: &Path, tables: &[(&str, &Rows)]) -> anyhow::Result<String> {
    use anyhow::Context;
    let temp = crate::atomic::with_suffix(record, &format!("-base.tmp-{}", std::process::id()));
    let written = (|| -> anyhow::Result<String> {
        let sum = encode(&temp, tables).with_context(|| format!("writing {}", temp.display()))?;
        crate::crash::point("generate::digests_base");
        let name = name_for(record, sum).context("the digests record's name is not UTF-8")?;
        fs::rename(&temp, record.with_file_name(&name))
            .with_context(|| format!("renaming {} to {name}", temp.display()))?;
        Ok(name)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// Writes the base of `tables` at `path`, synced; returns its checksum.
fn encode(path: &Path, tables: &[(&str, &Rows)]) -> std::io::Result<u128> {
    let mut w = Summed::new(BufWriter::with_capacity(1 << 20, File::create(path)?));
    w.write_all(MAGIC)?;
    w.write_all(&(tables.len() as u64).to_le_bytes())?;
    for (table, rows) in tables {
        w.write_all(&(table.len() as u64).to_le_bytes())?;
        w.write_all(table.as_bytes())?;
        w.write_all(&(rows.len() as u64).to_le_bytes())?;
        let unread = || std::io::Error::other(format!("the rows of {table} could not be read"));
        let iter = rows.iter().ok_or_else(unread)?;
        write_in_pieces(&mut w, iter.map(|(id, _)| id.to_le_bytes()))?;
        let iter = rows.iter().ok_or_else(unread)?;
        write_in_pieces(&mut w, iter.map(|(_, key)| key.to_le_bytes()))?;
    }
    let (file, sum) = w.finish_with_sum()?;
    let file = file.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(sum)
}

/// Removes the bases beside the record at `record` but `keep` (best effort).
pub(super) fn remove_stray(record: &Path, keep: Option<&str>) {
    let (Some(dir), Some(record_name)) =
        (record.parent(), record.file_name().and_then(|n| n.to_str()))
    else {
        return;
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if is_base_of(name, record_name) && Some(name) != keep {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Removes the temporary bases beside the record at `record` left by processes that
/// no longer exist.
pub(super) fn remove_stale_temps(record: &Path) {
    if let (Some(dir), Some(name)) = (record.parent(), record.file_name()) {
        let prefix = format!("{}-base.tmp-", name.to_string_lossy());
        crate::atomic::remove_stale(dir, &[prefix]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_opens_by_its_name_and_whole() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join(".site.digests");
        let a = Rows::new(vec![1, 2, 4], vec![10, 20, 40]).unwrap();
        let b = Rows::new(vec![7], vec![70])
            .unwrap()
            .updated(&[(8, Some(80))]);
        let name = write(&record, &[("a", &a), ("b", &b)]).unwrap();
        let back = |t: &str| {
            let section = open(&record, &name).unwrap().remove(t).unwrap();
            Rows::of_base(section, Vec::new(), 0, Default::default())
        };
        assert_eq!(back("a").unwrap().get(4), Some(40));
        assert_eq!(back("b").unwrap().get(8), Some(80));
        assert_eq!(back("b").unwrap().base_name(), Some(name.as_str()));
        // Another name, a cut file: not a base.
        assert!(open(&record, &name.replace('-', "_")).is_none());
        assert!(open(&record, &format!("../{name}")).is_none());
        let path = dir.path().join(&name);
        let bytes = fs::read(&path).unwrap();
        // A damaged length (a table's name, its row count) is refused, never
        // allocated.
        let name_len = MAGIC.len() + 8;
        let rows_len = name_len + 8 + 1;
        for at in [name_len, rows_len] {
            let mut damaged = bytes.clone();
            damaged[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
            fs::write(&path, &damaged).unwrap();
            assert!(
                open(&record, &name).is_none(),
                "a length of u64::MAX at {at}"
            );
        }
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(open(&record, &name).is_none());
        // Every base but the one named is removed; other files stay.
        let second = write(&record, &[("a", &a)]).unwrap();
        fs::write(dir.path().join(".site.digests-notes"), "x").unwrap();
        remove_stray(&record, Some(&second));
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, [second, ".site.digests-notes".to_string()]);
    }
}
