//! The credential a request carries, checked in the credential store
//! ([`crate::credentials`], production and staging), by the endpoint's rule:
//!
//! - [`CredentialCheck::api_key`] (REST): the `X-API-Key` header, required. The key is
//!   looked up first, so a valid key is never refused here whatever its address sent
//!   before; a request without a valid one is counted against its client address's
//!   failed-authentication budget (`--failed-auth-rate`) and refused as
//!   [`Refusal::Missing`] or [`Refusal::Invalid`] within it,
//!   [`Refusal::TooMany`] past it.
//! - [`CredentialCheck::session`] (GraphQL): the `sessionid` cookie, naming the session
//!   of a trusted caller. Without the cookie the caller is anonymous, or refused as
//!   [`Refusal::Missing`] where a session is required; a cookie naming no valid
//!   session is [`Refusal::Invalid`] (a trusted caller is told at once rather than
//!   silently served on the anonymous budget).
//!
//! A store that does not answer is [`Refusal::Unavailable`] (503; logged once by the
//! store, and `/readyz` says so); any other failure is [`Refusal::Failed`] (500).

use std::net::{IpAddr, Ipv4Addr};

use axum::http::request::Parts;

use super::csrf::cookie;
use super::rate::RateCheck;
use crate::credentials::{CredentialError, Credentials, Kind};
use crate::limits::{Decision, Subject};

/// The header carrying the API key.
pub const API_KEY_HEADER: &str = "x-api-key";
/// The cookie carrying the session token.
pub const SESSION_COOKIE: &str = "sessionid";

/// Why a request's credential is refused, for each endpoint to word in its own body.
#[derive(Debug)]
pub enum Refusal {
    /// No credential where the rule requires one (401).
    Missing,
    /// A credential naming no valid key or session: unknown, expired or revoked (401).
    Invalid,
    /// Too many requests without a valid credential from this client address (429).
    TooMany(Decision),
    /// A protected environment without a credential store (500).
    NoStore,
    /// The credential store does not answer (503).
    Unavailable,
    /// The credential store failed otherwise (500); the cause, for the access log.
    Failed(CredentialError),
}

/// The credential store of an endpoint and, for rules that count them, the budget
/// of requests without a valid credential per client address.
pub struct CredentialCheck {
    store: Option<Credentials>,
    failed: Option<RateCheck>,
}

impl CredentialCheck {
    pub fn new(store: Option<Credentials>, failed: Option<RateCheck>) -> CredentialCheck {
        CredentialCheck { store, failed }
    }

    /// The id of the valid API key the request sends in `X-API-Key`; `address` is
    /// its client address (as [`super::client::Client`] reads it), `None` for an in-process request.
    pub async fn api_key(&self, parts: &Parts, address: Option<IpAddr>) -> Result<i64, Refusal> {
        let raw = parts.headers.get(API_KEY_HEADER).map(|v| v.as_bytes());
        if let Some(id) = self.look_up(Kind::Key, raw).await? {
            return Ok(id);
        }
        if let Some(budget) = &self.failed {
            // In-process requests (no address) share one budget.
            let address = address.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
            if let Err(limited) = budget.take(Subject::Addr(address)).await {
                return Err(Refusal::TooMany(limited.0));
            }
        }
        Err(match raw {
            None | Some([]) => Refusal::Missing,
            Some(_) => Refusal::Invalid,
        })
    }

    /// The id of the valid session the `sessionid` cookie names; `None` without the
    /// cookie, unless `required`.
    pub async fn session(&self, parts: &Parts, required: bool) -> Result<Option<i64>, Refusal> {
        match cookie(&parts.headers, SESSION_COOKIE) {
            None if required => Err(Refusal::Missing),
            None => Ok(None),
            Some("") => Err(Refusal::Invalid),
            Some(token) => match self.look_up(Kind::Session, Some(token.as_bytes())).await? {
                Some(id) => Ok(Some(id)),
                None => Err(Refusal::Invalid),
            },
        }
    }

    /// The active key or session `secret` names, if any.
    async fn look_up(&self, kind: Kind, secret: Option<&[u8]>) -> Result<Option<i64>, Refusal> {
        let store = self.store.as_ref().ok_or(Refusal::NoStore)?;
        store
            .check(kind, secret, chrono::Utc::now())
            .await
            .map_err(|e| {
                if e.store_unavailable() {
                    Refusal::Unavailable
                } else {
                    Refusal::Failed(e)
                }
            })
    }

    /// Forgets the failed-authentication state of addresses whose budget is full again.
    pub fn retain_recent(&self) {
        if let Some(budget) = &self.failed {
            budget.retain_recent();
        }
    }
}
