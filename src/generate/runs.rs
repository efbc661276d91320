//! The entries of a new generation (one per file of the tree: about 12 million at
//! `10x`) carried from the units to the manifest in bounded memory, sorted by path.
//!
//! Each worker gathers the entries of the units it renders in a [`Sink`] until a
//! budget of bytes, then sorts them and writes them as a *run*: front-coded (each path
//! as the bytes it shares with the one before and the rest), in blocks of
//! [`BLOCK`] entries that each start a path whole, to an unnamed temporary file
//! beside the tree (as [`super::sorted`]'s runs: a run killed at any instant leaves
//! nothing behind). The runs together are [`Sorted`]: read back as one stream in path
//! order, merged as they are read ([`Sorted::stream`]), from the start or from any
//! path (each run keeps the first path of each of its blocks), as many times as a
//! run needs. So the memory a run holds for its entries follows the budget and the
//! number of runs, not the tree; what the entries take on disk is about 60 bytes each
//! (a SHA-256 is 32 of them).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

use super::entry::Entry;

/// Bytes of entries a sink holds (paths, and what each entry costs beside its path)
/// before it writes them as a run.
pub(super) const BUDGET: usize = 32 << 20;

/// What a held entry costs beyond its path's bytes: the entry itself and the
/// allocator's rounding of its path.
const EACH: usize = std::mem::size_of::<Entry>() + 16;

/// Entries a block of a run holds; each block starts with a whole path.
const BLOCK: usize = 128;

/// Where a run's bytes are: written to a file, or held encoded (the last entries a
/// sink gathered, the few written after the units).
enum Bytes {
    File(File),
    Held(Vec<u8>),
}

/// One run: entries sorted by path, encoded in blocks.
struct Run {
    bytes: Bytes,
    /// Each block's first path and where the block starts.
    blocks: Vec<(String, u64)>,
    /// Where the last block ends.
    end: u64,
    /// How many entries it holds, and how many of them are fresh.
    len: u64,
    fresh: u64,
}

impl Run {
    /// The bytes of block `b`.
    fn block(&self, b: usize, buf: &mut Vec<u8>) -> anyhow::Result<()> {
        let start = self.blocks[b].1;
        let end = self.blocks.get(b + 1).map_or(self.end, |next| next.1);
        let len = usize::try_from(end - start)?;
        buf.clear();
        match &self.bytes {
            Bytes::Held(bytes) => buf.extend_from_slice(&bytes[start as usize..end as usize]),
            Bytes::File(file) => {
                buf.resize(len, 0);
                file.read_exact_at(buf, start)
                    .context("reading the entries of a run back")?;
            }
        }
        Ok(())
    }

    /// The block holding the first path at or after `path`, if any may.
    fn block_from(&self, path: &str) -> usize {
        self.blocks
            .partition_point(|(first, _)| first.as_str() <= path)
            .saturating_sub(1)
    }
}

/// Entries sorted by path and encoded as a run into `out`; the run's blocks.
fn encode(bytes: Bytes, entries: &[Entry], out: &mut impl std::io::Write) -> anyhow::Result<Run> {
    let mut blocks = Vec::with_capacity(entries.len().div_ceil(BLOCK));
    let mut at = 0u64;
    let mut buf = Vec::with_capacity(256);
    for (i, e) in entries.iter().enumerate() {
        let shared = if i % BLOCK == 0 {
            blocks.push((e.path.clone(), at));
            0
        } else {
            shared_prefix(&entries[i - 1].path, &e.path)
        };
        buf.clear();
        let rest = &e.path.as_bytes()[shared..];
        put_varint(&mut buf, shared as u64);
        put_varint(&mut buf, rest.len() as u64);
        buf.extend_from_slice(rest);
        put_varint(&mut buf, e.size);
        buf.extend_from_slice(&e.sha256);
        buf.push(u8::from(e.fresh));
        out.write_all(&buf)?;
        at += buf.len() as u64;
    }
    Ok(Run {
        bytes,
        blocks,
        end: at,
        len: entries.len() as u64,
        fresh: entries.iter().filter(|e| e.fresh).count() as u64,
    })
}

/// The bytes `a` and `b` begin with alike, up to a character boundary.
fn shared_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads what [`encode`] wrote, one block at a time.
struct Cursor<'a> {
    run: &'a Run,
    /// The next block to read.
    block: usize,
    buf: Vec<u8>,
    at: usize,
    last: String,
}

impl<'a> Cursor<'a> {
    /// A cursor at the first entry of `run` at or after `from`.
    fn new(run: &'a Run, from: Option<&str>) -> anyhow::Result<(Cursor<'a>, Option<Entry>)> {
        let mut cursor = Cursor {
            run,
            block: from.map_or(0, |p| run.block_from(p)),
            buf: Vec::new(),
            at: 0,
            last: String::new(),
        };
        loop {
            match cursor.next()? {
                Some(e) if from.is_some_and(|p| e.path.as_str() < p) => continue,
                first => return Ok((cursor, first)),
            }
        }
    }

