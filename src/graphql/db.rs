//! Dataset access for the GraphQL resolvers, over the read pool the shim hands over
//! ([`crate::pool::ReadPool`], shared with the REST answers: one bound on concurrent
//! SQLite work, one set of connections, a replaced dataset picked up without a
//! restart).
//!
//! Each request reads through its own [`RequestDb`]: a share of the read pool (at most
//! a few of its calls hold a permit at once, [`crate::pool::Share`]), and a budget of
//! database time shared by all its calls. A call runs with a deadline (what is left of
//! the budget, and never past the request's time limit), after which SQLite interrupts
//! its statements; a call past the budget fails with `DATABASE_TIME_EXCEEDED`.
//! Resolvers only see [`Conn`], which counts every statement it runs; the statement
//! count is how the tests prove that the dataloaders keep a page query from costing
//! one query per record (N+1).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_graphql::ErrorExtensions as _;
use rusqlite::{Connection, Params, Row};

use super::totals::{Totals, TotalsCache};
use crate::error::InternalCause;
use crate::pool::{PoolError, ReadPool, Share};
pub use crate::schema::Cols;
use crate::store::FileId;

/// A failed dataset call. Clients see "Internal server error" (the cause travels in
/// the GraphQL error's `source` to the HTTP layer, which hands it to the access log:
/// see [`crate::error`]), or a coded error when the request's database time is spent.
/// (Deliberately not `Display`: async-graphql would turn any `Display` error into a
/// message for the client.)
#[derive(Debug, Clone)]
pub enum DbError {
    Failed(Arc<anyhow::Error>),
    /// The request's database time was spent (the call was not started, or SQLite
    /// interrupted it).
    OverBudget(Duration),
}

impl From<PoolError> for DbError {
    fn from(e: PoolError) -> Self {
        DbError::Failed(Arc::new(e.into()))
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::Failed(Arc::new(e.into()))
    }
}

impl From<DbError> for async_graphql::Error {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Failed(e) => {
                let mut error = async_graphql::Error::new("Internal server error");
                error.source = Some(Arc::new(InternalCause::new(format!("{e:#}"))));
                error
            }
            DbError::OverBudget(budget) => {
                let message = format!(
                    "The request used up its database time ({} ms); ask for less per request",
                    budget.as_millis()
                );
                async_graphql::Error::new(message)
                    .extend_with(|_, ext| ext.set("code", "DATABASE_TIME_EXCEEDED"))
            }
        }
    }
}

/// The dataset as one set of GraphQL routes sees it.
pub struct Db {
    pool: ReadPool,
    statements: AtomicU64,
    /// Contribution sums of the current dataset file ([`super::totals`]).
    totals: TotalsCache,
}

impl Db {
    pub fn new(pool: ReadPool) -> Arc<Db> {
        Arc::new(Db {
            pool,
            statements: AtomicU64::new(0),
            totals: TotalsCache::default(),
        })
    }

    /// SQL statements run so far through [`Conn`].
    pub fn statements(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    /// The identity of the dataset file now, if it can be read.
    pub fn dataset(&self) -> Option<FileId> {
        FileId::of(self.pool.path()).ok()
    }

    /// The read pool's permits.
    pub fn permits(&self) -> usize {
        self.pool.permits()
    }

    /// Computes the contribution sums of the dataset file now, on this thread, unless
    /// they are kept: for the routes' start, so that no request waits for them (a
    /// file that cannot be read is left to the first request, which reports it).
    pub fn compute_totals(&self) {
        let Ok(conn) = crate::store::open_api(self.pool.path()) else {
            return;
        };
        if let Err(e) = self.totals.get(&conn) {
            tracing::debug!("graphql: contribution sums: {e}");
        }
    }

    /// Computes the contribution sums and the other facts of the current dataset file
    /// in a call of the read pool (so through one of its connections), unless they are
    /// kept; waits for them while another call computes them.
    pub async fn build_facts(self: &Arc<Self>) -> anyhow::Result<()> {
        let db = Arc::clone(self);
        self.pool
            .run(move |reader| reader.with(|conn| db.totals.get(conn).map(drop)))
            .await???;
        Ok(())
    }

    /// Starts computing the contribution sums of the dataset file `file` in a call of
    /// the read pool, unless they are kept or being computed ([`super::totals`]), so
    /// that no request waits for them. Outside a tokio runtime nothing is started (the
    /// first request that needs them computes them).
    pub fn warm_totals(self: &Arc<Self>, file: &FileId) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if !self.totals.needs(file) {
            return;
        }
        let db = Arc::clone(self);
        runtime.spawn(async move {
            let totals = Arc::clone(&db);
            let out = db
                .pool
                .run(move |reader| reader.with(|conn| totals.totals.get(conn).map(drop)))
                .await;
            db.totals.warmed();
            match out {
                Ok(Ok(Ok(()))) => {}
                // The first request that needs them computes them again and reports
                // what failed.
                Ok(Ok(Err(e))) => tracing::debug!("graphql: contribution sums: {e}"),
                Ok(Err(e)) | Err(e) => tracing::debug!("graphql: contribution sums: {e}"),
            }
        });
    }
}

