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
//! or torn by a crash fails its checksum and the unit is rendered; the checksum is
//! there to tell a torn record, not a forged one, so it is a fast non-cryptographic
//! hash). A record that is missing, unreadable, malformed or names another key is
//! ignored and the unit rendered. Records no key of the live, spare or new
//! generation names are removed after each swap.

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use xxhash_rust::xxh3::Xxh3;

use crate::catalog::ScopeRows;

use super::entry::Entry;
use super::keys::Key;

const MAGIC: &[u8] = b"roost unit record 3\n";

/// The key a record gives a group of files that has none (the loose files of a
/// generation, [`super::delta`]); no file's key is 0.
pub(super) const NO_KEY: Key = 0;

/// The files of one unit: per file key, how many of `entries` (in order) it covers;
/// whole in memory, as the tests compare it (runs read a record group by group,
/// [`RecordReader`]).
#[cfg(test)]
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Record {
    pub groups: Vec<(Key, u32)>,
    pub entries: Vec<Entry>,
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

/// The record of the unit `key` in `dir`, whole in memory; `None` when it is absent,
/// unreadable, malformed or describes another unit.
#[cfg(test)]
pub(super) fn read(dir: &Path, key: Key) -> Option<Record> {
    let mut reader = RecordReader::open(dir, key)?;
    let mut record = Record::default();
    while let Some((key, entries)) = reader.next_group().ok()? {
        record
            .groups
            .push((key, u32::try_from(entries.len()).ok()?));
        record.entries.extend(entries);
    }
    Some(record)
}

/// The bytes of a record past its groups: how many groups it holds, then the
/// checksum of every byte before it (XXH3-128).
const TRAILER: u64 = 8 + 16;

/// A unit's record read group by group, in the order they were written, from a file
/// whose checksum was found whole when it was opened: a unit's entries are never all
/// in memory at once.
///
/// A record is the magic line, the unit key, then each group (its file key, how many
/// entries, the entries: path length, path, size, SHA-256), then the trailer
/// ([`TRAILER`]). Little-endian throughout.
pub(super) struct RecordReader {
    file: BufReader<File>,
    /// Where the groups start, and where they end (the trailer).
    start: u64,
    end: u64,
    groups: u64,
    /// Groups read since the last rewind.
    read: u64,
    at: u64,
}

impl RecordReader {
    /// The record of the unit `key` in `dir`, its checksum checked over the whole file
    /// (read once, a buffer at a time); `None` when it is absent, unreadable, torn or
    /// describes another unit.
    pub(super) fn open(dir: &Path, key: Key) -> Option<RecordReader> {
        let mut file = File::open(dir.join(file_name(key))).ok()?;
        let len = file.metadata().ok()?.len();
        let head = MAGIC.len() as u64 + 16;
        let end = len.checked_sub(TRAILER).filter(|&end| end >= head)?;
        let mut hasher = Xxh3::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut left = len - 16;
        while left > 0 {
            let n = buf.len().min(usize::try_from(left).ok()?);
            file.read_exact(&mut buf[..n]).ok()?;
            hasher.update(&buf[..n]);
            left -= n as u64;
        }
        let mut sum = [0u8; 16];
        file.read_exact(&mut sum).ok()?;
        if hasher.digest128().to_le_bytes() != sum {
            return None;
        }
        let mut fixed = [0u8; 8];
        file.seek(SeekFrom::Start(end)).ok()?;
        file.read_exact(&mut fixed).ok()?;
        let groups = u64::from_le_bytes(fixed);
        file.seek(SeekFrom::Start(0)).ok()?;
        let mut first = vec![0u8; usize::try_from(head).ok()?];
        file.read_exact(&mut first).ok()?;
        let mut r = Reader(first.strip_prefix(MAGIC)?);
        if r.u128()? != key {
            return None;
        }
        Some(RecordReader {
            file: BufReader::with_capacity(1 << 16, file),
            start: head,
            end,
            groups,
            read: 0,
            at: head,
        })
    }

    /// How many groups (file keys) the record holds.
    pub(super) fn groups(&self) -> u64 {
        self.groups
    }

    /// Back to the first group.
    pub(super) fn rewind(&mut self) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(self.start))?;
        (self.read, self.at) = (0, self.start);
        Ok(())
    }

    /// The next group, its file key and entries; `None` after the last. A group that
    /// runs past the groups' end, or groups ending elsewhere than the trailer, are an
    /// `InvalidData` error.
    pub(super) fn next_group(&mut self) -> io::Result<Option<(Key, Vec<Entry>)>> {
        let mut buf = Vec::new();
        match self.next_group_raw(&mut buf)? {
            Some(_) => decode_group(&buf).map(Some),
            None => Ok(None),
        }
    }

    /// The next group as its bytes in the record (appended to `buf`, cleared first),
    /// with its file key and how many entries it holds; `None` after the last. For a
    /// group copied to another record as it is ([`RecordWriter::raw_group`]) or
    /// decoded only when needed ([`decode_group`]).
    pub(super) fn next_group_raw(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<(Key, u32)>> {
        let malformed = || io::Error::new(io::ErrorKind::InvalidData, "a malformed unit record");
        buf.clear();
        if self.read == self.groups {
            return if self.at == self.end {
                Ok(None)
            } else {
                Err(malformed())
            };
        }
        let key: [u8; 16] = self.take()?;
        let count: [u8; 4] = self.take()?;
        buf.extend_from_slice(&key);
        buf.extend_from_slice(&count);
        let n = u32::from_le_bytes(count);
        for _ in 0..n {
            let len: [u8; 4] = self.take()?;
            buf.extend_from_slice(&len);
            let rest = u64::from(u32::from_le_bytes(len)) + 8 + 32;
            if self.at + rest > self.end {
                return Err(malformed());
            }
            let from = buf.len();
            buf.resize(from + rest as usize, 0);
            self.file.read_exact(&mut buf[from..])?;
            self.at += rest;
        }
        self.read += 1;
        Ok(Some((u128::from_le_bytes(key), n)))
    }

    /// The next `N` bytes of the groups.
    fn take<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        if self.at + N as u64 > self.end {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a malformed unit record",
            ));
        }
        let mut bytes = [0u8; N];
        self.file.read_exact(&mut bytes)?;
        self.at += N as u64;
        Ok(bytes)
    }
}