    fn next(&mut self) -> anyhow::Result<Option<Entry>> {
        if self.at == self.buf.len() {
            if self.block == self.run.blocks.len() {
                return Ok(None);
            }
            self.run.block(self.block, &mut self.buf)?;
            self.block += 1;
            self.at = 0;
            self.last.clear();
        }
        self.decode()
            .map(Some)
            .ok_or_else(|| anyhow!("a run's entries read back with bytes it did not write"))
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.buf.get(self.at)?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let bytes = self.buf.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(bytes)
    }

    fn decode(&mut self) -> Option<Entry> {
        let shared = usize::try_from(self.varint()?).ok()?;
        let len = usize::try_from(self.varint()?).ok()?;
        let end = self.at.checked_add(len)?;
        let rest = std::str::from_utf8(self.buf.get(self.at..end)?).ok()?;
        if shared > self.last.len() || !self.last.is_char_boundary(shared) {
            return None;
        }
        self.last.truncate(shared);
        self.last.push_str(rest);
        self.at = end;
        let size = self.varint()?;
        let sha256 = self.take(32)?.try_into().ok()?;
        let fresh = *self.take(1)?.first()? == 1;
        Some(Entry {
            path: self.last.clone(),
            size,
            sha256,
            fresh,
        })
    }
}

/// The entries of the units one worker rendered, held until the budget, then written
/// as runs.
pub(super) struct Sink {
    held: Vec<Entry>,
    held_bytes: usize,
    budget: usize,
    dir: PathBuf,
    runs: Vec<Run>,
}

impl Sink {
    /// A sink holding up to `budget` bytes of entries, its runs' files made in `dir`.
    pub(super) fn new(dir: &Path, budget: usize) -> Sink {
        Sink {
            held: Vec::new(),
            held_bytes: 0,
            budget,
            dir: dir.to_path_buf(),
            runs: Vec::new(),
        }
    }

    pub(super) fn extend(&mut self, entries: Vec<Entry>) -> anyhow::Result<()> {
        self.held_bytes += entries.iter().map(|e| e.path.len() + EACH).sum::<usize>();
        if self.held.is_empty() {
            self.held = entries;
        } else {
            self.held.extend(entries);
        }
        if self.held_bytes >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// The held entries sorted and written to a file as a run.
    fn spill(&mut self) -> anyhow::Result<()> {
        let mut held = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        held.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let file = tempfile::tempfile_in(&self.dir)
            .with_context(|| format!("making a run's file in {}", self.dir.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file.try_clone()?);
        let run = encode(Bytes::File(file), &held, &mut out)?;
        out.flush().context("writing a run's entries")?;
        self.runs.push(run);
        Ok(())
    }
}

/// Entries sorted by path, as runs (see the module doc).
#[derive(Default)]
pub(super) struct Sorted {
    runs: Vec<Run>,
}

impl Sorted {
    /// The entries of every sink, each sink's last ones held encoded.
    pub(super) fn of(sinks: impl IntoIterator<Item = Sink>) -> anyhow::Result<Sorted> {
        let mut sorted = Sorted::default();
        for mut sink in sinks {
            sorted.runs.append(&mut sink.runs);
            sorted.add(std::mem::take(&mut sink.held))?;
        }
        Ok(sorted)
    }

    /// Adds `entries` (in any order), held encoded.
    pub(super) fn add(&mut self, mut entries: Vec<Entry>) -> anyhow::Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let mut bytes = Vec::new();
        let mut run = encode(Bytes::Held(Vec::new()), &entries, &mut bytes)?;
        drop(entries);
        bytes.shrink_to_fit();
        run.bytes = Bytes::Held(bytes);
        self.runs.push(run);
        Ok(())
    }

    /// How many entries it holds.
    pub(super) fn len(&self) -> u64 {
        self.runs.iter().map(|r| r.len).sum()
    }

    /// How many of them are fresh.
    pub(super) fn fresh(&self) -> u64 {
        self.runs.iter().map(|r| r.fresh).sum()
    }

    /// Every entry in path order; entries with one path come one after the other (in
    /// the order of their runs), as the duplicate check needs.
    pub(super) fn stream(&self) -> anyhow::Result<Stream<'_>> {
        self.stream_from(None)
    }

    /// The entries at or after `from` in path order; every entry without one.
    pub(super) fn stream_from(&self, from: Option<&str>) -> anyhow::Result<Stream<'_>> {
        let mut heads = BinaryHeap::with_capacity(self.runs.len());
        let mut cursors = Vec::with_capacity(self.runs.len());
        for (i, run) in self.runs.iter().enumerate() {
            let (cursor, first) = Cursor::new(run, from)?;
            if let Some(entry) = first {
                heads.push(Reverse(Head(entry, i)));
            }
            cursors.push(cursor);
        }
        Ok(Stream { cursors, heads })
    }

    /// The first path at or after `path`, if any.
    pub(super) fn first_from(&self, path: &str) -> anyhow::Result<Option<String>> {
        Ok(self
            .stream_from(Some(path))?
            .next()
            .transpose()?
            .map(|e| e.path))
    }
}

