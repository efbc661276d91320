//! Writing a file or a folder all or nothing, for every writer of roost.
//!
//! What is written goes to a temporary name beside its target, is synced, then renamed
//! over the target, so a reader sees the old file or folder or the new one, never half
//! of one. A step that fails removes the temporary name. A process killed mid-write
//! cannot, so writers first remove the temporary names `<prefix><pid>` beside their
//! target whose process no longer exists ([`remove_stale`]). Each writer names its
//! temporary files and words its errors itself; this module only holds the steps.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The folder `path` is in: its parent, or `.` for a bare name.
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `path` with `suffix` appended to its last component (`roost.db` → `roost.db.part`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether process `pid` exists (`/proc/<pid>`); true where `/proc` is not mounted,
/// so nothing of a live process is ever taken for stale.
pub fn process_is_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// Replaces `target` by what `fill` writes at `temp` (a path beside it): any file
/// already at `temp` is removed, `fill` writes (and syncs) it, then it is renamed over
/// `target`, the rename's error made by `rename_err`. When `fill` or the rename fails,
/// `temp` is removed.
pub fn replace_file<T, E>(
    temp: &Path,
    target: &Path,
    fill: impl FnOnce(&Path) -> Result<T, E>,
    rename_err: impl FnOnce(io::Error) -> E,
) -> Result<T, E> {
    let _ = fs::remove_file(temp);
    let result = fill(temp).and_then(|value| {
        fs::rename(temp, target).map_err(rename_err)?;
        Ok(value)
    });
    if result.is_err() {
        let _ = fs::remove_file(temp);
    }
    result
}

/// Writes `bytes` to a new file at `path` and syncs it.
pub fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Replaces the folder `dir` by the one `fill` writes: a new folder
/// `<parent>/.<name>.tmp-<pid>` (`name` the folder's name, or `fallback` when it has
/// none) is created and filled, then swapped in. An existing `dir` is exchanged with
/// the new folder in one step (`renameat2` with `RENAME_EXCHANGE`), so a reader (or a
/// process killed at any instant) finds the old folder or the new one at `dir`, never
/// neither; the old one, now at the temporary name, is then removed. Where the file
/// system cannot exchange, `dir` is renamed aside to `.<name>.old-<pid>` and the new
/// folder renamed to `dir`: a process killed between the two leaves no `dir`, and
/// the next run puts the old folder back before anything else.
///
/// When a step fails the new folder is removed and `dir` is left as it was. The
/// temporary folders of dead processes' runs are removed first. `io_err` makes the
/// error of a failed step on a path; `swapped` names the writer's crash point
/// ([`crate::crash`]) reached once the new folder is in place, the old not yet removed.
pub fn replace_dir<T, E>(
    dir: &Path,
    fallback: &str,
    swapped: Option<&str>,
    fill: impl FnOnce(&Path) -> Result<T, E>,
    io_err: impl Fn(&Path, io::Error) -> E,
) -> Result<T, E> {
    let (parent, name) = (parent_dir(dir), dir_name(dir, fallback));
    restore_aside(&parent, &name, dir);
    remove_stale(&parent, &[format!(".{name}.tmp-"), format!(".{name}.old-")]);
    fs::create_dir_all(&parent).map_err(|e| io_err(&parent, e))?;
    let pid = std::process::id();
    let tmp = parent.join(format!(".{name}.tmp-{pid}"));
    let _ = fs::remove_dir_all(&tmp);
    let reached = || {
        if let Some(point) = swapped {
            crate::crash::point(point);
        }
    };
    let written = (|| {
        fs::create_dir(&tmp).map_err(|e| io_err(&tmp, e))?;
        let value = fill(&tmp)?;
        if fs::symlink_metadata(dir).is_err() {
            fs::rename(&tmp, dir).map_err(|e| io_err(dir, e))?;
            reached();
            return Ok(value);
        }
        match exchange(&tmp, dir) {
            // The old folder is at the temporary name now.
            Ok(()) => {
                reached();
                let _ = fs::remove_dir_all(&tmp);
            }
            Err(e) if cannot_exchange(&e) => {
                let old = parent.join(format!(".{name}.old-{pid}"));
                fs::rename(dir, &old).map_err(|e| io_err(dir, e))?;
                if let Err(e) = fs::rename(&tmp, dir) {
                    let _ = fs::rename(&old, dir);
                    return Err(io_err(dir, e));
                }
                reached();
                let _ = fs::remove_dir_all(&old);
            }
            Err(e) => return Err(io_err(dir, e)),
        }
        Ok(value)
    })();
    if written.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    written
}

/// Swaps the names `a` and `b` (both exist, on one file system) in one step
/// (`renameat2` with `RENAME_EXCHANGE`).
pub fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

/// Whether `e`, from [`exchange`], says the file system (or the kernel) cannot
/// exchange two names.
pub fn cannot_exchange(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(code) if code == rustix::io::Errno::INVAL.raw_os_error()
            || code == rustix::io::Errno::NOSYS.raw_os_error()
            || code == rustix::io::Errno::NOTSUP.raw_os_error()
    )
}

/// Where `dir` is missing and a dead process's `.<name>.old-<pid>` is beside it (it
/// was killed between moving the old folder aside and renaming the new one in, on a
/// file system that cannot exchange), the old folder goes back to `dir`.
fn restore_aside(parent: &Path, name: &str, dir: &Path) {
    if fs::symlink_metadata(dir).is_ok() {
        return;
    }
    let prefix = format!(".{name}.old-");
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|digits| digits.parse::<u32>().ok())
        else {
            continue;
        };
        if !process_is_alive(pid) && fs::rename(entry.path(), dir).is_ok() {
            return;
        }
    }
}

