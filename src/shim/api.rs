//! The REST v0 handler: every request under `/api/v0`.
//!
//! Order of work: method (GET/HEAD, else 405) → route the raw path
//! ([`tree::split_path`], [`tree::route`]) → in production and staging, the API key
//! and its rate limit (everything but `openapi.json` and `docs/`; both checked by the
//! pieces every endpoint shares, [`crate::guard`]) → the answer:
//! the tree's file when the canonical request has one, else the same answer made
//! live earlier from the same dataset file ([`super::live`]), else the catalog →
//! ETag, `If-None-Match`, encoding → HEAD drops the body.
//!
//! A tree file is read with one `open` in the generation the live `site` symlink
//! names and then answered from memory ([`super::files`]) until the symlink names
//! another, so a regeneration (an atomic swap of that symlink) is seen by the next
//! request and a response never mixes two generations. Nothing built from a request names a file
//! outside the tree: list and detail file names are canonical percent-encoded names
//! (no `/`, no leading `.`, at most 255 bytes), and `openapi.json` and the docs are
//! served from memory ([`super::Documents`]), looked up by name.

use std::net::IpAddr;
use std::path::PathBuf;

use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::catalog::{self, AnswerError, DetailSpec, ListQuery, ListSpec};
use crate::guard::client::Client;
use crate::guard::{rate, Refusal};
use crate::limits::{Decision, Subject};
use crate::pool::Reader;
use crate::store::FileId;
use crate::tree::{self, Target};

use super::live;
use super::metrics::RouteClass;
use super::respond::{self, ApiError, Negotiation, Outcome, JSON};
use super::{Answered, AppState, Shared};

/// Handles one request under `/api/v0` as a routed endpoint (behind `--cors-origin`'s
/// layer): the key id and route class go in the response's extensions.
pub async fn handle(State(app): State<AppState>, req: Request) -> Response {
    // Only the head matters (GET and HEAD bodies are ignored); `Parts` can be held
    // across awaits, a body cannot.
    let (req, _body) = req.into_parts();
    let client = Client::of(&req).address();
    let (mut response, answered) = answer(&app, req, client).await;
    answered.mark(&mut response);
    response
}

/// Answers one request under `/api/v0` from `client` (its address, for the budget
/// of requests without a valid key), with what the access log is to say of it.
pub async fn answer(app: &AppState, req: Parts, client: Option<IpAddr>) -> (Response, Answered) {
    let head = req.method == Method::HEAD;
    let mut ctx = Context {
        client,
        ..Context::default()
    };
    let mut response = respond(app, &req, &mut ctx)
        .await
        .unwrap_or_else(IntoResponse::into_response);
    ctx.mark(&mut response);
    if head {
        response = respond::strip_body(response);
    }
    let answered = Answered {
        key_id: ctx.key_id,
        class: ctx.class,
    };
    (response, answered)
}

/// Notes the part of the shim that answered, for the metrics' route class (tree
/// files, whether from memory or read from the tree just now).
fn classed(ctx: &mut Context, response: Response, class: RouteClass) -> Response {
    ctx.class = Some(class);
    response
}

/// What the access log and the final headers need to know about a request.
#[derive(Default)]
struct Context {
    /// The client address, for the failed-authentication budget.
    client: Option<IpAddr>,
    key_id: Option<i64>,
    class: Option<RouteClass>,
    protected: bool,
    /// The key's rate-limit check, for the `RateLimit-*` headers.
    rate: Option<Decision>,
}

impl Context {
    /// Puts what the admission decided on the answer, whichever it is (errors
    /// included): the key's `RateLimit-*` headers, and `Cache-Control: private`
    /// behind a key.
    fn mark(&self, response: &mut Response) {
        if let Some(decision) = &self.rate {
            rate::write_headers(response.headers_mut(), decision);
        }
        if self.protected {
            // Answers behind a key (errors included) must not be kept by a shared
            // cache and replayed to others.
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("private"));
        }
    }
}

