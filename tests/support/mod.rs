//! Fixtures of the shim tests: the sample dataset and its generated tree in a
//! temporary folder, apps in each environment, and a small request helper that
//! drives the router in-process (`tower::ServiceExt::oneshot`, no port).
#![allow(dead_code)]

pub mod graphql;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt as _;
use roost::config::Env;
use roost::shim::{self, AppState, ShimConfig};
use tower::ServiceExt as _;

/// The day the tree's `is_upcoming` files are rendered for, and the apps' "today".
pub const TODAY: &str = "2026-11-22";

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    pub site: PathBuf,
    pub auth_db: PathBuf,
}

impl Fixture {
    /// A fresh dataset and tree in their own folder.
    pub fn new(precompress: bool) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roost.db");
        roost::store::init_db(&db, false).unwrap();
        let site = dir.path().join("site");
        generate(&db, &site, precompress);
        Fixture {
            auth_db: dir.path().join("auth.db"),
            dir,
            db,
            site,
        }
    }

    /// An app over this fixture; `tweak` adjusts the config.
    pub fn app(&self, env: Env, tweak: impl FnOnce(&mut ShimConfig)) -> Router {
        shim::app(self.state(env, tweak))
    }

    pub fn state(&self, env: Env, tweak: impl FnOnce(&mut ShimConfig)) -> AppState {
        let mut config = ShimConfig::new(env, &self.db, Some(&self.site), &self.auth_db);
        config.today = Some(TODAY.to_string());
        tweak(&mut config);
        AppState::new(config).unwrap()
    }

    /// A file of the live tree.
    pub fn file(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.site.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// A new API key in this fixture's auth.db: (id, raw key).
    pub fn key(&self, name: &str, expires_in_days: Option<u32>) -> (i64, String) {
        key_in(&self.auth_db, name, expires_in_days, chrono::Utc::now())
    }
}

/// A new API key in `auth_db`, made at `now`: (id, raw key).
pub fn key_in(
    auth_db: &Path,
    name: &str,
    expires_in_days: Option<u32>,
    now: chrono::DateTime<chrono::Utc>,
) -> (i64, String) {
    use roost::credentials::{self, Kind};
    let conn = credentials::open(auth_db).unwrap();
    let issued = credentials::create(&conn, Kind::Key, name, expires_in_days, now).unwrap();
    (issued.id, issued.secret)
}

pub fn generate(db: &Path, site: &Path, precompress: bool) {
    roost::generate::generate(&roost::generate::Options {
        db: db.to_path_buf(),
        out: site.to_path_buf(),
        jobs: Some(2),
        precompress,
        today: TODAY.to_string(),
        progress: false,
        public_url: None,
    })
    .unwrap();
}

/// One fixture per test binary (read-only use only).
pub fn shared() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| Fixture::new(false))
}

/// One precompressed fixture per test binary.
pub fn shared_precompressed() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| Fixture::new(true))
}

#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "{} is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A request builder with the test client's address set.
pub fn request(method: Method, uri: &str) -> axum::http::request::Builder {
    from(method, uri, "192.0.2.1")
}

/// A request from a given client address.
pub fn from(method: Method, uri: &str, ip: &str) -> axum::http::request::Builder {
    let addr: SocketAddr = format!("{ip}:40000").parse().unwrap();
    Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "api.example.test")
        .extension(ConnectInfo(addr))
}

pub async fn send(app: &Router, req: axum::http::request::Builder) -> Resp {
    let response = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    Resp {
        status,
        headers,
        body,
    }
}

pub async fn get(app: &Router, uri: &str) -> Resp {
    send(app, request(Method::GET, uri)).await
}

pub async fn get_with_key(app: &Router, uri: &str, key: &str) -> Resp {
    send(app, request(Method::GET, uri).header("x-api-key", key)).await
}

/// Asserts an error body is exactly `{"detail": detail}`.
#[track_caller]
pub fn assert_detail(r: &Resp, status: u16, detail: &str) {
    assert_eq!(r.status.as_u16(), status, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json(), serde_json::json!({ "detail": detail }));
}

pub fn gunzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

pub fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    brotli::Decompressor::new(bytes, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}
