//! The double-submit CSRF check of requests that change state or answer from a
//! browser's cookies (a POST to `/graphql/` or `/idx/` in production and staging).
//!
//! `GET /csrf/` hands out a token and sets it as the `csrftoken` cookie; the request
//! must send the same token in the `X-CSRFToken` header. A cross-site page can make
//! the browser send the cookie, but cannot read it to copy it into the header.

use axum::http::{header, HeaderMap};

/// The double-submit CSRF cookie and header.
pub const CSRF_COOKIE: &str = "csrftoken";
pub const CSRF_HEADER: &str = "x-csrftoken";

/// The pair is missing or does not match: 403, worded by each endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsrfFailed;

/// The double-submit pair: the `X-CSRFToken` header equals the `csrftoken` cookie,
/// neither empty.
pub fn check(headers: &HeaderMap) -> Result<(), CsrfFailed> {
    let expected = cookie(headers, CSRF_COOKIE).unwrap_or("");
    let sent = headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim();
    let matches = !expected.is_empty()
        && !sent.is_empty()
        && same_secret(expected.as_bytes(), sent.as_bytes());
    if matches {
        Ok(())
    } else {
        Err(CsrfFailed)
    }
}

/// The value of a cookie, from every `Cookie` header.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key.trim() == name).then(|| value.trim().trim_matches('"'))
        })
}

/// Compares without an early exit, so timing does not reveal how much matched.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::guard::test_headers as headers;

    #[test]
    fn the_header_must_equal_the_cookie() {
        let pair = headers(&[
            ("cookie", "a=1; csrftoken=\"tok\""),
            ("x-csrftoken", " tok "),
        ]);
        assert_eq!(check(&pair), Ok(()));
        for bad in [
            headers(&[("cookie", "csrftoken=tok"), ("x-csrftoken", "tol")]),
            headers(&[("cookie", "csrftoken=tok")]),
            headers(&[("x-csrftoken", "tok")]),
            headers(&[("cookie", "csrftoken="), ("x-csrftoken", "")]),
        ] {
            assert_eq!(check(&bad), Err(CsrfFailed), "{bad:?}");
        }
        let two = headers(&[("cookie", "a=1"), ("cookie", "sessionid=s; b=2")]);
        assert_eq!(cookie(&two, "sessionid"), Some("s"));
        assert_eq!(cookie(&two, "c"), None);
    }
}