async fn respond(app: &AppState, req: &Parts, ctx: &mut Context) -> Result<Response, ApiError> {
    if !matches!(req.method, Method::GET | Method::HEAD) {
        return Err(ApiError::MethodNotAllowed);
    }
    let neg = Negotiation::from_headers(&req.headers);
    // A list or detail request answered from the tree before, as sent: its file's
    // response, without routing it again (behind the key like every list and detail).
    let raw_target = req.uri.path_and_query().map(|t| t.as_str());
    if let (Some(site), Some(raw)) = (&app.config.site, raw_target) {
        if let Some(outcome) = app.files.lookup_target(site, raw, &neg) {
            ctx.protected = app.config.env.is_protected();
            admit(app, req, ctx).await?;
            return Ok(classed(
                ctx,
                respond::outcome_response(outcome),
                RouteClass::TreeFile,
            ));
        }
    }
    let segments = tree::split_path(req.uri.path());
    let target = segments
        .as_deref()
        .map(tree::route)
        .unwrap_or(Target::Unknown);
    let public = matches!(target, Target::OpenApi | Target::Docs(_));
    ctx.protected = app.config.env.is_protected() && !public;
    admit(app, req, ctx).await?;
    let outcome = match target {
        Target::Unknown => return Err(ApiError::UnknownPath),
        Target::Root => {
            let body = catalog::root(&docs_url(app, req));
            neg.identity(body, JSON).map_err(ApiError::Internal)?
        }
        Target::OpenApi => {
            let shared = app.0.clone();
            app.pool
                .run(move |_| document(&shared, None, &neg))
                .await
                .map_err(internal)??
        }
        Target::Docs(_) => {
            let segments = segments.unwrap_or_default();
            if segments.len() == 1 {
                return Ok(redirect_to_docs());
            }
            let name = docs_name(&segments[1..]).ok_or(ApiError::UnknownPath)?;
            let shared = app.0.clone();
            app.pool
                .run(move |_| document(&shared, Some(&name), &neg))
                .await
                .map_err(internal)??
        }
        Target::List { spec, snapshot } => {
            let query = list_query(spec, req.uri.query())?;
            let ask = ListAsk {
                spec,
                snapshot,
                query,
                neg,
            };
            return answer_list(app, ctx, raw_target, ask).await;
        }
        Target::Detail { spec, ids } => {
            return answer_detail(app, ctx, raw_target, spec, ids, neg).await;
        }
    };
    Ok(respond::outcome_response(outcome))
}

/// A list request, routed and validated: what answering it needs.
struct ListAsk {
    spec: &'static ListSpec,
    snapshot: Option<String>,
    query: ListQuery,
    neg: Negotiation,
}

/// A list from the tree's file in memory, a live answer kept earlier, or the
/// catalog (through the read pool); `raw` is the request target as sent.
async fn answer_list(
    app: &AppState,
    ctx: &mut Context,
    raw: Option<&str>,
    ask: ListAsk,
) -> Result<Response, ApiError> {
    let rel = tree::list_request_file(ask.spec, ask.snapshot.as_deref(), &ask.query);
    if let Some(outcome) = cached(app, raw, rel, &ask.neg) {
        return Ok(classed(
            ctx,
            respond::outcome_response(outcome),
            RouteClass::TreeFile,
        ));
    }
    let today = app.today();
    let key = if app.live.keeps_nothing() {
        String::new()
    } else {
        live::list_key(ask.spec, ask.snapshot.as_deref(), &ask.query, &today)
    };
    if let Some(outcome) = app.live.lookup(&app.config.db, &key, &ask.neg) {
        return Ok(respond::outcome_response(outcome));
    }
    let shared = app.0.clone();
    let (outcome, class) = app
        .pool
        .run(move |reader| list(&shared, reader, &ask, &today, key))
        .await
        .map_err(internal)??;
    Ok(classed(ctx, respond::outcome_response(outcome), class))
}

/// A detail from the tree's file in memory, a live answer kept earlier, or the
/// catalog (through the read pool); `raw` is the request target as sent.
async fn answer_detail(
    app: &AppState,
    ctx: &mut Context,
    raw: Option<&str>,
    spec: &'static DetailSpec,
    ids: Vec<String>,
    neg: Negotiation,
) -> Result<Response, ApiError> {
    if let Some(outcome) = cached(app, raw, tree::detail_file(spec.path, &ids), &neg) {
        return Ok(classed(
            ctx,
            respond::outcome_response(outcome),
            RouteClass::TreeFile,
        ));
    }
    let key = live::detail_key(spec, &ids);
    if let Some(outcome) = app.live.lookup(&app.config.db, &key, &neg) {
        return Ok(respond::outcome_response(outcome));
    }
    let shared = app.0.clone();
    let (outcome, class) = app
        .pool
        .run(move |reader| detail(&shared, reader, spec, &ids, &neg, key))
        .await
        .map_err(internal)??;
    Ok(classed(ctx, respond::outcome_response(outcome), class))
}

