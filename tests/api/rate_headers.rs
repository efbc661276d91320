//! The `RateLimit-*` fields (IETF draft) on every answer to a keyed REST request, and
//! their declaration in the OpenAPI document.

use axum::http::Method;
use chrono::Utc;
use roost::config::Env;
use roost::credentials::Kind;

use crate::support::*;

fn limits(r: &Reply) -> (Option<&str>, Option<&str>, Option<&str>) {
    (
        r.header("ratelimit-limit"),
        r.header("ratelimit-remaining"),
        r.header("ratelimit-reset"),
    )
}

#[tokio::test]
async fn keyed_answers_say_the_budget_and_a_429_says_when_to_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let auth_db = dir.path().join("auth.db");
    let app = shared().app(Env::Production, |c| {
        c.auth_db = auth_db.clone();
        c.rate_limit = 3;
    });
    let (_, key) = credential(&auth_db, Kind::Key, "headers", None, Utc::now());
    let keyed = |uri: &str| request(Method::GET, uri).header("x-api-key", key.as_str());

    let first = send(&app, keyed("/api/v0/chapters/")).await;
    assert_eq!(first.status, 200);
    assert_eq!(limits(&first), (Some("3"), Some("2"), Some("1")));
    let etag = first.header("etag").unwrap().to_string();

    // A 304 and a 404 are keyed answers too, and spend the budget.
    let not_modified = send(
        &app,
        keyed("/api/v0/chapters/").header("if-none-match", etag.as_str()),
    )
    .await;
    assert_eq!(not_modified.status, 304);
    assert_eq!(limits(&not_modified), (Some("3"), Some("1"), Some("1")));
    let missing = send(&app, keyed("/api/v0/nothing")).await;
    assert_eq!(missing.status, 404);
    assert_eq!(limits(&missing), (Some("3"), Some("0"), Some("1")));

    let refused = send(&app, keyed("/api/v0/chapters/")).await;
    assert_detail(&refused, 429, "Too many requests.");
    assert_eq!(limits(&refused).0, Some("3"));
    assert_eq!(limits(&refused).1, Some("0"));
    let reset: u64 = refused.header("ratelimit-reset").unwrap().parse().unwrap();
    let retry: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "Retry-After {retry}");
    assert!(
        reset >= retry,
        "RateLimit-Reset {reset} < Retry-After {retry}"
    );

    // Without a valid key there is no key budget to tell; public documents neither.
    let unauthorized = send(&app, request(Method::GET, "/api/v0/chapters/")).await;
    assert_eq!(unauthorized.status, 401);
    assert_eq!(limits(&unauthorized), (None, None, None));
    let openapi = get(&app, "/api/v0/openapi.json").await;
    assert_eq!(openapi.status, 200);
    assert_eq!(limits(&openapi), (None, None, None));
}

#[tokio::test]
async fn local_answers_have_no_rate_limit_fields() {
    let r = get(&local(), "/api/v0/chapters/").await;
    assert_eq!(r.status, 200);
    assert_eq!(limits(&r), (None, None, None));
}

#[tokio::test]
async fn the_openapi_document_declares_the_fields() {
    let doc = get(&local(), "/api/v0/openapi.json").await.json();
    let chapters = &doc["paths"]["/api/v0/chapters/"]["get"]["responses"];
    for status in ["200", "304", "429"] {
        for name in ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] {
            let header = &chapters[status]["headers"][name];
            assert_eq!(header["schema"]["type"], "integer", "{status} {name}");
        }
    }
    assert_eq!(
        chapters["429"]["headers"]["Retry-After"]["schema"]["minimum"],
        1
    );
    let cors = &doc["info"]["description"];
    assert!(cors.as_str().unwrap().contains("RateLimit-Remaining"));
}
