//! The warm-up of `roost serve`: what a fresh process's first answers would
//! otherwise pay for, done before `/readyz` says ready ([`super::health`]).
//!
//! Measured on a `nest` dataset (bench/history/2026-11.md, "A fresh replica's first second"),
//! a fresh process's first request of a kind cost several times the next one:
//!
//! 1. GraphQL's facts kept per dataset file ([`crate::graphql`]'s totals: one pass
//!    over every contribution row and more, 50–300 ms at `nest`), which the home page
//!    and every list of contributors read;
//! 2. a connection of the read pool per call running at once, each opened on first
//!    use: SQLite parses the dataset's schema (376 tables, views, indexes and
//!    full-text tables: ~7 ms a connection) and starts with an empty page cache and
//!    no prepared statement;
//! 3. the web frontend's page operations: each document parsed and checked, its
//!    statements prepared, its answer executed and kept (a page's first answer
//!    executed, the next ones from memory, so a burst of the same page at start all
//!    executed at once).
//!
//! So the warm-up computes the facts (through a connection of the pool), opens every
//! connection of the pool at once and runs on each the first page of every REST list
//! at a page size the tree does not hold (the live path: its statements prepared, the
//! counts of whole lists kept), a `q` search of each list that has one and a search of
//! each `/idx/` index, then runs the frontend's page operations (their sample
//! variables, as the explorer's examples: `tests/graphql/pages/`) once per response
//! media type. A step that fails is logged and skipped: the warm-up never stops the
//! shim, and readiness then follows the usual checks. Each step's time and the
//! process's resident memory after it are logged at debug level (`roost::start`).
//!
//! Then it follows the dataset file: a file `roost db import` put in place is warmed
//! within about a second, its facts, one connection (the other permits of the pool
//! left to the requests) and the page operations, without readiness (every replica
//! of a deployment replaces its dataset at about the same time). Requests that see the new
//! file before that are answered as a fresh process's are: the read pool switches to
//! a new file at the first call that sees it.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use rusqlite::Connection;

use super::AppState;
use crate::graphql::{Operation, Service};
use crate::store::FileId;

/// `roost_warmup_seconds`: how long the last warm-up took.
pub const WARMUP_SECONDS: &str = "roost_warmup_seconds";

/// How often the dataset file is looked at for a replacement to warm.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// How long a connection's warm-up waits for the others' to have opened theirs, so
/// that each opens its own (the pool hands an idle connection to the next call).
const MEET_WITHIN: Duration = Duration::from_secs(5);

/// The warm-up of one shim: its state and its GraphQL routes, made without their
/// facts ([`super::app_warming`]).
pub struct Warmup {
    state: AppState,
    graphql: Arc<Service>,
}

/// What one warm-up did.
#[derive(Debug, Default)]
struct Warmed {
    /// Connections of the read pool opened and warmed.
    connections: usize,
    /// Page operations answered (each media type counted).
    operations: usize,
    /// The steps that failed, each with its cause.
    failed: Vec<String>,
}

impl Warmup {
    pub fn new(state: AppState, graphql: Arc<Service>) -> Warmup {
        Warmup { state, graphql }
    }

    /// Warms, logs it (one line, with its duration), says ready, then warms each
    /// dataset file that replaces the one warmed.
    pub async fn run(self) {
        let started = Instant::now();
        let file = FileId::of(&self.state.config.db).ok();
        let warmed = self.warm(Connections::Every).await;
        let took = started.elapsed();
        metrics::gauge!(WARMUP_SECONDS).set(took.as_secs_f64());
        let millis = took.as_millis() as u64;
        if warmed.failed.is_empty() {
            tracing::info!(
                target: "roost::start",
                millis,
                connections = warmed.connections,
                operations = warmed.operations,
                "warmed up in {millis} ms ({} read connections, {} page operations): ready",
                warmed.connections,
                warmed.operations
            );
        } else {
            tracing::warn!(
                target: "roost::start",
                millis,
                connections = warmed.connections,
                operations = warmed.operations,
                "warm-up incomplete after {millis} ms ({}); ready as far as /readyz's checks go",
                warmed.failed.join("; ")
            );
        }
        self.state.set_warming(false);
        self.follow(file).await;
    }

    /// Each step in turn; a failed one is noted and the next one runs.
    async fn warm(&self, connections: Connections) -> Warmed {
        let mut warmed = Warmed::default();
        let started = Instant::now();
        if let Err(e) = self.graphql.build_facts().await {
            warmed
                .failed
                .push(format!("computing GraphQL's facts: {e:#}"));
        }
        step_done("GraphQL's facts", started);
        let started = Instant::now();
        match self.connections(connections).await {
            Ok(n) => warmed.connections = n,
            Err(e) => warmed.failed.push(format!("{e:#}")),
        }
        step_done("the read connections' queries", started);
        let started = Instant::now();
        let operations = operations();
        warmed.operations = self.graphql.warm(&operations).await;
        step_done("the page operations", started);
        warmed
    }

