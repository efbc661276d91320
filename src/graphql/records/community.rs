//! The records of the community: chapters, committees and their leaders, events,
//! sponsors, projects, affiliated organizations, members, snapshots and the overall
//! totals, each with the columns it is read from.

use async_graphql::{SimpleObject, ID};

use super::pages::entity_key;
use super::{node_id, Table};
use crate::catalog::short_key;
use crate::graphql::db::Cols;
use crate::schema::exposure::{active, published, snapshot_counts};
use crate::schema::Selected;
use crate::selected;
use crate::store::lc;

// ----------------------------------------------------------------------------------
// Chapters, committees, leaders

selected! {
    /// An active chapter.
    #[derive(SimpleObject, Clone)]
    #[graphql(complex)]
    pub struct Chapter {
        /// Opaque and stable: the same record has the same id in every regeneration.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        #[graphql(skip)]
        pub id: i64 = get("t.id"),
        /// The key without its `www-chapter-` prefix, as in the frontend's links and the
        /// REST paths.
        pub key: String = get("t.key"),
        pub name: String = get("t.name"),
        pub country: String = get("t.country"),
        pub region: String = get("t.region"),
        /// Always true: inactive chapters are not part of the API.
        pub is_active: bool = get("t.is_active"),
        pub latitude: Option<f64> = get("t.latitude"),
        pub longitude: Option<f64> = get("t.longitude"),
        pub summary: String = get("t.summary"),
        pub url: String = get("t.url"),
        pub created_at: String = ts("t.created_at"),
        pub updated_at: String = ts("t.updated_at"),
        /// Where the chapter meets, as a place name for display; null when the dataset
        /// gives none.
        pub suggested_location: Option<String> = get("t.suggested_location"),
    } => finish_chapter
}

/// Derives what [`Chapter`] does not read as it is.
fn finish_chapter(rec: &mut Chapter, _c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = node_id("Chapter", &lc(&rec.key));
    rec.key = short_key(&rec.key, "www-chapter-").to_string();
    Ok(())
}

impl Table for Chapter {
    const TABLE: &'static str = "chapters";
}

selected! {
    /// An active committee.
    #[derive(SimpleObject, Clone)]
    #[graphql(complex)]
    pub struct Committee {
        /// Opaque and stable: the same record has the same id in every regeneration.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        #[graphql(skip)]
        pub id: i64 = get("t.id"),
        /// The key without its `www-committee-` prefix, as in the frontend's links and the
        /// REST paths.
        pub key: String = get("t.key"),
        pub name: String = get("t.name"),
        pub description: String = get("t.description"),
        pub summary: String = get("t.summary"),
        pub url: String = get("t.url"),
        pub created_at: String = ts("t.created_at"),
        pub updated_at: String = ts("t.updated_at"),
    } => finish_committee
}

/// Derives what [`Committee`] does not read as it is.
fn finish_committee(rec: &mut Committee, _c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = node_id("Committee", &lc(&rec.key));
    rec.key = short_key(&rec.key, "www-committee-").to_string();
    Ok(())
}

/// A leader of a chapter, committee or project.
#[derive(SimpleObject, Clone)]
#[graphql(complex, name = "EntityMember")]
pub struct EntityLeader {
    /// Opaque and stable: the entity's key and the leader's place in its list.
    #[graphql(name = "id")]
    pub node_id: ID,
    /// The leader's name as listed by the entity.
    pub member_name: String,
    /// The leader's role in the entity (may be empty).
    pub description: String,
    #[graphql(skip)]
    pub member_id: Option<i64>,
}

impl Selected for EntityLeader {
    /// Over `leaders t`.
    const COLUMNS: &'static str = concat!(
        "t.name, t.member_id, t.description, t.entity_kind, t.position, ",
        entity_key!()
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let member_name = c.get()?;
        let member_id = c.get()?;
        let description = c.get()?;
        let kind: String = c.get()?;
        let position: i64 = c.get()?;
        let entity: String = c.get()?;
        Ok(EntityLeader {
            node_id: node_id("EntityMember", &format!("{kind}:{entity}:{position}")),
            member_name,
            description,
            member_id,
        })
    }
}

// ----------------------------------------------------------------------------------
// Events and sponsors

selected! {
    /// An event.
    #[derive(SimpleObject, Clone)]
    pub struct Event {
        /// Opaque and stable: the same record has the same id in every regeneration.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        pub key: String = get("t.key"),
        pub name: String = get("t.name"),
        /// `appsec_days`, `global`, `partner` or `other`.
        pub category: String = get("t.category"),
        /// `YYYY-MM-DD`.
        pub start_date: String = get("t.start_date"),
        /// `YYYY-MM-DD`.
        pub end_date: Option<String> = get("t.end_date"),
        pub latitude: Option<f64> = get("t.latitude"),
        pub longitude: Option<f64> = get("t.longitude"),
        pub url: Option<String> = get("t.url"),
        pub description: Option<String> = get("t.description"),
        pub summary: String = get("t.summary"),
        pub suggested_location: String = get("t.suggested_location"),
    } => finish_event
}