/// The name of folder `dir`, or `fallback` when it has none.
fn dir_name(dir: &Path, fallback: &str) -> String {
    dir.file_name().map_or_else(
        || fallback.to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A temporary name removed by [`remove_stale`]: its path, its process, and whether
/// it could be removed.
pub struct Stale {
    pub path: PathBuf,
    pub pid: u32,
    pub removed: io::Result<()>,
}

/// Removes the files and folders of `dir` named `<prefix><pid>` (`prefix` one of
/// `prefixes`, `pid` in decimal without leading zeros) whose process no longer exists
/// (see [`process_is_alive`]). Best effort: what it tried to remove is returned, for
/// the caller to log if it wants.
pub fn remove_stale<S: AsRef<str>>(dir: &Path, prefixes: &[S]) -> Vec<Stale> {
    let mut stale = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return stale;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| {
            prefixes.iter().find_map(|prefix| {
                let digits = n.strip_prefix(prefix.as_ref())?;
                digits
                    .parse::<u32>()
                    .ok()
                    .filter(|p| p.to_string() == digits)
            })
        }) else {
            continue;
        };
        if process_is_alive(pid) {
            continue;
        }
        let path = entry.path();
        let removed = match entry.file_type() {
            Ok(t) if t.is_dir() => fs::remove_dir_all(&path),
            _ => fs::remove_file(&path),
        };
        stale.push(Stale { path, pid, removed });
    }
    stale
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new folder holding `files` (name and text).
    fn folder_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    /// The names in folder `p`, sorted.
    fn names(p: &Path) -> Vec<String> {
        let mut n: Vec<_> = fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn a_failed_fill_leaves_the_target_and_no_temporary_file() {
        let dir = folder_with(&[("record", "old")]);
        let target = dir.path().join("record");
        let temp = with_suffix(&target, ".tmp-1");
        let failed: Result<(), io::Error> = replace_file(
            &temp,
            &target,
            |t| {
                write_synced(t, b"half")?;
                Err(io::Error::other("disk full"))
            },
            |e| e,
        );
        assert_eq!(failed.unwrap_err().to_string(), "disk full");
        assert_eq!(fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(names(dir.path()), ["record"]);
        replace_file(&temp, &target, |t| write_synced(t, b"new"), |e| e).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(dir.path()), ["record"]);
    }

    #[test]
    fn a_folder_is_swapped_whole_or_not_at_all() {
        let dir = folder_with(&[(".out.tmp-4194305", "")]);
        let out = dir.path().join("out");
        fs::create_dir(&out).unwrap();
        fs::write(out.join("a"), "old").unwrap();
        let io = |_: &Path, e: io::Error| e;
        let failed = replace_dir(
            &out,
            "out",
            None,
            |tmp| {
                fs::write(tmp.join("b"), "new")?;
                Err::<(), _>(io::Error::other("disk full"))
            },
            io,
        );
        assert!(failed.is_err());
        // The dead run's leftover is gone, the failed run's too.
        assert_eq!(names(dir.path()), ["out"]);
        assert_eq!(names(&out), ["a"]);
        replace_dir(&out, "out", None, |tmp| fs::write(tmp.join("b"), "new"), io).unwrap();
        assert_eq!(names(dir.path()), ["out"]);
        assert_eq!(names(&out), ["b"]);
    }

    #[test]
    fn a_folder_moved_aside_by_a_killed_run_is_put_back_first() {
        // Killed between its two renames, on a file system that cannot exchange.
        let dir = folder_with(&[]);
        let aside = dir.path().join(".out.old-4194305");
        fs::create_dir(&aside).unwrap();
        fs::write(aside.join("a"), "old").unwrap();
        let out = dir.path().join("out");
        let failed = replace_dir(
            &out,
            "out",
            None,
            |_| Err::<(), _>(io::Error::other("disk full")),
            |_: &Path, e: io::Error| e,
        );
        assert!(failed.is_err());
        assert_eq!(names(dir.path()), ["out"]);
        assert_eq!(fs::read_to_string(out.join("a")).unwrap(), "old");
    }

    #[test]
    fn an_exchange_swaps_two_folders_whole() {
        let dir = folder_with(&[]);
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs::create_dir(&a).unwrap();
        fs::create_dir(&b).unwrap();
        fs::write(a.join("x"), "a").unwrap();
        match exchange(&a, &b) {
            Err(e) if cannot_exchange(&e) => return,
            other => other.unwrap(),
        }
        assert_eq!(names(&a), Vec::<String>::new());
        assert_eq!(names(&b), ["x"]);
    }

    #[test]
    fn only_names_of_dead_processes_are_removed() {
        let own = format!(".x.tmp-{}", std::process::id());
        let kept = [".x.tmp-04194305", own.as_str(), ".y.tmp-4194305"];
        let dir = folder_with(&[
            (".x.tmp-4194305", ""),
            (kept[0], ""),
            (kept[1], ""),
            (kept[2], ""),
        ]);
        fs::create_dir(dir.path().join(".x.old-4194306")).unwrap();
        fs::write(dir.path().join(".x.old-4194306/f"), "").unwrap();
        let removed = remove_stale(dir.path(), &[".x.tmp-", ".x.old-"]);
        assert_eq!(removed.len(), 2);
        assert!(removed.iter().all(|s| s.removed.is_ok()));
        let mut want = kept.map(String::from).to_vec();
        want.sort();
        assert_eq!(names(dir.path()), want);
    }
}
