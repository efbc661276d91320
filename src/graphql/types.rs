//! The GraphQL object types (API.md section 6): the REST detail fields of each record
//! plus its relations. Each type knows the columns it is read from ([`Record`]);
//! relations are resolved through the request's dataloader ([`super::loaders`]), so a
//! list of N records costs one batched statement per relation, not N.
//!
//! Timestamps are ISO 8601 UTC strings like the REST API's; event dates `YYYY-MM-DD`.

use async_graphql::{ComplexObject, Context, Result, SimpleObject};

use super::db::Cols;
use super::loaders::{self as l, many, one};

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
pub const REPO_JOINS: &str = " JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id";

/// The most records any list returns, whatever its `limit`.
pub const MAX_LIMIT: i64 = 1000;

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

/// Newest first. Ties go to the later record: with every key descending, SQLite walks
/// the `(created_at, updated_at, id)` index backwards and stops at the limit.
pub const NEWEST_FIRST: &str = "t.created_at DESC, t.updated_at DESC, t.id DESC";
/// Newest first, for records without `updated_at` ordering (chapters, projects,
/// snapshots, members).
pub const CREATED_FIRST: &str = "t.created_at DESC, t.id DESC";
/// Most recently published first (releases).
pub const PUBLISHED_FIRST: &str = "t.published_at DESC, t.created_at DESC, t.id DESC";
/// Only published releases exist for the API.
pub const PUBLISHED: &str = "t.published_at IS NOT NULL";

// ----------------------------------------------------------------------------------
// Chapters, committees, leaders

/// An active chapter.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Chapter {
    #[graphql(skip)]
    pub id: i64,
    /// The full key, `www-chapter-<name>`.
    pub key: String,
    pub name: String,
    pub country: String,
    pub region: String,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub summary: String,
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Table for Chapter {
    const TABLE: &'static str = "chapters";
}

impl Record for Chapter {
    const COLS: &'static str = "t.id, t.key, t.name, t.country, t.region, t.latitude, \
        t.longitude, t.summary, t.url, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Chapter {
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            country: c.get()?,
            region: c.get()?,
            latitude: c.get()?,
            longitude: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

/// Coordinates of a chapter.
#[derive(SimpleObject, Clone, Copy)]
pub struct GeoLocation {
    pub lat: f64,
    pub lng: f64,
}

#[ComplexObject]
impl Chapter {
    /// Null when the chapter has no coordinates.
    async fn geo_location(&self) -> Option<GeoLocation> {
        Some(GeoLocation {
            lat: self.latitude?,
            lng: self.longitude?,
        })
    }

    /// Leader names, in display order.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn leaders(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
        leader_names(many(ctx, l::ChapterLeaders(self.id)).await?)
    }

    /// Leaders with their member accounts, in display order.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn entity_leaders(&self, ctx: &Context<'_>) -> Result<Vec<EntityLeader>> {
        many(ctx, l::ChapterLeaders(self.id)).await
    }
}

/// An active committee.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Committee {
    #[graphql(skip)]
    pub id: i64,
    /// The full key, `www-committee-<name>`.
    pub key: String,
    pub name: String,
    pub description: String,
    pub summary: String,
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Record for Committee {
    const COLS: &'static str =
        "t.id, t.key, t.name, t.description, t.summary, t.url, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Committee {
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            description: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

#[ComplexObject]
impl Committee {
    /// Leader names, in display order.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn leaders(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
        leader_names(many(ctx, l::CommitteeLeaders(self.id)).await?)
    }

    /// Leaders with their member accounts, in display order.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn entity_leaders(&self, ctx: &Context<'_>) -> Result<Vec<EntityLeader>> {
        many(ctx, l::CommitteeLeaders(self.id)).await
    }
}

/// A leader of a chapter, committee or project.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct EntityLeader {
    /// The leader's name as listed by the entity.
    pub member_name: String,
    #[graphql(skip)]
    pub member_id: Option<i64>,
}

impl Record for EntityLeader {
    const COLS: &'static str = "t.name, t.member_id";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(EntityLeader {
            member_name: c.get()?,
            member_id: c.get()?,
        })
    }
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
// Events and sponsors

/// An event.
#[derive(SimpleObject, Clone)]
pub struct Event {
    pub key: String,
    pub name: String,
    /// `appsec_days`, `global`, `partner` or `other`.
    pub category: String,
    /// `YYYY-MM-DD`.
    pub start_date: String,
    /// `YYYY-MM-DD`.
    pub end_date: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub url: Option<String>,
    pub description: Option<String>,
    pub summary: String,
    pub suggested_location: String,
}