/// Derives what [`Event`] does not read as it is.
fn finish_event(rec: &mut Event, _c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = node_id("Event", &lc(&rec.key));
    Ok(())
}

selected! {
    /// A sponsor.
    #[derive(SimpleObject, Clone)]
    pub struct Sponsor {
        /// Opaque and stable: the same record has the same id in every regeneration.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        pub key: String = get("t.key"),
        pub name: String = get("t.name"),
        /// `Diamond`, `Platinum`, `Gold`, `Silver`, `Supporter` or `Not a Sponsor`.
        pub sponsor_type: String = get("t.sponsor_type"),
        pub is_member: bool = get("t.is_member"),
        /// `Platinum`, `Gold`, `Silver`, or empty.
        pub member_type: String = get("t.member_type"),
        pub image_url: String = get("t.image_url"),
        pub url: String = get("t.url"),
        pub job_url: String = get("t.job_url"),
        pub description: String = get("t.description"),
    } => finish_sponsor
}

/// Derives what [`Sponsor`] does not read as it is.
fn finish_sponsor(rec: &mut Sponsor, _c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = node_id("Sponsor", &lc(&rec.key));
    Ok(())
}

// ----------------------------------------------------------------------------------
// Projects

selected! {
    /// An active project.
    #[derive(SimpleObject, Clone)]
    #[graphql(complex)]
    pub struct Project {
        /// Opaque and stable: the same record has the same id in every regeneration.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        #[graphql(skip)]
        pub id: i64 = get("t.id"),
        /// The key without its `www-project-` prefix, as in the frontend's links and the
        /// REST paths.
        pub key: String = get("t.key"),
        pub name: String = get("t.name"),
        /// `flagship`, `production`, `incubator`, `lab` or `demo`.
        pub level: String = get("t.level"),
        /// `code`, `documentation`, `tool` or `other`.
        #[graphql(name = "type")]
        pub kind: String = get("t.type"),
        /// Always true: inactive projects are not part of the API.
        pub is_active: bool = get("t.is_active"),
        pub description: String = get("t.description"),
        pub summary: String = get("t.summary"),
        pub url: String = get("t.url"),
        /// Sum of the stars of the project's repositories.
        pub stars_count: i64 = get("t.stars"),
        /// Sum of the forks of the project's repositories.
        pub forks_count: i64 = get("t.forks"),
        pub created_at: String = ts("t.created_at"),
        pub updated_at: String = ts("t.updated_at"),
    } => finish_project
}

/// Derives what [`Project`] does not read as it is.
fn finish_project(rec: &mut Project, _c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = node_id("Project", &lc(&rec.key));
    rec.key = short_key(&rec.key, "www-project-").to_string();
    Ok(())
}

impl Table for Project {
    const TABLE: &'static str = "projects";
}

/// Totals over a project's repositories.
#[derive(Clone, Copy, Default)]
pub struct ProjectTotals {
    pub contributors: i64,
    /// Issues (open and closed) of the repositories in the dataset.
    pub issues: i64,
    pub open_issues: i64,
    pub repositories: i64,
}

impl Selected for ProjectTotals {
    const COLUMNS: &'static str = "(SELECT COALESCE(SUM(r.contributors_count), 0) \
            FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
            WHERE pr.project_id = t.id), \
        (SELECT COUNT(*) FROM project_repositories pr \
            JOIN issues i ON i.repository_id = pr.repository_id WHERE pr.project_id = t.id), \
        (SELECT COALESCE(SUM(r.open_issues_count), 0) \
            FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
            WHERE pr.project_id = t.id), \
        (SELECT COUNT(*) FROM project_repositories pr WHERE pr.project_id = t.id)";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(ProjectTotals {
            contributors: c.get()?,
            issues: c.get()?,
            open_issues: c.get()?,
            repositories: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Organizations

selected! {
    /// An organization affiliated with the community.
    #[derive(SimpleObject, Clone)]
    #[graphql(complex)]
    pub struct Organization {
        /// Opaque and stable: the same record has the same id in every regeneration.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        #[graphql(skip)]
        pub id: i64 = get("t.id"),
        pub login: String = get("t.login"),
        pub name: String = get("t.name"),
        pub company: String = get("t.company"),
        pub location: String = get("t.location"),
        pub description: String = get("t.description"),
        pub avatar_url: String = get("t.avatar_url"),
        pub url: String = get("t.url"),
        pub followers_count: i64 = get("t.followers_count"),
        pub created_at: String = ts("t.created_at"),
        pub updated_at: String = ts("t.updated_at"),
        /// Public contact address; empty when the organization lists none.
        pub email: String = get("t.email"),
        /// Members with access to the organization's repositories, as the code-hosting
        /// site counts them.
        pub collaborators_count: i64 = get("t.collaborators_count"),
    } => finish_organization
}

