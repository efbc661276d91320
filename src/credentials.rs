//! The credentials roost issues: REST API keys (docs/api.md §5) and GraphQL sessions
//! (§6), in `data/auth.db`, a SQLite file of its own so that replacing or regenerating
//! the dataset never loses one.
//!
//! One store for both kinds:
//!
//! - one table, `credentials`, with a `kind` column (`key` or `session`). Ids are
//!   numbered per kind from 1 (`keys revoke 1` and `sessions revoke 1` name different
//!   credentials), as they were when each kind had a table of its own;
//! - one [`open`]: the file is created with mode 0600 before SQLite first opens it
//!   (SQLite gives its `-wal` and `-shm` files the same mode), in WAL mode (a check
//!   never waits for a `revoke`), with the schema; a file written by an earlier roost
//!   (tables `api_keys` and `sessions`, the latter with integer microsecond times) is
//!   migrated in one transaction on open;
//! - one secret: 32 bytes from the operating system's random source, URL-safe base64
//!   without padding (43 characters); a key carries the prefix `rk_` so that a leaked
//!   one is recognisable in logs and scans. Shown once; only its SHA-256 (hex) is kept;
//! - one time format, RFC 3339 UTC to the second (`2026-01-31T12:00:00Z`), and one
//!   bound on expiry ([`MAX_EXPIRY_DAYS`]), so every stored time reads back;
//! - one status rule ([`Status`]): revoked, else expired once the expiry is not after
//!   "now" (an unreadable expiry counts as expired: fail closed), else active;
//! - [`Credentials`]: the server's view, a few pooled connections behind a small
//!   [`Gate`], shared by the shim's key check and GraphQL's session check, and a cache
//!   of the rows it has looked up (found or not), keyed by the secret's hash. The cache
//!   holds until auth.db commits again, which every check sees by reading the header
//!   of auth.db's WAL index, without a lock ([`cache`]): any commit by any connection
//!   or process (`roost keys revoke`, `create`, a recorded use, an edit with another
//!   SQLite client) empties it, so a revocation applies from the next request on; an
//!   expiry is decided at each check from the cached expiry; a hit whose
//!   `last_used_at` is a minute old goes to the file, which records the use. A hit
//!   costs a hash, a lock and one 96-byte `pread`, no blocking task;
//! - the file is followed like the dataset ([`crate::pool`]): before each check the
//!   path is looked at (device and inode). Replaced (a new file renamed over it, a
//!   restored backup), it is reopened and the change logged; deleted, every check
//!   fails with [`CredentialError::Missing`] (the shim answers 503, `/readyz` says
//!   so, the log says it once) until a store is back at the path, never from the
//!   unlinked file that could no longer be listed or revoked. The server's
//!   connections never checkpoint on close, and a store created where none is
//!   removes a deleted one's `-wal` and `-shm` first, so the new store never reads
//!   the old one's pages (to replace a store, remove `auth.db-wal` and `auth.db-shm`,
//!   then rename the new file, closed, over `auth.db`: docs/architecture.md);
//! - a store that cannot be written (a read-only mount, a file the user may not
//!   write) is opened read-only ([`Access::ReadOnly`]): keys are checked and listed,
//!   `create` and `revoke` fail with [`CredentialError::ReadOnly`] naming the file;
//!   on a read-only file system SQLite reads it as immutable (it cannot build the
//!   WAL index there, and nobody can change the file).
//!
//! Every function takes "now" as a parameter: tests make a credential that has already
//! expired by creating it in the past.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use base64::Engine as _;
use chrono::{DateTime, Datelike as _, SecondsFormat, Utc};
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::pool::{Gate, Idle, PoolError};

use self::cache::{Cache, CacheKey, Stamp};

mod cache;

