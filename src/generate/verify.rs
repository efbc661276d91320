//! A tree checked against its manifest: [`quick_tree`] (every file present with its size,
//! from its metadata: what `roost generate` checks before it trusts an unchanged
//! input to mean an unchanged tree) and [`full`] (sizes and SHA-256 of every file:
//! `roost site check`).

use std::fmt;
use std::fs;
use std::io::Read;
use std::path::Path;

use anyhow::anyhow;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::manifest::{read_tree_manifest, split, MANIFEST};

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

/// The problems of the file a manifest lists at `path` with `size` bytes, from its
/// metadata (and its bytes when `sha256` is given).
fn check(root: &Path, path: &str, size: u64, sha256: Option<&str>) -> Option<Problem> {
    let problem = |kind| {
        Some(Problem {
            path: path.to_string(),
            kind,
        })
    };
    if !split::is_safe_path(path) {
        return problem(ProblemKind::UnsafePath);
    }
    let full = root.join(path);
    let meta = match fs::symlink_metadata(&full) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return problem(ProblemKind::Missing),
        Err(e) => return problem(ProblemKind::Unreadable(e.to_string())),
    };
    if !meta.is_file() {
        return problem(ProblemKind::NotAFile);
    }
    if meta.len() != size {
        return problem(ProblemKind::Size {
            found: meta.len(),
            listed: size,
        });
    }
    if let Some(listed) = sha256 {
        match file_sha256(&full) {
            Ok(found) if found == listed => {}
            Ok(found) => return problem(ProblemKind::Content { found }),
            Err(e) => return problem(ProblemKind::Unreadable(e.to_string())),
        }
    }
    None
}

/// A manifest's entry as [`quick_tree`] reads it: its path borrowed from the
/// document's bytes (unless escaped), its hash skipped.
#[derive(serde::Deserialize)]
struct Listed<'a> {
    #[serde(borrow)]
    path: std::borrow::Cow<'a, str>,
    size: u64,
}

#[derive(serde::Deserialize)]
struct ListedFiles<'a> {
    #[serde(borrow)]
    files: Vec<Listed<'a>>,
}

/// A folder of a generation as its run left it: its inode and the time its inode
/// last changed (`ctime`, which the system sets and no one can set back). A file
/// added to, removed from or renamed in the folder changes it; so does the folder
/// replaced by another. A file written over in place does not (its own inode
/// changes, not its folder's): `roost site check` reads every file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Folder {
    /// Relative to the generation's root.
    pub path: String,
    pub inode: u64,
    pub changed: (i64, i64),
}

/// The stamp of a folder that changed in the current tick of the clock the file system
/// stamps times from: a change later in the same tick would leave its `ctime` as it
/// is, so such a stamp never matches and the next run asks about every file.
const UNTRUSTED: (i64, i64) = (i64::MIN, 0);

fn folder_stamp(root: &Path, path: &str) -> Option<Folder> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = fs::symlink_metadata(root.join(path)).ok()?;
    let changed = (meta.ctime(), meta.ctime_nsec());
    let now = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
    let changed = match changed < (now.tv_sec, now.tv_nsec) {
        true => changed,
        false => UNTRUSTED,
    };
    meta.is_dir().then(|| Folder {
        path: path.to_string(),
        inode: meta.ino(),
        changed,
    })
}

/// The folders holding the files `paths` (sorted), with every folder above them up
/// to the root (not the root itself), and the files at the root.
#[cfg(test)]
pub(crate) fn folders_of<'a>(
    paths: impl Iterator<Item = (&'a str, u64)>,
) -> (Vec<String>, Vec<(String, u64)>) {
    let mut folders = Folders::default();
    for (path, size) in paths {
        folders.see(path, size);
    }
    folders.finish()
}

/// [`folders_of`] as the files come, one at a time in path order.
#[derive(Default)]
pub(crate) struct Folders {
    folders: std::collections::BTreeSet<String>,
    top: Vec<(String, u64)>,
    last: String,
}

