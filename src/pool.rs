//! The one read pool over the dataset, shared by the shim's live REST answers and by
//! GraphQL, and the bounded gate in front of tokio's blocking threads that it and the
//! credential store ([`crate::credentials`]) run their SQLite work behind.
//!
//! - [`Gate`]: at most N blocking tasks at a time. Waiters are served first come, first
//!   served (tokio's semaphore is FIFO), so a burst of slow queries queues in order
//!   instead of starving the runtime, and a late caller never overtakes an early one.
//!   The permit moves into the blocking task: a caller that gives up (a client gone,
//!   a timeout) does not free a slot while its query still runs.
//! - [`ReadPool`]: read-only connections to the dataset, reused across calls and taken
//!   only inside one of its gate's tasks ([`Reader`]), so no more are open than the
//!   gate has permits (plus those finishing on a replaced file). Before each checkout
//!   the file at the dataset path is looked at (device, inode, size, modification
//!   time): once `roost db import` or `db init --force` has renamed a new file over it,
//!   the idle connections are dropped and the new file is opened, without a restart. A
//!   call that already holds a connection finishes on the old file.
//! - A panic inside a call is that call's error ([`PoolError::Task`]). A lock poisoned
//!   by it is recovered, never propagated: the idle list is whole at every step.
//! - [`Reader::with_deadline`]: SQLite interrupts the call's statements once the
//!   deadline has passed (GraphQL's time limit).
//! - [`Share`]: fairness. One request (a GraphQL query of many aggregates) may hold at
//!   most its share of the pool's permits at once; its further calls wait on the
//!   share, outside the gate's queue, so calls of other requests are not queued behind
//!   all of them and light queries keep answering while heavy ones run.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rusqlite::config::DbConfig;
use rusqlite::Connection;
use tokio::sync::Semaphore;

use crate::store::{self, FileId};

/// `roost_read_pool_connections_opened_total`: connections the read pool opened
/// (`roost serve`'s metrics).
pub const CONNECTIONS_OPENED: &str = "roost_read_pool_connections_opened_total";

/// SQLite virtual-machine steps between two looks at a call's deadline.
const PROGRESS_STEPS: i32 = 10_000;

/// Mebibytes of the dataset's pages each connection keeps by default (SQLite's page
/// cache): its own default. The pages also stay in the system's file cache, which
/// the connections share, so a page a connection dropped costs a read from memory;
/// a larger cache per connection is memory held per connection for little gain
/// (bench/history/2026-11.md, "`serve` at `10x` under 150 MB": 16 MB each held 63 MB
/// of the four connections at `10x`).
pub const DEFAULT_PAGE_CACHE_MB: u32 = 2;

/// A failed call through a [`Gate`] or a [`ReadPool`].
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    #[error("dataset {} is not readable ({source}); create it with `roost db init`", .path.display())]
    Missing {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("opening the dataset {}", .path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("setting the deadline of a dataset call")]
    Deadline(#[source] rusqlite::Error),
    #[error("the blocking pool is shut down")]
    Closed,
    #[error("a blocking task failed")]
    Task(#[source] tokio::task::JoinError),
}

/// A bounded, first-come first-served gate in front of `spawn_blocking`.
#[derive(Debug, Clone)]
pub struct Gate {
    semaphore: Arc<Semaphore>,
    permits: usize,
}

impl Gate {
    /// At most `permits` tasks at a time (at least one).
    pub fn new(permits: usize) -> Gate {
        let permits = permits.max(1);
        Gate {
            semaphore: Arc::new(Semaphore::new(permits)),
            permits,
        }
    }

    pub fn permits(&self) -> usize {
        self.permits
    }

    /// Runs `f` on tokio's blocking threads once a permit is free.
    pub async fn run<T, F>(&self, f: F) -> Result<T, PoolError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let waiting = Instant::now();
        let permit = Arc::clone(&self.semaphore)
            .acquire_owned()
            .await
            .map_err(|_| PoolError::Closed)?;
        metrics::histogram!("roost_read_pool_wait_seconds").record(waiting.elapsed().as_secs_f64());
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            f()
        })
        .await
        .map_err(PoolError::Task)
    }
}

