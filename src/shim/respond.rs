//! Responses of the REST API: the JSON error shapes of docs/api.md §2, strong ETags
//! and `If-None-Match`, `Accept-Encoding` negotiation and compression, HEAD.
//!
//! Error policy: every error a client can see is an [`ApiError`] with a fixed JSON
//! shape; an unexpected failure is logged with its cause and answered with a bare
//! 500. Nothing internal (paths, SQL, messages of libraries) reaches a response.

use std::io::Write as _;
use std::time::Duration;

use axum::body::Body;
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::catalog::FieldError;
use crate::error::InternalCause;
use crate::rest_errors;

use crate::limits::retry_after_secs;

pub const JSON: &str = "application/json";
/// Bodies shorter than this are sent as they are: compression would not pay.
pub const COMPRESS_MIN: usize = 256;
pub const UNAUTHORIZED: &str = rest_errors::UNAUTHORIZED;

/// Every way a REST request can fail.
#[derive(Debug)]
pub enum ApiError {
    /// 404 `{"detail": "Not Found"}`: no such path.
    UnknownPath,
    /// 404 `{"message": "<Name> not found"}`: no such record (or snapshot).
    RecordNotFound(&'static str),
    /// 404 `{"detail": "Page N not found. Valid pages are 1 to M."}`.
    PageNotFound(String),
    /// 400 with one entry per bad parameter.
    Invalid(Vec<FieldError>),
    /// 401.
    Unauthorized,
    /// 429 with `Retry-After`.
    TooManyRequests(Duration),
    /// 405 with `Allow`.
    MethodNotAllowed,
    /// 503 with `Retry-After`: what the request needs is missing for now (the
    /// credential store); the cause is logged where it is noticed.
    Unavailable(&'static str),
    /// 500; the cause is logged, never sent.
    Internal(anyhow::Error),
}

/// `Retry-After` of a 503 [`ApiError::Unavailable`], in seconds.
pub const UNAVAILABLE_RETRY_SECS: u64 = 5;

/// `{"detail": text}` as bytes.
pub fn detail_body(text: &str) -> Vec<u8> {
    // A string field always serialises; the fallback spells the same shape by hand.
    serde_json::to_vec(&rest_errors::detail(text))
        .unwrap_or_else(|_| br#"{"detail": "Internal server error"}"#.to_vec())
}

/// A 500 `{"detail": "Internal server error"}` whose cause the access log writes
/// (see [`crate::error`]).
pub fn internal_response(cause: InternalCause) -> Response {
    let mut r = json_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        detail_body("Internal server error"),
    );
    r.extensions_mut().insert(cause);
    r
}

/// `status` with `body` serialised; a body that cannot be serialised is a 500.
fn serialized<T: serde::Serialize>(status: StatusCode, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => json_response(status, bytes),
        Err(e) => internal_response(InternalCause::new(format!(
            "serialising an error body: {e}"
        ))),
    }
}

/// A JSON response with an explicit `Content-Length`.
pub fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(body.clone()));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    r
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::UnknownPath => {
                json_response(StatusCode::NOT_FOUND, detail_body(rest_errors::NOT_FOUND))
            }
            ApiError::RecordNotFound(name) => {
                serialized(StatusCode::NOT_FOUND, &rest_errors::record_not_found(name))
            }
            ApiError::PageNotFound(text) => {
                json_response(StatusCode::NOT_FOUND, detail_body(&text))
            }
            ApiError::Invalid(errors) => {
                serialized(StatusCode::BAD_REQUEST, &rest_errors::invalid(errors))
            }
            ApiError::Unauthorized => {
                json_response(StatusCode::UNAUTHORIZED, detail_body(UNAUTHORIZED))
            }
            ApiError::TooManyRequests(wait) => {
                let mut r = json_response(
                    StatusCode::TOO_MANY_REQUESTS,
                    detail_body(rest_errors::TOO_MANY_REQUESTS),
                );
                r.headers_mut().insert(
                    header::RETRY_AFTER,
                    HeaderValue::from(retry_after_secs(wait)),
                );
                r
            }
            ApiError::MethodNotAllowed => {
                let mut r = json_response(
                    StatusCode::METHOD_NOT_ALLOWED,
                    detail_body(rest_errors::METHOD_NOT_ALLOWED),
                );
                r.headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
                r
            }
            ApiError::Unavailable(what) => {
                let mut r = json_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    detail_body(&format!("{what} is unavailable; try again later")),
                );
                r.headers_mut().insert(
                    header::RETRY_AFTER,
                    HeaderValue::from(UNAVAILABLE_RETRY_SECS),
                );
                r
            }
            ApiError::Internal(e) => internal_response(InternalCause::new(e)),
        }
    }
}

