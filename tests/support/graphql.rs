//! Fixtures of the GraphQL tests: the sample dataset in a temporary folder, the
//! GraphQL routes in each environment, a request helper that drives the router
//! in-process (`tower::ServiceExt::oneshot`, no port), and direct SQL access to the
//! dataset for expected values.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt as _;
use roost::config::Env;
use roost::credentials::{self, Credentials, Kind};
use roost::graphql::{GraphqlConfig, Limits, Service};
use roost::pool::ReadPool;
use rusqlite::Connection;
use serde_json::{json, Value};
use tower::ServiceExt as _;

pub struct App {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    pub auth_db: PathBuf,
    pub env: Env,
    pub service: Arc<Service>,
    pub router: Router,
}

impl App {
    /// The sample dataset, served in `env` with the default limits.
    pub fn new(env: Env) -> App {
        App::with_limits(env, Limits::default())
    }

    pub fn with_limits(env: Env, limits: Limits) -> App {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roost.db");
        roost::store::init_db(&db, false).unwrap();
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
        };
        let service = Service::new(config, limits);
        let router = service.router();
        App {
            dir,
            db,
            auth_db,
            env,
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
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Reply {
            status,
            headers,
            text,
        }
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
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
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
        let conn = credentials::open(&self.auth_db).unwrap();
        let issued = credentials::create(&conn, Kind::Session, name, days, now).unwrap();
        (issued.id, issued.secret)
    }

    /// Revokes a session of this app's auth.db.
    pub fn revoke_session(&self, id: i64) {
        let conn = credentials::open(&self.auth_db).unwrap();
        credentials::revoke(&conn, Kind::Session, id, chrono::Utc::now()).unwrap();
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap())
            .unwrap_or("")
    }

    /// `errors[0].extensions.code`.
    pub fn code(&self) -> String {
        self.json()["errors"][0]["extensions"]["code"]
            .as_str()
            .unwrap_or("")
            .to_string()
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
pub fn get(uri: &str, headers: &[(&str, &str)]) -> Request<Body> {
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

/// A timestamp column as the API formats it.
pub fn ts(micros: i64) -> String {
    roost::records::Ts(micros).format()
}

/// Every row of a query, each row's columns as JSON values.
pub fn rows(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> Vec<Vec<Value>> {
    let mut st = conn.prepare(sql).unwrap();
    let n = st.column_count();
    let rows = st
        .query_map(params, |r| {
            (0..n)
                .map(|i| {
                    Ok(match r.get_ref(i)? {
                        rusqlite::types::ValueRef::Null => Value::Null,
                        rusqlite::types::ValueRef::Integer(v) => json!(v),
                        rusqlite::types::ValueRef::Real(v) => json!(v),
                        rusqlite::types::ValueRef::Text(t) => {
                            json!(String::from_utf8_lossy(t).into_owned())
                        }
                        rusqlite::types::ValueRef::Blob(_) => Value::Null,
                    })
                })
                .collect()
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// The first column of every row, as strings.
pub fn strings(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> Vec<String> {
    rows(conn, sql, params)
        .into_iter()
        .map(|r| match &r[0] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// A single integer.
pub fn int(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> i64 {
    conn.query_row(sql, params, |r| r.get(0)).unwrap()
}

/// The values of `field` in a JSON array of objects.
pub fn pluck(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|item| match &item[field] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}
