//! The GraphQL object types (docs/api.md §6): the REST detail fields of each record
//! (its plain fields, declared with the record in [`super::records`]) plus its
//! relations and computed fields, resolved here. Relations go through the request's
//! dataloader ([`super::loaders`]), so a list of N records costs one batched statement
//! per relation, not N.
//!
//! Timestamps are ISO 8601 UTC strings like the REST API's; event dates `YYYY-MM-DD`.
//! Also here: the `limit` arguments and the complexity they add (aggregates cost what
//! their SQL reads: [`super::limits::cost`]).

use async_graphql::{ComplexObject, Context, Json, Result, SimpleObject};
use serde_json::{Map, Value};

use super::limits::cost;
use super::loaders::{contributor_totals, many, one};
use super::plain::{authors_as_cards, Listed};
use super::records::contributions::{DayCount, ACTIVITIES};
use super::records::relations as l;
use super::records::relations::ListKey;
use super::records::*;

/// A `limit` argument: `None` (an empty list) for 0 or less, capped at [`MAX_LIMIT`].
pub fn clamp_limit(limit: i32) -> Option<i64> {
    (limit > 0).then(|| i64::from(limit).min(MAX_LIMIT))
}

/// Complexity of a list field of at most `n` items.
pub fn list_cost(n: usize, child_complexity: usize) -> usize {
    n.saturating_mul(child_complexity).saturating_add(1)
}

/// A nullable `limit` argument: null means the default.
pub fn limit_or(limit: Option<i32>, default: i32) -> Option<i64> {
    clamp_limit(limit.unwrap_or(default))
}

/// The children of the relation `key(limit)` for a nullable `limit` argument (its
/// `default` when null): none for a limit of 0 or less.
pub async fn many_up_to<K: ListKey>(
    ctx: &Context<'_>,
    limit: Option<i32>,
    default: i32,
    key: impl FnOnce(i64) -> K,
) -> Result<Vec<K::Item>> {
    match limit_or(limit, default) {
        Some(limit) => many(ctx, key(limit)).await,
        None => Ok(Vec::new()),
    }
}

