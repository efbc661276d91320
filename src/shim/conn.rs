//! Connections: the accept loop of `roost serve`, with the limits a public server
//! needs against slow and idle clients (docs/architecture.md, "The shim").
//!
//! - **Header read timeout**: a client that has not sent a whole request head this
//!   long after the connection became ready for one is disconnected (hyper's own
//!   check: it covers a slow first request and an idle keep-alive connection alike;
//!   on a timer of this module's, [`HeadTimer`], that arms a timer of the runtime
//!   only when the deadline is near).
//! - **Idle timeout**: a connection with no request in progress and no byte read or
//!   written for this long is closed (HTTP/1 keep-alive and HTTP/2 alike), at the
//!   first tick of its watchdog after that.
//! - **Connection caps**: at most `max_connections` open at once, and at most
//!   `max_connections_per_address` from one client address (the TCP peer); a
//!   connection over either cap is closed at once, never queued.
//! - **Shutdown** (after `roost serve`'s drain period, docs/architecture.md): the
//!   listener closes and no connection is cut between two requests. An HTTP/1
//!   connection answers its next request (or the one in progress) with
//!   `Connection: close` and is then closed; one that stays quiet (no byte read or
//!   written) for [`CLOSE_QUIET`] with no request in progress is closed, as is one
//!   quiet that long already. An HTTP/2 connection is sent GOAWAY: its streams in
//!   progress finish, the client opens no new one. The server returns once every
//!   connection is closed (`roost serve` waits for that at most its grace period).
//!
//! Every connection goes through [`JsonErrorIo`](super::net::JsonErrorIo), so hyper's
//! own error answers are JSON like the rest.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{header, HeaderValue, Request, Version};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

use super::net::{is_connection_error, JsonErrorIo};

/// After the listener closes, a connection with no request in progress that has
/// moved no byte for this long is closed (a busy keep-alive client sends its next
/// request well within it, and gets `Connection: close` on the answer).
pub const CLOSE_QUIET: Duration = Duration::from_secs(1);

/// The connection limits of `roost serve` (`--header-timeout`, `--idle-timeout`,
/// `--max-connections`, `--max-connections-per-address`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub max_connections_per_address: usize,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: default_max_connections(),
            max_connections_per_address: 64,
        }
    }
}

/// Room for the connections within the process's file-descriptor limit: the soft
/// `RLIMIT_NOFILE` less 64 for the dataset, the tree and the logs, at most 10,000.
pub fn default_max_connections() -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3).map(str::to_string))
        })
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1024);
    soft.saturating_sub(64).clamp(16, 10_000)
}

/// Open connections, overall and per client address.
#[derive(Default)]
struct Registry {
    per_address: Mutex<HashMap<IpAddr, usize>>,
    total: AtomicUsize,
    /// Signalled when the last connection closes.
    drained: Notify,
}

/// A slot in the [`Registry`], given back when the connection closes.
struct Slot {
    registry: Arc<Registry>,
    ip: IpAddr,
}

impl Registry {
    fn admit(self: &Arc<Self>, ip: IpAddr, limits: &ConnLimits) -> Option<Slot> {
        let mut map = self
            .per_address
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let here = map.get(&ip).copied().unwrap_or(0);
        if here >= limits.max_connections_per_address
            || self.total.load(Ordering::Acquire) >= limits.max_connections
        {
            return None;
        }
        map.insert(ip, here + 1);
        self.total.fetch_add(1, Ordering::AcqRel);
        ::metrics::gauge!(super::metrics::OPEN_CONNECTIONS).increment(1.0);
        Some(Slot {
            registry: self.clone(),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut map = self
            .registry
            .per_address
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(n) = map.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
        drop(map);
        ::metrics::gauge!(super::metrics::OPEN_CONNECTIONS).decrement(1.0);
        if self.registry.total.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.registry.drained.notify_waiters();
        }
    }
}

/// What a connection's watchdog reads: requests in progress, whether bytes moved
/// since its last tick, and the protocol.
struct Activity {
    in_flight: AtomicUsize,
    /// Set by every read or write and by the end of every answer; taken by the
    /// watchdog's tick, which keeps the time it last found it set. A flag rather than
    /// a time read at each read and write: the clock is read once a tick, not two or
    /// three times a request.
    moved: AtomicBool,
    /// Set by the first HTTP/2 request (GOAWAY rather than `Connection: close`).
    http2: AtomicBool,
}

impl Activity {
    fn new() -> Arc<Activity> {
        Arc::new(Activity {
            in_flight: AtomicUsize::new(0),
            moved: AtomicBool::new(false),
            http2: AtomicBool::new(false),
        })
    }

    fn touch(&self) {
        self.moved.store(true, Ordering::Relaxed);
    }

    /// Whether bytes moved since the last call.
    fn take_moved(&self) -> bool {
        self.moved.swap(false, Ordering::Relaxed)
    }

    fn busy(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) > 0
    }
}

