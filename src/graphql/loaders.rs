//! Batched relation loading (dataloaders), generic over the relation keys of
//! [`super::records::relations`].
//!
//! One [`DataLoader`] per request collects the keys that sibling resolvers ask for and
//! loads each key type with its one statement, so a page of N records costs the same
//! number of statements as a page of one.
//!
//! When a batch is loaded is decided by [`in_waves`], not by a timer: the request's
//! loads are queued and dispatched together once the resolvers can make no more
//! progress and no earlier dataset call of the request is still running. The request
//! thus resolves in waves, one statement per relation per wave, whatever the timing
//! (a timer splits batches whenever the resolvers take longer than the delay, which a
//! loaded server or a debug build easily does).

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Wake, Waker};
use std::time::Duration;

use async_graphql::dataloader::{DataLoader, Loader};
use async_graphql::futures_util::future::BoxFuture;
use async_graphql::{Context, Result};
use bytes::Bytes;
use rusqlite::types::Value;
use rusqlite::{Connection, Row};

use super::db::{ids_json, Cols, Conn, DbError, RequestDb};
use super::records::relations::{ListKey, SnapshotReleaseRowsOf, MAX_SORT_KEYS};
use super::rows::{ReleasePlan, SnapshotReleaseRows};
use super::totals::{IdMap, Totals};

/// The request's loader.
pub type RequestLoader = DataLoader<Batch>;

/// Loads every relation key type ([`ListKey`]).
pub struct Batch {
    db: Arc<RequestDb>,
}

/// A new loader for one request, and the waves that dispatch its loads: the request
/// must execute inside [`in_waves`] with them, or its loads never start.
pub fn request_loader(db: Arc<RequestDb>) -> (RequestLoader, Arc<Waves>) {
    let waves = Arc::new(Waves::default());
    let queue = Arc::clone(&waves);
    let loader = DataLoader::new(Batch { db }, move |load| queue.queue(load)).delay(Duration::ZERO);
    (loader, waves)
}

/// The pending and running dataset work of one request.
#[derive(Default)]
pub struct Waves {
    /// Loads waiting for the next wave.
    queued: Mutex<Vec<BoxFuture<'static, ()>>>,
    /// Loads and other dataset calls of the request still running.
    running: AtomicUsize,
    /// The request's task, woken when running work ends.
    waker: Mutex<Option<Waker>>,
}

impl Waves {
    fn queue(&self, load: BoxFuture<'static, ()>) {
        self.queued
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(load);
    }

    /// Counts one piece of work as running until the returned guard is dropped.
    fn start(&self) -> Running<'_> {
        self.running.fetch_add(1, Ordering::SeqCst);
        Running(self)
    }

    /// Starts every queued load.
    fn dispatch(self: &Arc<Self>) {
        let queued = std::mem::take(&mut *self.queued.lock().unwrap_or_else(|p| p.into_inner()));
        for load in queued {
            let waves = Arc::clone(self);
            self.running.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let _running = Running(&waves);
                load.await;
            });
        }
    }

    /// Counts `work` (a dataset call made outside the loader) as running, so that no
    /// wave starts before its results are known.
    pub async fn track<T>(&self, work: impl Future<Output = T>) -> T {
        let _running = self.start();
        work.await
    }
}

/// Work of a request that is running; dropping it (when the work ends, panics or is
/// cancelled) ends the work and wakes the request.
struct Running<'a>(&'a Waves);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
        let waker = self.0.waker.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(waker) = waker.as_ref() {
            waker.wake_by_ref();
        }
    }
}

/// Notes whether the request's future woke itself while being polled (it can make
/// progress at once, e.g. after a cooperative yield).
struct SelfWake {
    woken: AtomicBool,
    task: Waker,
}

impl Wake for SelfWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        self.task.wake_by_ref();
    }
}

/// Runs a request's execution, dispatching its queued loads in waves: when the
/// resolvers are stuck waiting and no dataset work of the request is running.
pub async fn in_waves<F: Future>(waves: Arc<Waves>, work: F) -> F::Output {
    let mut work = Box::pin(work);
    std::future::poll_fn(move |cx| {
        *waves.waker.lock().unwrap_or_else(|p| p.into_inner()) = Some(cx.waker().clone());
        let wake = Arc::new(SelfWake {
            woken: AtomicBool::new(false),
            task: cx.waker().clone(),
        });
        let waker = Waker::from(Arc::clone(&wake));
        let polled = Pin::as_mut(&mut work).poll(&mut std::task::Context::from_waker(&waker));
        if polled.is_pending()
            && !wake.woken.load(Ordering::SeqCst)
            && waves.running.load(Ordering::SeqCst) == 0
        {
            waves.dispatch();
        }
        polled
    })
    .await
}

