//! The records of the community's members: a member, the badges they hold and what
//! they authored, each with the columns it is read from.

use async_graphql::{SimpleObject, ID};

use super::{node_id, Table};
use crate::graphql::db::Cols;
use crate::schema::Selected;
use crate::store::lc;

/// A member (code-hosting user).
#[derive(SimpleObject, Clone, Default)]
#[graphql(complex)]
pub struct User {
    /// Opaque and stable: the same record has the same id in every regeneration.
    #[graphql(name = "id")]
    pub node_id: ID,
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
    /// Public contact address; empty when the member lists none.
    pub email: String,
    /// The member sits on the current board of directors.
    pub is_owasp_board_member: bool,
    /// The member worked for the foundation.
    pub is_former_owasp_staff: bool,
    /// The member has mentored in a summer-of-code program.
    pub is_gsoc_mentor: bool,
    /// The member's professional-network page id; empty when none.
    pub linkedin_page_id: String,
    /// The member's first contribution to the community; null when unknown.
    pub first_owasp_contribution_at: Option<String>,
}

impl Table for User {
    const TABLE: &'static str = "members";
}

impl Selected for User {
    const COLUMNS: &'static str = user_cols!(t);
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut rec = User {
            node_id: ID(String::new()),
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
            email: c.get()?,
            is_owasp_board_member: c.get()?,
            is_former_owasp_staff: c.get()?,
            is_gsoc_mentor: c.get()?,
            linkedin_page_id: c.get()?,
            first_owasp_contribution_at: c.opt_ts()?,
        };
        rec.node_id = node_id("User", &lc(&rec.login));
        Ok(rec)
    }
}

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
        rec.node_id = node_id("User", &lc(&rec.login));
        Ok(rec)
    }
}

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
