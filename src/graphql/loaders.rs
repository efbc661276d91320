//! Batched relation loading (dataloaders).
//!
//! Every relation is a key type naming a parent record (and, for lists with a `limit`
//! argument, how many children to keep). One [`DataLoader`] per request collects the
//! keys that sibling resolvers ask for and loads each key type with one statement: a
//! window query that numbers the children of every requested parent and keeps the first
//! `limit` of each, so a page of N records costs the same number of statements as a
//! page of one.
//!
//! When a batch is loaded is decided by [`in_waves`], not by a timer: the request's
//! loads are queued and dispatched together once the resolvers can make no more
//! progress and no earlier dataset call of the request is still running. The request
//! thus resolves in waves, one statement per relation per wave, whatever the timing
//! (a timer splits batches whenever the resolvers take longer than the delay, which a
//! loaded server or a debug build easily does).

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::hash::Hash;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Wake, Waker};
use std::time::Duration;

use async_graphql::dataloader::{DataLoader, Loader};
use async_graphql::futures_util::future::BoxFuture;
use async_graphql::{Context, Result};

use super::db::{ids_json, Db, DbError};
use super::types::*;

/// The request's loader.
pub type RequestLoader = DataLoader<Batch>;

/// Loads every key type of this module.
pub struct Batch {
    db: Arc<Db>,
}

/// A new loader for one request, and the waves that dispatch its loads: the request
/// must execute inside [`in_waves`] with them, or its loads never start.
pub fn request_loader(db: Arc<Db>) -> (RequestLoader, Arc<Waves>) {
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

/// A relation: a parent record and how many of its children to load.
pub trait ListKey: Copy + Eq + Hash + Send + Sync + 'static {
    type Item: Record;
    /// A statement with `?1` the parent ids (JSON array) and `?2` the limit, yielding
    /// `(parent id, position, item columns...)` ordered by parent and position.
    fn sql() -> String;
    fn parent(self) -> i64;
    fn limit(self) -> i64;
}

/// `limit` children of each parent: `grp` names the parent id column, `order` sorts
/// the children (ending with a unique column, so the order is total).
fn window(cols: &str, from: &str, grp: &str, filter: &str, order: &str) -> String {
    format!(
        "SELECT * FROM (SELECT {grp} AS grp, \
            ROW_NUMBER() OVER (PARTITION BY {grp} ORDER BY {order}) AS pos, {cols} \
         FROM {from} WHERE {grp} IN (SELECT value FROM json_each(?1)) AND {filter}) \
         WHERE pos <= ?2 ORDER BY grp, pos"
    )
}

/// Like [`window`] for children with a table of their own: the children are numbered
/// on narrow rows (`link` joins the parent column `grp` to the child table aliased
/// `t`, enough for `filter` and `order`), and only the kept ones are read in full.
fn children<T: Table>(link: &str, grp: &str, filter: &str, order: &str) -> String {
    format!(
        "SELECT w.grp, w.pos, {cols} FROM (SELECT * FROM (SELECT {grp} AS grp, \
            ROW_NUMBER() OVER (PARTITION BY {grp} ORDER BY {order}) AS pos, t.id AS id \
          FROM {link} WHERE {grp} IN (SELECT value FROM json_each(?1)) AND {filter}) \
          WHERE pos <= ?2) w \
         CROSS JOIN {table} t{joins} WHERE t.id = w.id ORDER BY w.grp, w.pos",
        cols = T::COLS,
        table = T::TABLE,
        joins = T::JOINS,
    )
}

/// One record per id (`limit` 1): lookups by id and per-record aggregates.
fn by_id<T: Record>(from: &str, filter: &str) -> String {
    window(T::COLS, from, "t.id", filter, "t.id")
}

impl<K: ListKey> Loader<K> for Batch {
    type Value = Vec<K::Item>;
    type Error = DbError;

    async fn load(&self, keys: &[K]) -> Result<HashMap<K, Self::Value>, Self::Error> {
        let mut by_limit: BTreeMap<i64, Vec<K>> = BTreeMap::new();
        for key in keys {
            by_limit.entry(key.limit()).or_default().push(*key);
        }
        self.db
            .run(move |conn| {
                let sql = K::sql();
                let mut out = HashMap::new();
                for (limit, keys) in by_limit {
                    let ids = ids_json(keys.iter().map(|k| k.parent()));
                    let rows = conn.rows(&sql, rusqlite::params![ids, limit], |c| {
                        let parent: i64 = c.get()?;
                        c.skip(1);
                        Ok((parent, K::Item::read(c)?))
                    })?;
                    let mut groups: HashMap<i64, Vec<K::Item>> = HashMap::new();
                    for (parent, item) in rows {
                        groups.entry(parent).or_default().push(item);
                    }
                    for key in keys {
                        out.insert(key, groups.remove(&key.parent()).unwrap_or_default());
                    }
                }
                Ok(out)
            })
            .await
    }
}

/// The children of one parent.
pub async fn many<K: ListKey>(ctx: &Context<'_>, key: K) -> Result<Vec<K::Item>> {
    let loader = ctx.data::<RequestLoader>()?;
    Ok(loader.load_one(key).await?.unwrap_or_default())
}

/// The first child of one parent, if any.
pub async fn one<K: ListKey>(ctx: &Context<'_>, key: K) -> Result<Option<K::Item>> {
    Ok(many(ctx, key).await?.into_iter().next())
}

