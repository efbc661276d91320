//! An auth.db written by the roost before the one credential store (keys in
//! `api_keys` with RFC 3339 text times, sessions in `sessions` with integer
//! microseconds) keeps working: opened by this roost, it is migrated in one
//! transaction; its keys and sessions still authenticate, list with the right status
//! and can be revoked, and new ones are numbered after the old.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use roost::credentials::{self, Credentials, Kind, Revoked, Status};
use rusqlite::{params, Connection};

use crate::support::roost_auth;

/// The key table exactly as the earlier roost created it.
const OLD_KEYS: &str = "
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

/// The session table exactly as the earlier roost created it.
const OLD_SESSIONS: &str = "CREATE TABLE IF NOT EXISTS sessions (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,  -- hex SHA-256 of the token; the token is never stored
    created_at   INTEGER NOT NULL,      -- microseconds since the epoch, UTC
    expires_at   INTEGER,               -- null: never expires
    revoked_at   INTEGER,               -- null: not revoked
    last_used_at INTEGER                -- updated at most once a minute
)";

fn text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The secrets of the fixture, by name.
struct Old {
    dir: tempfile::TempDir,
    path: PathBuf,
    live_key: String,
    expired_key: String,
    revoked_key: String,
    live_session: String,
    expired_session: String,
    revoked_session: String,
}

/// An auth.db as the earlier roost left it: WAL, both tables, keys 1-3 and sessions
/// 1-3 (active, expired, revoked each).
fn old_auth_db() -> Old {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auth.db");
    let conn = Connection::open(&path).unwrap();
    conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
        .unwrap();
    conn.execute_batch(OLD_KEYS).unwrap();
    conn.execute_batch(OLD_SESSIONS).unwrap();
    let now = Utc::now();
    let day = Duration::days(1);
    let secret = |kind| credentials::new_secret(kind).unwrap();
    let (live_key, expired_key, revoked_key) =
        (secret(Kind::Key), secret(Kind::Key), secret(Kind::Key));
    let keys = [
        (&live_key, "live key", Some(now + day), None),
        (&expired_key, "expired key", Some(now - day), None),
        (&revoked_key, "revoked key", None, Some(now - day)),
    ];
    for (raw, name, expires, revoked) in keys {
        conn.execute(
            "INSERT INTO api_keys (name, hash, created_at, expires_at, revoked_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                name,
                credentials::hash_secret(raw),
                text(now - day * 2),
                expires.map(text),
                revoked.map(text)
            ],
        )
        .unwrap();
    }
    let (live_session, expired_session, revoked_session) = (
        secret(Kind::Session),
        secret(Kind::Session),
        secret(Kind::Session),
    );
    let micros = |t: DateTime<Utc>| t.timestamp_micros();
    let sessions = [
        (
            &live_session,
            "frontend",
            Some(now + day),
            None,
            Some(now - day),
        ),
        (
            &expired_session,
            "old frontend",
            Some(now - day),
            None,
            None,
        ),
        (&revoked_session, "leaked", None, Some(now - day), None),
    ];
    for (token, name, expires, revoked, used) in sessions {
        conn.execute(
            "INSERT INTO sessions (name, token_sha256, created_at, expires_at, revoked_at, last_used_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                name,
                credentials::hash_secret(token),
                micros(now - day * 2) + 123_456,
                expires.map(micros),
                revoked.map(micros),
                used.map(micros)
            ],
        )
        .unwrap();
    }
    Old {
        dir,
        path,
        live_key,
        expired_key,
        revoked_key,
        live_session,
        expired_session,
        revoked_session,
    }
}

fn tables(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).unwrap();
    let mut st = conn
        .prepare(
            "SELECT name FROM sqlite_master \
             WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name",
        )
        .unwrap();
    let names = st.query_map([], |r| r.get(0)).unwrap();
    names.map(Result::unwrap).collect()
}