/// The one row of an aggregate relation (totals, counts); zeros when it has none.
async fn one_or_zero<K: ListKey>(ctx: &Context<'_>, key: K) -> Result<K::Item>
where
    K::Item: Default,
{
    Ok(one(ctx, key).await?.unwrap_or_default())
}

/// Complexity of a list field bounded by a nullable `limit` argument.
pub fn limit_cost(limit: Option<i32>, default: i32, child_complexity: usize) -> usize {
    list_cost(
        limit_or(limit, default).unwrap_or(0) as usize,
        child_complexity,
    )
}

/// Assumed size of relation lists without a stated bound (repositories of a project,
/// records new in a snapshot, leaders), for the complexity bound only.
pub const TYPICAL_LIST: usize = 10;

/// `contributionData` / `contributionStats`: a year of an entity's issues, pull
/// requests and releases, grouped by day (one statement for all the entities of a
/// page, shared by both fields).
pub const CONTRIBUTIONS: usize = 50;
/// `Project.languages` / `topics`: the distinct values over its repositories.
pub const PROJECT_UNION: usize = 10;
/// `topContributors` of a project, chapter or committee: contributions summed over
/// its repositories.
pub const PROJECT_CONTRIBUTORS: usize = 50;
/// `Committee` counts: sums over its linked repositories (one statement for all the
/// committees of a page, shared by the five counts).
pub const COMMITTEE_TOTALS: usize = 10;

/// `contributionData`: each day (`YYYY-MM-DD`, ascending) with activity and its
/// number of records of every kind; days without activity are left out.
async fn contribution_data(
    ctx: &Context<'_>,
    key: impl ListKey<Item = DayCount>,
) -> Result<Json<Value>> {
    let days = many(ctx, key).await?;
    let mut map = Map::new();
    for d in days {
        let n = map.get(&d.day).and_then(Value::as_i64).unwrap_or(0) + d.count;
        map.insert(d.day, Value::from(n));
    }
    Ok(Json(Value::Object(map)))
}

/// The keys of `contributionStats` besides `total`; those without an
/// [`ACTIVITIES`] entry (commits) count 0: the dataset has no such records.
const STATS_KEYS: [&str; 4] = ["commits", "issues", "pullRequests", "releases"];

/// `contributionStats`: the records of `contributionData` by kind, and their total.
async fn contribution_stats(
    ctx: &Context<'_>,
    key: impl ListKey<Item = DayCount>,
) -> Result<Json<Value>> {
    let days = many(ctx, key).await?;
    let mut map = Map::new();
    let mut total = 0;
    for key in STATS_KEYS {
        let n: i64 = days.iter().filter(|d| d.kind == key).map(|d| d.count).sum();
        total += n;
        map.insert(key.to_string(), Value::from(n));
    }
    debug_assert!(ACTIVITIES.iter().all(|a| STATS_KEYS.contains(&a.name)));
    map.insert("total".to_string(), Value::from(total));
    Ok(Json(Value::Object(map)))
}

/// The `#[ComplexObject]` impl of a record led by people, with chat channels and
/// related links (chapters, committees, projects): its own `before` fields, the four
/// fields they share (through the relations `$leaders`, `$channels` and `$urls`),
/// then its own `after` fields, in that order in the schema. The attribute (written
/// `#[ComplexObject]`, taken as two token trees) and the four fields' `cost` come
/// from the caller: async-graphql declares `child_complexity` with the attribute's
/// hygiene, and a complexity expression only sees it when written in the same place.
macro_rules! with_leaders {
    ($pound:tt $complex:tt impl $record:ident[$leaders:ident, $channels:ident, $urls:ident]
     cost $cost:literal { $($before:tt)* } { $($after:tt)* }) => {
        $pound $complex
        impl $record {
            $($before)*

            /// Leader names, in display order.
            #[graphql(complexity = $cost)]
            async fn leaders(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
                leader_names(many(ctx, l::$leaders(self.id)).await?)
            }

            /// Leaders with their member accounts, in display order.
            #[graphql(complexity = $cost)]
            async fn entity_leaders(&self, ctx: &Context<'_>) -> Result<Vec<EntityLeader>> {
                many(ctx, l::$leaders(self.id)).await
            }

            /// Chat channels, in display order.
            #[graphql(complexity = $cost)]
            async fn entity_channels(&self, ctx: &Context<'_>) -> Result<Vec<EntityChannel>> {
                many(ctx, l::$channels(self.id)).await
            }

            /// Related links, in display order.
            #[graphql(complexity = $cost)]
            async fn related_urls(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
                texts(many(ctx, l::$urls(self.id)).await?)
            }

            $($after)*
        }
    };
}

// ----------------------------------------------------------------------------------
// Chapters, committees, leaders

/// Coordinates of a chapter.
#[derive(SimpleObject, Clone, Copy)]
pub struct GeoLocation {
    pub lat: f64,
    pub lng: f64,
}

with_leaders! {
    #[ComplexObject]
    impl Chapter[ChapterLeaders, ChapterChannels, ChapterUrls]
    cost "list_cost(TYPICAL_LIST, child_complexity)"
    {
        /// Null when the chapter has no coordinates.
        async fn geo_location(&self) -> Option<GeoLocation> {
            Some(GeoLocation {
                lat: self.latitude?,
                lng: self.longitude?,
            })
        }
    }
    {
        /// Members by their contributions summed over the repositories linked to the
        /// chapter, most first (as `topContributors(chapter:)`).
        #[graphql(complexity = "PROJECT_CONTRIBUTORS + limit_cost(limit, 24, child_complexity)")]
        async fn top_contributors(
            &self,
            ctx: &Context<'_>,
            #[graphql(default = 24)] limit: Option<i32>,
        ) -> Result<Listed<Contributor>> {
            let key = |limit| l::ChapterContributors(self.id, limit);
            Ok(Listed(many_up_to(ctx, limit, 24, key).await?))
        }

        /// Issues, pull requests and published releases created in the repositories
        /// linked to the chapter, per day (see `Project.contributionData`).
        #[graphql(complexity = "CONTRIBUTIONS")]
        async fn contribution_data(&self, ctx: &Context<'_>) -> Result<Json<Value>> {
            contribution_data(ctx, l::ChapterContributions(self.id)).await
        }

        /// `contributionData` summed by kind.
        #[graphql(complexity = "CONTRIBUTIONS")]
        async fn contribution_stats(&self, ctx: &Context<'_>) -> Result<Json<Value>> {
            contribution_stats(ctx, l::ChapterContributions(self.id)).await
        }
    }
}

with_leaders! {
    #[ComplexObject]
    impl Committee[CommitteeLeaders, CommitteeChannels, CommitteeUrls]
    cost "list_cost(TYPICAL_LIST, child_complexity)"
    {
    }
    {
        /// Sum of the contributor counts of the committee's repositories.
        #[graphql(complexity = "COMMITTEE_TOTALS")]
        async fn contributors_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.contributors)
        }

        /// Sum of the fork counts of the committee's repositories.
        #[graphql(complexity = "COMMITTEE_TOTALS")]
        async fn forks_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.forks)
        }

        /// Issues (open and closed) of the committee's repositories.
        #[graphql(complexity = "COMMITTEE_TOTALS")]
        async fn issues_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.issues)
        }

        /// Repositories linked to the committee.
        #[graphql(complexity = "COMMITTEE_TOTALS")]
        async fn repositories_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.repositories)
        }

        /// Sum of the star counts of the committee's repositories.
        #[graphql(complexity = "COMMITTEE_TOTALS")]
        async fn stars_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.stars)
        }

        /// Members by their contributions summed over the repositories linked to the
        /// committee, most first (as `topContributors(committee:)`).
        #[graphql(complexity = "PROJECT_CONTRIBUTORS + limit_cost(limit, 24, child_complexity)")]
        async fn top_contributors(
            &self,
            ctx: &Context<'_>,
            #[graphql(default = 24)] limit: Option<i32>,
        ) -> Result<Listed<Contributor>> {
            let key = |limit| l::CommitteeContributors(self.id, limit);
            Ok(Listed(many_up_to(ctx, limit, 24, key).await?))
        }
    }
}

