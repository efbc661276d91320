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
//! generation names are removed after each swap, but the bases of the patches kept.
//!
//! A record is whole (its groups, then an index of their blocks: a few groups are read
//! by their index without reading the rest, [`Patched::group_at`]) or a patch of a
//! whole one: a unit kept in part writes only the groups it replaced ([`patch`]).

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use xxhash_rust::xxh3::Xxh3;

use crate::catalog::ScopeRows;

use super::entry::Entry;
use super::keys::Key;

mod patch;
pub(super) use patch::{patch_fits, PatchWriter, Patched};

const MAGIC: &[u8] = b"roost unit record 4\n";

/// The head of every record: the magic line, the unit's key, and the key of the
/// record it patches (0 for a whole record, [`patch`]).
const HEAD: usize = MAGIC.len() + 32;

/// Groups per block of a whole record's index: a group is found by reading its block
/// alone ([`WholeReader::group_at`]). A debug build (the test suite's) makes small
/// blocks, so the small records of the tests span several.
const BLOCK: u64 = if cfg!(debug_assertions) { 4 } else { 64 };

/// The bytes of a whole record past its index: how many groups, entries and blocks
/// it holds (8 bytes each), the checksum of its head, index and those counts, and the
/// checksum of every byte before it (XXH3-128 both).
const TRAILER: u64 = 24 + 16 + 16;

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

fn malformed() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "a malformed unit record")
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

/// The head of the record of the unit `key` in `dir`: the key of the record it
/// patches, 0 for a whole record; `None` when it is absent or names another unit.
fn read_head(dir: &Path, key: Key) -> Option<(File, Key)> {
    let mut file = File::open(dir.join(file_name(key))).ok()?;
    let mut head = [0u8; HEAD];
    file.read_exact(&mut head).ok()?;
    let mut r = Reader(head.strip_prefix(MAGIC)?);
    (r.u128()? == key).then_some(())?;
    Some((file, r.u128()?))
}

/// A whole record (base 0): the head, then each group (its file key, how many
/// entries, the entries: path length, path, size, SHA-256), then the index (per
/// [`BLOCK`] groups, where the block starts and the XXH3-64 of its bytes), then the
/// trailer ([`TRAILER`]). Little-endian throughout.
///
/// Opened whole ([`WholeReader::open`], every byte's checksum checked, for reading
/// group by group) or by its index ([`WholeReader::open_indexed`], the head, index
/// and trailer checked, each block when it is read, for a few groups by their
/// index).
struct WholeReader {
    file: BufReader<File>,
    /// Where the groups end (the index starts).
    end: u64,
    groups: u64,
    entries: u64,
    /// Read whole: groups read since the last rewind, and where the next starts.
    read: u64,
    at: u64,
    /// Read by its index: each block's start and checksum.
    index: Vec<(u64, u64)>,
}

impl WholeReader {
    /// Checked whole: the checksum of every byte, read once, a buffer at a time.
    fn open(dir: &Path, key: Key) -> Option<WholeReader> {
        let (mut file, base) = read_head(dir, key)?;
        if base != 0 {
            return None;
        }
        let len = file.metadata().ok()?.len();
        file.seek(SeekFrom::Start(0)).ok()?;
        let mut hasher = Xxh3::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut left = len.checked_sub(16)?;
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
        let (groups, entries, blocks) = Self::counts(&mut file, len)?;
        let end = (len - TRAILER).checked_sub(blocks.checked_mul(16)?)?;
        file.seek(SeekFrom::Start(HEAD as u64)).ok()?;
        Some(WholeReader {
            file: BufReader::with_capacity(1 << 16, file),
            end: end.checked_sub(HEAD as u64).map(|_| end)?,
            groups,
            entries,
            read: 0,
            at: HEAD as u64,
            index: Vec::new(),
        })
    }

