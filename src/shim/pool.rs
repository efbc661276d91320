//! Blocking work off the async workers, and the dataset's connections.
//!
//! Every SQLite call and every file read runs in `spawn_blocking`, at most
//! [`Blocking::permits`] at a time (a semaphore), so a burst of slow queries queues
//! instead of starving the runtime or opening hundreds of connections.
//!
//! [`Dataset`] keeps a few read-only connections and drops them as soon as the file
//! at the dataset path is another one (device, inode, size or mtime changed), which is
//! how `roost db import` / `db init --force` (an atomic rename) is picked up without a
//! restart. A request that already holds a connection finishes on the old file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::Connection;
use tokio::sync::Semaphore;

use crate::store;

/// A bounded gate in front of `spawn_blocking`.
#[derive(Clone)]
pub struct Blocking {
    semaphore: Arc<Semaphore>,
    permits: usize,
}

impl Blocking {
    pub fn new(permits: usize) -> Blocking {
        let permits = permits.max(1);
        Blocking {
            semaphore: Arc::new(Semaphore::new(permits)),
            permits,
        }
    }

    pub fn permits(&self) -> usize {
        self.permits
    }

    /// Runs `f` on the blocking pool once a permit is free.
    pub async fn run<T, F>(&self, f: F) -> anyhow::Result<T>
    where
        F: FnOnce() -> anyhow::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let permit = self.semaphore.clone().acquire_owned().await?;
        let out = tokio::task::spawn_blocking(move || {
            let out = f();
            drop(permit);
            out
        })
        .await;
        match out {
            Ok(r) => r,
            Err(e) => Err(anyhow::anyhow!("blocking task failed: {e}")),
        }
    }
}

/// What identifies one dataset file: a replacement changes at least one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
}

impl FileId {
    fn of(path: &Path) -> std::io::Result<FileId> {
        use std::os::unix::fs::MetadataExt as _;
        let m = std::fs::metadata(path)?;
        Ok(FileId {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        })
    }
}

#[derive(Default)]
struct Idle {
    file: Option<FileId>,
    conns: Vec<Connection>,
}

/// Read-only connections to the dataset, reopened when the file is replaced.
pub struct Dataset {
    path: PathBuf,
    max_idle: usize,
    idle: Mutex<Idle>,
}

impl Dataset {
    pub fn new(path: &Path, max_idle: usize) -> Dataset {
        Dataset {
            path: path.to_path_buf(),
            max_idle,
            idle: Mutex::new(Idle::default()),
        }
    }

    /// Runs `f` with a connection to the current dataset file (blocking).
    pub fn with<T>(&self, f: impl FnOnce(&Connection) -> T) -> anyhow::Result<T> {
        let file = FileId::of(&self.path).map_err(|e| {
            anyhow::anyhow!(
                "dataset {} is not readable ({e}); create it with `roost db init`",
                self.path.display()
            )
        })?;
        let pooled = {
            let mut idle = self
                .idle
                .lock()
                .map_err(|_| anyhow::anyhow!("dataset pool poisoned"))?;
            if idle.file != Some(file) {
                idle.conns.clear();
                idle.file = Some(file);
            }
            idle.conns.pop()
        };
        let conn = match pooled {
            Some(c) => c,
            None => store::open_read(&self.path)?,
        };
        let out = f(&conn);
        if let Ok(mut idle) = self.idle.lock() {
            if idle.file == Some(file) && idle.conns.len() < self.max_idle {
                idle.conns.push(conn);
            }
        }
        Ok(out)
    }
}
