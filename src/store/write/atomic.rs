//! Building a dataset file all or nothing.
//!
//! The new dataset is built in a temporary file beside the target,
//! `.NAME.tmp-<pid>` (NAME the dataset's file name, pid the importing process), in one
//! transaction, then synced and renamed over the target. A failed build removes its
//! temporary file and leaves the target byte-identical; a reader sees either the old
//! dataset or the new one.
//!
//! A process killed mid-build (`kill -9`, a power cut) cannot remove its temporary
//! file, so every build first removes the `.NAME.tmp-<pid>` files beside its target
//! whose process no longer exists (no `/proc/<pid>`). Temporary files of live processes
//! (another import of the same dataset running now) are left alone, as are temporary
//! files of other datasets. Where `/proc` is not mounted nothing is removed, and a pid
//! reused by an unrelated live process keeps its stale file until that process ends.
//! Processes in different PID namespaces (containers sharing the dataset's folder)
//! cannot see each other's pids, so such imports must not share a folder.

use std::fs;
use std::path::Path;

use rusqlite::Connection;

use crate::store::{StoreError, SCHEMA_VERSION};

/// Builds a database in a temporary file beside `db` and renames it into place.
pub(in crate::store) fn write_atomically(
    db: &Path,
    fill: impl FnOnce(&Connection) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let dir = crate::atomic::parent_dir(db);
    fs::create_dir_all(&dir).map_err(|source| StoreError::CreateDir {
        path: dir.clone(),
        source,
    })?;
    let file_name = db
        .file_name()
        .ok_or_else(|| StoreError::NotAFilePath(db.to_path_buf()))?
        .to_string_lossy()
        .into_owned();
    remove_stale_temps(&dir, &file_name);
    let tmp = dir.join(temp_name(&file_name, std::process::id()));
    let result = crate::atomic::replace_file(
        &tmp,
        db,
        |tmp| -> Result<(), StoreError> {
            let mut conn = Connection::open(tmp).map_err(|source| StoreError::CreateTemp {
                path: tmp.to_path_buf(),
                source,
            })?;
            conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
            let tx = conn.transaction()?;
            crate::store::create_schema(&tx)?;
            crate::crash::point("import::create");
            fill(&tx)?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?1)",
                [SCHEMA_VERSION],
            )?;
            // Last: the build's own rows are not changes.
            super::changelog::install(&tx)?;
            crate::crash::point("import::commit");
            tx.commit()?;
            crate::crash::point("import::analyze");
            conn.execute_batch("ANALYZE;")?;
            conn.close().map_err(|(_, e)| e)?;
            fs::File::open(tmp)?.sync_all()?;
            crate::crash::point("import::rename");
            Ok(())
        },
        |source| StoreError::Rename {
            path: db.to_path_buf(),
            source,
        },
    );
    if result.is_ok() {
        crate::crash::point("import::renamed");
    }
    // SQLite's and the file system's errors name no file: say which.
    result.map_err(|e| match e {
        StoreError::Sqlite(source) => StoreError::Build {
            path: db.to_path_buf(),
            temp: tmp.clone(),
            source: Box::new(source),
        },
        StoreError::Io(source) => StoreError::Build {
            path: db.to_path_buf(),
            temp: tmp.clone(),
            source: Box::new(source),
        },
        other => other,
    })
}

/// The temporary file of process `pid` building the dataset file `file_name`.
fn temp_name(file_name: &str, pid: u32) -> String {
    format!("{}{pid}", temp_prefix(file_name))
}

/// What the temporary files of the dataset file `file_name` start with.
fn temp_prefix(file_name: &str) -> String {
    format!(".{file_name}.tmp-")
}

/// Removes the temporary files of `file_name` in `dir` left by processes that no
/// longer exist (see the module doc). Best effort: a file that cannot be removed is
/// logged and left, it never fails the build.
fn remove_stale_temps(dir: &Path, file_name: &str) {
    for stale in crate::atomic::remove_stale(dir, &[temp_prefix(file_name)]) {
        let (path, pid) = (stale.path.display(), stale.pid);
        match stale.removed {
            Ok(()) => {
                tracing::info!(path = %path, pid, "removed the temporary file of a dead import")
            }
            Err(e) => {
                tracing::warn!(path = %path, error = %e, "cannot remove the temporary file of a dead import")
            }
        }
    }
}
