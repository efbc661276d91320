//! Prometheus metrics on a listener of their own (`--metrics-listen ADDR`, off by
//! default), so they are never public by accident: `GET /metrics` in the text
//! exposition format, rendered by `metrics-exporter-prometheus` from what the
//! `metrics` macros recorded. Every metric is described ([`METRICS`]: its `# HELP`
//! line), and a scrape passes `promtool check metrics` (`.ci/steps/45-metrics.sh`).
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `roost_build_info` | `version`, `commit` | always 1: the build that answers |
//! | `roost_http_requests_total` | `class`, `status` | requests answered |
//! | `roost_http_request_duration_seconds` | `class` | time to the response head |
//! | `roost_http_requests_in_flight` | | requests received and not yet answered in full |
//! | `roost_open_connections` | | client connections open |
//! | `roost_limiter_rejections_total` | `kind` (`key`, `failed_auth`, `graphql`) | 429s of the limiters |
//! | `roost_read_pool_wait_seconds` | | wait for a read-pool permit |
//! | `roost_redis_errors_total` | | limit checks Redis did not answer |
//! | `roost_redis_call_seconds` | | duration of a limit check in Redis |
//! | `roost_redis_degraded` | | 1 while limits are per process because Redis is down |
//! | `roost_dataset_age_seconds`, `roost_dataset_generation` | | the dataset file's age, and its modification time (Unix seconds) as its generation id |
//! | `roost_tree_age_seconds`, `roost_tree_generation` | | the live tree's age, and the time its generation was written (Unix seconds, from its folder's name) as its id |
//! | `roost_response_cache_hits_total`, `roost_response_cache_misses_total`, `roost_response_cache_bytes` | `cache` (`tree_file`, `live`, `graphql`) | responses answered from memory, look-ups that were not, and bytes held |
//! | `roost_credential_store_available` | | 1 while the credential store answers (production, staging) |
//! | `roost_read_pool_connections_opened_total` | | connections to the dataset the read pool opened |
//! | `roost_graphql_facts_builds_total` | | GraphQL's facts computed (once per dataset file) |
//! | `roost_warmup_seconds` | | how long the last warm-up took ([`super::warm`]) |
//! | `process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds`, `process_start_time_seconds`, `process_threads` | | the process, read from `/proc` at each scrape (`metrics-process`) |
//!
//! `class` is `tree_file` (a REST answer from the pre-rendered tree, from memory or
//! read just now), `live_rest` (a REST answer from the dataset, or a REST error),
//! `graphql`, or `other` (health, unknown paths).

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use metrics::Unit;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::AppState;

/// Which part of the shim answered, for the `class` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteClass {
    TreeFile,
    LiveRest,
    Graphql,
    Other,
}

impl RouteClass {
    pub fn as_str(self) -> &'static str {
        match self {
            RouteClass::TreeFile => "tree_file",
            RouteClass::LiveRest => "live_rest",
            RouteClass::Graphql => "graphql",
            RouteClass::Other => "other",
        }
    }

    /// The class of a path when the handler did not say (GraphQL, health, 404s).
    pub fn of_path(path: &str) -> RouteClass {
        if path == "/graphql" || path.starts_with("/graphql/") {
            RouteClass::Graphql
        } else if path == "/api/v0" || path.starts_with("/api/v0/") {
            RouteClass::LiveRest
        } else {
            RouteClass::Other
        }
    }
}

/// Latency buckets (seconds): tree files answer in well under a millisecond, live
/// answers and GraphQL in milliseconds to seconds.
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// `roost_open_connections`, kept by the accept loop ([`super::conn`]).
pub const OPEN_CONNECTIONS: &str = "roost_open_connections";
/// `roost_http_requests_in_flight`, kept by each connection ([`super::conn`]).
pub const IN_FLIGHT: &str = "roost_http_requests_in_flight";

/// Which kind of Prometheus metric a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    Counter,
    Gauge,
    Histogram,
}

