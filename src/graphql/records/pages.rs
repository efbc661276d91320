//! The records of the frontend's pages beyond the REST resources: pull requests, blog
//! posts, project health metrics, member badges, the chat channels of chapters,
//! committees and projects, and the totals over a committee's repositories, each with
//! the columns it is read from.

use async_graphql::{SimpleObject, ID};

use super::{node_id, HealthMetrics, PullRequest, Table};
use crate::graphql::db::Cols;
use crate::schema::Selected;
use crate::store::lc;

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
pub(crate) use entry_cols;

/// The node id of an entry in an entity's list (a leader, a channel) of type
/// `typename`, from its [`entry_cols`]: the entity's kind and key and the entry's
/// place in the list.
pub fn entry_id(typename: &str, c: &mut Cols) -> rusqlite::Result<ID> {
    let kind: String = c.get()?;
    let position: i64 = c.get()?;
    let entity: String = c.get()?;
    Ok(node_id(typename, &format!("{kind}:{entity}:{position}")))
}

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

impl Table for HealthMetrics {
    const TABLE: &'static str = "project_health_metrics";
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

// ----------------------------------------------------------------------------------
// Committee totals

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
    const COLUMNS = "(SELECT COALESCE(SUM(r.contributors_count), 0) \
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
}
