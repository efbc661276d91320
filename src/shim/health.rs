//! Health endpoints for load balancers and orchestrators, outside `/api/v0` and
//! without API keys (they say nothing about the data):
//!
//! - `GET /healthz`: the process answers (`200 {"status": "ok"}`);
//! - `GET /readyz`: the dataset opens and answers a query through the read pool, and
//!   the tree's manifest is readable through the `site` symlink:
//!   `200 {"status": "ready"}`, else `503 {"status": "unavailable", "reason": "…"}`
//!   naming what is missing (the reason says which file, never a path outside the
//!   configured ones); while `roost serve` warms up after it started listening
//!   ([`super::warm`]), `503 {"status": "unavailable", "reason": "warming up"}`, so
//!   that a load balancer sends a new replica nothing before its first answers are
//!   as fast as the later ones; from SIGTERM on (the drain period of `roost serve`),
//!   `503 {"status": "unavailable", "reason": "shutting down"}` while every other
//!   request is still served, so that a load balancer takes the replica out first.

use axum::extract::State;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::respond::{json_response, ApiError};
use super::AppState;

fn answer(status: StatusCode, body: serde_json::Value) -> Response {
    let mut r = json_response(status, body.to_string().into_bytes());
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

pub async fn healthz(method: Method) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return ApiError::MethodNotAllowed.into_response();
    }
    answer(StatusCode::OK, json!({"status": "ok"}))
}

pub async fn readyz(State(state): State<AppState>, method: Method) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return ApiError::MethodNotAllowed.into_response();
    }
    let reason = if state.is_draining() {
        Some("shutting down".to_string())
    } else if state.is_warming() {
        Some("warming up".to_string())
    } else if let Some(reason) = credentials_not_ready(&state) {
        Some(reason)
    } else {
        not_ready(&state).await
    };
    match reason {
        None => answer(StatusCode::OK, json!({"status": "ready"})),
        Some(reason) => answer(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "unavailable", "reason": reason}),
        ),
    }
    .into_response()
}

/// Why the credential store (production, staging) cannot be used, if it cannot: it
/// is missing, or is no store; named by its file name.
fn credentials_not_ready(state: &AppState) -> Option<String> {
    let credentials = state.credentials.as_ref()?;
    let name = credentials
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "auth.db".to_string());
    match credentials.status() {
        Ok(_) => None,
        Err(crate::credentials::CredentialError::Missing { .. }) => Some(format!(
            "the credential store {name} is missing (`roost keys create` makes one)"
        )),
        Err(_) => Some(format!(
            "the credential store {name} cannot be opened (the log says why)"
        )),
    }
}

/// Why the shim cannot answer, if it cannot.
async fn not_ready(state: &AppState) -> Option<String> {
    let site = state.config().site.clone();
    let db_name = state
        .config()
        .db
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "the dataset".to_string());
    let checked = state
        .pool
        .run(move |reader| {
            let dataset = reader.with(|conn| {
                conn.query_row(
                    "SELECT value FROM meta WHERE key = 'schema_version'",
                    [],
                    |r| r.get::<_, String>(0),
                )
            });
            let dataset = match dataset {
                Ok(Ok(_)) => None,
                Ok(Err(e)) => Some(format!("dataset {db_name} does not answer: {e}")),
                Err(e) => Some(format!("dataset {db_name} cannot be opened: {e}")),
            };
            let tree = site.and_then(|site| match crate::manifest::has_manifest(&site) {
                true => None,
                false => Some(format!(
                    "the tree has no {} nor {} (generate it with `roost generate`)",
                    crate::generate::MANIFEST,
                    crate::manifest::ROOT
                )),
            });
            dataset.or(tree)
        })
        .await;
    match checked {
        Ok(reason) => reason,
        Err(e) => Some(format!("the read pool is unavailable: {e}")),
    }
}
