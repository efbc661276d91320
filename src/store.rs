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
pub mod original;
mod read;
mod sample;
mod validate;
mod write;

pub use check::check;
pub use open::{open_api, open_read, FileId};
pub use read::{parse_lines, read_dir, KEPT_PER_FILE, KINDS};
pub use sample::{init_db, sample_dataset, SAMPLE};
pub use write::changelog;

/// The schema, embedded from `data/schema.sql`.
pub const SCHEMA: &str = include_str!("../data/schema.sql");
/// Bumped whenever `data/schema.sql` changes incompatibly (2: issue bodies moved out
/// of `issues` into `issue_bodies`; 3: per-repository labels, pull requests, posts,
/// project health metrics, badges, channels, related URLs and the community row; 4:
/// mentorship programs and modules, boards of directors, member snapshots and the
/// dashboard's health fields; 5: the exposure views, `crate::schema::exposure`).
pub const SCHEMA_VERSION: &str = "5";

/// Creates the tables of [`SCHEMA`] and the exposure views on `conn`.
pub fn create_schema(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute_batch(SCHEMA)?;
    conn.execute_batch(&crate::schema::exposure::views_ddl())
}

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
    #[error("{}", would_empty(.path, .kinds))]
    WouldEmpty {
        path: PathBuf,
        /// The kinds the import has no records of, with the records `path` holds.
        kinds: Vec<(&'static str, u64)>,
    },
    /// Reading the original service's database failed (`url` without its password).
    #[error("reading the original service's database {url}")]
    Original {
        url: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Lower case used for every case-insensitive comparison in roost.
pub use crate::schema::lc;

/// The tables a dataset file holds beside its records, derived from them: built on the
/// records just written, in the same transaction, before the file is renamed into
/// place, so they are swapped with the records they come from. The store sits below
/// the modules that define them (the search index of `/idx/`, `crate::idx::build`),
/// so the caller of a build names them.
pub type Derive = fn(&rusqlite::Connection) -> Result<(), StoreError>;

/// Checks a dataset (keys, references, ranges) and writes it to `db` atomically, with
/// the tables `derive` builds from it. Nothing is written unless the whole dataset is
/// valid.
pub fn build(ds: &Dataset, db: &Path, derive: Derive) -> Result<(), StoreError> {
    let r = validate::resolve(ds, validate::Snapshots::Now)?;
    write::write_atomically(db, |conn| {
        write::insert(conn, ds, &r)?;
        write::insert_snapshots(conn, &ds.snapshots, &r.snapshot_links)?;
        derive(conn)
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
    derive: Derive,
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
        write::insert_snapshots(conn, &ds.snapshots, &links)?;
        derive(conn)
    })
}

/// Reads a folder and builds the dataset from it, whatever `db` held before (a
/// mirror's copy of a published dataset); the records imported per kind.
pub fn import_dir(dir: &Path, db: &Path, derive: Derive) -> Result<Counts, StoreError> {
    import_dir_keeping(dir, db, &AllowEmpty::All, derive)
}

/// Which kinds an import may leave empty when the dataset it replaces holds records
/// of them (`roost db import --allow-empty KIND|all`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowEmpty {
    All,
    Kinds(Vec<String>),
}

impl AllowEmpty {
    fn allows(&self, kind: &str) -> bool {
        match self {
            AllowEmpty::All => true,
            AllowEmpty::Kinds(kinds) => kinds.iter().any(|k| k == kind),
        }
    }
}

/// `roost db import`: reads a folder and builds the dataset from it, refusing (and
/// changing nothing) when a kind of record the existing `db` holds would be left
/// empty and `allow_empty` does not allow it; the records imported per kind.
pub fn import_dir_keeping(
    dir: &Path,
    db: &Path,
    allow_empty: &AllowEmpty,
    derive: Derive,
) -> Result<Counts, StoreError> {
    let ds = read_dir(dir)?;
    import_dataset_keeping(&ds, db, allow_empty, derive)
}

/// Builds the dataset from records read in full (a folder, the original's database),
/// refusing (and changing nothing) when a kind the existing `db` holds would be left
/// empty and `allow_empty` does not allow it; the records imported per kind.
pub fn import_dataset_keeping(
    ds: &Dataset,
    db: &Path,
    allow_empty: &AllowEmpty,
    derive: Derive,
) -> Result<Counts, StoreError> {
    // The community row is always written (community.json's, or the defaults).
    let counts = Counts(
        ds.kind_counts()
            .into_iter()
            .chain([("community", 1)])
            .collect(),
    );
    let emptied: Vec<(&'static str, u64)> = existing_counts(db)
        .into_iter()
        .zip(&counts.0)
        .filter(|((kind, held), (_, new))| *held > 0 && *new == 0 && !allow_empty.allows(kind))
        .map(|(held, _)| held)
        .collect();
    if !emptied.is_empty() {
        return Err(StoreError::WouldEmpty {
            path: db.to_path_buf(),
            kinds: emptied,
        });
    }
    build(ds, db, derive)?;
    Ok(counts)
}

/// The records of each kind (in the order of [`KINDS`]) the dataset file at `db`
/// holds: 0 for a kind whose table cannot be read, every count 0 when there is no
/// file or it is no SQLite database.
fn existing_counts(db: &Path) -> Vec<(&'static str, u64)> {
    let conn = db
        .is_file()
        .then(|| {
            rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .ok()
        })
        .flatten();
    KINDS
        .iter()
        .map(|kind| {
            let held = conn
                .as_ref()
                .and_then(|c| {
                    c.query_row(&format!("SELECT count(*) FROM {kind}"), [], |r| {
                        r.get::<_, i64>(0)
                    })
                    .ok()
                })
                .unwrap_or(0);
            (*kind, held.max(0) as u64)
        })
        .collect()
}

/// Records per kind, in the order of [`KINDS`], then the one community row; displayed
/// as `12 organizations, 1,204 chapters, …, 1 community` (`_` in a kind's name as a
/// space).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts(pub Vec<(&'static str, u64)>);

impl Counts {
    /// Every record imported.
    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, n)| n).sum()
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (kind, n)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{} {}", thousands(*n), kind.replace('_', " "))?;
        }
        Ok(())
    }
}

/// [`StoreError::WouldEmpty`]'s message: what would be emptied, and the flags that allow it.
fn would_empty(path: &Path, kinds: &[(&'static str, u64)]) -> String {
    let held: Vec<String> = kinds
        .iter()
        .map(|(k, n)| format!("{} {}", thousands(*n), k.replace('_', " ")))
        .collect();
    let flags: Vec<String> = kinds
        .iter()
        .map(|(k, _)| format!("--allow-empty {k}"))
        .collect();
    format!(
        "{} holds {} but the import has none (a missing or empty KIND.jsonl); pass {} \
         (or --allow-empty all) to empty them; the dataset was not changed",
        path.display(),
        held.join(", "),
        flags.join(" ")
    )
}

/// `1204` → `1,204`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