    /// Checked by its index: the head, index and counts against their own checksum;
    /// a block's bytes against the index when it is read.
    fn open_indexed(dir: &Path, key: Key) -> Option<WholeReader> {
        let (mut file, base) = read_head(dir, key)?;
        if base != 0 {
            return None;
        }
        let len = file.metadata().ok()?.len();
        let (groups, entries, blocks) = Self::counts(&mut file, len)?;
        if blocks != groups.div_ceil(BLOCK) {
            return None;
        }
        let end = (len - TRAILER).checked_sub(blocks.checked_mul(16)?)?;
        let mut checked = Xxh3::new();
        let mut head = [0u8; HEAD];
        file.seek(SeekFrom::Start(0)).ok()?;
        file.read_exact(&mut head).ok()?;
        checked.update(&head);
        let mut index = vec![0u8; usize::try_from(len - end - 16).ok()?];
        file.seek(SeekFrom::Start(end)).ok()?;
        file.read_exact(&mut index).ok()?;
        let (index, sum) = index.split_at(index.len() - 16);
        checked.update(index);
        if checked.digest128().to_le_bytes()[..] != *sum {
            return None;
        }
        let index: Vec<(u64, u64)> = index[..index.len() - 24]
            .chunks_exact(16)
            .map(|c| {
                let mut r = Reader(c);
                (r.u64().unwrap_or(0), r.u64().unwrap_or(0))
            })
            .collect();
        let ordered = index.windows(2).all(|w| w[0].0 < w[1].0);
        let within = index.first().is_none_or(|b| b.0 == HEAD as u64)
            && index.last().is_none_or(|b| b.0 < end);
        (ordered && within).then_some(WholeReader {
            file: BufReader::with_capacity(1 << 16, file),
            end,
            groups,
            entries,
            read: 0,
            at: HEAD as u64,
            index,
        })
    }

    /// The counts of the trailer of a record `len` bytes long: groups, entries and
    /// blocks.
    fn counts(file: &mut File, len: u64) -> Option<(u64, u64, u64)> {
        let at = len.checked_sub(TRAILER).filter(|&at| at >= HEAD as u64)?;
        let mut fixed = [0u8; 24];
        file.seek(SeekFrom::Start(at)).ok()?;
        file.read_exact(&mut fixed).ok()?;
        let mut r = Reader(&fixed);
        Some((r.u64()?, r.u64()?, r.u64()?))
    }

    fn rewind(&mut self) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(HEAD as u64))?;
        (self.read, self.at) = (0, HEAD as u64);
        Ok(())
    }

    /// The next group as its bytes (appended to `buf`, cleared first), with its file
    /// key and how many entries it holds; `None` after the last. A group that runs
    /// past the groups' end, or groups ending elsewhere than the index, are an
    /// `InvalidData` error.
    fn next_group_raw(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<(Key, u32)>> {
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
            return Err(malformed());
        }
        let mut bytes = [0u8; N];
        self.file.read_exact(&mut bytes)?;
        self.at += N as u64;
        Ok(bytes)
    }

    /// The bytes of group `i`, read from its block (checked against the index) in a
    /// record opened by its index; `None` when it has no such group or the block is
    /// torn.
    fn group_at(&mut self, i: u64) -> Option<Vec<u8>> {
        if i >= self.groups {
            return None;
        }
        let b = usize::try_from(i / BLOCK).ok()?;
        let (start, sum) = *self.index.get(b)?;
        let end = self.index.get(b + 1).map_or(self.end, |next| next.0);
        let mut block = vec![0u8; usize::try_from(end.checked_sub(start)?).ok()?];
        self.file.seek(SeekFrom::Start(start)).ok()?;
        self.file.read_exact(&mut block).ok()?;
        if xxhash_rust::xxh3::xxh3_64(&block) != sum {
            return None;
        }
        let mut rest = &block[..];
        for _ in 0..i % BLOCK {
            rest = rest.get(group_len(rest)?..)?;
        }
        Some(rest.get(..group_len(rest)?)?.to_vec())
    }
}

/// The length of the group at the front of `bytes` (as a record holds it).
fn group_len(bytes: &[u8]) -> Option<usize> {
    let mut r = Reader(bytes);
    r.take(16)?;
    let n = r.u32()?;
    for _ in 0..n {
        let len = r.u32()? as usize;
        r.take(len.checked_add(40)?)?;
    }
    Some(bytes.len() - r.0.len())
}