/// `<public url or http://Host>/api/v0/docs/` (relative when the Host is unusable).
fn docs_url(app: &AppState, req: &Parts) -> String {
    let base = match &app.config.public_url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => {
            let host = req
                .headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(str::to_string)
                .or_else(|| req.uri.authority().map(|a| a.to_string()))
                .unwrap_or_default();
            let plausible = !host.is_empty()
                && host.len() <= 255
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b));
            if plausible {
                format!("http://{host}")
            } else {
                String::new()
            }
        }
    };
    format!("{base}{}/docs/", tree::API_PREFIX)
}

fn redirect_to_docs() -> Response {
    let mut r = Response::new(axum::body::Body::empty());
    *r.status_mut() = StatusCode::PERMANENT_REDIRECT;
    r.headers_mut()
        .insert(header::LOCATION, HeaderValue::from_static("/api/v0/docs/"));
    r
}

/// Query string → validated list query ([`tree::list_query`]); errors are a 400.
pub fn list_query(spec: &ListSpec, raw: Option<&str>) -> Result<ListQuery, ApiError> {
    tree::list_query(spec, raw).map_err(ApiError::Invalid)
}

fn answer_error(e: AnswerError) -> ApiError {
    match e {
        AnswerError::PageNotFound { .. } => ApiError::PageNotFound(e.to_string()),
        AnswerError::NotFound(name) => ApiError::RecordNotFound(name),
        AnswerError::Db(e) => ApiError::Internal(e.into()),
    }
}

fn internal(e: impl std::error::Error + Send + Sync + 'static) -> ApiError {
    ApiError::Internal(e.into())
}

/// A list the tree has no file in memory for: the tree's file read now, else the
/// catalog's answer (kept under `key` for the next request).
fn list(
    shared: &Shared,
    reader: &Reader<'_>,
    ask: &ListAsk,
    today: &str,
    key: String,
) -> Result<(Outcome, RouteClass), ApiError> {
    let (spec, snapshot, query, neg) = (ask.spec, &ask.snapshot, &ask.query, &ask.neg);
    if let (Some(site), Some(rel)) = (
        &shared.config.site,
        tree::list_request_file(spec, snapshot.as_deref(), query),
    ) {
        if let Some(outcome) = shared.files.read(site, &rel, JSON, neg)? {
            return Ok((outcome, RouteClass::TreeFile));
        }
    }
    let (body, dataset) = reader
        .with_file(|conn, file| {
            catalog::list_page_of(conn, Some(file), spec, snapshot.as_deref(), query, today)
        })
        .map_err(internal)?;
    let outcome = live_answer(shared, body, &dataset, key, neg)?;
    Ok((outcome, RouteClass::LiveRest))
}

/// A live answer's response, kept for the next request of the same key.
fn live_answer(
    shared: &Shared,
    body: Result<Vec<u8>, AnswerError>,
    dataset: &FileId,
    key: String,
    neg: &Negotiation,
) -> Result<Outcome, ApiError> {
    let outcome = neg
        .identity(body.map_err(answer_error)?, JSON)
        .map_err(ApiError::Internal)?;
    shared.live.remember(dataset, key, neg, &outcome);
    Ok(outcome)
}

fn detail(
    shared: &Shared,
    reader: &Reader<'_>,
    spec: &'static DetailSpec,
    ids: &[String],
    neg: &Negotiation,
    key: String,
) -> Result<(Outcome, RouteClass), ApiError> {
    if let Some(site) = &shared.config.site {
        if let Some(rel) = tree::detail_file(spec.path, ids) {
            if let Some(outcome) = shared.files.read(site, &rel, JSON, neg)? {
                return Ok((outcome, RouteClass::TreeFile));
            }
        }
    }
    let (body, dataset) = reader
        .with_identity(|conn| catalog::detail(conn, spec, ids))
        .map_err(internal)?;
    let outcome = live_answer(shared, body, &dataset, key, neg)?;
    Ok((outcome, RouteClass::LiveRest))
}