/// A group's bytes as [`RecordReader::next_group_raw`] gives them: its file key and
/// entries.
pub(super) fn decode_group(bytes: &[u8]) -> io::Result<(Key, Vec<Entry>)> {
    let malformed = || io::Error::new(io::ErrorKind::InvalidData, "a malformed unit record");
    let mut r = Reader(bytes);
    let key = r.u128().ok_or_else(malformed)?;
    let n = r.u32().ok_or_else(malformed)?;
    let mut entries = Vec::with_capacity((n as usize).min(1024));
    for _ in 0..n {
        let len = r.u32().ok_or_else(malformed)? as usize;
        let path = r.take(len).ok_or_else(malformed)?;
        let path = String::from_utf8(path.to_vec()).map_err(|_| malformed())?;
        let size = r.u64().ok_or_else(malformed)?;
        let sha256 = r.hash().ok_or_else(malformed)?;
        entries.push(Entry {
            path,
            size,
            sha256,
            fresh: false,
        });
    }
    match r.0.is_empty() {
        true => Ok((key, entries)),
        false => Err(malformed()),
    }
}

/// The key of the record of the generation `generation`'s loose files (those of no
/// unit: the fixed documents, the docs page, the dataset), which goes with its unit
/// keys ([`super::delta`]): named by the generation, so no other record has it.
pub(super) fn loose_key(generation: &str) -> Key {
    xxhash_rust::xxh3::xxh3_128(format!("roost loose files of {generation}").as_bytes())
}

