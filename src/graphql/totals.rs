//! Contributions summed per member, over every repository and per organization,
//! computed once per dataset file and kept in memory.
//!
//! `topContributors` without a filter, or with only `organization`, ranks members by
//! their contributions summed over many repositories: as SQL, a grouping of every
//! matching `repository_contributors` row on each request (O(table), so growing with
//! the dataset). A dataset file never changes in place (an import renames a new file
//! over it), so the sums are computed once per file, in one pass over the table, and
//! ranked; a request then reads the first members of a ranking
//! ([`Ranking`]) and filters them (excluded logins, full names) while walking it. The
//! counts of distinct contributors (`statsOverview.contributorsStats`,
//! `Organization.stats.totalContributors`) are the lengths of the same rankings. The
//! same pass notes each member's top project (`Contributor.projectKey`), which those
//! rankings' contributors read instead of a subquery per member (as every list of
//! contributors does).
//!
//! Other facts of the file that requests read per row or per request are kept
//! beside the sums, computed in the same call: each repository's organization login,
//! name and project and each release author's card, as a month's new releases write
//! them (in place of three joins and a subquery per release), each organization's id by
//! login, the sums over its repositories (`Organization.stats`) and the highest
//! repository id (the plan of an organization's recent releases and milestones).
//!
//! The sums are kept per set of GraphQL routes ([`super::db::Db`]) for the file they
//! were computed from, named by its [`FileId`]. They are computed ahead of the
//! requests that read them: when the routes are made (before they answer anything),
//! and, for a file an import put in place, as soon as a request sees it
//! ([`TotalsCache::needs`], then a background call of the read pool). Computed by
//! the first request that read them instead, they made every connection's first
//! request wait for the pass over every contribution row. Requests that need them while
//! they are being computed wait for them rather than computing them again.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::escape::string;
use crate::schema::{repo_key, ColumnsOf, NodeIdPrefix, Selected};
use crate::store::FileId;

mod packed;

use packed::Packed;

crate::selected! {
    /// An author's card (the member joined as `a`): what the frontend's lists show
    /// of an author. Lists read it after their own columns ([`super::records`]); the
    /// releases' authors are kept as it reads them ([`Totals::authors`]).
    pub struct Card {
        pub id: i64 = get("a.id"),
        pub login: String = get("a.login"),
        pub name: String = get("a.name"),
        pub avatar_url: String = get("a.avatar_url"),
    }
}

/// Members with their summed contributions, most first; ties by login (lower case),
/// then member id: the order of `topContributors`.
pub type Ranking = Vec<(i64, i64)>;

/// The contribution sums of one dataset file.
#[derive(Debug, Default)]
pub struct Totals {
    /// Over every repository (of an existing organization).
    pub all: Ranking,
    /// Over the repositories of each organization, by organization id.
    pub by_organization: HashMap<i64, Ranking>,
    /// Each member's top project: of the repositories that belong to an active
    /// project, the one with most of the member's contributions (ties: repository id,
    /// then project id); its project's key and name (`Contributor.projectKey`).
    pub top_project: HashMap<i64, (String, String)>,
    /// What a release written from its row ([`super::rows`]) takes from its
    /// repository, by repository id, for the repositories whose organization exists
    /// (the inner joins of [`super::records::REPO_JOINS`]): a release of any other
    /// repository is left out, as those joins leave it out.
    pub repositories: Repositories,
    /// The card of each member who authored a release the API shows, by member id
    /// (the records' `LEFT JOIN` of the author: a release whose author is not here
    /// has none).
    pub authors: AuthorCards,
    /// Each organization's id by its login in lower case (`login_lc`).
    pub organization_ids: HashMap<String, i64>,
    /// The sums over each organization's repositories, by organization id
    /// (`Organization.stats`); an organization without repositories has none.
    pub organization_sums: HashMap<i64, OrganizationSums>,
    /// The highest repository id (0 without repositories).
    pub max_repository_id: i64,
    /// Over the repositories linked to each active project, chapter and committee
    /// (`Project.topContributors`, ...).
    pub linked: LinkedRankings,
    /// The [`ProjectTotals`] of each active project whose four values are integers, by
    /// project id; none when computing them fails (the statement fails the same way
    /// for the project that makes it fail).
    pub project_totals: IdMap<[i64; 4]>,
    /// The related links (`related_urls`) of each chapter, committee and project, by
    /// entity kind and id, in position order; `None` for an entity whose links are
    /// not all UTF-8 text (reading them fails), none for an entity without links.
    pub related_urls: HashMap<String, IdMap<Option<Vec<String>>>>,
    /// The rows of each snapshot link table ([`SNAPSHOT_LINKS`]) per snapshot id
    /// (`snapshot_id`; a snapshot without any has none): how many new records a
    /// snapshot's list reads before it knows whether to read them whole.
    pub snapshot_links: HashMap<&'static str, IdMap<i64>>,
}