/// Each parent's children are shared with the one waiting for them rather than
/// cloned for it (the loader hands every waiter a clone of its value); [`many`]
/// takes them out.
impl<K: ListKey> Loader<K> for Batch {
    type Value = Arc<Vec<K::Item>>;
    type Error = DbError;

    async fn load(&self, keys: &[K]) -> Result<HashMap<K, Self::Value>, Self::Error> {
        let mut by_limit: BTreeMap<i64, Vec<K>> = BTreeMap::new();
        for key in keys {
            by_limit.entry(key.limit()).or_default().push(*key);
        }
        self.db
            .run(move |conn| {
                let mut out = HashMap::new();
                for (limit, keys) in by_limit {
                    let parents: Vec<i64> = keys.iter().map(|k| k.parent()).collect();
                    let mut groups = match K::kept(conn, &parents, limit)? {
                        Some(kept) => kept,
                        None => {
                            let mut read = K::reader(conn)?;
                            children::<K, _>(conn, &parents, limit, |conn, row, at| {
                                let mut c = Cols::new(conn, row);
                                c.skip(at);
                                read(&mut c)
                            })?
                        }
                    };
                    for key in keys {
                        let children = groups.remove(&key.parent()).unwrap_or_default();
                        out.insert(key, Arc::new(children));
                    }
                }
                Ok(out)
            })
            .await
    }
}

/// A snapshot's new releases as JSON written from their rows ([`super::rows`]): each
/// plan's keys are read with one statement into one buffer, and each snapshot's
/// array is put together from its releases' objects in order.
impl Loader<SnapshotReleaseRows> for Batch {
    type Value = Bytes;
    type Error = DbError;

    async fn load(
        &self,
        keys: &[SnapshotReleaseRows],
    ) -> Result<HashMap<SnapshotReleaseRows, Bytes>, Self::Error> {
        let mut by_plan: BTreeMap<(ReleasePlan, i64), Vec<SnapshotReleaseRows>> = BTreeMap::new();
        for key in keys {
            by_plan.entry((key.1, key.limit())).or_default().push(*key);
        }
        self.db
            .run(move |conn| {
                let mut out = HashMap::new();
                for ((plan, limit), keys) in by_plan {
                    let parents: Vec<i64> = keys.iter().map(|k| k.0).collect();
                    let mut objects = Vec::with_capacity(64 * 1024);
                    let totals = conn.contributor_totals()?;
                    // A release left out (`None`) is left out after the limit, as
                    // the joins of the records' statements leave it out after it.
                    let groups = children::<SnapshotReleaseRowsOf, _>(
                        conn,
                        &parents,
                        limit,
                        |_, row, at| {
                            let start = objects.len();
                            let written = plan.write(row, at, &totals, &mut objects)?;
                            Ok(written.then_some(start..objects.len()))
                        },
                    )?;
                    for key in keys {
                        let ranges = groups.get(&key.0).map_or(&[][..], Vec::as_slice);
                        let ranges = || ranges.iter().flatten();
                        let size: usize = ranges().map(|r| r.len() + 1).sum();
                        let mut json = Vec::with_capacity(size + 2);
                        json.push(b'[');
                        for (i, range) in ranges().enumerate() {
                            if i > 0 {
                                json.push(b',');
                            }
                            json.extend_from_slice(&objects[range.clone()]);
                        }
                        json.push(b']');
                        out.insert(key, Bytes::from(json));
                    }
                }
                Ok(out)
            })
            .await
    }
}