/// Writes the record of a generation's loose files: `unkeyed` as one group (of
/// [`NO_KEY`]), then each of `keyed` as a group of its key.
pub(super) fn write_loose(
    dir: &Path,
    key: Key,
    unkeyed: Vec<Entry>,
    keyed: &[(Key, Vec<Entry>)],
) -> anyhow::Result<()> {
    let mut writer = RecordWriter::create(dir, key)?;
    writer.group(NO_KEY, &unkeyed)?;
    for (key, entries) in keyed {
        writer.group(*key, entries)?;
    }
    writer.finish()
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

/// A unit's record written group by group as its files are placed, aside (named for
/// this process, so [`collect_garbage`] knows a killed run's), then renamed into
/// place by [`RecordWriter::finish`]; one dropped unfinished is removed.
pub(super) struct RecordWriter {
    out: BufWriter<File>,
    hasher: Xxh3,
    temp: PathBuf,
    target: PathBuf,
    groups: u64,
    finished: bool,
}

impl RecordWriter {
    /// The record of the unit `key`, begun in `dir` (created when missing).
    pub(super) fn create(dir: &Path, key: Key) -> anyhow::Result<RecordWriter> {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let target = dir.join(file_name(key));
        let temp = crate::atomic::with_suffix(&target, &format!(".tmp-{}", std::process::id()));
        let file = File::create(&temp).with_context(|| format!("creating {}", temp.display()))?;
        let mut writer = RecordWriter {
            out: BufWriter::with_capacity(1 << 16, file),
            hasher: Xxh3::new(),
            temp,
            target,
            groups: 0,
            finished: false,
        };
        writer.put(MAGIC)?;
        writer.put(&key.to_le_bytes())?;
        Ok(writer)
    }

    fn put(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.hasher.update(bytes);
        self.out
            .write_all(bytes)
            .with_context(|| format!("writing {}", self.temp.display()))
    }

    /// Adds the group of the file key `key`: the entries of its files.
    pub(super) fn group(&mut self, key: Key, entries: &[Entry]) -> anyhow::Result<()> {
        self.put(&key.to_le_bytes())?;
        self.put(&u32::try_from(entries.len())?.to_le_bytes())?;
        for e in entries {
            self.put(&u32::try_from(e.path.len())?.to_le_bytes())?;
            self.put(e.path.as_bytes())?;
            self.put(&e.size.to_le_bytes())?;
            self.put(&e.sha256)?;
        }
        self.groups += 1;
        Ok(())
    }

    /// Adds a group as another record holds it ([`RecordReader::next_group_raw`]).
    pub(super) fn raw_group(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.put(bytes)?;
        self.groups += 1;
        Ok(())
    }

    /// The trailer written and the record renamed into place (not synced: see the
    /// module doc).
    pub(super) fn finish(mut self) -> anyhow::Result<()> {
        self.put(&self.groups.to_le_bytes())?;
        let sum = self.hasher.digest128().to_le_bytes();
        self.out
            .write_all(&sum)
            .and_then(|()| self.out.flush())
            .with_context(|| format!("writing {}", self.temp.display()))?;
        crate::crash::point("generate::unit_record");
        fs::rename(&self.temp, &self.target)
            .with_context(|| format!("renaming into {}", self.target.display()))?;
        self.finished = true;
        Ok(())
    }
}

impl Drop for RecordWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Writes the record of the unit `key` into `dir` (created when missing): written
/// aside, then renamed into place.
#[cfg(test)]
pub(super) fn write(dir: &Path, key: Key, record: &Record) -> anyhow::Result<()> {
    let mut writer = RecordWriter::create(dir, key)?;
    let mut at = 0usize;
    for &(file_key, n) in &record.groups {
        let group = record.entries.get(at..at + n as usize).ok_or_else(|| {
            anyhow::anyhow!("a unit record's groups cover more entries than it has")
        })?;
        writer.group(file_key, group)?;
        at += n as usize;
    }
    writer.finish()
}

/// Writes `bytes` as `name` into `dir` (created when missing): aside, then renamed
/// into place.
fn put(dir: &Path, name: &str, bytes: &[u8]) -> anyhow::Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let target = dir.join(name);
    let temp = crate::atomic::with_suffix(&target, &format!(".tmp-{}", std::process::id()));
    crate::atomic::replace_file(
        &temp,
        &target,
        |temp| {
            fs::write(temp, bytes).with_context(|| format!("writing {}", temp.display()))?;
            crate::crash::point("generate::unit_record");
            Ok(())
        },
        |e| anyhow::Error::new(e).context(format!("renaming into {}", target.display())),
    )
}

/// The checksum that closes a scope: XXH3-128 of the bytes before it.
fn checksum(body: &[u8]) -> [u8; 16] {
    xxhash_rust::xxh3::xxh3_128(body).to_le_bytes()
}