impl Committee {
    async fn totals(&self, ctx: &Context<'_>) -> Result<CommitteeTotals> {
        one_or_zero(ctx, l::CommitteeTotalsOf(self.id)).await
    }
}

/// The values of a list of texts.
fn texts(values: Vec<Text>) -> Result<Vec<String>> {
    Ok(values.into_iter().map(|t| t.0).collect())
}

#[ComplexObject]
impl EntityLeader {
    /// The leader's member account; null when the leader has no linked account.
    async fn member(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        user(ctx, self.member_id).await
    }
}

fn leader_names(leaders: Vec<EntityLeader>) -> Result<Vec<String>> {
    Ok(leaders.into_iter().map(|l| l.member_name).collect())
}

// ----------------------------------------------------------------------------------
// Projects

with_leaders! {
    #[ComplexObject]
    impl Project[ProjectLeaders, ProjectChannels, ProjectUrls]
    cost "list_cost(TYPICAL_LIST, child_complexity)"
    {
        /// Issues (open and closed) of the project's repositories.
        #[graphql(complexity = "cost::TOTALS")]
        async fn issues_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.issues)
        }

        /// The languages of the project's repositories, each once, sorted.
        #[graphql(complexity = "PROJECT_UNION")]
        async fn languages(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
            texts(many(ctx, l::ProjectLanguages(self.id)).await?)
        }

        /// The topics of the project's repositories, each once, sorted.
        #[graphql(complexity = "PROJECT_UNION")]
        async fn topics(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
            texts(many(ctx, l::ProjectTopics(self.id)).await?)
        }

        /// Members by their contributions summed over the project's repositories, most
        /// first (as `topContributors(project:)`).
        #[graphql(complexity = "PROJECT_CONTRIBUTORS + limit_cost(limit, 24, child_complexity)")]
        async fn top_contributors(
            &self,
            ctx: &Context<'_>,
            #[graphql(default = 24)] limit: Option<i32>,
        ) -> Result<Listed<Contributor>> {
            let key = |limit| l::ProjectContributors(self.id, limit);
            Ok(Listed(many_up_to(ctx, limit, 24, key).await?))
        }

        /// Issues, pull requests and published releases created in the project's
        /// repositories, per day (`{"YYYY-MM-DD": count}`) over the 365 days ending on the
        /// day of the dataset's newest issue, pull request or release; days without any
        /// are left out.
        #[graphql(complexity = "CONTRIBUTIONS")]
        async fn contribution_data(&self, ctx: &Context<'_>) -> Result<Json<Value>> {
            contribution_data(ctx, l::ProjectContributions(self.id)).await
        }

        /// `contributionData` summed by kind: `{"commits", "issues", "pullRequests",
        /// "releases", "total"}`.
        #[graphql(complexity = "CONTRIBUTIONS")]
        async fn contribution_stats(&self, ctx: &Context<'_>) -> Result<Json<Value>> {
            contribution_stats(ctx, l::ProjectContributions(self.id)).await
        }

        /// Sum of the contributor counts of the project's repositories.
        #[graphql(complexity = "cost::TOTALS")]
        async fn contributors_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.contributors)
        }

        /// Sum of the open issue counts of the project's repositories.
        #[graphql(complexity = "cost::TOTALS")]
        async fn open_issues_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.open_issues)
        }

        #[graphql(complexity = "cost::TOTALS")]
        async fn repositories_count(&self, ctx: &Context<'_>) -> Result<i64> {
            Ok(self.totals(ctx).await?.repositories)
        }

        /// The project's repositories, most stars first.
        #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
        async fn repositories(&self, ctx: &Context<'_>) -> Result<Vec<Repository>> {
            many(ctx, l::ProjectRepositories(self.id)).await
        }

        /// The 5 newest issues of the project's repositories.
        #[graphql(complexity = "list_cost(5, child_complexity)")]
        async fn recent_issues(&self, ctx: &Context<'_>) -> Result<Vec<Issue>> {
            many(ctx, l::ProjectIssues(self.id)).await
        }

        /// The 5 most recently published releases of the project's repositories.
        #[graphql(complexity = "list_cost(5, child_complexity)")]
        async fn recent_releases(&self, ctx: &Context<'_>) -> Result<Vec<Release>> {
            many(ctx, l::ProjectReleases(self.id)).await
        }

        /// The newest milestones of the project's repositories.
        #[graphql(complexity = "limit_cost(limit, 5, child_complexity)")]
        async fn recent_milestones(
            &self,
            ctx: &Context<'_>,
            #[graphql(default = 5)] limit: Option<i32>,
        ) -> Result<Vec<Milestone>> {
            many_up_to(ctx, limit, 5, |limit| l::ProjectMilestones(self.id, limit)).await
        }
    }
    {
        /// The 5 newest pull requests of the project's repositories.
        #[graphql(complexity = "list_cost(5, child_complexity)")]
        async fn recent_pull_requests(&self, ctx: &Context<'_>) -> Result<Vec<PullRequest>> {
            many(ctx, l::ProjectPullRequests(self.id)).await
        }

        /// The project's newest health measurement; null when it has none.
        async fn health_metrics_latest(&self, ctx: &Context<'_>) -> Result<Option<HealthMetrics>> {
            Ok(many(ctx, l::ProjectHealthMetrics(self.id, 1))
                .await?
                .into_iter()
                .next())
        }

        /// The project's health measurements, newest first.
        #[graphql(complexity = "limit_cost(limit, 30, child_complexity)")]
        async fn health_metrics_list(
            &self,
            ctx: &Context<'_>,
            #[graphql(default = 30)] limit: Option<i32>,
        ) -> Result<Vec<HealthMetrics>> {
            many_up_to(ctx, limit, 30, |limit| l::ProjectHealthMetrics(self.id, limit)).await
        }
    }
}

