//! The new generation's entries compared with the previous generation's manifest as
//! they stream by in path order ([`super::runs::Stream`]), chunk by chunk of the
//! previous manifest, in memory that does not follow the tree.
//!
//! Every entry the run did not write (*fresh*) is the previous generation's own entry
//! (same path, size and hash), so a previous chunk needs reading only when an entry
//! among its paths is fresh (to tell added from changed) or when fewer entries than it
//! lists fall among its paths (then some of its files are gone, found by walking its
//! entries beside the new entries of its range, read again from the runs). A chunk
//! read is dropped when the stream passes it: a run that compares every file (after
//! a new executable) holds one chunk at a time, not the manifest.

use std::sync::Arc;

use crate::manifest::ManifestEntry;

use super::entry::Entry;
use super::previous::Previous;
use super::runs::Sorted;

/// What a fresh entry is to the previous generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// A path the previous generation did not have.
    Added,
    /// A path it had with another size or hash.
    Changed,
    /// As it was (not fresh, or written again with the same bytes).
    Same,
}

/// The comparison of a stream of entries with the previous manifest.
pub(super) struct Compare<'a> {
    previous: &'a Previous,
    sorted: &'a Sorted,
    /// The previous chunk among whose paths the entries now streaming fall; `None`
    /// before the first chunk's first path.
    chunk: Option<usize>,
    /// Of the entries among its paths: how many were not fresh, and how many fresh
    /// ones it had.
    kept: u64,
    matched: u64,
    read: Option<Arc<Vec<ManifestEntry>>>,
    /// The previous generation's paths the new one does not have, in path order.
    gone: Vec<String>,
}

impl<'a> Compare<'a> {
    /// A comparison of `sorted`'s entries, streamed in path order, with `previous`.
    pub(super) fn new(previous: &'a Previous, sorted: &'a Sorted) -> Compare<'a> {
        Compare {
            previous,
            sorted,
            chunk: None,
            kept: 0,
            matched: 0,
            read: None,
            gone: Vec::new(),
        }
    }

    /// The next entry of the stream: what it is to the previous generation.
    pub(super) fn next(&mut self, e: &Entry) -> anyhow::Result<Change> {
        self.advance(Some(&e.path))?;
        let Some(chunk) = self.chunk else {
            return Ok(if e.fresh { Change::Added } else { Change::Same });
        };
        if !e.fresh {
            self.kept += 1;
            return Ok(Change::Same);
        }
        let previous = self.previous;
        let entries = self
            .read
            .get_or_insert_with(|| previous.entries_once(chunk));
        match entries.binary_search_by(|p| p.path.as_str().cmp(&e.path)) {
            Ok(i) => {
                self.matched += 1;
                Ok(match e.same_file(&entries[i]) {
                    true => Change::Same,
                    false => Change::Changed,
                })
            }
            Err(_) => Ok(Change::Added),
        }
    }

    /// The previous generation's paths the stream did not have, in path order.
    pub(super) fn finish(mut self) -> anyhow::Result<Vec<String>> {
        self.advance(None)?;
        Ok(self.gone)
    }

    /// Closes the chunks whose paths all sort before `path` (every chunk left,
    /// without one).
    fn advance(&mut self, path: Option<&str>) -> anyhow::Result<()> {
        let chunks = self.previous.chunks();
        loop {
            let next = self.chunk.map_or(0, |c| c + 1);
            match chunks.get(next) {
                Some(c) if path.is_none_or(|p| c.first.as_str() <= p) => {
                    self.close()?;
                    self.chunk = Some(next);
                }
                _ if path.is_none() => return self.close(),
                _ => return Ok(()),
            }
        }
    }

    /// The chunk passed: its paths the stream did not have are gone.
    fn close(&mut self) -> anyhow::Result<()> {
        let read = self.read.take();
        let (kept, matched) = (
            std::mem::take(&mut self.kept),
            std::mem::take(&mut self.matched),
        );
        let Some(i) = self.chunk else {
            return Ok(());
        };
        let chunks = self.previous.chunks();
        if kept + matched == chunks[i].files {
            return Ok(());
        }
        let entries = read.unwrap_or_else(|| self.previous.entries_once(i));
        // The new paths from the chunk's first on, walked beside its entries: a new
        // path past the chunk's last sorts after every one of them.
        let mut listed = self.sorted.stream_from(Some(&chunks[i].first))?;
        let mut next = listed.next().transpose()?;
        for old in entries.iter() {
            while next.as_ref().is_some_and(|e| e.path < old.path) {
                next = listed.next().transpose()?;
            }
            if next.as_ref().is_some_and(|e| e.path == old.path) {
                next = listed.next().transpose()?;
            } else {
                self.gone.push(old.path.clone());
            }
        }
        Ok(())
    }
}
