//! Issues and pull requests read with their author's card (id, login, name, avatar:
//! what the frontend's lists show of an author) in the list's own statement, for the
//! selections that ask no more of the authors
//! ([`crate::graphql::plain::authors_as_cards`]): such a list is then written without
//! a field resolver per value, and without a dataloader wave for the authors
//! ([`crate::graphql::plain`]).

use std::borrow::Cow;

use async_graphql::parser::types::Field;
use async_graphql::registry::Registry;
use async_graphql::{ContextSelectionSet, OutputType, Positioned, ServerResult, Value};

use super::{
    lc_node_id, repo_node_id, Issue, Organization, PullRequest, Repository, Table, User,
    AUTHOR_JOIN,
};
use crate::graphql::db::Cols;
use crate::schema::{concatcp, select_width, Selected};

/// An author's card: declared beside the authors' cards kept per dataset file.
pub use crate::graphql::totals::Card;

/// Whether a record has an author: the column before its [`Card`]'s.
const HAS_AUTHOR: &str = "a.id IS NOT NULL";

/// The author's card after a record's columns: whether there is an author, then the
/// [`Card`]'s columns.
pub const AUTHOR_CARD: &str = concatcp!(HAS_AUTHOR, ", ", Card::COLUMNS);

/// [`AUTHOR_CARD`] appended to a select list.
pub(super) const CARD_COLUMNS: &str = concatcp!(", ", AUTHOR_CARD);

/// The author's card read from [`AUTHOR_CARD`]: `None` for a record without an
/// author.
pub fn read_card(c: &mut Cols) -> rusqlite::Result<Option<User>> {
    if c.get::<bool>()? {
        Ok(Some(User::read_card(c)?))
    } else {
        c.skip(select_width(Card::COLUMNS));
        Ok(None)
    }
}

/// A record `T` and its author's card: `None` when it was not read with the record
/// (the `author` field loads it), `Some(None)` for a record without an author.
#[derive(Clone)]
pub struct Carded<T> {
    pub record: T,
    pub author: Option<Option<User>>,
}

/// A record read with its author's card: the record's table, joins and columns, then
/// the author's.
macro_rules! carded {
    ($record:ident) => {
        impl Table for Carded<$record> {
            const TABLE: &'static str = $record::TABLE;
            const JOINS: &'static str = concatcp!($record::JOINS, AUTHOR_JOIN);
        }

        impl Selected for Carded<$record> {
            const COLUMNS: &'static str = concatcp!($record::COLUMNS, CARD_COLUMNS);
            fn read(c: &mut Cols) -> rusqlite::Result<Self> {
                let record = $record::read(c)?;
                Ok(Carded {
                    record,
                    author: Some(read_card(c)?),
                })
            }
        }
    };
}

carded!(Issue);
carded!(PullRequest);

impl<T> Carded<T> {
    /// Records whose authors are left to their `author` field (loaded).
    pub fn uncarded(records: Vec<T>) -> Vec<Carded<T>> {
        records
            .into_iter()
            .map(|record| Carded {
                record,
                author: None,
            })
            .collect()
    }
}

/// The join of a repository's organization `ao` as the API exposes it (affiliated
/// organizations only: `Repository.organization` is null for the others).
pub const ORGANIZATION_JOIN: &str = " LEFT JOIN api_organizations ao ON ao.id = t.organization_id";

/// The organization's card after a repository's columns: whether the organization is
/// exposed, then the card's four columns.
const ORGANIZATION_CARD_COLUMNS: &str =
    ", ao.id IS NOT NULL, ao.id, ao.login, ao.name, ao.avatar_url";

/// A repository and its organization's card (id, login, name, avatar: what the
/// frontend's repository lists show of it): `None` when it was not read with the
/// repository (the `organization` field loads it), `Some(None)` for a repository
/// whose organization the API does not expose.
#[derive(Clone)]
pub struct OrgCarded<T> {
    pub record: T,
    pub organization: Option<Option<Organization>>,
}

