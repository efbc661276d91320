//! The live generation's manifest as a run reads it: chunk by chunk, when a path of
//! that chunk is asked about ([`Previous::get`]) or its entries are compared with the
//! new generation's, not the whole `manifest.json` on every run. The chunks are the
//! ones its `manifest/root.json` lists ([`crate::manifest::split`]); each is checked
//! against the root's hash as it is read. A chunk that cannot be read (missing, torn)
//! is taken from `manifest.json` instead; a tree without a readable root (written by
//! another tool) is read from `manifest.json` whole, as one chunk.
//!
//! At most [`RESIDENT`] chunks are kept decoded: a run that asks about every file (a
//! new executable's first, which compares every file's bytes with the live one) would
//! otherwise hold the whole manifest, decoded (more than 3 GB at `10x`). A chunk
//! dropped is read again when asked about again; the units ask in path order, mostly.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::manifest::{read_manifest, split, ManifestEntry};

use super::entry::Entry;

/// Chunks kept decoded at once (about 1,000 entries each, some 150 bytes an entry:
/// about 150 MB), the ones read longest ago dropped first. A debug build (the test
/// suite's) keeps three, so every test's run drops and reads chunks again.
const RESIDENT: usize = if cfg!(debug_assertions) { 3 } else { 1024 };

/// A chunk's entries, decoded.
type Entries = Arc<Vec<ManifestEntry>>;

/// The manifest of the generation a run replaces.
#[derive(Default)]
pub(super) struct Previous {
    root: Option<PathBuf>,
    /// The chunks in path order, as the root lists them; one chunk (first path "")
    /// holding every entry when the tree has no readable root.
    chunks: Vec<split::Chunk>,
    /// The chunks kept decoded ([`RESIDENT`] at most), and the order they were read.
    loaded: Vec<Mutex<Option<Entries>>>,
    resident: Mutex<VecDeque<usize>>,
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
            let loaded = parsed.chunks.iter().map(|_| Mutex::new(None)).collect();
            return Previous {
                root: Some(root.to_path_buf()),
                chunks: parsed.chunks,
                loaded,
                resident: Mutex::default(),
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
        // Never dropped: it is not among the resident chunks.
        let loaded = Mutex::new(Some(Arc::new(manifest.files)));
        Previous {
            root: Some(root.to_path_buf()),
            chunks: vec![whole],
            loaded: vec![loaded],
            resident: Mutex::default(),
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

    /// The entries of chunk `i`: read on first use and kept among the resident chunks
    /// (the one read longest ago dropped when there are too many).
    pub(super) fn entries(&self, i: usize) -> Entries {
        if let Some(entries) = self.kept(i) {
            return entries;
        }
        let entries = Arc::new(self.read_chunk(i));
        let mut slot = self.loaded[i]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(other) = slot.as_ref() {
            // Another thread read it meanwhile.
            return other.clone();
        }
        *slot = Some(entries.clone());
        drop(slot);
        let mut resident = self.resident.lock().unwrap_or_else(PoisonError::into_inner);
        resident.push_back(i);
        while resident.len() > RESIDENT {
            if let Some(oldest) = resident.pop_front() {
                *self.loaded[oldest]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = None;
            }
        }
        entries
    }

    /// The entries of chunk `i` when they are kept decoded.
    fn kept(&self, i: usize) -> Option<Entries> {
        self.loaded[i]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The entries of chunk `i`, as kept when they were read before, else read and
    /// not kept (a pass over every chunk holds one at a time).
    pub(super) fn entries_once(&self, i: usize) -> Entries {
        self.kept(i).unwrap_or_else(|| Arc::new(self.read_chunk(i)))
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
    pub(super) fn first_from(&self, path: &str) -> Option<String> {
        let mut chunk = self.chunk_of(path).unwrap_or(0);
        while chunk < self.chunks.len() {
            let entries = self.entries(chunk);
            let i = entries.partition_point(|e| e.path.as_str() < path);
            if let Some(e) = entries.get(i) {
                return Some(e.path.clone());
            }
            chunk += 1;
        }
        None
    }

    /// `f` of the entry of `path`, if the previous generation has that file: the
    /// entry is looked at where its chunk holds it, not copied.
    pub(super) fn with_entry<R>(
        &self,
        path: &str,
        f: impl FnOnce(&ManifestEntry) -> R,
    ) -> Option<R> {
        let (chunk, i) = self.find(path)?;
        self.entries(chunk).get(i).map(f)
    }

    /// The entry of `path`, if the previous generation has that file.
    #[cfg(test)]
    fn get(&self, path: &str) -> Option<ManifestEntry> {
        self.with_entry(path, ManifestEntry::clone)
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

    /// The entry at `at` (from [`Previous::find`]) as a run carries it; `None` when its
    /// hash is not one.
    pub(super) fn entry_at(&self, (chunk, i): (usize, usize)) -> Option<Entry> {
        Entry::of(self.entries(chunk).get(i)?)
    }

    /// Where the entry of `path` is, looked at first right after `after` (a file's
    /// precompressed sibling mostly follows it in path order), then searched.
    pub(super) fn find_after(&self, after: (usize, usize), path: &str) -> Option<(usize, usize)> {
        let (chunk, i) = after;
        let entries = self.entries(chunk);
        let next = match entries.get(i + 1) {
            Some(e) => (e.path == path).then_some((chunk, i + 1)),
            None if chunk + 1 < self.chunks.len() => self
                .entries(chunk + 1)
                .first()
                .filter(|e| e.path == path)
                .map(|_| (chunk + 1, 0)),
            None => None,
        };
        next.or_else(|| self.find(path))
    }
}

/// A folder holding the manifest documents of `n` files (`api/v0/items/00000.json` …,
/// each its number as size), and those files' entries: a tree's manifest for tests.
#[cfg(test)]
pub(super) fn published_tree(n: u32) -> (tempfile::TempDir, Vec<ManifestEntry>) {
    let files: Vec<ManifestEntry> = (0..n)
        .map(|i| ManifestEntry {
            path: format!("api/v0/items/{i:05}.json"),
            size: u64::from(i),
            sha256: crate::manifest::sha256_hex(&i.to_le_bytes()),
        })
        .collect();
    let published = crate::manifest::publish(&files, &Default::default(), None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in &published.documents {
        let target = dir.path().join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
    (dir, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_dropped_past_the_resident_ones_are_read_again_alike() {
        let (dir, files) = published_tree(9000);
        let previous = Previous::open(Some(dir.path()));
        assert!(previous.is_split());
        let chunks = previous.chunks().len();
        assert!(chunks > RESIDENT + 2, "{chunks} chunks");
        // Every file asked about, back and forth across the chunks, twice.
        for round in 0..2 {
            for i in (0..files.len())
                .rev()
                .step_by(7)
                .chain((0..files.len()).step_by(5))
            {
                let e = &files[i];
                assert_eq!(previous.get(&e.path).as_ref(), Some(e), "round {round}");
                let at = previous.find(&e.path).unwrap();
                assert_eq!(previous.entry_at(at).unwrap().size, e.size);
                if let Some(next) = files.get(i + 1) {
                    assert_eq!(
                        previous.find_after(at, &next.path),
                        previous.find(&next.path)
                    );
                }
                let kept = previous
                    .loaded
                    .iter()
                    .filter(|l| l.lock().unwrap().is_some());
                assert!(kept.count() <= RESIDENT);
            }
        }
        assert_eq!(previous.get("api/v0/items/99999.json"), None);
        assert_eq!(
            previous.first_from("api/v0/items/04500.jsonx").as_deref(),
            Some("api/v0/items/04501.json")
        );
    }
}
