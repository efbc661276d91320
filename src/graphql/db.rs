//! Dataset access for the GraphQL resolvers.
//!
//! SQLite calls block, so every call runs on tokio's blocking pool, at most
//! [`MAX_CONCURRENT`] at a time, on a read-only connection taken from a small pool.
//! The pool remembers which file its connections were opened on (device, inode,
//! modification time): when `roost db import` or `db init` renames a new dataset over
//! the old one, the next call notices, drops the idle connections and opens the new
//! file, without a restart.
//!
//! Resolvers only see [`Conn`], which counts every statement it runs; the statement
//! count is how the tests prove that the dataloaders keep a page query from costing one
//! query per record (N+1).

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::{Connection, Params, Row};
use tokio::sync::Semaphore;

use crate::records::Ts;
use crate::store;

/// SQLite work running at the same time, across all requests.
const MAX_CONCURRENT: usize = 4;
/// Idle connections kept for reuse.
const MAX_IDLE: usize = 4;
/// SQLite virtual-machine steps between two looks at the deadline.
const PROGRESS_STEPS: i32 = 10_000;

/// A failed dataset call. The cause is logged; clients see "Internal server error".
/// (Deliberately not `Display`: async-graphql would turn any `Display` error into a
/// message for the client.)
#[derive(Debug, Clone)]
pub struct DbError(Arc<anyhow::Error>);

impl From<anyhow::Error> for DbError {
    fn from(e: anyhow::Error) -> Self {
        DbError(Arc::new(e))
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError(Arc::new(e.into()))
    }
}

impl From<DbError> for async_graphql::Error {
    fn from(e: DbError) -> Self {
        tracing::error!(error = %format!("{:#}", e.0), "graphql: dataset query failed");
        async_graphql::Error::new("Internal server error")
    }
}

/// Which file a connection was opened on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    mtime: i64,
    mtime_nsec: i64,
}

#[derive(Default)]
struct Pool {
    file: Option<FileId>,
    idle: Vec<Connection>,
}

/// The dataset, shared by all requests of one set of GraphQL routes.
pub struct Db {
    path: PathBuf,
    pool: Mutex<Pool>,
    permits: Semaphore,
    statements: AtomicU64,
    /// Longest time one call may run SQL before SQLite interrupts it.
    call_timeout: Duration,
}

impl Db {
    pub fn new(path: PathBuf, call_timeout: Duration) -> Arc<Db> {
        Arc::new(Db {
            path,
            pool: Mutex::new(Pool::default()),
            permits: Semaphore::new(MAX_CONCURRENT),
            statements: AtomicU64::new(0),
            call_timeout,
        })
    }

    /// SQL statements run so far through [`Conn`].
    pub fn statements(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    /// Runs `f` on a pooled connection, off the async workers.
    pub async fn run<T, F>(self: &Arc<Self>, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> rusqlite::Result<T> + Send + 'static,
    {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| DbError::from(anyhow::Error::new(e)))?;
        let db = Arc::clone(self);
        tokio::task::spawn_blocking(move || db.run_blocking(f))
            .await
            .map_err(|e| DbError::from(anyhow::Error::new(e)))?
    }

    fn run_blocking<T>(&self, f: impl FnOnce(&Conn) -> rusqlite::Result<T>) -> Result<T, DbError> {
        let (mut conn, file) = self.checkout()?;
        let deadline = Instant::now() + self.call_timeout;
        conn.progress_handler(PROGRESS_STEPS, Some(move || Instant::now() > deadline))?;
        let result = f(&Conn {
            conn: &conn,
            statements: &self.statements,
        });
        let reset = conn.progress_handler(PROGRESS_STEPS, None::<fn() -> bool>);
        if result.is_ok() && reset.is_ok() {
            self.checkin(conn, file);
        }
        result.map_err(DbError::from)
    }

    fn current_file(&self) -> anyhow::Result<FileId> {
        let meta = std::fs::metadata(&self.path).map_err(|e| {
            anyhow::anyhow!(
                "dataset {} cannot be read ({e}); create it with `roost db init`",
                self.path.display()
            )
        })?;
        Ok(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
        })
    }

    fn checkout(&self) -> anyhow::Result<(Connection, FileId)> {
        let file = self.current_file()?;
        {
            let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
            if pool.file != Some(file) {
                pool.idle.clear();
                pool.file = Some(file);
            }
            if let Some(conn) = pool.idle.pop() {
                return Ok((conn, file));
            }
        }
        Ok((store::open_read(&self.path)?, file))
    }

    fn checkin(&self, conn: Connection, file: FileId) {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if pool.file == Some(file) && pool.idle.len() < MAX_IDLE {
            pool.idle.push(conn);
        }
    }
}

/// A connection lent to one dataset call; every statement goes through it.
pub struct Conn<'a> {
    conn: &'a Connection,
    statements: &'a AtomicU64,
}

impl Conn<'_> {
    /// Runs one statement and maps every row.
    pub fn rows<T, P: Params>(
        &self,
        sql: &str,
        params: P,
        mut map: impl FnMut(&mut Cols) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        self.statements.fetch_add(1, Ordering::Relaxed);
        let mut st = self.conn.prepare_cached(sql)?;
        let mut rows = st.query(params)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(map(&mut Cols { row, next: 0 })?);
        }
        Ok(out)
    }

    /// Runs one statement and hands its rows to `each` until it returns `false`; the
    /// rest of the rows are never computed.
    pub fn each<P: Params>(
        &self,
        sql: &str,
        params: P,
        mut each: impl FnMut(&mut Cols) -> rusqlite::Result<bool>,
    ) -> rusqlite::Result<()> {
        self.statements.fetch_add(1, Ordering::Relaxed);
        let mut st = self.conn.prepare_cached(sql)?;
        let mut rows = st.query(params)?;
        while let Some(row) = rows.next()? {
            if !each(&mut Cols { row, next: 0 })? {
                break;
            }
        }
        Ok(())
    }
}

/// Reads the columns of a row left to right.
pub struct Cols<'a, 'r> {
    row: &'a Row<'r>,
    next: usize,
}

impl Cols<'_, '_> {
    pub fn get<T: rusqlite::types::FromSql>(&mut self) -> rusqlite::Result<T> {
        let value = self.row.get(self.next)?;
        self.next += 1;
        Ok(value)
    }

    /// A timestamp column (INTEGER microseconds) as ISO 8601 UTC text.
    pub fn ts(&mut self) -> rusqlite::Result<String> {
        Ok(Ts(self.get()?).format())
    }

    /// A nullable timestamp column.
    pub fn opt_ts(&mut self) -> rusqlite::Result<Option<String>> {
        Ok(self.get::<Option<i64>>()?.map(|t| Ts(t).format()))
    }

    /// Skips columns (window bookkeeping).
    pub fn skip(&mut self, n: usize) {
        self.next += n;
    }
}

/// Ids as the JSON array text bound to `json_each(?1)`.
pub fn ids_json(ids: impl IntoIterator<Item = i64>) -> String {
    let ids: Vec<i64> = ids.into_iter().collect();
    serde_json::to_string(&ids).unwrap_or_else(|_| "[]".to_string())
}