/// The body of a scope whose checksum is whole; `None` when it is torn.
fn checked(bytes: &[u8]) -> Option<&[u8]> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(16)?)?;
    (checksum(body) == sum).then_some(body)
}

const SCOPE_MAGIC: &[u8] = b"roost unit scope 3\n";
const SCOPE_SUFFIX: &str = ".scope";

fn scope_name(key: Key) -> String {
    format!("{key:032x}{SCOPE_SUFFIX}")
}

/// A page of a list unit's plan, in the order the unit's record holds its pages: its
/// filter group (by [`super::plan::group_id`]), its number and its ordering (0 for
/// the unit's own, else 1 + the field's index × 2 + 1 when descending).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PlannedPage {
    pub group: u64,
    pub page: u32,
    pub ordering: u16,
}

/// The rows a list unit read (its *scope*: ids in order, links, filter values) and
/// its pages as it planned them, beside its record, `<key>.scope`: a later run whose
/// unit differs only by rows of its own table whose scope values did not change takes
/// its partition from them instead of reading the scope again, and finds the pages
/// showing the changed rows in its plan ([`super::render`]). Like a record, a unit's
/// key determines its scope.
pub(super) fn write_scope(
    dir: &Path,
    key: Key,
    rows: &ScopeRows,
    plan: &[PlannedPage],
) -> anyhow::Result<()> {
    put(dir, &scope_name(key), &encode_scope(rows, plan)?)
}

/// The scope of the unit `key` and its pages read back; `None` when absent, torn or
/// malformed.
pub(super) fn read_scope(dir: &Path, key: Key) -> Option<(ScopeRows, Vec<PlannedPage>)> {
    decode_scope(&fs::read(dir.join(scope_name(key))).ok()?)
}

/// Gives the unit `to` the scope of the unit `from` (the same rows): a hard link, as
/// the bytes do not name their unit. False when it could not be placed.
pub(super) fn link_scope(dir: &Path, from: Key, to: Key) -> bool {
    if from == to {
        return true;
    }
    let target = dir.join(scope_name(to));
    let temp = crate::atomic::with_suffix(&target, &format!(".tmp-{}", std::process::id()));
    let _ = fs::remove_file(&temp);
    fs::hard_link(dir.join(scope_name(from)), &temp).is_ok() && fs::rename(&temp, &target).is_ok()
}

fn encode_scope(rows: &ScopeRows, plan: &[PlannedPage]) -> anyhow::Result<Vec<u8>> {
    let n = rows.ids.len();
    let links = rows.links.len().checked_div(n).unwrap_or(0);
    let params = rows.params.len();
    anyhow::ensure!(
        rows.links.len() == n * links && rows.keys.len() == n * params,
        "a scope's columns have unequal lengths"
    );
    let mut out = Vec::with_capacity(64 + n * (8 + 9 * links + 4 * params));
    out.extend_from_slice(SCOPE_MAGIC);
    for count in [n, links, params] {
        out.extend_from_slice(&(count as u64).to_le_bytes());
    }
    for (param, values) in rows.params.iter().zip(&rows.values) {
        out.extend_from_slice(&(*param as u64).to_le_bytes());
        out.extend_from_slice(&(values.len() as u64).to_le_bytes());
        for v in values {
            out.extend_from_slice(&u32::try_from(v.len())?.to_le_bytes());
            out.extend_from_slice(v.as_bytes());
        }
    }
    for id in &rows.ids {
        out.extend_from_slice(&id.to_le_bytes());
    }
    for link in &rows.links {
        out.push(u8::from(link.is_some()));
        out.extend_from_slice(&link.unwrap_or(0).to_le_bytes());
    }
    for key in &rows.keys {
        out.extend_from_slice(&key.to_le_bytes());
    }
    out.extend_from_slice(&(plan.len() as u64).to_le_bytes());
    for p in plan {
        out.extend_from_slice(&p.group.to_le_bytes());
        out.extend_from_slice(&p.page.to_le_bytes());
        out.extend_from_slice(&p.ordering.to_le_bytes());
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum);
    Ok(out)
}