impl Project {
    async fn totals(&self, ctx: &Context<'_>) -> Result<ProjectTotals> {
        one_or_zero(ctx, l::ProjectTotalsOf(self.id)).await
    }
}

// ----------------------------------------------------------------------------------
// Organizations, repositories, contributors

#[ComplexObject]
impl Organization {
    #[graphql(complexity = "cost::ORGANIZATION_STATS + child_complexity")]
    async fn stats(&self, ctx: &Context<'_>) -> Result<OrganizationStats> {
        let mut stats = one(ctx, l::OrganizationStatsOf(self.id))
            .await?
            .unwrap_or_default();
        // Distinct members among the contributors of the organization's repositories.
        let totals = contributor_totals(ctx).await?;
        stats.total_contributors = totals
            .by_organization
            .get(&self.id)
            .map_or(0, |ranking| ranking.len() as i64);
        Ok(stats)
    }
}

#[ComplexObject]
impl Repository {
    /// The owning organization; null when it is not affiliated with the community
    /// (such organizations are not part of the API).
    async fn organization(&self, ctx: &Context<'_>) -> Result<Option<Organization>> {
        one(ctx, l::OrganizationById(self.organization_id)).await
    }

    /// The repository's size in kilobytes, as the code host reports it; null when the
    /// dataset does not say.
    async fn size(&self) -> Option<i64> {
        self.size
    }

