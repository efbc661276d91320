//! hyper's own error answers in JSON, and in the access log. Every connection goes
//! through [`JsonErrorIo`] (see [`super::conn`]), which turns the responses hyper
//! writes by itself, before any handler runs (a malformed request line or header: 400;
//! headers too large: 431; URI too long: 414), into JSON like every other error
//! (docs/api.md §2): `{"detail": ...}`, or under `/graphql` and `/csrf` the GraphQL
//! error shape with an `extensions.code` (docs/api.md §6). hyper writes those as a
//! bare head with `connection: close` and `content-length: 0`, then closes; the app
//! never sends an error without a JSON body (nor a HEAD answer with a zero length), so
//! such a head on the wire can only come from hyper, and nothing follows it on the
//! connection.
//!
//! To say which request it answers, the stream keeps the first bytes read since the
//! last response was written (the request line, as far as it came); each rewritten
//! answer is logged like every other response, with `-` for a method or path that
//! cannot be read from them.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Errors of one connection (the peer gave up) that do not concern the listener.
pub(crate) fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Bytes of a request kept to name it in the log (its request line, mostly).
const HEAD_KEPT: usize = 1024;

/// A stream that rewrites hyper's automatic error responses (see the module doc).
pub struct JsonErrorIo<S> {
    inner: S,
    pending: Vec<u8>,
    written: usize,
    /// The first bytes read since the last response, and when the first came.
    head: Vec<u8>,
    started: Option<Instant>,
}

impl<S> JsonErrorIo<S> {
    pub fn new(inner: S) -> JsonErrorIo<S> {
        JsonErrorIo {
            inner,
            pending: Vec::new(),
            written: 0,
            head: Vec::new(),
            started: None,
        }
    }

    fn saw(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.started.get_or_insert_with(Instant::now);
        let room = HEAD_KEPT.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// A response is being written: the next bytes read belong to the next request.
    fn answered(&mut self) {
        self.head.clear();
        self.started = None;
    }

    /// The JSON version of `buf` if it is one of hyper's bare error heads, logged.
    fn rewrite(&mut self, buf: &[u8]) -> Option<Vec<u8>> {
        // A 200's head (nearly every write) is told apart by its status digit, before
        // the request line is read.
        if !matches!(buf.get(9), Some(b'4' | b'5')) {
            return None;
        }
        let line = RequestLine::read(&self.head);
        let rewritten = rewrite_automatic_error(buf, line.is_graphql())?;
        let status = std::str::from_utf8(&buf[9..12]).unwrap_or("-");
        let duration = self.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
        tracing::info!(
            target: "roost::access",
            method = line.method,
            path = %line.path,
            status = status.parse::<u16>().unwrap_or(0),
            duration_ms = (duration * 1e6).round() / 1e3,
            key_id = None::<i64>,
            request_id = %super::request_id::new_id(),
            "request"
        );
        self.answered();
        Some(rewritten)
    }
}

/// The method and path of a request line, as far as they can be read; `-` otherwise.
#[derive(Debug, PartialEq, Eq)]
pub struct RequestLine {
    pub method: &'static str,
    pub path: String,
}

impl RequestLine {
    pub fn read(head: &[u8]) -> RequestLine {
        const METHODS: [&str; 9] = [
            "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT",
        ];
        let unknown = RequestLine {
            method: "-",
            path: "-".to_string(),
        };
        let Some(space) = head.iter().position(|&b| b == b' ') else {
            return unknown;
        };
        let Some(method) = METHODS.iter().find(|m| m.as_bytes() == &head[..space]) else {
            return unknown;
        };
        let target = &head[space + 1..];
        let end = target
            .iter()
            .position(|&b| matches!(b, b' ' | b'?' | b'#' | b'\r' | b'\n'))
            .unwrap_or(target.len());
        let path = &target[..end];
        if path.is_empty() || !path.iter().all(|b| b.is_ascii_graphic()) {
            return RequestLine {
                method,
                path: "-".to_string(),
            };
        }
        RequestLine {
            method,
            path: String::from_utf8_lossy(path).chars().take(512).collect(),
        }
    }

