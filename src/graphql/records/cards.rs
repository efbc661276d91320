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
use crate::schema::code::graphql::ORGANIZATION_LOGIN;
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

crate::selected! {
    /// An organization's card (the organization joined as `ao`): what the frontend's
    /// repository lists show of it.
    struct OrganizationCard {
        id: i64 = get("ao.id"),
        login: String = get("ao.login"),
        name: String = get("ao.name"),
        avatar_url: String = get("ao.avatar_url"),
    }
}

/// The organization's card after a repository's columns: whether the organization is
/// exposed, then the [`OrganizationCard`]'s columns.
const ORGANIZATION_CARD: &str = concatcp!("ao.id IS NOT NULL, ", OrganizationCard::COLUMNS);

/// The organization read from [`ORGANIZATION_CARD`] as its card, the other fields
/// empty (for selections that ask for none of them): `None` for an organization the
/// API does not expose.
fn read_organization_card(c: &mut Cols) -> rusqlite::Result<Option<Organization>> {
    if !c.get::<bool>()? {
        c.skip(select_width(OrganizationCard::COLUMNS));
        return Ok(None);
    }
    let card = OrganizationCard::read(c)?;
    Ok(Some(Organization {
        node_id: lc_node_id("Organization", &card.login),
        id: card.id,
        login: card.login,
        name: card.name,
        avatar_url: card.avatar_url,
        ..Default::default()
    }))
}

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
    const COLUMNS: &'static str = concatcp!(Repository::COLUMNS, ", ", ORGANIZATION_CARD);
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let record = Repository::read(c)?;
        Ok(OrgCarded {
            record,
            organization: Some(read_organization_card(c)?),
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

crate::selected! {
    /// The columns of a [`RepositorySummary`]: the [`Repository`] fields it keeps, its
    /// organization's login (for its node id), then its organization's card.
    struct SummaryColumns {
        id: i64 = get(),
        organization_id: i64 = get(),
        key: String = get("t.name_lc"),
        name: String = get(),
        url: String = get(),
        contributors_count: i64 = get(),
        forks_count: i64 = get(),
        open_issues_count: i64 = get(),
        stars_count: i64 = get(),
        subscribers_count: i64 = get(),
        is_archived: bool = get(),
        organization_login: String = get(ORGANIZATION_LOGIN),
        organization: Option<Organization> = with(read_organization_card, ORGANIZATION_CARD),
    }
}

impl Selected for RepositorySummary {
    const COLUMNS: &'static str = SummaryColumns::COLUMNS;
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let summary = SummaryColumns::read(c)?;
        let record = Repository {
            node_id: repo_node_id(
                "Repository",
                &summary.organization_login,
                &summary.name,
                &[],
            ),
            id: summary.id,
            organization_id: summary.organization_id,
            key: summary.key,
            name: summary.name,
            url: summary.url,
            contributors_count: summary.contributors_count,
            forks_count: summary.forks_count,
            open_issues_count: summary.open_issues_count,
            stars_count: summary.stars_count,
            subscribers_count: summary.subscribers_count,
            is_archived: summary.is_archived,
            ..Default::default()
        };
        Ok(RepositorySummary(OrgCarded {
            record,
            organization: Some(summary.organization),
        }))
    }
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