/// Prefix of every raw API key.
pub const KEY_PREFIX: &str = "rk_";
/// Random bytes in every secret (keys, sessions, CSRF tokens).
pub const SECRET_BYTES: usize = 32;
/// The longest expiry a credential may be given, in days (about 100 years).
pub const MAX_EXPIRY_DAYS: u32 = 36_500;
/// The longest name, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// The longest secret looked up; anything longer cannot be one.
const MAX_SECRET_LEN: usize = 256;
/// `last_used_at` is written at most this often per credential.
const LAST_USED_RESOLUTION_SECS: i64 = 60;
/// Checks running at the same time, and connections kept open, in a [`Credentials`].
const CHECK_PERMITS: usize = 4;
/// How long a write waits for another writer of auth.db.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// `PRAGMA user_version` of the current schema.
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS credentials (
    kind         TEXT    NOT NULL CHECK (kind IN ('key', 'session')),
    id           INTEGER NOT NULL,         -- numbered per kind, from 1
    name         TEXT    NOT NULL,
    hash         TEXT    NOT NULL UNIQUE,  -- hex SHA-256 of the secret; the secret is never stored
    created_at   TEXT    NOT NULL,         -- RFC 3339 UTC to the second
    expires_at   TEXT,                     -- null: never expires
    revoked_at   TEXT,                     -- null: not revoked
    last_used_at TEXT,                     -- written at most once a minute
    PRIMARY KEY (kind, id)
);
";

/// An API key or a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Key,
    Session,
}

impl Kind {
    /// The value of the `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Key => "key",
            Kind::Session => "session",
        }
    }

    /// What people call it.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Key => "API key",
            Kind::Session => "session",
        }
    }

    /// The `roost` command that manages it.
    pub fn command(self) -> &'static str {
        match self {
            Kind::Key => "keys",
            Kind::Session => "sessions",
        }
    }
}