/// Idle connections, all opened on one `K` (a file identity), at most `max` of them.
/// A lock poisoned by a panic elsewhere is recovered: the list is whole at every step.
#[derive(Debug)]
pub struct Idle<K> {
    max: usize,
    inner: Mutex<IdleInner<K>>,
}

#[derive(Debug)]
struct IdleInner<K> {
    opened_on: Option<K>,
    conns: Vec<Connection>,
}

impl<K: Copy + PartialEq> Idle<K> {
    pub fn new(max: usize) -> Idle<K> {
        Idle {
            max,
            inner: Mutex::new(IdleInner {
                opened_on: None,
                conns: Vec::new(),
            }),
        }
    }

    /// An idle connection opened on `current`; those opened on anything else are
    /// dropped first.
    pub fn take(&self, current: K) -> Option<Connection> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.opened_on != Some(current) {
            inner.conns.clear();
            inner.opened_on = Some(current);
        }
        inner.conns.pop()
    }

    /// Keeps `conn` for reuse unless it was opened on something else than the current
    /// `K` or enough are idle already.
    pub fn give(&self, conn: Connection, opened_on: K) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.opened_on.is_none() {
            inner.opened_on = Some(opened_on);
        }
        if inner.opened_on == Some(opened_on) && inner.conns.len() < self.max {
            inner.conns.push(conn);
        }
    }
}

/// The identity of the dataset file at `path`, or the error naming the fix.
fn file_id(path: &Path) -> Result<FileId, PoolError> {
    FileId::of(path).map_err(|source| PoolError::Missing {
        path: path.to_path_buf(),
        source,
    })
}

/// Read-only connections to the dataset behind one [`Gate`], reopened when the file
/// is replaced. Cloning shares the pool.
#[derive(Debug, Clone)]
pub struct ReadPool(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    /// Each connection's page cache, in KiB.
    page_cache_kib: u64,
    gate: Gate,
    idle: Idle<FileId>,
}

impl ReadPool {
    /// A pool over the dataset at `path` running at most `permits` calls at a time
    /// (and keeping as many connections, each with the default page cache). Nothing
    /// is opened before the first call.
    pub fn new(path: &Path, permits: usize) -> ReadPool {
        ReadPool::with_page_cache(path, permits, DEFAULT_PAGE_CACHE_MB)
    }

    /// [`ReadPool::new`] with a page cache of `page_cache_mb` MiB per connection.
    pub fn with_page_cache(path: &Path, permits: usize, page_cache_mb: u32) -> ReadPool {
        let gate = Gate::new(permits);
        ReadPool(Arc::new(Inner {
            path: path.to_path_buf(),
            page_cache_kib: u64::from(page_cache_mb) * 1024,
            idle: Idle::new(gate.permits()),
            gate,
        }))
    }

    pub fn path(&self) -> &Path {
        &self.0.path
    }

    /// Calls running at the same time, at most.
    pub fn permits(&self) -> usize {
        self.0.gate.permits()
    }

