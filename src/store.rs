//! The dataset store: the SQLite file every reader of roost opens, and the one way a
//! dataset gets into it. An import goes through three steps, each in its own module:
//!
//! - `read`: the JSON Lines interchange files into records, every syntax and type error
//!   reported as `file:line: what is wrong`;
//! - `validate`: the whole dataset checked at once (natural keys, references, ranges),
//!   giving the row ids every reference resolves to;
//! - `write`: the SQLite file, built in a temporary file beside the target and renamed
//!   over it once complete, so a failed import leaves the existing file byte-identical
//!   and a reader sees either the old dataset or the new one. Temporary files left by an
//!   import that died are removed by the next one (see `write`).
//!
//! Beside them: `open` (opening a dataset for reading, with its schema version check),
//! `check` (the integrity report of `roost db check`), `export` (`roost db export`, the
//! dataset back out in the interchange format) and `sample` (the dataset shipped
//! inside the binary, and `roost db init`).

use std::path::{Path, PathBuf};

use crate::records::{Dataset, Issue, Milestone, PullRequest, Release, RepositoryContributor};

mod check;
pub mod export;
mod open;
mod read;
mod sample;
mod validate;
mod write;

pub use check::check;
pub use open::{open_read, FileId};
pub use read::{parse_lines, read_dir, KEPT_PER_FILE};
pub use sample::{init_db, sample_dataset, SAMPLE};

/// The schema, embedded from `data/schema.sql`.
pub const SCHEMA: &str = include_str!("../data/schema.sql");
/// Bumped whenever `data/schema.sql` changes incompatibly (2: issue bodies moved out
/// of `issues` into `issue_bodies`; 3: per-repository labels, pull requests, posts,
/// project health metrics, badges, channels, related URLs and the community row).
pub const SCHEMA_VERSION: &str = "3";

/// Import errors, one `file:line: what is wrong` per entry, and how many more were
/// found but not kept (a file's errors past the first [`read::KEPT_PER_FILE`] are
/// counted only, so a file of millions of bad lines costs no memory for them).
#[derive(Debug)]
pub struct ImportErrors(pub Vec<String>, pub usize);

impl std::fmt::Display for ImportErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 50;
        for line in self.0.iter().take(SHOWN) {
            writeln!(f, "{line}")?;
        }
        let total = self.0.len() + self.1;
        if total > SHOWN {
            writeln!(f, "... and {} more", total - self.0.len().min(SHOWN))?;
        }
        write!(f, "{total} error(s); the dataset was not changed")
    }
}

impl std::error::Error for ImportErrors {}

/// Why a store operation failed. Each message names the file and, where there is one,
/// what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The input is not a valid dataset; nothing was written.
    #[error(transparent)]
    Import(#[from] ImportErrors),
    #[error("dataset {} does not exist; create it with `roost db init`", .0.display())]
    Missing(PathBuf),
    #[error("{} already exists; pass --force to replace it with the sample", .0.display())]
    Exists(PathBuf),
    #[error("opening {}", .path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{} is not a roost dataset", .path.display())]
    NotADataset {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "{} was built by {} roost (schema version {found}, this roost reads {SCHEMA_VERSION}); \
         re-import it (`roost db import`, `db init --force` or `db synth`)",
        .path.display(),
        if .found.parse::<u64>().ok() < SCHEMA_VERSION.parse::<u64>().ok() { "an older" } else { "another" }
    )]
    SchemaVersion { path: PathBuf, found: String },
    #[error("{} is not a file path", .0.display())]
    NotAFilePath(PathBuf),
    #[error("creating {}", .path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("creating {}", .path.display())]
    CreateTemp {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// Writing the new dataset failed (a full disk, a read-only folder).
    #[error("building {} (in {})", .path.display(), .temp.display())]
    Build {
        path: PathBuf,
        temp: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("moving the new dataset to {}", .path.display())]
    Rename {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Lower case used for every case-insensitive comparison in roost.
pub fn lc(text: &str) -> String {
    text.to_lowercase()
}

/// Checks a dataset (keys, references, ranges) and writes it to `db` atomically.
/// Nothing is written unless the whole dataset is valid.
pub fn build(ds: &Dataset, db: &Path) -> Result<(), StoreError> {
    let r = validate::resolve(ds, validate::Snapshots::Now)?;
    write::write_atomically(db, |conn| {
        write::insert(conn, ds, &r)?;
        write::insert_snapshots(conn, &ds.snapshots, &r.snapshot_links)
    })
}

/// A record handed to [`build_streaming`] after the dataset's own of its type.
#[derive(Debug, Clone)]
pub enum Streamed {
    Contributor(RepositoryContributor),
    Issue(Issue),
    Milestone(Milestone),
    Release(Release),
    PullRequest(PullRequest),
}

/// [`build`], with the records `more` gives written after the dataset's own of their
/// type, one at a time as they come, each checked like a record of its file whose
/// line follows the file's last (`roost db synth` streams the records of its
/// repositories and its pull requests instead of holding them all in memory). The
/// dataset's snapshots may list issues and releases of `more`: they are checked and
/// written last. An invalid record fails the build like any import error, and the
/// target is left as it was; the check of the dataset's own records comes first, so
/// an invalid dataset fails before `more` is asked for anything.
pub fn build_streaming(
    ds: &Dataset,
    more: impl Iterator<Item = Streamed>,
    db: &Path,
) -> Result<(), StoreError> {
    let mut r = validate::resolve(ds, validate::Snapshots::Later)?;
    write::write_atomically(db, |conn| {
        write::insert(conn, ds, &r)?;
        write::insert_more(conn, &mut r, more)?;
        let mut errors = std::mem::take(&mut r.more.errors);
        let links = r.more.snapshot_links(ds, &mut errors);
        if !errors.is_empty() {
            return Err(ImportErrors(errors, 0).into());
        }
        write::insert_snapshots(conn, &ds.snapshots, &links)
    })
}

/// Reads a folder and builds the dataset from it: `roost db import`.
pub fn import_dir(dir: &Path, db: &Path) -> Result<(), StoreError> {
    let ds = read_dir(dir)?;
    build(&ds, db)
}