/// A refused request or a failure of the store.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    #[error("the name must not be empty")]
    EmptyName,
    #[error("the name must be at most {MAX_NAME_CHARS} characters")]
    LongName,
    #[error(
        "the expiry must be at least 1 day (leave it out for a credential that does not expire)"
    )]
    ExpiryTooShort,
    #[error("the expiry must be at most {MAX_EXPIRY_DAYS} days (about 100 years), not {0}")]
    ExpiryTooLong(u32),
    #[error("no {} with id {id} (see `roost {} list`)", .kind.noun(), .kind.command())]
    NotFound { kind: Kind, id: i64 },
    #[error("reading random bytes from the operating system: {0}")]
    Random(String),
    #[error("creating {}", .path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no credential store at {}", .path.display())]
    Missing { path: PathBuf },
    #[error(
        "{} is read-only ({reason}): credentials can be listed and checked, not created or revoked",
        .path.display()
    )]
    ReadOnly { path: PathBuf, reason: &'static str },
    #[error("{} was written by an earlier roost and needs a migration, which needs write access", .path.display())]
    ReadOnlyLegacy { path: PathBuf },
    #[error("opening {}", .path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a SQLite file", .path.display())]
    NotSqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{} was written by a newer roost (credential schema {found}, this roost knows {SCHEMA_VERSION})", .path.display())]
    NewerSchema { path: PathBuf, found: i64 },
    #[error("preparing the credential table in {}", .path.display())]
    Schema {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Pool(#[from] PoolError),
}

impl CredentialError {
    /// Whether the store itself cannot be used (missing, not a store, unreadable):
    /// a server answers 503 rather than refusing the credential.
    pub fn store_unavailable(&self) -> bool {
        matches!(
            self,
            CredentialError::Missing { .. }
                | CredentialError::NotSqlite { .. }
                | CredentialError::NewerSchema { .. }
                | CredentialError::ReadOnlyLegacy { .. }
                | CredentialError::Open { .. }
        )
    }
}

type Result<T, E = CredentialError> = std::result::Result<T, E>;

/// RFC 3339 UTC to the second with a `Z`: the format of every time in auth.db.
pub fn format_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// SHA-256 of a secret, hex: what auth.db stores.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// 32 bytes from the operating system's random source, URL-safe base64 without
/// padding: a session token or a CSRF token.
pub fn random_token() -> Result<String> {
    use rand::TryRng as _;
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| CredentialError::Random(e.to_string()))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// A new secret of `kind`: a key is [`KEY_PREFIX`] and a token, a session a token.
pub fn new_secret(kind: Kind) -> Result<String> {
    let token = random_token()?;
    Ok(match kind {
        Kind::Key => format!("{KEY_PREFIX}{token}"),
        Kind::Session => token,
    })
}

/// Whether a credential store can be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    ReadWrite,
    ReadOnly,
}

/// Why the store at `path` cannot be written, when it cannot: `Ok(None)` when it can
/// (or does not exist).
fn read_only_reason(path: &Path) -> Result<Option<&'static str>> {
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::ReadOnlyFilesystem => {
            Ok(Some("a read-only file system"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            Ok(Some("this user may not write it"))
        }
        Err(source) => Err(CredentialError::Open {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Opens auth.db read-write, creating it (and its folder) with mode 0600 when it does
/// not exist; WAL; the schema, migrating a file of an earlier roost in one transaction.
/// A store that cannot be written is [`CredentialError::ReadOnly`].
pub fn open(path: &Path) -> Result<Connection> {
    if let Some(reason) = read_only_reason(path)? {
        return Err(CredentialError::ReadOnly {
            path: path.to_path_buf(),
            reason,
        });
    }
    if !path.exists() {
        remove_sidecars(path)?;
    }
    create_private(path)?;
    let conn = Connection::open(path).map_err(|source| CredentialError::NotSqlite {
        path: path.to_path_buf(),
        source,
    })?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
        .map_err(|source| CredentialError::NotSqlite {
            path: path.to_path_buf(),
            source,
        })?;
    prepare_schema(&conn, path)?;
    Ok(conn)
}

/// Opens the store at `path`, which must exist (never creates one): read-write as
/// [`open`] does, or read-only when it cannot be written.
pub fn open_existing(path: &Path) -> Result<(Connection, Access)> {
    if !path.is_file() {
        return Err(CredentialError::Missing {
            path: path.to_path_buf(),
        });
    }
    match read_only_reason(path)? {
        None => Ok((open(path)?, Access::ReadWrite)),
        Some(reason) => Ok((open_read_only(path, reason)?, Access::ReadOnly)),
    }
}

/// Another connection to a store [`open_existing`] opened (its schema ready): never
/// creates the file, so a store deleted meanwhile is [`CredentialError::Missing`].
fn reconnect(path: &Path, access: Access) -> Result<Connection> {
    use rusqlite::OpenFlags;
    if access == Access::ReadOnly {
        let reason = read_only_reason(path)?.unwrap_or("a read-only file system");
        return open_read_only(path, reason);
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|source| {
        if path.is_file() {
            CredentialError::NotSqlite {
                path: path.to_path_buf(),
                source,
            }
        } else {
            CredentialError::Missing {
                path: path.to_path_buf(),
            }
        }
    })?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

/// A read-only connection to the store at `path`, its schema checked (a file of an
/// earlier roost cannot be migrated without writing it). On a read-only file system
/// SQLite cannot create the WAL index, and nobody can change the file: it is opened
/// as immutable.
fn open_read_only(path: &Path, reason: &'static str) -> Result<Connection> {
    use rusqlite::OpenFlags;
    let not_sqlite = |source| CredentialError::NotSqlite {
        path: path.to_path_buf(),
        source,
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let absolute = std::path::absolute(path).map_err(|source| CredentialError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let mut uri = format!("file:{}", uri_path(&absolute));
    if reason == "a read-only file system" {
        uri.push_str("?immutable=1");
    } else {
        uri.push_str("?mode=ro");
    }
    let conn = Connection::open_with_flags(&uri, flags).map_err(not_sqlite)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(not_sqlite)?;
    if version > SCHEMA_VERSION {
        return Err(CredentialError::NewerSchema {
            path: path.to_path_buf(),
            found: version,
        });
    }
    if version < SCHEMA_VERSION || !legacy_tables(&conn).map_err(not_sqlite)?.is_empty() {
        return Err(CredentialError::ReadOnlyLegacy {
            path: path.to_path_buf(),
        });
    }
    Ok(conn)
}

/// `path` for a `file:` URI: every byte but unreserved ones and `/` percent-encoded.
fn uri_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    percent_encoding::percent_encode(path.as_os_str().as_bytes(), KEEP).to_string()
}

/// A failed write, [`CredentialError::ReadOnly`] when SQLite says the file cannot be
/// written.
fn write_error(conn: &Connection, e: rusqlite::Error) -> CredentialError {
    let read_only = matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::ReadOnly));
    match conn.path().filter(|_| read_only) {
        Some(path) => CredentialError::ReadOnly {
            path: PathBuf::from(path),
            reason: read_only_reason(Path::new(path))
                .ok()
                .flatten()
                .unwrap_or("SQLite cannot write it"),
        },
        None => e.into(),
    }
}

/// Removes the `-wal` and `-shm` files beside a store that does not exist: they are
/// a deleted store's (a running `roost serve` may still hold them open, unlinked),
/// and SQLite would read the deleted store's pages from them into the new one.
fn remove_sidecars(path: &Path) -> Result<()> {
    for suffix in ["-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let sidecar = PathBuf::from(name);
        match std::fs::remove_file(&sidecar) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(CredentialError::Create {
                    path: sidecar,
                    source,
                })
            }
        }
    }
    Ok(())
}

/// Creates an empty file readable by its owner only, unless one is there already.
fn create_private(path: &Path) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let failed = |source| CredentialError::Create {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| CredentialError::Create {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => {
            crate::crash::point("credentials::create_file");
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(failed(e)),
    }
}

/// Tables of earlier roost versions present in the file, migrated by [`prepare_schema`].
fn legacy_tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('api_keys', 'sessions')",
    )?;
    let names = st.query_map([], |r| r.get(0))?;
    names.collect()
}

/// Creates the table, or migrates the tables of an earlier roost, in one transaction.
fn prepare_schema(conn: &Connection, path: &Path) -> Result<()> {
    let schema = |source| CredentialError::Schema {
        path: path.to_path_buf(),
        source,
    };
    let current = |conn: &Connection| -> rusqlite::Result<(i64, bool)> {
        let version = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        Ok((version, legacy_tables(conn)?.is_empty()))
    };
    let (version, no_legacy) = current(conn).map_err(schema)?;
    if version > SCHEMA_VERSION {
        return Err(CredentialError::NewerSchema {
            path: path.to_path_buf(),
            found: version,
        });
    }
    if version == SCHEMA_VERSION && no_legacy {
        return Ok(());
    }
    // `Transaction` needs `&mut`; the statements are the same on a shared connection.
    conn.execute_batch("BEGIN IMMEDIATE").map_err(schema)?;
    let result = (|| {
        // Another process may have done it while this one waited for the lock.
        conn.execute_batch(SCHEMA)?;
        for table in legacy_tables(conn)? {
            migrate(conn, &table)?;
        }
        conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))
    })();
    match result {
        Ok(()) => {
            crate::crash::point("credentials::schema");
            conn.execute_batch("COMMIT").map_err(schema)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(schema(e))
        }
    }
}