/// A content coding the shim can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Identity,
    Gzip,
    Br,
}

impl Encoding {
    pub fn token(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Br => Some("br"),
        }
    }

    /// Suffix of the precompressed sibling (`x.json` → `x.json.gz`).
    pub fn sibling_suffix(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some(".gz"),
            Encoding::Br => Some(".br"),
        }
    }

    fn etag_suffix(self) -> &'static str {
        match self {
            Encoding::Identity => "",
            Encoding::Gzip => "-gz",
            Encoding::Br => "-br",
        }
    }
}

/// The compressed codings a request accepts, best first (brotli wins a tie). Honours
/// `q` values, `q=0` and `*`.
pub fn accepted_encodings(headers: &HeaderMap) -> Vec<Encoding> {
    let mut br: Option<f32> = None;
    let mut gzip: Option<f32> = None;
    let mut star: Option<f32> = None;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(text) = value.to_str() else { continue };
        for item in text.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim();
            let mut q = 1.0f32;
            for p in parts {
                let p = p.trim();
                if let Some(v) = p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")) {
                    q = v.trim().parse().unwrap_or(0.0);
                }
            }
            // Codings are case-insensitive (compared without a lower-cased copy).
            if coding.eq_ignore_ascii_case("br") {
                br = Some(q);
            } else if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
                gzip = Some(q);
            } else if coding == "*" {
                star = Some(q);
            }
        }
    }
    let br = br.or(star).unwrap_or(0.0);
    let gzip = gzip.or(star).unwrap_or(0.0);
    let mut out = Vec::new();
    if br > 0.0 && br >= gzip {
        out.push(Encoding::Br);
        if gzip > 0.0 {
            out.push(Encoding::Gzip);
        }
    } else if gzip > 0.0 {
        out.push(Encoding::Gzip);
        if br > 0.0 {
            out.push(Encoding::Br);
        }
    }
    out
}

/// A strong validator of a representation: SHA-256 of `bytes` (128 bits shown),
/// with the coding as a suffix so that each encoding has its own tag. For a body
/// compressed on the fly, `bytes` is the identity body (compression is
/// deterministic); for a precompressed file, the bytes sent.
pub fn etag(bytes: &[u8], encoding: Encoding) -> Etag {
    let digest = Sha256::digest(bytes);
    Etag::new(format!(
        "\"{}{}\"",
        hex::encode(&digest[..16]),
        encoding.etag_suffix()
    ))
}

/// A strong ETag ([`etag`]) and its header value, made once with the answer: an
/// answer kept in memory is sent again without its tag copied or checked again
/// (cloning shares the value's bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Etag(HeaderValue);

impl Etag {
    /// The tag `text`: quoted hex digits and a coding's suffix, a valid header value.
    fn new(text: String) -> Etag {
        match HeaderValue::from_maybe_shared(Bytes::from(text)) {
            Ok(value) => Etag(value),
            // Not reached: hex digits, quotes and `-` are visible ASCII.
            Err(_) => Etag(HeaderValue::from_static("\"\"")),
        }
    }

    /// No tag (an answer that is never sent with one: GraphQL's kept answers).
    pub fn none() -> Etag {
        Etag(HeaderValue::from_static(""))
    }

    /// The `ETag` header value.
    pub fn header(&self) -> HeaderValue {
        self.0.clone()
    }
}

impl std::ops::Deref for Etag {
    type Target = str;

    fn deref(&self) -> &str {
        // Visible ASCII (see `new`).
        std::str::from_utf8(self.0.as_bytes()).unwrap_or_default()
    }
}

impl std::fmt::Display for Etag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

/// Whether an `If-None-Match` value matches `etag` (weak comparison, `*` matches).
pub fn if_none_match(header: &str, etag: &str) -> bool {
    header.split(',').map(str::trim).any(|candidate| {
        candidate == "*" || candidate.strip_prefix("W/").unwrap_or(candidate) == etag
    })
}

pub fn compress(bytes: &[u8], encoding: Encoding) -> anyhow::Result<Vec<u8>> {
    match encoding {
        Encoding::Identity => Ok(bytes.to_vec()),
        Encoding::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(
                Vec::with_capacity(bytes.len() / 4),
                flate2::Compression::new(6),
            );
            enc.write_all(bytes)?;
            Ok(enc.finish()?)
        }
        Encoding::Br => {
            let mut out = Vec::with_capacity(bytes.len() / 4);
            {
                let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
                w.write_all(bytes)?;
            }
            Ok(out)
        }
    }
}

