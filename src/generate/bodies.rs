//! The rendered bodies of one list unit's records, read once each and shown on many
//! pages: held in memory up to a budget, the rest in an unnamed temporary file beside
//! the tree. A list over a large table (every issue, under one ordering) would
//! otherwise hold every record's body at once, so a run's memory would grow with the
//! largest table; with the file it is the budget per unit at work, whatever the
//! scale. The file has no name (`O_TMPFILE` where the file system has it), so a run
//! killed at any instant leaves nothing behind, and it is read back with `pread` by
//! the pages' writers in parallel.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

/// Bytes of bodies a unit holds in memory before it writes them to its file.
pub(super) const BUDGET: usize = 64 << 20;

/// Bodies by record id (see the module doc).
pub(super) struct Bodies {
    /// Where each body starts among all bytes added, and its length.
    at: HashMap<i64, (u64, u32)>,
    /// The first `spilled` bytes added, once the budget was passed.
    file: Option<File>,
    spilled: u64,
    /// The bytes added after those.
    tail: Vec<u8>,
    budget: usize,
    /// Where the file is made.
    dir: PathBuf,
}

impl Bodies {
    /// Bodies for `records` records, their file (when needed) made in `dir`.
    pub(super) fn new(dir: &Path, records: usize, budget: usize) -> Bodies {
        Bodies {
            at: HashMap::with_capacity(records),
            file: None,
            spilled: 0,
            tail: Vec::new(),
            budget,
            dir: dir.to_path_buf(),
        }
    }

    /// Adds the body of record `id`.
    pub(super) fn insert(&mut self, id: i64, body: &[u8]) -> anyhow::Result<()> {
        let len = u32::try_from(body.len()).context("a record's body over 4 GiB")?;
        self.at
            .insert(id, (self.spilled + self.tail.len() as u64, len));
        self.tail.extend_from_slice(body);
        if self.tail.len() >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// The bytes in memory appended to the file.
    fn spill(&mut self) -> anyhow::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                let file = tempfile::tempfile_in(&self.dir).with_context(|| {
                    format!("making a temporary file in {}", self.dir.display())
                })?;
                self.file.insert(file)
            }
        };
        file.write_all(&self.tail)
            .with_context(|| format!("writing a temporary file in {}", self.dir.display()))?;
        self.spilled += self.tail.len() as u64;
        self.tail.clear();
        Ok(())
    }

    /// Whether it holds the body of record `id`.
    pub(super) fn has(&self, id: i64) -> bool {
        self.at.contains_key(&id)
    }

    /// How many bodies it holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.at.len()
    }

    /// The bodies of the records `ids`, in order: read into `buf` (cleared first) when
    /// any is in the file. `None` for an id never added.
    pub(super) fn get_all<'a>(
        &'a self,
        ids: impl Iterator<Item = i64>,
        buf: &'a mut Vec<u8>,
    ) -> anyhow::Result<Result<Vec<&'a [u8]>, i64>> {
        buf.clear();
        let mut spans = Vec::new();
        for id in ids {
            let Some(&(start, len)) = self.at.get(&id) else {
                return Ok(Err(id));
            };
            let (start, len) = (start, len as usize);
            if start >= self.spilled {
                spans.push((true, (start - self.spilled) as usize, len));
                continue;
            }
            let file = self
                .file
                .as_ref()
                .ok_or_else(|| anyhow!("a body past the bytes in memory, without a file"))?;
            let at = buf.len();
            buf.resize(at + len, 0);
            file.read_exact_at(&mut buf[at..], start)
                .with_context(|| format!("reading a temporary file in {}", self.dir.display()))?;
            spans.push((false, at, len));
        }
        let buf: &'a [u8] = buf;
        Ok(Ok(spans
            .into_iter()
            .map(|(in_memory, at, len)| {
                let from: &'a [u8] = if in_memory { &self.tail } else { buf };
                &from[at..at + len]
            })
            .collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(id: i64) -> Vec<u8> {
        format!(
            "{{\"id\":{id},\"text\":\"{}\"}}",
            "x".repeat(id as usize % 13)
        )
        .into_bytes()
    }

    #[test]
    fn bodies_read_back_the_same_in_memory_and_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        for budget in [usize::MAX, 1, 50, 1000] {
            let mut bodies = Bodies::new(dir.path(), 0, budget);
            let mut total = 0;
            for id in (1..200).rev() {
                bodies.insert(id, &body(id)).unwrap();
                total += body(id).len();
            }
            assert_eq!(bodies.len(), 199);
            assert_eq!(bodies.file.is_some(), budget <= total, "{budget}");
            let ids = [5i64, 199, 1, 77, 5];
            let mut buf = Vec::new();
            let got = bodies
                .get_all(ids.iter().copied(), &mut buf)
                .unwrap()
                .unwrap();
            let want: Vec<Vec<u8>> = ids.iter().map(|&id| body(id)).collect();
            assert_eq!(
                got,
                want.iter().map(Vec::as_slice).collect::<Vec<_>>(),
                "{budget}"
            );
            let missing = bodies.get_all([3, 400].into_iter(), &mut buf).unwrap();
            assert_eq!(missing, Err(400));
        }
        // The file has no name: nothing is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