/// Moves the rows of a legacy table into `credentials`, keeping ids, then drops it.
/// `api_keys` already held RFC 3339 text; `sessions` held microseconds since the epoch.
fn migrate(conn: &Connection, table: &str) -> rusqlite::Result<()> {
    match table {
        "api_keys" => conn.execute_batch(
            "INSERT INTO credentials (kind, id, name, hash, created_at, expires_at, revoked_at, last_used_at)
             SELECT 'key', id, name, hash, created_at, expires_at, revoked_at, last_used_at FROM api_keys;
             DROP TABLE api_keys;",
        ),
        "sessions" => {
            migrate_sessions(conn)?;
            conn.execute_batch("DROP TABLE sessions")
        }
        _ => Ok(()),
    }
}

fn migrate_sessions(conn: &Connection) -> rusqlite::Result<()> {
    type Row = (
        i64,
        String,
        String,
        i64,
        Option<i64>,
        Option<i64>,
        Option<i64>,
    );
    let mut select = conn.prepare(
        "SELECT id, name, token_sha256, created_at, expires_at, revoked_at, last_used_at \
         FROM sessions",
    )?;
    let rows: Vec<Row> = select
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut insert = conn.prepare(
        "INSERT INTO credentials \
         (kind, id, name, hash, created_at, expires_at, revoked_at, last_used_at) \
         VALUES ('session', ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let t = |micros: i64| format_time(from_micros(micros));
    for (id, name, hash, created, expires, revoked, used) in rows {
        insert.execute(params![
            id,
            name,
            hash,
            t(created),
            expires.map(t),
            revoked.map(t),
            used.map(t)
        ])?;
    }
    Ok(())
}

/// A legacy microsecond time, truncated to the second and kept within the years
/// RFC 3339 can write (0000-9999), so that it reads back.
fn from_micros(micros: i64) -> DateTime<Utc> {
    let max = latest_storable();
    DateTime::from_timestamp_micros(micros)
        .filter(|t| *t <= max)
        .unwrap_or(max)
}

/// 9999-12-31T23:59:59Z.
fn latest_storable() -> DateTime<Utc> {
    DateTime::from_timestamp(253_402_300_799, 0).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// A credential just made: the only time its secret exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issued {
    pub id: i64,
    pub name: String,
    pub expires_at: Option<String>,
    pub secret: String,
}

/// Makes a credential of `kind` at `now`, expiring `expires_in_days` later (never
/// when `None`). The name is trimmed.
pub fn create(
    conn: &Connection,
    kind: Kind,
    name: &str,
    expires_in_days: Option<u32>,
    now: DateTime<Utc>,
) -> Result<Issued> {
    let name = name.trim();
    if name.is_empty() {
        return Err(CredentialError::EmptyName);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(CredentialError::LongName);
    }
    let expires_at = match expires_in_days {
        None => None,
        Some(0) => return Err(CredentialError::ExpiryTooShort),
        Some(days) if days > MAX_EXPIRY_DAYS => return Err(CredentialError::ExpiryTooLong(days)),
        Some(days) => {
            let at = now
                .checked_add_signed(chrono::Duration::days(i64::from(days)))
                .filter(|t| t.year() <= 9999)
                .ok_or(CredentialError::ExpiryTooLong(days))?;
            Some(format_time(at))
        }
    };
    let secret = new_secret(kind)?;
    crate::crash::point("credentials::write");
    let id: i64 = conn
        .query_row(
            "INSERT INTO credentials (kind, id, name, hash, created_at, expires_at) \
         VALUES (?1, (SELECT COALESCE(MAX(id), 0) + 1 FROM credentials WHERE kind = ?1), \
                 ?2, ?3, ?4, ?5) \
         RETURNING id",
            params![
                kind.as_str(),
                name,
                hash_secret(&secret),
                format_time(now),
                expires_at
            ],
            |r| r.get(0),
        )
        .map_err(|e| write_error(conn, e))?;
    crate::crash::point("credentials::written");
    Ok(Issued {
        id,
        name: name.to_string(),
        expires_at,
        secret,
    })
}

/// Where a credential stands at a given time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Active,
    Expired,
    Revoked,
}

