//! Content codings in-process (docs/api.md §2): gzip and brotli negotiated from
//! `Accept-Encoding` with one ETag per coding, and precompressed siblings of the tree
//! served as they are.

use axum::http::Method;
use roost::config::Env;

use crate::support::*;

#[tokio::test]
async fn gzip_and_brotli_are_negotiated() {
    let app = local();
    let identity = get(&app, "/api/v0/members/").await;
    assert_eq!(identity.header("vary"), Some("accept-encoding"));
    assert!(identity.header("content-encoding").is_none());
    let mut etags = vec![identity.header("etag").unwrap().to_string()];
    for (accept, coding) in [
        ("gzip", "gzip"),
        ("gzip, deflate, br", "br"),
        ("br;q=0.5, gzip;q=0.9", "gzip"),
        ("*", "br"),
    ] {
        for path in ["/api/v0/members/", "/api/v0/members/?page_size=50"] {
            let r = send(
                &app,
                request(Method::GET, path).header("accept-encoding", accept),
            )
            .await;
            assert_eq!(r.status, 200);
            assert_eq!(r.header("content-encoding"), Some(coding), "{accept}");
            assert_eq!(r.header("vary"), Some("accept-encoding"));
            let plain = get(&app, path).await.body;
            let decoded = if coding == "gzip" {
                gunzip(&r.body)
            } else {
                unbrotli(&r.body)
            };
            assert_eq!(decoded, plain, "{accept} {path}");
            assert!(r.body.len() < plain.len());
            if path == "/api/v0/members/" {
                etags.push(r.header("etag").unwrap().to_string());
            }
        }
    }
    etags.sort();
    etags.dedup();
    assert_eq!(etags.len(), 3, "one tag per coding: {etags:?}");
    // A 304 for the encoded representation.
    let r = send(
        &app,
        request(Method::GET, "/api/v0/members/").header("accept-encoding", "gzip"),
    )
    .await;
    let tag = r.header("etag").unwrap().to_string();
    assert!(tag.ends_with("-gz\""));
    let r = send(
        &app,
        request(Method::GET, "/api/v0/members/")
            .header("accept-encoding", "gzip")
            .header("if-none-match", &tag),
    )
    .await;
    assert_eq!(r.status, 304);
    // A tiny body is sent as it is.
    let r = send(
        &app,
        request(Method::GET, "/api/v0/chapters/atlantis").header("accept-encoding", "gzip"),
    )
    .await;
    assert!(r.header("content-encoding").is_none());
}

#[tokio::test]
async fn precompressed_siblings_are_served_as_they_are() {
    let fx = shared_precompressed();
    let app = fx.app(Env::Local, |_| {});
    let r = send(
        &app,
        request(Method::GET, "/api/v0/members/").header("accept-encoding", "br"),
    )
    .await;
    assert_eq!(r.header("content-encoding"), Some("br"));
    assert_eq!(r.body, fx.file("api/v0/members/index.json.br"));
    assert_eq!(unbrotli(&r.body), fx.file("api/v0/members/index.json"));
    let r = send(
        &app,
        request(Method::GET, "/api/v0/chapters/").header("accept-encoding", "gzip"),
    )
    .await;
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert_eq!(r.body, fx.file("api/v0/chapters/index.json.gz"));
    let tag = r.header("etag").unwrap().to_string();
    assert!(tag.ends_with("-gz\""));
    let r = send(
        &app,
        request(Method::GET, "/api/v0/chapters/")
            .header("accept-encoding", "gzip")
            .header("if-none-match", &tag),
    )
    .await;
    assert_eq!(r.status, 304);
    let r = get(&app, "/api/v0/chapters/").await;
    assert!(r.header("content-encoding").is_none());
    assert_eq!(r.body, fx.file("api/v0/chapters/index.json")); // A file under 1 KiB has no siblings in the tree; the shim compresses it once.
    assert!(fx.file("api/v0/chapters/london.json").len() < 1024);
    assert!(!fx.site.join("api/v0/chapters/london.json.gz").exists());
    let r = send(
        &app,
        request(Method::GET, "/api/v0/chapters/london").header("accept-encoding", "gzip"),
    )
    .await;
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert_eq!(gunzip(&r.body), fx.file("api/v0/chapters/london.json"));
}