fn decode_scope(bytes: &[u8]) -> Option<(ScopeRows, Vec<PlannedPage>)> {
    let body = checked(bytes)?;
    let mut r = Reader(body.strip_prefix(SCOPE_MAGIC)?);
    let mut count = || usize::try_from(r.u64()?).ok();
    let (n, links, params) = (count()?, count()?, count()?);
    let mut rows = ScopeRows::default();
    for _ in 0..params {
        rows.params.push(usize::try_from(r.u64()?).ok()?);
        let len = usize::try_from(r.u64()?).ok()?;
        let mut values = Vec::with_capacity(len.min(r.0.len() / 4));
        for _ in 0..len {
            let size = r.u32()? as usize;
            values.push(std::str::from_utf8(r.take(size)?).ok()?.to_string());
        }
        rows.values.push(values);
    }
    let ids = r.take(n.checked_mul(8)?)?;
    rows.ids = ids
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    let linked = r.take(n.checked_mul(links)?.checked_mul(9)?)?;
    rows.links = linked
        .chunks_exact(9)
        .map(|c| (c[0] != 0).then(|| i64::from_le_bytes(c[1..].try_into().unwrap_or([0; 8]))))
        .collect();
    let keys = r.take(n.checked_mul(params)?.checked_mul(4)?)?;
    rows.keys = keys
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
        .collect();
    let pages = usize::try_from(r.u64()?).ok()?;
    let planned = r.take(pages.checked_mul(14)?)?;
    let plan = planned
        .chunks_exact(14)
        .map(|c| PlannedPage {
            group: u64::from_le_bytes(c[..8].try_into().unwrap_or([0; 8])),
            page: u32::from_le_bytes(c[8..12].try_into().unwrap_or([0; 4])),
            ordering: u16::from_le_bytes(c[12..].try_into().unwrap_or([0; 2])),
        })
        .collect();
    r.0.is_empty().then_some((rows, plan))
}

