//! The request id of an access log line, echoed in the response's `X-Request-Id`: the
//! one a trusted proxy (`--trusted-proxy`) sent in `X-Request-Id`, when it is 1 to 128
//! characters of `A-Z a-z 0-9 - _ . : / + =`; otherwise (another peer, no header or
//! a malformed one) a new one, 32 random hex digits. A client that is not a trusted
//! proxy cannot choose the id its request is logged under.

use axum::http::{HeaderMap, HeaderName, HeaderValue};

pub const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest id taken from a proxy.
const MAX_LEN: usize = 128;

/// The id of a request with `headers`, from a peer that `trusted` says is a trusted
/// proxy or not.
pub fn request_id(headers: &HeaderMap, trusted: bool) -> String {
    RequestId::of(headers, trusted).as_str().to_string()
}

/// A request's id as the front service holds it: made here (its digits on the
/// stack), or a trusted proxy's header value (shared with the request, not copied).
#[derive(Debug, Clone)]
pub enum RequestId {
    Made([u8; 32]),
    Taken(HeaderValue),
}

impl RequestId {
    /// The id of a request with `headers` (see [`request_id`]).
    pub fn of(headers: &HeaderMap, trusted: bool) -> RequestId {
        match trusted.then(|| headers.get(X_REQUEST_ID)).flatten() {
            Some(value) if value.to_str().is_ok_and(well_formed) => RequestId::Taken(value.clone()),
            _ => RequestId::Made(new_digits()),
        }
    }

    pub fn as_str(&self) -> &str {
        let bytes = match self {
            RequestId::Made(digits) => &digits[..],
            RequestId::Taken(value) => value.as_bytes(),
        };
        // Both are ASCII: hex digits, or a value `well_formed` accepted.
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    /// The `X-Request-Id` header value.
    pub fn header(self) -> Option<HeaderValue> {
        match self {
            RequestId::Made(digits) => HeaderValue::from_bytes(&digits).ok(),
            RequestId::Taken(value) => Some(value),
        }
    }
}

fn well_formed(id: &str) -> bool {
    (1..=MAX_LEN).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:/+=".contains(&b))
}

/// A new id: 32 random hex digits (also the id of the lines of requests hyper refuses
/// before any handler runs, [`super::net`]).
pub fn new_id() -> String {
    RequestId::Made(new_digits()).as_str().to_string()
}

/// 32 random hex digits.
fn new_digits() -> [u8; 32] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let n = rand::random::<u128>();
    let mut digits = [0u8; 32];
    for (i, digit) in digits.iter_mut().enumerate() {
        *digit = HEX[((n >> (4 * (31 - i))) & 0xf) as usize];
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_from_trusted_proxies_only_and_only_when_well_formed() {
        let mut headers = HeaderMap::new();
        let made = request_id(&headers, true);
        assert_eq!(made.len(), 32);
        assert!(made.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(made, request_id(&headers, true));
        headers.insert(X_REQUEST_ID, "abc-123:edge/7".parse().unwrap());
        assert_eq!(request_id(&headers, true), "abc-123:edge/7");
        assert_ne!(request_id(&headers, false), "abc-123:edge/7");
        for bad in ["", "a b", "x\"y", &"a".repeat(129)] {
            headers.insert(X_REQUEST_ID, bad.parse().unwrap());
            assert_eq!(request_id(&headers, true).len(), 32, "{bad:?}");
        }
        headers.insert(X_REQUEST_ID, "a".repeat(128).parse().unwrap());
        assert_eq!(request_id(&headers, true), "a".repeat(128));
    }
}
