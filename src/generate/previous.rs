//! The live generation's manifest as a run reads it: chunk by chunk, when a path of
//! that chunk is asked about ([`Previous::get`]) or its entries are compared with the
//! new generation's, not the whole `manifest.json` on every run. The chunks are the
//! ones its `manifest/root.json` lists ([`crate::manifest::split`]); each is checked
//! against the root's hash as it is read. A chunk that cannot be read (missing, torn)
//! is taken from `manifest.json` instead; a tree without a readable root (written by
//! another tool) is read from `manifest.json` whole, as one chunk.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::manifest::{read_manifest, split, ManifestEntry};

/// The manifest of the generation a run replaces.
#[derive(Default)]
pub(super) struct Previous {
    root: Option<PathBuf>,
    /// The chunks in path order, as the root lists them; one chunk (first path "")
    /// holding every entry when the tree has no readable root.
    chunks: Vec<split::Chunk>,
    loaded: Vec<OnceLock<Vec<ManifestEntry>>>,
    /// Whether `chunks` are the tree's chunk documents (so an unchanged one can be
    /// linked as it is).
    split: bool,
    /// `manifest.json`'s entries, read only when a chunk cannot be.
    full: OnceLock<Vec<ManifestEntry>>,
}

impl Previous {
    /// The manifest of the tree at `root`; empty when there is none.
    pub(super) fn open(root: Option<&Path>) -> Previous {
        let Some(root) = root else {
            return Previous::default();
        };
        let parsed = std::fs::read(root.join(split::ROOT))
            .ok()
            .and_then(|bytes| split::Root::parse(&bytes).ok());
        if let Some(parsed) = parsed {
            let loaded = parsed.chunks.iter().map(|_| OnceLock::new()).collect();
            return Previous {
                root: Some(root.to_path_buf()),
                chunks: parsed.chunks,
                loaded,
                split: true,
                full: OnceLock::new(),
            };
        }
        let Some(manifest) = read_manifest(root) else {
            return Previous {
                root: Some(root.to_path_buf()),
                ..Previous::default()
            };
        };
        let whole = split::Chunk {
            path: String::new(),
            first: String::new(),
            files: manifest.files.len() as u64,
            bytes: manifest.files.iter().map(|e| e.size).sum(),
            size: 0,
            sha256: String::new(),
        };
        let loaded = OnceLock::new();
        let _ = loaded.set(manifest.files);
        Previous {
            root: Some(root.to_path_buf()),
            chunks: vec![whole],
            loaded: vec![loaded],
            split: false,
            full: OnceLock::new(),
        }
    }

    /// Its chunks, in path order.
    pub(super) fn chunks(&self) -> &[split::Chunk] {
        &self.chunks
    }

    /// Whether its chunks are chunk documents of the tree (else `manifest.json` read
    /// as one).
    pub(super) fn is_split(&self) -> bool {
        self.split
    }

    /// The chunk whose paths `path` falls among.
    fn chunk_of(&self, path: &str) -> Option<usize> {
        self.chunks
            .partition_point(|c| c.first.as_str() <= path)
            .checked_sub(1)
    }

    /// The entries of chunk `i`, read on first use and kept.
    pub(super) fn entries(&self, i: usize) -> &[ManifestEntry] {
        self.loaded[i].get_or_init(|| self.read_chunk(i))
    }

    /// The entries of chunk `i`, as kept when they were read before, else read and
    /// not kept (a pass over every chunk holds one at a time).
    pub(super) fn entries_once(&self, i: usize) -> std::borrow::Cow<'_, [ManifestEntry]> {
        match self.loaded[i].get() {
            Some(entries) => std::borrow::Cow::Borrowed(entries),
            None => std::borrow::Cow::Owned(self.read_chunk(i)),
        }
    }

    fn read_chunk(&self, i: usize) -> Vec<ManifestEntry> {
        let chunk = &self.chunks[i];
        let from_chunk = self.root.as_ref().and_then(|root| {
            let bytes = std::fs::read(root.join(&chunk.path)).ok()?;
            split::parse_chunk(chunk, &bytes).ok()
        });
        from_chunk.unwrap_or_else(|| {
            // The chunk's paths, from `manifest.json`.
            let full = self.full.get_or_init(|| {
                self.root
                    .as_deref()
                    .and_then(read_manifest)
                    .map(|m| m.files)
                    .unwrap_or_default()
            });
            let next = self.chunks.get(i + 1).map(|c| c.first.as_str());
            full.iter()
                .filter(|e| {
                    e.path.as_str() >= chunk.first.as_str()
                        && next.is_none_or(|n| e.path.as_str() < n)
                })
                .cloned()
                .collect()
        })
    }

    /// The first path at or after `path`, in path order, if any.
    pub(super) fn first_from(&self, path: &str) -> Option<&str> {
        let mut chunk = self.chunk_of(path).unwrap_or(0);
        while chunk < self.chunks.len() {
            let entries = self.entries(chunk);
            let i = entries.partition_point(|e| e.path.as_str() < path);
            if let Some(e) = entries.get(i) {
                return Some(&e.path);
            }
            chunk += 1;
        }
        None
    }

    /// The entry of `path`, if the previous generation has that file.
    pub(super) fn get(&self, path: &str) -> Option<&ManifestEntry> {
        self.find(path).map(|at| self.at(at))
    }

    /// Where the entry of `path` is (its chunk, its index there), if the previous
    /// generation has that file.
    pub(super) fn find(&self, path: &str) -> Option<(usize, usize)> {
        let chunk = self.chunk_of(path)?;
        self.entries(chunk)
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()
            .map(|i| (chunk, i))
    }

    /// The entry at `at` (from [`Previous::find`]).
    pub(super) fn at(&self, (chunk, i): (usize, usize)) -> &ManifestEntry {
        &self.entries(chunk)[i]
    }

    /// Where the entry of `path` is, looked at first right after `after` (a file's
    /// precompressed sibling mostly follows it in path order), then searched.
    pub(super) fn find_after(&self, after: (usize, usize), path: &str) -> Option<(usize, usize)> {
        let (chunk, i) = after;
        let next = if i + 1 < self.entries(chunk).len() {
            Some((chunk, i + 1))
        } else {
            (chunk + 1 < self.chunks.len() && !self.entries(chunk + 1).is_empty())
                .then_some((chunk + 1, 0))
        };
        next.filter(|&n| self.at(n).path == path)
            .or_else(|| self.find(path))
    }
}
