//! GraphQL over HTTP.
//!
//! - `POST /graphql/` with `Content-Type: application/json` and a body
//!   `{"query": ..., "variables": {...}, "operationName": ...}`; `GET /graphql/?query=...`
//!   (`variables` JSON-encoded) for queries. Batches (a JSON array) are refused.
//! - The response is `application/graphql-response+json` when the client's `Accept`
//!   asks for it, else `application/json`. A GraphQL result is 200, except that under
//!   `application/graphql-response+json` a document refused before execution (syntax,
//!   validation, depth, complexity) is 400, as the GraphQL-over-HTTP specification
//!   says. Errors before GraphQL runs are JSON with an `errors` list, whose entries
//!   carry `extensions.code`:
//!
//!   | case | status | code |
//!   |---|---|---|
//!   | method other than GET, HEAD, POST | 405 + `Allow` | `METHOD_NOT_ALLOWED` |
//!   | POST without `application/json` | 415 | `UNSUPPORTED_MEDIA_TYPE` |
//!   | body over the limit (64 KiB) | 413 | `PAYLOAD_TOO_LARGE` |
//!   | GET query string over the limit | 414 | `URI_TOO_LONG` |
//!   | malformed JSON, batch, missing `query`, bad `variables` | 400 | `BAD_REQUEST` |
//!   | production/staging: a `sessionid` cookie naming no valid session, or none under `--graphql-require-session` | 401 | `UNAUTHENTICATED` |
//!   | over the rate limit (per address; per session for trusted callers) | 429 + `Retry-After` | `RATE_LIMITED` |
//!   | production/staging: POST whose `X-CSRFToken` differs from the `csrftoken` cookie | 403 | `CSRF_FAILED` |
//!   | over the time limit (10 s) | 503 | `TIMEOUT` |
//!   | dataset or auth database failure | 500 | `INTERNAL_SERVER_ERROR` |
//!
//!   A URI or headers over the HTTP layer's own limits are answered by hyper before
//!   this handler runs; [`crate::shim::net`] writes them in the same shape (414
//!   `URI_TOO_LONG`, 431 `REQUEST_HEADER_FIELDS_TOO_LARGE`, 400 `BAD_REQUEST`).
//!
//!   Refused documents (200, or 400 under `application/graphql-response+json`, never
//!   executed, no `data`): `GRAPHQL_PARSE_FAILED`, `GRAPHQL_VALIDATION_FAILED` (also a
//!   missing required variable, an unknown `operationName`, several operations and no
//!   `operationName`), `TOO_MANY_ROOT_FIELDS`, `TOO_MANY_FIELDS`, `QUERY_TOO_DEEP`,
//!   `QUERY_TOO_COMPLEX`, and `INTROSPECTION_DISABLED` for `__schema` or `__type` in
//!   production and staging. Errors while executing keep 200 and the other fields'
//!   data: `BAD_USER_INPUT` for a bad argument value, `DATABASE_TIME_EXCEEDED` once
//!   the request's database time is spent.
//! - Production and staging, as the original service: anonymous visitors are served
//!   (the public queries are read-only); a POST must carry the CSRF pair (403). A
//!   `sessionid` cookie marks a trusted caller (the frontend's server-side renderer):
//!   it is checked first (401 when it names no valid session), then counted on the
//!   trusted budget. Anonymous callers are counted per client address (behind trusted
//!   proxies, the forwarded one); addresses listed with `--graphql-trusted-client` get
//!   the trusted budget. Order: session (401), rate (429), CSRF for a POST (403). A GET
//!   query needs no CSRF pair: it reads and changes nothing. `--graphql-require-session`
//!   refuses requests without a session (401), as for a private deployment. Local and
//!   e2e check neither sessions nor CSRF, and count every caller per address. The
//!   address, the session check, the rate check and the CSRF pair are the pieces every
//!   endpoint shares ([`crate::guard`]); this file words their refusals.
//!
//! - `GET /csrf/` returns `{"csrftoken": "..."}` and sets the `csrftoken` cookie
//!   (`Path=/; SameSite=Lax`, plus `Secure` in production and staging). The check is
//!   the double-submit pattern: a cross-site page can make the browser send the
//!   cookie, but cannot read it to copy it into the header.
//! - In local and e2e, `GET /graphql/` from a browser (`Accept: text/html`, no `query`)
//!   is the explorer, GraphiQL ([`super::explorer`]; its files are served by the shim).

