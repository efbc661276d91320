//! The relations between records, each a key type naming a parent record (and, for
//! lists with a `limit` argument, how many children to keep) with the one statement
//! that loads the children of many parents at once: a window query that numbers the
//! children of every requested parent and keeps the first `limit` of each.
//! [`super::super::loaders`] batches the keys and runs these statements.

use std::collections::HashMap;
use std::hash::Hash;

use rusqlite::types::Value;

use crate::graphql::db::{ids_json, Cols, Conn};
use crate::graphql::totals::{IdMap, Linked, LinkedRankings};

use super::contributions::{self, Dated};
use super::*;

/// A relation: a parent record and how many of its children to load.
pub trait ListKey: Copy + Eq + Hash + Send + Sync + 'static {
    type Item: Record;
    /// A statement with `?1` the parent ids (JSON array), `?2` the limit and `?3`, ...
    /// the values of [`ListKey::bound`], yielding `(parent id, position, item
    /// columns...)`, in any order: the loader puts each parent's children in position
    /// order. (Sorting the full rows in SQLite copied every column through its sorter:
    /// a quarter of the time of a month's 529 releases.)
    ///
    /// With [`ListKey::KEYS`] above 1 the statement is one of [`whole_children`]:
    /// `?1` only, yielding `(parent id, key 1, ..., key KEYS, item columns...)` for
    /// every child, and the loader sorts each parent's children by the keys and keeps
    /// the first `limit`.
    fn sql() -> String;
    /// The integer columns after the parent id that order the children: 1, the
    /// position a window gave each kept child, or the order's own columns (descending
    /// ones negated) of a list read whole, at most [`MAX_SORT_KEYS`].
    const KEYS: usize = 1;
    /// For a list read whole: a statement yielding `(parent id, children)` for the
    /// parents in `?1` (at least as many as [`ListKey::sql`] reads), and the numbered
    /// statement (as [`children`], position and limit) read instead for the parents
    /// with more children than the limit, so that a long list still costs its limit
    /// in full rows, not its length.
    fn numbered() -> Option<(String, String)> {
        None
    }
    /// For a list read whole whose links [`ListKey::numbered`] counts in a snapshot
    /// link table: that table, whose counts per snapshot are kept per dataset file
    /// ([`crate::graphql::totals::Totals::snapshot_links`]) and read instead.
    const LINKS: Option<&'static str> = None;
    /// The values bound after the parent ids and the limit; none unless the relation
    /// says so.
    fn bound() -> Vec<Value> {
        Vec::new()
    }
    fn parent(self) -> i64;
    fn limit(self) -> i64;
    /// How the children of one load are read from their columns: as their item reads
    /// itself, unless the relation also reads what is kept per dataset file
    /// ([`crate::graphql::totals`]), taken once through `conn`.
    fn reader(
        conn: &Conn,
    ) -> rusqlite::Result<impl FnMut(&mut Cols) -> rusqlite::Result<Self::Item>> {
        let _ = conn;
        Ok(|c: &mut Cols| Self::Item::read(c))
    }
    /// When what is kept per dataset file ([`crate::graphql::totals`]) already holds
    /// the children of `parents`: they, in place of [`ListKey::sql`]'s. `None` (by
    /// default) reads them with [`ListKey::sql`].
    fn kept(
        conn: &Conn,
        parents: &[i64],
        limit: i64,
    ) -> rusqlite::Result<Option<Kept<Self::Item>>> {
        let _ = (conn, parents, limit);
        Ok(None)
    }
}

/// The children of a load by parent, in order, from what is kept per dataset file
/// ([`ListKey::kept`]).
pub type Kept<T> = HashMap<i64, Vec<T>>;