/// A unit's record read group by group, in the order they were written, its
/// checksums found whole when it was opened: a unit's entries are never all in
/// memory at once. A record that patches another ([`patch`]) is read as the groups of
/// its base with its own in their places.
pub(super) struct RecordReader {
    base: WholeReader,
    patch: Option<patch::Patch>,
    /// Of a patched record: the patch's next group, the groups read since the last
    /// rewind.
    next: usize,
    read: u64,
    skipped: Vec<u8>,
}

impl RecordReader {
    /// The record of the unit `key` in `dir`, every checksum of it (and of the record
    /// it patches) checked over the whole file (read once, a buffer at a time); `None`
    /// when it is absent, unreadable, torn or describes another unit.
    pub(super) fn open(dir: &Path, key: Key) -> Option<RecordReader> {
        let (_, base) = read_head(dir, key)?;
        let (base, patch) = match base {
            0 => (WholeReader::open(dir, key)?, None),
            base => {
                let patch = patch::Patch::read(dir, key)?;
                let whole = WholeReader::open(dir, base)?;
                patch.fits(&whole).then_some((whole, Some(patch)))?
            }
        };
        Some(RecordReader {
            base,
            patch,
            next: 0,
            read: 0,
            skipped: Vec::new(),
        })
    }

    /// How many groups (file keys) the record holds.
    pub(super) fn groups(&self) -> u64 {
        self.patch.as_ref().map_or(self.base.groups, |p| p.groups)
    }

    /// Back to the first group.
    pub(super) fn rewind(&mut self) -> io::Result<()> {
        (self.next, self.read) = (0, 0);
        self.base.rewind()
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
        let Some(patch) = &self.patch else {
            return self.base.next_group_raw(buf);
        };
        if self.read == patch.groups {
            return self.base.next_group_raw(buf);
        }
        let group = match patch.items.get(self.next) {
            Some((i, bytes)) if *i == self.read => {
                self.next += 1;
                if self.read < self.base.groups {
                    self.base.next_group_raw(&mut self.skipped)?;
                }
                buf.clear();
                buf.extend_from_slice(bytes);
                patch::key_and_count(bytes).ok_or_else(malformed)?
            }
            _ => self.base.next_group_raw(buf)?.ok_or_else(malformed)?,
        };
        self.read += 1;
        Ok(Some(group))
    }
}

