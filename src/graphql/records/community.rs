//! The records of the community: chapters, committees and their leaders, events,
//! sponsors, projects, affiliated organizations, members, snapshots and the overall
//! totals, each with the columns it is read from.

use async_graphql::{SimpleObject, ID};

use super::pages::entity_key;
use super::{node_id, Record, Table};
use crate::catalog::exposure::{active, published, snapshot_counts};
use crate::catalog::short_key;
use crate::graphql::db::Cols;
use crate::store::lc;

// ----------------------------------------------------------------------------------
// Chapters, committees, leaders

/// An active chapter.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Chapter {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    #[graphql(skip)]
    pub id: i64,
    /// The key without its `www-chapter-` prefix, as in the frontend's links and the
    /// REST paths.
    pub key: String,
    pub name: String,
    pub country: String,
    pub region: String,
    /// Always true: inactive chapters are not part of the API.
    pub is_active: bool,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub summary: String,
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
    /// Where the chapter meets, as a place name for display; null when the dataset
    /// gives none.
    pub suggested_location: Option<String>,
}

impl Table for Chapter {
    const TABLE: &'static str = "chapters";
}

impl Record for Chapter {
    const COLS: &'static str =
        "t.id, t.key, t.name, t.country, t.region, t.is_active, t.latitude, \
        t.longitude, t.summary, t.url, t.created_at, t.updated_at, t.suggested_location";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = Chapter {
            node_id: ID(String::new()),
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            country: c.get()?,
            region: c.get()?,
            is_active: c.get()?,
            latitude: c.get()?,
            longitude: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
            suggested_location: c.get()?,
        };
        rec.node_id = node_id("Chapter", &lc(&rec.key));
        rec.key = short_key(&rec.key, "www-chapter-").to_string();
        Ok(rec)
    }
}

/// An active committee.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Committee {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    #[graphql(skip)]
    pub id: i64,
    /// The key without its `www-committee-` prefix, as in the frontend's links and the
    /// REST paths.
    pub key: String,
    pub name: String,
    pub description: String,
    pub summary: String,
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Record for Committee {
    const COLS: &'static str =
        "t.id, t.key, t.name, t.description, t.summary, t.url, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = Committee {
            node_id: ID(String::new()),
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            description: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        };
        rec.node_id = node_id("Committee", &lc(&rec.key));
        rec.key = short_key(&rec.key, "www-committee-").to_string();
        Ok(rec)
    }
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

impl Record for EntityLeader {
    /// Over `leaders t`.
    const COLS: &'static str = concat!(
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

/// An event.
#[derive(SimpleObject, Clone)]
pub struct Event {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    pub key: String,
    pub name: String,
    /// `appsec_days`, `global`, `partner` or `other`.
    pub category: String,
    /// `YYYY-MM-DD`.
    pub start_date: String,
    /// `YYYY-MM-DD`.
    pub end_date: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub url: Option<String>,
    pub description: Option<String>,
    pub summary: String,
    pub suggested_location: String,
}

impl Record for Event {
    const COLS: &'static str = "t.key, t.name, t.category, t.start_date, t.end_date, \
        t.latitude, t.longitude, t.url, t.description, t.summary, t.suggested_location";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = Event {
            node_id: ID(String::new()),
            key: c.get()?,
            name: c.get()?,
            category: c.get()?,
            start_date: c.get()?,
            end_date: c.get()?,
            latitude: c.get()?,
            longitude: c.get()?,
            url: c.get()?,
            description: c.get()?,
            summary: c.get()?,
            suggested_location: c.get()?,
        };
        rec.node_id = node_id("Event", &lc(&rec.key));
        Ok(rec)
    }
}

/// A sponsor.
#[derive(SimpleObject, Clone)]
pub struct Sponsor {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    pub key: String,
    pub name: String,
    /// `Diamond`, `Platinum`, `Gold`, `Silver`, `Supporter` or `Not a Sponsor`.
    pub sponsor_type: String,
    pub is_member: bool,
    /// `Platinum`, `Gold`, `Silver`, or empty.
    pub member_type: String,
    pub image_url: String,
    pub url: String,
    pub job_url: String,
    pub description: String,
}

impl Record for Sponsor {
    const COLS: &'static str = "t.key, t.name, t.sponsor_type, t.is_member, \
        t.member_type, t.image_url, t.url, t.job_url, t.description";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = Sponsor {
            node_id: ID(String::new()),
            key: c.get()?,
            name: c.get()?,
            sponsor_type: c.get()?,
            is_member: c.get()?,
            member_type: c.get()?,
            image_url: c.get()?,
            url: c.get()?,
            job_url: c.get()?,
            description: c.get()?,
        };
        rec.node_id = node_id("Sponsor", &lc(&rec.key));
        Ok(rec)
    }
}

