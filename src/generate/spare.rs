//! The spare generation: the generation a run replaced is kept beside the tree (its
//! keys in `<parent>/.<name>.spare-keys`), and the next run renames it to its own new
//! name and updates it in place instead of filling an empty folder. A file whose key
//! both the live and the spare generation have is already in place and costs nothing;
//! the others are replaced (a new inode each: a spare's file may share its inode with
//! the live generation, so it is never written through), and the files the new
//! generation no longer has are removed. The work of a run then follows what changed
//! since the spare's generation, not the size of the tree.
//!
//! The spare is what a run that would otherwise delete a folder of a million files
//! keeps instead; what it costs on disk is the files that differ between it and the
//! live generation. A spare whose keys are missing or name another folder, whose
//! folder is the live one, or whose manifest cannot be read is not used, and removed.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::manifest::split;

use super::keys::{self, KeySet};

/// A spare generation beside the tree, ready to be updated in place.
pub(super) struct Spare {
    /// Its folder.
    pub dir: PathBuf,
    /// The keys of its files.
    pub keys: KeySet,
    /// The paths listed in the chunks of its manifest that the live generation's
    /// manifest does not have: with the live generation's paths, every file the spare
    /// can hold.
    pub own_paths: Vec<String>,
}

/// The spare generation [`recorded`] as `name` with `keys`, when it can be updated in
/// place beside the live generation `live` (in `parent`): its folder exists and is not
/// the live one, and the chunks of its manifest that the live manifest does not share
/// are readable and whole.
pub(super) fn find(parent: &Path, name: &str, keys: KeySet, live: &Path) -> Option<Spare> {
    if live.file_name()? == name {
        return None;
    }
    let dir = parent.join(name);
    if !fs::symlink_metadata(&dir).ok()?.is_dir() {
        return None;
    }
    let root = |folder: &Path| split::Root::parse(&fs::read(folder.join(split::ROOT)).ok()?).ok();
    let (own, shared) = (root(&dir)?, root(live)?);
    let shared: HashSet<&str> = shared.chunks.iter().map(|c| c.sha256.as_str()).collect();
    let mut own_paths = Vec::new();
    for chunk in own
        .chunks
        .iter()
        .filter(|c| !shared.contains(c.sha256.as_str()))
    {
        let bytes = fs::read(dir.join(&chunk.path)).ok()?;
        let entries = split::parse_chunk(chunk, &bytes).ok()?;
        own_paths.extend(entries.into_iter().map(|e| e.path));
    }
    Some(Spare {
        dir,
        keys,
        own_paths,
    })
}

/// The spare generation recorded beside `out`: its folder's name (a generation name,
/// `prefix…`) and its keys, whether or not it can be used (so leftover clean-up keeps
/// it until the run decides).
pub(super) fn recorded(out: &Path, prefix: &str) -> Option<(String, KeySet)> {
    let bases = super::units::records_dir(out).ok()?;
    keys::read_keys(&keys::spare_keys_path(out).ok()?, &bases)
        .map(|f| (f.generation, f.keys))
        .filter(|(name, _)| is_generation(name, prefix))
}

/// Whether `name` is a generation folder's name beside the tree (`prefix…`, one path
/// segment).
fn is_generation(name: &str, prefix: &str) -> bool {
    name.len() > prefix.len() && name.starts_with(prefix) && !name.contains(['/', '\\'])
}

/// Forgets the spare generation beside `out` (its keys), before it is renamed or
/// removed.
pub(super) fn forget(out: &Path) {
    if let Ok(path) = keys::spare_keys_path(out) {
        let _ = fs::remove_file(path);
    }
}

/// Removes from the generation folder `root` the files at `stale` (paths relative to
/// it), then the folders that removal emptied. A path that holds no file is skipped.
pub(super) fn remove_stale<'a>(
    root: &Path,
    stale: impl Iterator<Item = &'a str>,
) -> anyhow::Result<()> {
    let stale: Vec<&str> = stale.collect();
    let folders: Vec<PathBuf> = stale
        .par_iter()
        .map(|rel| -> anyhow::Result<Option<PathBuf>> {
            let path = root.join(rel);
            match fs::remove_file(&path) {
                Ok(()) => Ok(path.parent().map(Path::to_path_buf)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(anyhow::Error::new(e)
                    .context(format!("removing {} from the spare", path.display()))),
            }
        })
        .collect::<anyhow::Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    // Deepest first, so a folder is tried after the folders inside it.
    let mut folders = folders;
    folders.sort_by_key(|f| std::cmp::Reverse(f.components().count()));
    for folder in folders {
        let mut folder = folder.as_path();
        while folder != root && folder.starts_with(root) && fs::remove_dir(folder).is_ok() {
            match folder.parent() {
                Some(up) => folder = up,
                None => break,
            }
        }
    }
    Ok(())
}

/// Removes the manifest chunks of the folder `root` that `documents` (the new
/// generation's manifest documents, by path) does not list.
pub(super) fn remove_stale_chunks<'a>(
    root: &Path,
    documents: impl Iterator<Item = &'a str>,
) -> anyhow::Result<()> {
    let keep: HashSet<&str> = documents.collect();
    let Ok(entries) = fs::read_dir(root.join(split::CHUNK_DIR)) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = format!("{}/{name}", split::CHUNK_DIR);
        if !keep.contains(rel.as_str()) {
            let path = entry.path();
            fs::remove_file(&path).map_err(|e| {
                anyhow::Error::new(e).context(format!("removing {}", path.display()))
            })?;
        }
    }
    Ok(())
}
