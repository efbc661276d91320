//! The GraphQL explorer's page: GraphiQL at `/graphql/` in local and e2e (never in
//! production or staging, where introspection is off too). The page
//! (`assets/graphql/graphiql.html`) loads GraphiQL's files, which the shim serves
//! under `/graphql/` ([`crate::shim`]'s `graphiql`), and nothing from another origin:
//! its Content-Security-Policy allows its own origin only.

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// The explorer page.
const PAGE: &str = include_str!("../../assets/graphql/graphiql.html");

/// What the page may load: its own origin only. Monaco sets inline styles and runs
/// its language services in workers.
const CSP: &str = "default-src 'none'; script-src 'self'; worker-src 'self'; \
     style-src 'self' 'unsafe-inline'; font-src 'self'; connect-src 'self'; \
     img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `GET /graphql/` from a browser.
pub(super) fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        PAGE,
    )
        .into_response()
}
