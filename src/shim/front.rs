//! The shim's front service ([`App`]): what every request goes through, outermost
//! first: its access log line ([`super::access_log`]), `X-Content-Type-Options:
//! nosniff`, JSON for any non-JSON error ([`respond::json_error`]); then the answer.
//!
//! Requests under `/api/v0` are handed to the REST handler ([`api::handle`]) directly;
//! every other path goes through the router of the other endpoints (GraphQL, `/idx/`,
//! health, the explorer). Why not one axum `Router` with these as layers: a router
//! wraps every route's service in every layer, and each request then clones and boxes
//! the layered services of its route (allocations and virtual calls per layer), which
//! cost a tree file answered from memory more than its answer. Here the three concerns
//! are plain calls made once, in the same order, and the REST API, the path
//! integrations use most, skips the routing. What axum's router does to the final
//! response is done here too ([`finish`]): `Content-Length` from an exact body size
//! when none is set, and no body for `HEAD`.
//!
//! With `--cors-origin`, `/api/v0` goes through the router as well, where the CORS
//! layer wraps it.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, HttpBody};
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, Method};
use axum::response::Response;
use axum::Router;
use tower::ServiceExt;

use super::{access_log, api, respond, Answered, AppState};
use crate::guard::client::{canonical, Client, ClientAddr};

/// Every endpoint of the shim as one service (a [`tower::Service`] of requests).
#[derive(Clone)]
pub struct App {
    state: AppState,
    /// The endpoints other than `/api/v0` (and `/api/v0` too when it has CORS).
    routes: Router,
    /// `/api/v0` is answered by [`api::handle`] without routing.
    direct_api: bool,
}

impl App {
    pub(super) fn new(state: AppState, routes: Router, direct_api: bool) -> App {
        App {
            state,
            routes,
            direct_api,
        }
    }

    /// The response to `req` from the TCP peer `peer` (what [`tower::Service::call`]
    /// answers, without boxing its future: the connection's service calls this).
    ///
    /// The REST API is given the request's head and its client address as they are;
    /// only a routed request has its body boxed into an axum [`Body`] and the peer
    /// and client address put in its extensions, where axum's extractors read them
    /// (each insert there is an allocation, which a tree file's answer does without).
    pub(super) async fn answer<B>(
        &self,
        req: axum::http::Request<B>,
        peer: Option<SocketAddr>,
    ) -> Response
    where
        B: HttpBody<Data = axum::body::Bytes> + Send + 'static,
        B::Error: Into<axum::BoxError>,
    {
        let head = req.method() == Method::HEAD;
        let state = &self.state;
        let ip = peer.map(|p| p.ip());
        let response = access_log(state, req, ip, |req, client| async move {
            let (response, answered) = if self.direct_api && is_api(req.uri().path()) {
                let (parts, _body) = req.into_parts();
                // A request made in-process (tests) may carry its address itself.
                let client = match client {
                    Some(ip) => Some(canonical(ip)),
                    None => Client::of(&parts).address(),
                };
                api::answer(state, parts, client).await
            } else {
                let mut req = req.map(Body::new);
                if let Some(peer) = peer {
                    req.extensions_mut().insert(ConnectInfo(peer));
                }
                if let Some(ip) = client {
                    req.extensions_mut().insert(ClientAddr(ip));
                }
                let response = match self.routes.clone().oneshot(req).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                let answered = Answered::of(&response);
                (response, answered)
            };
            let mut response = respond::json_error(response);
            response
                .headers_mut()
                .insert(respond::NOSNIFF.0.clone(), respond::NOSNIFF.1.clone());
            (response, answered)
        })
        .await;
        finish(response, head)
    }
}

/// Whether a path is the REST API's: `/api/v0` and everything below it.
fn is_api(path: &str) -> bool {
    path.strip_prefix("/api/v0")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// What axum's router does to the response of a route: a `Content-Length` from an
/// exact body size when the response has none, then no body for `HEAD`.
fn finish(mut response: Response, head: bool) -> Response {
    if !response.headers().contains_key(header::CONTENT_LENGTH) {
        if let Some(size) = response.body().size_hint().exact() {
            response
                .headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(size));
        }
    }
    if head {
        *response.body_mut() = Body::empty();
    }
    response
}

impl<B> tower::Service<axum::http::Request<B>> for App
where
    B: HttpBody<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: axum::http::Request<B>) -> Self::Future {
        let app = self.clone();
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0);
        Box::pin(async move { Ok(app.answer(req, peer).await) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rest_api_is_its_prefix_and_what_is_below_it() {
        assert!(is_api("/api/v0"));
        assert!(is_api("/api/v0/"));
        assert!(is_api("/api/v0/issues/"));
        assert!(!is_api("/api/v0x"));
        assert!(!is_api("/api/v"));
        assert!(!is_api("/api/v1/"));
        assert!(!is_api("/graphql/"));
    }

    #[test]
    fn finish_sets_the_length_and_drops_a_head_body() {
        let response = finish(Response::new(Body::from("four")), true);
        assert_eq!(response.headers()[header::CONTENT_LENGTH], "4");
        assert_eq!(response.body().size_hint().exact(), Some(0));
        let mut kept = Response::new(Body::from("four"));
        kept.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from_static("4"));
        let response = finish(kept, false);
        assert_eq!(response.body().size_hint().exact(), Some(4));
    }
}
