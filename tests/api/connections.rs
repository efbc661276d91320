//! Slow, idle and too many connections over real sockets on 127.0.0.1, with
//! millisecond limits: partial request heads are dropped after the header timeout
//! while other clients are answered, idle keep-alive connections are closed,
//! connections over the caps are closed at once, and shutdown closes connections
//! with no request in progress once they are quiet, telling a kept-alive one that
//! asks again to close (`Connection: close`) rather than cutting it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use roost::config::Env;
use roost::shim::conn::ConnLimits;

use crate::support::*;

async fn start(limits: ConnLimits) -> Server {
    serve(shared().state(Env::Local, |c| c.conn = limits)).await
}

fn limits(header_ms: u64, idle_ms: u64, total: usize, per_address: usize) -> ConnLimits {
    ConnLimits {
        header_timeout: Duration::from_millis(header_ms),
        idle_timeout: Duration::from_millis(idle_ms),
        max_connections: total,
        max_connections_per_address: per_address,
    }
}

const PARTIAL: &[u8] = b"GET /api/v0/chapters/ HTTP/1.1\r\nHo";
const FULL: &[u8] = b"GET /api/v0/chapters/ HTTP/1.1\r\nHost: t\r\n\r\n";

fn connect(addr: SocketAddr, send: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(send).unwrap();
    s
}

/// Reads until the server closes the connection; the time it took, or `None` when it
/// was still open after `within`.
fn closed_within(s: &mut TcpStream, within: Duration) -> Option<Duration> {
    let started = Instant::now();
    s.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(started.elapsed())
            }
            Err(_) => return None,
        }
    }
}

/// Reads one whole response (by Content-Length) from a keep-alive connection: its
/// status line.
fn read_response(s: &mut TcpStream) -> String {
    let (head, _) = read_answer(s);
    head.lines().next().unwrap().to_string()
}

/// Reads one whole response (by Content-Length): its head and its body.
fn read_answer(s: &mut TcpStream) -> (String, Vec<u8>) {
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "closed before a whole response");
        out.extend_from_slice(&buf[..n]);
        let Some(at) = out.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&out[..at]).into_owned();
        let len: usize = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse().unwrap())
            })
            .unwrap();
        let body = &out[at + 4..];
        if body.len() >= len {
            return (head, body.to_vec());
        }
    }
}