/// Every metric roost records, with its kind, unit and help text (the `# HELP` line).
pub const METRICS: &[(&str, MetricKind, Option<Unit>, &str)] = &[
    ("roost_build_info", MetricKind::Gauge, None, "The roost build serving: always 1, its version and commit as labels."),
    ("roost_http_requests_total", MetricKind::Counter, None, "Requests answered, by route class (tree_file, live_rest, graphql, other) and status."),
    ("roost_http_request_duration_seconds", MetricKind::Histogram, Some(Unit::Seconds), "Time from a request's arrival to its response head, by route class."),
    (IN_FLIGHT, MetricKind::Gauge, None, "Requests received and not yet answered in full."),
    (OPEN_CONNECTIONS, MetricKind::Gauge, None, "Client connections open on the public listener."),
    ("roost_limiter_rejections_total", MetricKind::Counter, None, "Requests refused with 429 by a rate limiter, by limiter (key, failed_auth, graphql)."),
    ("roost_read_pool_wait_seconds", MetricKind::Histogram, Some(Unit::Seconds), "Time a call waited for a permit of the read pool over the dataset."),
    ("roost_redis_errors_total", MetricKind::Counter, None, "Rate-limit checks that Redis did not answer in time (answered from the process instead)."),
    ("roost_redis_call_seconds", MetricKind::Histogram, Some(Unit::Seconds), "Duration of one rate-limit check in Redis."),
    ("roost_redis_degraded", MetricKind::Gauge, None, "1 while rate limits are kept per process because Redis does not answer, else 0."),
    ("roost_dataset_age_seconds", MetricKind::Gauge, Some(Unit::Seconds), "Seconds since the dataset file was last replaced."),
    ("roost_dataset_generation", MetricKind::Gauge, None, "The dataset file's modification time (Unix seconds), an id of the dataset served."),
    ("roost_tree_age_seconds", MetricKind::Gauge, Some(Unit::Seconds), "Seconds since the live tree's generation was written."),
    ("roost_tree_generation", MetricKind::Gauge, None, "When the live tree's generation was written (Unix seconds), an id of the tree served."),
    ("roost_response_cache_hits_total", MetricKind::Counter, None, "Responses answered from memory, by cache (tree_file, live, graphql)."),
    ("roost_response_cache_misses_total", MetricKind::Counter, None, "Look-ups of a cache that had no answer, by cache (tree_file, live, graphql)."),
    ("roost_response_cache_bytes", MetricKind::Gauge, Some(Unit::Bytes), "Bytes of responses held in memory, by cache (tree_file, live, graphql)."),
    ("roost_credential_store_available", MetricKind::Gauge, None, "1 while the credential store (auth.db) answers, 0 while it is missing or unreadable (production and staging only)."),
    (crate::pool::CONNECTIONS_OPENED, MetricKind::Counter, None, "Connections to the dataset the read pool opened (each parses the dataset's schema); the warm-up opens one per permit."),
    (crate::graphql::FACTS_BUILDS, MetricKind::Counter, None, "Times GraphQL's facts kept per dataset file (contribution sums, ...) were computed: once per dataset file."),
    (super::warm::WARMUP_SECONDS, MetricKind::Gauge, Some(Unit::Seconds), "How long the last warm-up took (before /readyz said ready, or after a dataset was replaced)."),
];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
static PROCESS: OnceLock<metrics_process::Collector> = OnceLock::new();

/// The process's recorder, installed on first use (one per process: the `metrics`
/// macros record into a global).
pub fn handle() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        let builder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".to_string()), BUCKETS)
            .unwrap_or_else(|_| PrometheusBuilder::new());
        let recorder = builder.build_recorder();
        let handle = recorder.handle();
        // Refused only when another recorder was installed first; this handle then
        // renders what it has (nothing), and the shim still serves.
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("a metrics recorder was already installed; /metrics stays empty");
        }
        describe();
        handle
    })
}

