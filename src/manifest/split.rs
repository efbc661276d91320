//! The split manifest: the entries of `manifest.json` cut into chunks, each stored
//! under its own SHA-256 (`manifest/<sha256>.json`, the same shape as
//! `manifest.json`), and a small root (`manifest/root.json`) listing the chunks in
//! order with their first path, counts and hash.
//!
//! Chunk boundaries depend on the paths alone: a chunk ends after an entry whose
//! path's SHA-256 starts with a multiple of [`AVERAGE`] (as a big-endian u32), or when
//! it holds [`MAX_ENTRIES`] entries. A changed file changes only the chunk that lists
//! it; an added or removed file only its chunk and, when its path is a boundary, the
//! neighbour. A chunk's name is the hash of its bytes, so an unchanged chunk keeps its
//! name from one generation to the next and a reader that has it need not fetch it.
//! At `nest` scale (~950,000 files) the root is about 270 KB (935 chunks).

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{sha256_hex, Document, ManifestEntry, ManifestError, ManifestRef, MANIFEST};

/// The folder of the split manifest, at the root of the tree.
pub const CHUNK_DIR: &str = "manifest";
/// The root of the split manifest.
pub const ROOT: &str = "manifest/root.json";
/// The format name written in every root.
pub const FORMAT: &str = "roost-manifest-1";
/// Expected entries per chunk.
pub const AVERAGE: u32 = 1024;
/// Most entries in one chunk.
pub const MAX_ENTRIES: usize = 4096;

/// `manifest/root.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Root {
    /// [`FORMAT`].
    pub format: String,
    /// Files of the tree (the entries of all chunks).
    pub files: u64,
    /// Their total size in bytes.
    pub bytes: u64,
    /// `manifest.json`: the entries of all chunks in order, in one document. Absent
    /// when the tree has none (`roost generate --no-manifest-json`): the chunks are
    /// then the whole manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<ManifestEntry>,
    /// The chunks, in path order.
    pub chunks: Vec<Chunk>,
}

/// One chunk as the root lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Chunk {
    /// `manifest/<sha256>.json`.
    pub path: String,
    /// The first path it lists.
    pub first: String,
    /// Entries it lists, and their total size.
    pub files: u64,
    pub bytes: u64,
    /// The chunk document's own size and hash.
    pub size: u64,
    pub sha256: String,
}

/// The tree path of the chunk whose bytes hash to `sha256`.
pub fn chunk_path(sha256: &str) -> String {
    format!("{CHUNK_DIR}/{sha256}.json")
}

/// Whether a chunk ends after the entry for `path`.
fn is_boundary(path: &str) -> bool {
    let digest = Sha256::digest(path.as_bytes());
    let head = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    head % AVERAGE == 0
}

/// The entries cut into chunks (see the module doc).
pub fn chunks_of(files: &[ManifestEntry]) -> Vec<&[ManifestEntry]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < files.len() {
        let end = chunk_end(files, start);
        out.push(&files[start..end]);
        start = end;
    }
    out
}

/// Where the chunk that starts at `start` in `files` ends (exclusive): after the
/// first boundary path, after [`MAX_ENTRIES`] entries, or at the end.
pub fn chunk_end(files: &[ManifestEntry], start: usize) -> usize {
    chunk_end_by(files, start, |e| &e.path)
}

/// [`chunk_end`] over any list of files sorted by path, `path` giving each one's.
pub fn chunk_end_by<T>(files: &[T], start: usize, path: impl Fn(&T) -> &str) -> usize {
    chunk_end_within(files, start, path).unwrap_or(files.len())
}

/// Where the chunk that starts at `start` in `files` ends when it ends among them
/// (after a boundary path or [`MAX_ENTRIES`] entries); `None` when `files` end first
/// (the chunk ends there if no file follows them).
pub fn chunk_end_within<T>(files: &[T], start: usize, path: impl Fn(&T) -> &str) -> Option<usize> {
    for (i, entry) in files.iter().enumerate().skip(start) {
        if i + 1 - start >= MAX_ENTRIES || is_boundary(path(entry)) {
            return Some(i + 1);
        }
    }
    None
}

