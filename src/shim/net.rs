//! hyper's own error answers in JSON. Every connection goes through [`JsonErrorIo`]
//! (see [`super::conn`]), which turns the responses hyper writes by itself, before any handler runs (a malformed request
//! line or header: 400; headers too large: 431; URI too long: 414), into JSON like
//! every other error (docs/api.md §2). hyper writes those as a bare head with
//! `connection: close` and `content-length: 0`, then closes; the app never sends an
//! error without a JSON body (nor a HEAD answer with a zero length), so such a head
//! on the wire can only come from hyper, and nothing follows it on the connection.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

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

/// A stream that rewrites hyper's automatic error responses (see the module doc).
pub struct JsonErrorIo<S> {
    inner: S,
    pending: Vec<u8>,
    written: usize,
}

impl<S> JsonErrorIo<S> {
    pub fn new(inner: S) -> JsonErrorIo<S> {
        JsonErrorIo {
            inner,
            pending: Vec::new(),
            written: 0,
        }
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
        Pin::new(&mut self.inner).poll_read(cx, buf)
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
        if let Some(rewritten) = rewrite_automatic_error(buf) {
            return this.queue(cx, rewritten, buf.len());
        }
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
            if let Some(rewritten) = rewrite_automatic_error(first) {
                return this.queue(cx, rewritten, first.len());
            }
        }
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

/// The JSON version of a bodiless 4xx/5xx response head, or `None` for anything else.
pub fn rewrite_automatic_error(buf: &[u8]) -> Option<Vec<u8>> {
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
    let detail = match status_line.get(9..12)? {
        "400" => "Bad Request: the request is not valid HTTP".to_string(),
        "414" => "URI Too Long".to_string(),
        "431" => "Request Header Fields Too Large".to_string(),
        _ => status_line.get(13..).unwrap_or("Error").to_string(),
    };
    let body = super::respond::detail_body(&detail);
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
        let out = String::from_utf8(rewrite_automatic_error(head).unwrap()).unwrap();
        let (h, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(h.starts_with("HTTP/1.1 400 Bad Request\r\n"));
        assert!(h.contains("connection: close"));
        assert!(h.contains("content-type: application/json"));
        assert!(!h.contains("content-length: 0"));
        assert!(h.contains(&format!("content-length: {}", body.len())));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(v["detail"].as_str().unwrap().starts_with("Bad Request"));
        let big = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        assert!(String::from_utf8(rewrite_automatic_error(big).unwrap())
            .unwrap()
            .ends_with("{\"detail\":\"Request Header Fields Too Large\"}"));
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
            assert!(rewrite_automatic_error(buf).is_none());
        }
    }
}
