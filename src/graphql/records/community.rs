//! The records of the community: chapters, committees and projects with their leaders
//! and chat channels, project health measurements, affiliated organizations,
//! snapshots and the overall totals, each with the columns it is read from. Events,
//! sponsors, members, their badges and blog posts are declared whole in
//! [`crate::schema::community`].

use async_graphql::{SimpleObject, ID};

use super::{node_id, Chapter, HealthMetrics, Project, Table};
use crate::graphql::db::Cols;
use crate::schema::exposure::snapshot_counts;
use crate::schema::Selected;

// ----------------------------------------------------------------------------------
// Chapters, committees, leaders, channels

/// The columns of an entry's id in an entity's list ([`entry_id`]), over a row `t`
/// with `entity_kind`, `position` and `entity_id` (leaders, channels): the kind, the
/// position, and the key (in lower case) of the chapter, committee or project (the
/// year of a board).
macro_rules! entry_cols {
    () => {
        "t.entity_kind, t.position, CASE t.entity_kind \
            WHEN 'chapter' THEN (SELECT e.key_lc FROM api_chapters e WHERE e.id = t.entity_id) \
            WHEN 'committee' THEN (SELECT e.key_lc FROM api_committees e WHERE e.id = t.entity_id) \
            WHEN 'board_candidate' THEN (SELECT CAST(e.year AS TEXT) FROM boards e WHERE e.id = t.entity_id) \
            WHEN 'board_member' THEN (SELECT CAST(e.year AS TEXT) FROM boards e WHERE e.id = t.entity_id) \
            ELSE (SELECT e.key_lc FROM api_projects e WHERE e.id = t.entity_id) END"
    };
}

/// The node id of an entry in an entity's list (a leader, a channel) of type
/// `typename`, from its [`entry_cols`]: the entity's kind and key and the entry's
/// place in the list.
pub fn entry_id(typename: &str, c: &mut Cols) -> rusqlite::Result<ID> {
    let kind: String = c.get()?;
    let position: i64 = c.get()?;
    let entity: String = c.get()?;
    Ok(node_id(typename, &format!("{kind}:{entity}:{position}")))
}

/// Totals over the repositories linked to the record `t` through the link table `$link`
/// (its `$parent` column names the record), one column each, in the order given:
/// `sum(column)` sums a column of the repositories, `issues` counts their issues in the
/// dataset (open and closed), `repositories` counts them.
macro_rules! linked_totals {
    ($link:literal, $parent:literal; $first:ident $(($first_col:ident))?
     $(, $what:ident $(($col:ident))?)* $(,)?) => {
        concat!(
            linked_totals!(@one $link, $parent, $first $(($first_col))?)
            $(, ", ", linked_totals!(@one $link, $parent, $what $(($col))?))*
        )
    };
    (@one $link:literal, $parent:literal, sum($col:ident)) => {
        concat!(
            "(SELECT COALESCE(SUM(r.", stringify!($col), "), 0) FROM ", $link,
            " lk JOIN repositories r ON r.id = lk.repository_id WHERE lk.", $parent, " = t.id)"
        )
    };
    (@one $link:literal, $parent:literal, issues) => {
        concat!(
            "(SELECT COUNT(*) FROM ", $link,
            " lk JOIN issues i ON i.repository_id = lk.repository_id WHERE lk.", $parent,
            " = t.id)"
        )
    };
    (@one $link:literal, $parent:literal, repositories) => {
        concat!("(SELECT COUNT(*) FROM ", $link, " lk WHERE lk.", $parent, " = t.id)")
    };
}

impl Table for Chapter {
    const TABLE: &'static str = "api_chapters";
}

/// A leader of a chapter, committee or project, or a candidate or member of a board.
#[derive(SimpleObject, Clone)]
#[graphql(complex, name = "EntityMember")]
pub struct EntityLeader {
    /// Opaque and stable: the entity's key and the leader's place in its list.
    #[graphql(name = "id")]
    pub node_id: ID,
    /// The leader's name as listed by the entity.
    pub member_name: String,
    /// The leader's role in the entity, a candidate's statement (may be empty).
    pub description: String,
    /// A board entry's contact address; empty for leaders and entries without one.
    pub member_email: String,
    #[graphql(skip)]
    pub member_id: Option<i64>,
}