/// Gives every metric its help text and records the ones known from the start (a
/// gauge is rendered once it has a value; a counter or histogram once it is used).
fn describe() {
    for &(name, kind, unit, help) in METRICS {
        match (kind, unit) {
            (MetricKind::Counter, Some(unit)) => metrics::describe_counter!(name, unit, help),
            (MetricKind::Counter, None) => metrics::describe_counter!(name, help),
            (MetricKind::Gauge, Some(unit)) => metrics::describe_gauge!(name, unit, help),
            (MetricKind::Gauge, None) => metrics::describe_gauge!(name, help),
            (MetricKind::Histogram, Some(unit)) => metrics::describe_histogram!(name, unit, help),
            (MetricKind::Histogram, None) => metrics::describe_histogram!(name, help),
        }
    }
    let version = env!("CARGO_PKG_VERSION");
    let commit = env!("ROOST_COMMIT");
    metrics::gauge!("roost_build_info", "version" => version, "commit" => commit).set(1.0);
    // Kept from the first connection on; zero until then.
    metrics::gauge!(OPEN_CONNECTIONS).increment(0.0);
    metrics::gauge!(IN_FLIGHT).increment(0.0);
    process().describe();
}

/// The statuses whose request counters are kept ready ([`record_request`]); others
/// are looked up by name each time.
const STATUSES: [u16; 12] = [200, 304, 308, 400, 401, 403, 404, 405, 413, 429, 500, 503];
const CLASSES: [RouteClass; 4] = [
    RouteClass::TreeFile,
    RouteClass::LiveRest,
    RouteClass::Graphql,
    RouteClass::Other,
];

/// The handles every request records into, each registered at its first use (a
/// series is rendered once used, as with the macros): the `metrics` macros build a
/// key (name and labels) and look it up in the recorder's registry at each call,
/// which a tree file answered from memory paid on every request.
struct PerRequest {
    /// `roost_http_requests_total`, by class and then by [`STATUSES`].
    requests: [[OnceLock<metrics::Counter>; STATUSES.len()]; CLASSES.len()],
    /// `roost_http_request_duration_seconds`, by class.
    duration: [OnceLock<metrics::Histogram>; CLASSES.len()],
    in_flight: OnceLock<metrics::Gauge>,
}

static PER_REQUEST: PerRequest = PerRequest {
    requests: [const { [const { OnceLock::new() }; STATUSES.len()] }; CLASSES.len()],
    duration: [const { OnceLock::new() }; CLASSES.len()],
    in_flight: OnceLock::new(),
};

/// The per-request handles once the process's recorder is installed ([`handle`]);
/// `None` before (nothing records then: there is no recorder).
fn per_request() -> Option<&'static PerRequest> {
    HANDLE.get().map(|_| &PER_REQUEST)
}

/// Counts an answered request by class and status, and its time to the response
/// head.
pub fn record_request(class: RouteClass, status: u16, elapsed: Duration) {
    let Some(ready) = per_request() else {
        return;
    };
    let c = class as usize;
    let counter = |status: u16| {
        metrics::counter!(
            "roost_http_requests_total",
            "class" => class.as_str(),
            "status" => super::status_label(status)
        )
    };
    match STATUSES.iter().position(|&s| s == status) {
        Some(s) => ready.requests[c][s]
            .get_or_init(|| counter(status))
            .increment(1),
        None => counter(status).increment(1),
    }
    ready.duration[c]
        .get_or_init(|| {
            metrics::histogram!("roost_http_request_duration_seconds", "class" => class.as_str())
        })
        .record(elapsed.as_secs_f64());
}

/// `roost_http_requests_in_flight` up by one (a request received) or down by one
/// (answered in full).
pub fn in_flight(up: bool) {
    if let Some(ready) = per_request() {
        let gauge = ready.in_flight.get_or_init(|| metrics::gauge!(IN_FLIGHT));
        if up {
            gauge.increment(1.0);
        } else {
            gauge.decrement(1.0);
        }
    }
}

