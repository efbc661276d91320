//! API keys and rate limits in-process (docs/api.md §1 and §5): the auth matrix of
//! every environment, revocation and expiry without a restart, the per-key limit,
//! the failed-authentication limit per client address, and `roost keys`.

use axum::http::Method;
use chrono::{Duration, Utc};
use roost::config::Env;
use roost::credentials::{self, Kind};

use crate::support::*;

async fn get_with_key(app: &roost::shim::App, uri: &str, key: &str) -> Reply {
    send(app, request(Method::GET, uri).header("x-api-key", key)).await
}

#[tokio::test]
async fn production_and_staging_need_a_key_except_for_openapi_and_docs() {
    let fx = Keyed::new();
    let (_, key) = fx.key("matrix", None);
    for env in [Env::Production, Env::Staging] {
        let app = fx.app(env, |c| {
            c.rate_limit = 0;
            c.failed_auth_rate = 0;
        });
        for path in [
            "/api/v0/",
            "/api/v0/chapters/",
            "/api/v0/chapters",
            "/api/v0/chapters/london",
            "/api/v0/projects/?q=juice",
            "/api/v0/nothing",
            "/api/v0/chapters/?page=0",
        ] {
            let r = get(&app, path).await;
            assert_detail(&r, 401, UNAUTHORIZED);
            for bad in ["", "rk_wrong", "x".repeat(500).as_str()] {
                let r = get_with_key(&app, path, bad).await;
                assert_eq!(r.status, 401, "{env:?} {path} {bad:?}");
            }
            let r = get_with_key(&app, path, &key).await;
            assert!(
                matches!(r.status.as_u16(), 200 | 400 | 404),
                "{env:?} {path}: {}",
                r.status
            );
            assert_eq!(r.header("cache-control"), Some("private"));
            let h = send(&app, request(Method::HEAD, path)).await;
            assert_eq!(h.status, 401);
            assert!(h.body.is_empty());
        }
        for path in [
            "/api/v0/openapi.json",
            "/api/v0/docs/",
            "/api/v0/docs/index.html",
        ] {
            let r = get(&app, path).await;
            assert_eq!(r.status, 200, "{env:?} {path} is public");
        }
        // The answer behind the key is the tree's.
        let r = get_with_key(&app, "/api/v0/chapters/", &key).await;
        assert_eq!(r.body, shared().file("api/v0/chapters/index.json"));
        // Answered from memory again (the file kept, its request as sent remembered):
        // still behind the key.
        for _ in 0..2 {
            let r = get_with_key(&app, "/api/v0/chapters/", &key).await;
            assert_eq!(r.body, shared().file("api/v0/chapters/index.json"));
            assert_eq!(r.header("cache-control"), Some("private"));
            assert_detail(&get(&app, "/api/v0/chapters/").await, 401, UNAUTHORIZED);
            let r = get_with_key(&app, "/api/v0/chapters/", "rk_wrong").await;
            assert_eq!(r.status, 401);
        }
    }
}

#[tokio::test]
async fn local_and_e2e_need_no_key_and_have_no_limit() {
    let fx = shared();
    for env in [Env::Local, Env::E2e] {
        let app = fx.app(env, |c| {
            c.rate_limit = 1;
            c.failed_auth_rate = 1;
        });
        for _ in 0..20 {
            assert_eq!(get(&app, "/api/v0/chapters/").await.status, 200);
            let r = get_with_key(&app, "/api/v0/chapters/london", "not-a-key").await;
            assert_eq!(r.status, 200, "{env:?}: a key header is ignored");
            assert!(r.header("cache-control").is_none());
        }
    }
}

#[tokio::test]
async fn revoked_and_expired_keys_are_refused_from_the_next_request() {
    let fx = Keyed::new();
    let app = fx.app(Env::Production, |c| c.rate_limit = 0);
    let (id, key) = fx.key("soon revoked", None);
    assert_eq!(
        get_with_key(&app, "/api/v0/chapters/", &key).await.status,
        200
    );
    let conn = credentials::open(&fx.auth_db).unwrap();
    credentials::revoke(&conn, Kind::Key, id, Utc::now()).unwrap();
    let r = get_with_key(&app, "/api/v0/chapters/", &key).await;
    assert_detail(&r, 401, UNAUTHORIZED);

    // Made two days ago for one day: it expired yesterday.
    let two_days_ago = Utc::now() - Duration::days(2);
    let (_, key) = credential(&fx.auth_db, Kind::Key, "expired", Some(1), two_days_ago);
    let r = get_with_key(&app, "/api/v0/chapters/", &key).await;
    assert_detail(&r, 401, UNAUTHORIZED);
    // Made a day ago minus a minute for one day: valid for one more minute.
    let almost = Utc::now() - Duration::days(1) + Duration::minutes(1);
    let (id, key) = credential(&fx.auth_db, Kind::Key, "expiring", Some(1), almost);
    assert_eq!(
        get_with_key(&app, "/api/v0/chapters/", &key).await.status,
        200
    );
    let listed = credentials::list(&conn, Kind::Key).unwrap();
    let expiring = listed.iter().find(|k| k.id == id).unwrap();
    let later = Utc::now() + Duration::minutes(2);
    assert_eq!(expiring.status(later), credentials::Status::Expired);
}

