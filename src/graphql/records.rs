//! Record plumbing of the GraphQL API: the records its types are made of, how each is
//! read from one SQL row ([`Record`]), and the relations between them
//! ([`relations`]). The records are the data of the GraphQL object types (their plain
//! fields); [`super::types`] adds the resolved fields, through [`super::loaders`].
//!
//! What the API exposes (active chapters, published releases, ...) comes from
//! [`crate::schema::exposure`], the same SQL the REST catalog uses.

/// A record of one text column (a language, a label's name).
macro_rules! text {
    ($(#[$meta:meta])* $name:ident, $(#[$cols_meta:meta])* $cols:literal) => {
        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name(pub String);

        impl $crate::schema::Selected for $name {
            $(#[$cols_meta])*
            const COLUMNS: &'static str = $cols;
            fn read(c: &mut $crate::graphql::db::Cols) -> rusqlite::Result<Self> {
                Ok($name(c.get()?))
            }
        }
    };
}

/// The columns of a select list without commas inside a column.
pub(crate) const fn column_count(cols: &str) -> usize {
    let bytes = cols.as_bytes();
    let (mut i, mut n) = (0, 1);
    while i < bytes.len() {
        if bytes[i] == b',' {
            n += 1;
        }
        i += 1;
    }
    n
}

mod activity;
mod cards;
mod community;
pub mod contributions;
mod members;
pub mod relations;

pub use activity::*;
pub use cards::*;
pub use community::*;
pub use members::*;

pub use crate::schema::code::graphql::{Milestone, Release, Repository};
pub use crate::schema::community::graphql::{
    Badge, Board, Chapter, Committee, Event, HealthMetrics, MemberSnapshot, Organization, Post,
    Project, Snapshot, Sponsor, User,
};
pub use crate::schema::issues::graphql::{Issue, PullRequest};
pub use crate::schema::mentorship::graphql::{Module, Program};
pub use crate::schema::{lc_node_id, node_id, repo_node_id, Selected};

/// A record read from one SQL row of its [`Selected::COLUMNS`]; tables are aliased
/// `t` (the record), `r` (its repository) and `o` (the repository's organization).
pub trait Record: Selected + Clone + Send + Sync + 'static {}
impl<T: Selected + Clone + Send + Sync + 'static> Record for T {}

/// A record with a table of its own, keyed by `id` (aliased `t`).
pub trait Table: Record {
    const TABLE: &'static str;
    /// Joins the columns need besides `t`.
    const JOINS: &'static str = "";
}

/// The joins of records in a repository: the repository `r` and its organization `o`.
pub const REPO_JOINS: &str = " JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id";

/// The most records any list returns, whatever its `limit`.
pub const MAX_LIMIT: i64 = 1000;

/// Newest first. Ties go to the later record: with every key descending, SQLite walks
/// the `(created_at, updated_at, id)` index backwards and stops at the limit.
pub const NEWEST_FIRST: &str = "t.created_at DESC, t.updated_at DESC, t.id DESC";

/// Newest first, for records without `updated_at` ordering (chapters, projects,
/// snapshots, members).
pub const CREATED_FIRST: &str = "t.created_at DESC, t.id DESC";

/// Most recently published first (releases).
pub const PUBLISHED_FIRST: &str = "t.published_at DESC, t.created_at DESC, t.id DESC";

/// The releases of `api_releases` (published) that the GraphQL lists of recent
/// releases show, as the original service's do (docs/api.md §6): `recentReleases` and
/// `Repository.releases` leave out drafts and pre-releases.
pub const RELEASE_LISTED: &str = "t.is_draft = 0 AND t.is_pre_release = 0";

/// The releases of `api_releases` that `Project.recentReleases` shows: the original
/// leaves out drafts only, and keeps a project's pre-releases.
pub const RELEASE_OF_PROJECT: &str = "t.is_draft = 0";

text!(
    /// One text value (a language, a topic).
    Text,
    /// Over a row `t` with the value `v`.
    "t.v"
);
