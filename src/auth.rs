//! REST API keys (API.md section 5) in `data/auth.db`, a SQLite file of its own so
//! that replacing or regenerating the dataset never loses a key.
//!
//! A key is `rk_` followed by 32 random bytes from the operating system in URL-safe
//! base64 without padding (46 characters). It is shown once, by `roost keys create`;
//! the file keeps only its SHA-256 (hex), with a name, creation time, optional expiry,
//! revocation time and last-used time. The shim looks the key up on every request
//! ([`Keys::check`]), so a revocation or an expiry applies from the next request on.
//!
//! The file is shared with the GraphQL sessions (`sessions` table, created by their
//! module): every table here is created with `CREATE TABLE IF NOT EXISTS`, the file
//! is in WAL mode (readers never wait for `keys revoke`), and it is created on demand
//! with mode 0600.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context};
use base64::Engine as _;
use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::cli::KeysCommand;

/// Prefix of every raw key, so that a leaked key is recognisable in logs and scans.
pub const KEY_PREFIX: &str = "rk_";
/// Random bytes in a key.
pub const KEY_BYTES: usize = 32;
/// Longest `X-API-Key` value looked up; anything longer cannot be a key.
const MAX_KEY_LEN: usize = 128;
/// `last_used_at` is written at most this often per key.
const LAST_USED_RESOLUTION_SECS: i64 = 60;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS api_keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    expires_at   TEXT,
    revoked_at   TEXT,
    last_used_at TEXT
);
";

/// ISO 8601 UTC with a `Z`, to the second: the format of every time in auth.db.
pub fn format_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// SHA-256 of a raw key, hex: what auth.db stores.
pub fn hash_key(raw: &str) -> String {
    hex::encode(Sha256::digest(raw.as_bytes()))
}

