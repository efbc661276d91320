//! The GraphQL routes over a dataset in a temporary folder, in each environment, with
//! their auth.db for sessions; requests to them; direct SQL access to the dataset for
//! expected values.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use roost::config::Env;
use roost::credentials::{self, Credentials, Kind};
use roost::graphql::{GraphqlConfig, Limits, NoAnswers, Service};
use roost::pool::ReadPool;
use rusqlite::Connection;
use serde_json::{json, Value};

use super::{credential, oneshot, Reply, Sample};

/// The GraphQL service of one dataset and its router.
pub struct App {
    _dir: tempfile::TempDir,
    pub db: PathBuf,
    pub auth_db: PathBuf,
    pub service: Arc<Service>,
    pub router: Router,
}

impl App {
    /// The sample dataset, served in `env` with the default limits.
    pub fn new(env: Env) -> App {
        App::with_limits(env, Limits::default())
    }

    pub fn with_limits(env: Env, limits: Limits) -> App {
        let Sample { dir, db } = Sample::new();
        App::over(dir, db, env, limits)
    }

    /// A dataset built by the caller in `dir`; in production and staging, an auth.db
    /// beside it, as `roost serve` opens it.
    pub fn over(dir: tempfile::TempDir, db: PathBuf, env: Env, limits: Limits) -> App {
        let auth_db = dir.path().join("auth.db");
        let config = GraphqlConfig {
            pool: ReadPool::new(&db, 4),
            credentials: env
                .is_protected()
                .then(|| Credentials::open(&auth_db).unwrap()),
            env,
            // Every request executed: the statement counts of the N+1 tests stay
            // those of an execution (answers kept in memory: tests/api/live_cache.rs).
            answers: Arc::new(NoAnswers),
        };
        let service = Service::new(config, limits);
        let router = service.router();
        App {
            _dir: dir,
            db,
            auth_db,
            service,
            router,
        }
    }

    /// Direct read access to the dataset, for expected values.
    pub fn sql(&self) -> Connection {
        Connection::open(&self.db).unwrap()
    }

    /// Sends one request.
    pub async fn send(&self, request: Request<Body>) -> Reply {
        oneshot(&self.router, request).await
    }

    /// POSTs a query with variables (no cookies).
    pub async fn post(&self, query: &str, variables: Value) -> Reply {
        self.send(post_json(
            json!({"query": query, "variables": variables}),
            &[],
        ))
        .await
    }

    /// Runs a query that must succeed; returns its `data`.
    pub async fn data(&self, query: &str, variables: Value) -> Value {
        let reply = self.post(query, variables).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        let body = reply.json();
        assert!(body.get("errors").is_none(), "unexpected errors: {body}");
        body["data"].clone()
    }

    /// Runs a query that must fail in GraphQL; returns its first error message.
    pub async fn error(&self, query: &str, variables: Value) -> String {
        let body = self.post(query, variables).await.json();
        body["errors"][0]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("expected an error: {body}"))
            .to_string()
    }

    /// A new session in this app's auth.db: (id, token).
    pub fn session(&self, name: &str, days: Option<u32>) -> (i64, String) {
        self.session_at(name, days, chrono::Utc::now())
    }

    /// A new session made at `now` (in the past: one that has already expired).
    pub fn session_at(
        &self,
        name: &str,
        days: Option<u32>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> (i64, String) {
        credential(&self.auth_db, Kind::Session, name, days, now)
    }

    /// Revokes a session of this app's auth.db.
    pub fn revoke_session(&self, id: i64) {
        let conn = credentials::open(&self.auth_db).unwrap();
        credentials::revoke(&conn, Kind::Session, id, chrono::Utc::now()).unwrap();
    }
}

/// A JSON POST to `/graphql/` with extra headers.
pub fn post_json(body: Value, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri("/graphql/")
        .header(header::CONTENT_TYPE, "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::from(body.to_string())).unwrap()
}

/// A GET with headers.
pub fn get_request(uri: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::builder().method(Method::GET).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::empty()).unwrap()
}

/// `?query=...` percent-encoded.
pub fn query_uri(query: &str) -> String {
    let encoded: String = query
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("/graphql/?query={encoded}")
}
