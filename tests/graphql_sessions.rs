//! `roost sessions create|list|revoke`: the token is printed once, alone on the last
//! line; only its hash is stored; revocation is effective on the next request.

mod graphql_support;

use std::path::Path;
use std::process::{Command, Output};

use graphql_support::*;
use roost::config::Env;
use serde_json::json;

fn roost(auth_db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_roost"))
        .args(args)
        .arg("--auth-db")
        .arg(auth_db)
        .env_remove("ROOST_AUTH_DB")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[tokio::test]
async fn sessions_from_the_command_line() {
    let app = App::new(Env::Production);
    let auth_db = app.auth_db.clone();

    let out = stdout(&roost(
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
    let second = stdout(&roost(&auth_db, &["sessions", "create", "--name", "other"]));
    let other = second.lines().last().unwrap().to_string();
    assert_ne!(token, other);

    // Only a hash is stored.
    let conn = rusqlite::Connection::open(&auth_db).unwrap();
    let stored: Vec<String> = strings(&conn, "SELECT token_sha256 FROM sessions ORDER BY id", []);
    assert_eq!(stored.len(), 2);
    for hash in &stored {
        assert_eq!(hash.len(), 64);
        assert!(!hash.contains(&token) && !token.contains(hash.as_str()));
    }
    let dump: String = rows(&conn, "SELECT * FROM sessions", [])
        .iter()
        .map(|r| format!("{r:?}"))
        .collect();
    assert!(!dump.contains(&token) && !dump.contains(&other));

    // The list names the sessions, never the tokens.
    let list = stdout(&roost(&auth_db, &["sessions", "list"]));
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
    let id = rows(&conn, "SELECT id FROM sessions WHERE name = 'frontend'", [])[0][0].to_string();
    let revoked = stdout(&roost(&auth_db, &["sessions", "revoke", &id]));
    assert!(revoked.contains("revoked"), "{revoked}");
    assert_eq!(app.send(request()).await.status.as_u16(), 401);
    let list = stdout(&roost(&auth_db, &["sessions", "list"]));
    assert!(
        list.lines()
            .any(|l| l.contains("revoked") && l.contains("frontend")),
        "{list}"
    );
    // Revoking twice is harmless; an unknown id is an error.
    let again = stdout(&roost(&auth_db, &["sessions", "revoke", &id]));
    assert!(again.contains("already revoked"), "{again}");
    let unknown = roost(&auth_db, &["sessions", "revoke", "999"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no session with id 999"));
    // Bad expiries are refused.
    let zero = roost(
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

#[test]
fn last_use_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let store = roost::sessions::SessionStore::new(dir.path().join("nested/auth.db"));
    let (info, token) = store.create("frontend", None).unwrap();
    assert_eq!(store.list().unwrap()[0].last_used_at, None);
    assert_eq!(store.check(&token).unwrap(), Some(info.id));
    assert!(store.list().unwrap()[0].last_used_at.is_some());
    assert_eq!(store.check("not-a-token").unwrap(), None);
    assert_eq!(store.check("").unwrap(), None);
    // A missing auth database refuses every token without failing.
    let missing = roost::sessions::SessionStore::new(dir.path().join("missing.db"));
    assert_eq!(missing.check(&token).unwrap(), None);
}
