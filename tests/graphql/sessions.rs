//! `roost sessions create|list|revoke`: the token is printed once, alone on the last
//! line; only its hash is stored; revocation is effective on the next request.

use chrono::{Duration, Utc};
use roost::config::Env;
use roost::credentials::{self, Credentials, Kind};
use serde_json::json;

use crate::support::graphql::*;
use crate::support::*;

#[tokio::test]
async fn sessions_from_the_command_line() {
    let app = App::new(Env::Production);
    let auth_db = app.auth_db.clone();

    let out = stdout(&roost_auth(
        &auth_db,
        &[
            "sessions",
            "create",
            "--name",
            "frontend",
            "--expires-in-days",
            "30",
        ],
    ));
    let token = out.lines().last().unwrap().to_string();
    assert!(token.len() >= 43, "{token}");
    assert!(
        token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{token}"
    );
    let second = stdout(&roost_auth(
        &auth_db,
        &["sessions", "create", "--name", "other"],
    ));
    let other = second.lines().last().unwrap().to_string();
    assert_ne!(token, other);

    // Only a hash is stored.
    let conn = rusqlite::Connection::open(&auth_db).unwrap();
    let stored: Vec<String> = strings(
        &conn,
        "SELECT hash FROM credentials WHERE kind = 'session' ORDER BY id",
        [],
    );
    assert_eq!(stored.len(), 2);
    for hash in &stored {
        assert_eq!(hash.len(), 64);
        assert!(!hash.contains(&token) && !token.contains(hash.as_str()));
    }
    let dump: String = rows(&conn, "SELECT * FROM credentials", [])
        .iter()
        .map(|r| format!("{r:?}"))
        .collect();
    assert!(!dump.contains(&token) && !dump.contains(&other));

    // The list names the sessions, never the tokens.
    let list = stdout(&roost_auth(&auth_db, &["sessions", "list"]));
    assert!(
        list.contains("frontend") && list.contains("other"),
        "{list}"
    );
    assert!(!list.contains(&token) && !list.contains(&other), "{list}");
    assert!(
        list.contains("never"),
        "the second session does not expire: {list}"
    );

    // The token works until it is revoked.
    let csrf = "t".repeat(43);
    let cookie = format!("sessionid={token}; csrftoken={csrf}");
    let request = || {
        post_json(
            json!({"query": "{ chapterCountries }"}),
            &[("cookie", &cookie), ("x-csrftoken", &csrf)],
        )
    };
    assert_eq!(app.send(request()).await.status.as_u16(), 200);
    let id = rows(
        &conn,
        "SELECT id FROM credentials WHERE kind = 'session' AND name = 'frontend'",
        [],
    )[0][0]
        .to_string();
    let revoked = stdout(&roost_auth(&auth_db, &["sessions", "revoke", &id]));
    assert!(revoked.contains("revoked"), "{revoked}");
    assert_eq!(app.send(request()).await.status.as_u16(), 401);
    let list = stdout(&roost_auth(&auth_db, &["sessions", "list"]));
    assert!(
        list.lines()
            .any(|l| l.contains("revoked") && l.contains("frontend")),
        "{list}"
    );
    // Revoking twice is harmless; an unknown id is an error.
    let again = stdout(&roost_auth(&auth_db, &["sessions", "revoke", &id]));
    assert!(again.contains("already revoked"), "{again}");
    let unknown = roost_auth(&auth_db, &["sessions", "revoke", "999"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no session with id 999"));
    // Bad expiries are refused.
    let zero = roost_auth(
        &auth_db,
        &[
            "sessions",
            "create",
            "--name",
            "x",
            "--expires-in-days",
            "0",
        ],
    );
    assert!(!zero.status.success());
}

#[tokio::test]
async fn last_use_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/auth.db");
    let conn = credentials::open(&path).unwrap();
    let store = Credentials::open(&path).unwrap();
    let now = Utc::now();
    let session = credentials::create(&conn, Kind::Session, "frontend", None, now).unwrap();
    let listed = || credentials::list(&conn, Kind::Session).unwrap();
    assert_eq!(listed()[0].last_used_at, None);
    let token = session.secret.as_bytes();
    assert_eq!(
        store.check(Kind::Session, Some(token), now).await.unwrap(),
        Some(session.id)
    );
    assert!(listed()[0].last_used_at.is_some());
    for bad in [&b"not-a-token"[..], b""] {
        assert_eq!(
            store.check(Kind::Session, Some(bad), now).await.unwrap(),
            None
        );
    }
}

#[tokio::test]
async fn an_expired_session_is_refused() {
    let app = App::new(Env::Production);
    let (_, token) = app.session_at("old", Some(1), Utc::now() - Duration::days(2));
    let csrf = "c".repeat(43);
    let cookie = format!("sessionid={token}; csrftoken={csrf}");
    let reply = app
        .send(post_json(
            json!({"query": "{ chapterCountries }"}),
            &[("cookie", &cookie), ("x-csrftoken", &csrf)],
        ))
        .await;
    assert_eq!(reply.status.as_u16(), 401, "{}", reply.text());
    assert_eq!(reply.code(), "UNAUTHENTICATED");
    let list = stdout(&roost_auth(&app.auth_db, &["sessions", "list"]));
    assert!(list.lines().nth(1).unwrap().ends_with("expired"), "{list}");
}

#[test]
fn a_fresh_auth_db_is_private_from_the_first_command() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let auth_db = dir.path().join("fresh/auth.db");
    let out = stdout(&roost_auth(
        &auth_db,
        &["sessions", "create", "--name", "frontend"],
    ));
    assert!(
        out.lines().next().unwrap().contains("(expires: never)"),
        "{out}"
    );
    let mode = std::fs::metadata(&auth_db).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    // An expiry past what can be stored is refused, naming the bound.
    let out = roost_auth(
        &auth_db,
        &[
            "sessions",
            "create",
            "--name",
            "far",
            "--expires-in-days",
            "2913000",
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("at most 36500 days"), "{stderr}");
}