/// The root document and the chunk documents of `files` (sorted by path), whose full
/// manifest has the bytes `full`.
pub fn split(
    files: &[ManifestEntry],
    full: &[u8],
) -> Result<(Vec<u8>, Vec<Document>), ManifestError> {
    let mut chunks = Vec::new();
    let mut documents = Vec::new();
    for part in chunks_of(files) {
        let bytes = serde_json::to_vec(&ManifestRef { files: part }).map_err(|source| {
            ManifestError::Serialise {
                what: "a manifest chunk",
                source,
            }
        })?;
        let sha256 = sha256_hex(&bytes);
        let path = chunk_path(&sha256);
        chunks.push(Chunk {
            path: path.clone(),
            first: part[0].path.clone(),
            files: part.len() as u64,
            bytes: part.iter().map(|e| e.size).sum(),
            size: bytes.len() as u64,
            sha256,
        });
        documents.push((path, bytes));
    }
    // Two chunks with the same bytes would be one file: impossible, as chunks list
    // different paths.
    let root = Root {
        format: FORMAT.to_string(),
        files: files.len() as u64,
        bytes: files.iter().map(|e| e.size).sum(),
        manifest: Some(ManifestEntry {
            path: MANIFEST.to_string(),
            size: full.len() as u64,
            sha256: sha256_hex(full),
        }),
        chunks,
    };
    let root = serde_json::to_vec(&root)
        .map_err(|source| ManifestError::Serialise { what: ROOT, source })?;
    Ok((root, documents))
}

impl Root {
    /// Parses and checks a root: its format, chunk paths named by their hashes, chunks
    /// in path order, counts that add up.
    pub fn parse(bytes: &[u8]) -> Result<Root, ManifestError> {
        let root: Root = serde_json::from_slice(bytes).map_err(|source| ManifestError::Parse {
            what: ROOT.to_string(),
            source,
        })?;
        let invalid = |problem: String| ManifestError::Invalid {
            what: ROOT.to_string(),
            problem,
        };
        if root.format != FORMAT {
            return Err(invalid(format!(
                "format '{}', this roost reads '{FORMAT}'",
                root.format
            )));
        }
        if let Some(manifest) = &root.manifest {
            if !is_sha256(&manifest.sha256) || manifest.path != MANIFEST {
                return Err(invalid("a bad manifest.json record".to_string()));
            }
        }
        for chunk in &root.chunks {
            if !is_sha256(&chunk.sha256) || chunk.path != chunk_path(&chunk.sha256) {
                return Err(invalid(format!("a bad chunk record '{}'", chunk.path)));
            }
        }
        if root.chunks.windows(2).any(|w| w[0].first >= w[1].first) {
            return Err(invalid("chunks out of path order".to_string()));
        }
        if root.chunks.iter().map(|c| c.files).sum::<u64>() != root.files {
            return Err(invalid("chunk file counts do not add up".to_string()));
        }
        Ok(root)
    }
}

/// Parses a chunk fetched or read for `chunk`, checking that it is what the root says:
/// its hash, its entries in path order starting at `first`, its counts.
pub fn parse_chunk(chunk: &Chunk, bytes: &[u8]) -> Result<Vec<ManifestEntry>, ManifestError> {
    let invalid = |problem: String| ManifestError::Invalid {
        what: chunk.path.clone(),
        problem,
    };
    if bytes.len() as u64 != chunk.size || sha256_hex(bytes) != chunk.sha256 {
        return Err(invalid(
            "its bytes do not match the root's size and hash".to_string(),
        ));
    }
    let parsed: super::Manifest =
        serde_json::from_slice(bytes).map_err(|source| ManifestError::Parse {
            what: chunk.path.clone(),
            source,
        })?;
    let files = parsed.files;
    if files.first().map(|e| e.path.as_str()) != Some(chunk.first.as_str())
        || files.len() as u64 != chunk.files
        || files.windows(2).any(|w| w[0].path >= w[1].path)
    {
        return Err(invalid(
            "its entries are not the ones the root lists".to_string(),
        ));
    }
    for entry in &files {
        if !is_safe_path(&entry.path) || !is_sha256(&entry.sha256) {
            return Err(invalid(format!("a bad entry '{}'", entry.path)));
        }
    }
    Ok(files)
}

fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether a manifest path names a file inside the tree: relative, `/`-separated, no
/// empty, `.` or `..` segment, no NUL or backslash, and not a manifest document or
/// change list itself.
pub fn is_safe_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\0')
        && !path.contains('\\')
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
        && path != MANIFEST
        && !path.starts_with(&format!("{CHUNK_DIR}/"))
        && !path.starts_with(&format!("{}/", super::changes::CHANGES_DIR))
}