/// A 200 body ready to send, or the 304 that replaces it.
#[derive(Debug)]
pub enum Outcome {
    Full {
        bytes: Bytes,
        content_type: &'static str,
        encoding: Encoding,
        etag: Etag,
    },
    NotModified {
        etag: Etag,
    },
}

/// What the request said about representations.
#[derive(Debug, Clone, Default)]
pub struct Negotiation {
    pub accept: Vec<Encoding>,
    pub if_none_match: Option<String>,
}

impl Negotiation {
    pub fn from_headers(headers: &HeaderMap) -> Negotiation {
        let inm: Vec<&str> = headers
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        Negotiation {
            accept: accepted_encodings(headers),
            if_none_match: (!inm.is_empty()).then(|| inm.join(",")),
        }
    }

    fn not_modified(&self, etag: &str) -> bool {
        self.if_none_match
            .as_deref()
            .is_some_and(|h| if_none_match(h, etag))
    }

    /// A body already in the coding `encoding` (a precompressed file).
    pub fn encoded(
        &self,
        bytes: Vec<u8>,
        content_type: &'static str,
        encoding: Encoding,
    ) -> Outcome {
        let etag = etag(&bytes, encoding);
        if self.not_modified(&etag) {
            return Outcome::NotModified { etag };
        }
        Outcome::Full {
            bytes: bytes.into(),
            content_type,
            encoding,
            etag,
        }
    }

    /// A body whose coding and ETag are known already (a cached response).
    pub fn known(
        &self,
        bytes: Bytes,
        content_type: &'static str,
        encoding: Encoding,
        etag: Etag,
    ) -> Outcome {
        if self.not_modified(&etag) {
            return Outcome::NotModified { etag };
        }
        Outcome::Full {
            bytes,
            content_type,
            encoding,
            etag,
        }
    }

    /// The coding an identity body of `len` bytes is sent in: the best the client
    /// accepts, unless the body is too short for compression to pay.
    fn coding_for(&self, len: usize) -> Encoding {
        match self.accept.first() {
            Some(e) if len >= COMPRESS_MIN => *e,
            _ => Encoding::Identity,
        }
    }

    /// An identity body, compressed on the fly when the client accepts it.
    pub fn identity(&self, bytes: Vec<u8>, content_type: &'static str) -> anyhow::Result<Outcome> {
        let encoding = self.coding_for(bytes.len());
        let etag = etag(&bytes, encoding);
        if self.not_modified(&etag) {
            return Ok(Outcome::NotModified { etag });
        }
        let bytes = if encoding == Encoding::Identity {
            bytes
        } else {
            compress(&bytes, encoding)?
        };
        Ok(Outcome::Full {
            bytes: bytes.into(),
            content_type,
            encoding,
            etag,
        })
    }
}

/// A body served from memory for the life of the process (`openapi.json`, the docs
/// page): each coding compressed and tagged once, when a request first asks for it,
/// so that a request costs a lookup rather than a copy, a hash and a compression.
#[derive(Debug)]
pub struct KeptBody {
    identity: Bytes,
    content_type: &'static str,
    /// Per coding (identity, gzip, brotli), the bytes sent and their tag.
    codings: [std::sync::OnceLock<(Bytes, Etag)>; 3],
}

impl KeptBody {
    pub fn new(bytes: Vec<u8>, content_type: &'static str) -> KeptBody {
        KeptBody {
            identity: Bytes::from(bytes),
            content_type,
            codings: Default::default(),
        }
    }

    /// The answer to a request, as [`Negotiation::identity`] makes it from the same
    /// bytes.
    pub fn answer(&self, neg: &Negotiation) -> anyhow::Result<Outcome> {
        let encoding = neg.coding_for(self.identity.len());
        let slot = &self.codings[encoding as usize];
        let (bytes, etag) = match slot.get() {
            Some(made) => made.clone(),
            None => {
                let bytes = match encoding {
                    Encoding::Identity => self.identity.clone(),
                    _ => Bytes::from(compress(&self.identity, encoding)?),
                };
                let made = (bytes, etag(&self.identity, encoding));
                // Two requests may both make it; either's bytes are the same.
                let _ = slot.set(made.clone());
                made
            }
        };
        Ok(neg.known(bytes, self.content_type, encoding, etag))
    }
}

/// The HTTP response of an [`Outcome`].
/// Headers a tree file's or live answer's response ends up with, at most: five of
/// its own, three `RateLimit-*`, `Cache-Control`, `nosniff` and `X-Request-Id`.
const RESPONSE_HEADERS: usize = 12;