    /// Runs `f` on the blocking threads once a permit is free; `f` reads the dataset
    /// through the [`Reader`] it is given (or does other blocking work, like reading a
    /// file of the tree).
    pub async fn run<T, F>(&self, f: F) -> Result<T, PoolError>
    where
        F: FnOnce(&Reader<'_>) -> T + Send + 'static,
        T: Send + 'static,
    {
        let inner = Arc::clone(&self.0);
        self.0.gate.run(move || f(&Reader { pool: &inner })).await
    }
}

impl ReadPool {
    /// A share of this pool for one request: at most `permits` of its calls (at least
    /// one, at most the pool's) hold a permit of the pool at once.
    pub fn share(&self, permits: usize) -> Share {
        Share {
            pool: self.clone(),
            permits: Arc::new(Semaphore::new(permits.clamp(1, self.permits()))),
        }
    }
}

/// One request's bounded share of a [`ReadPool`] (see the module doc).
#[derive(Debug, Clone)]
pub struct Share {
    pool: ReadPool,
    permits: Arc<Semaphore>,
}

impl Share {
    /// Like [`ReadPool::run`], once one of the share's permits is free. The share's
    /// permit moves into the blocking task with the pool's, so a caller that gives up
    /// frees neither while its call still runs.
    pub async fn run<T, F>(&self, f: F) -> Result<T, PoolError>
    where
        F: FnOnce(&Reader<'_>) -> T + Send + 'static,
        T: Send + 'static,
    {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| PoolError::Closed)?;
        self.pool
            .run(move |reader| {
                let _permit = permit;
                f(reader)
            })
            .await
    }
}

/// Access to the dataset from inside one call of a [`ReadPool`].
pub struct Reader<'a> {
    pool: &'a Inner,
}

impl Reader<'_> {
    /// Runs `f` with a connection to the current dataset file.
    pub fn with<T>(&self, f: impl FnOnce(&Connection) -> T) -> Result<T, PoolError> {
        self.with_identity(f).map(|(out, _)| out)
    }

    /// Like [`Reader::with`], also naming the file the connection reads: what `f`
    /// answered was made from that file.
    pub fn with_identity<T>(
        &self,
        f: impl FnOnce(&Connection) -> T,
    ) -> Result<(T, FileId), PoolError> {
        let (conn, file) = self.checkout()?;
        let out = f(&conn);
        self.pool.idle.give(conn, file);
        Ok((out, file))
    }

    /// Like [`Reader::with_identity`], with the file's identity given to `f` too.
    pub fn with_file<T>(
        &self,
        f: impl FnOnce(&Connection, FileId) -> T,
    ) -> Result<(T, FileId), PoolError> {
        let (conn, file) = self.checkout()?;
        let out = f(&conn, file);
        self.pool.idle.give(conn, file);
        Ok((out, file))
    }

    /// Runs `f` with a connection whose statements SQLite interrupts once `deadline`
    /// has passed (they then fail with `SQLITE_INTERRUPT`).
    pub fn with_deadline<T>(
        &self,
        deadline: Instant,
        f: impl FnOnce(&Connection) -> T,
    ) -> Result<T, PoolError> {
        let (mut conn, file) = self.checkout()?;
        conn.progress_handler(PROGRESS_STEPS, Some(move || Instant::now() > deadline))
            .map_err(PoolError::Deadline)?;
        let out = f(&conn);
        // A connection whose handler cannot be removed is not reused.
        if conn
            .progress_handler(PROGRESS_STEPS, None::<fn() -> bool>)
            .is_ok()
        {
            self.pool.idle.give(conn, file);
        }
        Ok(out)
    }

    fn checkout(&self) -> Result<(Connection, FileId), PoolError> {
        let path = &self.pool.path;
        let file = file_id(path)?;
        let conn = match self.pool.idle.take(file) {
            Some(conn) => conn,
            None => open(path, self.pool.page_cache_kib)?,
        };
        Ok((conn, file))
    }
}