/// The process metrics (`process_*`), read from `/proc` at each scrape.
fn process() -> &'static metrics_process::Collector {
    PROCESS.get_or_init(metrics_process::Collector::default)
}

/// The routes of the metrics listener.
pub fn router(state: AppState) -> Router {
    // Histograms are drained into their buckets on upkeep; every few seconds.
    let _ = handle();
    Router::new()
        .route("/metrics", get(scrape))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found: try /metrics\n") })
        .with_state(state)
}

/// Runs the recorder's upkeep every `every` (spawned by [`super::run_metrics`]).
pub async fn upkeep(every: Duration) {
    let mut tick = tokio::time::interval(every);
    loop {
        tick.tick().await;
        handle().run_upkeep();
    }
}

async fn scrape(State(state): State<AppState>) -> Response {
    process().collect();
    record_ages(&state);
    for (cache, stats) in state.cache_stats() {
        metrics::counter!("roost_response_cache_hits_total", "cache" => cache).absolute(stats.hits);
        metrics::counter!("roost_response_cache_misses_total", "cache" => cache)
            .absolute(stats.misses);
        metrics::gauge!("roost_response_cache_bytes", "cache" => cache).set(stats.bytes as f64);
    }
    let body = handle().render();
    let mut r = body.into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    r
}

/// The gauges read at scrape time: the dataset's and the tree's age and generation.
fn record_ages(state: &AppState) {
    let now = unix_seconds(SystemTime::now());
    if let Some(modified) = std::fs::metadata(&state.config().db)
        .and_then(|m| m.modified())
        .ok()
        .map(unix_seconds)
    {
        metrics::gauge!("roost_dataset_generation").set(modified);
        metrics::gauge!("roost_dataset_age_seconds").set((now - modified).max(0.0));
    }
    if let Some(written) = state.config().site.as_deref().and_then(tree_generation) {
        metrics::gauge!("roost_tree_generation").set(written);
        metrics::gauge!("roost_tree_age_seconds").set((now - written).max(0.0));
    }
    let degraded = state.redis().is_some_and(|r| r.degraded());
    metrics::gauge!("roost_redis_degraded").set(if degraded { 1.0 } else { 0.0 });
    if let Some(available) = state.credential_store_available() {
        metrics::gauge!("roost_credential_store_available").set(if available { 1.0 } else { 0.0 });
    }
}

fn unix_seconds(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// When the live generation was written: its folder (`.<site>.g<nanos>-<pid>`, the
/// `site` symlink's target) names it; a plain folder's modification time otherwise.
fn tree_generation(site: &Path) -> Option<f64> {
    if let Ok(target) = std::fs::read_link(site) {
        let name = target.file_name()?.to_string_lossy().into_owned();
        let stamp = name.rsplit(".g").next()?.split('-').next()?;
        if let Ok(nanos) = stamp.parse::<u128>() {
            return Some(nanos as f64 / 1e9);
        }
    }
    std::fs::metadata(site)
        .and_then(|m| m.modified())
        .ok()
        .map(unix_seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_by_path() {
        assert_eq!(RouteClass::of_path("/graphql/"), RouteClass::Graphql);
        assert_eq!(RouteClass::of_path("/graphql"), RouteClass::Graphql);
        assert_eq!(RouteClass::of_path("/graphqlx"), RouteClass::Other);
        assert_eq!(
            RouteClass::of_path("/api/v0/chapters/"),
            RouteClass::LiveRest
        );
        assert_eq!(RouteClass::of_path("/readyz"), RouteClass::Other);
    }

    #[test]
    fn generation_stamps_are_read_from_the_folder_name() {
        let dir = tempfile::tempdir().unwrap();
        let gen = dir.path().join(".site.g1763890000123456789-42");
        std::fs::create_dir(&gen).unwrap();
        let site = dir.path().join("site");
        std::os::unix::fs::symlink(".site.g1763890000123456789-42", &site).unwrap();
        let t = tree_generation(&site).unwrap();
        assert!((t - 1_763_890_000.123).abs() < 0.01, "{t}");
    }
}
