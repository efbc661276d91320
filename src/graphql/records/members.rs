//! The records of the community's members: a member, the badges they hold and what
//! they authored, each with the columns it is read from.

use async_graphql::{SimpleObject, ID};
use const_format::str_replace;

use super::{lc_node_id, Table};
use crate::graphql::db::Cols;
use crate::schema::Selected;
use crate::selected;

selected! {
    /// A member (code-hosting user).
    #[derive(SimpleObject, Clone, Default)]
    #[graphql(complex)]
    pub struct User: node, id {
        pub login: String = get("t.login"),
        pub name: String = get("t.name"),
        pub avatar_url: String = get("t.avatar_url"),
        pub url: String = get("t.url"),
        pub bio: String = get("t.bio"),
        pub company: String = get("t.company"),
        pub location: String = get("t.location"),
        pub title: String = get("t.title"),
        pub twitter_username: String = get("t.twitter_username"),
        pub followers_count: i64 = get("t.followers_count"),
        pub following_count: i64 = get("t.following_count"),
        pub public_repositories_count: i64 = get("t.public_repositories_count"),
        pub created_at: String = ts("t.created_at"),
        pub updated_at: String = ts("t.updated_at"),
        /// Public contact address; empty when the member lists none.
        pub email: String = get("t.email"),
        /// The member sits on the current board of directors.
        pub is_owasp_board_member: bool = get("t.is_owasp_board_member"),
        /// The member worked for the foundation.
        pub is_former_owasp_staff: bool = get("t.is_former_owasp_staff"),
        /// The member has mentored in a summer-of-code program.
        pub is_gsoc_mentor: bool = get("t.is_gsoc_mentor"),
        /// The member's professional-network page id; empty when none.
        pub linkedin_page_id: String = get("t.linkedin_page_id"),
        /// The member's first contribution to the community; null when unknown.
        pub first_owasp_contribution_at: Option<String> =
            opt_ts("t.first_owasp_contribution_at"),
    } => keyed("User", login)
}

impl Table for User {
    const TABLE: &'static str = "members";
}

/// [`User::COLUMNS`] over the alias `a`: a record's author joined to it.
pub const AUTHOR_COLUMNS: &str = str_replace!(User::COLUMNS, "t.", "a.");

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
        rec.node_id = lc_node_id("User", &rec.login);
        Ok(rec)
    }
}

selected! {
    /// A badge a member holds.
    #[derive(SimpleObject, Clone)]
    pub struct Badge {
        /// Opaque and stable: the badge's name.
        #[graphql(name = "id")]
        pub node_id: ID = later(),
        pub name: String = get("t.name"),
        pub description: String = get("t.description"),
        pub css_class: String = get("t.css_class"),
        pub weight: i64 = get("t.weight"),
    } => keyed("Badge", name)
}

counts! {
    /// What a member authored.
    #[derive(Clone, Copy, Default)]
    pub struct UserTotals {
        pub issues: i64,
        pub releases: i64,
        /// Contributions summed over every repository.
        pub contributions: i64,
    }
    const COLUMNS = "(SELECT COUNT(*) FROM issues i WHERE i.author_id = t.id), \
         (SELECT COUNT(*) FROM api_releases x WHERE x.author_id = t.id), \
         (SELECT COALESCE(SUM(rc.contributions_count), 0) FROM repository_contributors rc \
            WHERE rc.member_id = t.id)";
}
