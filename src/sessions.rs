//! GraphQL sessions for the frontend, in `data/auth.db` (table `sessions`, beside the
//! REST keys; never in the dataset).
//!
//! A session is a bearer token the frontend sends as the `sessionid` cookie in
//! production and staging. `roost sessions create` makes one: 32 random bytes,
//! base64url without padding, printed once; only its SHA-256 is stored, with a name,
//! the creation time, an optional expiry and the revocation and last-use times. Every
//! request looks the hash up again, so a revoked or expired session is refused from
//! the next request on, without a restart.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use base64::Engine as _;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::cli::SessionsCommand;
use crate::records::Ts;

/// The cookie carrying the session token.
pub const SESSION_COOKIE: &str = "sessionid";

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS sessions (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,  -- hex SHA-256 of the token; the token is never stored
    created_at   INTEGER NOT NULL,      -- microseconds since the epoch, UTC
    expires_at   INTEGER,               -- null: never expires
    revoked_at   INTEGER,               -- null: not revoked
    last_used_at INTEGER                -- updated at most once a minute
)";

/// How often `last_used_at` is refreshed for one session.
const LAST_USED_GRANULARITY_MICROS: i64 = 60 * 1_000_000;
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// 32 random bytes as URL-safe text (43 characters), for session and CSRF tokens.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes[..]);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

/// A session as listed (never its token).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub last_used_at: Option<i64>,
}

impl SessionInfo {
    pub fn status(&self, now: i64) -> &'static str {
        if self.revoked_at.is_some() {
            "revoked"
        } else if self.expires_at.is_some_and(|e| e <= now) {
            "expired"
        } else {
            "active"
        }
    }
}

/// The sessions table of one auth database file.
#[derive(Debug, Clone)]
pub struct SessionStore {
    path: PathBuf,
}

impl SessionStore {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        SessionStore { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the file read-write, creating it and the table if needed.
    fn open(&self) -> anyhow::Result<Connection> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let conn = Connection::open(&self.path)
            .with_context(|| format!("opening {}", self.path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.execute_batch(SCHEMA)
            .with_context(|| format!("creating the sessions table in {}", self.path.display()))?;
        Ok(conn)
    }

    /// Creates the file and the table if they do not exist yet.
    pub fn ensure(&self) -> anyhow::Result<()> {
        self.open().map(drop)
    }

    /// A new session; returns it and its token (shown once).
    pub fn create(
        &self,
        name: &str,
        expires_in_days: Option<u32>,
    ) -> anyhow::Result<(SessionInfo, String)> {
        if name.trim().is_empty() {
            bail!("--name must not be empty");
        }
        if expires_in_days == Some(0) {
            bail!(
                "--expires-in-days must be at least 1 (omit it for a session that does not expire)"
            );
        }
        let conn = self.open()?;
        let token = random_token();
        let created_at = now_micros();
        let expires_at = expires_in_days.map(|d| created_at + i64::from(d) * 86_400 * 1_000_000);
        conn.execute(
            "INSERT INTO sessions (name, token_sha256, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
            params![name, hash(&token), created_at, expires_at],
        )?;
        let info = SessionInfo {
            id: conn.last_insert_rowid(),
            name: name.to_string(),
            created_at,
            expires_at,
            revoked_at: None,
            last_used_at: None,
        };
        Ok((info, token))
    }

    pub fn list(&self) -> anyhow::Result<Vec<SessionInfo>> {
        let conn = self.open()?;
        let mut st = conn.prepare(
            "SELECT id, name, created_at, expires_at, revoked_at, last_used_at \
             FROM sessions ORDER BY id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(SessionInfo {
                id: r.get(0)?,
                name: r.get(1)?,
                created_at: r.get(2)?,
                expires_at: r.get(3)?,
                revoked_at: r.get(4)?,
                last_used_at: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Revokes a session. `Ok(false)` when it was already revoked.
    pub fn revoke(&self, id: i64) -> anyhow::Result<bool> {
        let conn = self.open()?;
        let revoked: Option<Option<i64>> = conn
            .query_row("SELECT revoked_at FROM sessions WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        match revoked {
            None => bail!("there is no session with id {id} (see `roost sessions list`)"),
            Some(Some(_)) => Ok(false),
            Some(None) => {
                conn.execute(
                    "UPDATE sessions SET revoked_at = ?2 WHERE id = ?1",
                    params![id, now_micros()],
                )?;
                Ok(true)
            }
        }
    }

    /// The id of the valid (not revoked, not expired) session with this token.
    /// Blocking: call it off the async workers.
    pub fn check(&self, token: &str) -> anyhow::Result<Option<i64>> {
        if token.is_empty() || token.len() > 256 || !self.path.is_file() {
            return Ok(None);
        }
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("opening {}", self.path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let now = now_micros();
        let found = conn.query_row(
            "SELECT id, last_used_at FROM sessions WHERE token_sha256 = ?1 \
             AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)",
            params![hash(token), now],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?)),
        );
        let (id, last_used) = match found {
            Ok(row) => row,
            Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(None),
            Err(rusqlite::Error::SqliteFailure(_, Some(msg))) if msg.contains("no such table") => {
                return Ok(None)
            }
            Err(e) => return Err(e.into()),
        };
        if last_used.is_none_or(|t| now - t >= LAST_USED_GRANULARITY_MICROS) {
            // Best effort: a busy database must not fail the request.
            let _ = conn.execute(
                "UPDATE sessions SET last_used_at = ?2 WHERE id = ?1",
                params![id, now],
            );
        }
        Ok(Some(id))
    }
}

/// A time for people: to the second.
fn show(ts: Option<i64>, none: &str) -> String {
    ts.map_or_else(
        || none.to_string(),
        |t| Ts(t - t.rem_euclid(1_000_000)).format(),
    )
}

/// `roost sessions create|list|revoke`.
pub fn sessions_command(cmd: SessionsCommand) -> anyhow::Result<()> {
    match cmd {
        SessionsCommand::Create {
            name,
            expires_in_days,
            auth,
        } => {
            let store = SessionStore::new(auth.auth_db);
            let (info, token) = store.create(&name, expires_in_days)?;
            println!(
                "created session {} '{}' in {} (expires: {}); send the token below as the \
                 '{SESSION_COOKIE}' cookie. It is shown only this once:",
                info.id,
                info.name,
                store.path().display(),
                show(info.expires_at, "never"),
            );
            println!("{token}");
        }
        SessionsCommand::List { auth } => {
            let store = SessionStore::new(auth.auth_db);
            let now = now_micros();
            let rows: Vec<[String; 7]> = store
                .list()?
                .into_iter()
                .map(|s| {
                    [
                        s.id.to_string(),
                        s.name.clone(),
                        show(Some(s.created_at), "-"),
                        show(s.expires_at, "never"),
                        show(s.revoked_at, "-"),
                        show(s.last_used_at, "never"),
                        s.status(now).to_string(),
                    ]
                })
                .collect();
            print!(
                "{}",
                crate::auth::credential_table(
                    &rows,
                    "(no sessions yet: roost sessions create --name NAME)"
                )
            );
        }
        SessionsCommand::Revoke { id, auth } => {
            let store = SessionStore::new(auth.auth_db);
            if store.revoke(id)? {
                println!("revoked session {id}; it is refused from the next request on");
            } else {
                println!("session {id} was already revoked");
            }
        }
    }
    Ok(())
}