macro_rules! relation {
    ($(#[$doc:meta])* $key:ident => $item:ty, limit $limit:expr, $sql:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $key(pub i64);
        impl ListKey for $key {
            type Item = $item;
            fn sql() -> String {
                $sql
            }
            fn parent(self) -> i64 {
                self.0
            }
            fn limit(self) -> i64 {
                $limit
            }
        }
    };
    ($(#[$doc:meta])* $key:ident(limit) => $item:ty, $sql:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $key(pub i64, pub i64);
        impl ListKey for $key {
            type Item = $item;
            fn sql() -> String {
                $sql
            }
            fn parent(self) -> i64 {
                self.0
            }
            fn limit(self) -> i64 {
                self.1
            }
        }
    };
}

fn leaders(kind: &str) -> String {
    window(
        EntityLeader::COLS,
        "leaders t",
        "t.entity_id",
        &format!("t.entity_kind = '{kind}'"),
        "t.position",
    )
}

relation!(
    /// A member by id.
    UserById => User, limit 1, by_id::<User>("members t", "1"));
relation!(
    /// An affiliated organization by id (none when not affiliated).
    OrganizationById => Organization, limit 1,
    by_id::<Organization>("organizations t", "t.is_affiliated = 1"));
relation!(
    /// Totals over an organization's repositories.
    OrganizationStatsOf => OrganizationStats, limit 1,
    by_id::<OrganizationStats>("organizations t", "1"));
relation!(
    /// Issues and published releases a member authored.
    UserTotalsOf => UserTotals, limit 1, by_id::<UserTotals>("members t", "1"));
relation!(
    /// Totals over a project's repositories.
    ProjectTotalsOf => ProjectTotals, limit 1, by_id::<ProjectTotals>("projects t", "1"));
relation!(
    /// Label names of an issue, in display order.
    LabelsOfIssue => LabelName, limit MAX_LIMIT,
    window(LabelName::COLS, "issue_labels t JOIN labels l ON l.id = t.label_id", "t.issue_id", "1",
        "t.position"));
relation!(ChapterLeaders => EntityLeader, limit MAX_LIMIT, leaders("chapter"));
relation!(CommitteeLeaders => EntityLeader, limit MAX_LIMIT, leaders("committee"));
relation!(ProjectLeaders => EntityLeader, limit MAX_LIMIT, leaders("project"));
relation!(
    /// The active project a repository belongs to (the first by id).
    ProjectOfRepository => Project, limit 1,
    children::<Project>("project_repositories pr JOIN projects t ON t.id = pr.project_id",
        "pr.repository_id", "t.is_active = 1", "t.id"));
relation!(
    /// A project's repositories, most stars first.
    ProjectRepositories => Repository, limit MAX_LIMIT,
    children::<Repository>("project_repositories pr JOIN repositories t ON t.id = pr.repository_id",
        "pr.project_id", "1", "t.stars_count DESC, t.id"));
relation!(
    ProjectIssues => Issue, limit 5,
    children::<Issue>("project_repositories pr JOIN issues t ON t.repository_id = pr.repository_id",
        "pr.project_id", "1", NEWEST_FIRST));
relation!(
    ProjectReleases => Release, limit 5,
    children::<Release>("project_repositories pr JOIN releases t ON t.repository_id = pr.repository_id",
        "pr.project_id", PUBLISHED, PUBLISHED_FIRST));
relation!(
    ProjectMilestones(limit) => Milestone,
    children::<Milestone>("project_repositories pr JOIN milestones t ON t.repository_id = pr.repository_id",
        "pr.project_id", "1", NEWEST_FIRST));
relation!(
    RepositoryIssues => Issue, limit 5,
    children::<Issue>("issues t", "t.repository_id", "1", NEWEST_FIRST));
relation!(
    RepositoryReleases => Release, limit 5,
    children::<Release>("releases t", "t.repository_id", PUBLISHED, PUBLISHED_FIRST));
relation!(
    RepositoryMilestones(limit) => Milestone,
    children::<Milestone>("milestones t", "t.repository_id", "1", NEWEST_FIRST));
relation!(
    /// Contributors of a repository, most contributions first.
    RepositoryContributors(limit) => Contributor,
    window(Contributor::COLS, "repository_contributors rc JOIN members m ON m.id = rc.member_id",
        "rc.repository_id", "1", "rc.contributions_count DESC, m.login_lc, m.id"));
relation!(
    SnapshotChapters => Chapter, limit MAX_LIMIT,
    children::<Chapter>("snapshot_chapters s JOIN chapters t ON t.id = s.chapter_id",
        "s.snapshot_id", "t.is_active = 1", CREATED_FIRST));
relation!(
    SnapshotIssues => Issue, limit 100,
    children::<Issue>("snapshot_issues s JOIN issues t ON t.id = s.issue_id",
        "s.snapshot_id", "1", CREATED_FIRST));
relation!(
    SnapshotProjects => Project, limit MAX_LIMIT,
    children::<Project>("snapshot_projects s JOIN projects t ON t.id = s.project_id",
        "s.snapshot_id", "t.is_active = 1", CREATED_FIRST));
relation!(
    SnapshotReleases => Release, limit MAX_LIMIT,
    children::<Release>("snapshot_releases s JOIN releases t ON t.id = s.release_id",
        "s.snapshot_id", PUBLISHED, PUBLISHED_FIRST));
relation!(
    SnapshotUsers => User, limit MAX_LIMIT,
    children::<User>("snapshot_members s JOIN members t ON t.id = s.member_id",
        "s.snapshot_id", "1", CREATED_FIRST));
