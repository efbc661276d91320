//! Dataset access for the GraphQL resolvers, over the read pool the shim hands over
//! ([`crate::pool::ReadPool`], shared with the REST answers: one bound on concurrent
//! SQLite work, one set of connections, a replaced dataset picked up without a
//! restart).
//!
//! Each call gets a deadline (the request's time limit), after which SQLite interrupts
//! its statements. Resolvers only see [`Conn`], which counts every statement it runs;
//! the statement count is how the tests prove that the dataloaders keep a page query
//! from costing one query per record (N+1).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, Params, Row};

use crate::error::InternalCause;
use crate::pool::{PoolError, ReadPool};
use crate::records::Ts;

/// A failed dataset call. Clients see "Internal server error"; the cause travels in
/// the GraphQL error's `source` to the HTTP layer, which hands it to the access log
/// (see [`crate::error`]).
/// (Deliberately not `Display`: async-graphql would turn any `Display` error into a
/// message for the client.)
#[derive(Debug, Clone)]
pub struct DbError(Arc<anyhow::Error>);

impl From<PoolError> for DbError {
    fn from(e: PoolError) -> Self {
        DbError(Arc::new(e.into()))
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError(Arc::new(e.into()))
    }
}

impl From<DbError> for async_graphql::Error {
    fn from(e: DbError) -> Self {
        let mut error = async_graphql::Error::new("Internal server error");
        error.source = Some(Arc::new(InternalCause::new(&*e.0)));
        error
    }
}

/// The dataset as one set of GraphQL routes sees it.
pub struct Db {
    pool: ReadPool,
    statements: AtomicU64,
    /// Longest time one call may run SQL before SQLite interrupts it.
    call_timeout: Duration,
}

impl Db {
    pub fn new(pool: ReadPool, call_timeout: Duration) -> Arc<Db> {
        Arc::new(Db {
            pool,
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
        let db = Arc::clone(self);
        let out = self
            .pool
            .run(move |reader| {
                let deadline = Instant::now() + db.call_timeout;
                reader.with_deadline(deadline, |conn| {
                    f(&Conn {
                        conn,
                        statements: &db.statements,
                    })
                })
            })
            .await;
        out??.map_err(DbError::from)
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