/// A total over the repositories linked to the record `t` through the link table
/// `$link` (its `$parent` column names the record): `sum(column)` sums a column of the
/// repositories, `issues` counts their issues in the dataset (open and closed),
/// `repositories` counts them.
macro_rules! linked_total {
    ($link:literal, $parent:literal, sum($col:ident)) => {
        concat!(
            "(SELECT COALESCE(SUM(r.",
            stringify!($col),
            "), 0) FROM ",
            $link,
            " lk JOIN repositories r ON r.id = lk.repository_id WHERE lk.",
            $parent,
            " = t.id)"
        )
    };
    ($link:literal, $parent:literal, issues) => {
        concat!(
            "(SELECT COUNT(*) FROM ",
            $link,
            " lk JOIN issues i ON i.repository_id = lk.repository_id WHERE lk.",
            $parent,
            " = t.id)"
        )
    };
    ($link:literal, $parent:literal, repositories) => {
        concat!(
            "(SELECT COUNT(*) FROM ",
            $link,
            " lk WHERE lk.",
            $parent,
            " = t.id)"
        )
    };
}
pub(crate) use linked_total;

/// A total over a project's repositories ([`linked_total`]).
macro_rules! project_total {
    ($($what:tt)*) => {
        linked_total!("project_repositories", "project_id", $($what)*)
    };
}

crate::selected! {
    /// Totals over a project's repositories, over the project `t` (kept per project:
    /// [`Totals::project_totals`]).
    #[derive(Clone, Copy, Default)]
    pub struct ProjectTotals {
        pub contributors: i64 = get(project_total!(sum(contributors_count))),
        /// Issues (open and closed) of the repositories in the dataset.
        pub issues: i64 = get(project_total!(issues)),
        pub open_issues: i64 = get(project_total!(sum(open_issues_count))),
        pub repositories: i64 = get(project_total!(repositories)),
    }
}

/// The tables linking a snapshot to the new records its lists read whole.
pub const SNAPSHOT_LINKS: [&str; 4] = [
    "snapshot_chapters",
    "snapshot_members",
    "snapshot_projects",
    "snapshot_releases",
];

/// The contributors of the entities with linked repositories, as their
/// `topContributors` rank them, by entity id. An active entity is missing only when
/// its ranking could not be made as the statement makes it (a count that is not an
/// integer, a sum past 64 bits, a key that is not UTF-8 text): its contributors are
/// then read by that statement.
#[derive(Debug, Default)]
pub struct LinkedRankings {
    pub projects: IdMap<Linked>,
    pub chapters: IdMap<Linked>,
    pub committees: IdMap<Linked>,
}

/// One entity's contributors: the sums of each member's contributions over the
/// repositories linked to it (members that exist), most first, ties by login (lower
/// case) then member id, and what the sums are over as the contributors' ids name it
/// (`project=` and the entity's key in lower case).
#[derive(Debug)]
pub struct Linked {
    pub scope: String,
    pub ranking: Ranking,
}

/// A map by row id, looked up once or twice per row of a list: row ids are the
/// dataset's own, not a client's, so they need no keyed hash (rustc-hash's Fx hash:
/// one multiplication for an integer).
pub type IdMap<V> = HashMap<i64, V, rustc_hash::FxBuildHasher>;

/// [`Totals::repositories`]: each repository's texts, packed ([`packed`]).
#[derive(Debug, Default)]
pub struct Repositories {
    /// Its project's name (a JSON string, or `null`), its organization's login and
    /// its name (JSON strings; empty when unreadable), and the two parts of its
    /// releases' node id prefix ([`NodeIdPrefix::parts`]; empty when unreadable).
    texts: Packed<5>,
    /// The repositories whose organization login or name cannot be read.
    unreadable: IdMap<Unreadable>,
}