/// A read connection of the pool. Its statements are planned once, whatever the
/// values later bound (SQLite's query planner stability guarantee): otherwise SQLite
/// (3.54) marks a statement to be prepared again whenever a new value is bound to a
/// `LIMIT ?` or `OFFSET ?`, or to a parameter the dataset's `sqlite_stat4` samples
/// could plan differently, and every page read through a cached statement paid a
/// new preparation, the larger part of a live list page (bench/history/2026-11.md,
/// "Live misses, `q` and tree files per request"). The rows are the same: only the
/// choice of plan could differ.
fn open(path: &Path, page_cache_kib: u64) -> Result<Connection, PoolError> {
    let failed = |source: Box<dyn std::error::Error + Send + Sync>| PoolError::Open {
        path: path.to_path_buf(),
        source,
    };
    let conn = store::open_api(path).map_err(|e| failed(e.into()))?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map_err(|e| failed(e.into()))?;
    // A negative size is in KiB.
    conn.execute_batch(&format!("PRAGMA cache_size = -{page_cache_kib}"))
        .map_err(|e| failed(e.into()))?;
    metrics::counter!(CONNECTIONS_OPENED).increment(1);
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn dataset() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roost.db");
        store::init_db(&db, false, |_| Ok(())).unwrap();
        (dir, db)
    }

    fn count(conn: &Connection) -> i64 {
        conn.query_row("SELECT COUNT(*) FROM meta", [], |r| r.get(0))
            .unwrap()
    }

    #[tokio::test]
    async fn a_cached_statement_runs_as_prepared_whatever_values_are_bound() {
        let (_dir, db) = dataset();
        let pool = ReadPool::new(&db, 1);
        let (rows, reprepared) = pool
            .run(|reader| {
                reader.with(|conn| {
                    let mut rows = Vec::new();
                    let mut reprepared = 0;
                    for (limit, offset) in [(1, 0), (2, 0), (1, 1)] {
                        let mut st = conn.prepare_cached(
                            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n \
                             WHERE x < 10) SELECT x FROM n WHERE x >= ? ORDER BY x LIMIT ? OFFSET ?",
                        )?;
                        let keys = st
                            .query_map(rusqlite::params![2, limit, offset], |r| r.get::<_, i64>(0))?
                            .collect::<rusqlite::Result<Vec<_>>>()?;
                        rows.push(keys);
                        reprepared = st.get_status(rusqlite::StatementStatus::RePrepare);
                    }
                    Ok::<_, rusqlite::Error>((rows, reprepared))
                })
            })
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(rows, [vec![2], vec![2, 3], vec![3]]);
        assert_eq!(
            reprepared, 0,
            "the statement was prepared again for new values"
        );
    }

    #[tokio::test]
    async fn each_connection_keeps_the_page_cache_it_was_given() {
        let (_dir, db) = dataset();
        let size = |pool: ReadPool| async move {
            pool.run(|r| r.with(|c| c.query_row("PRAGMA cache_size", [], |r| r.get(0))))
                .await
                .unwrap()
                .unwrap()
                .unwrap()
        };
        let default: i64 = size(ReadPool::new(&db, 1)).await;
        assert_eq!(default, -2048, "the default, in KiB");
        let given: i64 = size(ReadPool::with_page_cache(&db, 1, 16)).await;
        assert_eq!(given, -16384);
    }

    #[tokio::test]
    async fn connections_are_reused_and_reopened_on_a_replaced_file() {
        let (dir, db) = dataset();
        let pool = ReadPool::new(&db, 2);
        // A mark on the connection itself tells whether the next call gets it again.
        let marked = |conn: &Connection| {
            let mark: i64 = conn.query_row("PRAGMA cache_size", [], |r| r.get(0))?;
            conn.execute_batch("PRAGMA cache_size = -1234")?;
            Ok::<_, rusqlite::Error>(mark == -1234)
        };
        assert!(!pool
            .run(move |r| r.with(marked))
            .await
            .unwrap()
            .unwrap()
            .unwrap());
        assert!(
            pool.run(move |r| r.with(marked))
                .await
                .unwrap()
                .unwrap()
                .unwrap(),
            "an idle connection is reused"
        );
        let before = pool.run(|r| r.with(count)).await.unwrap().unwrap();

        // A new file renamed over the old one, as `roost db import` does.
        let other = dir.path().join("other.db");
        store::init_db(&other, false, |_| Ok(())).unwrap();
        let conn = Connection::open(&other).unwrap();
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('replaced', 'yes')",
            [],
        )
        .unwrap();
        drop(conn);
        std::fs::rename(&other, &db).unwrap();
        let after = pool.run(|r| r.with(count)).await.unwrap().unwrap();
        assert_eq!(after, before + 1, "the replaced file is read");
        assert!(
            !pool
                .run(move |r| r.with(marked))
                .await
                .unwrap()
                .unwrap()
                .unwrap(),
            "connections to the old file are dropped"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_most_permits_calls_run_at_once() {
        let (_dir, db) = dataset();
        let pool = ReadPool::new(&db, 2);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let calls: Vec<_> = (0..8)
            .map(|_| {
                let (pool, running, peak) = (pool.clone(), Arc::clone(&running), Arc::clone(&peak));
                tokio::spawn(async move {
                    pool.run(move |r| {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        peak.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        let n = r.with(count);
                        running.fetch_sub(1, Ordering::SeqCst);
                        n
                    })
                    .await
                })
            })
            .collect();
        for call in calls {
            assert!(call.await.unwrap().unwrap().unwrap() > 0);
        }
        let peak = peak.load(Ordering::SeqCst);
        assert!((1..=2).contains(&peak), "{peak} calls at once");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_share_leaves_the_rest_of_the_pool_to_others() {
        let (_dir, db) = dataset();
        let pool = ReadPool::new(&db, 4);
        let share = pool.share(1);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(AtomicUsize::new(0));
        // A heavy request: 6 slow calls through a share of one permit.
        let heavy: Vec<_> = (0..6)
            .map(|_| {
                let (share, running, peak, done) = (
                    share.clone(),
                    Arc::clone(&running),
                    Arc::clone(&peak),
                    Arc::clone(&done),
                );
                tokio::spawn(async move {
                    share
                        .run(move |_| {
                            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                            peak.fetch_max(now, Ordering::SeqCst);
                            std::thread::sleep(Duration::from_millis(30));
                            running.fetch_sub(1, Ordering::SeqCst);
                            done.fetch_add(1, Ordering::SeqCst);
                        })
                        .await
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(10)).await;
        // A light call of another request is answered while the heavy one runs, not
        // after all its calls.
        assert!(pool.run(|r| r.with(count)).await.unwrap().unwrap() > 0);
        assert!(done.load(Ordering::SeqCst) < 6, "the light call waited");
        for call in heavy {
            call.await.unwrap().unwrap();
        }
        assert_eq!(
            peak.load(Ordering::SeqCst),
            1,
            "one call of the share at a time"
        );
        assert_eq!(pool.share(99).permits.available_permits(), 4);
        assert_eq!(pool.share(0).permits.available_permits(), 1);
    }

    #[tokio::test]
    async fn a_panic_is_an_error_and_the_pool_keeps_working() {
        let (_dir, db) = dataset();
        let pool = ReadPool::new(&db, 1);
        let panicked = pool
            .run(|r| r.with(|_| -> i64 { panic!("resolver bug") }))
            .await;
        assert!(matches!(panicked, Err(PoolError::Task(_))));
        assert!(pool.run(|r| r.with(count)).await.unwrap().unwrap() > 0);
    }

    #[tokio::test]
    async fn a_missing_dataset_is_an_error_naming_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let pool = ReadPool::new(&dir.path().join("missing.db"), 1);
        let err = pool.run(|r| r.with(count)).await.unwrap().unwrap_err();
        assert!(err.to_string().contains("roost db init"), "{err}");
    }

    #[tokio::test]
    async fn a_deadline_interrupts_a_long_statement() {
        let (_dir, db) = dataset();
        let pool = ReadPool::new(&db, 1);
        let slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                    SELECT COUNT(*) FROM n";
        let result = pool
            .run(move |r| {
                r.with_deadline(Instant::now(), |conn| {
                    conn.query_row(slow, [], |row| row.get::<_, i64>(0))
                })
            })
            .await
            .unwrap()
            .unwrap();
        assert!(result.is_err(), "interrupted");
        // The connection is fine afterwards.
        assert!(pool.run(|r| r.with(count)).await.unwrap().unwrap() > 0);
    }
}
