//! The request concerns every endpoint shares (REST `/api/v0`, GraphQL, `/idx/`, and
//! any later one), each written once (docs/architecture.md §6, "Request concerns"):
//!
//! - [`client`]: the client address ([`Client`], an axum extractor): the one a
//!   trusted proxy forwarded, else the peer; none for in-process requests;
//! - [`credential`]: the API key or session a request carries, checked in the
//!   credential store by the endpoint's rule ([`CredentialCheck`]), refused with a
//!   [`Refusal`] that says what is wrong;
//! - [`rate`]: one budget of requests per second checked once per request
//!   ([`RateCheck`]): one [`Decision`](crate::limits::Decision), and the
//!   `RateLimit-*` headers it makes;
//! - [`csrf`]: the double-submit pair of a request that changes state, and the cookie
//!   reader the session check shares.
//!
//! Each concern answers a typed value or rejection, never a response: every endpoint
//! words it in its own error body (REST's `{"detail"}`, GraphQL's `errors`, `/idx/`'s
//! `{"error"}`) and keeps its own order of checks.

pub mod client;
pub mod credential;
pub mod csrf;
pub mod rate;

pub use client::Client;
pub use credential::{CredentialCheck, Refusal};
pub use rate::{RateCheck, RateLimited};

/// A header map of `(name, value)` pairs, for the tests of the concerns and of the
/// shim's proxy rules.
#[cfg(test)]
pub(crate) fn test_headers(pairs: &[(&'static str, &str)]) -> axum::http::HeaderMap {
    let mut h = axum::http::HeaderMap::new();
    for (name, value) in pairs {
        h.append(*name, axum::http::HeaderValue::from_str(value).unwrap());
    }
    h
}
