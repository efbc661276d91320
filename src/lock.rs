//! One writer at a time: `roost generate`, `roost mirror`, `roost db import` and
//! `roost db export` hold an exclusive advisory lock (`flock`) on a lock file beside
//! what they write while they write it, so two runs never write one tree, dataset or
//! export at once. A second run exits at once naming the holder's pid (written into the
//! lock file), or waits for it (`--wait`). The lock goes with the process: a killed run
//! holds nothing.
//!
//! Lock files are never removed: removing one while another run waits on it would let
//! a third run lock a new file of the same name beside it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

/// An exclusive lock, held until dropped.
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// The lock file of the folder or symlink `target`: `<parent>/.<name>.lock`.
pub fn beside_folder(target: &Path) -> anyhow::Result<PathBuf> {
    let (parent, name) = split(target)?;
    Ok(parent.join(format!(".{name}.lock")))
}

/// The lock file of the file `target`: `<target>.lock` (`roost.db.lock`).
pub fn beside_file(target: &Path) -> anyhow::Result<PathBuf> {
    let (parent, name) = split(target)?;
    Ok(parent.join(format!("{name}.lock")))
}

fn split(target: &Path) -> anyhow::Result<(PathBuf, String)> {
    let absolute;
    let target = if target.file_name().is_some() {
        target
    } else {
        // `.`, `..`, `/`: named by where it resolves to.
        absolute = std::path::absolute(target)
            .and_then(|p| p.canonicalize())
            .with_context(|| format!("resolving {}", target.display()))?;
        &absolute
    };
    let name = target
        .file_name()
        .ok_or_else(|| anyhow!("{} has no name to lock beside", target.display()))?
        .to_string_lossy()
        .into_owned();
    Ok((crate::atomic::parent_dir(target), name))
}

/// Takes the exclusive lock of `path` for `command` (`generate`, `db import`, …)
/// writing `target`. When another process holds it: an error naming that process's
/// pid, or with `wait`, a line on stderr and a wait until it is released.
pub fn exclusive(path: &Path, command: &str, target: &Path, wait: bool) -> anyhow::Result<Lock> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("opening the lock file {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let holder = holder(&mut file);
            if !wait {
                return Err(anyhow!(
                    "{} is being written by another roost ({holder}; lock file {}): \
                     try again when it has finished, or pass --wait to wait for it",
                    target.display(),
                    path.display()
                ));
            }
            eprintln!(
                "roost: waiting for {holder} to finish writing {}",
                target.display()
            );
            file.lock()
                .with_context(|| format!("locking {}", path.display()))?;
        }
        Err(TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", path.display()))
        }
    }
    // The holder's pid and command, for the message of a run that finds it locked;
    // best effort (on a full disk the lock holds all the same).
    let record = format!("{} {command}\n", std::process::id());
    let _ = file
        .set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| file.write_all(record.as_bytes()));
    Ok(Lock {
        file,
        path: path.to_path_buf(),
    })
}

/// Who holds the lock, from what it wrote into the lock file (`pid 123: roost
/// generate`); the holder may not have written it yet.
fn holder(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.take(256).read_to_string(&mut text));
    let mut words = text.split_whitespace();
    match (
        words.next().and_then(|p| p.parse::<u32>().ok()),
        words.collect::<Vec<_>>().join(" "),
    ) {
        (Some(pid), command) if !command.is_empty() => format!("pid {pid}: roost {command}"),
        (Some(pid), _) => format!("pid {pid}"),
        (None, _) => "a process that has not written its pid yet".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_names_the_holder_and_the_lock_is_free_once_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        let path = beside_folder(&site).unwrap();
        assert_eq!(path, dir.path().join(".site.lock"));
        let held = exclusive(&path, "generate", &site, false).unwrap();
        let err = exclusive(&path, "generate", &site, false).unwrap_err();
        let text = format!("{err:#}");
        assert!(
            text.contains(&format!("pid {}: roost generate", std::process::id())),
            "{text}"
        );
        assert!(text.contains("--wait"), "{text}");
        drop(held);
        exclusive(&path, "generate", &site, false).unwrap();
        assert_eq!(
            beside_file(&dir.path().join("roost.db")).unwrap(),
            dir.path().join("roost.db.lock")
        );
    }

    #[test]
    fn a_waiting_lock_is_taken_when_the_holder_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let held = exclusive(&path, "db import", &path, false).unwrap();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || exclusive(&path, "db import", &path, true).map(|_| ()))
        };
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(!waiter.is_finished());
        drop(held);
        waiter.join().unwrap().unwrap();
    }
}