use std::sync::Arc;
use std::time::Instant;

use async_graphql::Variables;
use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::{json, Value};

use super::db::RequestDb;
use super::limits::Caller;
use super::run::{Outcome, Params};
use super::{answers, loaders, plain, Service};
use crate::credentials;
use crate::error::{join_causes, InternalCause};
use crate::guard::credential::SESSION_COOKIE;
use crate::guard::csrf::{self, cookie, CSRF_COOKIE, CSRF_HEADER};
use crate::guard::{Client, RateLimited, Refusal};

/// A year, like Django's default CSRF cookie age.
const CSRF_MAX_AGE_SECS: u64 = 31_449_600;

pub fn router(service: Arc<Service>) -> Router {
    Router::new()
        .route("/graphql/", any(graphql))
        .route("/graphql", any(graphql))
        .route("/csrf/", any(csrf))
        .route("/csrf", any(csrf))
        .with_state(service)
}

/// The media type of JSON responses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Media {
    Json,
    GraphqlResponseJson,
}

impl Media {
    fn negotiate(headers: &HeaderMap) -> Media {
        let mut best = (Media::Json, 0.0f32);
        let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
            return Media::Json;
        };
        for entry in accept.split(',') {
            let mut parts = entry.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if media == "application/graphql-response+json" && q > best.1 {
                best = (Media::GraphqlResponseJson, q);
            }
        }
        best.0
    }

    fn content_type(self) -> &'static str {
        match self {
            Media::Json => "application/json",
            Media::GraphqlResponseJson => "application/graphql-response+json",
        }
    }
}

/// A request refused before GraphQL runs.
#[derive(Debug)]
pub(super) struct HttpError {
    status: StatusCode,
    code: &'static str,
    message: String,
    allow: Option<&'static str>,
    /// What went wrong inside, for the access log (never sent).
    cause: Option<InternalCause>,
    retry_after: Option<u64>,
}

impl HttpError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        HttpError {
            status,
            code,
            message: message.into(),
            allow: None,
            retry_after: None,
            cause: None,
        }
    }

    fn too_many_requests(limited: RateLimited) -> Self {
        let secs = limited.retry_after_secs();
        HttpError {
            retry_after: Some(secs),
            ..HttpError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "RATE_LIMITED",
                format!("Too many requests: retry in {secs} s"),
            )
        }
    }

    fn bad_request(message: impl Into<String>) -> Self {
        HttpError::new(StatusCode::BAD_REQUEST, "BAD_REQUEST", message)
    }

    fn method_not_allowed(method: &Method, allow: &'static str) -> Self {
        HttpError {
            allow: Some(allow),
            ..HttpError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "METHOD_NOT_ALLOWED",
                format!("Method {method} is not allowed here; use {allow}"),
            )
        }
    }

    fn internal(error: impl std::fmt::Display) -> Self {
        HttpError {
            cause: Some(InternalCause::new(error)),
            ..HttpError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "INTERNAL_SERVER_ERROR",
                "Internal server error",
            )
        }
    }

    fn into_response(self, media: Media) -> Response {
        let body = json!({
            "errors": [{"message": self.message, "extensions": {"code": self.code}}]
        });
        let mut response = json_response(self.status, media, body.to_string());
        if let Some(cause) = self.cause {
            response.extensions_mut().insert(cause);
        }
        if let Some(allow) = self.allow {
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

fn json_response<B: Into<Body>>(status: StatusCode, media: Media, body: B) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, media.content_type()),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.into(),
    )
        .into_response()
}

