//! The shim over real sockets on 127.0.0.1: HTTP clients, malformed requests that
//! hyper answers by itself (JSON too), graceful shutdown with a request in flight,
//! and the `roost serve` binary on a fresh folder in production (dataset and tree
//! created, keys, a replaced dataset and a regenerated tree picked up without a
//! restart, one log line per request, SIGTERM).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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

/// `roost` in `dir`.
fn roost_in(dir: &Path) -> Command {
    let mut command = roost();
    command.current_dir(dir);
    command
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roost_serve_on_a_fresh_folder_in_production() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut child = roost_in(dir)
        .args(["serve", "--env", "production", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let child_out = child.stdout.take().unwrap();
    let child_err = child.stderr.take().unwrap();
    let pid = child.id();
    let child = Killed(child);
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(child_out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(child_err).read_to_string(&mut text);
        text
    });
    let mut printed = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(180);
    let addr = loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("no 'listening on' line; got {printed:?}"));
        printed.push(line.clone());
        if let Some(rest) = line.strip_prefix("listening on http://") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    let next = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    printed.push(next);
    let all = printed.join("\n");
    assert!(
        all.contains("creating it from the embedded sample"),
        "{all}"
    );
    assert!(all.contains("generating the tree"), "{all}");
    assert!(all.contains("roost keys create --name NAME"), "{all}");
    assert!(dir.join("data/roost.db").is_file());
    assert!(dir.join("site/manifest.json").is_file());
    assert!(
        dir.join("data/auth.db").is_file(),
        "auth.db is created on start"
    );

    let base = format!("http://{addr}");
    let client = reqwest::Client::new();
    let r = client
        .get(format!("{base}/api/v0/chapters/"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        v["detail"],
        "Missing or invalid API key in 'X-API-Key' header"
    );
    assert_eq!(
        client
            .get(format!("{base}/api/v0/openapi.json"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );

    let out = stdout(
        &roost_in(dir)
            .args(["keys", "create", "--name", "e2e"])
            .output()
            .unwrap(),
    );
    let key = out.lines().last().unwrap().to_string();
    let get = |path: &str| {
        client
            .get(format!("{base}{path}"))
            .header("x-api-key", &key)
            .send()
    };
    let r = get("/api/v0/chapters/").await.unwrap();
    assert_eq!(r.status(), 200);
    let name = |v: serde_json::Value| v["name"].as_str().unwrap().to_string();
    let london = get("/api/v0/chapters/london")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(name(london), "London");

    // A replaced dataset is answered from at once (live answers) ...
    write_sample(&dir.join("changed"), "chapters.jsonl", |lines| {
        let london = lines
            .iter_mut()
            .find(|l| l.contains("\"name\": \"London\""))
            .unwrap();
        *london = london.replacen("\"name\": \"London\"", "\"name\": \"Londinium\"", 1);
    });
    stdout(
        &roost_in(dir)
            .args(["db", "import", "changed"])
            .output()
            .unwrap(),
    );
    let live: serde_json::Value = get("/api/v0/chapters/?page_size=50")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(live.to_string().contains("Londinium"), "{live}");
    // ... and a regenerated tree from the next request, without a restart.
    stdout(&roost_in(dir).args(["generate"]).output().unwrap());
    let london = get("/api/v0/chapters/london")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(name(london), "Londinium");

    // Revocation applies to the running server.
    stdout(
        &roost_in(dir)
            .args(["keys", "revoke", "1"])
            .output()
            .unwrap(),
    );
    assert_eq!(get("/api/v0/chapters/").await.unwrap().status(), 401);

    // SIGTERM: a clean exit.
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut child = child;
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(s) = child.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "roost serve did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
    let log = log.join().unwrap();
    assert!(!log.contains(&key), "the key never reaches the log");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v["path"].is_string())
        .collect();
    assert_eq!(lines.len(), 7, "one line per request: {log}");
    let keyed = lines
        .iter()
        .find(|v| v["path"] == "/api/v0/chapters/london" && v["status"] == 200)
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(keyed["method"], "GET");
    assert_eq!(keyed["key_id"], 1);
    assert!(keyed["duration_ms"].is_number());
    let anonymous = lines.iter().find(|v| v["status"] == 401).unwrap();
    assert!(anonymous.get("key_id").is_none());
}

#[test]
fn an_unauthenticated_environment_is_refused_on_a_public_address() {
    let tmp = tempfile::tempdir().unwrap();
    for env in ["local", "e2e"] {
        let out = roost_in(tmp.path())
            .args(["serve", "--env", env, "--listen", "0.0.0.0:0"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--allow-unauthenticated-public"), "{err}");
        assert!(
            !tmp.path().join("data").exists(),
            "refused before creating anything"
        );
    }
}