/// The name of a docs file from the segments after `docs` (`index.html` for the
/// folder itself), or `None` when a segment is empty, hidden or over-long.
pub fn docs_name(segments: &[String]) -> Option<String> {
    let mut segs: Vec<&str> = segments.iter().map(String::as_str).collect();
    if segs.last() == Some(&"") {
        segs.pop();
    }
    if segs.is_empty() {
        segs.push("index.html");
    }
    let safe = |s: &&str| {
        !s.is_empty()
            && s.len() <= tree::MAX_NAME
            && !s.starts_with('.')
            && !s.contains(['/', '\\', '\0'])
    };
    segs.iter().all(safe).then(|| segs.join("/"))
}

pub(super) fn content_type_of(name: &str) -> &'static str {
    match name.rsplit_once('.').map_or("", |(_, ext)| ext) {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => JSON,
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// `openapi.json` or a docs file, from the documents rendered at start-up (each
/// coding compressed once: [`super::respond::KeptBody`]).
fn document(shared: &Shared, name: Option<&str>, neg: &Negotiation) -> Result<Outcome, ApiError> {
    let body = match name {
        None => &shared.documents.openapi,
        Some(name) => shared
            .documents
            .docs
            .get(name)
            .ok_or(ApiError::UnknownPath)?,
    };
    body.answer(neg).map_err(ApiError::Internal)
}

/// A tree file's response already in memory ([`super::files`]), answered without a
/// blocking task; the request target `raw` (path and query as sent) is remembered
/// to name that file.
fn cached(
    app: &AppState,
    raw: Option<&str>,
    rel: Option<PathBuf>,
    neg: &Negotiation,
) -> Option<Outcome> {
    let site = app.config.site.as_ref()?;
    let rel = rel?;
    let outcome = app.files.lookup(site, &rel, neg)?;
    if let Some(raw) = raw {
        app.files.remember_route(raw, &rel);
    }
    Some(outcome)
}

/// In production and staging (`ctx.protected`), the API key and its rate limit;
/// nothing at all elsewhere (the tree-file path of local mode stays one branch).
async fn admit(app: &AppState, req: &Parts, ctx: &mut Context) -> Result<(), ApiError> {
    if !ctx.protected {
        return Ok(());
    }
    let id = app
        .credential
        .api_key(req, ctx.client)
        .await
        .map_err(refused)?;
    ctx.key_id = Some(id);
    if let Some(rate) = &app.key_rate {
        let decision = rate.check(Subject::Id(id)).await;
        ctx.rate = Some(decision);
        if !decision.allowed {
            return Err(ApiError::TooManyRequests(decision.retry_after));
        }
    }
    Ok(())
}

/// A refused API key as REST words it: 401 whether the key is missing or wrong (the
/// body names the header), 429 once the address spent its failed-authentication
/// budget.
fn refused(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::Missing | Refusal::Invalid => ApiError::Unauthorized,
        Refusal::TooMany(decision) => ApiError::TooManyRequests(decision.retry_after),
        // Logged once by the store; /readyz says so too.
        Refusal::Unavailable => ApiError::Unavailable("The credential store"),
        Refusal::NoStore => ApiError::Internal(anyhow::anyhow!(
            "protected environment without a credential store"
        )),
        Refusal::Failed(e) => internal(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn docs_names_stay_in_the_docs_folder() {
        assert_eq!(docs_name(&s(&[""])).unwrap(), "index.html");
        assert_eq!(docs_name(&s(&["docs.css"])).unwrap(), "docs.css");
        assert_eq!(
            docs_name(&s(&["assets", "app.js"])).unwrap(),
            "assets/app.js"
        );
        for bad in [
            &["..", "manifest.json"][..],
            &["a/../../b"],
            &[".hidden"],
            &["a", "", "b"],
            &["a\0b"],
            &["a\\b"],
        ] {
            assert!(docs_name(&s(bad)).is_none(), "{bad:?}");
        }
        assert!(docs_name(&s(&[&"x".repeat(300)])).is_none());
    }

    #[test]
    fn query_strings_are_form_decoded() {
        let spec = catalog::list_spec("projects").unwrap();
        let q = list_query(spec, Some("q=name:%22juice+shop%22&page=1&unknown=%FF")).unwrap();
        assert_eq!(q.canonical(spec), "q=name%3A%22juice%20shop%22");
        match list_query(spec, Some("level=%FF")) {
            Err(ApiError::Invalid(errors)) => {
                assert_eq!(errors[0].param, "level");
                assert!(errors[0].msg.contains("%FF"));
            }
            other => panic!("{other:?}"),
        }
    }
}