/// One request's access to the dataset (see the module doc).
pub struct RequestDb {
    db: Arc<Db>,
    share: Share,
    budget: Duration,
    /// The request's time limit: no call runs past it.
    deadline: Instant,
    /// Database time used so far, in microseconds.
    spent_us: AtomicU64,
}

impl RequestDb {
    /// `share` permits of the pool at once, `budget` of database time, nothing past
    /// `deadline`.
    pub fn new(db: &Arc<Db>, share: usize, budget: Duration, deadline: Instant) -> Arc<Self> {
        Arc::new(RequestDb {
            share: db.pool.share(share),
            db: Arc::clone(db),
            budget,
            deadline,
            spent_us: AtomicU64::new(0),
        })
    }

    /// Database time the request has used so far.
    pub fn spent(&self) -> Duration {
        Duration::from_micros(self.spent_us.load(Ordering::Relaxed))
    }

    /// Runs `f` on a pooled connection, off the async workers, within the request's
    /// share and budget.
    pub async fn run<T, F>(self: &Arc<Self>, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> rusqlite::Result<T> + Send + 'static,
    {
        if self.spent() >= self.budget {
            return Err(DbError::OverBudget(self.budget));
        }
        let me = Arc::clone(self);
        let out = self
            .share
            .run(move |reader| {
                let started = Instant::now();
                let left = me.budget.saturating_sub(me.spent());
                let deadline = (started + left).min(me.deadline);
                let out = reader.with_deadline(deadline, |conn| {
                    f(&Conn {
                        conn,
                        statements: &me.db.statements,
                        totals: &me.db.totals,
                    })
                });
                let took = started.elapsed();
                me.spent_us.fetch_add(
                    u64::try_from(took.as_micros()).unwrap_or(u64::MAX),
                    Ordering::Relaxed,
                );
                let interrupted = Instant::now() >= deadline;
                (out, interrupted)
            })
            .await?;
        match out {
            (Ok(Ok(value)), _) => Ok(value),
            (Ok(Err(_)), true) => Err(DbError::OverBudget(self.budget)),
            (Ok(Err(e)), false) => Err(e.into()),
            (Err(e), _) => Err(e.into()),
        }
    }

    /// The contribution sums of the dataset ([`super::totals`]): those kept for the
    /// current file, else computed in a dataset call.
    pub async fn contributor_totals(self: &Arc<Self>) -> Result<Arc<Totals>, DbError> {
        if let Some(totals) = self.db.totals.ready(self.db.pool.path()) {
            return Ok(totals);
        }
        self.run(|conn| conn.contributor_totals()).await
    }
}

/// A connection lent to one dataset call; every statement goes through it.
pub struct Conn<'a> {
    conn: &'a Connection,
    statements: &'a AtomicU64,
    totals: &'a TotalsCache,
}

impl Conn<'_> {
    /// The contribution sums of the dataset file ([`super::totals`]), computed through
    /// this connection unless they are kept.
    pub fn contributor_totals(&self) -> rusqlite::Result<Arc<Totals>> {
        self.totals.get(self.conn)
    }

    /// Runs one statement and maps every row.
    pub fn rows<T, P: Params>(
        &self,
        sql: &str,
        params: P,
        mut map: impl FnMut(&mut Cols) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        self.rows_at(sql, params, |conn, row| map(&mut Cols::new(conn, row)))
    }

    /// Runs one statement and maps every row, read by column index (a list written as
    /// JSON straight from its rows borrows each text where SQLite holds it).
    pub fn rows_at<T, P: Params>(
        &self,
        sql: &str,
        params: P,
        mut map: impl FnMut(&Connection, &Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        self.statements.fetch_add(1, Ordering::Relaxed);
        let mut st = self.conn.prepare_cached(sql)?;
        let mut rows = st.query(params)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(map(self.conn, row)?);
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
            if !each(&mut Cols::new(self.conn, row))? {
                break;
            }
        }
        Ok(())
    }
}

/// Ids as the JSON array text bound to `json_each(?1)` (`[1,2,3]`), spelled out: a
/// list of integers has no way to fail, and no fallback to stand in for one.
pub fn ids_json(ids: impl IntoIterator<Item = i64>) -> String {
    use std::fmt::Write as _;
    // One text, without a string per id.
    let mut out = String::from("[");
    for (i, id) in ids.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{id}");
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_json_array_json_each_reads() {
        assert_eq!(ids_json([]), "[]");
        assert_eq!(ids_json([7]), "[7]");
        assert_eq!(ids_json([1, -2, i64::MAX]), "[1,-2,9223372036854775807]");
        let conn = Connection::open_in_memory().unwrap();
        let read: Vec<i64> = conn
            .prepare("SELECT value FROM json_each(?1)")
            .unwrap()
            .query_map([ids_json([3, 1, 2])], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(read, [3, 1, 2]);
    }
}