impl Folders {
    pub(crate) fn see(&mut self, path: &str, size: u64) {
        let Some(end) = path.rfind('/') else {
            self.top.push((path.to_string(), size));
            return;
        };
        let parent = &path[..end];
        if self.last == parent {
            return;
        }
        self.last.clear();
        self.last.push_str(parent);
        let mut folder = parent;
        // A folder seen before has its own folders seen too.
        while !self.folders.contains(folder) {
            self.folders.insert(folder.to_string());
            match folder.rfind('/') {
                Some(end) => folder = &folder[..end],
                None => break,
            }
        }
    }

    pub(crate) fn finish(self) -> (Vec<String>, Vec<(String, u64)>) {
        (self.folders.into_iter().collect(), self.top)
    }
}

/// The folders `paths` of the tree at `root` as they are now; `None` when one is not
/// a folder (the record then holds none, and the next run asks about every file).
pub fn stamp_folders(root: &Path, paths: &[String]) -> Option<Vec<Folder>> {
    paths.par_iter().map(|p| folder_stamp(root, p)).collect()
}

/// The folders `paths` of the tree at `root` as they are now, those that are not
/// folders left out (a delta run's folders include the live generation's, and a
/// folder whose files all went is not in a folder written afresh).
pub fn stamp_present_folders(root: &Path, paths: &[String]) -> Vec<Folder> {
    paths
        .par_iter()
        .filter_map(|p| folder_stamp(root, p))
        .collect()
}

/// Whether the tree at `root` still has every folder of `folders` as it was stamped,
/// and every file of `top` at its root with its size: no file was added to, removed
/// from or renamed in the tree since (the cost follows the folders, a few hundred,
/// not the files). False when `folders` is empty (a record that has none).
pub fn folders_unchanged(root: &Path, folders: &[Folder], top: &[(String, u64)]) -> bool {
    !folders.is_empty()
        && folders
            .par_iter()
            .all(|f| f.changed != UNTRUSTED && folder_stamp(root, &f.path).as_ref() == Some(f))
        && top.iter().all(|(path, size)| {
            fs::symlink_metadata(root.join(path)).is_ok_and(|m| m.is_file() && m.len() == *size)
        })
}

/// The entries of the tree's own `manifest.json` that `root` does not hold with their
/// listed size (in manifest order); the manifest read without a string made per entry
/// (a tree of a million files lists a million paths). `None` when it has no readable
/// manifest.
pub fn quick_tree(root: &Path) -> Option<Vec<Problem>> {
    let missing = |files: &mut dyn Iterator<Item = (&str, u64)>| {
        let files: Vec<(&str, u64)> = files.collect();
        files
            .par_iter()
            .filter_map(|(path, size)| check(root, path, *size, None))
            .collect()
    };
    let Ok(bytes) = fs::read(root.join(MANIFEST)) else {
        // A tree without `manifest.json`: its chunks.
        let manifest = read_tree_manifest(root)?;
        return Some(missing(
            &mut manifest.files.iter().map(|e| (e.path.as_str(), e.size)),
        ));
    };
    let listed: ListedFiles = serde_json::from_slice(&bytes).ok()?;
    Some(missing(
        &mut listed.files.iter().map(|e| (&*e.path, e.size)),
    ))
}