/// A group's bytes as [`RecordReader::next_group_raw`] gives them: its file key and
/// entries.
pub(super) fn decode_group(bytes: &[u8]) -> io::Result<(Key, Vec<Entry>)> {
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

/// A group as a record holds it, appended to `out`: its file key, how many entries,
/// each entry.
fn encode_group(out: &mut Vec<u8>, key: Key, entries: &[Entry]) -> anyhow::Result<()> {
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&u32::try_from(entries.len())?.to_le_bytes());
    for e in entries {
        out.extend_from_slice(&u32::try_from(e.path.len())?.to_le_bytes());
        out.extend_from_slice(e.path.as_bytes());
        out.extend_from_slice(&e.size.to_le_bytes());
        out.extend_from_slice(&e.sha256);
    }
    Ok(())
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

/// A unit's whole record written group by group as its files are placed, aside
/// (named for this process, so [`collect_garbage`] knows a killed run's), then
/// renamed into place by [`RecordWriter::finish`]; one dropped unfinished is removed.
pub(super) struct RecordWriter {
    out: BufWriter<File>,
    hasher: Xxh3,
    head: Vec<u8>,
    temp: PathBuf,
    target: PathBuf,
    groups: u64,
    entries: u64,
    /// Bytes written so far; the current block's start and checksum; the blocks done.
    at: u64,
    block: (u64, Xxh3),
    index: Vec<(u64, u64)>,
    scratch: Vec<u8>,
    finished: bool,
}

impl RecordWriter {
    /// The record of the unit `key`, begun in `dir` (created when missing).
    pub(super) fn create(dir: &Path, key: Key) -> anyhow::Result<RecordWriter> {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let target = dir.join(file_name(key));
        let temp = crate::atomic::with_suffix(&target, &format!(".tmp-{}", std::process::id()));
        let file = File::create(&temp).with_context(|| format!("creating {}", temp.display()))?;
        let mut head = MAGIC.to_vec();
        head.extend_from_slice(&key.to_le_bytes());
        head.extend_from_slice(&NO_KEY.to_le_bytes());
        let mut writer = RecordWriter {
            out: BufWriter::with_capacity(1 << 16, file),
            hasher: Xxh3::new(),
            head: head.clone(),
            temp,
            target,
            groups: 0,
            entries: 0,
            at: 0,
            block: (0, Xxh3::new()),
            index: Vec::new(),
            scratch: Vec::new(),
            finished: false,
        };
        writer.put(&head)?;
        Ok(writer)
    }

    fn put(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.hasher.update(bytes);
        self.at += bytes.len() as u64;
        self.out
            .write_all(bytes)
            .with_context(|| format!("writing {}", self.temp.display()))
    }

    /// A group's bytes added, in the block it begins or continues.
    fn put_group(&mut self, bytes: &[u8], entries: u32) -> anyhow::Result<()> {
        if self.groups.is_multiple_of(BLOCK) {
            self.end_block();
            self.block = (self.at, Xxh3::new());
        }
        self.block.1.update(bytes);
        self.put(bytes)?;
        self.groups += 1;
        self.entries += u64::from(entries);
        Ok(())
    }

    /// The block begun last, when it holds a group, added to the index.
    fn end_block(&mut self) {
        if self.groups > 0 && self.index.len() as u64 == (self.groups - 1) / BLOCK {
            self.index.push((self.block.0, self.block.1.digest()));
        }
    }

    /// Adds the group of the file key `key`: the entries of its files.
    pub(super) fn group(&mut self, key: Key, entries: &[Entry]) -> anyhow::Result<()> {
        let mut bytes = std::mem::take(&mut self.scratch);
        bytes.clear();
        encode_group(&mut bytes, key, entries)?;
        let done = self.put_group(&bytes, u32::try_from(entries.len())?);
        self.scratch = bytes;
        done
    }

    /// Adds a group as another record holds it ([`RecordReader::next_group_raw`]).
    pub(super) fn raw_group(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        let (_, n) = patch::key_and_count(bytes)
            .ok_or_else(|| anyhow::anyhow!("a malformed unit record group"))?;
        self.put_group(bytes, n)
    }

    /// The index and trailer written and the record renamed into place (not synced:
    /// see the module doc).
    pub(super) fn finish(mut self) -> anyhow::Result<()> {
        self.end_block();
        let mut tail = Vec::with_capacity(self.index.len() * 16 + 40);
        for (start, sum) in &self.index {
            tail.extend_from_slice(&start.to_le_bytes());
            tail.extend_from_slice(&sum.to_le_bytes());
        }
        for count in [self.groups, self.entries, self.index.len() as u64] {
            tail.extend_from_slice(&count.to_le_bytes());
        }
        let mut checked = Xxh3::new();
        checked.update(&self.head);
        checked.update(&tail);
        tail.extend_from_slice(&checked.digest128().to_le_bytes());
        self.put(&tail)?;
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

/// Removes from `dir` the records (and scopes) whose key `in_use` rejects, but the
/// bases of the patches kept ([`patch`]), the bases of file keys not among `key_bases`
/// ([`super::keys`]), and the temporary files of processes that no longer exist.
/// Best effort.
pub(super) fn collect_garbage(dir: &Path, key_bases: &[String], in_use: impl Fn(Key) -> bool) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut stale = Vec::new();
    let mut bases = std::collections::HashSet::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        match name.split_once(".tmp-") {
            Some((_, pid)) => {
                if pid
                    .parse::<u32>()
                    .is_ok_and(|pid| !crate::atomic::process_is_alive(pid))
                {
                    stale.push((entry.path(), None));
                }
            }
            None if name.ends_with(super::keys::BASE_SUFFIX) => {
                if is_stray_base(&name, key_bases) {
                    stale.push((entry.path(), None));
                }
            }
            None => {
                let (key, scope) = match name.strip_suffix(SCOPE_SUFFIX) {
                    Some(key) => (key, true),
                    None => (&*name, false),
                };
                match u128::from_str_radix(key, 16)
                    .ok()
                    .filter(|_| key.len() == 32)
                {
                    Some(key) if in_use(key) => {
                        if !scope {
                            bases.extend(patch::base_of(dir, key));
                        }
                    }
                    // A record is kept if a patch in use is made over it.
                    Some(key) if !scope => stale.push((entry.path(), Some(key))),
                    _ => stale.push((entry.path(), None)),
                }
            }
        }
    }
    for (path, key) in stale {
        if key.is_none_or(|key| !bases.contains(&key)) {
            let _ = fs::remove_file(path);
        }
    }
}

/// Removes from `dir` the bases of file keys no keys file names (`key_bases`), which
/// a run killed between writing a base and its keys file left; at the start of a run,
/// as a run that keeps the live generation collects no records.
pub(super) fn remove_stray_bases(dir: &Path, key_bases: &[String]) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if is_stray_base(&name, key_bases) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Whether the file `name` is a base of file keys ([`super::keys`]) that no keys file
/// names (`key_bases`).
fn is_stray_base(name: &str, key_bases: &[String]) -> bool {
    name.ends_with(super::keys::BASE_SUFFIX) && !key_bases.iter().any(|b| b == name)
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
        collect_garbage(dir.path(), &[], |k| k == 2);
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

    /// A group of one file at `path`, its size `n`.
    fn one(path: &str, n: u64) -> Vec<Entry> {
        vec![Entry {
            path: path.to_string(),
            size: n,
            sha256: Sha256::digest(path.as_bytes()).into(),
            fresh: false,
        }]
    }

    /// A whole record of `n` groups (group `i`: key `i + 1`, one file), written as
    /// the unit `key`.
    fn numbered(dir: &Path, key: Key, n: u64) -> Vec<(Key, Vec<Entry>)> {
        let mut writer = RecordWriter::create(dir, key).unwrap();
        let groups: Vec<(Key, Vec<Entry>)> = (0..n)
            .map(|i| (Key::from(i + 1), one(&format!("api/v0/issues/{i}.json"), i)))
            .collect();
        for (key, entries) in &groups {
            writer.group(*key, entries).unwrap();
        }
        writer.finish().unwrap();
        groups
    }

    fn all(dir: &Path, key: Key) -> Option<Vec<(Key, Vec<Entry>)>> {
        let mut reader = RecordReader::open(dir, key)?;
        let mut groups = Vec::new();
        while let Some(group) = reader.next_group().ok()? {
            groups.push(group);
        }
        (groups.len() as u64 == reader.groups()).then_some(groups)
    }

    #[test]
    fn a_whole_record_gives_any_group_by_its_index_and_tells_a_torn_block() {
        let dir = tempfile::tempdir().unwrap();
        let groups = numbered(dir.path(), 9, 200);
        let mut record = Patched::open(dir.path(), 9).unwrap();
        assert_eq!((record.groups, record.entries), (200, 200));
        assert!(record.items().is_empty() && record.made_from().next().is_none());
        for i in [0, 1, 63, 64, 65, 127, 128, 199] {
            let bytes = record.group_at(i).unwrap();
            assert_eq!(
                decode_group(&bytes).unwrap(),
                groups[i as usize],
                "group {i}"
            );
        }
        assert!(record.group_at(200).is_none(), "past the last");
        // A flipped byte in group 70's block: its groups are refused, the others read,
        // and the record is refused whole.
        let path = dir.path().join(file_name(9));
        let mut bytes = fs::read(&path).unwrap();
        let in_second = {
            let whole = WholeReader::open_indexed(dir.path(), 9).unwrap();
            whole.index[(70 / BLOCK) as usize].0 as usize + 30
        };
        bytes[in_second] ^= 1;
        fs::write(&path, &bytes).unwrap();
        let mut record = Patched::open(dir.path(), 9).unwrap();
        assert!(record.group_at(70).is_none(), "a torn block");
        assert_eq!(
            decode_group(&record.group_at(10).unwrap()).unwrap(),
            groups[10]
        );
        assert!(RecordReader::open(dir.path(), 9).is_none());
        // A flipped byte in the index: the record is not opened by it.
        let mut bytes = fs::read(&path).unwrap();
        bytes[in_second] ^= 1;
        let len = bytes.len();
        bytes[len - TRAILER as usize - 10] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert!(Patched::open(dir.path(), 9).is_none());
    }

    #[test]
    fn a_patch_reads_as_its_base_with_its_groups_in_their_places() {
        let dir = tempfile::tempdir().unwrap();
        let mut expected = numbered(dir.path(), 9, 150);
        let base = Patched::open(dir.path(), 9).unwrap();
        // The unit 10 made from 9: two groups replaced, one added.
        let mut patch = PatchWriter::new(dir.path(), 10, &base);
        for (i, key) in [(5u64, 1005), (130, 1130), (150, 1150)] {
            let entries = [one(&format!("new/{i}.json"), 1), one("new/x.json.gz", 2)].concat();
            let old = expected.get(i as usize).map_or(0, |(_, e)| e.len() as u32);
            patch.set(i, key, &entries, old).unwrap();
            match expected.get_mut(i as usize) {
                Some(group) => *group = (key, entries),
                None => expected.push((key, entries)),
            }
        }
        assert!(patch.set(152, 1, &[], 0).is_err(), "a group past the end");
        patch.finish().unwrap();
        assert_eq!(all(dir.path(), 10).unwrap(), expected);
        let mut record = Patched::open(dir.path(), 10).unwrap();
        assert_eq!((record.groups, record.entries), (151, 154));
        assert_eq!(record.made_from().collect::<Vec<_>>(), vec![9]);
        let at: Vec<u64> = record.items().iter().map(|(i, _)| *i).collect();
        assert_eq!(at, vec![5, 130, 150]);
        for i in [0, 5, 64, 130, 149, 150] {
            assert_eq!(
                decode_group(&record.group_at(i).unwrap()).unwrap(),
                expected[i as usize]
            );
        }
        // The unit 11 made from 10: over the same base, 10's groups with its own,
        // and 10 among the units it was made from.
        let mut again = PatchWriter::new(dir.path(), 11, &record);
        again.set(7, 1007, &one("new/7.json", 3), 1).unwrap();
        expected[7] = (1007, one("new/7.json", 3));
        again.finish().unwrap();
        assert_eq!(all(dir.path(), 11).unwrap(), expected);
        let record = Patched::open(dir.path(), 11).unwrap();
        assert_eq!(record.base, 9);
        assert_eq!(record.made_from().collect::<Vec<_>>(), vec![9, 10]);
        assert_eq!(record.items().len(), 4);
        // A torn patch, or one whose base is gone, is not read.
        let path = dir.path().join(file_name(11));
        let bytes = fs::read(&path).unwrap();
        for cut in [HEAD, bytes.len() / 2, bytes.len() - 1] {
            fs::write(&path, &bytes[..cut]).unwrap();
            assert!(Patched::open(dir.path(), 11).is_none(), "torn at {cut}");
            assert!(all(dir.path(), 11).is_none(), "torn at {cut}");
        }
        fs::remove_file(dir.path().join(file_name(9))).unwrap();
        assert!(Patched::open(dir.path(), 10).is_none() && all(dir.path(), 10).is_none());
    }

    #[test]
    fn garbage_collection_keeps_the_base_of_a_patch_in_use() {
        let dir = tempfile::tempdir().unwrap();
        numbered(dir.path(), 1, 10);
        numbered(dir.path(), 3, 10);
        let base = Patched::open(dir.path(), 1).unwrap();
        let mut patch = PatchWriter::new(dir.path(), 2, &base);
        patch.set(0, 100, &one("a.json", 1), 1).unwrap();
        patch.finish().unwrap();
        collect_garbage(dir.path(), &[], |k| k == 2);
        assert!(all(dir.path(), 2).is_some(), "the patch and its base kept");
        assert!(!dir.path().join(file_name(3)).exists());
        collect_garbage(dir.path(), &[], |k| k == 4);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