/// Derives what [`Organization`] does not read as it is.
fn finish_organization(rec: &mut Organization, _c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = node_id("Organization", &lc(&rec.login));
    Ok(())
}

/// The sums over the repositories of the organizations in `?1` (a JSON array of ids),
/// one row `t` per organization: one pass over each organization's range of the
/// `(organization_id, name_lc)` index of `repositories`.
pub const ORGANIZATION_SUMS: &str = "(SELECT o.id AS id, \
        COALESCE(SUM(r.forks_count), 0) AS forks, \
        COALESCE(SUM(r.open_issues_count), 0) AS open_issues, \
        COUNT(r.id) AS repositories, COALESCE(SUM(r.stars_count), 0) AS stars \
    FROM organizations o LEFT JOIN repositories r ON r.organization_id = o.id \
    WHERE o.id IN (SELECT value FROM json_each(?1)) GROUP BY o.id) t";

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

impl Selected for OrganizationStats {
    /// Over a row `t` of an organization's sums ([`ORGANIZATION_SUMS`]);
    /// `total_contributors` is 0 here, and set from the contribution sums
    /// ([`crate::graphql::totals`]).
    const COLUMNS: &'static str = "0, t.forks, t.open_issues, t.repositories, t.stars";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(OrganizationStats {
            total_contributors: c.get()?,
            total_forks: c.get()?,
            total_issues: c.get()?,
            total_repositories: c.get()?,
            total_stars: c.get()?,
        })
    }
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

/// What a member authored.
#[derive(Clone, Copy, Default)]
pub struct UserTotals {
    pub issues: i64,
    pub releases: i64,
    /// Contributions summed over every repository.
    pub contributions: i64,
}

impl Selected for UserTotals {
    const COLUMNS: &'static str = concat!(
        "(SELECT COUNT(*) FROM issues i WHERE i.author_id = t.id), \
         (SELECT COUNT(*) FROM releases x WHERE x.author_id = t.id AND ",
        published!("x"),
        "), (SELECT COALESCE(SUM(rc.contributions_count), 0) FROM repository_contributors rc \
            WHERE rc.member_id = t.id)"
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(UserTotals {
            issues: c.get()?,
            releases: c.get()?,
            contributions: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Snapshots

selected! {
    /// A completed snapshot: what was new in a month.
    #[derive(SimpleObject, Clone)]
    #[graphql(complex)]
    pub struct Snapshot {
        /// Opaque and stable: the same record has the same id in every regeneration.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        #[graphql(skip)]
        pub id: i64 = get("t.id"),
        /// `YYYY-MM`.
        pub key: String = get("t.key"),
        pub title: String = get("t.title"),
        pub start_at: String = ts("t.start_at"),
        pub end_at: String = ts("t.end_at"),
        pub created_at: String = ts("t.created_at"),
        pub updated_at: String = ts("t.updated_at"),
    } => finish_snapshot
}

/// Derives what [`Snapshot`] does not read as it is.
fn finish_snapshot(rec: &mut Snapshot, _c: &mut Cols) -> rusqlite::Result<()> {
    rec.node_id = node_id("Snapshot", &lc(&rec.key));
    Ok(())
}

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

impl Selected for SnapshotCounts {
    const COLUMNS: &'static str = snapshot_counts!();
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(SnapshotCounts {
            chapters: c.get()?,
            issues: c.get()?,
            projects: c.get()?,
            releases: c.get()?,
            users: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Statistics

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

impl Selected for StatsOverview {
    /// `contributors_stats` is 0 here, and set from the contribution sums
    /// ([`crate::graphql::totals`]).
    const COLUMNS: &'static str = concat!(
        "(SELECT COUNT(*) FROM chapters c WHERE ",
        active!("c"),
        "), (SELECT COUNT(*) FROM projects p WHERE ",
        active!("p"),
        "), 0, (SELECT COUNT(DISTINCT c.country) FROM chapters c WHERE ",
        active!("c"),
        " AND c.country != ''), \
         (SELECT slack_workspace_members FROM community LIMIT 1)"
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(StatsOverview {
            active_chapters_stats: c.get()?,
            active_projects_stats: c.get()?,
            contributors_stats: c.get()?,
            countries_stats: c.get()?,
            slack_workspace_stats: c.get()?,
        })
    }
}
