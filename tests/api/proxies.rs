//! The client address behind trusted proxies (`--trusted-proxy`): the failed-auth
//! budget follows the forwarded address only when the peer is trusted.

use axum::http::Method;
use roost::config::Env;
use roost::shim::proxy::TrustedProxies;

use crate::support::*;

async fn bad_key(app: &roost::shim::App, peer: &str, forwarded: &str) -> u16 {
    let req = from(Method::GET, "/api/v0/chapters/", peer)
        .header("x-api-key", "rk_wrong")
        .header("x-forwarded-for", forwarded);
    send(app, req).await.status.as_u16()
}

fn app(trusted: &[&str]) -> (tempfile::TempDir, roost::shim::App) {
    let dir = tempfile::tempdir().unwrap();
    let auth_db = dir.path().join("auth.db");
    let trusted = TrustedProxies::parse(trusted).unwrap();
    let app = shared().app(Env::Production, |c| {
        c.auth_db = auth_db;
        c.failed_auth_rate = 2;
        c.trusted_proxies = trusted;
    });
    (dir, app)
}

#[tokio::test]
async fn a_spoofed_header_from_an_untrusted_peer_is_ignored() {
    let (_dir, app) = app(&["10.0.0.0/8"]);
    // Each request claims another address; the budget is the peer's all the same.
    assert_eq!(bad_key(&app, "198.51.100.5", "203.0.113.1").await, 401);
    assert_eq!(bad_key(&app, "198.51.100.5", "203.0.113.2").await, 401);
    assert_eq!(bad_key(&app, "198.51.100.5", "203.0.113.3").await, 429);
}

#[tokio::test]
async fn a_trusted_peer_names_the_client() {
    let (_dir, app) = app(&["10.0.0.0/8"]);
    // One proxy, many clients: each forwarded address has its own budget.
    assert_eq!(bad_key(&app, "10.0.0.1", "203.0.113.1").await, 401);
    assert_eq!(bad_key(&app, "10.0.0.1", "203.0.113.1").await, 401);
    assert_eq!(bad_key(&app, "10.0.0.1", "203.0.113.1").await, 429);
    assert_eq!(bad_key(&app, "10.0.0.1", "203.0.113.2").await, 401);
    // A chain: the client's own (fake) entry at the left is skipped, as are the
    // trusted hops at the right; the address the first trusted proxy saw counts.
    assert_eq!(
        bad_key(&app, "10.0.0.1", "203.0.113.2, 198.51.100.9, 10.0.0.7").await,
        401
    );
    assert_eq!(
        bad_key(&app, "10.0.0.2", "203.0.113.3, 198.51.100.9, 10.0.0.7").await,
        401
    );
    assert_eq!(bad_key(&app, "10.0.0.3", "198.51.100.9").await, 429);
}

/// GraphQL's per-address limit (local and e2e) counts the same client address as the
/// REST limits: behind a trusted proxy, the forwarded one.
#[tokio::test]
async fn graphql_counts_the_forwarded_address_behind_a_trusted_proxy() {
    let trusted = TrustedProxies::parse(&["10.0.0.0/8"]).unwrap();
    let app = shared().app(Env::Local, |c| {
        c.trusted_proxies = trusted;
        c.graphql.rate_limit = 1;
        c.graphql.burst = 2;
    });
    let post = |peer: &str, forwarded: &str| {
        from(Method::POST, "/graphql/", peer)
            .header("content-type", "application/json")
            .header("x-forwarded-for", forwarded)
            .body(axum::body::Body::from(r#"{"query":"{ __typename }"}"#))
            .unwrap()
    };
    let status = |req| async { oneshot(&app, req).await.status.as_u16() };
    assert_eq!(status(post("10.0.0.1", "203.0.113.1")).await, 200);
    assert_eq!(status(post("10.0.0.1", "203.0.113.1")).await, 200);
    assert_eq!(status(post("10.0.0.1", "203.0.113.1")).await, 429);
    // Another client behind the same proxy has its own budget.
    assert_eq!(status(post("10.0.0.1", "203.0.113.2")).await, 200);
    // Untrusted peers are counted as themselves, whatever they claim.
    assert_eq!(status(post("198.51.100.5", "203.0.113.3")).await, 200);
    assert_eq!(status(post("198.51.100.5", "203.0.113.4")).await, 200);
    assert_eq!(status(post("198.51.100.5", "203.0.113.5")).await, 429);
}

/// `/idx/` reads the client address through the same piece as REST and GraphQL
/// (`roost::guard::Client`): behind a trusted proxy, its per-address rate counts the
/// forwarded address; an untrusted peer is counted as itself, whatever it claims.
#[tokio::test]
async fn idx_counts_the_forwarded_address_behind_a_trusted_proxy() {
    let trusted = TrustedProxies::parse(&["10.0.0.0/8"]).unwrap();
    let app = shared().app(Env::Local, |c| {
        c.trusted_proxies = trusted;
        c.graphql.rate_limit = 1;
        c.graphql.burst = 2;
    });
    let post = |peer: &str, forwarded: &str| {
        from(Method::POST, "/idx/", peer)
            .header("content-type", "application/json")
            .header("x-forwarded-for", forwarded)
            .body(axum::body::Body::from(r#"{"indexName":"committees"}"#))
            .unwrap()
    };
    let status = |req| async { oneshot(&app, req).await.status.as_u16() };
    // Two proxies, one client: one budget.
    assert_eq!(status(post("10.0.0.1", "203.0.113.1")).await, 200);
    assert_eq!(status(post("10.0.0.2", "203.0.113.1")).await, 200);
    assert_eq!(status(post("10.0.0.1", "203.0.113.1")).await, 429);
    // Another client behind the same proxy has its own budget.
    assert_eq!(status(post("10.0.0.1", "203.0.113.2")).await, 200);
    assert_eq!(status(post("198.51.100.5", "203.0.113.3")).await, 200);
    assert_eq!(status(post("198.51.100.5", "203.0.113.4")).await, 200);
    assert_eq!(status(post("198.51.100.5", "203.0.113.5")).await, 429);
}