    /// Whether the request is one of GraphQL's (answered in the GraphQL error shape).
    fn is_graphql(&self) -> bool {
        ["/graphql", "/csrf"].iter().any(|prefix| {
            self.path
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    }
}

impl<S: AsyncWrite + Unpin> JsonErrorIo<S> {
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }

    /// Queues the JSON version of `head`; reports `head` as written.
    fn queue(
        &mut self,
        cx: &mut Context<'_>,
        rewritten: Vec<u8>,
        len: usize,
    ) -> Poll<io::Result<usize>> {
        self.pending = rewritten;
        self.written = 0;
        if let Poll::Ready(Err(e)) = self.poll_drain(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(len))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonErrorIo<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        if this.head.len() < HEAD_KEPT {
            this.saw(&buf.filled()[before..]);
        } else {
            this.started.get_or_insert_with(Instant::now);
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for JsonErrorIo<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        ready!(this.poll_drain(cx))?;
        if let Some(rewritten) = this.rewrite(buf) {
            return this.queue(cx, rewritten, buf.len());
        }
        this.answered();
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        ready!(this.poll_drain(cx))?;
        if let Some(first) = bufs.iter().find(|b| !b.is_empty()) {
            if let Some(rewritten) = this.rewrite(first) {
                return this.queue(cx, rewritten, first.len());
            }
        }
        this.answered();
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// The JSON version of a bodiless 4xx/5xx response head, or `None` for anything else;
/// `graphql` asks for the GraphQL error shape (`errors[].extensions.code`).
pub fn rewrite_automatic_error(buf: &[u8], graphql: bool) -> Option<Vec<u8>> {
    if buf.len() < 16
        || !(buf.starts_with(b"HTTP/1.1 ") || buf.starts_with(b"HTTP/1.0 "))
        || !matches!(buf[9], b'4' | b'5')
        || !buf.ends_with(b"\r\n\r\n")
    {
        return None;
    }
    let head = std::str::from_utf8(&buf[..buf.len() - 4]).ok()?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let headers: Vec<&str> = lines.collect();
    let is_empty_length = |l: &&str| {
        l.split_once(':')
            .is_some_and(|(k, v)| k.eq_ignore_ascii_case("content-length") && v.trim() == "0")
    };
    let closes = |l: &&str| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.eq_ignore_ascii_case("connection") && v.trim().eq_ignore_ascii_case("close")
        })
    };
    if !headers.iter().any(is_empty_length) || !headers.iter().any(closes) {
        return None;
    }
    let (detail, code) = match status_line.get(9..12)? {
        "400" => ("Bad Request: the request is not valid HTTP", "BAD_REQUEST"),
        "414" => ("URI Too Long", "URI_TOO_LONG"),
        "431" => (
            "Request Header Fields Too Large",
            "REQUEST_HEADER_FIELDS_TOO_LARGE",
        ),
        _ => (status_line.get(13..).unwrap_or("Error"), "BAD_REQUEST"),
    };
    let body = if graphql {
        let message = match code {
            "URI_TOO_LONG" => "URI Too Long: POST the query instead",
            _ => detail,
        };
        serde_json::json!({"errors": [{"message": message, "extensions": {"code": code}}]})
            .to_string()
            .into_bytes()
    } else {
        super::respond::detail_body(detail)
    };
    let mut out = Vec::with_capacity(buf.len() + body.len() + 96);
    out.extend_from_slice(status_line.as_bytes());
    out.extend_from_slice(b"\r\n");
    for h in headers.iter().filter(|h| !is_empty_length(h)) {
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"content-type: application/json\r\nx-content-type-options: nosniff\r\n");
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(&body);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_error_heads_become_json() {
        let head = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: Sun, 22 Nov 2026 04:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(rewrite_automatic_error(head, false).unwrap()).unwrap();
        let (h, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(h.starts_with("HTTP/1.1 400 Bad Request\r\n"));
        assert!(h.contains("connection: close"));
        assert!(h.contains("content-type: application/json"));
        assert!(!h.contains("content-length: 0"));
        assert!(h.contains(&format!("content-length: {}", body.len())));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(v["detail"].as_str().unwrap().starts_with("Bad Request"));
        let big = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        assert!(
            String::from_utf8(rewrite_automatic_error(big, false).unwrap())
                .unwrap()
                .ends_with("{\"detail\":\"Request Header Fields Too Large\"}")
        );
        let long = b"HTTP/1.1 414 URI Too Long\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        let out = String::from_utf8(rewrite_automatic_error(long, true).unwrap()).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(out.split_once("\r\n\r\n").unwrap().1).unwrap();
        assert_eq!(v["errors"][0]["extensions"]["code"], "URI_TOO_LONG");
    }

    #[test]
    fn request_lines_name_the_request_or_dash() {
        let line = RequestLine::read(b"GET /graphql/?query=%7B HTTP/1.1\r\nHost: x");
        assert_eq!((line.method, line.path.as_str()), ("GET", "/graphql/"));
        assert!(line.is_graphql());
        let line = RequestLine::read(b"GET /api/v0/chapters/");
        assert_eq!(line.path, "/api/v0/chapters/");
        assert!(!line.is_graphql());
        assert!(!RequestLine::read(b"GET /graphqlx HTTP/1.1").is_graphql());
        for junk in [&b""[..], b"GET", b"\x16\x03\x01 x", b"BREW /pot HTTP/1.1"] {
            assert_eq!(RequestLine::read(junk).method, "-");
        }
        assert_eq!(RequestLine::read(b"GET  HTTP/1.1").path, "-");
    }

    #[test]
    fn everything_else_passes() {
        for buf in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 22\r\n\r\n",
            b"HTTP/1.1 304 Not Modified\r\n\r\n",
            b"{\"detail\":\"x\"}",
            b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n{}",
            // Without `connection: close` it is not hyper's parse-error answer.
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n",
        ] {
            assert!(rewrite_automatic_error(buf, false).is_none());
        }
    }
}
