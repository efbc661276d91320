//! `roost serve` through SIGTERM with busy keep-alive clients, HTTP/1.1 and HTTP/2
//! (docs/architecture.md, "Shutdown"): `/readyz` answers 503 at once, every request
//! is still answered through the drain period, then each HTTP/1.1 connection is told
//! to close on an answer (`Connection: close`) and each HTTP/2 one gets GOAWAY, and
//! no request sent goes unanswered. A client stops when it can no longer connect (a
//! load balancer would send it to another replica by then).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::*;

#[derive(Default)]
struct Tally {
    answered: AtomicUsize,
    /// Answered after SIGTERM was sent.
    after_signal: AtomicUsize,
    /// Answers that carried `Connection: close`.
    told_to_close: AtomicUsize,
    failures: Mutex<Vec<String>>,
}

impl Tally {
    fn fail(&self, what: String) {
        self.failures.lock().unwrap().push(what);
    }
}

const PATHS: [&str; 3] = [
    "/api/v0/chapters/",
    "/api/v0/chapters/?page_size=7",
    "/api/v0/projects/?type=tool",
];

/// Requests one after another on `client` until the server can no longer be
/// reached (or 60 s, a bound the test never reaches).
async fn busy_client(
    client: reqwest::Client,
    base: String,
    http1: bool,
    signalled: Arc<AtomicBool>,
    tally: Arc<Tally>,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut told_to_close = false;
    let mut i = 0usize;
    while Instant::now() < deadline {
        i += 1;
        let path = PATHS[i % PATHS.len()];
        let response = match client.get(format!("{base}{path}")).send().await {
            Ok(r) => r,
            Err(e) if e.is_connect() && signalled.load(Ordering::Acquire) => {
                // The listener has closed. An HTTP/1.1 connection must have been told
                // so on its last answer rather than cut.
                if http1 && !told_to_close {
                    tally.fail(format!(
                        "HTTP/1.1 connection closed without Connection: close: {e}"
                    ));
                }
                return;
            }
            Err(e) => {
                tally.fail(format!("{path}: {e:?}"));
                return;
            }
        };
        let status = response.status();
        told_to_close = response
            .headers()
            .get("connection")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close"));
        match response.bytes().await {
            Ok(body) if status == 200 && body.starts_with(b"{") => {
                tally.answered.fetch_add(1, Ordering::AcqRel);
                if signalled.load(Ordering::Acquire) {
                    tally.after_signal.fetch_add(1, Ordering::AcqRel);
                }
                if told_to_close {
                    tally.told_to_close.fetch_add(1, Ordering::AcqRel);
                }
            }
            Ok(body) => tally.fail(format!(
                "{path}: {status} {}",
                String::from_utf8_lossy(&body)
            )),
            Err(e) => tally.fail(format!("{path}: body: {e:?}")),
        }
    }
    tally.fail("a client was still being answered after 60 s".to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_with_busy_keep_alive_clients_loses_no_request() {
    let mut server = Serving::start(&["--drain-seconds", "2", "--grace-seconds", "20"]);
    let base = server.url("");
    let signalled = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let mut clients = Vec::new();
    // Four HTTP/1.1 clients, one keep-alive connection each.
    for _ in 0..4 {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .unwrap();
        clients.push(tokio::spawn(busy_client(
            client,
            base.clone(),
            true,
            signalled.clone(),
            tally.clone(),
        )));
    }
    // Two HTTP/2 connections with four streams at a time on each.
    for _ in 0..2 {
        let client = reqwest::Client::builder()
            .http2_prior_knowledge()
            .build()
            .unwrap();
        for _ in 0..4 {
            clients.push(tokio::spawn(busy_client(
                client.clone(),
                base.clone(),
                false,
                signalled.clone(),
                tally.clone(),
            )));
        }
    }
    let warm = Instant::now() + Duration::from_secs(60);
    while tally.answered.load(Ordering::Acquire) < 300 && Instant::now() < warm {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Ready once warm (the requests above were answered meanwhile).
    let warmed = Instant::now() + Duration::from_secs(60);
    while reqwest::get(format!("{base}/readyz"))
        .await
        .unwrap()
        .status()
        != 200
    {
        assert!(Instant::now() < warmed, "/readyz never said ready");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    signalled.store(true, Ordering::Release);
    server.signal("TERM");
    // /readyz says 503 while requests are still answered.
    let probe = reqwest::Client::new();
    let until = Instant::now() + Duration::from_secs(10);
    let readyz = loop {
        let r = probe.get(format!("{base}/readyz")).send().await.unwrap();
        if r.status() == 503 {
            break r.json::<serde_json::Value>().await.unwrap();
        }
        assert!(Instant::now() < until, "/readyz still {}", r.status());
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(readyz["status"], "unavailable");
    assert_eq!(readyz["reason"], "shutting down");
    let during_drain = tally.after_signal.load(Ordering::Acquire);
    let health = probe.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200, "the process still answers");

    for client in clients {
        tokio::time::timeout(Duration::from_secs(90), client)
            .await
            .expect("every client ends")
            .unwrap();
    }
    let exit = tokio::task::block_in_place(|| server.exit_within(Duration::from_secs(60)))
        .expect("roost serve exits after the drain period");
    assert!(exit.success(), "{exit:?}");
    let failures = tally.failures.lock().unwrap().clone();
    let after_signal = tally.after_signal.load(Ordering::Acquire);
    let told_to_close = tally.told_to_close.load(Ordering::Acquire);
    eprintln!(
        "SIGTERM with 4 HTTP/1.1 and 2x4 HTTP/2 busy clients: {} answered in all, {after_signal} \
         after SIGTERM ({during_drain} by the time /readyz said 503), {told_to_close} told to \
         close, {} failed",
        tally.answered.load(Ordering::Acquire),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(after_signal > 0, "requests are served through the drain");
    assert!(told_to_close >= 4, "every HTTP/1.1 client is told to close");

    let lines = tokio::task::block_in_place(|| server.remaining_lines(Duration::from_secs(10)));
    let said = |text: &str| {
        lines.iter().any(|l| {
            l["target"] == "roost::shutdown" && l["message"].as_str().unwrap().starts_with(text)
        })
    };
    assert!(said("shutting down: /readyz answers 503"), "{lines:#?}");
    assert!(said("closing the listener"), "{lines:#?}");
    assert!(said("stopped: every connection is closed"), "{lines:#?}");
}