impl Record for Event {
    const COLS: &'static str = "t.key, t.name, t.category, t.start_date, t.end_date, \
        t.latitude, t.longitude, t.url, t.description, t.summary, t.suggested_location";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Event {
            key: c.get()?,
            name: c.get()?,
            category: c.get()?,
            start_date: c.get()?,
            end_date: c.get()?,
            latitude: c.get()?,
            longitude: c.get()?,
            url: c.get()?,
            description: c.get()?,
            summary: c.get()?,
            suggested_location: c.get()?,
        })
    }
}

/// A sponsor.
#[derive(SimpleObject, Clone)]
pub struct Sponsor {
    pub key: String,
    pub name: String,
    /// `Diamond`, `Platinum`, `Gold`, `Silver`, `Supporter` or `Not a Sponsor`.
    pub sponsor_type: String,
    pub is_member: bool,
    /// `Platinum`, `Gold`, `Silver`, or empty.
    pub member_type: String,
    pub image_url: String,
    pub url: String,
    pub job_url: String,
    pub description: String,
}

impl Record for Sponsor {
    const COLS: &'static str = "t.key, t.name, t.sponsor_type, t.is_member, \
        t.member_type, t.image_url, t.url, t.job_url, t.description";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Sponsor {
            key: c.get()?,
            name: c.get()?,
            sponsor_type: c.get()?,
            is_member: c.get()?,
            member_type: c.get()?,
            image_url: c.get()?,
            url: c.get()?,
            job_url: c.get()?,
            description: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Projects

/// An active project.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Project {
    #[graphql(skip)]
    pub id: i64,
    /// The full key, `www-project-<name>`.
    pub key: String,
    pub name: String,
    /// `flagship`, `production`, `incubator`, `lab` or `demo`.
    pub level: String,
    /// `code`, `documentation`, `tool` or `other`.
    #[graphql(name = "type")]
    pub kind: String,
    pub description: String,
    pub summary: String,
    pub url: String,
    /// Sum of the stars of the project's repositories.
    pub stars_count: i64,
    /// Sum of the forks of the project's repositories.
    pub forks_count: i64,
    pub created_at: String,
    pub updated_at: String,
}

impl Table for Project {
    const TABLE: &'static str = "projects";
}

impl Record for Project {
    const COLS: &'static str = "t.id, t.key, t.name, t.level, t.type, t.description, \
        t.summary, t.url, t.stars, t.forks, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Project {
            id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            level: c.get()?,
            kind: c.get()?,
            description: c.get()?,
            summary: c.get()?,
            url: c.get()?,
            stars_count: c.get()?,
            forks_count: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

/// Totals over a project's repositories.
#[derive(Clone, Copy, Default)]
pub struct ProjectTotals {
    pub contributors: i64,
    pub open_issues: i64,
    pub repositories: i64,
}

impl Record for ProjectTotals {
    const COLS: &'static str = "(SELECT COALESCE(SUM(r.contributors_count), 0) \
            FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
            WHERE pr.project_id = t.id), \
        (SELECT COALESCE(SUM(r.open_issues_count), 0) \
            FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
            WHERE pr.project_id = t.id), \
        (SELECT COUNT(*) FROM project_repositories pr WHERE pr.project_id = t.id)";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(ProjectTotals {
            contributors: c.get()?,
            open_issues: c.get()?,
            repositories: c.get()?,
        })
    }
}

#[ComplexObject]
impl Project {
    /// Sum of the contributor counts of the project's repositories.
    async fn contributors_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.totals(ctx).await?.contributors)
    }

    /// Sum of the open issue counts of the project's repositories.
    async fn open_issues_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.totals(ctx).await?.open_issues)
    }

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
        match limit_or(limit, 5) {
            Some(limit) => many(ctx, l::ProjectMilestones(self.id, limit)).await,
            None => Ok(Vec::new()),
        }
    }

    /// Leader names, in display order.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn leaders(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
        leader_names(many(ctx, l::ProjectLeaders(self.id)).await?)
    }

    /// Leaders with their member accounts, in display order.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn entity_leaders(&self, ctx: &Context<'_>) -> Result<Vec<EntityLeader>> {
        many(ctx, l::ProjectLeaders(self.id)).await
    }
}

impl Project {
    async fn totals(&self, ctx: &Context<'_>) -> Result<ProjectTotals> {
        Ok(one(ctx, l::ProjectTotalsOf(self.id))
            .await?
            .unwrap_or_default())
    }
}

// ----------------------------------------------------------------------------------
// Organizations, repositories, contributors