    /// Warms connections of the read pool ([`warm_connection`]): every one, opened
    /// at once, or one; how many were.
    async fn connections(&self, which: Connections) -> anyhow::Result<usize> {
        let permits = match which {
            Connections::Every => self.state.pool.permits(),
            Connections::One => 1,
        };
        let meeting = Arc::new(Meeting::new(permits));
        let today = self.state.today();
        let calls = (0..permits).map(|_| {
            let (meeting, today) = (Arc::clone(&meeting), today.clone());
            self.state.pool.run(move |reader| {
                let mut met = false;
                // Waiting while it holds its connection: the others open theirs.
                let opened = reader.with(|conn| {
                    warm_connection(conn, &today);
                    meeting.arrive(true);
                    met = true;
                });
                if !met {
                    meeting.arrive(false);
                }
                opened
            })
        });
        let mut warmed = 0;
        for call in futures_util::future::join_all(calls).await {
            call.and_then(|opened| opened)
                .context("opening a connection of the read pool")?;
            warmed += 1;
        }
        Ok(warmed)
    }

    /// Looks at the dataset file every second and warms each new one (`warmed`: the
    /// file warmed last).
    async fn follow(self, mut warmed: Option<FileId>) {
        let mut tick = tokio::time::interval(FOLLOW_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Ok(file) = FileId::of(&self.state.config.db) else {
                continue;
            };
            if warmed == Some(file) {
                continue;
            }
            let started = Instant::now();
            let done = self.warm(Connections::One).await;
            let took = started.elapsed();
            metrics::gauge!(WARMUP_SECONDS).set(took.as_secs_f64());
            let millis = took.as_millis() as u64;
            tracing::info!(
                target: "roost::dataset",
                millis,
                connections = done.connections,
                operations = done.operations,
                "warmed up the replaced dataset in {millis} ms{}",
                if done.failed.is_empty() {
                    String::new()
                } else {
                    format!(" (incomplete: {})", done.failed.join("; "))
                }
            );
            warmed = Some(file);
        }
    }
}

/// Logs (at debug level) a warm-up step's time and the process's resident memory
/// after it, where the system tells it (`/proc/self/status`).
fn step_done(step: &str, started: Instant) {
    if !tracing::enabled!(target: "roost::start", tracing::Level::DEBUG) {
        return;
    }
    let rss_kb = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
    tracing::debug!(
        target: "roost::start",
        step,
        millis = started.elapsed().as_millis() as u64,
        rss_kb,
        "a warm-up step done"
    );
}

/// Which connections of the read pool a warm-up warms.
#[derive(Debug, Clone, Copy)]
enum Connections {
    /// Every one, each opened at once (at start, before `/readyz` says ready: every
    /// permit of the pool is held meanwhile).
    Every,
    /// The one the next call is handed (the idle connection put back last), so that a
    /// running shim's requests keep the other permits while a replaced dataset is
    /// warmed.
    One,
}

/// The web frontend's page operations with their sample variables (the explorer's
/// examples, [`super::graphiql`]).
fn operations() -> Vec<Operation> {
    let variables: serde_json::Value =
        serde_json::from_str(super::graphiql::PAGES_JSON).unwrap_or_default();
    super::graphiql::PAGES
        .iter()
        .map(|(name, query)| Operation {
            query,
            variables: variables[name]["variables"].clone(),
        })
        .collect()
}

/// One read connection's first statements: the first page of every REST list at a
/// page size the tree does not hold and, where the list has one, a `q` search; a
/// search of every `/idx/` index. What fails is left to the requests that make it
/// fail, which report it.
fn warm_connection(conn: &Connection, today: &str) {
    let file = FileId::of_connection(conn);
    for spec in crate::catalog::LISTS {
        for raw in ["page_size=20", "page_size=20&q=a"] {
            if let Ok(query) = crate::tree::list_query(spec, Some(raw)) {
                let _ = crate::catalog::list_page_of(conn, file, spec, None, &query, today);
            }
        }
    }
    for index in crate::idx::INDEXES {
        let body = serde_json::json!({"indexName": index.name, "query": "a", "hitsPerPage": 10});
        if let Ok(request) = crate::idx::Request::from_json(body.to_string().as_bytes()) {
            let _ = crate::idx::search(conn, &request);
        }
    }
}

/// Calls that wait for one another, at most [`MEET_WITHIN`]: so that each of the
/// pool's calls holds its own connection.
struct Meeting {
    expected: usize,
    arrived: Mutex<usize>,
    all: Condvar,
}

impl Meeting {
    fn new(expected: usize) -> Meeting {
        Meeting {
            expected,
            arrived: Mutex::new(0),
            all: Condvar::new(),
        }
    }

    /// Counts this call and, with `wait`, waits until all have come or
    /// [`MEET_WITHIN`] passed.
    fn arrive(&self, wait: bool) {
        let mut arrived = self.arrived.lock().unwrap_or_else(PoisonError::into_inner);
        *arrived += 1;
        self.all.notify_all();
        if !wait {
            return;
        }
        let _ = self
            .all
            .wait_timeout_while(arrived, MEET_WITHIN, |n| *n < self.expected);
    }
}