/// `limit` children of each parent: `grp` names the parent id column, `order` sorts
/// the children (ending with a unique column, so the order is total).
pub(crate) fn window(cols: &str, from: &str, grp: &str, filter: &str, order: &str) -> String {
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
pub(crate) fn children<T: Table>(link: &str, grp: &str, filter: &str, order: &str) -> String {
    format!(
        "SELECT w.grp, w.pos, {cols} FROM (SELECT * FROM (SELECT {grp} AS grp, \
            ROW_NUMBER() OVER (PARTITION BY {grp} ORDER BY {order}) AS pos, t.id AS id \
          FROM {link} WHERE {grp} IN (SELECT value FROM json_each(?1)) AND {filter}) \
          WHERE pos <= ?2) w \
         CROSS JOIN {table} t{joins} WHERE t.id = w.id",
        cols = T::COLUMNS,
        table = T::TABLE,
        joins = T::JOINS,
    )
}

/// Like [`children`] for children in their own table `T` with the parent's id in
/// the column `grp` (`t.repository_id`): each parent's first `limit` children are
/// found by a statement of their own, which walks an index on the parent column and
/// the order (`issues (repository_id, created_at DESC, ...)`) and stops at the limit,
/// where numbering them would read every child of the parent first.
fn first_children<T: Table>(grp: &str, filter: &str, order: &str) -> String {
    format!(
        "SELECT w.grp, w.pos, {cols} FROM (SELECT p.value AS grp, \
            ROW_NUMBER() OVER (PARTITION BY p.value ORDER BY {order}) AS pos, t.id AS id \
          FROM json_each(?1) p JOIN {table} t ON t.id IN (SELECT t.id FROM {table} t \
            WHERE {grp} = p.value AND {filter} ORDER BY {order} LIMIT ?2)) w \
         CROSS JOIN {table} t{joins} WHERE t.id = w.id",
        cols = T::COLUMNS,
        table = T::TABLE,
        joins = T::JOINS,
    )
}

/// Like [`first_children`] for children reached through a link table (a project's
/// repositories, `link` aliased with the parent column `grp` and the linked id
/// `linked`): each linked record's first `limit` children that match `filter` are
/// found by a statement of their own on the index of the child column `child` and the
/// order, and the parent keeps the first `limit` of those. Numbering every child of
/// every linked record read them all (a project's issues) to keep five.
fn linked_first_children<T: Table>(
    link: &str,
    grp: &str,
    linked: &str,
    child: &str,
    filter: &str,
    order: &str,
) -> String {
    format!(
        "SELECT w.grp, w.pos, {cols} FROM (SELECT * FROM (SELECT {grp} AS grp, \
            ROW_NUMBER() OVER (PARTITION BY {grp} ORDER BY {order}) AS pos, t.id AS id \
          FROM {link} JOIN {table} t ON t.id IN (SELECT t.id FROM {table} t \
            WHERE t.{child} = {linked} AND {filter} ORDER BY {order} LIMIT ?2) \
          WHERE {grp} IN (SELECT value FROM json_each(?1))) WHERE pos <= ?2) w \
         CROSS JOIN {table} t{joins} WHERE t.id = w.id",
        cols = T::COLUMNS,
        table = T::TABLE,
        joins = T::JOINS,
    )
}

/// The first `T` of a project's repositories in `order` ([`linked_first_children`]).
fn project_first_children<T: Table>(order: &str) -> String {
    project_first_matching::<T>("1", order)
}

/// Like [`project_first_children`], of the children that match `filter`.
fn project_first_matching<T: Table>(filter: &str, order: &str) -> String {
    linked_first_children::<T>(
        "project_repositories pr",
        "pr.project_id",
        "pr.repository_id",
        "repository_id",
        filter,
        order,
    )
}

/// The most sort-key columns of a list read whole ([`ListKey::KEYS`]).
pub const MAX_SORT_KEYS: usize = 3;

/// Every child of the requested parents, read in full in one pass (`link` joins the
/// parent column `grp` to the child table aliased `t`), with `order`'s columns as the
/// integer sort key ([`sort_key`]): the loader orders each parent's children and
/// keeps the first `limit`. For lists whose limit keeps all or nearly all the
/// children (a snapshot's new records), where numbering them first as [`children`]
/// does reads every child's row twice (once for the order, once in full) and sorts
/// them in a window, this reads each row once and sorts the ids alone
/// (bench/history/2026-11.md, "A snapshot's new records read whole").
///
/// The parent ids lead the join (`CROSS JOIN` fixes the order): with `{grp} IN
/// (SELECT value FROM json_each(?1))` SQLite planned a scan of the whole link table
/// with a Bloom filter, four times the steps of searching its index by parent.
///
/// Read whole only up to the limit: [`ListKey::numbered`] counts each parent's links
/// first ([`link_count`]) and reads a parent with more as [`children`] does.
fn whole_children<T: Table>(link: &str, grp: &str, filter: &str, order: &str) -> String {
    format!(
        "SELECT {grp}, {keys}, {cols} FROM json_each(?1) parents \
         CROSS JOIN {link}{joins} WHERE {grp} = parents.value AND {filter}",
        keys = sort_key(order),
        cols = T::COLUMNS,
        joins = T::JOINS,
    )
}

/// An `ORDER BY` list of integer columns (`t.created_at DESC, t.id DESC`) as columns
/// that sort the same way ascending (`-t.created_at, -t.id`): the loader sorts the
/// children of a list read whole by them ([`ListKey::KEYS`]).
fn sort_key(order: &str) -> String {
    let columns: Vec<String> = order
        .split(',')
        .map(|term| {
            let term = term.trim();
            match term.strip_suffix(" DESC") {
                Some(column) => format!("-{column}"),
                None => term.strip_suffix(" ASC").unwrap_or(term).to_string(),
            }
        })
        .collect();
    columns.join(", ")
}

/// The links of each parent in `?1`: `table`'s rows whose `column` is the parent id,
/// counted on its index (the children of a list read whole, before any filter). A
/// count per parent, not a `GROUP BY` of the joined links, which sorts them in a
/// temporary B-tree.
fn link_count(table: &str, column: &str) -> String {
    format!(
        "SELECT parents.value, (SELECT COUNT(*) FROM {table} l WHERE l.{column} = parents.value) \
         FROM json_each(?1) parents"
    )
}

/// One record per id (`limit` 1): lookups by id and per-record aggregates.
fn by_id<T: Record>(from: &str, filter: &str) -> String {
    window(T::COLUMNS, from, "t.id", filter, "t.id")
}

/// The `kept` of a relation key ([`ListKey::kept`]): the children taken from facts
/// kept per dataset file by `$kept`, in both arms of [`relation!`].
macro_rules! kept_from {
    ($kept:expr) => {
        fn kept(
            conn: &Conn,
            parents: &[i64],
            limit: i64,
        ) -> rusqlite::Result<Option<Kept<Self::Item>>> {
            $kept(conn, parents, limit)
        }
    };
}

/// A relation key type. `limit N` fixes the number of children; `(limit)` takes it
/// from the key's second field; `bind "text"` binds a text value as `?3`.
macro_rules! relation {
    ($(#[$doc:meta])* $key:ident => $item:ty, limit $limit:expr, $sql:expr
     $(, bind $bound:literal)?
     $(, keys $keys:expr, counted $count:expr, numbered $numbered:expr)?
     $(, links $links:expr)?
     $(, kept $kept:expr)?) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $key(pub i64);
        impl ListKey for $key {
            type Item = $item;
            $(const KEYS: usize = $keys;)?
            $(const LINKS: Option<&'static str> = Some($links);)?
            $(kept_from!($kept);)?
            $(fn numbered() -> Option<(String, String)> {
                Some(($count, $numbered))
            })?
            fn sql() -> String {
                $sql
            }
            $(fn bound() -> Vec<Value> {
                vec![Value::Text(String::from($bound))]
            })?
            fn parent(self) -> i64 {
                self.0
            }
            fn limit(self) -> i64 {
                $limit
            }
        }
    };
    ($(#[$doc:meta])* $key:ident(limit) => $item:ty, $sql:expr $(, read $reader:path)?
     $(, kept $kept:expr)?) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $key(pub i64, pub i64);
        impl ListKey for $key {
            type Item = $item;
            fn sql() -> String {
                $sql
            }
            $(fn reader(
                conn: &Conn,
            ) -> rusqlite::Result<impl FnMut(&mut Cols) -> rusqlite::Result<Self::Item>> {
                $reader(conn)
            })?
            $(kept_from!($kept);)?
            fn parent(self) -> i64 {
                self.0
            }
            fn limit(self) -> i64 {
                self.1
            }
        }
    };
}

/// The leaders of one kind of entity (bound as `?3`), in display order.
fn leaders() -> String {
    window(
        EntityLeader::COLUMNS,
        "leaders t",
        "t.entity_id",
        "t.entity_kind = ?3",
        "t.position",
    )
}

relation!(
    /// A member by id.
    UserById => User, limit 1, by_id::<User>("members t", "1"));
relation!(
    /// An affiliated organization by id (none when not affiliated).
    OrganizationById => Organization, limit 1,
    by_id::<Organization>("api_organizations t", "1"));
relation!(
    /// Issues and published releases a member authored.
    UserTotalsOf => UserTotals, limit 1, by_id::<UserTotals>("members t", "1"));
relation!(
    /// The counts of a snapshot's new records.
    SnapshotCountsOf => SnapshotCounts, limit 1, by_id::<SnapshotCounts>("api_snapshots t", "1"));
relation!(
    /// Totals over a project's repositories (kept per dataset file).
    ProjectTotalsOf => ProjectTotals, limit 1, by_id::<ProjectTotals>("api_projects t", "1"),
    kept kept_project_totals);
relation!(
    /// Label names of an issue, in display order.
    LabelsOfIssue => LabelName, limit MAX_LIMIT,
    window(LabelName::COLUMNS, "issue_labels t JOIN labels l ON l.id = t.label_id", "t.issue_id", "1",
        "t.position"));
/// The chat channels of one kind of entity (bound as `?3`), in display order.
fn channels() -> String {
    window(
        EntityChannel::COLUMNS,
        "channels t",
        "t.entity_id",
        "t.entity_kind = ?3",
        "t.position",
    )
}

/// The related links of one kind of entity (bound as `?3`), in display order.
fn related_urls() -> String {
    window(
        "t.url",
        "related_urls t",
        "t.entity_id",
        "t.entity_kind = ?3",
        "t.position",
    )
}

/// The lists every chapter, committee and project has (its kind bound as `?3`):
/// leaders, chat channels and related links, in display order.
macro_rules! entity_lists {
    ($($kind:literal: $leaders:ident, $channels:ident, $urls:ident;)*) => {$(
        relation!($leaders => EntityLeader, limit MAX_LIMIT, leaders(), bind $kind);
        relation!($channels => EntityChannel, limit MAX_LIMIT, channels(), bind $kind);
        relation!($urls => Text, limit MAX_LIMIT, related_urls(), bind $kind,
            kept |conn, parents, limit| kept_urls(conn, $kind, parents, limit));
    )*};
}

/// The related links of entities of `kind` kept per dataset file
/// ([`crate::graphql::totals::Totals::related_urls`]), when every parent's are
/// readable: what [`related_urls`] reads.
fn kept_urls(
    conn: &Conn,
    kind: &str,
    parents: &[i64],
    limit: i64,
) -> rusqlite::Result<Option<Kept<Text>>> {
    let totals = conn.contributor_totals()?;
    let kept = totals.related_urls.get(kind);
    let take = usize::try_from(limit).unwrap_or(0);
    let mut out = Kept::with_capacity(parents.len());
    for parent in parents {
        let urls = match kept.and_then(|by_id| by_id.get(parent)) {
            None => Vec::new(),
            Some(None) => return Ok(None),
            Some(Some(urls)) => urls
                .iter()
                .take(take)
                .map(|url| Text(url.clone()))
                .collect(),
        };
        if !urls.is_empty() {
            out.insert(*parent, urls);
        }
    }
    Ok(Some(out))
}

entity_lists! {
    "chapter": ChapterLeaders, ChapterChannels, ChapterUrls;
    "committee": CommitteeLeaders, CommitteeChannels, CommitteeUrls;
    "project": ProjectLeaders, ProjectChannels, ProjectUrls;
}
relation!(
    /// Totals over a committee's repositories.
    CommitteeTotalsOf => CommitteeTotals, limit 1,
    by_id::<CommitteeTotals>("api_committees t", "1"));
relation!(
    /// A member's badges, lightest weight first (then by name).
    UserBadges => Badge, limit MAX_LIMIT,
    window(Badge::COLUMNS, "member_badges mb JOIN badges t ON t.id = mb.badge_id", "mb.member_id",
        "1", "t.weight, t.name_lc, t.id"));
relation!(
    /// A project's health measurements, newest first.
    ProjectHealthMetrics(limit) => HealthMetrics,
    first_children::<HealthMetrics>("t.project_id", "1", "t.created_at DESC, t.id DESC"));
relation!(
    /// The newest pull requests of a project's repositories.
    ProjectPullRequests => PullRequest, limit 5,
    project_first_children::<PullRequest>(NEWEST_FIRST));
relation!(BoardCandidates => EntityLeader, limit MAX_LIMIT, leaders(), bind "board_candidate");
relation!(BoardMembers => EntityLeader, limit MAX_LIMIT, leaders(), bind "board_member");
relation!(
    /// The active project a repository belongs to (the first by id).
    ProjectOfRepository => Project, limit 1,
    children::<Project>("project_repositories pr JOIN api_projects t ON t.id = pr.project_id",
        "pr.repository_id", "1", "t.id"));
relation!(
    /// A project's repositories, most stars first.
    ProjectRepositories => Repository, limit MAX_LIMIT,
    children::<Repository>("project_repositories pr JOIN repositories t ON t.id = pr.repository_id",
        "pr.project_id", "1", "t.stars_count DESC, t.id"));
relation!(
    /// [`ProjectRepositories`] with their organizations' cards.
    ProjectRepositoryCards => OrgCarded<Repository>, limit MAX_LIMIT,
    children::<OrgCarded<Repository>>(
        "project_repositories pr JOIN repositories t ON t.id = pr.repository_id",
        "pr.project_id", "1", "t.stars_count DESC, t.id"));
relation!(
    /// [`ProjectRepositories`] as summaries, with their organizations' cards.
    ProjectRepositorySummaries => RepositorySummary, limit MAX_LIMIT,
    children::<RepositorySummary>(
        "project_repositories pr JOIN repositories t ON t.id = pr.repository_id",
        "pr.project_id", "1", "t.stars_count DESC, t.id"));
relation!(
    /// [`ProjectPullRequests`] with their authors' cards.
    ProjectPullRequestCards => Carded<PullRequest>, limit 5,
    project_first_children::<Carded<PullRequest>>(NEWEST_FIRST));
relation!(
    /// [`ProjectReleases`] with their authors' cards.
    ProjectReleaseCards => CardRelease, limit 5,
    project_first_matching::<CardRelease>(RELEASE_OF_PROJECT, PUBLISHED_FIRST));
relation!(
    ProjectIssues => Issue, limit 5,
    project_first_children::<Issue>(NEWEST_FIRST));
relation!(
    /// The original's `Project.recentReleases`: published, drafts left out.
    ProjectReleases => Release, limit 5,
    project_first_matching::<Release>(RELEASE_OF_PROJECT, PUBLISHED_FIRST));
relation!(
    ProjectMilestones(limit) => Milestone,
    project_first_children::<Milestone>(NEWEST_FIRST));
relation!(
    RepositoryIssues => Issue, limit 5,
    first_children::<Issue>("t.repository_id", "1", NEWEST_FIRST));
relation!(
    /// The original's `Repository.releases`: published, drafts and pre-releases left
    /// out.
    RepositoryReleases => Release, limit 5,
    first_children::<Release>("t.repository_id", RELEASE_LISTED, PUBLISHED_FIRST));
relation!(
    RepositoryMilestones(limit) => Milestone,
    first_children::<Milestone>("t.repository_id", "1", NEWEST_FIRST));
/// Contributors with their counts: `ranked` yields `(grp, pos, mid, n)` (the parent,
/// the position, the member id and the count) for the requested parents; `scope`
/// names what the counts are summed over, from the parent `g.grp`. Each member's top
/// project is the one the contribution sums keep ([`contributor_reader`]).
fn contributors(ranked: &str, scope: &str) -> String {
    format!(
        "SELECT g.grp, g.pos, {cols} FROM (SELECT w.*, {scope} AS scope FROM ({ranked}) w \
           WHERE w.pos <= ?2) g \
         JOIN members m ON m.id = g.mid ORDER BY g.grp, g.pos",
        cols = Contributor::RANKED_COLUMNS,
    )
}

/// Reads contributors of [`contributors`] with their top projects from the
/// contribution sums of the dataset file (one look-up each, not a subquery).
fn contributor_reader(
    conn: &Conn,
) -> rusqlite::Result<impl FnMut(&mut Cols) -> rusqlite::Result<Contributor>> {
    let totals = conn.contributor_totals()?;
    Ok(move |c: &mut Cols| Contributor::read_ranked(c, &totals.top_project))
}

relation!(
    /// Contributors of a repository, most contributions first.
    RepositoryContributors(limit) => Contributor,
    contributors(
        "SELECT rc.repository_id AS grp, ROW_NUMBER() OVER (PARTITION BY rc.repository_id \
            ORDER BY rc.contributions_count DESC, m.login_lc, m.id) AS pos, \
            rc.member_id AS mid, rc.contributions_count AS n \
         FROM repository_contributors rc JOIN members m ON m.id = rc.member_id \
         WHERE rc.repository_id IN (SELECT value FROM json_each(?1))",
        "(SELECT 'repository=' || o.login_lc || '/' || r.name_lc FROM repositories r \
            JOIN organizations o ON o.id = r.organization_id WHERE r.id = w.grp)"),
    read contributor_reader);

/// Contributors of an entity with linked repositories (`link`: the table linking the
/// entity column `entity` to `repository_id`), by their contributions summed over
/// them, most first; `kind` and `table` name the entity in the records' ids.
fn linked_contributors(link: &str, entity: &str, kind: &str, table: &str) -> String {
    contributors(
        &format!(
            "SELECT grp, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY n DESC, login_lc, mid) \
                AS pos, mid, n \
             FROM (SELECT lk.{entity} AS grp, rc.member_id AS mid, \
                     SUM(rc.contributions_count) AS n, m.login_lc AS login_lc \
                   FROM {link} lk \
                   JOIN repository_contributors rc ON rc.repository_id = lk.repository_id \
                   JOIN members m ON m.id = rc.member_id \
                   WHERE lk.{entity} IN (SELECT value FROM json_each(?1)) \
                   GROUP BY lk.{entity}, rc.member_id)"
        ),
        &format!("(SELECT '{kind}=' || e.key_lc FROM {table} e WHERE e.id = w.grp)"),
    )
}

/// The totals of projects kept per dataset file
/// ([`crate::graphql::totals::Totals::project_totals`]), when every parent's is
/// kept: what [`ProjectTotalsOf`]'s statement reads.
fn kept_project_totals(
    conn: &Conn,
    parents: &[i64],
    _limit: i64,
) -> rusqlite::Result<Option<Kept<ProjectTotals>>> {
    let totals = conn.contributor_totals()?;
    let mut out = HashMap::with_capacity(parents.len());
    for parent in parents {
        let Some(&[contributors, issues, open_issues, repositories]) =
            totals.project_totals.get(parent)
        else {
            return Ok(None);
        };
        let kept = ProjectTotals {
            contributors,
            issues,
            open_issues,
            repositories,
        };
        out.insert(*parent, vec![kept]);
    }
    Ok(Some(out))
}

/// The contributors of entities with linked repositories from their rankings kept
/// per dataset file ([`crate::graphql::totals::LinkedRankings`], `of` choosing the
/// entity's kind), when every parent's is kept: the members of each parent's first
/// `limit` places are read by id (at the places of [`linked_contributors`]'s
/// columns), their sums and what they are summed over taken from the ranking. The
/// ranking's sums and order are the statement's, so only its grouping of every
/// linked contribution is saved.
fn kept_contributors(
    conn: &Conn,
    parents: &[i64],
    limit: i64,
    of: fn(&LinkedRankings) -> &IdMap<Linked>,
) -> rusqlite::Result<Option<Kept<Contributor>>> {
    let totals = conn.contributor_totals()?;
    let kept = of(&totals.linked);
    // Each place: its parent, the sum and what it is over; the members in order.
    let mut places = Vec::new();
    let mut members = Vec::new();
    for parent in parents {
        let Some(linked) = kept.get(parent) else {
            return Ok(None);
        };
        let take = usize::try_from(limit).unwrap_or(0);
        for &(member, n) in linked.ranking.iter().take(take) {
            places.push((*parent, n, linked.scope.as_str()));
            members.push(member);
        }
    }
    if places.is_empty() {
        return Ok(Some(Kept::new()));
    }
    // The member's columns where `linked_contributors` has them (after the parent
    // and the position; the sum in its place is bound, not read), so that a value
    // that cannot be read fails as it does there.
    let sql = "SELECT j.key, NULL, m.login, m.name, m.avatar_url, NULL, m.id \
               FROM json_each(?1) j CROSS JOIN members m ON m.id = j.value";
    let mut read = conn.rows_at(sql, [ids_json(members.iter().copied())], |conn, row| {
        let mut c = Cols::new(conn, row);
        let place: i64 = c.get()?;
        c.skip(1);
        let &(parent, n, scope) = usize::try_from(place)
            .ok()
            .and_then(|i| places.get(i))
            .ok_or(rusqlite::Error::IntegralValueOutOfRange(0, place))?;
        let contributor = Contributor::read_kept(&mut c, n, scope, &totals.top_project)?;
        Ok((place, parent, contributor))
    })?;
    read.sort_unstable_by_key(|(place, _, _)| *place);
    let mut out: HashMap<i64, Vec<Contributor>> = HashMap::with_capacity(parents.len());
    for (_, parent, contributor) in read {
        out.entry(parent).or_default().push(contributor);
    }
    Ok(Some(out))
}

relation!(
    /// Contributors of a project, by their contributions summed over its
    /// repositories, most first.
    ProjectContributors(limit) => Contributor,
    linked_contributors("project_repositories", "project_id", "project", "api_projects"),
    read contributor_reader,
    kept |conn, parents, limit| kept_contributors(conn, parents, limit, |l| &l.projects));
relation!(
    /// Contributors of a chapter, over the repositories linked to it.
    ChapterContributors(limit) => Contributor,
    linked_contributors("chapter_repositories", "chapter_id", "chapter", "api_chapters"),
    read contributor_reader,
    kept |conn, parents, limit| kept_contributors(conn, parents, limit, |l| &l.chapters));
relation!(
    /// Contributors of a committee, over the repositories linked to it.
    CommitteeContributors(limit) => Contributor,
    linked_contributors("committee_repositories", "committee_id", "committee", "api_committees"),
    read contributor_reader,
    kept |conn, parents, limit| kept_contributors(conn, parents, limit, |l| &l.committees));

/// The distinct values of a JSON array column of a project's repositories, sorted.
fn project_union(column: &str) -> String {
    window(
        "t.v",
        &format!(
            "(SELECT pr.project_id AS pid, j.value AS v FROM project_repositories pr \
              JOIN repositories r ON r.id = pr.repository_id, json_each(r.{column}) j \
              WHERE pr.project_id IN (SELECT value FROM json_each(?1)) \
              GROUP BY pr.project_id, j.value) t"
        ),
        "t.pid",
        "1",
        "t.v",
    )
}

relation!(
    /// The languages of a project's repositories, sorted.
    ProjectLanguages => Text, limit MAX_LIMIT, project_union("languages"));
relation!(
    /// The topics of a project's repositories, sorted.
    ProjectTopics => Text, limit MAX_LIMIT, project_union("topics"));
/// The records of activity of an entity in the days counted, read whole and in the
/// order they were created (the heat maps count them per day).
macro_rules! activity {
    ($(#[$doc:meta])* $key:ident, $scope:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $key(pub i64);
        impl ListKey for $key {
            type Item = Dated;
            /// `created_at`, then the kind.
            const KEYS: usize = 2;
            fn sql() -> String {
                contributions::dated(&$scope)
            }
            fn parent(self) -> i64 {
                self.0
            }
            /// Every record: a list read whole is cut in memory.
            fn limit(self) -> i64 {
                i64::MAX
            }
        }
    };
}

activity!(
    /// A project's activity.
    ProjectContributions, contributions::PROJECT_SCOPE);
activity!(
    /// A chapter's activity.
    ChapterContributions, contributions::CHAPTER_SCOPE);
activity!(
    /// A member's activity.
    UserContributions, contributions::USER_SCOPE);

/// A snapshot's new records of one kind (`link` joins `snapshot_id` in `s` to the
/// records in `t`), newest first, read whole (see [`whole_children`]).
macro_rules! snapshot_list {
    ($(#[$doc:meta])* $key:ident => $item:ty, $table:literal, $link:expr, $filter:expr,
     $order:expr) => {
        relation!(
            $(#[$doc])*
            $key => $item, limit MAX_LIMIT,
            whole_children::<$item>($link, "s.snapshot_id", $filter, $order),
            keys column_count($order),
            counted link_count($table, "snapshot_id"),
            numbered children::<$item>($link, "s.snapshot_id", $filter, $order),
            links $table);
    };
}

snapshot_list!(SnapshotChapters => Chapter, "snapshot_chapters",
    "snapshot_chapters s JOIN api_chapters t ON t.id = s.chapter_id", "1",
    CREATED_FIRST);
relation!(
    SnapshotIssues => Issue, limit 100,
    children::<Issue>("snapshot_issues s JOIN issues t ON t.id = s.issue_id",
        "s.snapshot_id", "1", CREATED_FIRST));
snapshot_list!(SnapshotProjects => Project, "snapshot_projects",
    "snapshot_projects s JOIN api_projects t ON t.id = s.project_id", "1",
    CREATED_FIRST);
/// A snapshot's releases (`s`) joined to the releases (`t`).
const SNAPSHOT_RELEASES: &str = "snapshot_releases s JOIN api_releases t ON t.id = s.release_id";

snapshot_list!(SnapshotReleases => AuthoredRelease, "snapshot_releases", SNAPSHOT_RELEASES,
    "1", PUBLISHED_FIRST);
snapshot_list!(
    /// [`SnapshotReleases`] with their authors' cards only.
    SnapshotReleaseCards => CardRelease, "snapshot_releases", SNAPSHOT_RELEASES,
    "1", PUBLISHED_FIRST);
snapshot_list!(
    /// [`SnapshotReleases`] as summaries, with their authors' cards.
    SnapshotReleaseSummaries => SummaryRelease, "snapshot_releases", SNAPSHOT_RELEASES,
    "1", PUBLISHED_FIRST);
snapshot_list!(
    /// [`SnapshotReleases`] as the columns their JSON is written from
    /// ([`crate::graphql::rows`]).
    SnapshotReleaseRowsOf => ReleaseRow, "snapshot_releases", SNAPSHOT_RELEASES,
    "1", PUBLISHED_FIRST);
snapshot_list!(SnapshotUsers => User, "snapshot_members",
    "snapshot_members s JOIN members t ON t.id = s.member_id", "1",
    CREATED_FIRST);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_negate_the_descending_columns() {
        assert_eq!(
            sort_key(PUBLISHED_FIRST),
            "-t.published_at, -t.created_at, -t.id"
        );
        assert_eq!(sort_key(CREATED_FIRST), "-t.created_at, -t.id");
        assert_eq!(sort_key("t.position, t.id ASC"), "t.position, t.id");
        assert_eq!(column_count(PUBLISHED_FIRST), 3);
    }
}
