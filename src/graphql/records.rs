//! Record plumbing of the GraphQL API: the records its types are made of, how each is
//! read from one SQL row ([`Record`]), and the relations between them
//! ([`relations`]). The records are the data of the GraphQL object types (their plain
//! fields); [`super::types`] adds the resolved fields, through [`super::loaders`].
//!
//! What the API exposes (active chapters, published releases, ...) comes from
//! [`crate::catalog::exposure`], the same SQL the REST catalog uses.

/// A member's columns over the table alias `$a`, in [`User`]'s order: the member's own
/// record (`t`) or the author joined to another record (`a`).
macro_rules! user_cols {
    ($a:ident) => {
        concat!(
            stringify!($a),
            ".id, ",
            stringify!($a),
            ".login, ",
            stringify!($a),
            ".name, ",
            stringify!($a),
            ".avatar_url, ",
            stringify!($a),
            ".url, ",
            stringify!($a),
            ".bio, ",
            stringify!($a),
            ".company, ",
            stringify!($a),
            ".location, ",
            stringify!($a),
            ".title, ",
            stringify!($a),
            ".twitter_username, ",
            stringify!($a),
            ".followers_count, ",
            stringify!($a),
            ".following_count, ",
            stringify!($a),
            ".public_repositories_count, ",
            stringify!($a),
            ".created_at, ",
            stringify!($a),
            ".updated_at, ",
            stringify!($a),
            ".email"
        )
    };
}

/// The joins of records in a repository: the repository `r` and its organization `o`.
macro_rules! repo_joins {
    () => {
        " JOIN repositories r ON r.id = t.repository_id \
         JOIN organizations o ON o.id = r.organization_id"
    };
}

/// Columns in [`user_cols`], counted from its text.
const USER_COLUMNS: usize = column_count(user_cols!(t));

/// The columns of a select list without commas inside a column.
const fn column_count(cols: &str) -> usize {
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
mod community;
pub mod contributions;
mod pages;
pub mod relations;

pub use activity::*;
pub use community::*;
pub use pages::*;

use async_graphql::ID;
use base64::Engine as _;

use super::db::Cols;
use crate::store::lc;

/// The `id` of a record: `Type:naturalkey` in base64 (standard alphabet, padded).
///
/// The natural key is what identifies the record in the dataset's own files (a key, a
/// login, organization/repository plus number or tag), in lower case where the dataset
/// compares it case-insensitively, never a database row id: row ids follow the order
/// of the records in their files, which a regeneration may change. The type name makes
/// the id unique across types.
pub fn node_id(kind: &str, key: &str) -> ID {
    let mut raw = String::with_capacity(kind.len() + 1 + key.len());
    raw.push_str(kind);
    raw.push(':');
    raw.push_str(key);
    ID(base64::engine::general_purpose::STANDARD.encode(raw))
}

/// The natural key of a record of a repository: `organization/repository` in lower
/// case, then `suffix` (`#number` or `@tag`).
pub fn repo_key(organization: &str, repository: &str, suffix: &str) -> String {
    let mut key = String::with_capacity(organization.len() + 1 + repository.len() + suffix.len());
    push_lc(&mut key, organization);
    key.push('/');
    push_lc(&mut key, repository);
    key.push_str(suffix);
    key
}

/// Appends [`lc`]`(text)`, without a copy of its own when `text` is ASCII.
fn push_lc(out: &mut String, text: &str) {
    if text.is_ascii() {
        out.extend(text.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        out.push_str(&lc(text));
    }
}

/// A record read from one SQL row, columns in `COLS` order.
pub trait Record: Sized + Clone + Send + Sync + 'static {
    /// The select list; tables are aliased `t` (the record), `r` (its repository) and
    /// `o` (the repository's organization).
    const COLS: &'static str;
    fn read(c: &mut Cols) -> rusqlite::Result<Self>;
}

/// A record with a table of its own, keyed by `id` (aliased `t`).
pub trait Table: Record {
    const TABLE: &'static str;
    /// Joins the columns need besides `t`.
    const JOINS: &'static str = "";
}

/// The joins of records in a repository: the repository `r` and its organization `o`.
pub const REPO_JOINS: &str = repo_joins!();

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

/// One text value (a language, a topic).
#[derive(Clone)]
pub struct Text(pub String);

impl Record for Text {
    /// Over a row `t` with the value `v`.
    const COLS: &'static str = "t.v";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Text(c.get()?))
    }
}
