//! The access log line of a request: path and query string, response bytes, user
//! agent, and a request id (a trusted proxy's `X-Request-Id`, else made) echoed in
//! the response's `X-Request-Id`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use axum::http::Method;
use roost::config::Env;
use roost::shim::proxy::TrustedProxies;
use serde_json::Value;

use crate::support::*;

/// Log lines written by the shim, as `roost serve` formats them.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// The access lines logged so far, emptied.
    fn take(&self) -> Vec<Value> {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap());
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["target"] == "roost::access")
            .collect()
    }
}

// The middleware logs on this test's thread (a current-thread runtime), so the
// subscriber set for the thread sees its lines.
#[tokio::test]
async fn lines_name_query_bytes_agent_and_a_request_id_echoed_in_the_response() {
    let captured = Captured::default();
    let sink = captured.clone();
    let _log = tracing::subscriber::set_default(
        tracing_subscriber::fmt()
            .event_format(roost::shim::logline::JsonLine)
            .with_writer(move || sink.clone())
            .finish(),
    );
    let app = shared().app(Env::Local, |c| {
        c.trusted_proxies = TrustedProxies::parse(&["10.0.0.0/8"]).unwrap();
    });

    // An untrusted peer: its X-Request-Id is not taken; a new id is made and echoed.
    let reply = send(
        &app,
        from(
            Method::GET,
            "/api/v0/projects/?type=tool&page_size=3",
            "198.51.100.5",
        )
        .header("user-agent", "integration/1.0 (\"quoted\")")
        .header("x-request-id", "chosen-by-client"),
    )
    .await;
    assert_eq!(reply.status, 200);
    let lines = captured.take();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert_eq!(line["path"], "/api/v0/projects/");
    assert_eq!(line["query"], "type=tool&page_size=3");
    assert_eq!(line["bytes"], reply.body.len());
    assert_eq!(line["user_agent"], "integration/1.0 (\"quoted\")");
    assert_eq!(line["client"], "198.51.100.5");
    let id = line["request_id"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    assert_eq!(reply.header("x-request-id"), Some(id));

    // Each request its own id.
    let again = send(
        &app,
        from(Method::GET, "/api/v0/chapters/london", "198.51.100.5"),
    )
    .await;
    let line = &captured.take()[0];
    assert!(line.get("query").is_none(), "{line}");
    assert!(line.get("user_agent").is_none(), "{line}");
    assert_eq!(line["bytes"], again.body.len());
    assert_ne!(line["request_id"], id);
    assert_eq!(again.header("x-request-id"), line["request_id"].as_str());

    // A trusted proxy's id is kept, logged and echoed; a malformed one is replaced.
    let proxied = send(
        &app,
        from(Method::GET, "/api/v0/chapters/?page=2", "10.0.0.1")
            .header("x-forwarded-for", "203.0.113.7")
            .header("x-request-id", "edge-42:a/b"),
    )
    .await;
    let line = &captured.take()[0];
    assert_eq!(line["request_id"], "edge-42:a/b");
    assert_eq!(line["client"], "203.0.113.7");
    assert_eq!(proxied.header("x-request-id"), Some("edge-42:a/b"));
    let malformed = send(
        &app,
        from(Method::GET, "/api/v0/no-such-thing", "10.0.0.1").header("x-request-id", "a b"),
    )
    .await;
    assert_eq!(malformed.status, 404);
    let line = &captured.take()[0];
    assert_eq!(line["status"], 404);
    assert_eq!(line["bytes"], malformed.body.len());
    assert_eq!(line["request_id"].as_str().unwrap().len(), 32);
    assert_eq!(
        malformed.header("x-request-id"),
        line["request_id"].as_str()
    );
}