    /// The active project the repository belongs to (the first one, if several).
    async fn project(&self, ctx: &Context<'_>) -> Result<Option<Project>> {
        one(ctx, l::ProjectOfRepository(self.id)).await
    }

    /// The 5 newest issues.
    #[graphql(complexity = "list_cost(5, child_complexity)")]
    async fn issues(&self, ctx: &Context<'_>) -> Result<Vec<Issue>> {
        many(ctx, l::RepositoryIssues(self.id)).await
    }

    /// The 5 most recently published releases.
    #[graphql(complexity = "list_cost(5, child_complexity)")]
    async fn releases(&self, ctx: &Context<'_>) -> Result<Vec<Release>> {
        many(ctx, l::RepositoryReleases(self.id)).await
    }

    /// The newest milestones.
    #[graphql(complexity = "limit_cost(limit, 5, child_complexity)")]
    async fn recent_milestones(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 5)] limit: Option<i32>,
    ) -> Result<Vec<Milestone>> {
        many_up_to(ctx, limit, 5, |limit| {
            l::RepositoryMilestones(self.id, limit)
        })
        .await
    }

    /// Contributors by contributions, most first.
    #[graphql(complexity = "limit_cost(limit, 24, child_complexity)")]
    async fn top_contributors(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 24)] limit: Option<i32>,
    ) -> Result<Listed<Contributor>> {
        let key = |limit| l::RepositoryContributors(self.id, limit);
        Ok(Listed(many_up_to(ctx, limit, 24, key).await?))
    }
}

// ----------------------------------------------------------------------------------
// Issues, milestones, releases

#[ComplexObject]
impl Issue {
    async fn author(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        user(ctx, self.author_id).await
    }

    /// Label names, in the order shown on the issue.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn labels(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
        let labels = many(ctx, l::LabelsOfIssue(self.id)).await?;
        Ok(labels.into_iter().map(|l| l.0).collect())
    }
}

#[ComplexObject]
impl PullRequest {
    async fn author(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        user(ctx, self.author_id).await
    }
}

#[ComplexObject]
impl Milestone {
    async fn author(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        user(ctx, self.author_id).await
    }

    /// Closed issues as a percentage of all the milestone's issues, 2 decimals; 0 when
    /// it has none.
    async fn progress(&self) -> f64 {
        let total = self.open_issues_count + self.closed_issues_count;
        if total <= 0 {
            return 0.0;
        }
        let percent = self.closed_issues_count as f64 * 100.0 / total as f64;
        (percent * 100.0).round() / 100.0
    }
}

#[ComplexObject]
impl Release {
    async fn author(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        if let Some(author) = &self.author {
            return Ok(author.clone());
        }
        user(ctx, self.author_id).await
    }
}

// ----------------------------------------------------------------------------------
// Users

