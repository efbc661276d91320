//! A tree checked against its manifest: [`quick`] (every file present with its size,
//! from its metadata: what `roost generate` checks before it trusts an unchanged
//! input to mean an unchanged tree) and [`full`] (sizes and SHA-256 of every file:
//! `roost site check`).

use std::fmt;
use std::fs;
use std::io::Read;
use std::path::Path;

use anyhow::anyhow;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::manifest::{read_manifest, split, ManifestEntry, MANIFEST};

/// A file of the manifest the tree does not hold as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The manifest's path.
    pub path: String,
    pub kind: ProblemKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProblemKind {
    Missing,
    /// A path the manifest may not name (absolute, `..`, empty segments).
    UnsafePath,
    NotAFile,
    Size {
        found: u64,
        listed: u64,
    },
    Content {
        found: String,
    },
    Unreadable(String),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = &self.path;
        match &self.kind {
            ProblemKind::Missing => write!(f, "{path}: missing"),
            ProblemKind::UnsafePath => write!(f, "{path}: not a path inside the tree"),
            ProblemKind::NotAFile => write!(f, "{path}: not a regular file"),
            ProblemKind::Size { found, listed } => {
                write!(f, "{path}: {found} bytes, the manifest lists {listed}")
            }
            ProblemKind::Content { found } => write!(
                f,
                "{path}: content differs from the manifest (SHA-256 {found})"
            ),
            ProblemKind::Unreadable(e) => write!(f, "{path}: cannot be read: {e}"),
        }
    }
}

/// The problems of one entry, from its metadata (and its bytes when `hash`).
fn check(root: &Path, entry: &ManifestEntry, hash: bool) -> Option<Problem> {
    let problem = |kind| {
        Some(Problem {
            path: entry.path.clone(),
            kind,
        })
    };
    if !split::is_safe_path(&entry.path) {
        return problem(ProblemKind::UnsafePath);
    }
    let path = root.join(&entry.path);
    let meta = match fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return problem(ProblemKind::Missing),
        Err(e) => return problem(ProblemKind::Unreadable(e.to_string())),
    };
    if !meta.is_file() {
        return problem(ProblemKind::NotAFile);
    }
    if meta.len() != entry.size {
        return problem(ProblemKind::Size {
            found: meta.len(),
            listed: entry.size,
        });
    }
    if hash {
        match file_sha256(&path) {
            Ok(found) if found == entry.sha256 => {}
            Ok(found) => return problem(ProblemKind::Content { found }),
            Err(e) => return problem(ProblemKind::Unreadable(e.to_string())),
        }
    }
    None
}

/// The entries of `files` that `root` does not hold with their listed size (in
/// manifest order).
pub fn quick(root: &Path, files: &[ManifestEntry]) -> Vec<Problem> {
    files
        .par_iter()
        .filter_map(|e| check(root, e, false))
        .collect()
}

/// Every problem of the tree at `root` against its `manifest.json`: missing files,
/// other sizes, other bytes. An error when the tree has no readable manifest.
pub fn full(root: &Path) -> anyhow::Result<(usize, Vec<Problem>)> {
    let manifest = read_manifest(root).ok_or_else(|| {
        anyhow!(
            "{}: missing or not a roost manifest; is {} a tree written by roost generate?",
            root.join(MANIFEST).display(),
            root.display()
        )
    })?;
    let problems = manifest
        .files
        .par_iter()
        .filter_map(|e| check(root, e, true))
        .collect();
    Ok((manifest.files.len(), problems))
}

fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}
