//! The records of the community: chapters, committees and projects with their leaders
//! and chat channels, project health measurements, affiliated organizations,
//! snapshots and the overall totals, each with the columns it is read from. Events,
//! sponsors, members, their badges and blog posts are declared whole in
//! [`crate::schema::community`].

use async_graphql::{SimpleObject, ID};

use super::{node_id, Chapter, HealthMetrics, Project, Table};
use crate::graphql::db::Cols;
use crate::graphql::totals::linked_total;
use crate::schema::exposure::new_in_snapshot;
use crate::selected;

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

impl Table for Chapter {
    const TABLE: &'static str = "api_chapters";
}

// Over `leaders t`.
selected! {
    /// A leader of a chapter, committee or project, or a candidate or member of a board.
    #[derive(SimpleObject, Clone)]
    #[graphql(complex, name = "EntityMember")]
    pub struct EntityLeader {
        /// Opaque and stable: the entity's key and the leader's place in its list.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        /// The leader's name as listed by the entity.
        pub member_name: String = get("t.name"),
        /// The leader's role in the entity, a candidate's statement (may be empty).
        pub description: String = get(),
        /// A board entry's contact address; empty for leaders and entries without one.
        pub member_email: String = get("t.email"),
        #[graphql(skip)]
        pub member_id: Option<i64> = get(),
    } => leader_id [entry_cols!()]
}

/// A leader's id from its [`entry_cols`].
fn leader_id(rec: &mut EntityLeader, c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = entry_id("EntityMember", c)?;
    Ok(())
}

// Over `channels t`.
selected! {
    /// A chat channel of a chapter, committee or project.
    #[derive(SimpleObject, Clone)]
    pub struct EntityChannel {
        /// Opaque and stable: the entity's key and the channel's place in its list.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        /// The chat platform, e.g. `slack`.
        pub platform: String = get(),
        pub name: String = get(),
        /// The channel's id on its platform.
        pub external_id: String = get(),
    } => channel_id [entry_cols!()]
}

/// A channel's id from its [`entry_cols`].
fn channel_id(rec: &mut EntityChannel, c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = entry_id("EntityChannel", c)?;
    Ok(())
}

/// A total over a committee's repositories ([`linked_total`]).
macro_rules! committee_total {
    ($($what:tt)*) => {
        linked_total!("committee_repositories", "committee_id", $($what)*)
    };
}

// Over `committees t`.
selected! {
    /// Totals over a committee's repositories.
    #[derive(Clone, Copy, Default)]
    pub struct CommitteeTotals {
        pub contributors: i64 = get(committee_total!(sum(contributors_count))),
        pub forks: i64 = get(committee_total!(sum(forks_count))),
        /// Issues (open and closed) of the repositories in the dataset.
        pub issues: i64 = get(committee_total!(issues)),
        pub repositories: i64 = get(committee_total!(repositories)),
        pub stars: i64 = get(committee_total!(sum(stars_count))),
    }
}

// ----------------------------------------------------------------------------------
// Projects

impl Table for Project {
    const TABLE: &'static str = "api_projects";
}

impl Table for HealthMetrics {
    const TABLE: &'static str = "project_health_metrics";
}

/// Totals over a project's repositories: declared beside the totals kept per dataset
/// file for every active project.
pub use crate::graphql::totals::ProjectTotals;

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

selected! {
    /// How many records of each kind are new in a snapshot: five counts over its new
    /// records, read only when a query asks for one of them.
    #[derive(Clone, Copy, Default)]
    pub struct SnapshotCounts {
        pub chapters: i64 = get(new_in_snapshot!(chapters)),
        pub issues: i64 = get(new_in_snapshot!(issues)),
        pub projects: i64 = get(new_in_snapshot!(projects)),
        pub releases: i64 = get(new_in_snapshot!(releases)),
        pub users: i64 = get(new_in_snapshot!(members)),
    }
}

// ----------------------------------------------------------------------------------
// Statistics

selected! {
    /// Community totals for the home page.
    #[derive(SimpleObject, Clone, Copy)]
    pub struct StatsOverview {
        /// Active chapters.
        pub active_chapters_stats: i64 = get("(SELECT COUNT(*) FROM api_chapters c)"),
        /// Active projects.
        pub active_projects_stats: i64 = get("(SELECT COUNT(*) FROM api_projects p)"),
        // 0 here, and set from the contribution sums (`crate::graphql::totals`).
        /// Distinct members who contributed to at least one repository.
        pub contributors_stats: i64 = get("0"),
        /// Distinct countries of active chapters (the length of `chapterCountries`).
        pub countries_stats: i64 =
            get("(SELECT COUNT(DISTINCT c.country) FROM api_chapters c WHERE c.country != '')"),
        /// Members of the community's chat workspace (the dataset's `community.json`).
        pub slack_workspace_stats: i64 =
            get("(SELECT slack_workspace_members FROM community LIMIT 1)"),
    }
}
