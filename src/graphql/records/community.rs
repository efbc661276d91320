//! The records of the community: chapters, committees and their leaders, events,
//! sponsors, projects, affiliated organizations, members, snapshots and the overall
//! totals, each with the columns it is read from.

use async_graphql::{SimpleObject, ID};

use super::pages::{entry_cols, entry_id};
use super::{node_id, Chapter, Project, Table};
use crate::graphql::db::Cols;
use crate::schema::exposure::snapshot_counts;
use crate::schema::Selected;
use crate::store::lc;

// ----------------------------------------------------------------------------------
// Chapters, committees, leaders

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

// ----------------------------------------------------------------------------------
// Events and sponsors

// ----------------------------------------------------------------------------------
// Projects

impl Table for Project {
    const TABLE: &'static str = "api_projects";
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
    const COLUMNS = "(SELECT COALESCE(SUM(r.contributors_count), 0) \
            FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
            WHERE pr.project_id = t.id), \
        (SELECT COUNT(*) FROM project_repositories pr \
            JOIN issues i ON i.repository_id = pr.repository_id WHERE pr.project_id = t.id), \
        (SELECT COALESCE(SUM(r.open_issues_count), 0) \
            FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
            WHERE pr.project_id = t.id), \
        (SELECT COUNT(*) FROM project_repositories pr WHERE pr.project_id = t.id)";
}

// ----------------------------------------------------------------------------------
// Organizations

/// The sums over the repositories of the organizations in `?1` (a JSON array of ids),
/// one row `t` per organization: one pass over each organization's range of the
/// `(organization_id, name_lc)` index of `repositories`.
pub const ORGANIZATION_SUMS: &str = "(SELECT o.id AS id, \
        COALESCE(SUM(r.forks_count), 0) AS forks, \
        COALESCE(SUM(r.open_issues_count), 0) AS open_issues, \
        COUNT(r.id) AS repositories, COALESCE(SUM(r.stars_count), 0) AS stars \
    FROM organizations o LEFT JOIN repositories r ON r.organization_id = o.id \
    WHERE o.id IN (SELECT value FROM json_each(?1)) GROUP BY o.id) t";

counts! {
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
    /// Over a row `t` of an organization's sums ([`ORGANIZATION_SUMS`]);
    /// `total_contributors` is 0 here, and set from the contribution sums
    /// ([`crate::graphql::totals`]).
    const COLUMNS = "0, t.forks, t.open_issues, t.repositories, t.stars";
}

// ----------------------------------------------------------------------------------
// Users

/// A member (code-hosting user).
#[derive(SimpleObject, Clone, Default)]
#[graphql(complex)]
pub struct User {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    #[graphql(skip)]
    pub id: i64,
    pub login: String,
    pub name: String,
    pub avatar_url: String,
    pub url: String,
    pub bio: String,
    pub company: String,
    pub location: String,
    pub title: String,
    pub twitter_username: String,
    pub followers_count: i64,
    pub following_count: i64,
    pub public_repositories_count: i64,
    pub created_at: String,
    pub updated_at: String,
    /// Public contact address; empty when the member lists none.
    pub email: String,
    /// The member sits on the current board of directors.
    pub is_owasp_board_member: bool,
    /// The member worked for the foundation.
    pub is_former_owasp_staff: bool,
    /// The member has mentored in a summer-of-code program.
    pub is_gsoc_mentor: bool,
    /// The member's professional-network page id; empty when none.
    pub linkedin_page_id: String,
    /// The member's first contribution to the community; null when unknown.
    pub first_owasp_contribution_at: Option<String>,
}

impl Table for User {
    const TABLE: &'static str = "members";
}

impl Selected for User {
    const COLUMNS: &'static str = user_cols!(t);
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = User {
            node_id: ID(String::new()),
            id: c.get()?,
            login: c.get()?,
            name: c.get()?,
            avatar_url: c.get()?,
            url: c.get()?,
            bio: c.get()?,
            company: c.get()?,
            location: c.get()?,
            title: c.get()?,
            twitter_username: c.get()?,
            followers_count: c.get()?,
            following_count: c.get()?,
            public_repositories_count: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
            email: c.get()?,
            is_owasp_board_member: c.get()?,
            is_former_owasp_staff: c.get()?,
            is_gsoc_mentor: c.get()?,
            linkedin_page_id: c.get()?,
            first_owasp_contribution_at: c.opt_ts()?,
        };
        rec.node_id = node_id("User", &lc(&rec.login));
        Ok(rec)
    }
}

impl User {
    /// A member's card from the columns `id, login, name, avatar_url`, the other
    /// fields empty: for selections that ask for none of them ([`CardRelease`]).
    pub fn read_card(c: &mut Cols) -> rusqlite::Result<User> {
        let mut rec = User {
            id: c.get()?,
            login: c.get()?,
            name: c.get()?,
            avatar_url: c.get()?,
            ..User::default()
        };
        rec.node_id = node_id("User", &lc(&rec.login));
        Ok(rec)
    }
}

counts! {
    /// What a member authored.
    #[derive(Clone, Copy, Default)]
    pub struct UserTotals {
        pub issues: i64,
        pub releases: i64,
        /// Contributions summed over every repository.
        pub contributions: i64,
    }
    const COLUMNS = "(SELECT COUNT(*) FROM issues i WHERE i.author_id = t.id), \
         (SELECT COUNT(*) FROM api_releases x WHERE x.author_id = t.id), \
         (SELECT COALESCE(SUM(rc.contributions_count), 0) FROM repository_contributors rc \
            WHERE rc.member_id = t.id)";
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
