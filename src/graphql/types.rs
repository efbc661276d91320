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
use bytes::Bytes;
use serde_json::{Map, Value};

use super::limits::cost;
use super::loaders::{contributor_totals, many, one, RequestLoader};
use super::plain::{
    authors_as_cards, organizations_as_cards, releases_as_summaries, repositories_as_summaries,
    Direct, Listed, Rows,
};
use super::records::contributions::{day, day_text, Dated, ACTIVITIES};
use super::records::relations as l;
use super::records::relations::ListKey;
use super::records::*;
use super::rows::{ReleasePlan, SnapshotReleaseRows};

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
    key: impl ListKey<Item = Dated>,
) -> Result<Json<Value>> {
    // In the order they were created: a day's records are consecutive.
    let records = many(ctx, key).await?;
    let mut map = Map::new();
    let mut days = records.iter().map(|r| day(r.created_at)).peekable();
    while let Some(d) = days.next() {
        let mut n = 1;
        while days.next_if_eq(&d).is_some() {
            n += 1;
        }
        map.insert(day_text(d), Value::from(n));
    }
    Ok(Json(Value::Object(map)))
}

/// The keys of `contributionStats` besides `total`; those without an
/// [`ACTIVITIES`] entry (commits) count 0: the dataset has no such records.
const STATS_KEYS: [&str; 4] = ["commits", "issues", "pullRequests", "releases"];

/// `contributionStats`: the records of `contributionData` by kind, and their total.
async fn contribution_stats(
    ctx: &Context<'_>,
    key: impl ListKey<Item = Dated>,
) -> Result<Json<Value>> {
    let records = many(ctx, key).await?;
    let mut map = Map::new();
    let mut total = 0;
    for key in STATS_KEYS {
        let kind = ACTIVITIES.iter().position(|a| a.name == key);
        let n = kind.map_or(0, |kind| {
            records.iter().filter(|r| r.kind == kind as i64).count() as i64
        });
        total += n;
        map.insert(key.to_string(), Value::from(n));
    }
    debug_assert!(ACTIVITIES.iter().all(|a| STATS_KEYS.contains(&a.name)));
    map.insert("total".to_string(), Value::from(total));
    Ok(Json(Value::Object(map)))
}