impl Repositories {
    /// What a release takes from the repository `id`, when it is kept.
    pub fn get(&self, id: i64) -> Option<RepositoryFacts<'_>> {
        let [project, organization, name, encoded, rest] = self.texts.get(id)?;
        let texts = match self.unreadable.get(&id) {
            Some(unreadable) => Err(*unreadable),
            None => Ok(RepositoryTexts {
                organization,
                name,
                release_id: NodeIdPrefix::from_parts(encoded, rest),
            }),
        };
        Some(RepositoryFacts { project, texts })
    }
}

/// What a release's JSON takes from its repository.
#[derive(Debug)]
pub struct RepositoryFacts<'a> {
    /// The name of the active project it belongs to, the first by project id, as a
    /// JSON string, or `null` (`Release.projectName`,
    /// [`crate::schema::code::graphql::PROJECT_NAME`]).
    pub project: &'a [u8],
    /// Its organization's login and its name, or why they cannot be read.
    pub texts: Result<RepositoryTexts<'a>, Unreadable>,
}

/// A repository's organization login and name as a release's JSON writes them.
#[derive(Debug)]
pub struct RepositoryTexts<'a> {
    /// Its organization's login as a JSON string (`Release.organizationName`).
    pub organization: &'a [u8],
    /// Its name as a JSON string (`Release.repositoryName`).
    pub name: &'a [u8],
    /// The beginning of its releases' node ids: `Release:` and
    /// [`crate::schema::repo_key`]`(organization, name, "@")`, continued by the tag.
    pub release_id: NodeIdPrefix<&'a [u8]>,
}

/// [`Totals::authors`]: the release authors' cards, their texts packed ([`packed`]).
#[derive(Debug, Default)]
pub struct AuthorCards {
    /// Each readable card's login, name and avatar URL, UTF-8 text.
    texts: Packed<3>,
    /// The members among them whose login, name or avatar URL cannot be read as a
    /// `String`, with why the first that cannot (reading the card fails).
    unreadable: IdMap<Unreadable>,
}

impl AuthorCards {
    /// The card of the member `id`, or why reading it fails; `None` when the member
    /// is not a release author kept here.
    pub fn get(&self, id: i64) -> Option<Result<CardBytes<'_>, Unreadable>> {
        if let Some(unreadable) = self.unreadable.get(&id) {
            return Some(Err(*unreadable));
        }
        let [login, name, avatar_url] = self.texts.get(id)?;
        Some(Ok(CardBytes {
            login,
            name,
            avatar_url,
        }))
    }
}

/// A member's card (`User.id`, `login`, `name`, `avatarUrl`): its texts, UTF-8.
#[derive(Debug, Clone, Copy)]
pub struct CardBytes<'a> {
    pub login: &'a [u8],
    pub name: &'a [u8],
    pub avatar_url: &'a [u8],
}

/// Why a repository's login or name cannot be read as a `String`: reading the
/// release's row fails the same way when it needs them.
#[derive(Debug, Clone, Copy)]
pub enum Unreadable {
    NotText(rusqlite::types::Type),
    NotUtf8(std::str::Utf8Error),
}

impl Unreadable {
    /// The error reading the column `column` of a row into a `String` gives.
    pub fn error(self, column: usize) -> rusqlite::Error {
        match self {
            Unreadable::NotText(kind) => {
                rusqlite::Error::InvalidColumnType(column, String::new(), kind)
            }
            Unreadable::NotUtf8(e) => rusqlite::Error::FromSqlConversionFailure(
                column,
                rusqlite::types::Type::Text,
                Box::new(e),
            ),
        }
    }
}

/// Sums over the repositories of an organization.
#[derive(Debug, Default, Clone, Copy)]
pub struct OrganizationSums {
    pub forks: i64,
    pub open_issues: i64,
    pub repositories: i64,
    pub stars: i64,
}

/// `roost_graphql_facts_builds_total`: the facts computed, once per dataset file
/// unless a computation fails (`roost serve`'s metrics).
pub const FACTS_BUILDS: &str = "roost_graphql_facts_builds_total";

/// The [`Totals`] of the last dataset file they were computed for.
#[derive(Default)]
pub struct TotalsCache {
    kept: Mutex<Option<(FileId, Arc<Totals>)>>,
    /// A computation ahead of the requests is under way ([`TotalsCache::needs`]).
    warming: AtomicBool,
}

