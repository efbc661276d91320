//! The records of the frontend's pages beyond the REST resources: pull requests, blog
//! posts, project health metrics, member badges, the chat channels of chapters,
//! committees and projects, and the totals over a committee's repositories, each with
//! the columns it is read from.

use async_graphql::{SimpleObject, ID};

use super::{node_id, PullRequest, Table};
use crate::graphql::db::Cols;
use crate::schema::Selected;
use crate::store::lc;

/// The key (in lower case) of the chapter, committee or project of a row `t` with
/// `entity_kind` and `entity_id` (leaders, channels).
macro_rules! entity_key {
    () => {
        "CASE t.entity_kind \
            WHEN 'chapter' THEN (SELECT e.key_lc FROM chapters e WHERE e.id = t.entity_id) \
            WHEN 'committee' THEN (SELECT e.key_lc FROM committees e WHERE e.id = t.entity_id) \
            ELSE (SELECT e.key_lc FROM projects e WHERE e.id = t.entity_id) END"
    };
}
pub(crate) use entity_key;

// ----------------------------------------------------------------------------------
// Pull requests

impl Table for PullRequest {
    const TABLE: &'static str = "pull_requests";
    /// The organization through the pull request's own `organization_id`, so that an
    /// organization's newest pull requests are one walk of an index.
    const JOINS: &'static str = " JOIN repositories r ON r.id = t.repository_id \
         JOIN organizations o ON o.id = t.organization_id";
}

// ----------------------------------------------------------------------------------
// Posts

/// A post of the community's blog.
#[derive(SimpleObject, Clone)]
pub struct Post {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
    pub title: String,
    pub url: String,
    pub author_name: String,
    pub author_image_url: String,
    pub published_at: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Selected for Post {
    const COLUMNS: &'static str = "t.title, t.url, t.url_lc, t.author_name, t.author_image_url, \
        t.published_at, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let title = c.get()?;
        let url = c.get()?;
        let url_lc: String = c.get()?;
        Ok(Post {
            node_id: node_id("Post", &url_lc),
            title,
            url,
            author_name: c.get()?,
            author_image_url: c.get()?,
            published_at: c.ts()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Project health metrics

/// One measurement of a project's health.
#[derive(SimpleObject, Clone)]
#[graphql(name = "ProjectHealthMetrics")]
pub struct HealthMetrics {
    /// Opaque and stable: the project's key and the time of the measurement.
    #[graphql(name = "id")]
    pub node_id: ID,
    pub created_at: String,
    /// 0 to 100; null when the measurement has no score.
    pub score: Option<f64>,
    pub stars_count: i64,
    pub forks_count: i64,
    pub open_issues_count: i64,
    pub open_pull_requests_count: i64,
    pub unanswered_issues_count: i64,
    pub unassigned_issues_count: i64,
    pub last_commit_days: i64,
    pub last_commit_days_requirement: i64,
    pub last_release_days: i64,
    pub last_release_days_requirement: i64,
}

impl Table for HealthMetrics {
    const TABLE: &'static str = "project_health_metrics";
}

impl Selected for HealthMetrics {
    const COLUMNS: &'static str = "(SELECT p.key_lc FROM projects p WHERE p.id = t.project_id), \
        t.created_at, t.created_at, t.score, t.stars_count, t.forks_count, t.open_issues_count, \
        t.open_pull_requests_count, t.unanswered_issues_count, t.unassigned_issues_count, \
        t.last_commit_days, t.last_commit_days_requirement, t.last_release_days, \
        t.last_release_days_requirement";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let project: String = c.get()?;
        let micros: i64 = c.get()?;
        Ok(HealthMetrics {
            node_id: node_id("ProjectHealthMetrics", &format!("{project}@{micros}")),
            created_at: c.ts()?,
            score: c.get()?,
            stars_count: c.get()?,
            forks_count: c.get()?,
            open_issues_count: c.get()?,
            open_pull_requests_count: c.get()?,
            unanswered_issues_count: c.get()?,
            unassigned_issues_count: c.get()?,
            last_commit_days: c.get()?,
            last_commit_days_requirement: c.get()?,
            last_release_days: c.get()?,
            last_release_days_requirement: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Badges

/// A badge a member holds.
#[derive(SimpleObject, Clone)]
pub struct Badge {
    /// Opaque and stable: the badge's name.
    #[graphql(name = "id")]
    pub node_id: ID,
    pub name: String,
    pub description: String,
    pub css_class: String,
    pub weight: i64,
}

impl Selected for Badge {
    /// Over `badges t`.
    const COLUMNS: &'static str = "t.name, t.description, t.css_class, t.weight";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let name: String = c.get()?;
        Ok(Badge {
            node_id: node_id("Badge", &lc(&name)),
            name,
            description: c.get()?,
            css_class: c.get()?,
            weight: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Channels

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
    const COLUMNS: &'static str = concat!(
        "t.platform, t.name, t.external_id, t.entity_kind, t.position, ",
        entity_key!()
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let platform = c.get()?;
        let name = c.get()?;
        let external_id = c.get()?;
        let kind: String = c.get()?;
        let position: i64 = c.get()?;
        let entity: String = c.get()?;
        Ok(EntityChannel {
            node_id: node_id("EntityChannel", &format!("{kind}:{entity}:{position}")),
            platform,
            name,
            external_id,
        })
    }
}

// ----------------------------------------------------------------------------------
// Committee totals

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

impl Selected for CommitteeTotals {
    /// Over `committees t`.
    const COLUMNS: &'static str = "(SELECT COALESCE(SUM(r.contributors_count), 0) \
            FROM committee_repositories cr JOIN repositories r ON r.id = cr.repository_id \
            WHERE cr.committee_id = t.id), \
        (SELECT COALESCE(SUM(r.forks_count), 0) \
            FROM committee_repositories cr JOIN repositories r ON r.id = cr.repository_id \
            WHERE cr.committee_id = t.id), \
        (SELECT COUNT(*) FROM committee_repositories cr \
            JOIN issues i ON i.repository_id = cr.repository_id WHERE cr.committee_id = t.id), \
        (SELECT COUNT(*) FROM committee_repositories cr WHERE cr.committee_id = t.id), \
        (SELECT COALESCE(SUM(r.stars_count), 0) \
            FROM committee_repositories cr JOIN repositories r ON r.id = cr.repository_id \
            WHERE cr.committee_id = t.id)";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(CommitteeTotals {
            contributors: c.get()?,
            forks: c.get()?,
            issues: c.get()?,
            repositories: c.get()?,
            stars: c.get()?,
        })
    }
}