/// A record's `#[ComplexObject]` impl: its resolved fields, in schema order. An item
/// is an `async fn` as usual, or one of the kinds of field records share:
///
/// - `count name = field;`: an `Int!` of the record's aggregate row, read by the
///   method and with the complexity the head names (`impl User(totals, "...")`);
/// - `many name: T = Key, "cost";`: the children of the relation `Key(self.id)`, a
///   `Vec` or a [`Listed`] list as `T` says; `one name: T = Key;`: the one child,
///   or null;
/// - `up_to name(limit = N): T = Key, "cost";`: the same with a nullable `limit`
///   argument, `N` by default (`Key(self.id, limit)`);
/// - `leaders(Leaders, Channels, Urls), "cost";`: `leaders`, `entityLeaders`,
///   `entityChannels` and `relatedUrls`, through those relations;
/// - `contributions contribution_data = Key;` (or `contribution_stats`): the heat
///   map of [`contribution_data`] (or its sums, [`contribution_stats`]) over the
///   relation `Key`, by the function of the field's name;
/// - `author;`: the record's author, by `author_id`.
///
/// The last three kinds call this file's helpers, so they serve this file only.
///
/// The attribute (written `#[ComplexObject]`, taken as two token trees), every
/// complexity that reads `child_complexity` and the `limit` argument's name come from
/// the caller: async-graphql declares `child_complexity` with the attribute's hygiene,
/// and a complexity expression only sees it (and the arguments) when written in the
/// same place. The functions and types the fields call (`many`, `one`, `many_up_to`,
/// `Listed`, `Context`, `Result`) are the caller's imports.
macro_rules! resolved {
    ($pound:tt $complex:tt impl $record:ident $(($agg:ident, $agg_cost:literal))?
     { $($items:tt)* }) => {
        resolved!(@munch [$pound $complex impl $record] [$($agg $agg_cost)?] [] $($items)*);
    };
    (@munch $head:tt [$agg:ident $agg_cost:literal] [$($done:tt)*]
     $(#[$m:meta])* count $name:ident = $field:ident; $($rest:tt)*) => {
        resolved!(@munch $head [$agg $agg_cost] [$($done)*
            $(#[$m])*
            #[graphql(complexity = $agg_cost)]
            async fn $name(&self, ctx: &Context<'_>) -> Result<i64> {
                Ok(self.$agg(ctx).await?.$field)
            }
        ] $($rest)*);
    };
    (@munch $head:tt $agg:tt [$($done:tt)*]
     $(#[$m:meta])* many $name:ident: $ty:ty = $key:path, $cost:literal; $($rest:tt)*) => {
        resolved!(@munch $head $agg [$($done)*
            $(#[$m])*
            #[graphql(complexity = $cost)]
            async fn $name(&self, ctx: &Context<'_>) -> Result<$ty> {
                Ok(many(ctx, $key(self.id)).await?.into())
            }
        ] $($rest)*);
    };
    (@munch $head:tt $agg:tt [$($done:tt)*]
     $(#[$m:meta])* one $name:ident: $ty:ty = $key:path; $($rest:tt)*) => {
        resolved!(@munch $head $agg [$($done)*
            $(#[$m])*
            async fn $name(&self, ctx: &Context<'_>) -> Result<$ty> {
                one(ctx, $key(self.id)).await
            }
        ] $($rest)*);
    };
    (@munch $head:tt $agg:tt [$($done:tt)*]
     $(#[$m:meta])* up_to $name:ident($limit:ident = $default:literal): $ty:ty = $key:path,
     $cost:literal; $($rest:tt)*) => {
        resolved!(@munch $head $agg [$($done)*
            $(#[$m])*
            #[graphql(complexity = $cost)]
            async fn $name(
                &self,
                ctx: &Context<'_>,
                #[graphql(default = $default)] $limit: Option<i32>,
            ) -> Result<$ty> {
                Ok(many_up_to(ctx, $limit, $default, |n| $key(self.id, n)).await?.into())
            }
        ] $($rest)*);
    };
    (@munch $head:tt $agg:tt [$($done:tt)*]
     leaders($leaders:path, $channels:path, $urls:path), $cost:literal; $($rest:tt)*) => {
        resolved!(@munch $head $agg [$($done)*
            /// Leader names, in display order.
            #[graphql(complexity = $cost)]
            async fn leaders(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
                leader_names(many(ctx, $leaders(self.id)).await?)
            }

            /// Leaders with their member accounts, in display order.
            #[graphql(complexity = $cost)]
            async fn entity_leaders(&self, ctx: &Context<'_>) -> Result<Vec<EntityLeader>> {
                many(ctx, $leaders(self.id)).await
            }

            /// Chat channels, in display order.
            #[graphql(complexity = $cost)]
            async fn entity_channels(&self, ctx: &Context<'_>) -> Result<Vec<EntityChannel>> {
                many(ctx, $channels(self.id)).await
            }

            /// Related links, in display order.
            #[graphql(complexity = $cost)]
            async fn related_urls(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
                texts(many(ctx, $urls(self.id)).await?)
            }
        ] $($rest)*);
    };
    (@munch $head:tt $agg:tt [$($done:tt)*]
     $(#[$m:meta])* contributions $name:ident = $key:path; $($rest:tt)*) => {
        resolved!(@munch $head $agg [$($done)*
            $(#[$m])*
            #[graphql(complexity = "CONTRIBUTIONS")]
            async fn $name(&self, ctx: &Context<'_>) -> Result<Json<Value>> {
                $name(ctx, $key(self.id)).await
            }
        ] $($rest)*);
    };
    (@munch $head:tt $agg:tt [$($done:tt)*] author; $($rest:tt)*) => {
        resolved!(@munch $head $agg [$($done)*
            async fn author(&self, ctx: &Context<'_>) -> Result<Option<User>> {
                user(ctx, self.author_id).await
            }
        ] $($rest)*);
    };
    (@munch $head:tt $agg:tt [$($done:tt)*]
     $(#[$m:meta])* async fn $name:ident $args:tt -> $ret:ty $body:block $($rest:tt)*) => {
        resolved!(@munch $head $agg [$($done)*
            $(#[$m])* async fn $name $args -> $ret $body
        ] $($rest)*);
    };
    (@munch [$pound:tt $complex:tt impl $record:ident] $agg:tt [$($done:tt)*]) => {
        $pound $complex
        impl $record {
            $($done)*
        }
    };
}
pub(crate) use resolved;

// ----------------------------------------------------------------------------------
// Chapters, committees, leaders

/// Coordinates of a chapter.
#[derive(SimpleObject, Clone, Copy)]
pub struct GeoLocation {
    pub lat: f64,
    pub lng: f64,
}

resolved! {
    #[ComplexObject]
    impl Chapter {
        /// Null when the chapter has no coordinates.
        async fn geo_location(&self) -> Option<GeoLocation> {
            Some(GeoLocation {
                lat: self.latitude?,
                lng: self.longitude?,
            })
        }

        leaders(l::ChapterLeaders, l::ChapterChannels, l::ChapterUrls),
            "list_cost(TYPICAL_LIST, child_complexity)";

        /// Members by their contributions summed over the repositories linked to the
        /// chapter, most first (as `topContributors(chapter:)`).
        up_to top_contributors(limit = 24): Listed<Contributor> =
            l::ChapterContributors,
            "PROJECT_CONTRIBUTORS + limit_cost(limit, 24, child_complexity)";

        /// Issues, pull requests and published releases created in the repositories
        /// linked to the chapter, per day (see `Project.contributionData`).
        contributions contribution_data = l::ChapterContributions;

        /// `contributionData` summed by kind.
        contributions contribution_stats = l::ChapterContributions;
    }
}

resolved! {
    #[ComplexObject]
    impl Committee(totals, "COMMITTEE_TOTALS") {
        leaders(l::CommitteeLeaders, l::CommitteeChannels, l::CommitteeUrls),
            "list_cost(TYPICAL_LIST, child_complexity)";

        /// Sum of the contributor counts of the committee's repositories.
        count contributors_count = contributors;

        /// Sum of the fork counts of the committee's repositories.
        count forks_count = forks;

        /// Issues (open and closed) of the committee's repositories.
        count issues_count = issues;

        /// Repositories linked to the committee.
        count repositories_count = repositories;

        /// Sum of the star counts of the committee's repositories.
        count stars_count = stars;

        /// Members by their contributions summed over the repositories linked to the
        /// committee, most first (as `topContributors(committee:)`).
        up_to top_contributors(limit = 24): Listed<Contributor> =
            l::CommitteeContributors,
            "PROJECT_CONTRIBUTORS + limit_cost(limit, 24, child_complexity)";
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

resolved! {
    #[ComplexObject]
    impl Project(totals, "cost::TOTALS") {
        /// Issues (open and closed) of the project's repositories.
        count issues_count = issues;

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
        up_to top_contributors(limit = 24): Listed<Contributor> =
            l::ProjectContributors,
            "PROJECT_CONTRIBUTORS + limit_cost(limit, 24, child_complexity)";

        /// Issues, pull requests and published releases created in the project's
        /// repositories, per day (`{"YYYY-MM-DD": count}`) over the 365 days ending on the
        /// day of the dataset's newest issue, pull request or release; days without any
        /// are left out.
        contributions contribution_data = l::ProjectContributions;

        /// `contributionData` summed by kind: `{"commits", "issues", "pullRequests",
        /// "releases", "total"}`.
        contributions contribution_stats = l::ProjectContributions;

        /// Sum of the contributor counts of the project's repositories.
        count contributors_count = contributors;

        /// Sum of the open issue counts of the project's repositories.
        count open_issues_count = open_issues;

        count repositories_count = repositories;

        /// The project's repositories, most stars first.
        #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
        async fn repositories(&self, ctx: &Context<'_>) -> Result<Listed<OrgCarded<Repository>>> {
            // With the organizations' cards when the selection asks no more of them,
            // as summaries when it asks no more than theirs.
            let set = &ctx.item.node.selection_set.node;
            if repositories_as_summaries(set) {
                let repositories = many(ctx, l::ProjectRepositorySummaries(self.id)).await?;
                return Ok(Listed(repositories.into_iter().map(|r| r.0).collect()));
            }
            if organizations_as_cards(set) {
                return Ok(Listed(many(ctx, l::ProjectRepositoryCards(self.id)).await?));
            }
            let repositories = many(ctx, l::ProjectRepositories(self.id)).await?;
            Ok(Listed(OrgCarded::uncarded(repositories)))
        }

        /// The 5 newest issues of the project's repositories.
        many recent_issues: Vec<Issue> = l::ProjectIssues, "list_cost(5, child_complexity)";

        /// The 5 most recently published releases of the project's repositories, drafts
        /// left out (pre-releases kept, as the original service lists them).
        #[graphql(complexity = "list_cost(5, child_complexity)")]
        async fn recent_releases(&self, ctx: &Context<'_>) -> Result<Listed<Release>> {
            // With the authors' cards when the selection asks no more of them.
            if authors_as_cards(&ctx.item.node.selection_set.node) {
                let releases = many(ctx, l::ProjectReleaseCards(self.id)).await?;
                return Ok(Listed(releases.into_iter().map(|r| r.0).collect()));
            }
            Ok(Listed(many(ctx, l::ProjectReleases(self.id)).await?))
        }

        /// The newest milestones of the project's repositories.
        up_to recent_milestones(limit = 5): Vec<Milestone> = l::ProjectMilestones,
            "limit_cost(limit, 5, child_complexity)";

        leaders(l::ProjectLeaders, l::ProjectChannels, l::ProjectUrls),
            "list_cost(TYPICAL_LIST, child_complexity)";

        /// The 5 newest pull requests of the project's repositories.
        #[graphql(complexity = "list_cost(5, child_complexity)")]
        async fn recent_pull_requests(
            &self,
            ctx: &Context<'_>,
        ) -> Result<Listed<Carded<PullRequest>>> {
            // With the authors' cards when the selection asks no more of them.
            if authors_as_cards(&ctx.item.node.selection_set.node) {
                return Ok(Listed(many(ctx, l::ProjectPullRequestCards(self.id)).await?));
            }
            let pulls = many(ctx, l::ProjectPullRequests(self.id)).await?;
            Ok(Listed(Carded::uncarded(pulls)))
        }

        /// The project's newest health measurement; null when it has none.
        async fn health_metrics_latest(&self, ctx: &Context<'_>) -> Result<Option<HealthMetrics>> {
            Ok(many(ctx, l::ProjectHealthMetrics(self.id, 1))
                .await?
                .into_iter()
                .next())
        }

        /// The project's health measurements, newest first.
        up_to health_metrics_list(limit = 30): Listed<HealthMetrics> =
            l::ProjectHealthMetrics, "limit_cost(limit, 30, child_complexity)";
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
        // Sums kept per dataset file ([`super::totals`]), like the distinct members
        // among the contributors of the organization's repositories.
        let totals = contributor_totals(ctx).await?;
        let sums = totals
            .organization_sums
            .get(&self.id)
            .copied()
            .unwrap_or_default();
        Ok(OrganizationStats {
            total_contributors: totals
                .by_organization
                .get(&self.id)
                .map_or(0, |ranking| ranking.len() as i64),
            total_forks: sums.forks,
            total_issues: sums.open_issues,
            total_repositories: sums.repositories,
            total_stars: sums.stars,
        })
    }
}

resolved! {
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
        one project: Option<Project> = l::ProjectOfRepository;

        /// The 5 newest issues.
        many issues: Vec<Issue> = l::RepositoryIssues, "list_cost(5, child_complexity)";

        /// The 5 most recently published releases, drafts and pre-releases left out.
        many releases: Vec<Release> = l::RepositoryReleases, "list_cost(5, child_complexity)";

        /// The newest milestones.
        up_to recent_milestones(limit = 5): Vec<Milestone> = l::RepositoryMilestones,
            "limit_cost(limit, 5, child_complexity)";

        /// Contributors by contributions, most first.
        up_to top_contributors(limit = 24): Listed<Contributor> =
            l::RepositoryContributors, "limit_cost(limit, 24, child_complexity)";
    }
}

// ----------------------------------------------------------------------------------
// Issues, pull requests, milestones, releases

resolved! {
    #[ComplexObject]
    impl Issue {
        author;

        /// Label names, in the order shown on the issue.
        #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
        async fn labels(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
            let labels = many(ctx, l::LabelsOfIssue(self.id)).await?;
            Ok(labels.into_iter().map(|l| l.0).collect())
        }
    }
}

resolved! {
    #[ComplexObject]
    impl PullRequest {
        author;
    }
}

resolved! {
    #[ComplexObject]
    impl Milestone {
        author;

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

resolved! {
    #[ComplexObject]
    impl User(totals, "cost::TOTALS") {
        /// Issues the member opened.
        count issues_count = issues;

        /// Published releases the member authored.
        count releases_count = releases;

        /// The member's contributions summed over every repository.
        count contributions_count = contributions;

        /// The member's badges, lightest weight first, then by name.
        many badges: Vec<Badge> = l::UserBadges, "list_cost(TYPICAL_LIST, child_complexity)";

        /// Issues, pull requests and published releases the member authored, per day,
        /// over the same 365 days as `Project.contributionData`.
        contributions contribution_data = l::UserContributions;

        /// `contributionData` summed by kind.
        contributions contribution_stats = l::UserContributions;
    }
}

impl User {
    async fn totals(&self, ctx: &Context<'_>) -> Result<UserTotals> {
        one_or_zero(ctx, l::UserTotalsOf(self.id)).await
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

resolved! {
    #[ComplexObject]
    impl Snapshot(counts, "cost::TOTALS") {
        count new_chapters_count = chapters;
        count new_issues_count = issues;
        count new_projects_count = projects;
        count new_releases_count = releases;
        count new_users_count = users;

        /// Active chapters new in the snapshot, newest first.
        many new_chapters: Vec<Chapter> = l::SnapshotChapters,
            "list_cost(TYPICAL_LIST, child_complexity)";

        /// The 100 newest issues new in the snapshot.
        many new_issues: Vec<Issue> = l::SnapshotIssues, "list_cost(100, child_complexity)";

        /// Active projects new in the snapshot, newest first.
        many new_projects: Vec<Project> = l::SnapshotProjects,
            "list_cost(TYPICAL_LIST, child_complexity)";

        /// Published releases new in the snapshot, most recently published first.
        #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
        async fn new_releases(&self, ctx: &Context<'_>) -> Result<Rows<Release>> {
            let set = &ctx.item.node.selection_set.node;
            if ctx.data_opt::<Direct>().is_some() {
                if let Some(plan) = ReleasePlan::of(set) {
                    let loader = ctx.data::<RequestLoader>()?;
                    let key = SnapshotReleaseRows(self.id, plan);
                    let json = loader.load_one(key).await?;
                    return Ok(Rows::Written(json.unwrap_or_else(|| Bytes::from_static(b"[]"))));
                }
            }
            let releases = if releases_as_summaries(set) {
                let releases = many(ctx, l::SnapshotReleaseSummaries(self.id)).await?;
                releases.into_iter().map(|r| r.0).collect()
            } else if authors_as_cards(set) {
                let releases = many(ctx, l::SnapshotReleaseCards(self.id)).await?;
                releases.into_iter().map(|r| r.0).collect()
            } else {
                let releases = many(ctx, l::SnapshotReleases(self.id)).await?;
                releases.into_iter().map(|r| r.0).collect()
            };
            Ok(Rows::Records(Listed(releases)))
        }

        /// Members new in the snapshot, newest first.
        many new_users: Listed<User> = l::SnapshotUsers,
            "list_cost(TYPICAL_LIST, child_complexity)";
    }
}

impl Snapshot {
    async fn counts(&self, ctx: &Context<'_>) -> Result<SnapshotCounts> {
        one_or_zero(ctx, l::SnapshotCountsOf(self.id)).await
    }
}
