//! The relations between records, each a key type naming a parent record (and, for
//! lists with a `limit` argument, how many children to keep) with the one statement
//! that loads the children of many parents at once: a window query that numbers the
//! children of every requested parent and keeps the first `limit` of each.
//! [`super::super::loaders`] batches the keys and runs these statements.

use std::hash::Hash;

use rusqlite::types::Value;

use super::*;
use crate::catalog::exposure::{active, affiliated, published};

/// A relation: a parent record and how many of its children to load.
pub trait ListKey: Copy + Eq + Hash + Send + Sync + 'static {
    type Item: Record;
    /// A statement with `?1` the parent ids (JSON array), `?2` the limit and `?3`, ...
    /// the values of [`ListKey::bound`], yielding `(parent id, position, item
    /// columns...)` ordered by parent and position.
    fn sql() -> String;
    /// The values bound after the parent ids and the limit; none unless the relation
    /// says so.
    fn bound() -> Vec<Value> {
        Vec::new()
    }
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

/// A relation key type. `limit N` fixes the number of children; `(limit)` takes it
/// from the key's second field; `bind "text"` binds a text value as `?3`.
macro_rules! relation {
    ($(#[$doc:meta])* $key:ident => $item:ty, limit $limit:expr, $sql:expr
     $(, bind $bound:literal)?) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $key(pub i64);
        impl ListKey for $key {
            type Item = $item;
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

/// The leaders of one kind of entity (bound as `?3`), in display order.
fn leaders() -> String {
    window(
        EntityLeader::COLS,
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
    by_id::<Organization>("organizations t", affiliated!("t")));
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
relation!(ChapterLeaders => EntityLeader, limit MAX_LIMIT, leaders(), bind "chapter");
relation!(CommitteeLeaders => EntityLeader, limit MAX_LIMIT, leaders(), bind "committee");
relation!(ProjectLeaders => EntityLeader, limit MAX_LIMIT, leaders(), bind "project");
relation!(
    /// The active project a repository belongs to (the first by id).
    ProjectOfRepository => Project, limit 1,
    children::<Project>("project_repositories pr JOIN projects t ON t.id = pr.project_id",
        "pr.repository_id", active!("t"), "t.id"));
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
        "pr.project_id", published!("t"), PUBLISHED_FIRST));
relation!(
    ProjectMilestones(limit) => Milestone,
    children::<Milestone>("project_repositories pr JOIN milestones t ON t.repository_id = pr.repository_id",
        "pr.project_id", "1", NEWEST_FIRST));
relation!(
    RepositoryIssues => Issue, limit 5,
    children::<Issue>("issues t", "t.repository_id", "1", NEWEST_FIRST));
relation!(
    RepositoryReleases => Release, limit 5,
    children::<Release>("releases t", "t.repository_id", published!("t"), PUBLISHED_FIRST));
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
        "s.snapshot_id", active!("t"), CREATED_FIRST));
relation!(
    SnapshotIssues => Issue, limit 100,
    children::<Issue>("snapshot_issues s JOIN issues t ON t.id = s.issue_id",
        "s.snapshot_id", "1", CREATED_FIRST));
relation!(
    SnapshotProjects => Project, limit MAX_LIMIT,
    children::<Project>("snapshot_projects s JOIN projects t ON t.id = s.project_id",
        "s.snapshot_id", active!("t"), CREATED_FIRST));
relation!(
    SnapshotReleases => Release, limit MAX_LIMIT,
    children::<Release>("snapshot_releases s JOIN releases t ON t.id = s.release_id",
        "s.snapshot_id", published!("t"), PUBLISHED_FIRST));
relation!(
    SnapshotUsers => User, limit MAX_LIMIT,
    children::<User>("snapshot_members s JOIN members t ON t.id = s.member_id",
        "s.snapshot_id", "1", CREATED_FIRST));