async fn get_ok(addr: SocketAddr) -> Duration {
    let started = Instant::now();
    let response = reqwest::Client::new()
        .get(format!("http://{addr}/api/v0/chapters/"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.bytes().await.unwrap();
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_request_heads_are_dropped_while_others_are_answered() {
    let server = start(limits(400, 60_000, 1000, 100)).await;
    let addr = server.addr;
    let connected = Instant::now();
    let partial: Vec<TcpStream> = (0..50).map(|_| connect(addr, PARTIAL)).collect();
    // Held, not dropped, before the header timeout.
    tokio::time::sleep(Duration::from_millis(100)).await;
    for s in &partial {
        s.set_nonblocking(true).unwrap();
        let mut byte = [0u8; 1];
        let peeked = s.peek(&mut byte);
        assert!(
            matches!(&peeked, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
            "a partial connection is still open at 100 ms: {peeked:?}"
        );
        s.set_nonblocking(false).unwrap();
    }
    // Another client is answered at once while the partial ones are held.
    let took = get_ok(addr).await;
    assert!(took < Duration::from_secs(2), "answered in {took:?}");
    // The partial ones are closed after the header timeout, not before.
    let closed = tokio::task::spawn_blocking(move || {
        partial
            .into_iter()
            .map(|mut s| closed_within(&mut s, Duration::from_secs(5)).map(|_| connected.elapsed()))
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    assert!(
        closed.iter().all(Option::is_some),
        "every partial connection is closed: {closed:?}"
    );
    let first = closed.iter().flatten().min().unwrap();
    assert!(
        *first >= Duration::from_millis(400),
        "closed {first:?} after connecting"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_header_timeout_holds_when_it_is_longer_than_two_watchdog_ticks() {
    // Idle 2 s: the watchdog ticks every 500 ms, so the header timer (1.2 s) is
    // first looked at by the watchdog's ticks and armed only once it is near.
    let server = start(limits(1200, 2000, 1000, 100)).await;
    let addr = server.addr;
    let (partial, kept) = tokio::task::spawn_blocking(move || {
        let connected = Instant::now();
        let mut partial = connect(addr, PARTIAL);
        // The keep-alive connection's timer starts once its answer is written, after
        // the request was sent: measured from before it was, the close is never early.
        let asked = Instant::now();
        let mut kept = connect(addr, FULL);
        assert_eq!(read_response(&mut kept), "HTTP/1.1 200 OK");
        std::thread::scope(|scope| {
            let partial = scope.spawn(|| {
                closed_within(&mut partial, Duration::from_secs(5)).map(|_| connected.elapsed())
            });
            let kept = closed_within(&mut kept, Duration::from_secs(5)).map(|_| asked.elapsed());
            (partial.join().unwrap(), kept)
        })
    })
    .await
    .unwrap();
    for (what, closed) in [("a partial head", partial), ("an idle keep-alive", kept)] {
        let closed = closed.unwrap_or_else(|| panic!("{what} connection is closed"));
        assert!(
            closed >= Duration::from_millis(1200) && closed < Duration::from_millis(1900),
            "{what} connection closed after {closed:?}, not by the header timeout"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_keep_alive_connections_are_closed() {
    let server = start(limits(10_000, 300, 1000, 100)).await;
    let addr = server.addr;
    let (status, closed) = tokio::task::spawn_blocking(move || {
        let mut s = connect(addr, FULL);
        let status = read_response(&mut s);
        // Still usable right after the answer: keep-alive.
        s.write_all(FULL).unwrap();
        let again = read_response(&mut s);
        assert_eq!(again, status);
        (status, closed_within(&mut s, Duration::from_secs(5)))
    })
    .await
    .unwrap();
    assert_eq!(status, "HTTP/1.1 200 OK");
    let closed = closed.expect("the idle connection is closed");
    assert!(
        closed >= Duration::from_millis(250) && closed < Duration::from_secs(3),
        "closed after {closed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_caps_are_closed_at_once() {
    // Per address: 5 from 127.0.0.1.
    let server = start(limits(10_000, 60_000, 1000, 5)).await;
    let addr = server.addr;
    let held: Vec<TcpStream> = (0..5).map(|_| connect(addr, b"")).collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = tokio::task::spawn_blocking(move || {
        let mut extra = connect(addr, b"");
        closed_within(&mut extra, Duration::from_secs(2))
    })
    .await
    .unwrap();
    let refused = refused.expect("the sixth connection is closed");
    assert!(refused < Duration::from_secs(1), "closed after {refused:?}");
    // A slot given back is usable again.
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    get_ok(addr).await;

    // Overall: 3, whatever the address.
    let server = start(limits(10_000, 60_000, 3, 100)).await;
    let addr = server.addr;
    let _held: Vec<TcpStream> = (0..3).map(|_| connect(addr, b"")).collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = tokio::task::spawn_blocking(move || {
        let mut extra = connect(addr, FULL);
        closed_within(&mut extra, Duration::from_secs(2))
    })
    .await
    .unwrap();
    assert!(refused.is_some(), "the fourth connection is closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_idle_and_partial_connections_without_waiting_for_them() {
    let mut server = start(limits(30_000, 60_000, 1000, 100)).await;
    let addr = server.addr;
    let held = tokio::task::spawn_blocking(move || {
        let mut held: Vec<TcpStream> = (0..10).map(|_| connect(addr, PARTIAL)).collect();
        for _ in 0..10 {
            let mut s = connect(addr, FULL);
            read_response(&mut s);
            held.push(s);
        }
        held.extend((0..10).map(|_| connect(addr, b"")));
        held
    })
    .await
    .unwrap();
    server.stop.take().unwrap().send(()).unwrap();
    // Well within the header (30 s) and idle (60 s) timeouts: quiet connections
    // are closed once the listener has closed.
    tokio::time::timeout(Duration::from_secs(10), &mut server.task)
        .await
        .expect("the server stops")
        .unwrap()
        .unwrap();
    let closed = tokio::task::spawn_blocking(move || {
        held.into_iter()
            .map(|mut s| closed_within(&mut s, Duration::from_secs(2)))
            .filter(Option::is_some)
            .count()
    })
    .await
    .unwrap();
    assert_eq!(closed, 30, "every held connection is closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_alive_connection_is_told_to_close_on_its_next_answer() {
    let mut server = start(limits(30_000, 60_000, 1000, 100)).await;
    let addr = server.addr;
    let mut s = tokio::task::spawn_blocking(move || {
        let mut s = connect(addr, FULL);
        let (first, _) = read_answer(&mut s);
        assert!(first.starts_with("HTTP/1.1 200"), "{first}");
        assert!(
            !first.to_ascii_lowercase().contains("connection: close"),
            "{first}"
        );
        s
    })
    .await
    .unwrap();
    server.stop.take().unwrap().send(()).unwrap();
    // The kept-alive connection keeps asking (a connection quiet for a second once
    // the listener has closed is closed without an answer): each answer before the
    // listener closes keeps it open, the first one after tells it to go.
    let (head, body) = tokio::task::spawn_blocking(move || {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            s.write_all(FULL).unwrap();
            let (head, body) = read_answer(&mut s);
            if head.to_ascii_lowercase().contains("connection: close") {
                let closed = closed_within(&mut s, Duration::from_secs(5));
                assert!(
                    closed.is_some(),
                    "the connection is closed after the answer"
                );
                return (head, body);
            }
            assert!(Instant::now() < until, "never told to close");
            std::thread::sleep(Duration::from_millis(5));
        }
    })
    .await
    .unwrap();
    assert!(
        TcpStream::connect(addr).is_err(),
        "the listener is closed once a connection is told to close"
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, shared().file("api/v0/chapters/index.json"));
    tokio::time::timeout(Duration::from_secs(10), &mut server.task)
        .await
        .expect("the server stops")
        .unwrap()
        .unwrap();
}
