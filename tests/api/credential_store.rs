//! The credential store followed under a running shim (docs/architecture.md, "The
//! credential store"): deleted, API keys are answered 503 and `/readyz` says which
//! file is missing; a store created again, or one renamed over it, is reopened
//! without a restart, its keys served and the old store's refused.

use axum::http::Method;
use roost::config::Env;
use roost::credentials::Kind;

use crate::support::*;

async fn with_key(app: &roost::shim::App, key: &str) -> Reply {
    send(
        app,
        request(Method::GET, "/api/v0/chapters/london").header("x-api-key", key),
    )
    .await
}

fn sidecar(path: &std::path::Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

#[tokio::test]
async fn a_deleted_or_replaced_store_is_followed_without_a_restart() {
    let fx = Keyed::new();
    let (_, first) = fx.key("first", None);
    let app = fx.app(Env::Production, |c| {
        c.rate_limit = 0;
        c.failed_auth_rate = 0;
    });
    assert_eq!(with_key(&app, &first).await.status, 200);
    assert_eq!(get(&app, "/readyz").await.status, 200);

    // Deleted: refused with 503 (not 401: the key may be fine), and /readyz says so.
    std::fs::remove_file(&fx.auth_db).unwrap();
    let r = with_key(&app, &first).await;
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.header("retry-after"), Some("5"));
    assert_eq!(
        r.json()["detail"],
        "The credential store is unavailable; try again later"
    );
    let ready = get(&app, "/readyz").await;
    assert_eq!(ready.status, 503);
    assert_eq!(
        ready.json()["reason"],
        "the credential store auth.db is missing (`roost keys create` makes one)"
    );
    // Public documents need no key and are still served.
    assert_eq!(get(&app, "/api/v0/openapi.json").await.status, 200);

    // A store created again (`roost keys create`): its keys work, the old ones do not.
    let (_, second) = fx.key("second", None);
    assert_eq!(with_key(&app, &second).await.status, 200);
    assert_eq!(with_key(&app, &first).await.status, 401);
    assert_eq!(get(&app, "/readyz").await.status, 200);

    // Replaced: a store made elsewhere renamed over it (its WAL files removed first).
    let elsewhere = fx.auth_db.with_file_name("restored.db");
    let (_, third) = credential(&elsewhere, Kind::Key, "third", None, chrono::Utc::now());
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(sidecar(&fx.auth_db, suffix));
    }
    std::fs::rename(&elsewhere, &fx.auth_db).unwrap();
    assert_eq!(with_key(&app, &third).await.status, 200);
    assert_eq!(with_key(&app, &second).await.status, 401);

    // Not a store at all: 503, and /readyz says it cannot be opened.
    std::fs::write(sidecar(&fx.auth_db, ".tmp"), b"not a database, not at all").unwrap();
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(sidecar(&fx.auth_db, suffix));
    }
    std::fs::rename(sidecar(&fx.auth_db, ".tmp"), &fx.auth_db).unwrap();
    assert_eq!(with_key(&app, &third).await.status, 503);
    let ready = get(&app, "/readyz").await;
    assert_eq!(ready.status, 503);
    assert_eq!(
        ready.json()["reason"],
        "the credential store auth.db cannot be opened (the log says why)"
    );
}

/// `roost keys create` where a store was deleted under a running shim removes the
/// deleted store's WAL files, which the shim still holds open with pages of the old
/// store in them (the last use of a key, recorded): the new store starts empty, its
/// key listed alone.
#[tokio::test]
async fn keys_create_after_a_deletion_starts_a_clean_store() {
    let fx = Keyed::new();
    let (_, old) = fx.key("old", None);
    let app = fx.app(Env::Production, |c| {
        c.rate_limit = 0;
        c.failed_auth_rate = 0;
    });
    assert_eq!(with_key(&app, &old).await.status, 200);
    assert!(sidecar(&fx.auth_db, "-wal").exists());
    std::fs::remove_file(&fx.auth_db).unwrap();
    let out = roost_auth(&fx.auth_db, &["keys", "create", "--name", "new"]);
    assert!(out.status.success(), "{out:?}");
    let out = roost_auth(&fx.auth_db, &["keys", "list", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["new"]);
    assert_eq!(with_key(&app, &old).await.status, 401);
}