// ----------------------------------------------------------------------------------
// Projects

/// An active project.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Project {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    #[graphql(skip)]
    pub id: i64,
    /// The key without its `www-project-` prefix, as in the frontend's links and the
    /// REST paths.
    pub key: String,
    pub name: String,
    /// `flagship`, `production`, `incubator`, `lab` or `demo`.
    pub level: String,
    /// `code`, `documentation`, `tool` or `other`.
    #[graphql(name = "type")]
    pub kind: String,
    /// Always true: inactive projects are not part of the API.
    pub is_active: bool,
    pub description: String,
    pub summary: String,
    pub url: String,
    /// Sum of the stars of the project's repositories.
    pub stars_count: i64,
    /// Sum of the forks of the project's repositories.
    pub forks_count: i64,
    pub created_at: String,
    pub updated_at: String,
}

impl Table for Project {
    const TABLE: &'static str = "projects";
}

impl Record for Project {
    const COLS: &'static str = "t.id, t.key, t.name, t.level, t.type, t.is_active, t.description, \
        t.summary, t.url, t.stars, t.forks, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = Project {
            node_id: ID(String::new()),
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            level: c.get()?,
            kind: c.get()?,
            is_active: c.get()?,
            description: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            stars_count: c.get()?,
            forks_count: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        };
        rec.node_id = node_id("Project", &lc(&rec.key));
        rec.key = short_key(&rec.key, "www-project-").to_string();
        Ok(rec)
    }
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

impl Record for ProjectTotals {
    const COLS: &'static str = "(SELECT COALESCE(SUM(r.contributors_count), 0) \
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

/// An organization affiliated with the community.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Organization {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    #[graphql(skip)]
    pub id: i64,
    pub login: String,
    pub name: String,
    pub company: String,
    pub location: String,
    pub description: String,
    pub avatar_url: String,
    pub url: String,
    pub followers_count: i64,
    pub created_at: String,
    pub updated_at: String,
    /// Public contact address; empty when the organization lists none.
    pub email: String,
    /// Members with access to the organization's repositories, as the code-hosting
    /// site counts them.
    pub collaborators_count: i64,
}

impl Record for Organization {
    const COLS: &'static str = "t.id, t.login, t.name, t.company, t.location, t.description, \
        t.avatar_url, t.url, t.followers_count, t.created_at, t.updated_at, t.email, \
        t.collaborators_count";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = Organization {
            node_id: ID(String::new()),
            id: c.get()?,
            login: c.get()?,
            name: c.get()?,
            company: c.get()?,
            location: c.get()?,
            description: c.get()?,
            avatar_url: c.get()?,
            url: c.get()?,
            followers_count: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
            email: c.get()?,
            collaborators_count: c.get()?,
        };
        rec.node_id = node_id("Organization", &lc(&rec.login));
        Ok(rec)
    }
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

impl Record for OrganizationStats {
    /// Over a row `t` of an organization's sums ([`ORGANIZATION_SUMS`]);
    /// `total_contributors` is 0 here, and set from the contribution sums
    /// ([`crate::graphql::totals`]).
    const COLS: &'static str = "0, t.forks, t.open_issues, t.repositories, t.stars";
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

impl Record for User {
    const COLS: &'static str = user_cols!(t);
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

impl Record for UserTotals {
    const COLS: &'static str = concat!(
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

/// A completed snapshot: what was new in a month.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Snapshot {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    #[graphql(skip)]
    pub id: i64,
    /// `YYYY-MM`.
    pub key: String,
    pub title: String,
    pub start_at: String,
    pub end_at: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Record for Snapshot {
    const COLS: &'static str =
        "t.id, t.key, t.title, t.start_at, t.end_at, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = Snapshot {
            node_id: ID(String::new()),
            id: c.get()?,
            key: c.get()?,
            title: c.get()?,
            start_at: c.ts()?,
            end_at: c.ts()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        };
        rec.node_id = node_id("Snapshot", &lc(&rec.key));
        Ok(rec)
    }
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

impl Record for SnapshotCounts {
    const COLS: &'static str = snapshot_counts!();
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

impl Record for StatsOverview {
    /// `contributors_stats` is 0 here, and set from the contribution sums
    /// ([`crate::graphql::totals`]).
    const COLS: &'static str = concat!(
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