impl TotalsCache {
    /// Whether the totals of `file` are neither kept nor being computed; `true`
    /// claims their computation ahead of requests, which the caller must start and
    /// end with [`TotalsCache::warmed`]. Never waits.
    pub fn needs(&self, file: &FileId) -> bool {
        let Ok(kept) = self.kept.try_lock() else {
            // Someone is computing them now.
            return false;
        };
        if kept.as_ref().is_some_and(|(identity, _)| identity == file) {
            return false;
        }
        drop(kept);
        !self.warming.swap(true, Ordering::AcqRel)
    }

    /// Ends the computation [`TotalsCache::needs`] claimed.
    pub fn warmed(&self) {
        self.warming.store(false, Ordering::Release);
    }

    /// The totals of the file at `path`, if they are computed and nobody is computing
    /// them now (never waits).
    pub fn ready(&self, path: &Path) -> Option<Arc<Totals>> {
        let file = FileId::of(path).ok()?;
        let kept = self.kept.try_lock().ok()?;
        match kept.as_ref() {
            Some((identity, totals)) if *identity == file => Some(Arc::clone(totals)),
            _ => None,
        }
    }

    /// The totals of the file `conn` reads, computed through `conn` unless they are
    /// kept. Callers wait while another computes them.
    pub fn get(&self, conn: &Connection) -> rusqlite::Result<Arc<Totals>> {
        let file = FileId::of_connection(conn);
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let (Some(file), Some((identity, totals))) = (file, kept.as_ref()) {
            if *identity == file {
                return Ok(Arc::clone(totals));
            }
        }
        let totals = Arc::new(compute(conn)?);
        metrics::counter!(FACTS_BUILDS).increment(1);
        // A file without an identity (an in-memory or vanished file) is not kept.
        *kept = file.map(|file| (file, Arc::clone(&totals)));
        Ok(totals)
    }
}

/// One pass over `repository_contributors` (with the joins `topContributors` makes: a
/// contribution counts when its member, repository and organization exist), summed
/// in memory, and the members' logins in order for the ties.
fn compute(conn: &Connection) -> rusqlite::Result<Totals> {
    let by_login: Vec<i64> = collect_rows(
        conn,
        "SELECT m.id FROM members m ORDER BY m.login_lc, m.id",
        |row| row.get(0),
    )?;
    let login_rank: HashMap<i64, usize> = by_login.into_iter().zip(0..).collect();
    let (mut all, mut by_organization) = member_sums(conn, &login_rank)?;
    let rank = |ranking: &mut Ranking| {
        ranking.sort_unstable_by_key(|&(member, n)| {
            (
                std::cmp::Reverse(n),
                login_rank.get(&member).copied(),
                member,
            )
        });
        ranking.shrink_to_fit();
    };
    let of = |kind| linked(conn, kind, &login_rank, &rank);
    let linked = LinkedRankings {
        projects: of("project")?,
        chapters: of("chapter")?,
        committees: of("committee")?,
    };
    rank(&mut all);
    for ranking in by_organization.values_mut() {
        rank(ranking);
    }
    let top_project = first_per_key(
        conn,
        "SELECT tp.member_id, p.key, p.name FROM repository_contributors tp \
         JOIN project_repositories pr ON pr.repository_id = tp.repository_id \
         JOIN api_projects p ON p.id = pr.project_id \
         ORDER BY tp.member_id, tp.contributions_count DESC, tp.repository_id, p.id",
        |row| Ok((row.get(1)?, row.get(2)?)),
    )?;
    let repository_project = first_per_key(
        conn,
        "SELECT pr.repository_id, p.name FROM project_repositories pr \
         JOIN api_projects p ON p.id = pr.project_id ORDER BY pr.repository_id, pr.project_id",
        |row| row.get(1),
    )?;
    let repositories = repositories(conn, &repository_project)?;
    let authors = authors(conn)?;
    let (organization_ids, organization_sums, max_repository_id) = organizations(conn)?;
    let project_totals = project_totals(conn).unwrap_or_default();
    let related_urls = related_urls(conn)?;
    let mut snapshot_links = HashMap::new();
    for table in SNAPSHOT_LINKS {
        snapshot_links.insert(table, links(conn, table)?);
    }
    Ok(Totals {
        all,
        by_organization,
        top_project,
        repositories,
        authors,
        organization_ids,
        organization_sums,
        max_repository_id,
        linked,
        snapshot_links,
        project_totals,
        related_urls,
    })
}