async fn graphql(
    State(service): State<Arc<Service>>,
    client: Client,
    request: Request,
) -> Response {
    let media = Media::negotiate(request.headers());
    match handle(&service, client, request, media).await {
        Ok(response) => response,
        Err(error) => error.into_response(media),
    }
}

async fn handle(
    service: &Arc<Service>,
    client: Client,
    request: Request,
    media: Media,
) -> Result<Response, HttpError> {
    let (parts, body) = request.into_parts();
    let is_get = parts.method == Method::GET || parts.method == Method::HEAD;
    if !is_get && parts.method != Method::POST {
        return Err(HttpError::method_not_allowed(&parts.method, "GET, POST"));
    }
    if is_get && !service.protected() && wants_html(&parts.headers) && !has_query(&parts.uri) {
        return Ok(super::explorer::page());
    }
    if let Some(caller) = caller(service, client, &parts).await? {
        service
            .rate
            .check(caller)
            .await
            .map_err(HttpError::too_many_requests)?;
    }
    if service.protected() && !is_get {
        csrf::check(&parts.headers).map_err(|_| csrf_failed())?;
    }
    let params = if is_get {
        params_from_uri(&parts.uri, service.limits.max_body_bytes)?
    } else {
        params_from_body(&parts.headers, body, service.limits.max_body_bytes).await?
    };
    let request = graphql_request(params)?;
    execute(service, request, media).await
}

fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.to_ascii_lowercase().contains("text/html"))
}

fn has_query(uri: &Uri) -> bool {
    uri.query().is_some_and(|q| {
        q.split('&')
            .any(|pair| pair == "query" || pair.starts_with("query="))
    })
}

/// Who the request counts as for the rate limits: in production and staging, the
/// session its cookie names (401 when that session is not valid: a trusted caller is
/// told at once rather than silently served on the anonymous budget), or, without a
/// session cookie, the client address (401 under `--graphql-require-session`). In
/// local and e2e, always the client address. `None` when there is no address to count
/// (in-process requests).
async fn caller(
    service: &Arc<Service>,
    client: Client,
    parts: &axum::http::request::Parts,
) -> Result<Option<Caller>, HttpError> {
    if service.protected() {
        let required = service.limits.require_session;
        let session = service.credential.session(parts, required).await;
        if let Some(id) = session.map_err(refused)? {
            return Ok(Some(Caller::Session(id)));
        }
    }
    let trusted = &service.limits.trusted_clients;
    Ok(client.address().map(|ip| Caller::from_address(ip, trusted)))
}

fn unauthenticated(message: String) -> HttpError {
    HttpError::new(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED", message)
}

/// A refused session as GraphQL words it.
fn refused(refusal: Refusal) -> HttpError {
    match refusal {
        Refusal::Missing => unauthenticated(format!(
            "A valid session is required: send the '{SESSION_COOKIE}' cookie"
        )),
        Refusal::Invalid => unauthenticated(format!(
            "The '{SESSION_COOKIE}' cookie names no valid session (unknown, expired or \
             revoked); send none to be served as an anonymous visitor"
        )),
        // Not counted for sessions; worded as any other 429 should a rule count them.
        Refusal::TooMany(decision) => HttpError::too_many_requests(RateLimited(decision)),
        // Logged once by the store; /readyz says so too.
        Refusal::Unavailable => HttpError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "UNAVAILABLE",
            "The credential store is unavailable; try again later",
        ),
        Refusal::NoStore => HttpError::internal("no credential store in a protected environment"),
        Refusal::Failed(e) => HttpError::internal(format!("{:#}", anyhow::Error::from(e))),
    }
}

fn csrf_failed() -> HttpError {
    HttpError::new(
        StatusCode::FORBIDDEN,
        "CSRF_FAILED",
        format!(
            "CSRF check failed: a POST must send the '{CSRF_HEADER}' header equal to \
             the '{CSRF_COOKIE}' cookie (get one from GET /csrf/)"
        ),
    )
}

