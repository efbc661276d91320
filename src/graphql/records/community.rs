//! The records of the community: chapters, committees and their leaders, events,
//! sponsors, projects, affiliated organizations, members, snapshots and the overall
//! totals, each with the columns it is read from.

use async_graphql::SimpleObject;

use super::{Record, Table};
use crate::catalog::exposure::{active, published, snapshot_counts};
use crate::graphql::db::Cols;

// ----------------------------------------------------------------------------------
// Chapters, committees, leaders

/// An active chapter.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Chapter {
    #[graphql(skip)]
    pub id: i64,
    /// The full key, `www-chapter-<name>`.
    pub key: String,
    pub name: String,
    pub country: String,
    pub region: String,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub summary: String,
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Table for Chapter {
    const TABLE: &'static str = "chapters";
}

impl Record for Chapter {
    const COLS: &'static str = "t.id, t.key, t.name, t.country, t.region, t.latitude, \
        t.longitude, t.summary, t.url, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Chapter {
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            country: c.get()?,
            region: c.get()?,
            latitude: c.get()?,
            longitude: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

/// An active committee.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Committee {
    #[graphql(skip)]
    pub id: i64,
    /// The full key, `www-committee-<name>`.
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
        Ok(Committee {
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            description: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

/// A leader of a chapter, committee or project.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct EntityLeader {
    /// The leader's name as listed by the entity.
    pub member_name: String,
    #[graphql(skip)]
    pub member_id: Option<i64>,
}

impl Record for EntityLeader {
    const COLS: &'static str = "t.name, t.member_id";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(EntityLeader {
            member_name: c.get()?,
            member_id: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Events and sponsors

/// An event.
#[derive(SimpleObject, Clone)]
pub struct Event {
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
        Ok(Event {
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
        })
    }
}

/// A sponsor.
#[derive(SimpleObject, Clone)]
pub struct Sponsor {
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
        Ok(Sponsor {
            key: c.get()?,
            name: c.get()?,
            sponsor_type: c.get()?,
            is_member: c.get()?,
            member_type: c.get()?,
            image_url: c.get()?,
            url: c.get()?,
            job_url: c.get()?,
            description: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Projects

/// An active project.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Project {
    #[graphql(skip)]
    pub id: i64,
    /// The full key, `www-project-<name>`.
    pub key: String,
    pub name: String,
    /// `flagship`, `production`, `incubator`, `lab` or `demo`.
    pub level: String,
    /// `code`, `documentation`, `tool` or `other`.
    #[graphql(name = "type")]
    pub kind: String,
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
    const COLS: &'static str = "t.id, t.key, t.name, t.level, t.type, t.description, \
        t.summary, t.url, t.stars, t.forks, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Project {
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            level: c.get()?,
            kind: c.get()?,
            description: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            stars_count: c.get()?,
            forks_count: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

/// Totals over a project's repositories.
#[derive(Clone, Copy, Default)]
pub struct ProjectTotals {
    pub contributors: i64,
    pub open_issues: i64,
    pub repositories: i64,
}

impl Record for ProjectTotals {
    const COLS: &'static str = "(SELECT COALESCE(SUM(r.contributors_count), 0) \
            FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
            WHERE pr.project_id = t.id), \
        (SELECT COALESCE(SUM(r.open_issues_count), 0) \
            FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
            WHERE pr.project_id = t.id), \
        (SELECT COUNT(*) FROM project_repositories pr WHERE pr.project_id = t.id)";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(ProjectTotals {
            contributors: c.get()?,
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
    #[graphql(skip)]
    pub id: i64,
    pub login: String,
    pub name: String,
    pub company: String,
    pub location: String,
    pub description: String,
    pub avatar_url: String,
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Record for Organization {
    const COLS: &'static str = "t.id, t.login, t.name, t.company, t.location, t.description, \
        t.avatar_url, t.url, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Organization {
            id: c.get()?,
            login: c.get()?,
            name: c.get()?,
            company: c.get()?,
            location: c.get()?,
            description: c.get()?,
            avatar_url: c.get()?,
            url: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

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
    const COLS: &'static str = "(SELECT COUNT(DISTINCT rc.member_id) \
            FROM repository_contributors rc JOIN repositories r ON r.id = rc.repository_id \
            WHERE r.organization_id = t.id), \
        (SELECT COALESCE(SUM(r.forks_count), 0) FROM repositories r WHERE r.organization_id = t.id), \
        (SELECT COALESCE(SUM(r.open_issues_count), 0) FROM repositories r \
            WHERE r.organization_id = t.id), \
        (SELECT COUNT(*) FROM repositories r WHERE r.organization_id = t.id), \
        (SELECT COALESCE(SUM(r.stars_count), 0) FROM repositories r WHERE r.organization_id = t.id)";
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
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct User {
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
}

impl Table for User {
    const TABLE: &'static str = "members";
}

impl Record for User {
    const COLS: &'static str = "t.id, t.login, t.name, t.avatar_url, t.url, t.bio, t.company, \
        t.location, t.title, t.twitter_username, t.followers_count, t.following_count, \
        t.public_repositories_count, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(User {
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
        })
    }
}

/// What a member authored.
#[derive(Clone, Copy, Default)]
pub struct UserTotals {
    pub issues: i64,
    pub releases: i64,
}

impl Record for UserTotals {
    const COLS: &'static str = concat!(
        "(SELECT COUNT(*) FROM issues i WHERE i.author_id = t.id), \
         (SELECT COUNT(*) FROM releases x WHERE x.author_id = t.id AND ",
        published!("x"),
        ")"
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(UserTotals {
            issues: c.get()?,
            releases: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Snapshots

/// A completed snapshot: what was new in a month.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Snapshot {
    #[graphql(skip)]
    pub id: i64,
    /// `YYYY-MM`.
    pub key: String,
    pub title: String,
    pub start_at: String,
    pub end_at: String,
    pub created_at: String,
    pub updated_at: String,
    pub new_chapters_count: i64,
    pub new_issues_count: i64,
    pub new_projects_count: i64,
    pub new_releases_count: i64,
    pub new_users_count: i64,
}

impl Record for Snapshot {
    const COLS: &'static str = concat!(
        "t.id, t.key, t.title, t.start_at, t.end_at, t.created_at, t.updated_at, ",
        snapshot_counts!()
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Snapshot {
            id: c.get()?,
            key: c.get()?,
            title: c.get()?,
            start_at: c.ts()?,
            end_at: c.ts()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
            new_chapters_count: c.get()?,
            new_issues_count: c.get()?,
            new_projects_count: c.get()?,
            new_releases_count: c.get()?,
            new_users_count: c.get()?,
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
}

impl Record for StatsOverview {
    const COLS: &'static str = concat!(
        "(SELECT COUNT(*) FROM chapters c WHERE ",
        active!("c"),
        "), (SELECT COUNT(*) FROM projects p WHERE ",
        active!("p"),
        "), (SELECT COUNT(DISTINCT member_id) FROM repository_contributors), \
         (SELECT COUNT(DISTINCT c.country) FROM chapters c WHERE ",
        active!("c"),
        " AND c.country != '')"
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(StatsOverview {
            active_chapters_stats: c.get()?,
            active_projects_stats: c.get()?,
            contributors_stats: c.get()?,
            countries_stats: c.get()?,
        })
    }
}