impl Status {
    /// Revoked, else expired once the expiry is not after `now` (an unreadable expiry
    /// counts as expired), else active.
    pub fn of(expires_at: Option<&str>, revoked: bool, now: DateTime<Utc>) -> Status {
        if revoked {
            Status::Revoked
        } else if expires_at.is_some_and(|t| parse_time(t).is_none_or(|t| t <= now)) {
            Status::Expired
        } else {
            Status::Active
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Expired => "expired",
            Status::Revoked => "revoked",
        }
    }
}

/// A credential as listed (never its secret nor its hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub id: i64,
    pub name: String,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
    pub last_used_at: Option<String>,
}

impl Credential {
    pub fn status(&self, now: DateTime<Utc>) -> Status {
        Status::of(self.expires_at.as_deref(), self.revoked_at.is_some(), now)
    }
}

/// Every credential of `kind`, by id.
pub fn list(conn: &Connection, kind: Kind) -> Result<Vec<Credential>> {
    let mut st = conn.prepare(
        "SELECT id, name, created_at, expires_at, revoked_at, last_used_at \
         FROM credentials WHERE kind = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([kind.as_str()], |r| {
        Ok(Credential {
            id: r.get(0)?,
            name: r.get(1)?,
            created_at: r.get(2)?,
            expires_at: r.get(3)?,
            revoked_at: r.get(4)?,
            last_used_at: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What a revocation did, and when the credential was revoked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revoked {
    Now(String),
    Already(String),
}

/// Revokes a credential of `kind` at `now`; revoking twice changes nothing.
pub fn revoke(conn: &Connection, kind: Kind, id: i64, now: DateTime<Utc>) -> Result<Revoked> {
    let at = format_time(now);
    crate::crash::point("credentials::write");
    let updated = conn
        .execute(
            "UPDATE credentials SET revoked_at = ?3 \
             WHERE kind = ?1 AND id = ?2 AND revoked_at IS NULL",
            params![kind.as_str(), id, at],
        )
        .map_err(|e| write_error(conn, e))?;
    crate::crash::point("credentials::written");
    if updated == 1 {
        return Ok(Revoked::Now(at));
    }
    let revoked: Option<Option<String>> = conn
        .query_row(
            "SELECT revoked_at FROM credentials WHERE kind = ?1 AND id = ?2",
            params![kind.as_str(), id],
            |r| r.get(0),
        )
        .optional()?;
    match revoked {
        Some(Some(at)) => Ok(Revoked::Already(at)),
        _ => Err(CredentialError::NotFound { kind, id }),
    }
}

/// Looks a secret up at `now`: the id of the active credential of `kind` it belongs
/// to, or `None` (missing, unknown, revoked or expired alike). Records the use when
/// the last one is a minute old or more.
pub fn check(
    conn: &Connection,
    kind: Kind,
    secret: &[u8],
    now: DateTime<Utc>,
) -> Result<Option<i64>> {
    let Ok(secret) = std::str::from_utf8(secret) else {
        return Ok(None);
    };
    if secret.is_empty() || secret.len() > MAX_SECRET_LEN {
        return Ok(None);
    }
    let row = look_up(conn, kind, &hash_secret(secret), now)?;
    Ok(row.and_then(|row| row.active_id(now)))
}

/// What a check needs of a credential's row.
#[derive(Debug, Clone)]
struct Found {
    id: i64,
    expires_at: Option<String>,
    revoked: bool,
    /// When the use was last recorded (by this look-up, if it recorded one).
    last_used_at: Option<DateTime<Utc>>,
}

impl Found {
    fn active_id(&self, now: DateTime<Utc>) -> Option<i64> {
        (Status::of(self.expires_at.as_deref(), self.revoked, now) == Status::Active)
            .then_some(self.id)
    }

    /// Whether the next use at `now` is to be recorded.
    fn use_is_stale(&self, now: DateTime<Utc>) -> bool {
        self.last_used_at
            .is_none_or(|t| (now - t).num_seconds() >= LAST_USED_RESOLUTION_SECS)
    }
}

/// The row of the credential of `kind` whose secret hashes to `hash` (hex), recording
/// its use at `now` when it is active and the last use is a minute old or more.
fn look_up(conn: &Connection, kind: Kind, hash: &str, now: DateTime<Utc>) -> Result<Option<Found>> {
    type Row = (i64, Option<String>, Option<String>, Option<String>);
    let row: Option<Row> = conn
        .prepare_cached(
            "SELECT id, expires_at, revoked_at, last_used_at FROM credentials \
             WHERE hash = ?1 AND kind = ?2",
        )?
        .query_row(params![hash, kind.as_str()], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let Some((id, expires_at, revoked_at, last_used_at)) = row else {
        return Ok(None);
    };
    let mut found = Found {
        id,
        expires_at,
        revoked: revoked_at.is_some(),
        last_used_at: last_used_at.as_deref().and_then(parse_time),
    };
    if found.active_id(now).is_some() && found.use_is_stale(now) {
        // Best effort: a busy file must not fail the request.
        match conn.execute(
            "UPDATE credentials SET last_used_at = ?3 WHERE kind = ?1 AND id = ?2",
            params![kind.as_str(), id, format_time(now)],
        ) {
            Ok(_) => found.last_used_at = Some(now),
            Err(e) => {
                tracing::debug!(kind = kind.as_str(), id, error = %e, "could not record last use");
            }
        }
    }
    Ok(Some(found))
}

/// The server's credential store: a few connections to auth.db, reused, behind a
/// small [`Gate`], following the file at its path (see the module doc). Cloning
/// shares it.
#[derive(Debug, Clone)]
pub struct Credentials(std::sync::Arc<Inner>);

/// A store file's identity: device and inode.
type StoreId = (u64, u64);

fn store_id(path: &Path) -> Option<StoreId> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| (m.dev(), m.ino()))
}

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    gate: Gate,
    idle: Idle<StoreId>,
    store: Mutex<Store>,
}

/// The file the store's connections are open on, and what was last said about it.
#[derive(Debug)]
struct Store {
    id: StoreId,
    access: Access,
    cache: Cache,
    /// Why the store at the path cannot be used, as last logged; `None` while it can.
    problem: Option<String>,
}

/// A connection of the server's: it never checkpoints on close, so closing one
/// never removes `auth.db-wal` and `auth.db-shm` by name, which by then may belong
/// to a new store at the path (the old one deleted or replaced meanwhile).
fn server_side(conn: Connection) -> Result<Connection> {
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    Ok(conn)
}

impl Credentials {
    /// Opens auth.db once (creating or migrating it, or read-only when it cannot be
    /// written) and keeps the connection.
    pub fn open(path: &Path) -> Result<Credentials> {
        if !path.exists() {
            open(path)?;
        }
        let (conn, access) = open_existing(path)?;
        let conn = server_side(conn)?;
        let watcher = server_side(open_existing(path)?.0)?;
        let id = store_id(path).ok_or_else(|| CredentialError::Missing {
            path: path.to_path_buf(),
        })?;
        if access == Access::ReadOnly {
            tracing::warn!(
                target: "roost::credentials",
                auth_db = %path.display(),
                "the credential store {} is read-only: keys and sessions are checked; \
                 none can be created or revoked, and their last use is not recorded",
                path.display()
            );
        }
        let idle = Idle::new(CHECK_PERMITS);
        idle.give(conn, id);
        Ok(Credentials(std::sync::Arc::new(Inner {
            path: path.to_path_buf(),
            gate: Gate::new(CHECK_PERMITS),
            idle,
            store: Mutex::new(Store {
                id,
                access,
                cache: Cache::new(watcher, path),
                problem: None,
            }),
        })))
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.0.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Follows the file at the path: reopens a replaced store, and fails while there
    /// is none (or it cannot be opened), logging each change once.
    fn follow(&self, store: &mut Store) -> Result<(StoreId, Access)> {
        self.follow_seen(store, None)
    }

    /// [`Credentials::follow`], given the path's identity as read just before the
    /// store's lock was taken (so that the lock is not held across that `statx`):
    /// when it is the store's, and the store answers, nothing else is read; otherwise
    /// the path is looked at again under the lock, as `follow` does.
    fn follow_seen(&self, store: &mut Store, seen: Option<StoreId>) -> Result<(StoreId, Access)> {
        if seen == Some(store.id) && store.problem.is_none() {
            return Ok((store.id, store.access));
        }
        let path = &self.0.path;
        let Some(id) = store_id(path) else {
            let e = CredentialError::Missing { path: path.clone() };
            self.trouble(store, &e);
            return Err(e);
        };
        if id == store.id && store.problem.is_none() {
            return Ok((id, store.access));
        }
        let opened = open_existing(path).and_then(|(watcher, access)| {
            // The file may have been replaced again while it was opened: then the next
            // check reopens it.
            Ok((server_side(watcher)?, access, store_id(path).unwrap_or(id)))
        });
        let (watcher, access, id) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                self.trouble(store, &e);
                return Err(e);
            }
        };
        let replaced = store.id != id;
        store.id = id;
        store.access = access;
        store.cache = Cache::new(watcher, path);
        store.problem = None;
        tracing::warn!(
            target: "roost::credentials",
            auth_db = %path.display(),
            read_only = access == Access::ReadOnly,
            "the credential store {} {}: reopened{}",
            path.display(),
            if replaced { "was replaced" } else { "answers again" },
            if access == Access::ReadOnly { " read-only" } else { "" }
        );
        Ok((id, access))
    }

    /// Logs why the store cannot be used, once per cause.
    fn trouble(&self, store: &mut Store, e: &CredentialError) {
        let text = describe(e);
        if store.problem.as_deref() != Some(text.as_str()) {
            tracing::error!(
                target: "roost::credentials",
                auth_db = %self.0.path.display(),
                "the credential store cannot be used, every API key and session is refused \
                 with 503 until it can: {text}"
            );
            store.problem = Some(text);
        }
    }

    /// Whether the store at the path can be used now (`/readyz`, the metrics), and
    /// how: reopened first when it was replaced.
    pub fn status(&self) -> Result<Access> {
        let mut store = self.store();
        self.follow(&mut store).map(|(_, access)| access)
    }

    /// The cache's answer for a secret's hash at `now`, the stamp a look-up would
    /// be remembered under (see [`Cache::answer`]), and the file it is to be made in.
    #[allow(clippy::type_complexity)]
    fn cached(
        &self,
        key: &CacheKey,
        now: DateTime<Utc>,
    ) -> Result<(Option<Option<i64>>, Option<Stamp>, StoreId, Access)> {
        let seen = store_id(&self.0.path);
        let mut store = self.store();
        let (id, access) = self.follow_seen(&mut store, seen)?;
        let (answer, stamp) = store.cache.answer(key, now);
        Ok((answer, stamp, id, access))
    }

    fn remember(&self, key: CacheKey, found: Option<Found>, stamp: Option<Stamp>, id: StoreId) {
        let mut store = self.store();
        if store.id == id {
            store.cache.remember(key, found, stamp);
        }
    }

    pub fn path(&self) -> &Path {
        &self.0.path
    }

    /// [`check`] on one of the pooled connections, off the async workers.
    pub async fn check(
        &self,
        kind: Kind,
        secret: Option<&[u8]>,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>> {
        let Some(secret) = secret.filter(|s| !s.is_empty() && s.len() <= MAX_SECRET_LEN) else {
            return Ok(None);
        };
        if std::str::from_utf8(secret).is_err() {
            return Ok(None);
        }
        let digest: [u8; 32] = Sha256::digest(secret).into();
        let key: CacheKey = (kind, digest);
        let (answer, stamp, id, access) = self.cached(&key, now)?;
        if let Some(answer) = answer {
            return Ok(answer);
        }
        let inner = std::sync::Arc::clone(&self.0);
        let found = self
            .0
            .gate
            .run(move || {
                let conn = match inner.idle.take(id) {
                    Some(conn) => conn,
                    None => server_side(reconnect(&inner.path, access)?)?,
                };
                let found = look_up(&conn, kind, &hex::encode(digest), now);
                inner.idle.give(conn, id);
                found
            })
            .await??;
        let answer = found.as_ref().and_then(|f| f.active_id(now));
        self.remember(key, found, stamp, id);
        Ok(answer)
    }
}

/// An error and its causes on one line, each said once (docs/architecture.md's error
/// rule, as [`crate::error::report`] says it).
pub fn describe(e: &CredentialError) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let more = cause.to_string();
        if !more.is_empty() && !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests;