/// GET parameters as the JSON object a POST would carry.
fn params_from_uri(uri: &Uri, max_bytes: usize) -> Result<Value, HttpError> {
    let raw = uri.query().unwrap_or("");
    if raw.len() > max_bytes {
        return Err(HttpError::new(
            StatusCode::URI_TOO_LONG,
            "URI_TOO_LONG",
            format!("The query string is over {max_bytes} bytes; POST the query instead"),
        ));
    }
    let Query(pairs) = Query::<Vec<(String, String)>>::try_from_uri(uri)
        .map_err(|e| HttpError::bad_request(format!("The query string cannot be read: {e}")))?;
    let mut params = serde_json::Map::new();
    for (key, value) in pairs {
        if params.contains_key(&key) {
            return Err(HttpError::bad_request(format!(
                "The query parameter '{key}' is given more than once"
            )));
        }
        let value = match key.as_str() {
            "variables" | "extensions" if !value.is_empty() => serde_json::from_str(&value)
                .map_err(|e| HttpError::bad_request(format!("'{key}' is not valid JSON: {e}")))?,
            _ => Value::String(value),
        };
        params.insert(key, value);
    }
    if !params.contains_key("query") {
        return Err(HttpError::bad_request(
            "Missing 'query': send ?query=... (GET) or POST a JSON body",
        ));
    }
    Ok(Value::Object(params))
}

async fn params_from_body(
    headers: &HeaderMap,
    body: Body,
    max_bytes: usize,
) -> Result<Value, HttpError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = content_type.split(';').next().unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        let got = if content_type.is_empty() {
            "none".to_string()
        } else {
            format!("'{content_type}'")
        };
        return Err(HttpError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            format!("POST bodies must be Content-Type: application/json (got {got})"),
        ));
    }
    let too_large = || {
        HttpError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            format!("The request body is over the limit of {max_bytes} bytes"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_bytes as u64) {
        return Err(too_large());
    }
    let bytes = match Limited::new(body, max_bytes).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => return Err(too_large()),
        Err(e) => {
            return Err(HttpError::bad_request(format!(
                "The request body cannot be read: {e}"
            )))
        }
    };
    serde_json::from_slice(&bytes)
        .map_err(|e| HttpError::bad_request(format!("The request body is not valid JSON: {e}")))
}

/// A GraphQL request from `{"query", "variables", "operationName"}`.
fn graphql_request(params: Value) -> Result<Params, HttpError> {
    let mut params =
        match params {
            Value::Object(map) => map,
            Value::Array(_) => return Err(HttpError::bad_request(
                "Batched requests (a JSON array) are not supported: send one operation per request",
            )),
            _ => {
                return Err(HttpError::bad_request(
                    "The request body must be a JSON object with a 'query'",
                ))
            }
        };
    let query = match params.remove("query") {
        Some(Value::String(query)) => query,
        None | Some(Value::Null) => return Err(HttpError::bad_request("Missing 'query'")),
        Some(_) => return Err(HttpError::bad_request("'query' must be a string")),
    };
    let variables = match params.remove("variables") {
        None | Some(Value::Null) => Variables::default(),
        Some(vars @ Value::Object(_)) => Variables::from_json(vars),
        Some(_) => return Err(HttpError::bad_request("'variables' must be a JSON object")),
    };
    let name = match params.remove("operationName") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(name),
        Some(_) => return Err(HttpError::bad_request("'operationName' must be a string")),
    };
    Ok(Params {
        query,
        variables,
        operation_name: name,
    })
}