/// An organization affiliated with the community.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Organization {
    #[graphql(skip)]
    pub id: i64,
    pub login: String,
    pub name: String,
    pub company: String,
    pub location: String,
    pub description: String,
    pub avatar_url: String,
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Record for Organization {
    const COLS: &'static str = "t.id, t.login, t.name, t.company, t.location, t.description, \
        t.avatar_url, t.url, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Organization {
            id: c.get()?,
            login: c.get()?,
            name: c.get()?,
            company: c.get()?,
            location: c.get()?,
            description: c.get()?,
            avatar_url: c.get()?,
            url: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

/// Totals over an organization's repositories.
#[derive(SimpleObject, Clone, Copy, Default)]
pub struct OrganizationStats {
    /// Distinct members among the repositories' contributors.
    pub total_contributors: i64,
    pub total_forks: i64,
    /// Sum of the repositories' open issue counts.
    pub total_issues: i64,
    pub total_repositories: i64,
    pub total_stars: i64,
}

impl Record for OrganizationStats {
    const COLS: &'static str = "(SELECT COUNT(DISTINCT rc.member_id) \
            FROM repository_contributors rc JOIN repositories r ON r.id = rc.repository_id \
            WHERE r.organization_id = t.id), \
        (SELECT COALESCE(SUM(r.forks_count), 0) FROM repositories r WHERE r.organization_id = t.id), \
        (SELECT COALESCE(SUM(r.open_issues_count), 0) FROM repositories r \
            WHERE r.organization_id = t.id), \
        (SELECT COUNT(*) FROM repositories r WHERE r.organization_id = t.id), \
        (SELECT COALESCE(SUM(r.stars_count), 0) FROM repositories r WHERE r.organization_id = t.id)";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(OrganizationStats {
            total_contributors: c.get()?,
            total_forks: c.get()?,
            total_issues: c.get()?,
            total_repositories: c.get()?,
            total_stars: c.get()?,
        })
    }
}

#[ComplexObject]
impl Organization {
    async fn stats(&self, ctx: &Context<'_>) -> Result<OrganizationStats> {
        Ok(one(ctx, l::OrganizationStatsOf(self.id))
            .await?
            .unwrap_or_default())
    }
}

/// A code repository (of any organization).
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Repository {
    #[graphql(skip)]
    pub id: i64,
    #[graphql(skip)]
    pub organization_id: i64,
    /// The repository name in lower case, as used by `repository(repositoryKey:)`.
    pub key: String,
    pub name: String,
    pub description: Option<String>,
    pub url: String,
    pub commits_count: i64,
    pub contributors_count: i64,
    pub forks_count: i64,
    pub open_issues_count: i64,
    pub stars_count: i64,
    pub created_at: String,
    pub updated_at: String,
}

impl Table for Repository {
    const TABLE: &'static str = "repositories";
}

impl Record for Repository {
    const COLS: &'static str = "t.id, t.organization_id, t.name_lc, t.name, t.description, \
        t.url, t.commits_count, t.contributors_count, t.forks_count, t.open_issues_count, \
        t.stars_count, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Repository {
            id: c.get()?,
            organization_id: c.get()?,
            key: c.get()?,
            name: c.get()?,
            description: c.get()?,
            url: c.get()?,
            commits_count: c.get()?,
            contributors_count: c.get()?,
            forks_count: c.get()?,
            open_issues_count: c.get()?,
            stars_count: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

#[ComplexObject]
impl Repository {
    /// The owning organization; null when it is not affiliated with the community
    /// (such organizations are not part of the API).
    async fn organization(&self, ctx: &Context<'_>) -> Result<Option<Organization>> {
        one(ctx, l::OrganizationById(self.organization_id)).await
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
        match limit_or(limit, 5) {
            Some(limit) => many(ctx, l::RepositoryMilestones(self.id, limit)).await,
            None => Ok(Vec::new()),
        }
    }

    /// Contributors by contributions, most first.
    #[graphql(complexity = "limit_cost(limit, 24, child_complexity)")]
    async fn top_contributors(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 24)] limit: Option<i32>,
    ) -> Result<Vec<Contributor>> {
        match limit_or(limit, 24) {
            Some(limit) => many(ctx, l::RepositoryContributors(self.id, limit)).await,
            None => Ok(Vec::new()),
        }
    }
}

/// A member's contributions to one or several repositories.
#[derive(SimpleObject, Clone)]
pub struct Contributor {
    pub login: String,
    pub name: String,
    pub avatar_url: String,
    pub contributions_count: i64,
}

