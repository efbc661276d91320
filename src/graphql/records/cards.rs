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

use super::{Issue, PullRequest, Table, User, AUTHOR_JOIN};
use crate::graphql::db::Cols;
use crate::schema::{concatcp, Selected};

/// The author's card after a record's columns: whether there is an author, then the
/// card's four columns.
pub(super) const CARD_COLUMNS: &str = ", a.id IS NOT NULL, a.id, a.login, a.name, a.avatar_url";

/// The author's card read from [`CARD_COLUMNS`]: `None` for a record without an
/// author.
pub(super) fn read_card(c: &mut Cols) -> rusqlite::Result<Option<User>> {
    if c.get::<bool>()? {
        Ok(Some(User::read_card(c)?))
    } else {
        c.skip(4);
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

/// The GraphQL type of `T`: resolved by async-graphql as `T` (its `author` then loaded
/// as usual) when a list cannot be written directly.
impl<T: OutputType + Clone> OutputType for Carded<T> {
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
