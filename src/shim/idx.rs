//! `POST /idx/`: the search endpoint of the community's web frontend (docs/api.md
//! §8), answered from the dataset's search index ([`crate::idx`]).
//!
//! In order: the method (405 unless POST), the client address's rate (429, the
//! budget of anonymous GraphQL: `--graphql-rate-limit` per second per address after a
//! burst of `--graphql-burst`, in every environment), in production and staging the CSRF pair (403, as a POST to
//! `/graphql/`: the `X-CSRFToken` header equal to the `csrftoken` cookie from
//! `/csrf/`; address, rate and CSRF are the pieces every endpoint shares,
//! [`crate::guard`]), the body (413 over 64 KiB, 400 for anything [`crate::idx::Request`]
//! refuses), then the search (400 for a page past the end, 503 when the dataset has no
//! index). Errors are `{"error": "..."}`, as the original endpoint's.
//!
//! CORS: with `--cors-origin`, the configured origins (any, echoed, for `*`) may call
//! it from a browser with credentials (the frontend sends its cookies): the exact
//! origin is echoed with `Access-Control-Allow-Credentials: true`, and preflights
//! allow `POST` with `Content-Type` and `X-CSRFToken`.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tower_http::cors::{AllowOrigin, CorsLayer};

use super::AppState;
use crate::error::InternalCause;
use crate::guard::csrf::{self, CSRF_COOKIE, CSRF_HEADER};
use crate::guard::{Client, RateCheck, RateLimited};
use crate::idx::{self, SearchError};
use crate::limits::{self, Subject};

/// The largest request body.
const MAX_BODY_BYTES: usize = 64 * 1024;

struct Idx {
    state: AppState,
    rate: Option<RateCheck>,
}

/// The `/idx/` and `/idx` routes, with their CORS layer when origins are configured.
pub fn routes(state: AppState) -> Router {
    let config = state.config();
    let rate = RateCheck::with_burst(
        limits::Kind::Idx,
        config.graphql.rate_limit,
        config.graphql.burst,
        state.redis().cloned(),
    );
    let cors = cors_layer(&config.cors_origins);
    let idx = Arc::new(Idx { state, rate });
    let router = Router::new()
        .route("/idx/", any(handle))
        .route("/idx", any(handle))
        .with_state(idx);
    match cors {
        Some(cors) => router.layer(cors),
        None => router,
    }
}

/// Browser calls with credentials from the configured origins (`*`: any, echoed).
fn cors_layer(origins: &[String]) -> Option<CorsLayer> {
    // `*` cannot go with credentials: the request's origin is echoed instead.
    let allow = super::allowed_origins(origins, AllowOrigin::mirror_request())?;
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_credentials(true)
            .allow_methods([Method::POST, Method::OPTIONS])
            .allow_headers([header::CONTENT_TYPE, HeaderName::from_static(CSRF_HEADER)])
            .expose_headers([header::RETRY_AFTER])
            .max_age(Duration::from_secs(600)),
    )
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    let body = serde_json::json!({ "error": message.into() }).to_string();
    json(status, body)
}

fn json(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

fn internal(cause: impl std::fmt::Display) -> Response {
    let mut response = error(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error");
    response.extensions_mut().insert(InternalCause::new(cause));
    response
}

fn too_many_requests(limited: RateLimited) -> Response {
    let secs = limited.retry_after_secs();
    let mut response = error(
        StatusCode::TOO_MANY_REQUESTS,
        format!("Too many requests: retry in {secs} s"),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    response
}

async fn handle(State(idx): State<Arc<Idx>>, client: Client, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if parts.method != Method::POST {
        let mut response = error(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("Method {} is not allowed", parts.method),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return response;
    }
    if let (Some(rate), Some(address)) = (&idx.rate, client.address()) {
        if let Err(limited) = rate.take(Subject::Addr(address)).await {
            return too_many_requests(limited);
        }
    }
    if idx.state.config().env.is_protected() && csrf::check(&parts.headers).is_err() {
        return error(
            StatusCode::FORBIDDEN,
            format!(
                "CSRF check failed: send the '{CSRF_HEADER}' header equal to the \
                 '{CSRF_COOKIE}' cookie (get one from GET /csrf/)"
            ),
        );
    }
    let bytes = match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("The body is over {MAX_BODY_BYTES} bytes"),
            )
        }
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("Reading the body: {e}")),
    };
    let request = match idx::Request::from_json(&bytes) {
        Ok(request) => request,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    let answer = idx
        .state
        .pool
        .run(move |reader| reader.with(|conn| idx::search(conn, &request)))
        .await;
    match answer {
        Ok(Ok(Ok(answer))) => json(StatusCode::OK, answer.body),
        Ok(Ok(Err(SearchError::BadRequest(message)))) => error(StatusCode::BAD_REQUEST, message),
        Ok(Ok(Err(e @ SearchError::NotBuilt))) => {
            error(StatusCode::SERVICE_UNAVAILABLE, e.to_string())
        }
        Ok(Ok(Err(e))) => internal(format!("{:#}", anyhow::Error::from(e))),
        Ok(Err(e)) | Err(e) => internal(format!("{:#}", anyhow::Error::from(e))),
    }
}