impl Record for Contributor {
    /// Over `repository_contributors rc` joined with `members m`, per repository.
    const COLS: &'static str = "m.login, m.name, m.avatar_url, rc.contributions_count";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Contributor {
            login: c.get()?,
            name: c.get()?,
            avatar_url: c.get()?,
            contributions_count: c.get()?,
        })
    }
}

// ----------------------------------------------------------------------------------
// Issues, milestones, releases

/// An issue.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Issue {
    #[graphql(skip)]
    pub id: i64,
    pub number: i64,
    pub title: String,
    /// `open` or `closed`.
    pub state: String,
    /// Markdown.
    pub body: String,
    pub url: String,
    #[graphql(skip)]
    pub author_id: Option<i64>,
    /// The login of the repository's organization.
    pub organization_name: String,
    pub repository_name: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Table for Issue {
    const TABLE: &'static str = "issues";
    const JOINS: &'static str = REPO_JOINS;
}

impl Record for Issue {
    const COLS: &'static str = "t.id, t.number, t.title, t.state, t.body, t.url, t.author_id, \
        o.login, r.name, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Issue {
            id: c.get()?,
            number: c.get()?,
            title: c.get()?,
            state: c.get()?,
            body: c.get()?,
            url: c.get()?,
            author_id: c.get()?,
            organization_name: c.get()?,
            repository_name: c.get()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
    }
}

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

/// The name of a label on an issue.
#[derive(Clone)]
pub struct LabelName(pub String);

impl Record for LabelName {
    /// Over `labels l`.
    const COLS: &'static str = "l.name";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(LabelName(c.get()?))
    }
}

/// A milestone.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Milestone {
    pub number: i64,
    pub title: String,
    /// `open` or `closed`.
    pub state: String,
    /// Markdown.
    pub body: String,
    pub url: String,
    #[graphql(skip)]
    pub author_id: Option<i64>,
    /// The login of the repository's organization.
    pub organization_name: String,
    pub repository_name: String,
    pub open_issues_count: i64,
    pub closed_issues_count: i64,
    pub due_on: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl Table for Milestone {
    const TABLE: &'static str = "milestones";
    const JOINS: &'static str = REPO_JOINS;
}

impl Record for Milestone {
    const COLS: &'static str = "t.number, t.title, t.state, t.body, t.url, t.author_id, \
        o.login, r.name, t.open_issues_count, t.closed_issues_count, t.due_on, t.created_at, \
        t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Milestone {
            number: c.get()?,
            title: c.get()?,
            state: c.get()?,
            body: c.get()?,
            url: c.get()?,
            author_id: c.get()?,
            organization_name: c.get()?,
            repository_name: c.get()?,
            open_issues_count: c.get()?,
            closed_issues_count: c.get()?,
            due_on: c.opt_ts()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
        })
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

/// A published release.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Release {
    /// Case-sensitive; may contain `/`.
    pub tag_name: String,
    pub name: String,
    /// Markdown.
    pub description: String,
    pub url: String,
    pub is_pre_release: bool,
    #[graphql(skip)]
    pub author_id: Option<i64>,
    /// The login of the repository's organization.
    pub organization_name: String,
    pub repository_name: String,
    /// The name of the active project the repository belongs to, if any.
    pub project_name: Option<String>,
    pub published_at: Option<String>,
    pub created_at: String,
}

impl Table for Release {
    const TABLE: &'static str = "releases";
    const JOINS: &'static str = REPO_JOINS;
}

impl Record for Release {
    const COLS: &'static str = "t.tag_name, t.name, t.description, t.url, \
        t.is_pre_release, t.author_id, o.login, r.name, \
        (SELECT p.name FROM project_repositories pr JOIN projects p ON p.id = pr.project_id \
          WHERE pr.repository_id = t.repository_id AND p.is_active = 1 ORDER BY p.id LIMIT 1), \
        t.published_at, t.created_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Release {
            tag_name: c.get()?,
            name: c.get()?,
            description: c.get()?,
            url: c.get()?,
            is_pre_release: c.get()?,
            author_id: c.get()?,
            organization_name: c.get()?,
            repository_name: c.get()?,
            project_name: c.get()?,
            published_at: c.opt_ts()?,
            created_at: c.ts()?,
        })
    }
}

#[ComplexObject]
impl Release {
    async fn author(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        user(ctx, self.author_id).await
    }
}

// ----------------------------------------------------------------------------------
// Users

/// A member (code-hosting user).
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct User {
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
}

impl Table for User {
    const TABLE: &'static str = "members";
}

impl Record for User {
    const COLS: &'static str = "t.id, t.login, t.name, t.avatar_url, t.url, t.bio, t.company, \
        t.location, t.title, t.twitter_username, t.followers_count, t.following_count, \
        t.public_repositories_count, t.created_at, t.updated_at";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(User {
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
        })
    }
}