// Long because the stages of one execution (kept answer, budget, timeout, run, keep,
// errors) share the request's values and are read in the order they happen.
pub(super) async fn execute(
    service: &Arc<Service>,
    params: Params,
    media: Media,
) -> Result<Response, HttpError> {
    let answer_key = answers::key(&params, media.content_type(), &crate::config::today());
    let dataset = service.db.dataset();
    if let Some(dataset) = &dataset {
        if let Some(bytes) = service.answers.lookup(dataset, &answer_key) {
            return Ok(json_response(StatusCode::OK, media, bytes));
        }
        // A replaced file's sums are computed beside the requests, not inside the
        // first one that asks for them.
        service.db.warm_totals(dataset);
    }
    let timeout = service.limits.timeout;
    let db = RequestDb::new(
        &service.db,
        service.pool_share,
        service.limits.db_budget,
        Instant::now() + timeout,
    );
    let (loader, waves) = loaders::request_loader(Arc::clone(&db));
    let request_waves = Arc::clone(&waves);
    let execution = service.schemas.run(
        params,
        |request| request.data(db).data(loader).data(request_waves),
        |schema, request| loaders::in_waves(waves, async move { schema.execute(request).await }),
    );
    let outcome = tokio::time::timeout(timeout, execution)
        .await
        .map_err(|_| {
            HttpError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "TIMEOUT",
                format!(
                    "The request took longer than {} ms and was stopped",
                    timeout.as_millis()
                ),
            )
        })?;
    let executed = matches!(outcome, Outcome::Executed(_));
    let (status, body, response) = match outcome {
        Outcome::Rejected(response) => {
            // Never executed: no `data` entry (GraphQL spec, "Response Format").
            let status = match media {
                Media::GraphqlResponseJson => StatusCode::BAD_REQUEST,
                Media::Json => StatusCode::OK,
            };
            let body = serde_json::to_vec(&json!({"errors": response.errors}));
            (status, body, response)
        }
        Outcome::Executed(response) => (StatusCode::OK, plain::response_json(&response), response),
    };
    let body = bytes::Bytes::from(body.map_err(HttpError::internal)?);
    let http_body_len = body.len();
    if let (Some(dataset), true) = (&dataset, executed && response.errors.is_empty()) {
        // Kept only when the file it was made from is still the current one.
        if service.db.dataset().as_ref() == Some(dataset) {
            let content_type = media.content_type();
            service
                .answers
                .remember(dataset, answer_key, content_type, body.clone());
        }
    }
    let mut http = json_response(status, media, body);
    // Fields that failed inside: their causes go to the access log (crate::error).
    let causes: Vec<&InternalCause> = response
        .errors
        .iter()
        .filter_map(|e| e.source::<InternalCause>())
        .collect();
    if let Some(joined) = join_causes(causes) {
        http.extensions_mut().insert(InternalCause::new(joined));
    }
    // Freeing a large response's values (the snapshot page's projects and chapters:
    // thousands of strings and maps) is left to a blocking thread rather than made
    // before the answer is sent.
    if http_body_len >= FREE_APART {
        tokio::task::spawn_blocking(move || drop(response));
    }
    Ok(http)
}

/// The size of answer from which the response values are freed apart.
const FREE_APART: usize = 64 * 1024;

fn valid_token(token: &str) -> bool {
    (32..=128).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `GET /csrf/`: the caller's `csrftoken` cookie again when it holds a valid one, else
/// a new token; concurrent first calls of one caller get one token
/// ([`super::first_visit`]).
async fn csrf(State(service): State<Arc<Service>>, client: Client, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    let (method, headers) = (&parts.method, &parts.headers);
    let media = Media::negotiate(headers);
    if method != Method::GET && method != Method::HEAD {
        return HttpError::method_not_allowed(method, "GET, HEAD").into_response(media);
    }
    let token = match cookie(headers, CSRF_COOKIE).filter(|t| valid_token(t)) {
        Some(token) => token.to_string(),
        None => {
            let agent = headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            match service
                .first_visits
                .token(client.address(), agent, credentials::random_token)
            {
                Ok(token) => token,
                Err(e) => return HttpError::internal(e).into_response(media),
            }
        }
    };
    let secure = if service.protected() { "; Secure" } else { "" };
    let set_cookie =
        format!("{CSRF_COOKIE}={token}; Path=/; Max-Age={CSRF_MAX_AGE_SECS}; SameSite=Lax{secure}");
    let mut response = json_response(
        StatusCode::OK,
        Media::Json,
        json!({ "csrftoken": token }).to_string(),
    );
    if let Ok(value) = HeaderValue::from_str(&set_cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}
