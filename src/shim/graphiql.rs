//! GraphiQL's files under `/graphql/`, in local and e2e only (the page itself is
//! GraphQL's: `crate::graphql`'s explorer).
//!
//! The GraphiQL build vendored from npm under `assets/graphiql/` (its module,
//! stylesheet, fonts and Monaco's web workers, listed in `assets/graphiql/files.rs`;
//! rebuilt from a lockfile by `tools/graphiql/build.sh`, never by `cargo build`) is
//! embedded in the binary, with `/graphql/examples.json`, the web frontend's page
//! queries (`tests/graphql/pages/`) and their sample variables, which the page offers
//! as examples.
//!
//! Files are answered with an ETag (`If-None-Match` gives 304) and
//! `Cache-Control: no-cache`, compressed once per coding the client accepts (fonts are
//! compressed already and sent as they are).

use std::sync::{LazyLock, OnceLock};

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use serde_json::{json, Value};

use super::respond::{self, ApiError, Encoding, Negotiation};
use crate::error::InternalCause;

/// The vendored GraphiQL: path under `/graphql/`, bytes.
const FILES: &[(&str, &[u8])] = include!("../../assets/graphiql/files.rs");

macro_rules! page_query {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../tests/graphql/pages/", $name)),
        )
    };
}

/// The web frontend's page queries (file name, text) and their variables
/// (`pages.json`), as `tests/graphql/pages.rs` and the e2e step run them.
pub(super) const PAGES: &[(&str, &str)] = &[
    page_query!("home.graphql"),
    page_query!("about.graphql"),
    page_query!("chapter.graphql"),
    page_query!("chapter-metadata.graphql"),
    page_query!("chapter-countries.graphql"),
    page_query!("committee.graphql"),
    page_query!("committee-metadata.graphql"),
    page_query!("organization.graphql"),
    page_query!("organization-metadata.graphql"),
    page_query!("project.graphql"),
    page_query!("project-metadata.graphql"),
    page_query!("project-contributors.graphql"),
    page_query!("project-search.graphql"),
    page_query!("repository.graphql"),
    page_query!("repository-metadata.graphql"),
    page_query!("snapshot.graphql"),
    page_query!("snapshot-metadata.graphql"),
    page_query!("snapshots.graphql"),
    page_query!("user.graphql"),
    page_query!("user-leader.graphql"),
    page_query!("user-metadata.graphql"),
];
pub(super) const PAGES_JSON: &str = include_str!("../../tests/graphql/pages/pages.json");

/// The routes of GraphiQL's files.
pub fn routes() -> Router {
    Router::new().route("/graphql/{*file}", get(asset))
}

/// `GET /graphql/{file}`: a file of the vendored GraphiQL, or `examples.json`.
async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    let Some(index) = ASSETS.iter().position(|a| a.name == file) else {
        return ApiError::UnknownPath.into_response();
    };
    let asset = &ASSETS[index];
    let neg = Negotiation::from_headers(&headers);
    let encoding = match neg.accept.first() {
        Some(&e) if asset.compressible => e,
        _ => Encoding::Identity,
    };
    let slot = match encoding {
        Encoding::Identity => 0,
        Encoding::Gzip => 1,
        Encoding::Br => 2,
    };
    let (bytes, etag) = match asset.encoded[slot].get() {
        Some(done) => done.clone(),
        None => {
            let bytes = asset.bytes.clone();
            let encoded =
                tokio::task::spawn_blocking(move || respond::compress(&bytes, encoding)).await;
            let encoded = match encoded {
                Ok(Ok(encoded)) => Bytes::from(encoded),
                Ok(Err(e)) => return respond::internal_response(InternalCause::new(e)),
                Err(e) => return respond::internal_response(InternalCause::new(e)),
            };
            asset.encoded[slot]
                .get_or_init(|| (encoded, respond::etag(&asset.bytes, encoding)))
                .clone()
        }
    };
    let mut response =
        respond::outcome_response(neg.known(bytes, asset.content_type, encoding, etag));
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A file the explorer serves, with its compressed forms once made.
struct Asset {
    name: &'static str,
    bytes: Bytes,
    content_type: &'static str,
    compressible: bool,
    /// Identity, gzip, br: bytes and ETag.
    encoded: [OnceLock<(Bytes, respond::Etag)>; 3],
}

static ASSETS: LazyLock<Vec<Asset>> = LazyLock::new(|| {
    let examples = examples().to_string().into_bytes();
    FILES
        .iter()
        .map(|&(name, bytes)| (name, Bytes::from_static(bytes)))
        .chain([("examples.json", Bytes::from(examples))])
        .map(|(name, bytes)| {
            let ext = name.rsplit_once('.').map_or("", |(_, ext)| ext);
            let identity = OnceLock::new();
            let _ = identity.set((bytes.clone(), respond::etag(&bytes, Encoding::Identity)));
            Asset {
                name,
                content_type: match ext {
                    "js" => "text/javascript; charset=utf-8",
                    "css" => "text/css; charset=utf-8",
                    "json" => respond::JSON,
                    "woff2" => "font/woff2",
                    "woff" => "font/woff",
                    "ttf" => "font/ttf",
                    _ => "application/octet-stream",
                },
                compressible: !matches!(ext, "woff" | "woff2")
                    && bytes.len() >= respond::COMPRESS_MIN,
                bytes,
                encoded: [identity, OnceLock::new(), OnceLock::new()],
            }
        })
        .collect()
});

/// The examples the page offers: per page query, its file name, operation name, title
/// (the first comment line) and text, and its variables.
fn examples() -> Value {
    let variables: Value = serde_json::from_str(PAGES_JSON).unwrap_or(Value::Null);
    Value::Array(
        PAGES
            .iter()
            .map(|&(name, text)| {
                let title = text
                    .lines()
                    .next()
                    .and_then(|l| l.strip_prefix('#'))
                    .map(str::trim)
                    .unwrap_or("");
                let operation = text
                    .split(|c: char| c.is_whitespace() || c == '(' || c == '{')
                    .skip_while(|word| *word != "query")
                    .nth(1)
                    .unwrap_or("");
                json!({
                    "name": name,
                    "operation": operation,
                    "title": title,
                    "query": text,
                    "variables": variables[name]["variables"].clone(),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_query_is_an_example() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/graphql/pages");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".graphql"))
            .collect();
        files.sort();
        let mut listed: Vec<String> = PAGES.iter().map(|(n, _)| n.to_string()).collect();
        listed.sort();
        assert_eq!(files, listed);
        for example in examples().as_array().unwrap() {
            assert!(example["variables"].is_object(), "{example}");
            assert!(
                !example["operation"].as_str().unwrap().is_empty(),
                "{example}"
            );
            assert!(!example["title"].as_str().unwrap().is_empty(), "{example}");
        }
    }
}