/// The first `limit` children of each of `parents` in order, each read by `read`
/// from its row (its item columns from the index it is given): the statement of
/// [`ListKey::sql`], or for a list read whole the count of each parent's links first
/// and the numbered statement for the parents with more than the limit.
fn children<K: ListKey, T>(
    conn: &Conn,
    parents: &[i64],
    limit: i64,
    mut read: impl FnMut(&Connection, &Row<'_>, usize) -> rusqlite::Result<T>,
) -> rusqlite::Result<HashMap<i64, Vec<T>>> {
    let mut groups = HashMap::new();
    match K::numbered() {
        Some((count, numbered)) => {
            // Parents with more links than the limit are read numbered, the others
            // whole. The links counted per snapshot are kept per dataset file.
            let totals = match K::LINKS {
                Some(_) => Some(conn.contributor_totals()?),
                None => None,
            };
            let kept = K::LINKS.and_then(|table| totals.as_ref()?.snapshot_links.get(table));
            let counts: std::borrow::Cow<IdMap<i64>> = match kept {
                Some(kept) => std::borrow::Cow::Borrowed(kept),
                None => std::borrow::Cow::Owned(
                    conn.rows(&count, [ids_json(parents.iter().copied())], |c| {
                        Ok((c.get()?, c.get()?))
                    })?
                    .into_iter()
                    .collect(),
                ),
            };
            let (long, short): (Vec<i64>, Vec<i64>) = parents
                .iter()
                .partition(|p| counts.get(p).is_some_and(|&n| n > limit));
            if !short.is_empty() {
                read_children_of::<K, T>(
                    conn,
                    &K::sql(),
                    K::KEYS,
                    &short,
                    limit,
                    &mut read,
                    &mut groups,
                )?;
            }
            if !long.is_empty() {
                read_children_of::<K, T>(conn, &numbered, 1, &long, limit, &mut read, &mut groups)?;
            }
        }
        None => read_children_of::<K, T>(
            conn,
            &K::sql(),
            K::KEYS,
            parents,
            limit,
            &mut read,
            &mut groups,
        )?,
    }
    Ok(groups)
}

/// Reads the children of `parents` with `sql` (a [`ListKey::sql`] statement with
/// `keys` sort-key columns; with one, a numbered statement taking the limit and
/// [`ListKey::bound`]), each parent's first `limit` in order into `groups`.
fn read_children_of<K: ListKey, T>(
    conn: &Conn,
    sql: &str,
    keys: usize,
    parents: &[i64],
    limit: i64,
    read: &mut impl FnMut(&Connection, &Row<'_>, usize) -> rusqlite::Result<T>,
    groups: &mut HashMap<i64, Vec<T>>,
) -> rusqlite::Result<()> {
    let mut args = vec![Value::Text(ids_json(parents.iter().copied()))];
    // A list read whole (more than one key) is cut here, not in SQL.
    if keys == 1 {
        args.push(Value::Integer(limit));
        args.extend(K::bound());
    }
    // A list read whole yields the children of the given parents only: with one
    // parent, every row's.
    let only = match parents {
        [parent] if keys > 1 => Some(*parent),
        _ => None,
    };
    read_children(conn, sql, args, keys, only, limit, read, groups)
}

/// Reads children with `sql` and its `args`, rows of `(parent id, keys..., item
/// columns...)` with `keys` sort-key columns, each parent's first `limit` in order
/// into `groups`. `only`: the parent of every row, when the statement yields one
/// parent's children (its parent column is not read).
#[allow(clippy::too_many_arguments)]
fn read_children<T>(
    conn: &Conn,
    sql: &str,
    args: Vec<Value>,
    keys: usize,
    only: Option<i64>,
    limit: i64,
    read: &mut impl FnMut(&Connection, &Row<'_>, usize) -> rusqlite::Result<T>,
    groups: &mut HashMap<i64, Vec<T>>,
) -> rusqlite::Result<()> {
    let mut rows = conn.rows_at(sql, rusqlite::params_from_iter(args), |conn, row| {
        let parent: i64 = match only {
            Some(parent) => parent,
            None => row.get(0)?,
        };
        let mut order = [0; MAX_SORT_KEYS];
        for (i, key) in order.iter_mut().take(keys).enumerate() {
            *key = row.get(1 + i)?;
        }
        Ok((parent, order, Some(read(conn, row, 1 + keys)?)))
    })?;
    // The rows sorted by parent and order through their indexes: the records
    // themselves (several hundred bytes each) move only once, into their parent's
    // list.
    let mut sorted: Vec<(i64, [i64; MAX_SORT_KEYS], usize)> = rows
        .iter()
        .enumerate()
        .map(|(i, (parent, order, _))| (*parent, *order, i))
        .collect();
    sorted.sort_unstable();
    let limit = usize::try_from(limit).unwrap_or(0);
    for run in sorted.chunk_by(|a, b| a.0 == b.0) {
        let children = run
            .iter()
            .take(limit)
            .filter_map(|(_, _, i)| rows[*i].2.take())
            .collect();
        groups.insert(run[0].0, children);
    }
    Ok(())
}

/// The children of one parent.
pub async fn many<K: ListKey>(ctx: &Context<'_>, key: K) -> Result<Vec<K::Item>> {
    let loader = ctx.data::<RequestLoader>()?;
    Ok(match loader.load_one(key).await? {
        // Shared only while the loader has not yet dropped its own handle.
        Some(children) => Arc::try_unwrap(children).unwrap_or_else(|shared| (*shared).clone()),
        None => Vec::new(),
    })
}

/// The first child of one parent, if any.
pub async fn one<K: ListKey>(ctx: &Context<'_>, key: K) -> Result<Option<K::Item>> {
    Ok(many(ctx, key).await?.into_iter().next())
}

/// The contribution sums of the dataset ([`super::totals`]), counted in the request's
/// waves when they have to be computed.
pub async fn contributor_totals(ctx: &Context<'_>) -> Result<Arc<Totals>> {
    let db = ctx.data::<Arc<RequestDb>>()?;
    let call = db.contributor_totals();
    let out = match ctx.data_opt::<Arc<Waves>>() {
        Some(waves) => waves.track(call).await,
        None => call.await,
    };
    Ok(out?)
}