#[tokio::test]
async fn an_old_auth_db_keeps_working() {
    let old = old_auth_db();
    let store = Credentials::open(&old.path).unwrap();
    assert_eq!(tables(&old.path), ["credentials"]);
    let now = Utc::now();
    let check = |kind, secret: &str| {
        let store = store.clone();
        let secret = secret.to_string();
        async move {
            store
                .check(kind, Some(secret.as_bytes()), now)
                .await
                .unwrap()
        }
    };
    assert_eq!(check(Kind::Key, &old.live_key).await, Some(1));
    assert_eq!(check(Kind::Key, &old.expired_key).await, None);
    assert_eq!(check(Kind::Key, &old.revoked_key).await, None);
    assert_eq!(check(Kind::Session, &old.live_session).await, Some(1));
    assert_eq!(check(Kind::Session, &old.expired_session).await, None);
    assert_eq!(check(Kind::Session, &old.revoked_session).await, None);
    // A key is not a session, nor the other way round.
    assert_eq!(check(Kind::Session, &old.live_key).await, None);
    assert_eq!(check(Kind::Key, &old.live_session).await, None);

    let conn = credentials::open(&old.path).unwrap();
    let statuses = |kind| -> Vec<(i64, String, Status)> {
        credentials::list(&conn, kind)
            .unwrap()
            .into_iter()
            .map(|c| (c.id, c.name.clone(), c.status(now)))
            .collect()
    };
    let expected = |names: [&str; 3]| {
        vec![
            (1, names[0].to_string(), Status::Active),
            (2, names[1].to_string(), Status::Expired),
            (3, names[2].to_string(), Status::Revoked),
        ]
    };
    assert_eq!(
        statuses(Kind::Key),
        expected(["live key", "expired key", "revoked key"])
    );
    assert_eq!(
        statuses(Kind::Session),
        expected(["frontend", "old frontend", "leaked"])
    );
    // Session times are now RFC 3339 text, to the second.
    let session = &credentials::list(&conn, Kind::Session).unwrap()[0];
    assert!(session.created_at.ends_with('Z') && session.created_at.len() == 20);
    assert!(session.last_used_at.is_some());

    // Revocation works on migrated credentials, and is seen by the next check.
    assert!(matches!(
        credentials::revoke(&conn, Kind::Session, 1, now).unwrap(),
        Revoked::Now(_)
    ));
    assert_eq!(check(Kind::Session, &old.live_session).await, None);
    assert!(matches!(
        credentials::revoke(&conn, Kind::Key, 3, now).unwrap(),
        Revoked::Already(_)
    ));
    // New credentials are numbered after the old.
    let key = credentials::create(&conn, Kind::Key, "new", None, now).unwrap();
    let session = credentials::create(&conn, Kind::Session, "new", None, now).unwrap();
    assert_eq!((key.id, session.id), (4, 4));
    assert_eq!(check(Kind::Key, &key.secret).await, Some(4));
    drop(old.dir);
}

#[test]
fn the_commands_read_and_revoke_an_old_auth_db() {
    let old = old_auth_db();
    let out = roost_auth(&old.path, &["keys", "list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    let status: Vec<&str> = table
        .lines()
        .skip(1)
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    assert_eq!(status, ["active", "expired", "revoked"], "{table}");
    let out = roost_auth(&old.path, &["sessions", "revoke", "1"]);
    assert!(out.status.success());
    let table = String::from_utf8(roost_auth(&old.path, &["sessions", "list"]).stdout).unwrap();
    let first = table.lines().nth(1).unwrap();
    assert!(
        first.contains("frontend") && first.ends_with("revoked"),
        "{table}"
    );
}

#[test]
fn a_failed_migration_changes_nothing() {
    let old = old_auth_db();
    // The same hash in both old tables cannot go into one table with unique hashes.
    let conn = Connection::open(&old.path).unwrap();
    conn.execute(
        "UPDATE sessions SET token_sha256 = (SELECT hash FROM api_keys WHERE id = 1) WHERE id = 1",
        [],
    )
    .unwrap();
    drop(conn);
    let err = credentials::open(&old.path).unwrap_err();
    assert!(err.to_string().contains("credential table"), "{err}");
    assert_eq!(tables(&old.path), ["api_keys", "sessions"]);
}

#[test]
fn opening_twice_migrates_once() {
    let old = old_auth_db();
    drop(credentials::open(&old.path).unwrap());
    let conn = credentials::open(&old.path).unwrap();
    assert_eq!(credentials::list(&conn, Kind::Key).unwrap().len(), 3);
    assert_eq!(credentials::list(&conn, Kind::Session).unwrap().len(), 3);
}