/// The manifest documents of the tree at `root` (its `manifest.json`, `manifest/root.json`
/// and chunks) with their sizes and hashes, as far as they can be read: from its root
/// when it has one, else `manifest.json` alone.
pub fn documents_of_tree(root: &Path) -> Vec<ManifestEntry> {
    let mut out = Vec::new();
    if let Ok(bytes) = fs::read(root.join(ROOT)) {
        if let Ok(parsed) = Root::parse(&bytes) {
            out.push(ManifestEntry {
                path: ROOT.to_string(),
                size: bytes.len() as u64,
                sha256: sha256_hex(&bytes),
            });
            out.extend(parsed.manifest);
            out.extend(parsed.chunks.into_iter().map(|c| ManifestEntry {
                path: c.path,
                size: c.size,
                sha256: c.sha256,
            }));
            return out;
        }
    }
    if let Ok(bytes) = fs::read(root.join(MANIFEST)) {
        out.push(ManifestEntry {
            path: MANIFEST.to_string(),
            size: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
        });
    }
    out
}

/// [`documents_of_tree`] of the tree at `root`, when there is one, by path: the
/// previous documents a run's change list compares its new ones with.
pub fn documents_by_path(root: Option<&Path>) -> HashMap<String, (u64, String)> {
    root.map(documents_of_tree)
        .unwrap_or_default()
        .into_iter()
        .map(|e| (e.path, (e.size, e.sha256)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(paths: impl IntoIterator<Item = String>) -> Vec<ManifestEntry> {
        let mut files: Vec<ManifestEntry> = paths
            .into_iter()
            .map(|path| ManifestEntry {
                sha256: sha256_hex(path.as_bytes()),
                size: path.len() as u64,
                path,
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    #[test]
    fn chunks_cover_every_entry_once_in_order_and_stay_bounded() {
        let files = entries((0..20_000).map(|i| format!("api/v0/issues/o/r/{i}.json")));
        let chunks = chunks_of(&files);
        let joined: Vec<&ManifestEntry> = chunks.iter().flat_map(|c| c.iter()).collect();
        assert_eq!(joined.len(), files.len());
        assert!(joined.iter().zip(&files).all(|(a, b)| *a == b));
        assert!(chunks.iter().all(|c| c.len() <= MAX_ENTRIES));
        // About AVERAGE entries a chunk.
        assert!((8..=60).contains(&chunks.len()), "{} chunks", chunks.len());
    }

    #[test]
    fn a_change_touches_only_its_chunk_and_an_insertion_at_most_two() {
        let files = entries((0..20_000).map(|i| format!("f/{i:05}.json")));
        let full = b"{}";
        let (_, before) = split(&files, full).unwrap();
        let names = |docs: &[Document]| -> std::collections::BTreeSet<String> {
            docs.iter().map(|(p, _)| p.clone()).collect()
        };
        let mut changed = files.clone();
        changed[7_777].sha256 = sha256_hex(b"other bytes");
        let (_, after) = split(&changed, full).unwrap();
        assert_eq!(names(&before).difference(&names(&after)).count(), 1);

        let mut inserted = files.clone();
        inserted.extend(entries(["f/07777a.json".to_string()]));
        inserted.sort_by(|a, b| a.path.cmp(&b.path));
        let (_, after) = split(&inserted, full).unwrap();
        assert!(names(&before).difference(&names(&after)).count() <= 2);
    }

    #[test]
    fn the_root_and_chunks_read_back_and_refuse_tampering() {
        let files = entries((0..3_000).map(|i| format!("a/{i}.json")));
        let full = super::super::full_manifest(&files).unwrap();
        let (root_bytes, documents) = split(&files, &full).unwrap();
        let root = Root::parse(&root_bytes).unwrap();
        assert_eq!(root.files, 3_000);
        assert_eq!(root.manifest.unwrap().sha256, sha256_hex(&full));
        let mut all = Vec::new();
        for (chunk, (path, bytes)) in root.chunks.iter().zip(&documents) {
            assert_eq!(&chunk.path, path);
            all.extend(parse_chunk(chunk, bytes).unwrap());
        }
        assert_eq!(all, files);
        // The full manifest is the chunks' entries in one document.
        assert_eq!(super::super::full_manifest(&all).unwrap(), full);

        let mut bad = documents[0].1.clone();
        bad[10] ^= 1;
        assert!(parse_chunk(&root.chunks[0], &bad).is_err());
        let text = String::from_utf8(root_bytes).unwrap();
        assert!(Root::parse(text.replace(FORMAT, "other").as_bytes()).is_err());
    }

    #[test]
    fn paths_must_stay_inside_the_tree() {
        assert!(is_safe_path("api/v0/issues/index@page=2.json"));
        for bad in [
            "",
            "/etc/passwd",
            "a/../b",
            "a//b",
            "./a",
            "a\\b",
            "manifest.json",
            "manifest/root.json",
            "changes/added.txt",
        ] {
            assert!(!is_safe_path(bad), "{bad}");
        }
    }
}