/// What a member authored.
#[derive(Clone, Copy, Default)]
pub struct UserTotals {
    pub issues: i64,
    pub releases: i64,
}

impl Record for UserTotals {
    const COLS: &'static str = "(SELECT COUNT(*) FROM issues i WHERE i.author_id = t.id), \
        (SELECT COUNT(*) FROM releases x WHERE x.author_id = t.id AND x.published_at IS NOT NULL)";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(UserTotals {
            issues: c.get()?,
            releases: c.get()?,
        })
    }
}

#[ComplexObject]
impl User {
    /// Issues the member opened.
    async fn issues_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.totals(ctx).await?.issues)
    }

    /// Published releases the member authored.
    async fn releases_count(&self, ctx: &Context<'_>) -> Result<i64> {
        Ok(self.totals(ctx).await?.releases)
    }
}

impl User {
    async fn totals(&self, ctx: &Context<'_>) -> Result<UserTotals> {
        Ok(one(ctx, l::UserTotalsOf(self.id))
            .await?
            .unwrap_or_default())
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

/// A completed snapshot: what was new in a month.
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Snapshot {
    #[graphql(skip)]
    pub id: i64,
    /// `YYYY-MM`.
    pub key: String,
    pub title: String,
    pub start_at: String,
    pub end_at: String,
    pub created_at: String,
    pub updated_at: String,
    pub new_chapters_count: i64,
    pub new_issues_count: i64,
    pub new_projects_count: i64,
    pub new_releases_count: i64,
    pub new_users_count: i64,
}

impl Record for Snapshot {
    const COLS: &'static str = "t.id, t.key, t.title, t.start_at, t.end_at, t.created_at, \
        t.updated_at, \
        (SELECT COUNT(*) FROM snapshot_chapters s JOIN chapters c ON c.id = s.chapter_id \
          WHERE s.snapshot_id = t.id AND c.is_active = 1), \
        (SELECT COUNT(*) FROM snapshot_issues s WHERE s.snapshot_id = t.id), \
        (SELECT COUNT(*) FROM snapshot_projects s JOIN projects p ON p.id = s.project_id \
          WHERE s.snapshot_id = t.id AND p.is_active = 1), \
        (SELECT COUNT(*) FROM snapshot_releases s JOIN releases x ON x.id = s.release_id \
          WHERE s.snapshot_id = t.id AND x.published_at IS NOT NULL), \
        (SELECT COUNT(*) FROM snapshot_members s WHERE s.snapshot_id = t.id)";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(Snapshot {
            id: c.get()?,
            key: c.get()?,
            title: c.get()?,
            start_at: c.ts()?,
            end_at: c.ts()?,
            created_at: c.ts()?,
            updated_at: c.ts()?,
            new_chapters_count: c.get()?,
            new_issues_count: c.get()?,
            new_projects_count: c.get()?,
            new_releases_count: c.get()?,
            new_users_count: c.get()?,
        })
    }
}

#[ComplexObject]
impl Snapshot {
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
    async fn new_releases(&self, ctx: &Context<'_>) -> Result<Vec<Release>> {
        many(ctx, l::SnapshotReleases(self.id)).await
    }

    /// Members new in the snapshot, newest first.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn new_users(&self, ctx: &Context<'_>) -> Result<Vec<User>> {
        many(ctx, l::SnapshotUsers(self.id)).await
    }
}

// ----------------------------------------------------------------------------------
// Statistics

/// Community totals for the home page.
#[derive(SimpleObject, Clone, Copy)]
pub struct StatsOverview {
    /// Active chapters.
    pub active_chapters_stats: i64,
    /// Active projects.
    pub active_projects_stats: i64,
    /// Distinct members who contributed to at least one repository.
    pub contributors_stats: i64,
    /// Distinct countries of active chapters (the length of `chapterCountries`).
    pub countries_stats: i64,
}

impl Record for StatsOverview {
    const COLS: &'static str = "(SELECT COUNT(*) FROM chapters WHERE is_active = 1), \
        (SELECT COUNT(*) FROM projects WHERE is_active = 1), \
        (SELECT COUNT(DISTINCT member_id) FROM repository_contributors), \
        (SELECT COUNT(DISTINCT country) FROM chapters WHERE is_active = 1 AND country != '')";
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Ok(StatsOverview {
            active_chapters_stats: c.get()?,
            active_projects_stats: c.get()?,
            contributors_stats: c.get()?,
            countries_stats: c.get()?,
        })
    }
}