impl Table for OrgCarded<Repository> {
    const TABLE: &'static str = Repository::TABLE;
    const JOINS: &'static str = concatcp!(Repository::JOINS, ORGANIZATION_JOIN);
}

impl Selected for OrgCarded<Repository> {
    const COLUMNS: &'static str = concatcp!(Repository::COLUMNS, ORGANIZATION_CARD_COLUMNS);
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let record = Repository::read(c)?;
        let organization = if c.get::<bool>()? {
            Some(organization_card(c)?)
        } else {
            c.skip(4);
            None
        };
        Ok(OrgCarded {
            record,
            organization: Some(organization),
        })
    }
}

/// A repository read without the fields a list of repositories seldom shows (its
/// description, license, languages, topics, commit count, size and times), with its
/// organization's card: in place of an [`OrgCarded`] repository when the selection
/// asks for none of those ([`crate::graphql::plain::repositories_as_summaries`]).
/// The fields left out are empty, and nothing asks for them.
#[derive(Clone)]
pub struct RepositorySummary(pub OrgCarded<Repository>);

impl Table for RepositorySummary {
    const TABLE: &'static str = Repository::TABLE;
    const JOINS: &'static str = concatcp!(Repository::JOINS, ORGANIZATION_JOIN);
}

impl Selected for RepositorySummary {
    const COLUMNS: &'static str = concatcp!(
        "t.id, t.organization_id, t.name_lc, t.name, t.url, t.contributors_count, \
         t.forks_count, t.open_issues_count, t.stars_count, t.subscribers_count, \
         t.is_archived, (SELECT ro.login FROM organizations ro WHERE ro.id = t.organization_id)",
        ORGANIZATION_CARD_COLUMNS
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut record = Repository {
            id: c.get()?,
            organization_id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            url: c.get()?,
            contributors_count: c.get()?,
            forks_count: c.get()?,
            open_issues_count: c.get()?,
            stars_count: c.get()?,
            subscribers_count: c.get()?,
            is_archived: c.get()?,
            ..Default::default()
        };
        let organization: String = c.get()?;
        record.node_id = repo_node_id("Repository", &organization, &record.name, &[]);
        let card = if c.get::<bool>()? {
            Some(organization_card(c)?)
        } else {
            c.skip(4);
            None
        };
        Ok(RepositorySummary(OrgCarded {
            record,
            organization: Some(card),
        }))
    }
}

/// An organization's card from the columns `id, login, name, avatar_url`, the other
/// fields empty: for selections that ask for none of them.
fn organization_card(c: &mut Cols) -> rusqlite::Result<Organization> {
    let id = c.get()?;
    let login: String = c.get()?;
    Ok(Organization {
        node_id: lc_node_id("Organization", &login),
        id,
        login,
        name: c.get()?,
        avatar_url: c.get()?,
        ..Default::default()
    })
}

impl<T> OrgCarded<T> {
    /// Records whose organizations are left to their `organization` field (loaded).
    pub fn uncarded(records: Vec<T>) -> Vec<OrgCarded<T>> {
        records
            .into_iter()
            .map(|record| OrgCarded {
                record,
                organization: None,
            })
            .collect()
    }
}

/// The GraphQL type of `T` for a wrapper of a `T` record: resolved by async-graphql as
/// `T` (what the card holds then loaded as usual) when a list cannot be written
/// directly.
macro_rules! as_record_type {
    ($wrapper:ident) => {
        impl<T: OutputType + Clone> OutputType for $wrapper<T> {
            fn type_name() -> Cow<'static, str> {
                T::type_name()
            }

            fn qualified_type_name() -> String {
                T::qualified_type_name()
            }

            fn create_type_info(registry: &mut Registry) -> String {
                T::create_type_info(registry)
            }

            async fn resolve(
                &self,
                ctx: &ContextSelectionSet<'_>,
                field: &Positioned<Field>,
            ) -> ServerResult<Value> {
                self.record.resolve(ctx, field).await
            }
        }
    };
}

as_record_type!(Carded);
as_record_type!(OrgCarded);
