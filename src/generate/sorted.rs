//! Strings sorted, without repeats, in bounded memory: held until a budget of bytes,
//! then sorted and written as a *run* to an unnamed temporary file beside the tree,
//! the runs merged as they are read back. A full run's change lists name every file
//! (two URLs each: about 26 million strings at `10x`); sorting them in memory would
//! make the run's memory grow with the tree.
//!
//! The runs' files have no name (`O_TMPFILE` where the file system has it), as the
//! list units' spilled bodies ([`super::bodies`]): a run killed at any instant leaves
//! nothing behind, which a sorter with named segment files in a temporary folder
//! could not promise.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek as _, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Bytes of strings held (with a small allowance for each string's own size) before
/// they are written as a run.
pub(super) const BUDGET: usize = 64 << 20;

/// What a held string costs beyond its bytes (its `String` and the allocator's
/// rounding), counted against the budget.
const EACH: usize = 40;

/// Strings to be given back sorted (see the module doc).
pub(super) struct Sorter {
    held: Vec<String>,
    held_bytes: usize,
    budget: usize,
    runs: Vec<File>,
    dir: PathBuf,
}

impl Sorter {
    /// A sorter holding up to `budget` bytes, its runs' files made in `dir`.
    pub(super) fn new(dir: &Path, budget: usize) -> Sorter {
        Sorter {
            held: Vec::new(),
            held_bytes: 0,
            budget,
            runs: Vec::new(),
            dir: dir.to_path_buf(),
        }
    }

    pub(super) fn push(&mut self, item: String) -> anyhow::Result<()> {
        self.held_bytes += item.len() + EACH;
        self.held.push(item);
        if self.held_bytes >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// The held strings sorted and written as a run, each as its length (4 bytes,
    /// little-endian) then its bytes.
    fn spill(&mut self) -> anyhow::Result<()> {
        let mut held = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        held.sort_unstable();
        held.dedup();
        let file = tempfile::tempfile_in(&self.dir)
            .with_context(|| format!("making a sort run's file in {}", self.dir.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        for item in &held {
            let len = u32::try_from(item.len()).context("a string over 4 GiB to sort")?;
            out.write_all(&len.to_le_bytes())?;
            out.write_all(item.as_bytes())?;
        }
        let mut file = out.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        self.runs.push(file);
        Ok(())
    }

    /// Calls `each` with every string pushed, sorted, each once.
    pub(super) fn finish(
        mut self,
        mut each: impl FnMut(&str) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if self.runs.is_empty() {
            self.held.sort_unstable();
            self.held.dedup();
            return self.held.iter().try_for_each(|s| each(s));
        }
        if !self.held.is_empty() {
            self.spill()?;
        }
        let mut readers: Vec<BufReader<File>> = self
            .runs
            .drain(..)
            .map(|f| BufReader::with_capacity(1 << 16, f))
            .collect();
        let mut heads = BinaryHeap::with_capacity(readers.len());
        for (i, reader) in readers.iter_mut().enumerate() {
            if let Some(item) = next_item(reader)? {
                heads.push(Reverse((item, i)));
            }
        }
        let mut last: Option<String> = None;
        while let Some(Reverse((item, i))) = heads.pop() {
            if let Some(next) = next_item(&mut readers[i])? {
                heads.push(Reverse((next, i)));
            }
            if last.as_deref() != Some(item.as_str()) {
                each(&item)?;
                last = Some(item);
            }
        }
        Ok(())
    }
}

/// The next string of a run, or none at its end.
fn next_item(reader: &mut BufReader<File>) -> anyhow::Result<Option<String>> {
    let mut len = [0u8; 4];
    match reader.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e).context("reading a sort run back"),
    }
    let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
    reader
        .read_exact(&mut bytes)
        .context("reading a sort run back")?;
    String::from_utf8(bytes)
        .map(Some)
        .context("a sort run read back with bytes it was not given")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(items: &[String], budget: usize, dir: &Path) -> Vec<String> {
        let mut sorter = Sorter::new(dir, budget);
        for item in items {
            sorter.push(item.clone()).unwrap();
        }
        let runs = sorter.runs.len();
        let mut out = Vec::new();
        sorter
            .finish(|s| {
                out.push(s.to_string());
                Ok(())
            })
            .unwrap();
        if budget < 1000 && !items.is_empty() {
            assert!(runs > 3, "{runs} runs");
        }
        out
    }

    #[test]
    fn strings_come_back_sorted_once_each_in_memory_or_from_runs() {
        let dir = tempfile::tempdir().unwrap();
        // Repeats within a run and across runs, the empty string, non-ASCII.
        let items: Vec<String> = (0..2000u32)
            .map(|i| match i % 7 {
                0 => String::new(),
                1 => format!("/api/v0/issues/?page={}", i % 50),
                2 => format!("é{}", i.wrapping_mul(2_654_435_761) % 300),
                _ => format!("/api/v0/chapters/{}", i.wrapping_mul(40_503) % 977),
            })
            .collect();
        let mut expected = items.clone();
        expected.sort();
        expected.dedup();
        assert_eq!(sorted(&items, BUDGET, dir.path()), expected);
        assert_eq!(sorted(&items, 500, dir.path()), expected);
        assert_eq!(sorted(&[], 500, dir.path()), Vec::<String>::new());
        // The runs' files had no name: nothing is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
