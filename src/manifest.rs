//! The manifest of a tree (docs/architecture.md §4): what a generation holds, in the
//! forms its readers need, and what changed since the generation before it.
//!
//! - `manifest.json`: every file of the tree with its size and SHA-256, sorted by path
//!   (one document, left out with `roost generate --no-manifest-json`: the chunks
//!   below list the same entries).
//! - `manifest/root.json` and `manifest/<sha256>.json`: the same entries split into
//!   content-addressed chunks listed by a small root ([`split`]), so a mirror that has
//!   the previous generation fetches the root, then only the chunks whose hash it does
//!   not have, then only the files those chunks say changed.
//! - `changes/`: the files added, changed and removed since the previous generation,
//!   and the API URLs whose answers changed ([`changes`]), for uploads and CDN purges.
//!
//! The manifest documents and `changes/` are not listed in the manifest themselves; the
//! manifest documents are listed in `changes/` like any other file.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub mod changes;
pub mod split;

pub use changes::{api_urls, Changes};
pub use split::{Chunk, Root, CHUNK_DIR, ROOT};

/// The full manifest, at the root of the tree.
pub const MANIFEST: &str = "manifest.json";
/// The folder of the published dataset (`roost generate --with-dataset`), at the root
/// of the tree: `dataset/<name>.jsonl.gz` per interchange file.
pub const DATASET_DIR: &str = "dataset";

/// One file of a tree.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ManifestEntry {
    pub path: String,
    pub size: u64,
    pub sha256: String,
}

/// `manifest.json` (and each chunk): files with their size and hash, sorted by path,
/// with no timestamp (same data, same manifest).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Manifest {
    pub files: Vec<ManifestEntry>,
}

/// The same document over borrowed entries (same bytes as [`Manifest`]).
#[derive(Serialize)]
pub(crate) struct ManifestRef<'a> {
    pub files: &'a [ManifestEntry],
}

/// What went wrong while reading or writing manifest documents.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("serialising {what}: {source}")]
    Serialise {
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("{what} is not a roost manifest: {source}")]
    Parse {
        what: String,
        source: serde_json::Error,
    },
    #[error("{what}: {problem}")]
    Invalid { what: String, problem: String },
}

/// The SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Reads the full manifest of a tree, if it has one.
pub fn read_manifest(root: &Path) -> Option<Manifest> {
    let bytes = fs::read(root.join(MANIFEST)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The entries of the tree at `root`: its `manifest.json`, or, when its split
/// manifest's root names none (`roost generate --no-manifest-json`), the entries of
/// its chunks, each checked against the root. `None` when neither can be read.
pub fn read_tree_manifest(root: &Path) -> Option<Manifest> {
    if let Some(manifest) = read_manifest(root) {
        return Some(manifest);
    }
    let parsed = split::Root::parse(&fs::read(root.join(split::ROOT)).ok()?).ok()?;
    if parsed.manifest.is_some() {
        return None;
    }
    let mut files = Vec::with_capacity(usize::try_from(parsed.files).unwrap_or(0));
    for chunk in &parsed.chunks {
        let bytes = fs::read(root.join(&chunk.path)).ok()?;
        files.extend(split::parse_chunk(chunk, &bytes).ok()?);
    }
    Some(Manifest { files })
}

/// Whether the tree at `root` has a manifest (`manifest.json` or the split
/// manifest's root), as a tree `roost generate` wrote has: one `stat` or two, the
/// documents not read.
pub fn has_manifest(root: &Path) -> bool {
    root.join(MANIFEST).is_file() || root.join(split::ROOT).is_file()
}

/// The bytes of `manifest.json` for `files` (sorted by path).
pub fn full_manifest(files: &[ManifestEntry]) -> Result<Vec<u8>, ManifestError> {
    serde_json::to_vec(&ManifestRef { files }).map_err(|source| ManifestError::Serialise {
        what: MANIFEST,
        source,
    })
}

/// A file to write at the root of a new generation: its path and bytes.
pub type Document = (String, Vec<u8>);

/// What a generation writes beside its tree files.
pub struct Published {
    /// `manifest.json`, `manifest/root.json` and the chunks.
    pub documents: Vec<Document>,
    /// The manifest documents of the previous generation (path, size, hash), so the
    /// writer can link the ones whose bytes did not change.
    pub previous_documents: Vec<ManifestEntry>,
    /// What changed since the previous generation (written to `changes/` with
    /// [`Changes::documents`]).
    pub changes: Changes,
}

/// The manifest documents and change lists of a generation holding `files` (sorted
/// by path), whose previous generation (at `previous_root`, if any) held `previous`
/// (path → size and hash).
pub fn publish(
    files: &[ManifestEntry],
    previous: &HashMap<String, (u64, String)>,
    previous_root: Option<&Path>,
) -> Result<Published, ManifestError> {
    let full = full_manifest(files)?;
    let (root, chunks) = split::split(files, &full)?;
    let mut documents: Vec<Document> = Vec::with_capacity(chunks.len() + 6);
    documents.push((MANIFEST.to_string(), full));
    documents.push((ROOT.to_string(), root));
    documents.extend(chunks);

    let previous_documents = previous_root
        .map(split::documents_of_tree)
        .unwrap_or_default();
    let mut changes = Changes::between(files, previous);
    let new_documents: Vec<ManifestEntry> = documents
        .iter()
        .map(|(path, bytes)| ManifestEntry {
            path: path.clone(),
            size: bytes.len() as u64,
            sha256: sha256_hex(bytes),
        })
        .collect();
    let old_documents: HashMap<String, (u64, String)> = previous_documents
        .iter()
        .map(|e| (e.path.clone(), (e.size, e.sha256.clone())))
        .collect();
    let mut sorted_documents = new_documents;
    sorted_documents.sort_by(|a, b| a.path.cmp(&b.path));
    changes.merge(Changes::between(&sorted_documents, &old_documents));
    Ok(Published {
        documents,
        previous_documents,
        changes,
    })
}
