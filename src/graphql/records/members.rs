//! How the GraphQL API reads members ([`User`] and [`super::Badge`] are declared in
//! [`crate::schema::community`]): as a record's author, as a card, and what they
//! authored.

use const_format::str_replace;

use super::{lc_node_id, Card, Table, User};
use crate::graphql::db::Cols;
use crate::schema::Selected;

impl Table for User {
    const TABLE: &'static str = "members";
}

/// [`User::COLUMNS`] over the alias `a`: a record's author joined to it.
pub const AUTHOR_COLUMNS: &str = str_replace!(User::COLUMNS, "t.", "a.");

impl User {
    /// A member's card from the columns of a [`Card`], the other
    /// fields empty: for selections that ask for none of them ([`CardRelease`]).
    pub fn read_card(c: &mut Cols) -> rusqlite::Result<User> {
        let card = Card::read(c)?;
        let mut rec = User {
            id: card.id,
            login: card.login,
            name: card.name,
            avatar_url: card.avatar_url,
            ..User::default()
        };
        rec.node_id = lc_node_id("User", &rec.login);
        Ok(rec)
    }
}

crate::selected! {
    /// What a member authored.
    #[derive(Clone, Copy, Default)]
    pub struct UserTotals {
        pub issues: i64 = get("(SELECT COUNT(*) FROM issues i WHERE i.author_id = t.id)"),
        pub releases: i64 = get("(SELECT COUNT(*) FROM api_releases x WHERE x.author_id = t.id)"),
        /// Contributions summed over every repository.
        pub contributions: i64 = get(
            "(SELECT COALESCE(SUM(rc.contributions_count), 0) FROM repository_contributors rc \
              WHERE rc.member_id = t.id)"
        ),
    }
}