/// Every problem of the tree at `root` against its `manifest.json` (or, in a tree
/// without one, its split manifest's chunks): missing files, other sizes, other
/// bytes. An error when the tree has no readable manifest.
pub fn full(root: &Path) -> anyhow::Result<(usize, Vec<Problem>)> {
    let manifest = read_tree_manifest(root).ok_or_else(|| {
        anyhow!(
            "{}: missing or not a roost manifest; is {} a tree written by roost generate?",
            root.join(MANIFEST).display(),
            root.display()
        )
    })?;
    let problems = manifest
        .files
        .par_iter()
        .filter_map(|e| check(root, &e.path, e.size, Some(&e.sha256)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{full_manifest, sha256_hex, ManifestEntry};

    /// Waits until the file system's clock has moved on (a tick is a few milliseconds).
    fn next_tick() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    #[test]
    fn a_file_added_removed_or_renamed_in_any_folder_is_seen_by_the_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = [
            ("_headers", 3),
            ("api/v0/issues/1.json", 5),
            ("api/v0/issues/index.json", 7),
            ("api/v0/snapshots/s1/issues/index.json", 11),
        ];
        for (path, size) in files {
            let target = root.join(path);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::write(&target, vec![b'x'; size as usize]).unwrap();
        }
        let (folders, top) = folders_of(files.iter().copied());
        // A folder stamped in the clock tick it changed in is not trusted (a change
        // later in that tick would not move its ctime). A tick is milliseconds long, a
        // write and a stamp microseconds: of a hundred tries, most land in one tick.
        let scratch = ["scratch".to_string()];
        fs::create_dir(root.join("scratch")).unwrap();
        let untrusted = (0..100).find_map(|i| {
            fs::write(root.join(format!("scratch/{i}")), b"x").unwrap();
            let stamped = stamp_folders(root, &scratch).unwrap();
            (stamped[0].changed == UNTRUSTED).then_some(stamped)
        });
        let untrusted = untrusted.expect("a folder stamped in the tick it changed in");
        assert!(!folders_unchanged(root, &untrusted, &[]));
        next_tick();
        let stamped = stamp_folders(root, &scratch).unwrap();
        assert!(folders_unchanged(root, &stamped, &[]));
        assert_eq!(
            folders,
            [
                "api",
                "api/v0",
                "api/v0/issues",
                "api/v0/snapshots",
                "api/v0/snapshots/s1",
                "api/v0/snapshots/s1/issues"
            ]
        );
        assert_eq!(top, [("_headers".to_string(), 3)]);
        let stamped = stamp_folders(root, &folders).unwrap();
        assert!(folders_unchanged(root, &stamped, &top));
        // Read, and a file linked elsewhere: nothing changed.
        fs::read(root.join("api/v0/issues/1.json")).unwrap();
        fs::hard_link(root.join("api/v0/issues/1.json"), root.join("elsewhere")).unwrap();
        assert!(folders_unchanged(root, &stamped, &top));
        assert!(!folders_unchanged(root, &[], &top), "no folders recorded");
        let changes: [&dyn Fn(); 4] = [
            &|| fs::remove_file(root.join("api/v0/snapshots/s1/issues/index.json")).unwrap(),
            &|| fs::write(root.join("api/v0/issues/2.json"), b"new").unwrap(),
            &|| {
                let from = root.join("api/v0/issues/1.json");
                fs::rename(&from, root.join("api/v0/issues/0.json")).unwrap();
            },
            &|| fs::write(root.join("_headers"), b"four").unwrap(),
        ];
        for change in changes {
            next_tick();
            let stamped = stamp_folders(root, &folders).unwrap();
            assert!(stamped.iter().all(|f| f.changed != UNTRUSTED));
            let (_, top) = folders_of(files.iter().copied());
            change();
            assert!(!folders_unchanged(root, &stamped, &top));
        }
        assert_eq!(stamp_folders(root, &["nothing".to_string()]), None);
    }

    #[test]
    fn the_quick_check_finds_files_missing_or_of_another_size() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // A path serde_json escapes is read as well as a plain one.
        let names = ["a/1.json", "a/b/2.json", "odd \"name\".json"];
        let mut files: Vec<ManifestEntry> = names
            .iter()
            .map(|name| {
                let path = root.join(name);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, name.as_bytes()).unwrap();
                ManifestEntry {
                    path: name.to_string(),
                    size: name.len() as u64,
                    sha256: sha256_hex(name.as_bytes()),
                }
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        fs::write(root.join(MANIFEST), full_manifest(&files).unwrap()).unwrap();
        assert_eq!(quick_tree(root), Some(Vec::new()));

        fs::remove_file(root.join("a/1.json")).unwrap();
        fs::write(root.join(names[2]), b"longer than it was").unwrap();
        let problems = quick_tree(root).unwrap();
        let kinds: Vec<(&str, &ProblemKind)> = problems
            .iter()
            .map(|p| (p.path.as_str(), &p.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("a/1.json", &ProblemKind::Missing),
                (
                    names[2],
                    &ProblemKind::Size {
                        found: 18,
                        listed: names[2].len() as u64
                    }
                ),
            ]
        );
        fs::write(root.join(MANIFEST), b"not a manifest").unwrap();
        assert_eq!(quick_tree(root), None);
    }
}