/// Each member's contributions (of the members in `login_rank`) summed over every
/// repository, and over each organization's, unranked.
fn member_sums(
    conn: &Connection,
    login_rank: &HashMap<i64, usize>,
) -> rusqlite::Result<(Ranking, HashMap<i64, Ranking>)> {
    let mut by_pair: HashMap<(i64, i64), i64> = HashMap::new();
    each_row(
        conn,
        "SELECT r.organization_id, rc.member_id, rc.contributions_count \
         FROM repository_contributors rc JOIN repositories r ON r.id = rc.repository_id \
         JOIN organizations o ON o.id = r.organization_id",
        |row| {
            let (organization, member, count): (i64, i64, i64) =
                (row.get(0)?, row.get(1)?, row.get(2)?);
            if login_rank.contains_key(&member) {
                let sum = by_pair.entry((organization, member)).or_insert(0);
                *sum = sum.saturating_add(count);
            }
            Ok(())
        },
    )?;
    let mut all: HashMap<i64, i64> = HashMap::new();
    let mut by_organization: HashMap<i64, Ranking> = HashMap::new();
    for ((organization, member), n) in by_pair {
        let sum = all.entry(member).or_insert(0);
        *sum = sum.saturating_add(n);
        by_organization
            .entry(organization)
            .or_default()
            .push((member, n));
    }
    Ok((all.into_iter().collect(), by_organization))
}