/// A new raw key from the operating system's random source.
pub fn new_raw_key() -> anyhow::Result<String> {
    use rand::TryRng as _;
    let mut bytes = [0u8; KEY_BYTES];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| anyhow!("reading random bytes from the operating system: {e}"))?;
    Ok(format!(
        "{KEY_PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

/// Opens (creating on demand) auth.db: parent folder, mode 0600, WAL, the key table.
pub fn open(path: &Path) -> anyhow::Result<Connection> {
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() && !parent.is_dir() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
    }
    let existed = path.exists();
    let conn = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
    if !existed {
        use std::os::unix::fs::PermissionsExt as _;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
        .with_context(|| format!("{} is not a SQLite file", path.display()))?;
    conn.execute_batch(SCHEMA)
        .with_context(|| format!("creating the key table in {}", path.display()))?;
    Ok(conn)
}

/// One key as listed (never the raw key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub id: i64,
    pub name: String,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
    pub last_used_at: Option<String>,
}

/// Creates a key; returns its id and the raw key (the only time it exists).
pub fn create_key(
    conn: &Connection,
    name: &str,
    expires_in_days: Option<u32>,
) -> anyhow::Result<(i64, String)> {
    let name = name.trim();
    if name.is_empty() {
        bail!("--name must not be empty");
    }
    if name.chars().count() > 100 {
        bail!("--name must be at most 100 characters");
    }
    if expires_in_days == Some(0) {
        bail!("--expires-in-days must be at least 1");
    }
    let now = Utc::now();
    let expires = match expires_in_days {
        Some(days) => Some(format_time(
            now.checked_add_signed(chrono::Duration::days(i64::from(days)))
                .ok_or_else(|| anyhow!("--expires-in-days {days} is too far in the future"))?,
        )),
        None => None,
    };
    let raw = new_raw_key()?;
    conn.execute(
        "INSERT INTO api_keys (name, hash, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![name, hash_key(&raw), format_time(now), expires],
    )?;
    Ok((conn.last_insert_rowid(), raw))
}

pub fn list_keys(conn: &Connection) -> anyhow::Result<Vec<KeyRecord>> {
    let mut st = conn.prepare(
        "SELECT id, name, created_at, expires_at, revoked_at, last_used_at \
         FROM api_keys ORDER BY id",
    )?;
    let rows = st.query_map([], |r| {
        Ok(KeyRecord {
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

/// What a revocation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revoked {
    Now(String),
    Already(String),
}

pub fn revoke_key(conn: &Connection, id: i64) -> anyhow::Result<Revoked> {
    let revoked: Option<Option<String>> = conn
        .query_row("SELECT revoked_at FROM api_keys WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .optional()?;
    match revoked {
        None => bail!("no API key with id {id} (see `roost keys list`)"),
        Some(Some(at)) => Ok(Revoked::Already(at)),
        Some(None) => {
            let now = format_time(Utc::now());
            conn.execute(
                "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                params![id, now],
            )?;
            Ok(Revoked::Now(now))
        }
    }
}

/// `roost keys create|list|revoke`.
pub fn keys_command(cmd: KeysCommand) -> anyhow::Result<()> {
    match cmd {
        KeysCommand::Create {
            name,
            expires_in_days,
            auth,
        } => {
            let conn = open(&auth.auth_db)?;
            let (id, raw) = create_key(&conn, &name, expires_in_days)?;
            let expiry = match expires_in_days {
                Some(days) => format!("expires in {days} day(s)"),
                None => "does not expire".to_string(),
            };
            println!(
                "created API key {id} '{}' in {} ({expiry})",
                name.trim(),
                auth.auth_db.display()
            );
            println!(
                "Send it in the X-API-Key header. It is shown only this once: roost keeps only its hash."
            );
            println!("{raw}");
        }
        KeysCommand::List { auth } => {
            let conn = open(&auth.auth_db)?;
            print!("{}", format_table(&list_keys(&conn)?, Utc::now()));
        }
        KeysCommand::Revoke { id, auth } => {
            let conn = open(&auth.auth_db)?;
            match revoke_key(&conn, id)? {
                Revoked::Now(at) => println!("revoked API key {id} at {at}"),
                Revoked::Already(at) => println!("API key {id} was already revoked at {at}"),
            }
        }
    }
    Ok(())
}

/// The `keys list` table: id, name, created, expires, revoked, last used, status.
pub fn format_table(keys: &[KeyRecord], now: DateTime<Utc>) -> String {
    let rows: Vec<[String; 7]> = keys
        .iter()
        .map(|k| {
            let expired = k
                .expires_at
                .as_deref()
                .and_then(parse_time)
                .is_some_and(|t| t <= now);
            let status = if k.revoked_at.is_some() {
                "revoked"
            } else if expired {
                "expired"
            } else {
                "active"
            };
            [
                k.id.to_string(),
                k.name.clone(),
                k.created_at.clone(),
                k.expires_at.clone().unwrap_or_else(|| "never".into()),
                k.revoked_at.clone().unwrap_or_else(|| "-".into()),
                k.last_used_at.clone().unwrap_or_else(|| "never".into()),
                status.to_string(),
            ]
        })
        .collect();
    credential_table(&rows, "(no keys yet: roost keys create --name NAME)")
}

/// The table `keys list` and `sessions list` print: a header, then one row per
/// credential (id, name, created, expires, revoked, last used, status), columns
/// aligned; `empty` when there are none.
pub fn credential_table(credentials: &[[String; 7]], empty: &str) -> String {
    let header = [
        "ID",
        "NAME",
        "CREATED",
        "EXPIRES",
        "REVOKED",
        "LAST USED",
        "STATUS",
    ]
    .map(String::from);
    let rows: Vec<&[String; 7]> = std::iter::once(&header).chain(credentials).collect();
    let mut widths = [0usize; 7];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if i + 1 < row.len() {
                line.extend(std::iter::repeat_n(' ', widths[i] - cell.chars().count()));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if credentials.is_empty() {
        out.push_str(empty);
        out.push('\n');
    }
    out
}

/// The outcome of checking an `X-API-Key` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCheck {
    Valid {
        id: i64,
    },
    /// Missing, unknown, revoked or expired: the client sees the same 401 for all.
    Invalid,
}

/// The shim's view of auth.db: a few connections reused across requests, each
/// lookup a read of the committed state (no cache), so a revocation or an expiry
/// applies from the next request on.
pub struct Keys {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl Keys {
    /// Opens auth.db (creating it and its table if needed).
    pub fn new(path: &Path) -> anyhow::Result<Keys> {
        let conn = open(path)?;
        Ok(Keys {
            path: path.to_path_buf(),
            idle: Mutex::new(vec![conn]),
        })
    }

    /// Checks a raw key at `now` (blocking: call it off the async workers). Updates
    /// `last_used_at` when it is more than a minute old.
    pub fn check(&self, raw: Option<&[u8]>, now: DateTime<Utc>) -> anyhow::Result<KeyCheck> {
        let Some(raw) = raw else {
            return Ok(KeyCheck::Invalid);
        };
        let Ok(raw) = std::str::from_utf8(raw) else {
            return Ok(KeyCheck::Invalid);
        };
        if raw.is_empty() || raw.len() > MAX_KEY_LEN {
            return Ok(KeyCheck::Invalid);
        }
        let hash = hash_key(raw);
        let conn = self
            .idle
            .lock()
            .map_err(|_| anyhow!("key pool poisoned"))?
            .pop();
        let conn = match conn {
            Some(c) => c,
            None => open(&self.path)?,
        };
        let result = Self::lookup(&conn, &hash, now);
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < 8 {
                idle.push(conn);
            }
        }
        result
    }

    fn lookup(conn: &Connection, hash: &str, now: DateTime<Utc>) -> anyhow::Result<KeyCheck> {
        type Row = (i64, Option<String>, Option<String>, Option<String>);
        let row: Option<Row> = conn
            .prepare_cached(
                "SELECT id, expires_at, revoked_at, last_used_at FROM api_keys WHERE hash = ?1",
            )?
            .query_row([hash], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()?;
        let Some((id, expires_at, revoked_at, last_used_at)) = row else {
            return Ok(KeyCheck::Invalid);
        };
        if revoked_at.is_some() {
            return Ok(KeyCheck::Invalid);
        }
        if let Some(expires) = expires_at {
            // An unreadable expiry counts as expired: fail closed.
            if parse_time(&expires).is_none_or(|t| t <= now) {
                return Ok(KeyCheck::Invalid);
            }
        }
        let stale = last_used_at
            .as_deref()
            .and_then(parse_time)
            .is_none_or(|t| (now - t).num_seconds() >= LAST_USED_RESOLUTION_SECS);
        if stale {
            if let Err(e) = conn.execute(
                "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1",
                params![id, format_time(now)],
            ) {
                tracing::debug!(key_id = id, error = %e, "could not record last use");
            }
        }
        Ok(KeyCheck::Valid { id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let conn = open(&dir.path().join("sub/auth.db")).unwrap();
        (dir, conn)
    }

    #[test]
    fn raw_keys_are_long_url_safe_and_distinct() {
        let a = new_raw_key().unwrap();
        let b = new_raw_key().unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with(KEY_PREFIX));
        assert_eq!(a.len(), KEY_PREFIX.len() + 43);
        assert!(a[KEY_PREFIX.len()..]
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }

    #[test]
    fn only_the_hash_is_stored() {
        let (_dir, conn) = db();
        let (id, raw) = create_key(&conn, " ci ", Some(30)).unwrap();
        let (name, hash): (String, String) = conn
            .query_row("SELECT name, hash FROM api_keys WHERE id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(name, "ci");
        assert_eq!(hash, hash_key(&raw));
        assert_ne!(hash, raw);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn check_accepts_valid_and_refuses_unknown_revoked_and_expired() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.db");
        let conn = open(&path).unwrap();
        let keys = Keys::new(&path).unwrap();
        let now = Utc::now();
        let (id, raw) = create_key(&conn, "a", None).unwrap();
        assert_eq!(
            keys.check(Some(raw.as_bytes()), now).unwrap(),
            KeyCheck::Valid { id }
        );
        assert_eq!(keys.check(None, now).unwrap(), KeyCheck::Invalid);
        assert_eq!(keys.check(Some(b""), now).unwrap(), KeyCheck::Invalid);
        assert_eq!(
            keys.check(Some(b"rk_nope"), now).unwrap(),
            KeyCheck::Invalid
        );
        assert_eq!(
            keys.check(Some(&[0xff, 0xfe]), now).unwrap(),
            KeyCheck::Invalid
        );
        let used: Option<String> = conn
            .query_row(
                "SELECT last_used_at FROM api_keys WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(used, Some(format_time(now)));

        let (id2, raw2) = create_key(&conn, "b", Some(1)).unwrap();
        assert_eq!(
            keys.check(Some(raw2.as_bytes()), now).unwrap(),
            KeyCheck::Valid { id: id2 }
        );
        let later = now + chrono::Duration::days(2);
        assert_eq!(
            keys.check(Some(raw2.as_bytes()), later).unwrap(),
            KeyCheck::Invalid
        );

        assert!(matches!(revoke_key(&conn, id).unwrap(), Revoked::Now(_)));
        assert!(matches!(
            revoke_key(&conn, id).unwrap(),
            Revoked::Already(_)
        ));
        assert_eq!(
            keys.check(Some(raw.as_bytes()), now).unwrap(),
            KeyCheck::Invalid
        );
        assert!(revoke_key(&conn, 999)
            .unwrap_err()
            .to_string()
            .contains("no API key with id 999"));
    }

    #[test]
    fn bad_create_arguments_are_refused() {
        let (_dir, conn) = db();
        assert!(create_key(&conn, "  ", None).is_err());
        assert!(create_key(&conn, "x", Some(0)).is_err());
        assert!(create_key(&conn, &"n".repeat(101), None).is_err());
    }

    #[test]
    fn table_lists_every_column_and_never_a_hash() {
        let (_dir, conn) = db();
        create_key(&conn, "first", None).unwrap();
        let (id, _) = create_key(&conn, "second", Some(3)).unwrap();
        revoke_key(&conn, id).unwrap();
        let keys = list_keys(&conn).unwrap();
        let table = format_table(&keys, Utc::now());
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("ID  NAME"));
        assert!(lines[0].contains("LAST USED"));
        assert!(
            lines[1].contains("first")
                && lines[1].contains("never")
                && lines[1].ends_with("active")
        );
        assert!(lines[2].contains("second") && lines[2].ends_with("revoked"));
        let hash: String = conn
            .query_row("SELECT hash FROM api_keys WHERE id = 1", [], |r| r.get(0))
            .unwrap();
        assert!(!table.contains(&hash));
    }
}