#[ComplexObject]
impl User {
    /// Issues the member opened.
    #[graphql(complexity = "cost::TOTALS")]
    async fn issues_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.totals(ctx).await?.issues)
    }

    /// Published releases the member authored.
    #[graphql(complexity = "cost::TOTALS")]
    async fn releases_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.totals(ctx).await?.releases)
    }

    /// The member's contributions summed over every repository.
    #[graphql(complexity = "cost::TOTALS")]
    async fn contributions_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.totals(ctx).await?.contributions)
    }

    /// The member's badges, lightest weight first, then by name.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn badges(&self, ctx: &Context<'_>) -> Result<Vec<Badge>> {
        many(ctx, l::UserBadges(self.id)).await
    }

    /// Issues, pull requests and published releases the member authored, per day,
    /// over the same 365 days as `Project.contributionData`.
    #[graphql(complexity = "CONTRIBUTIONS")]
    async fn contribution_data(&self, ctx: &Context<'_>) -> Result<Json<Value>> {
        contribution_data(ctx, l::UserContributions(self.id)).await
    }

    /// `contributionData` summed by kind.
    #[graphql(complexity = "CONTRIBUTIONS")]
    async fn contribution_stats(&self, ctx: &Context<'_>) -> Result<Json<Value>> {
        contribution_stats(ctx, l::UserContributions(self.id)).await
    }
}

impl User {
    async fn totals(&self, ctx: &Context<'_>) -> Result<UserTotals> {
        one_or_zero(ctx, l::UserTotalsOf(self.id)).await
    }
}

impl Snapshot {
    async fn counts(&self, ctx: &Context<'_>) -> Result<SnapshotCounts> {
        one_or_zero(ctx, l::SnapshotCountsOf(self.id)).await
    }
}

async fn user(ctx: &Context<'_>, id: Option<i64>) -> Result<Option<User>> {
    match id {
        Some(id) => one(ctx, l::UserById(id)).await,
        None => Ok(None),
    }
}

// ----------------------------------------------------------------------------------
// Snapshots

#[ComplexObject]
impl Snapshot {
    #[graphql(complexity = "cost::TOTALS")]
    async fn new_chapters_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.counts(ctx).await?.chapters)
    }

    #[graphql(complexity = "cost::TOTALS")]
    async fn new_issues_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.counts(ctx).await?.issues)
    }

    #[graphql(complexity = "cost::TOTALS")]
    async fn new_projects_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.counts(ctx).await?.projects)
    }

    #[graphql(complexity = "cost::TOTALS")]
    async fn new_releases_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.counts(ctx).await?.releases)
    }

    #[graphql(complexity = "cost::TOTALS")]
    async fn new_users_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.counts(ctx).await?.users)
    }

    /// Active chapters new in the snapshot, newest first.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn new_chapters(&self, ctx: &Context<'_>) -> Result<Vec<Chapter>> {
        many(ctx, l::SnapshotChapters(self.id)).await
    }

    /// The 100 newest issues new in the snapshot.
    #[graphql(complexity = "list_cost(100, child_complexity)")]
    async fn new_issues(&self, ctx: &Context<'_>) -> Result<Vec<Issue>> {
        many(ctx, l::SnapshotIssues(self.id)).await
    }

    /// Active projects new in the snapshot, newest first.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn new_projects(&self, ctx: &Context<'_>) -> Result<Vec<Project>> {
        many(ctx, l::SnapshotProjects(self.id)).await
    }

    /// Published releases new in the snapshot, most recently published first.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn new_releases(&self, ctx: &Context<'_>) -> Result<Listed<Release>> {
        let releases = if authors_as_cards(&ctx.item.node.selection_set.node) {
            let releases = many(ctx, l::SnapshotReleaseCards(self.id)).await?;
            releases.into_iter().map(|r| r.0).collect()
        } else {
            let releases = many(ctx, l::SnapshotReleases(self.id)).await?;
            releases.into_iter().map(|r| r.0).collect()
        };
        Ok(Listed(releases))
    }

    /// Members new in the snapshot, newest first.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn new_users(&self, ctx: &Context<'_>) -> Result<Listed<User>> {
        Ok(Listed(many(ctx, l::SnapshotUsers(self.id)).await?))
    }
}