/// [`Totals::related_urls`]: as a statement finds an entity's links by its kind
/// (text) and id (an integer) and reads each in position order.
fn related_urls(
    conn: &Connection,
) -> rusqlite::Result<HashMap<String, IdMap<Option<Vec<String>>>>> {
    let mut out: HashMap<String, IdMap<Option<Vec<String>>>> = HashMap::new();
    each_row(
        conn,
        "SELECT t.entity_kind, t.entity_id, t.url FROM related_urls t \
         ORDER BY t.entity_kind, t.entity_id, t.position",
        |row| {
            let (ValueRef::Text(kind), ValueRef::Integer(id)) = (row.get_ref(0)?, row.get_ref(1)?)
            else {
                return Ok(());
            };
            let Ok(kind) = std::str::from_utf8(kind) else {
                return Ok(());
            };
            let url = match row.get_ref(2)? {
                ValueRef::Text(url) => std::str::from_utf8(url).ok().map(str::to_string),
                _ => None,
            };
            let by_id = out.entry(kind.to_string()).or_default();
            let urls = by_id.entry(id).or_insert_with(|| Some(Vec::new()));
            match (urls.as_mut(), url) {
                (Some(urls), Some(url)) => urls.push(url),
                _ => *urls = None,
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// [`Totals::project_totals`].
fn project_totals(conn: &Connection) -> rusqlite::Result<IdMap<[i64; 4]>> {
    let mut out = IdMap::default();
    each_row(
        conn,
        &format!(
            "SELECT t.id, {} FROM api_projects t",
            ProjectTotals::COLUMNS
        ),
        |row| {
            let mut values = [0; 4];
            let mut integers = true;
            for (i, value) in values.iter_mut().enumerate() {
                match row.get_ref(1 + i)? {
                    ValueRef::Integer(n) => *value = n,
                    _ => integers = false,
                }
            }
            if let (true, ValueRef::Integer(id)) = (integers, row.get_ref(0)?) {
                out.insert(id, values);
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// The rows of the snapshot link `table` per snapshot id, as the count of a snapshot's
/// links by `snapshot_id = ?` finds them (an id that is not an integer is no
/// snapshot's).
fn links(conn: &Connection, table: &str) -> rusqlite::Result<IdMap<i64>> {
    let mut out = IdMap::default();
    each_row(
        conn,
        &format!("SELECT l.snapshot_id, COUNT(*) FROM {table} l GROUP BY l.snapshot_id"),
        |row| {
            if let ValueRef::Integer(snapshot) = row.get_ref(0)? {
                out.insert(snapshot, row.get(1)?);
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// The [`Linked`] ranking of every entity of a `kind` (`project`: the active ones, of
/// the view `api_projects`) over the repositories its link table
/// (`project_repositories`) links to it (by `project_id`), as the relation's
/// statement ranks them (`linked_contributors` in [`super::records`]): the members'
/// sums of `contributions_count` (SQL's `SUM`, of the members that exist), ranked by
/// `rank`. An entity whose sums SQL would not make the same way is left out.
fn linked(
    conn: &Connection,
    kind: &str,
    members: &HashMap<i64, usize>,
    rank: &impl Fn(&mut Ranking),
) -> rusqlite::Result<IdMap<Linked>> {
    let (table, link, column) = (
        format!("api_{kind}s"),
        format!("{kind}_repositories"),
        format!("{kind}_id"),
    );
    let mut sums: IdMap<Option<HashMap<i64, i64>>> = IdMap::default();
    let mut scopes: IdMap<String> = IdMap::default();
    each_row(
        conn,
        &format!("SELECT e.id, e.key_lc FROM {table} e"),
        |row| {
            let id: i64 = row.get(0)?;
            // `'kind=' || key_lc`, read as a `String`.
            let key = match row.get_ref(1)? {
                ValueRef::Text(text) => std::str::from_utf8(text).ok(),
                _ => None,
            };
            if let Some(key) = key {
                scopes.insert(id, format!("{kind}={key}"));
            }
            sums.insert(id, key.map(|_| HashMap::new()));
            Ok(())
        },
    )?;
    each_row(
        conn,
        &format!(
            "SELECT lk.{column}, rc.member_id, rc.contributions_count FROM {link} lk \
             JOIN repository_contributors rc ON rc.repository_id = lk.repository_id"
        ),
        |row| {
            // Only integers join the entities' and the members' ids.
            let (ValueRef::Integer(entity), ValueRef::Integer(member)) =
                (row.get_ref(0)?, row.get_ref(1)?)
            else {
                return Ok(());
            };
            let Some(entity) = sums.get_mut(&entity) else {
                return Ok(());
            };
            let Some(by_member) = entity else {
                return Ok(());
            };
            if !members.contains_key(&member) {
                return Ok(());
            }
            let sum = match row.get_ref(2)? {
                ValueRef::Integer(n) => by_member.get(&member).copied().unwrap_or(0).checked_add(n),
                _ => None,
            };
            match sum {
                Some(sum) => {
                    by_member.insert(member, sum);
                }
                None => *entity = None,
            }
            Ok(())
        },
    )?;
    let mut out = IdMap::default();
    for (id, by_member) in sums {
        let (Some(by_member), Some(scope)) = (by_member, scopes.remove(&id)) else {
            continue;
        };
        let mut ranking: Ranking = by_member.into_iter().collect();
        rank(&mut ranking);
        out.insert(id, Linked { scope, ranking });
    }
    Ok(out)
}

/// Runs `sql` and calls `f` with each row, in the statement's order.
fn each_row(
    conn: &Connection,
    sql: &str,
    mut f: impl FnMut(&rusqlite::Row) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let mut st = conn.prepare_cached(sql)?;
    let mut rows = st.query([])?;
    while let Some(row) = rows.next()? {
        f(row)?;
    }
    Ok(())
}

/// The rows of `sql`, each made by `f`, collected.
fn collect_rows<T, C: FromIterator<T>>(
    conn: &Connection,
    sql: &str,
    f: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
) -> rusqlite::Result<C> {
    conn.prepare_cached(sql)?.query_map([], f)?.collect()
}

/// The value of the first row of each key (the statement's first column), in the
/// statement's order: a member's top project, a repository's project.
fn first_per_key<V>(
    conn: &Connection,
    sql: &str,
    value: impl Fn(&rusqlite::Row) -> rusqlite::Result<V>,
) -> rusqlite::Result<HashMap<i64, V>> {
    let mut out = HashMap::new();
    each_row(conn, sql, |row| {
        if let std::collections::hash_map::Entry::Vacant(entry) = out.entry(row.get(0)?) {
            entry.insert(value(row)?);
        }
        Ok(())
    })?;
    Ok(out)
}

/// The [`RepositoryFacts`] of every repository whose organization exists, with the
/// project name of each (`projects`, by repository id).
fn repositories(
    conn: &Connection,
    projects: &HashMap<i64, Option<String>>,
) -> rusqlite::Result<Repositories> {
    let mut out = Repositories::default();
    each_row(
        conn,
        "SELECT r.id, o.login, r.name FROM repositories r \
         JOIN organizations o ON o.id = r.organization_id",
        |row| {
            let id: i64 = row.get(0)?;
            let text = |i: usize| -> rusqlite::Result<Result<&str, Unreadable>> {
                Ok(match row.get_ref(i)? {
                    ValueRef::Text(text) => std::str::from_utf8(text).map_err(Unreadable::NotUtf8),
                    value => Err(Unreadable::NotText(value.data_type())),
                })
            };
            let json = |text: &str| {
                let mut out = Vec::with_capacity(text.len() + 2);
                string(text, &mut out);
                out
            };
            let project = match projects.get(&id).and_then(Option::as_deref) {
                Some(project) => json(project),
                None => b"null".to_vec(),
            };
            match (text(1)?, text(2)?) {
                (Ok(organization), Ok(name)) => {
                    let release_id =
                        NodeIdPrefix::new("Release", &repo_key(organization, name, "@"));
                    let (encoded, rest) = release_id.parts();
                    let (organization, name) = (json(organization), json(name));
                    out.texts
                        .push(id, [&project, &organization, &name, encoded, rest]);
                }
                (Err(e), _) | (_, Err(e)) => {
                    out.texts.push(id, [&project, b"", b"", b"", b""]);
                    out.unreadable.insert(id, e);
                }
            }
            Ok(())
        },
    )?;
    out.texts = out.texts.sorted();
    Ok(out)
}

/// The cards of every member who authored a release the API shows.
fn authors(conn: &Connection) -> rusqlite::Result<AuthorCards> {
    type At = ColumnsOf<Card>;
    let mut out = AuthorCards::default();
    each_row(
        conn,
        &format!(
            "SELECT {} FROM members a WHERE a.id IN (SELECT t.author_id FROM api_releases t)",
            Card::COLUMNS
        ),
        |row| {
            let id: i64 = row.get(At::id)?;
            let mut texts = [b"".as_slice(); 3];
            let mut unreadable = None;
            for (text, i) in texts.iter_mut().zip([At::login, At::name, At::avatar_url]) {
                let read = match row.get_ref(i)? {
                    ValueRef::Text(bytes) => std::str::from_utf8(bytes)
                        .map(|_| bytes)
                        .map_err(Unreadable::NotUtf8),
                    value => Err(Unreadable::NotText(value.data_type())),
                };
                match read {
                    Ok(bytes) => *text = bytes,
                    Err(e) => unreadable = unreadable.or(Some(e)),
                }
            }
            // An unreadable card is found among `unreadable` first: no texts kept.
            match unreadable {
                Some(e) => {
                    out.unreadable.insert(id, e);
                }
                None => out.texts.push(id, texts),
            }
            Ok(())
        },
    )?;
    out.texts = out.texts.sorted();
    Ok(out)
}

/// Each organization's id by lower-case login, the sums over its repositories, and
/// the highest repository id.
type OrganizationFacts = (HashMap<String, i64>, HashMap<i64, OrganizationSums>, i64);

fn organizations(conn: &Connection) -> rusqlite::Result<OrganizationFacts> {
    let organization_ids: HashMap<String, i64> = collect_rows(
        conn,
        "SELECT o.login_lc, o.id FROM organizations o",
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    // As SQL's `SUM` of each column (nulls left out) and `COUNT` of the repositories.
    let mut organization_sums: HashMap<i64, OrganizationSums> = HashMap::new();
    let mut max_repository_id = 0;
    each_row(
        conn,
        "SELECT r.id, r.organization_id, r.forks_count, r.open_issues_count, r.stars_count \
         FROM repositories r",
        |row| {
            max_repository_id = max_repository_id.max(row.get(0)?);
            let Some(organization) = row.get::<_, Option<i64>>(1)? else {
                return Ok(());
            };
            let sums = organization_sums.entry(organization).or_default();
            let add = |sum: &mut i64, n: Option<i64>| *sum = sum.saturating_add(n.unwrap_or(0));
            add(&mut sums.forks, row.get(2)?);
            add(&mut sums.open_issues, row.get(3)?);
            add(&mut sums.stars, row.get(4)?);
            sums.repositories += 1;
            Ok(())
        },
    )?;
    Ok((organization_ids, organization_sums, max_repository_id))
}