/// The watchdog's record of a connection's quiet: the first tick that found bytes
/// moved since the one before. Bytes moved after that tick's predecessor, so the
/// connection has been quiet at least as long as this says (never less: an idle
/// connection is closed up to one tick later than its last byte plus the timeout,
/// never earlier).
struct Quiet {
    since: Instant,
}

impl Quiet {
    fn new() -> Quiet {
        Quiet {
            since: Instant::now(),
        }
    }

    /// At a tick: how long the connection has been quiet, at least.
    fn at_tick(&mut self, activity: &Activity) -> Duration {
        let now = Instant::now();
        if activity.take_moved() {
            self.since = now;
        }
        now.saturating_duration_since(self.since)
    }
}

/// A stream that records when bytes last moved.
struct Tracked<S> {
    inner: S,
    activity: Arc<Activity>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Tracked<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        poll
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tracked<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// How often a connection's watchdog looks at it: a quarter of the idle timeout,
/// between 5 ms and 1 s.
fn watchdog_tick(limits: &ConnLimits) -> Duration {
    (limits.idle_timeout / 4).clamp(Duration::from_millis(5), Duration::from_secs(1))
}

/// hyper's timer for HTTP/1 connections, which hyper uses for the header read
/// timeout alone: it arms one for every request head a connection waits for, and
/// drops it once the head is read, nearly always long before its deadline. A
/// [`HeadSleep`] arms no timer of the runtime (an allocation and two updates of its
/// timer wheel under a lock, per request) until its deadline is near: until then
/// the connection's watchdog, which wakes the connection's task every tick and
/// polls the connection first, has hyper poll it again within a tick. Near its
/// deadline (two ticks) it waits on a timer of the runtime, so it fires when the
/// runtime's own timer would have.
#[derive(Debug, Clone, Copy)]
struct HeadTimer {
    /// The connections' watchdog tick ([`watchdog_tick`]).
    tick: Duration,
}

impl hyper::rt::Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(HeadSleep {
            deadline,
            near: self.tick * 2,
            timer: None,
        })
    }
}

/// A sleep of [`HeadTimer`]: only ever polled by a connection that its watchdog
/// wakes every tick (see there).
struct HeadSleep {
    deadline: Instant,
    /// How near the deadline must be for the runtime's timer to be armed.
    near: Duration,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Future for HeadSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(timer) = &mut self.timer {
            return timer.as_mut().poll(cx);
        }
        let now = Instant::now();
        if now >= self.deadline {
            return Poll::Ready(());
        }
        if self.deadline - now > self.near {
            // The watchdog polls the connection, and so this, again within a tick.
            return Poll::Pending;
        }
        let mut timer = Box::pin(tokio::time::sleep_until(self.deadline.into()));
        let poll = timer.as_mut().poll(cx);
        self.timer = Some(timer);
        poll
    }
}

impl hyper::rt::Sleep for HeadSleep {}

/// Counts a request as in progress until its response body has been sent (or
/// dropped).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: &Arc<Activity>) -> InFlight {
        activity.in_flight.fetch_add(1, Ordering::AcqRel);
        super::metrics::in_flight(true);
        InFlight(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
        super::metrics::in_flight(false);
        self.0.touch();
    }
}

/// A response body that holds its request's [`InFlight`] until it is done; hyper
/// sends it as it is (no second box around the response's body).
struct GuardedBody {
    inner: Body,
    _guard: InFlight,
}

impl hyper::body::Body for GuardedBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Serves `app` on `listener` until `shutdown` completes; then closes the listener,
/// closes every connection between two requests (see the module doc) and returns
/// once all are closed.
pub async fn serve(
    listener: TcpListener,
    app: super::App,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let registry = Arc::new(Registry::default());
    let (stop_tx, stop_rx) = watch::channel(false);
    // Set before the listener closes: whoever sees it closed gets `Connection: close`.
    let closing = Arc::new(AtomicBool::new(false));
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(HeadTimer {
            tick: watchdog_tick(&limits),
        })
        .header_read_timeout(limits.header_timeout);
    builder.http2().timer(TokioTimer::new());
    let builder = Arc::new(builder);
    tokio::pin!(shutdown);
    let mut refused_logged = Instant::now() - Duration::from_secs(60);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    // Out of file descriptors and the like: pause instead of spinning.
                    tracing::error!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let Some(slot) = registry.admit(peer.ip(), &limits) else {
            if refused_logged.elapsed() >= Duration::from_secs(10) {
                refused_logged = Instant::now();
                tracing::warn!(
                    client = %peer.ip(),
                    open = registry.total.load(Ordering::Relaxed),
                    "connection refused: over the connection limit (logged at most every 10 s)"
                );
            }
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            peer,
            app.clone(),
            builder.clone(),
            limits,
            Stopping {
                signal: stop_rx.clone(),
                closing: closing.clone(),
            },
            slot,
        ));
    }
    // The listener first: a client told to close finds it closed.
    drop(listener);
    closing.store(true, Ordering::Release);
    let _ = stop_tx.send(true);
    // Wait for the connections still answering a request.
    loop {
        let drained = registry.drained.notified();
        if registry.total.load(Ordering::Acquire) == 0 {
            break;
        }
        drained.await;
    }
    Ok(())
}