/// An entry at the head of its run (the run's index breaking a tie).
struct Head(Entry, usize);

impl PartialEq for Head {
    fn eq(&self, other: &Head) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Head) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    fn cmp(&self, other: &Head) -> Ordering {
        self.0.path.cmp(&other.0.path).then(self.1.cmp(&other.1))
    }
}

/// The runs of a [`Sorted`] merged as they are read.
pub(super) struct Stream<'a> {
    cursors: Vec<Cursor<'a>>,
    heads: BinaryHeap<Reverse<Head>>,
}

impl Iterator for Stream<'_> {
    type Item = anyhow::Result<Entry>;

    fn next(&mut self) -> Option<anyhow::Result<Entry>> {
        let Reverse(Head(entry, i)) = self.heads.pop()?;
        match self.cursors[i].next() {
            Ok(Some(next)) => self.heads.push(Reverse(Head(next, i))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(entry))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: String, n: u64) -> Entry {
        Entry {
            path,
            size: n * 1000,
            sha256: [n as u8; 32],
            fresh: n.is_multiple_of(3),
        }
    }

    /// Paths with long shared prefixes, repeats across sinks, non-ASCII names that
    /// share part of a character, and the empty path.
    fn entries() -> Vec<Entry> {
        (0..5000u64)
            .map(|i| {
                let path = match i % 5 {
                    0 => format!("api/v0/issues/index@page={}&state=open.json", i % 997),
                    1 => format!("api/v0/chapters/{}.json.gz", i.wrapping_mul(40_503) % 1511),
                    2 => format!("api/v0/members/é{}ü.json", i % 300),
                    3 => format!(
                        "api/v0/members/{}.json",
                        char::from_u32(0xe0 + (i % 20) as u32).unwrap()
                    ),
                    _ if i == 4 => String::new(),
                    _ => format!("_headers{}", i % 7),
                };
                entry(path, i)
            })
            .collect()
    }

    fn sorted(entries: &[Entry], budget: usize, sinks: usize, dir: &Path) -> Sorted {
        let mut all: Vec<Sink> = (0..sinks).map(|_| Sink::new(dir, budget)).collect();
        for (i, chunk) in entries.chunks(37).enumerate() {
            all[i % sinks].extend(chunk.to_vec()).unwrap();
        }
        Sorted::of(all).unwrap()
    }

    #[test]
    fn entries_come_back_in_path_order_from_runs_on_disk_or_held() {
        let dir = tempfile::tempdir().unwrap();
        let given = entries();
        let mut expected = given.clone();
        expected.sort_by(|a, b| a.path.cmp(&b.path));
        for (budget, sinks) in [(BUDGET, 1), (BUDGET, 2), (20_000, 2), (3_000, 3)] {
            let sorted = sorted(&given, budget, sinks, dir.path());
            if budget < 100_000 {
                assert!(sorted.runs.len() > 10, "{} runs", sorted.runs.len());
            }
            // Twice over: a run is read as often as it is asked for.
            for _ in 0..2 {
                let back: Vec<Entry> = sorted.stream().unwrap().map(Result::unwrap).collect();
                assert_eq!(back.len(), expected.len());
                let paths: Vec<&str> = back.iter().map(|e| e.path.as_str()).collect();
                let want: Vec<&str> = expected.iter().map(|e| e.path.as_str()).collect();
                assert_eq!(paths, want);
                // Equal paths come in any order of their entries; the entries are the ones given.
                let mut a = back.clone();
                let mut b = expected.clone();
                for v in [&mut a, &mut b] {
                    v.sort_by(|x, y| (&x.path, x.size).cmp(&(&y.path, y.size)));
                }
                assert_eq!(a, b);
            }
            // From any path: the entries at or after it.
            for from in [
                "",
                "api/v0/members/",
                "api/v0/members/é1",
                "api/v0/zzz",
                "~",
            ] {
                let back: Vec<String> = sorted
                    .stream_from(Some(from))
                    .unwrap()
                    .map(|e| e.unwrap().path)
                    .collect();
                let want: Vec<String> = expected
                    .iter()
                    .filter(|e| e.path.as_str() >= from)
                    .map(|e| e.path.clone())
                    .collect();
                assert_eq!(back, want, "from {from:?}");
                assert_eq!(sorted.first_from(from).unwrap(), want.first().cloned());
            }
        }
        // The runs' files had no name: nothing is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let none = Sorted::default();
        assert_eq!(none.stream().unwrap().count(), 0);
        assert_eq!(none.first_from("").unwrap(), None);
    }

    #[test]
    fn a_run_read_back_with_other_bytes_is_an_error_not_a_panic() {
        let mut sorted = Sorted::default();
        sorted.add(entries()).unwrap();
        let Bytes::Held(bytes) = &mut sorted.runs[0].bytes else {
            panic!("held");
        };
        // A shared prefix longer than the path before it.
        bytes[0] = 0x7f;
        let first = sorted.stream().map(|mut s| s.next());
        assert!(matches!(first, Err(_) | Ok(Some(Err(_)))));
    }
}
