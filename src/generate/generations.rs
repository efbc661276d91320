//! The generations beside the live tree: a run renders into a fresh sibling folder,
//! `<parent>/.<name>.g<stamp>`, then points the live path (a symlink) at it with one
//! atomic rename ([`swap_in`]), so a failed or killed run leaves the live tree as it
//! was. The swap is the last step that can fail: everything the generation needs is
//! written and synced inside it first. Leftovers of killed or failed runs are removed
//! when the next run starts (under the lock of [`crate::lock`], so no other run owns
//! them), and the replaced generation after the swap. `roost mirror` swaps its
//! generations the same way.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use rayon::prelude::*;

/// Sibling paths of the live tree: `<parent>/.<name>.g<stamp>` generations.
pub(crate) fn generation_prefix(out: &Path) -> anyhow::Result<(PathBuf, String)> {
    let name = out
        .file_name()
        .ok_or_else(|| anyhow!("--out {} has no folder name", out.display()))?
        .to_string_lossy()
        .into_owned();
    Ok((crate::atomic::parent_dir(out), format!(".{name}.g")))
}

/// The name of a new generation folder: `prefix` (of [`generation_prefix`]) and a
/// stamp unique to this run (the time in nanoseconds, then the process id).
pub(crate) fn generation_name(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{prefix}{nanos}-{}", std::process::id())
}

/// Removes generation folders left by killed runs, all but those named in `keep` (the
/// live one, the spare). `writer` (`generate`, `mirror`) names the crash point.
pub(crate) fn clean_leftovers(parent: &Path, prefix: &str, keep: &[&Path], writer: &str) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(prefix) {
            continue;
        }
        let path = entry.path();
        if keep.iter().any(|k| k.file_name() == path.file_name()) {
            continue;
        }
        crate::crash::step(writer, "remove_leftover");
        let _ = fs::remove_dir_all(&path);
    }
}

/// Deletes a previous generation, its folders in parallel (file deletion is kernel
/// work per file; two threads remove a large tree in about half the time).
pub(super) fn remove_tree(root: &Path) {
    fn remove(folder: &Path) {
        let Ok(entries) = fs::read_dir(folder) else {
            return;
        };
        let mut folders = Vec::new();
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(entry.path()),
                _ => {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        folders.par_iter().for_each(|f| remove(f));
        let _ = fs::remove_dir(folder);
    }
    remove(root);
    // Whatever the parallel pass could not remove.
    let _ = fs::remove_dir_all(root);
}

/// Points `out` at the new generation with one atomic rename of a symlink. `writer`
/// (`generate`, `mirror`) names the crash point.
pub(crate) fn swap_in(
    out: &Path,
    parent: &Path,
    gen_name: &str,
    writer: &str,
) -> anyhow::Result<()> {
    let meta = fs::symlink_metadata(out);
    if let Ok(meta) = &meta {
        if meta.is_dir() {
            // A plain folder from elsewhere: keep it as a generation so it is cleaned up.
            let (_, prefix) = generation_prefix(out)?;
            let aside = parent.join(format!("{prefix}old-{}", std::process::id()));
            fs::rename(out, &aside)
                .with_context(|| format!("moving the old tree {} aside", out.display()))?;
        } else if !meta.file_type().is_symlink() {
            return Err(anyhow!("{} exists and is not a folder", out.display()));
        }
    }
    let link_tmp = parent.join(format!("{gen_name}.link"));
    let _ = fs::remove_file(&link_tmp);
    std::os::unix::fs::symlink(gen_name, &link_tmp)
        .with_context(|| format!("creating {}", link_tmp.display()))?;
    crate::crash::step(writer, "swap_link");
    if let Err(e) = fs::rename(&link_tmp, out) {
        let _ = fs::remove_file(&link_tmp);
        return Err(e).with_context(|| format!("swapping in {}", out.display()));
    }
    // The rename made durable; the swap has happened whether or not this succeeds.
    let _ = fs::File::open(parent).and_then(|d| d.sync_all());
    Ok(())
}

/// Replaces the file at `path` with `bytes` in one step: written and synced beside it as
/// `<path>.tmp-<pid>`, then renamed over it, so a reader sees the old file or the new
/// one. The temporary file is removed when a step fails (and, when the process is
/// killed, by the next run's clean-up of dead processes' temporary files). The crash
/// point `point` comes between the two.
pub(crate) fn replace_file(path: &Path, bytes: &[u8], point: &str) -> anyhow::Result<()> {
    let tmp = crate::atomic::with_suffix(path, &format!(".tmp-{}", std::process::id()));
    let writing = || format!("writing {}", path.display());
    crate::atomic::replace_file(
        &tmp,
        path,
        |tmp| {
            crate::atomic::write_synced(tmp, bytes).with_context(writing)?;
            crate::crash::point(point);
            Ok(())
        },
        |e| anyhow::Error::new(e).context(writing()),
    )
}

/// Syncs what was written under `root` at `paths` (files and folders, relative), then
/// `root` itself, so a generation is on disk before it is swapped in.
pub(crate) fn sync_paths<'a>(
    root: &Path,
    paths: impl IntoIterator<Item = &'a str>,
) -> anyhow::Result<()> {
    let sync = |path: &Path| {
        fs::File::open(path)
            .and_then(|f| f.sync_all())
            .with_context(|| format!("syncing {}", path.display()))
    };
    for rel in paths {
        sync(&root.join(rel))?;
    }
    sync(root)
}