/// What the requests of one connection share.
struct PerConnection {
    app: super::App,
    /// Whether the listener has closed (see [`Stopping`]).
    closing: Arc<AtomicBool>,
    peer: SocketAddr,
}

/// What a connection learns of the server's shutdown: the signal that it began, and
/// (for its answers) whether the listener has closed.
struct Stopping {
    signal: watch::Receiver<bool>,
    closing: Arc<AtomicBool>,
}

// Long because one connection's life (tracking, the service, the idle and header
// timers, the drain on shutdown) shares the connection's state across its stages.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: super::App,
    builder: Arc<hyper_util::server::conn::auto::Builder<TokioExecutor>>,
    limits: ConnLimits,
    stopping_at: Stopping,
    _slot: Slot,
) {
    let Stopping {
        signal: mut stop,
        closing,
    } = stopping_at;
    let activity = Activity::new();
    let io = TokioIo::new(JsonErrorIo::new(Tracked {
        inner: stream,
        activity: activity.clone(),
    }));
    let service = {
        let activity = activity.clone();
        // Each request takes a reference of this connection's, not of the server's
        // state, router and flag, whose counts every worker would change at once.
        let shared = Arc::new(PerConnection { app, closing, peer });
        hyper::service::service_fn(move |req: Request<Incoming>| {
            let guard = InFlight::start(&activity);
            let http1 = req.version() < Version::HTTP_2;
            if !http1 {
                activity.http2.store(true, Ordering::Release);
            }
            let shared = shared.clone();
            async move {
                // The front service called as itself, not as a `tower::Service`: no
                // clone of it and no boxed future a request. The peer is handed over
                // with the request rather than put in its extensions.
                let mut response = shared.app.answer(req, Some(shared.peer)).await;
                // Once the listener has closed, HTTP/1 clients are told to go: hyper
                // closes the connection after this answer.
                if http1 && shared.closing.load(Ordering::Acquire) {
                    response
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                }
                Ok::<_, Infallible>(response.map(|inner| GuardedBody {
                    inner,
                    _guard: guard,
                }))
            }
        })
    };
    let conn = builder.serve_connection_with_upgrades(io, service);
    tokio::pin!(conn);
    // Also what has hyper poll its header read timer ([`HeadTimer`]) every tick.
    let tick = watchdog_tick(&limits);
    let mut watchdog = tokio::time::interval(tick);
    watchdog.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut stopping = false;
    let mut goaway = false;
    let mut quiet = Quiet::new();
    loop {
        tokio::select! {
            // The connection first: it is what nearly every wake-up is for.
            biased;
            _ = conn.as_mut() => return,
            changed = stop.wait_for(|stop| *stop), if !stopping => {
                if changed.is_err() {
                    return;
                }
                stopping = true;
                watchdog = tokio::time::interval(tick.min(Duration::from_millis(50)));
                watchdog.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            }
            _ = watchdog.tick() => {
                if stopping && !goaway && activity.http2.load(Ordering::Acquire) {
                    // GOAWAY: streams in progress finish, no new one is accepted.
                    goaway = true;
                    conn.as_mut().graceful_shutdown();
                }
                let quiet_for = quiet.at_tick(&activity);
                if activity.busy() {
                    continue;
                }
                if (stopping && quiet_for >= CLOSE_QUIET) || quiet_for >= limits.idle_timeout {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::rt::Timer as _;

    fn poll_once(sleep: &mut Pin<Box<dyn hyper::rt::Sleep>>) -> Poll<()> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        sleep.as_mut().poll(&mut cx)
    }

    #[tokio::test]
    async fn a_far_header_deadline_is_looked_at_when_polled_and_a_near_one_fires_by_itself() {
        let timer = HeadTimer {
            tick: Duration::from_millis(20),
        };
        // Over two ticks away: pending without a timer, ready once polled after it.
        let mut far = timer.sleep(Duration::from_millis(60));
        assert!(poll_once(&mut far).is_pending());
        std::thread::sleep(Duration::from_millis(70));
        assert!(poll_once(&mut far).is_ready());
        // Near: the runtime's timer wakes the task that waits.
        let started = Instant::now();
        timer.sleep(Duration::from_millis(30)).await;
        assert!(started.elapsed() >= Duration::from_millis(30));
    }

    #[test]
    fn quiet_is_counted_from_the_first_tick_that_saw_bytes_move() {
        let activity = Activity::new();
        let mut quiet = Quiet::new();
        std::thread::sleep(Duration::from_millis(20));
        assert!(quiet.at_tick(&activity) >= Duration::from_millis(20));
        activity.touch();
        assert!(quiet.at_tick(&activity) < Duration::from_millis(20));
        std::thread::sleep(Duration::from_millis(20));
        // Nothing moved since: quiet since the tick that saw the last bytes.
        assert!(quiet.at_tick(&activity) >= Duration::from_millis(20));
    }
}