/// Removes from `dir` the records (and scopes) whose key `in_use` rejects, and the temporary files
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
            None => {
                let key = name.strip_suffix(SCOPE_SUFFIX).unwrap_or(&name);
                u128::from_str_radix(key, 16)
                    .ok()
                    .filter(|_| key.len() == 32)
                    .is_none_or(|key| !in_use(key))
            }
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
    use sha2::{Digest, Sha256};

    fn sample() -> Record {
        let entry = |path: &str, size| Entry {
            path: path.to_string(),
            size,
            sha256: Sha256::digest(path.as_bytes()).into(),
            fresh: false,
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
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), 42, &sample()).unwrap();
        assert_eq!(read(dir.path(), 42), Some(sample()));
        let path = dir.path().join(file_name(42));
        let bytes = fs::read(&path).unwrap();
        let other = dir.path().join(file_name(43));
        fs::write(&other, &bytes).unwrap();
        assert_eq!(read(dir.path(), 43), None, "another unit's key");
        for cut in [0, 1, MAGIC.len(), bytes.len() / 2, bytes.len() - 1] {
            fs::write(&path, &bytes[..cut]).unwrap();
            assert_eq!(read(dir.path(), 42), None, "torn at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[MAGIC.len() + 20] ^= 1;
        fs::write(&path, &flipped).unwrap();
        assert_eq!(read(dir.path(), 42), None, "a flipped bit");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 2, "no file left aside");
    }

    #[test]
    fn a_record_is_read_group_by_group_again_after_a_rewind() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = RecordWriter::create(dir.path(), 5).unwrap();
        let record = sample();
        writer.group(7, &record.entries[..2]).unwrap();
        writer.group(9, &record.entries[2..]).unwrap();
        writer.group(11, &[]).unwrap();
        writer.finish().unwrap();
        let mut reader = RecordReader::open(dir.path(), 5).unwrap();
        assert_eq!(reader.groups(), 3);
        for _ in 0..2 {
            let (key, entries) = reader.next_group().unwrap().unwrap();
            assert_eq!((key, entries.as_slice()), (7, &record.entries[..2]));
            let (key, entries) = reader.next_group().unwrap().unwrap();
            assert_eq!((key, entries.as_slice()), (9, &record.entries[2..]));
            assert_eq!(reader.next_group().unwrap(), Some((11, Vec::new())));
            assert_eq!(reader.next_group().unwrap(), None);
            reader.rewind().unwrap();
        }
        // Read as bytes, the groups decode to the same and copy into another record
        // that reads back the same.
        reader.rewind().unwrap();
        let mut copy = RecordWriter::create(dir.path(), 8).unwrap();
        let mut buf = Vec::new();
        let mut raw = Vec::new();
        while let Some((key, n)) = reader.next_group_raw(&mut buf).unwrap() {
            let (decoded_key, entries) = decode_group(&buf).unwrap();
            assert_eq!((decoded_key, entries.len() as u32), (key, n));
            raw.push((key, entries));
            copy.raw_group(&buf).unwrap();
        }
        assert!(decode_group(&buf).is_err(), "no group after the last");
        copy.finish().unwrap();
        let mut again = RecordReader::open(dir.path(), 8).unwrap();
        for (key, entries) in raw {
            assert_eq!(again.next_group().unwrap(), Some((key, entries)));
        }
        assert_eq!(again.next_group().unwrap(), None);
        fs::remove_file(dir.path().join(file_name(8))).unwrap();
        // A writer dropped unfinished leaves nothing, and not the unit's record.
        let unfinished = RecordWriter::create(dir.path(), 6).unwrap();
        drop(unfinished);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
        assert!(RecordReader::open(dir.path(), 6).is_none());
    }

    #[test]
    fn garbage_collection_keeps_the_records_in_use() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), 1, &sample()).unwrap();
        write(dir.path(), 2, &sample()).unwrap();
        write_scope(dir.path(), 1, &scope(), &plan()).unwrap();
        write_scope(dir.path(), 2, &scope(), &plan()).unwrap();
        fs::write(dir.path().join("stray"), b"x").unwrap();
        collect_garbage(dir.path(), |k| k == 2);
        assert_eq!(read(dir.path(), 1), None);
        assert_eq!(read(dir.path(), 2), Some(sample()));
        assert!(read_scope(dir.path(), 1).is_none());
        assert!(read_scope(dir.path(), 2).is_some());
        assert!(!dir.path().join("stray").exists());
    }

    fn plan() -> Vec<PlannedPage> {
        vec![
            PlannedPage {
                group: 3,
                page: 1,
                ordering: 0,
            },
            PlannedPage {
                group: u64::MAX,
                page: 2,
                ordering: 5,
            },
        ]
    }

    fn scope() -> ScopeRows {
        ScopeRows {
            ids: vec![5, 3, 9],
            links: vec![Some(1), None, Some(2), Some(7), Some(1), Some(-4)],
            keys: vec![0, 1, 1, 0, 0, 0],
            values: vec![vec!["open".into(), "closed".into()], vec!["é".into()]],
            params: vec![2, 4],
        }
    }

    fn same_scope(a: &ScopeRows, b: &ScopeRows) -> bool {
        (&a.ids, &a.links, &a.keys, &a.values, &a.params)
            == (&b.ids, &b.links, &b.keys, &b.values, &b.params)
    }

    #[test]
    fn a_scope_reads_back_only_whole_and_links_to_another_unit() {
        let bytes = encode_scope(&scope(), &plan()).unwrap();
        let (rows, planned) = decode_scope(&bytes).unwrap();
        assert!(same_scope(&rows, &scope()));
        assert_eq!(planned, plan());
        for cut in [0, 1, SCOPE_MAGIC.len(), bytes.len() / 2, bytes.len() - 1] {
            assert!(decode_scope(&bytes[..cut]).is_none(), "torn at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[SCOPE_MAGIC.len() + 30] ^= 1;
        assert!(decode_scope(&flipped).is_none(), "a flipped bit");
        let empty = ScopeRows {
            values: vec![vec![]],
            params: vec![0],
            ..ScopeRows::default()
        };
        let (back, no_plan) = decode_scope(&encode_scope(&empty, &[]).unwrap()).unwrap();
        assert!(same_scope(&back, &empty) && no_plan.is_empty());
        let dir = tempfile::tempdir().unwrap();
        write_scope(dir.path(), 1, &scope(), &plan()).unwrap();
        assert!(link_scope(dir.path(), 1, 2));
        let (linked, planned) = read_scope(dir.path(), 2).unwrap();
        assert!(same_scope(&linked, &scope()) && planned == plan());
        assert!(!link_scope(dir.path(), 3, 4), "no scope to link");
    }
}