pub fn outcome_response(outcome: Outcome) -> Response {
    let mut r = match outcome {
        Outcome::Full {
            bytes,
            content_type,
            encoding,
            etag,
        } => {
            let len = bytes.len();
            let mut r = Response::new(Body::from(bytes));
            // Room for every header the answer will carry (its own, the key's
            // `RateLimit-*` and `Cache-Control`, the front service's), so the map
            // is not grown on the way.
            *r.headers_mut() = HeaderMap::with_capacity(RESPONSE_HEADERS);
            let h = r.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
            if let Some(token) = encoding.token() {
                h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
            }
            h.insert(header::ETAG, etag.header());
            r
        }
        Outcome::NotModified { etag } => {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            r.headers_mut().insert(header::ETAG, etag.header());
            r
        }
    };
    r.headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    r
}

/// HEAD: the same status and headers, no body (`Content-Length` stays).
pub fn strip_body(response: Response) -> Response {
    let (parts, _) = response.into_parts();
    Response::from_parts(parts, Body::empty())
}

/// Whether a response already carries a JSON body.
pub fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.starts_with(JSON) || v.contains("+json")
        })
}

/// Error responses that are not JSON (raised by axum or another layer) become
/// `{"detail": "<reason>"}` with their status and headers kept.
pub fn json_error(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(response.headers()) {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let reason = status.canonical_reason().unwrap_or("Error");
    let body = detail_body(reason);
    parts.headers.remove(header::CONTENT_ENCODING);
    parts
        .headers
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    Response::from_parts(parts, Body::from(body))
}

pub static NOSNIFF: (HeaderName, HeaderValue) = (
    header::X_CONTENT_TYPE_OPTIONS,
    HeaderValue::from_static("nosniff"),
);

/// The bytes of a full answer, for the tests of the caches that keep answers.
#[cfg(test)]
pub(crate) fn full_body(outcome: Option<Outcome>) -> Vec<u8> {
    match outcome {
        Some(Outcome::Full { bytes, .. }) => bytes.to_vec(),
        other => panic!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(v: &str) -> Vec<Encoding> {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        accepted_encodings(&h)
    }

    #[test]
    fn negotiation_prefers_brotli_and_honours_q() {
        assert_eq!(accept("gzip, deflate, br"), [Encoding::Br, Encoding::Gzip]);
        assert_eq!(accept("gzip"), [Encoding::Gzip]);
        assert_eq!(accept("br;q=0.5, gzip"), [Encoding::Gzip, Encoding::Br]);
        assert_eq!(accept("br;q=0, gzip"), [Encoding::Gzip]);
        assert_eq!(accept("*"), [Encoding::Br, Encoding::Gzip]);
        assert_eq!(accept("*;q=0, gzip"), [Encoding::Gzip]);
        assert_eq!(accept("GZip, BR;q=0.5"), [Encoding::Gzip, Encoding::Br]);
        assert_eq!(accept("X-GZIP"), [Encoding::Gzip]);
        assert_eq!(accept("identity"), []);
        assert_eq!(accept(""), []);
        assert!(accepted_encodings(&HeaderMap::new()).is_empty());
    }

    #[test]
    fn etags_differ_per_encoding_and_match_weakly() {
        let a = etag(b"x", Encoding::Identity);
        let b = etag(b"x", Encoding::Gzip);
        assert_ne!(a, b);
        assert!(b.ends_with("-gz\""));
        assert!(if_none_match(&a, &a));
        assert!(if_none_match(&format!("W/{a}"), &a));
        assert!(if_none_match(&format!("\"zz\", {a}"), &a));
        assert!(if_none_match("*", &a));
        assert!(!if_none_match(&b, &a));
    }

    #[test]
    fn identity_bodies_are_compressed_when_accepted_and_large_enough() {
        let n = Negotiation {
            accept: vec![Encoding::Gzip],
            if_none_match: None,
        };
        let body = vec![b'a'; 1000];
        match n.identity(body.clone(), JSON).unwrap() {
            Outcome::Full {
                encoding,
                etag: tag,
                bytes,
                ..
            } => {
                assert_eq!(encoding, Encoding::Gzip);
                assert_eq!(tag, etag(&body, Encoding::Gzip));
                assert!(bytes.len() < body.len());
            }
            other => panic!("{other:?}"),
        }
        match n.identity(b"{}".to_vec(), JSON).unwrap() {
            Outcome::Full { encoding, .. } => assert_eq!(encoding, Encoding::Identity),
            other => panic!("{other:?}"),
        }
        let n = Negotiation {
            accept: vec![Encoding::Gzip],
            if_none_match: Some(etag(&body, Encoding::Gzip).to_string()),
        };
        assert!(matches!(
            n.identity(body, JSON).unwrap(),
            Outcome::NotModified { .. }
        ));
    }
}