#[tokio::test]
async fn last_use_is_recorded() {
    let fx = Keyed::new();
    let app = fx.app(Env::Staging, |_| {});
    let (id, key) = fx.key("used", None);
    let conn = credentials::open(&fx.auth_db).unwrap();
    let last = |conn: &rusqlite::Connection| -> Option<String> {
        conn.query_row(
            "SELECT last_used_at FROM credentials WHERE kind = 'key' AND id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(last(&conn), None);
    assert_eq!(get_with_key(&app, "/api/v0/", &key).await.status, 200);
    let used = last(&conn).expect("last_used_at set");
    assert!(used.ends_with('Z'));
}

#[tokio::test]
async fn a_key_over_its_rate_gets_429_with_retry_after() {
    let fx = Keyed::new();
    let app = fx.app(Env::Production, |c| c.rate_limit = 2);
    let (_, key) = fx.key("fast", None);
    let (_, other) = fx.key("other", None);
    // Failed requests count too: a 404 and a 400 spend the burst of 2.
    assert_eq!(
        get_with_key(&app, "/api/v0/nothing", &key).await.status,
        404
    );
    assert_eq!(
        get_with_key(&app, "/api/v0/chapters/?page=0", &key)
            .await
            .status,
        400
    );
    let r = get_with_key(&app, "/api/v0/chapters/", &key).await;
    assert_detail(&r, 429, "Too many requests.");
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!(retry >= 1);
    // Another key has its own budget.
    assert_eq!(
        get_with_key(&app, "/api/v0/chapters/", &other).await.status,
        200
    );
    // Public documents are not limited.
    for _ in 0..5 {
        assert_eq!(get(&app, "/api/v0/openapi.json").await.status, 200);
    }
}

#[tokio::test]
async fn failed_authentications_are_limited_per_client_address() {
    let fx = Keyed::new();
    let app = fx.app(Env::Production, |c| {
        c.failed_auth_rate = 3;
        c.rate_limit = 0;
    });
    let (_, key) = fx.key("victim", None);
    let attacker = "198.51.100.7";
    for guess in ["rk_a", "rk_b", "rk_c"] {
        let r = send(
            &app,
            from(Method::GET, "/api/v0/", attacker).header("x-api-key", guess),
        )
        .await;
        assert_eq!(r.status, 401);
    }
    let r = send(
        &app,
        from(Method::GET, "/api/v0/", attacker).header("x-api-key", "rk_d"),
    )
    .await;
    assert_detail(&r, 429, "Too many requests.");
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert_eq!(retry, 1, "the budget is per second");
    // A valid key from the same address is served all the same.
    let r = send(
        &app,
        from(Method::GET, "/api/v0/", attacker).header("x-api-key", &key),
    )
    .await;
    assert_eq!(r.status, 200);
    // Other addresses are not affected.
    let r = send(&app, from(Method::GET, "/api/v0/", "203.0.113.9")).await;
    assert_eq!(r.status, 401);
}

#[tokio::test]
async fn keys_command_line() {
    let fx = Keyed::new();
    let out = roost_auth(
        &fx.auth_db,
        &[
            "keys",
            "create",
            "--name",
            "ci bot",
            "--expires-in-days",
            "30",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let key = stdout.lines().last().unwrap().to_string();
    assert!(key.starts_with("rk_") && key.len() >= 46, "{key}");
    assert!(!key.contains(' '));

    let out = roost_auth(&fx.auth_db, &["keys", "list"]);
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.lines().next().unwrap().starts_with("ID"));
    for column in ["NAME", "CREATED", "EXPIRES", "REVOKED", "LAST USED"] {
        assert!(table.contains(column), "{table}");
    }
    assert!(table.contains("ci bot"));
    assert!(!table.contains(&key));
    assert!(!table.contains(&credentials::hash_secret(&key)));

    // The key works against the app, then is revoked from the command line.
    let app = fx.app(Env::Production, |_| {});
    assert_eq!(
        get_with_key(&app, "/api/v0/chapters/", &key).await.status,
        200
    );
    let out = roost_auth(&fx.auth_db, &["keys", "revoke", "1"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("revoked"));
    assert_eq!(
        get_with_key(&app, "/api/v0/chapters/", &key).await.status,
        401
    );
    let table = String::from_utf8(roost_auth(&fx.auth_db, &["keys", "list"]).stdout).unwrap();
    assert!(
        table.lines().nth(1).unwrap().ends_with("revoked"),
        "{table}"
    );

    let out = roost_auth(&fx.auth_db, &["keys", "revoke", "99"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no API key with id 99"));
    let out = roost_auth(
        &fx.auth_db,
        &["keys", "create", "--name", "x", "--expires-in-days", "0"],
    );
    assert!(!out.status.success());
    // An expiry that could not be stored and read back is refused, naming the bound.
    let out = roost_auth(
        &fx.auth_db,
        &[
            "keys",
            "create",
            "--name",
            "x",
            "--expires-in-days",
            "2913000",
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--expires-in-days") && stderr.contains("at most 36500 days"),
        "{stderr}"
    );
    let out = roost_auth(
        &fx.auth_db,
        &[
            "keys",
            "create",
            "--name",
            "y",
            "--expires-in-days",
            "36500",
        ],
    );
    assert!(out.status.success());
    let table = String::from_utf8(roost_auth(&fx.auth_db, &["keys", "list"]).stdout).unwrap();
    assert_eq!(table.lines().count(), 3, "{table}");
    assert!(table.lines().last().unwrap().ends_with("active"), "{table}");
    // auth.db is private to its owner.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&fx.auth_db).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");
}
