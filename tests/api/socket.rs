//! The shim over real sockets on 127.0.0.1: HTTP clients, malformed requests that
//! hyper answers by itself (JSON too), and graceful shutdown with a request in flight.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use roost::config::Env;

use crate::support::*;

/// Sends raw bytes and reads until the server closes or `timeout`.
fn raw(addr: SocketAddr, bytes: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn split_response(text: &str) -> (&str, &str) {
    text.split_once("\r\n\r\n").unwrap_or((text, ""))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_clients_over_a_socket_and_answers_bad_http_in_json() {
    let fx = shared();
    let server = serve(fx.state(Env::Local, |_| {})).await;
    let base = format!("http://{}", server.addr);
    let client = reqwest::Client::new();

    let r = client
        .get(format!("{base}/api/v0/chapters/"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-content-type-options"], "nosniff");
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let len = r.headers()["content-length"].to_str().unwrap().to_string();
    assert_eq!(
        r.bytes().await.unwrap().as_ref(),
        fx.file("api/v0/chapters/index.json")
    );

    let r = client
        .head(format!("{base}/api/v0/chapters/"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-length"].to_str().unwrap(), len);
    assert!(r.bytes().await.unwrap().is_empty());

    let r = client
        .get(format!("{base}/api/v0/chapters/"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);

    let r = client
        .get(format!("{base}/api/v0/members/"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert_eq!(
        gunzip(&r.bytes().await.unwrap()),
        fx.file("api/v0/members/index.json")
    );

    let r = client
        .post(format!("{base}/api/v0/chapters/"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(r.headers()["allow"], "GET, HEAD");
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["detail"], "Method Not Allowed");

    // Requests hyper refuses before any handler runs are JSON as well.
    for (request, status) in [
        (
            &b"GET /api/v0/ with spaces HTTP/1.1\r\nHost: x\r\n\r\n"[..],
            "400",
        ),
        (b"GET /api/v0/ HTTP/1.1\r\nHost x\r\n\r\n", "400"),
        (
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http at all\r\n\r\n",
            "400",
        ),
    ] {
        let text = raw(server.addr, request);
        let (head, body) = split_response(&text);
        assert!(head.starts_with(&format!("HTTP/1.1 {status}")), "{text}");
        assert!(head.contains("content-type: application/json"), "{head}");
        assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(v["detail"].is_string());
    }
    let mut many = b"GET /api/v0/ HTTP/1.1\r\nHost: x\r\n".to_vec();
    for i in 0..200 {
        many.extend_from_slice(format!("X-Filler-{i}: {}\r\n", "y".repeat(20)).as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    let text = raw(server.addr, &many);
    let (head, body) = split_response(&text);
    assert!(head.starts_with("HTTP/1.1 431"), "{head}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(body).unwrap()["detail"],
        "Request Header Fields Too Large"
    );
    // A keep-alive connection keeps working after ordinary errors.
    let text = raw(
        server.addr,
        b"GET /api/v0/nothing HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v0/chapters/london HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(text.matches("HTTP/1.1 ").count(), 2, "{text}");
    assert!(text.contains("HTTP/1.1 404") && text.contains("HTTP/1.1 200"));

    let Server { stop, task, .. } = server;
    let _ = stop.unwrap().send(());
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_lets_a_request_in_flight_finish() {
    let fx = shared();
    let mut server = serve(fx.state(Env::Local, |_| {})).await;
    let addr = server.addr;
    // A request whose body is still arriving when the shutdown begins: it is in
    // progress (its head was read), so the server waits for it. (Connections with
    // no request in progress are closed at once: tests/shim_conn.rs.)
    let body = br#"{"query": "{ statsOverview { activeChaptersStats } }"}"#;
    let mut conn = TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    conn.write_all(
        format!(
            "POST /graphql/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )
    .unwrap();
    conn.write_all(&body[..10]).unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let _ = server.stop.take().unwrap().send(());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !server.task.is_finished(),
        "the server waits for the request"
    );
    conn.write_all(&body[10..]).unwrap();
    let mut out = Vec::new();
    conn.read_to_end(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out);
    let (head, body) = split_response(&text);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(body.contains(r#""activeChaptersStats""#), "{body}");
    tokio::time::timeout(Duration::from_secs(10), server.task)
        .await
        .expect("the server stops once the request is answered")
        .unwrap()
        .unwrap();
    assert!(TcpStream::connect(addr).is_err(), "no longer listening");
}
