//! Requests hyper refuses before any handler runs (malformed: 400, URI too long: 414,
//! headers too large: 431), over a real socket: they appear in the access log like
//! every other response (method and path when they can be read, `-` otherwise), and
//! under `/graphql` they are answered in the GraphQL error shape with a code
//! (docs/api.md §2 and §6). The lines are read from `roost serve`'s stderr.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::*;

/// Sends raw bytes and reads until the server closes the connection.
async fn raw(addr: SocketAddr, request: &[u8]) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

fn body(text: &str) -> Value {
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn hyper_rejections_are_logged_and_graphql_ones_are_coded() {
    let served = Serving::start(&[]);
    let addr: SocketAddr = served.addr.parse().unwrap();

    // A GET query over hyper's URI limit, on GraphQL: the GraphQL error shape.
    let long = format!(
        "GET /graphql/?query={} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    let text = raw(addr, long.as_bytes()).await;
    assert!(
        text.starts_with("HTTP/1.1 414"),
        "{}",
        &text[..80.min(text.len())]
    );
    let v = body(&text);
    assert_eq!(v["errors"][0]["extensions"]["code"], "URI_TOO_LONG", "{v}");
    assert!(v["errors"][0]["message"].is_string());
    // The same on REST: `{"detail"}`.
    let long = format!(
        "GET /api/v0/chapters/?q={} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    let text = raw(addr, long.as_bytes()).await;
    assert!(text.starts_with("HTTP/1.1 414"));
    assert_eq!(body(&text)["detail"], "URI Too Long");
    // Too many headers on GraphQL, and a request that is not HTTP.
    let mut many = b"POST /graphql/ HTTP/1.1\r\nHost: x\r\n".to_vec();
    for i in 0..200 {
        many.extend_from_slice(format!("X-Filler-{i}: y\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    let text = raw(addr, &many).await;
    assert!(text.starts_with("HTTP/1.1 431"), "{text}");
    assert_eq!(
        body(&text)["errors"][0]["extensions"]["code"],
        "REQUEST_HEADER_FIELDS_TOO_LARGE"
    );
    let text = raw(addr, b"\x16\x03\x01\x02\x00 not http\r\n\r\n").await;
    assert!(text.starts_with("HTTP/1.1 400"), "{text}");
    assert!(body(&text)["detail"].is_string());
    // An ordinary request, for comparison.
    let text = raw(
        addr,
        b"GET /api/v0/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(text.starts_with("HTTP/1.1 404"));

    let lines: Vec<Value> = (0..5).map(|_| served.access_line()).collect();
    let seen: Vec<(String, String, u64)> = lines
        .iter()
        .map(|l| {
            (
                l["method"].as_str().unwrap_or("?").to_string(),
                l["path"].as_str().unwrap_or("?").to_string(),
                l["status"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let expect = |method: &str, path: &str, status: u64| {
        assert!(
            seen.contains(&(method.to_string(), path.to_string(), status)),
            "{method} {path} {status} not in {seen:?}"
        );
    };
    expect("GET", "/graphql/", 414);
    expect("GET", "/api/v0/chapters/", 414);
    expect("POST", "/graphql/", 431);
    expect("-", "-", 400);
    expect("GET", "/api/v0/nothing", 404);
    let further = served.further_access_lines(Duration::from_millis(500));
    assert!(further.is_empty(), "one line per response: {further:?}");
    for line in &lines {
        assert!(line["duration_ms"].is_number(), "{line}");
        assert_eq!(
            line["request_id"].as_str().map(str::len),
            Some(32),
            "{line}"
        );
    }
}