impl Selected for EntityLeader {
    /// Over `leaders t`.
    const COLUMNS: &'static str = concat!(
        "t.name, t.member_id, t.description, t.email, ",
        entry_cols!()
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        // Fields are read in the order written.
        Ok(EntityLeader {
            member_name: c.get()?,
            member_id: c.get()?,
            description: c.get()?,
            member_email: c.get()?,
            node_id: entry_id("EntityMember", c)?,
        })
    }
}

/// A chat channel of a chapter, committee or project.
#[derive(SimpleObject, Clone)]
pub struct EntityChannel {
    /// Opaque and stable: the entity's key and the channel's place in its list.
    #[graphql(name = "id")]
    pub node_id: ID,
    /// The chat platform, e.g. `slack`.
    pub platform: String,
    pub name: String,
    /// The channel's id on its platform.
    pub external_id: String,
}

impl Selected for EntityChannel {
    /// Over `channels t`.
    const COLUMNS: &'static str = concat!("t.platform, t.name, t.external_id, ", entry_cols!());
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        // Fields are read in the order written.
        Ok(EntityChannel {
            platform: c.get()?,
            name: c.get()?,
            external_id: c.get()?,
            node_id: entry_id("EntityChannel", c)?,
        })
    }
}

counts! {
    /// Totals over a committee's repositories.
    #[derive(Clone, Copy, Default)]
    pub struct CommitteeTotals {
        pub contributors: i64,
        pub forks: i64,
        /// Issues (open and closed) of the repositories in the dataset.
        pub issues: i64,
        pub repositories: i64,
        pub stars: i64,
    }
    /// Over `committees t`.
    const COLUMNS = linked_totals!("committee_repositories", "committee_id";
        sum(contributors_count), sum(forks_count), issues, repositories, sum(stars_count));
}

// ----------------------------------------------------------------------------------
// Projects

impl Table for Project {
    const TABLE: &'static str = "api_projects";
}

impl Table for HealthMetrics {
    const TABLE: &'static str = "project_health_metrics";
}

counts! {
    /// Totals over a project's repositories.
    #[derive(Clone, Copy, Default)]
    pub struct ProjectTotals {
        pub contributors: i64,
        /// Issues (open and closed) of the repositories in the dataset.
        pub issues: i64,
        pub open_issues: i64,
        pub repositories: i64,
    }
    /// Over `projects t` (kept per dataset file for every active project).
    const COLUMNS = crate::graphql::totals::PROJECT_TOTALS;
}

// ----------------------------------------------------------------------------------
// Organizations

// Computed from the sums kept per dataset file (`crate::graphql::totals`).
/// Totals over an organization's repositories.
#[derive(SimpleObject, Clone, Copy, Default)]
pub struct OrganizationStats {
    /// Distinct members among the repositories' contributors.
    pub total_contributors: i64,
    pub total_forks: i64,
    /// Sum of the repositories' open issue counts.
    pub total_issues: i64,
    pub total_repositories: i64,
    pub total_stars: i64,
}

// ----------------------------------------------------------------------------------
// Snapshots

counts! {
    /// How many records of each kind are new in a snapshot: five counts over its new
    /// records, read only when a query asks for one of them.
    #[derive(Clone, Copy, Default)]
    pub struct SnapshotCounts {
        pub chapters: i64,
        pub issues: i64,
        pub projects: i64,
        pub releases: i64,
        pub users: i64,
    }
    const COLUMNS = snapshot_counts!();
}

// ----------------------------------------------------------------------------------
// Statistics

counts! {
    /// Community totals for the home page.
    #[derive(SimpleObject, Clone, Copy)]
    pub struct StatsOverview {
        /// Active chapters.
        pub active_chapters_stats: i64,
        /// Active projects.
        pub active_projects_stats: i64,
        /// Distinct members who contributed to at least one repository.
        pub contributors_stats: i64,
        /// Distinct countries of active chapters (the length of `chapterCountries`).
        pub countries_stats: i64,
        /// Members of the community's chat workspace (the dataset's `community.json`).
        pub slack_workspace_stats: i64,
    }
    /// `contributors_stats` is 0 here, and set from the contribution sums
    /// ([`crate::graphql::totals`]).
    const COLUMNS = "(SELECT COUNT(*) FROM api_chapters c), (SELECT COUNT(*) FROM api_projects p), 0, \
         (SELECT COUNT(DISTINCT c.country) FROM api_chapters c WHERE c.country != ''), \
         (SELECT slack_workspace_members FROM community LIMIT 1)";
}
