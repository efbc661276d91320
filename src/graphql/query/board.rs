//! The board candidates page's queries (docs/api.md §6): a year's board of directors
//! with its election's candidates and its members, and a member's activity snapshots.

use async_graphql::{ComplexObject, Context, Object, Result};
use rusqlite::types::Value;

use super::{list, Select};
use crate::graphql::loaders::{many, one};
use crate::graphql::records::relations as l;
use crate::graphql::records::{Board, EntityLeader, MemberSnapshot, User};
use crate::graphql::types::{limit_cost, limit_or};
use crate::store::lc;

#[derive(Default)]
pub struct BoardQuery;

#[ComplexObject]
impl Board {
    /// The candidates of the year's election, in the order listed.
    async fn candidates(&self, ctx: &Context<'_>) -> Result<Vec<EntityLeader>> {
        many(ctx, l::BoardCandidates(self.id)).await
    }

    /// The members of the board, in the order listed.
    async fn members(&self, ctx: &Context<'_>) -> Result<Vec<EntityLeader>> {
        many(ctx, l::BoardMembers(self.id)).await
    }
}

#[ComplexObject]
impl MemberSnapshot {
    /// The member.
    async fn github_user(&self, ctx: &Context<'_>) -> Result<User> {
        one(ctx, l::UserById(self.member_id))
            .await?
            .ok_or_else(|| async_graphql::Error::new("the snapshot's member is missing"))
    }
}

#[Object]
impl BoardQuery {
    /// The board of directors of `year`; null when the dataset has none.
    async fn board_of_directors(&self, ctx: &Context<'_>, year: i32) -> Result<Option<Board>> {
        let select = Select::from("boards t").with("t.year = ?", Some(Value::from(year)));
        Ok(list(ctx, Some(1), select, "t.id").await?.into_iter().next())
    }

    /// Boards of directors, the latest year first.
    #[graphql(complexity = "limit_cost(limit, 10, child_complexity)")]
    async fn boards_of_directors(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 10)] limit: Option<i32>,
    ) -> Result<Vec<Board>> {
        list(
            ctx,
            limit_or(limit, 10),
            Select::from("boards t"),
            "t.year DESC",
        )
        .await
    }

    /// A member's latest snapshot (by start), or their latest one starting in
    /// `startYear`; null when there is none or no such member.
    async fn member_snapshot(
        &self,
        ctx: &Context<'_>,
        user_login: String,
        start_year: Option<i32>,
    ) -> Result<Option<MemberSnapshot>> {
        let year = start_year.map(|y| Value::Text(format!("{y:04}")));
        let select = Select::from("member_snapshots t")
            .with(BY_MEMBER, Some(Value::Text(lc(&user_login))))
            .with(IN_YEAR, year);
        Ok(list(ctx, Some(1), select, "t.start_at DESC, t.id DESC")
            .await?
            .into_iter()
            .next())
    }

    /// Member snapshots, the latest start first; of one member with `userLogin`.
    #[graphql(complexity = "limit_cost(limit, 10, child_complexity)")]
    async fn member_snapshots(
        &self,
        ctx: &Context<'_>,
        user_login: Option<String>,
        #[graphql(default = 10)] limit: Option<i32>,
    ) -> Result<Vec<MemberSnapshot>> {
        let select = Select::from("member_snapshots t")
            .with(BY_MEMBER, user_login.map(|login| Value::Text(lc(&login))));
        list(
            ctx,
            limit_or(limit, 10),
            select,
            "t.start_at DESC, t.id DESC",
        )
        .await
    }
}

const BY_MEMBER: &str = "t.member_id = (SELECT id FROM members WHERE login_lc = ?)";
const IN_YEAR: &str = "strftime('%Y', t.start_at / 1000000, 'unixepoch') = ?";
