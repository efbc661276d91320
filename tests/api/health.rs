//! `/healthz` and `/readyz`: answered without a key in production; ready only while
//! the dataset answers and the tree has its manifest, with the reason otherwise.

use axum::http::Method;
use roost::config::Env;

use crate::support::*;

#[tokio::test]
async fn health_needs_no_key_and_readiness_follows_the_dataset_and_the_tree() {
    let fx = Fixture::new(false);
    let app = fx.app(Env::Production, |_| {});

    let r = get(&app, "/healthz").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), serde_json::json!({"status": "ok"}));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let r = get(&app, "/readyz").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json(), serde_json::json!({"status": "ready"}));
    let r = send(&app, request(Method::HEAD, "/readyz")).await;
    assert_eq!(r.status, 200);
    let r = send(&app, request(Method::POST, "/healthz")).await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));

    // The dataset file gone: not ready, and the reason names it.
    let moved = fx.db.with_extension("away");
    std::fs::rename(&fx.db, &moved).unwrap();
    let r = get(&app, "/readyz").await;
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.json()["status"], "unavailable");
    let reason = r.json()["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("roost.db"), "{reason}");
    assert_eq!(
        get(&app, "/healthz").await.status,
        200,
        "the process still answers"
    );
    // Back: ready again, without a restart.
    std::fs::rename(&moved, &fx.db).unwrap();
    assert_eq!(get(&app, "/readyz").await.status, 200);

    // Without `manifest.json` (as `generate --no-manifest-json` leaves a tree), its
    // split manifest's root says it is a tree: ready.
    let manifest = fx.site.join(roost::generate::MANIFEST);
    let aside = fx.db.with_extension("manifest-away");
    std::fs::rename(&manifest, &aside).unwrap();
    assert_eq!(get(&app, "/readyz").await.status, 200);
    // The tree without either: not ready.
    let root = fx.site.join(roost::manifest::ROOT);
    let root_aside = fx.db.with_extension("root-away");
    std::fs::rename(&root, &root_aside).unwrap();
    let r = get(&app, "/readyz").await;
    assert_eq!(r.status, 503);
    let reason = r.json()["reason"].as_str().unwrap().to_string();
    assert!(
        reason.contains("manifest.json") && reason.contains("manifest/root.json"),
        "{reason}"
    );
    std::fs::rename(&aside, &manifest).unwrap();
    std::fs::rename(&root_aside, &root).unwrap();
    assert_eq!(get(&app, "/readyz").await.status, 200);
}

#[tokio::test]
async fn readiness_waits_for_the_warm_up() {
    let fx = Fixture::new(false);
    let state = fx.state(Env::Production, |_| {});
    let app = roost::shim::app(state.clone());
    state.set_warming(true);
    let r = get(&app, "/readyz").await;
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(
        r.json(),
        serde_json::json!({"status": "unavailable", "reason": "warming up"})
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(get(&app, "/healthz").await.status, 200);
    assert_eq!(
        get(&app, "/api/v0/openapi.json").await.status,
        200,
        "requests are answered while it warms up"
    );
    state.set_warming(false);
    assert_eq!(get(&app, "/readyz").await.status, 200);
}
