//! The root `Query` type: every query of docs/api.md §6.
//!
//! Lookups follow the REST rules (the catalog's detail specs): keys with or without
//! their prefix, case-insensitive, and only what the API exposes (active chapters,
//! committees and projects, affiliated organizations, published releases, completed
//! snapshots: the catalog's `exposure` fragments, here as in every list). A record
//! that is not found is `null`, not an error. Every value a request supplies is bound
//! as a statement parameter.
//!
//! Filters are added to a statement only when given, so SQLite can walk the ordering
//! index and stop at the limit; `distinct` walks the same order and keeps each
//! author's first record until it has enough.

use std::collections::HashSet;
use std::sync::Arc;

use async_graphql::{Context, ErrorExtensions as _, Object, Result};
use rusqlite::types::Value;

use super::db::{Conn, RequestDb};
use super::limits::cost;
use super::loaders::{contributor_totals, Waves};
use super::plain::{authors_as_cards, organizations_as_cards, repositories_as_summaries, Listed};
use super::records::*;
use super::types::{limit_cost, limit_or, list_cost, TYPICAL_LIST};
use crate::catalog;
use crate::store::lc;
use crate::vocab;

pub mod board;
pub mod health;

/// The queries of every page but the health dashboard, board and mentorship ones (the
/// root type is [`super::root::Query`]).
#[derive(Default)]
pub struct CoreQuery;

/// Shortest and longest `searchProjects` query, in characters.
const SEARCH_MIN_CHARS: usize = 3;
const SEARCH_MAX_CHARS: usize = 100;
const SEARCH_RESULTS: i64 = 3;

/// A bad argument value: a client error (`extensions.code` `BAD_USER_INPUT`).
fn bad_user_input(message: String) -> async_graphql::Error {
    async_graphql::Error::new(message).extend_with(|_, ext| ext.set("code", "BAD_USER_INPUT"))
}

/// Runs one dataset call of a root query, counted in the request's waves.
pub(super) async fn run<T: Send + 'static>(
    ctx: &Context<'_>,
    work: impl FnOnce(&Conn) -> rusqlite::Result<T> + Send + 'static,
) -> Result<T> {
    let db = ctx.data::<Arc<RequestDb>>()?;
    let call = db.run(work);
    let out = match ctx.data_opt::<Arc<Waves>>() {
        Some(waves) => waves.track(call).await,
        None => call.await,
    };
    Ok(out?)
}

/// Runs one statement returning records.
pub(super) async fn fetch<T: Record>(
    ctx: &Context<'_>,
    sql: String,
    args: Vec<Value>,
) -> Result<Vec<T>> {
    run(ctx, move |conn| {
        conn.rows(&sql, rusqlite::params_from_iter(args), T::read)
    })
    .await
}

/// Runs one `SELECT COUNT(*)` statement: its count (0 without a row).
pub(super) async fn count(ctx: &Context<'_>, sql: String, args: Vec<Value>) -> Result<i64> {
    run(ctx, move |conn| {
        let counts = conn.rows(&sql, rusqlite::params_from_iter(args), |c| c.get())?;
        Ok(counts.first().copied().unwrap_or(0))
    })
    .await
}

/// A record as the REST detail of `resource` finds it from its path ids.
async fn lookup<T: Record>(ctx: &Context<'_>, resource: &str, ids: &[&str]) -> Result<Option<T>> {
    let spec = catalog::detail_spec(resource)
        .ok_or_else(|| async_graphql::Error::new(format!("no detail spec for {resource}")))?;
    let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    let Some(ids) = catalog::canonical_ids(spec, &ids) else {
        return Ok(None);
    };
    let sql = format!(
        "SELECT {} FROM {} WHERE {}",
        T::COLUMNS,
        spec.from,
        spec.lookup
    );
    let args = ids.into_iter().map(Value::Text).collect();
    Ok(fetch(ctx, sql, args).await?.into_iter().next())
}

/// A list statement: its tables, conditions and their values. Every parameter of it
/// is an anonymous `?`, bound in the order the conditions were added.
struct Select {
    from: String,
    conditions: Vec<&'static str>,
    args: Vec<Value>,
}

impl Select {
    fn from(from: &str) -> Select {
        Select {
            from: from.to_string(),
            conditions: Vec::new(),
            args: Vec::new(),
        }
    }

    /// The table of `T` with the joins its columns need.
    fn table<T: Table>() -> Select {
        Select::from(&format!("{} t{}", T::TABLE, T::JOINS))
    }

    /// A condition without a value.
    fn filter(mut self, condition: &'static str) -> Select {
        self.conditions.push(condition);
        self
    }

    /// A condition on one value, its one `?`; left out when there is no value.
    fn with(mut self, condition: &'static str, value: Option<Value>) -> Select {
        debug_assert_eq!(condition.matches('?').count(), 1, "{condition}");
        if let Some(value) = value {
            self.args.push(value);
            self.conditions.push(condition);
        }
        self
    }

    /// A condition on several values, its `?`s in order; left out when there are none.
    fn with_all(mut self, condition: &'static str, values: Option<Vec<Value>>) -> Select {
        if let Some(values) = values {
            debug_assert_eq!(condition.matches('?').count(), values.len(), "{condition}");
            self.args.extend(values);
            self.conditions.push(condition);
        }
        self
    }

    /// A case-insensitive equality on an optional argument.
    fn with_lc(self, condition: &'static str, value: Option<String>) -> Select {
        self.with(condition, value.map(|v| Value::Text(lc(&v))))
    }

    /// `SELECT columns FROM ... WHERE ...`, for the caller to order.
    fn sql(&self, columns: &str) -> String {
        let filter = if self.conditions.is_empty() {
            "1".to_string()
        } else {
            self.conditions.join(" AND ")
        };
        format!("SELECT {columns} FROM {} WHERE {filter}", self.from)
    }
}

/// The first `limit` records of a statement, in `order` (none without a limit).
async fn list<T: Record>(
    ctx: &Context<'_>,
    limit: Option<i64>,
    select: Select,
    order: &str,
) -> Result<Vec<T>> {
    let Some(limit) = limit else {
        return Ok(Vec::new());
    };
    let mut args = select.args.clone();
    args.push(Value::Integer(limit));
    let sql = format!("{} ORDER BY {order} LIMIT ?", select.sql(T::COLUMNS));
    fetch(ctx, sql, args).await
}

/// Like [`list`]; with `distinct` (null: false), only each author's first record (all
/// records without an author count as one author).
async fn recent<T: Record>(
    ctx: &Context<'_>,
    limit: Option<i64>,
    select: Select,
    order: &str,
    distinct: Option<bool>,
) -> Result<Vec<T>> {
    if !distinct.unwrap_or(false) {
        return list(ctx, limit, select, order).await;
    }
    let Some(limit) = limit else {
        return Ok(Vec::new());
    };
    let columns = format!("t.author_id, {}", T::COLUMNS);
    let sql = format!("{} ORDER BY {order}", select.sql(&columns));
    let args = select.args;
    run(ctx, move |conn| {
        let mut authors = HashSet::new();
        let mut out = Vec::new();
        conn.each(&sql, rusqlite::params_from_iter(args), |c| {
            let author: Option<i64> = c.get()?;
            if authors.insert(author) {
                out.push(T::read(c)?);
            }
            Ok(out.len() < limit as usize)
        })?;
        Ok(out)
    })
    .await
}

/// The author filter of the recent lists.
const BY_AUTHOR: &str = "t.author_id = (SELECT id FROM members WHERE login_lc = ?)";
const BY_ORGANIZATION: &str = "o.login_lc = ?";
/// The repositories of an active project, by the name part of its key.
const IN_PROJECT: &str = "r.id IN (SELECT pr.repository_id FROM project_repositories pr \
       JOIN api_projects p ON p.id = pr.project_id \
       WHERE p.key_lc = 'www-project-' || ?)";
/// The repositories linked to an active chapter, by its full key.
const IN_CHAPTER: &str = "r.id IN (SELECT cr.repository_id FROM chapter_repositories cr \
       JOIN api_chapters c ON c.id = cr.chapter_id \
       WHERE c.key_lc = ?)";
/// The repositories linked to an active committee, by its full key.
const IN_COMMITTEE: &str = "r.id IN (SELECT cr.repository_id FROM committee_repositories cr \
       JOIN api_committees c ON c.id = cr.committee_id \
       WHERE c.key_lc = ?)";

/// An organization holding at least this share of the repositories has its newest
/// records of a repository table found by walking the table's ordering index.
const LARGE_ORGANIZATION: i64 = 32;

/// The list statement of `T`, a table of records of a repository without an
/// `organization_id` of its own (releases, milestones), for the recent lists.
///
/// The planner reaches an organization's records through its repositories and sorts
/// all of them before the first is known: a cost that grows with the organization.
/// When the organization holds at least 1/[`LARGE_ORGANIZATION`] of the repositories
/// (and no author is asked for, whose index is narrower still), the statement walks
/// the table's index in the list's order instead, checking each record's
/// organization, and stops at the limit: about `limit × 32` records at most for
/// an even spread, whatever the organization's size. Both plans give the same rows
/// in the same order.
async fn in_organization<T: Table>(
    ctx: &Context<'_>,
    organization: &Option<String>,
    login: &Option<String>,
) -> Result<Select> {
    in_organization_joining::<T>(ctx, organization, login, "").await
}

/// [`in_organization`], with `joins` (those of `T` besides the repository's) after
/// the repository and organization in the statement that walks the table's index.
async fn in_organization_joining<T: Table>(
    ctx: &Context<'_>,
    organization: &Option<String>,
    login: &Option<String>,
    joins: &str,
) -> Result<Select> {
    let (Some(organization), None) = (organization, login) else {
        return Ok(Select::table::<T>());
    };
    // The organization's repositories counted against the highest repository id, as
    // kept per dataset file ([`super::totals`]).
    let totals = contributor_totals(ctx).await?;
    let repositories = totals
        .organization_ids
        .get(&lc(organization))
        .and_then(|id| totals.organization_sums.get(id))
        .map_or(0, |sums| sums.repositories);
    if repositories.saturating_mul(LARGE_ORGANIZATION) < totals.max_repository_id {
        return Ok(Select::table::<T>());
    }
    // `CROSS JOIN` keeps `t` the outer loop: the index in the `ORDER BY`'s order.
    Ok(Select::from(&format!(
        "{} t CROSS JOIN repositories r ON r.id = t.repository_id \
         CROSS JOIN organizations o ON o.id = r.organization_id{joins}",
        T::TABLE
    )))
}

/// The full key in lower case (`www-chapter-london`) of a `resource` key given with
/// or without its prefix, in any case; none when it cannot name a record.
fn full_key(resource: &str, prefix: &str, key: &str) -> Result<Option<String>> {
    let spec = catalog::detail_spec(resource)
        .ok_or_else(|| async_graphql::Error::new(format!("no detail spec for {resource}")))?;
    Ok(catalog::canonical_ids(spec, &[key.to_string()])
        .and_then(|mut ids| ids.pop())
        .map(|name| format!("{prefix}{name}")))
}

#[Object]
impl CoreQuery {
    /// An active chapter by key (`london` or `www-chapter-london`, any case).
    async fn chapter(&self, ctx: &Context<'_>, key: String) -> Result<Option<Chapter>> {
        lookup(ctx, "chapters", &[&key]).await
    }

    /// The distinct countries of active chapters, sorted.
    #[graphql(complexity = "cost::CHAPTER_COUNTRIES")]
    async fn chapter_countries(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
        run(ctx, |conn| {
            conn.rows(
                "SELECT t.country FROM api_chapters t WHERE t.country != '' \
                 GROUP BY t.country ORDER BY MIN(t.country_lc), t.country",
                [],
                |c| c.get(),
            )
        })
        .await
    }

    /// Active chapters, newest first.
    #[graphql(complexity = "limit_cost(limit, 8, child_complexity)")]
    async fn recent_chapters(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 8)] limit: Option<i32>,
    ) -> Result<Vec<Chapter>> {
        let select = Select::from("api_chapters t");
        list(ctx, limit_or(limit, 8), select, CREATED_FIRST).await
    }

    /// An active committee by key (`project` or `www-committee-project`, any case).
    async fn committee(&self, ctx: &Context<'_>, key: String) -> Result<Option<Committee>> {
        lookup(ctx, "committees", &[&key]).await
    }

    /// Events starting today (UTC) or later, soonest first.
    #[graphql(complexity = "limit_cost(limit, 6, child_complexity)")]
    async fn upcoming_events(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 6)] limit: Option<i32>,
    ) -> Result<Listed<Event>> {
        let today = Value::Text(crate::config::today());
        let select = Select::from("events t").with("t.start_date >= ?", Some(today));
        let order = "t.start_date, t.end_date IS NULL, t.end_date, t.id";
        Ok(Listed(list(ctx, limit_or(limit, 6), select, order).await?))
    }

    /// An event by key (any case).
    async fn event(&self, ctx: &Context<'_>, key: String) -> Result<Option<Event>> {
        lookup(ctx, "events", &[&key]).await
    }

    /// An active project by key (`zap` or `www-project-zap`, any case).
    async fn project(&self, ctx: &Context<'_>, key: String) -> Result<Option<Project>> {
        lookup(ctx, "projects", &[&key]).await
    }

    /// Active projects, newest first.
    #[graphql(complexity = "limit_cost(limit, 8, child_complexity)")]
    async fn recent_projects(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 8)] limit: Option<i32>,
    ) -> Result<Vec<Project>> {
        let select = Select::from("api_projects t");
        list(ctx, limit_or(limit, 8), select, CREATED_FIRST).await
    }

    /// Up to 3 active projects whose name contains `query` (case-insensitive), by
    /// name. A query shorter than 3 or longer than 100 characters (after trimming)
    /// gives `[]`.
    #[graphql(complexity = "list_cost(3, child_complexity)")]
    async fn search_projects(&self, ctx: &Context<'_>, query: String) -> Result<Vec<Project>> {
        let text = query.trim();
        let chars = text.chars().count();
        if !(SEARCH_MIN_CHARS..=SEARCH_MAX_CHARS).contains(&chars) {
            return Ok(Vec::new());
        }
        let select = Select::from("api_projects t")
            .with("instr(t.name_lc, ?) > 0", Some(Value::Text(lc(text))));
        list(ctx, Some(SEARCH_RESULTS), select, "t.name_lc, t.name, t.id").await
    }

    /// A completed snapshot by key (`YYYY-MM`).
    async fn snapshot(&self, ctx: &Context<'_>, key: String) -> Result<Option<Snapshot>> {
        lookup(ctx, "snapshots", &[&key]).await
    }

    /// Completed snapshots, newest first.
    #[graphql(complexity = "limit_cost(limit, 12, child_complexity)")]
    async fn snapshots(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 12)] limit: Option<i32>,
    ) -> Result<Vec<Snapshot>> {
        let select = Select::from("api_snapshots t");
        list(ctx, limit_or(limit, 12), select, CREATED_FIRST).await
    }

    /// All sponsors, by name.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn sponsors(&self, ctx: &Context<'_>) -> Result<Listed<Sponsor>> {
        let order = "t.name_lc, t.name, t.id";
        let sponsors = list(ctx, Some(MAX_LIMIT), Select::from("sponsors t"), order).await?;
        Ok(Listed(sponsors))
    }

    /// Community totals.
    #[graphql(complexity = "cost::STATS_OVERVIEW + child_complexity")]
    async fn stats_overview(&self, ctx: &Context<'_>) -> Result<StatsOverview> {
        // The contribution sums only when their count is asked for.
        let contributors = ctx.look_ahead().field("contributorsStats").exists();
        let stats = run(ctx, move |conn| {
            let sql = format!("SELECT {}", StatsOverview::COLUMNS);
            let stats = conn.rows(&sql, [], StatsOverview::read)?.into_iter().next();
            let Some(stats) = stats else {
                return Ok(None);
            };
            if !contributors {
                return Ok(Some(stats));
            }
            // Distinct members among the contributors of every repository.
            let totals = conn.contributor_totals()?;
            Ok(Some(StatsOverview {
                contributors_stats: totals.all.len() as i64,
                ..stats
            }))
        })
        .await?;
        stats.ok_or_else(|| async_graphql::Error::new("Internal server error"))
    }

    /// The community's blog posts, most recently published first.
    #[graphql(complexity = "limit_cost(limit, 5, child_complexity)")]
    async fn recent_posts(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 5)] limit: Option<i32>,
    ) -> Result<Listed<Post>> {
        let order = "t.published_at DESC, t.id DESC";
        let posts = list(ctx, limit_or(limit, 5), Select::from("posts t"), order).await?;
        Ok(Listed(posts))
    }

    /// An affiliated organization by login (any case).
    async fn organization(&self, ctx: &Context<'_>, login: String) -> Result<Option<Organization>> {
        lookup(ctx, "organizations", &[&login]).await
    }

    /// A repository by organization login and repository name (any case).
    async fn repository(
        &self,
        ctx: &Context<'_>,
        organization_key: String,
        repository_key: String,
    ) -> Result<Option<Repository>> {
        lookup(ctx, "repositories", &[&organization_key, &repository_key]).await
    }

    /// An organization's repositories, most stars first.
    #[graphql(complexity = "limit_cost(limit, 12, child_complexity)")]
    async fn repositories(
        &self,
        ctx: &Context<'_>,
        organization: String,
        #[graphql(default = 12)] limit: Option<i32>,
    ) -> Result<Vec<Repository>> {
        let select =
            Select::from("repositories t JOIN organizations o ON o.id = t.organization_id")
                .with_lc(BY_ORGANIZATION, Some(organization));
        list(ctx, limit_or(limit, 12), select, "t.stars_count DESC, t.id").await
    }

    /// Issues, newest first; optionally by one author (`login`), in one organization,
    /// and at most one per author (`distinct`).
    #[graphql(complexity = "limit_cost(limit, 5, child_complexity)")]
    async fn recent_issues(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 5)] limit: Option<i32>,
        login: Option<String>,
        organization: Option<String>,
        #[graphql(default_with = "Some(false)")] distinct: Option<bool>,
    ) -> Result<Listed<Carded<Issue>>> {
        let limit = limit_or(limit, 5);
        // With the authors' cards when the selection asks no more of them: then the
        // list is written without a field resolver each.
        if authors_as_cards(&ctx.item.node.selection_set.node) {
            let select = Select::table::<Carded<Issue>>()
                .with_lc(BY_AUTHOR, login)
                .with_lc(BY_ORGANIZATION, organization);
            return Ok(Listed(
                recent(ctx, limit, select, NEWEST_FIRST, distinct).await?,
            ));
        }
        let select = Select::table::<Issue>()
            .with_lc(BY_AUTHOR, login)
            .with_lc(BY_ORGANIZATION, organization);
        let issues: Vec<Issue> = recent(ctx, limit, select, NEWEST_FIRST, distinct).await?;
        Ok(Listed(Carded::uncarded(issues)))
    }

    /// Pull requests, newest first; optionally by one author (`login`), in one
    /// organization, in repositories of that name (with `organization`: one
    /// repository), and at most one per author (`distinct`).
    #[graphql(complexity = "limit_cost(limit, 5, child_complexity)")]
    async fn recent_pull_requests(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 5)] limit: Option<i32>,
        login: Option<String>,
        organization: Option<String>,
        repository: Option<String>,
        #[graphql(default_with = "Some(false)")] distinct: Option<bool>,
    ) -> Result<Listed<Carded<PullRequest>>> {
        let cards = authors_as_cards(&ctx.item.node.selection_set.node);
        let mut select = if cards {
            Select::table::<Carded<PullRequest>>()
        } else {
            Select::table::<PullRequest>()
        }
        .with_lc(BY_AUTHOR, login);
        // One repository: its range of the repository index, walked to the limit.
        select = match (organization, repository) {
            (Some(o), Some(r)) => select.with_all(
                "t.repository_id = (SELECT r1.id FROM repositories r1 \
                   JOIN organizations o1 ON o1.id = r1.organization_id \
                   WHERE o1.login_lc = ? AND r1.name_lc = ?)",
                Some(vec![Value::Text(lc(&o)), Value::Text(lc(&r))]),
            ),
            (o, r) => select
                .with_lc(BY_ORGANIZATION, o)
                .with_lc("r.name_lc = ?", r),
        };
        let limit = limit_or(limit, 5);
        // With the authors' cards when the selection asks no more of them (see
        // `recentIssues`).
        if cards {
            return Ok(Listed(
                recent(ctx, limit, select, NEWEST_FIRST, distinct).await?,
            ));
        }
        let pulls: Vec<PullRequest> = recent(ctx, limit, select, NEWEST_FIRST, distinct).await?;
        Ok(Listed(Carded::uncarded(pulls)))
    }

    /// Milestones, newest first; optionally by author, organization and state (`open`
    /// or `closed`; all when omitted), at most one per author with `distinct`.
    #[graphql(complexity = "limit_cost(limit, 5, child_complexity)")]
    async fn recent_milestones(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 5)] limit: Option<i32>,
        login: Option<String>,
        organization: Option<String>,
        state: Option<String>,
        #[graphql(default_with = "Some(false)")] distinct: Option<bool>,
    ) -> Result<Vec<Milestone>> {
        if let Some(state) = &state {
            if vocab::State::parse(state).is_none() {
                return Err(bad_user_input(format!(
                    "Invalid state '{}': expected 'open' or 'closed'",
                    super::limits::clip(state, 40)
                )));
            }
        }
        let select = in_organization::<Milestone>(ctx, &organization, &login)
            .await?
            .with_lc(BY_AUTHOR, login)
            .with_lc(BY_ORGANIZATION, organization)
            .with("t.state = ?", state.map(Value::Text));
        recent(ctx, limit_or(limit, 5), select, NEWEST_FIRST, distinct).await
    }

    /// Published releases, most recently published first, drafts and pre-releases left
    /// out; optionally by author and organization, at most one per author with
    /// `distinct`.
    #[graphql(complexity = "limit_cost(limit, 6, child_complexity)")]
    async fn recent_releases(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 6)] limit: Option<i32>,
        login: Option<String>,
        organization: Option<String>,
        #[graphql(default_with = "Some(false)")] distinct: Option<bool>,
    ) -> Result<Listed<Release>> {
        let limit = limit_or(limit, 6);
        // Authors read with the releases when the selection asks no more than their
        // cards: then the list is written without a field resolver each.
        if authors_as_cards(&ctx.item.node.selection_set.node) {
            let select =
                in_organization_joining::<CardRelease>(ctx, &organization, &login, AUTHOR_JOIN)
                    .await?
                    .filter(RELEASE_LISTED)
                    .with_lc(BY_AUTHOR, login)
                    .with_lc(BY_ORGANIZATION, organization);
            let releases: Vec<CardRelease> =
                recent(ctx, limit, select, PUBLISHED_FIRST, distinct).await?;
            return Ok(Listed(releases.into_iter().map(|r| r.0).collect()));
        }
        let select = in_organization::<Release>(ctx, &organization, &login)
            .await?
            .filter(RELEASE_LISTED)
            .with_lc(BY_AUTHOR, login)
            .with_lc(BY_ORGANIZATION, organization);
        Ok(Listed(
            recent(ctx, limit, select, PUBLISHED_FIRST, distinct).await?,
        ))
    }

    /// A member by login (any case).
    async fn user(&self, ctx: &Context<'_>, login: String) -> Result<Option<User>> {
        lookup(ctx, "members", &[&login]).await
    }

    /// The repositories a member contributed to, most contributions first.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn top_contributed_repositories(
        &self,
        ctx: &Context<'_>,
        login: String,
    ) -> Result<Listed<OrgCarded<Repository>>> {
        // With the organizations' cards when the selection asks no more of them (see
        // `recentIssues`).
        let set = &ctx.item.node.selection_set.node;
        let summaries = repositories_as_summaries(set);
        let cards = organizations_as_cards(set);
        let joins = if cards { ORGANIZATION_JOIN } else { "" };
        let select = Select::from(&format!(
            "repository_contributors rc JOIN repositories t ON t.id = rc.repository_id{joins}"
        ))
        .with_lc(
            "rc.member_id = (SELECT id FROM members WHERE login_lc = ?)",
            Some(login),
        );
        // The repository's id as the contributions' index has it (`t.id` is the same
        // value, but not that index's column): no sort.
        let order = "rc.contributions_count DESC, rc.repository_id";
        if summaries {
            let repositories: Vec<RepositorySummary> =
                list(ctx, Some(MAX_LIMIT), select, order).await?;
            return Ok(Listed(repositories.into_iter().map(|r| r.0).collect()));
        }
        if cards {
            return Ok(Listed(list(ctx, Some(MAX_LIMIT), select, order).await?));
        }
        let repositories: Vec<Repository> = list(ctx, Some(MAX_LIMIT), select, order).await?;
        Ok(Listed(OrgCarded::uncarded(repositories)))
    }

    /// Members by their contributions summed over the selected repositories (all, or
    /// those of an organization, of an active project, of a chapter or committee, or
    /// named `repository`), most first; without the logins of `excludedUsernames`
    /// (any case) and, with `hasFullName`, without members whose name is empty.
    #[graphql(complexity = "cost::top_contributors(
        limit_or(limit, 24).unwrap_or(0) as usize,
        organization.is_some() || project.is_some() || repository.is_some()
            || chapter.is_some() || committee.is_some(),
        child_complexity
    )")]
    #[allow(clippy::too_many_arguments)]
    // Long because each of the five scopes (chapter, committee, organization, project,
    // repository) adds its own join to one statement; the scopes combine.
    async fn top_contributors(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 24)] limit: Option<i32>,
        chapter: Option<String>,
        committee: Option<String>,
        organization: Option<String>,
        project: Option<String>,
        repository: Option<String>,
        excluded_usernames: Option<Vec<String>>,
        #[graphql(default_with = "Some(false)")] has_full_name: Option<bool>,
    ) -> Result<Listed<Contributor>> {
        let Some(limit) = limit_or(limit, 24) else {
            return Ok(Listed(Vec::new()));
        };
        let mut linked = Vec::new();
        for (resource, prefix, key) in [
            ("chapters", "www-chapter-", chapter),
            ("committees", "www-committee-", committee),
        ] {
            match key {
                Some(key) => match full_key(resource, prefix, &key)? {
                    Some(full) => linked.push(Some(full)),
                    None => return Ok(Listed(Vec::new())),
                },
                None => linked.push(None),
            }
        }
        let committee = linked.pop().flatten();
        let chapter = linked.pop().flatten();
        let project = match project {
            Some(key) => {
                let spec = catalog::detail_spec("projects")
                    .ok_or_else(|| async_graphql::Error::new("no detail spec for projects"))?;
                match catalog::canonical_ids(spec, &[key]).and_then(|mut ids| ids.pop()) {
                    Some(name) => Some(name),
                    None => return Ok(Listed(Vec::new())),
                }
            }
            None => None,
        };
        let scope = contributors_scope(&chapter, &committee, &organization, &project, &repository);
        let excluded_count = excluded_usernames.as_ref().map_or(0, Vec::len);
        let excluded = excluded_usernames.map(|logins| {
            let logins: Vec<String> = logins.iter().map(|l| lc(l)).collect();
            Value::Text(serde_json::Value::from(logins).to_string())
        });
        let has_full_name = has_full_name.unwrap_or(false);
        if chapter.is_none() && committee.is_none() && project.is_none() && repository.is_none() {
            let ranked = RankedContributors {
                scope,
                organization,
                excluded,
                excluded_count,
                has_full_name,
                limit,
            };
            return Ok(Listed(run(ctx, move |conn| ranked.read(conn)).await?));
        }
        let mut select = Select::from(
            "repository_contributors rc JOIN members m ON m.id = rc.member_id \
             JOIN repositories r ON r.id = rc.repository_id \
             JOIN organizations o ON o.id = r.organization_id",
        )
        .with_lc(BY_ORGANIZATION, organization)
        .with_lc("r.name_lc = ?", repository)
        .with(IN_PROJECT, project.map(Value::Text))
        .with(IN_CHAPTER, chapter.map(Value::Text))
        .with(IN_COMMITTEE, committee.map(Value::Text))
        .with(
            "m.login_lc NOT IN (SELECT value FROM json_each(?))",
            excluded,
        );
        if has_full_name {
            select = select.filter("m.name != ''");
        }
        let mut args = vec![Value::Text(scope)];
        args.extend(select.args.iter().cloned());
        args.push(Value::Integer(limit));
        let ranked = select.sql(
            "rc.member_id AS mid, SUM(rc.contributions_count) AS n, ? AS scope, \
             m.login_lc AS login_lc",
        );
        // Each member's top project from the contribution sums (one look-up each, not
        // a subquery).
        let sql = format!(
            "SELECT {cols} FROM ({ranked} GROUP BY rc.member_id \
               ORDER BY n DESC, login_lc, mid LIMIT ?) g \
             JOIN members m ON m.id = g.mid ORDER BY g.n DESC, g.login_lc, g.mid",
            cols = Contributor::RANKED_COLUMNS,
        );
        let contributors = run(ctx, move |conn| {
            let totals = conn.contributor_totals()?;
            conn.rows(&sql, rusqlite::params_from_iter(args), |c| {
                Contributor::read_ranked(c, &totals.top_project)
            })
        })
        .await?;
        Ok(Listed(contributors))
    }
}

/// What `topContributors` sums over, as part of its records' ids: the same text for
/// the same selection (`project=` names the project as `Project.topContributors`
/// does, so both give the same ids).
fn contributors_scope(
    chapter: &Option<String>,
    committee: &Option<String>,
    organization: &Option<String>,
    project: &Option<String>,
    repository: &Option<String>,
) -> String {
    let mut parts = Vec::new();
    if let Some(c) = chapter {
        parts.push(format!("chapter={c}"));
    }
    if let Some(c) = committee {
        parts.push(format!("committee={c}"));
    }
    if let Some(o) = organization {
        parts.push(format!("organization={}", lc(o)));
    }
    if let Some(p) = project {
        parts.push(format!("project=www-project-{}", lc(p)));
    }
    if let Some(r) = repository {
        parts.push(format!("repository={}", lc(r)));
    }
    if parts.is_empty() {
        "all".to_string()
    } else {
        parts.join("&")
    }
}

/// `topContributors` over every repository, or over those of one organization: the
/// ranking of [`super::totals`] read from the top in chunks, each chunk's members
/// filtered (excluded logins, full names) in SQL, until `limit` members are found.
/// The same members in the same order as the grouping statement of the other
/// selections: the filters are on the member alone, so they keep the order of those
/// they let through.
struct RankedContributors {
    scope: String,
    organization: Option<String>,
    /// The excluded logins in lower case, as a JSON array.
    excluded: Option<Value>,
    excluded_count: usize,
    has_full_name: bool,
    limit: i64,
}

impl RankedContributors {
    fn read(self, conn: &Conn) -> rusqlite::Result<Vec<Contributor>> {
        let totals = conn.contributor_totals()?;
        let ranking = match &self.organization {
            None => &totals.all,
            Some(login) => {
                let ids: Vec<i64> = conn.rows(
                    "SELECT o.id FROM organizations o WHERE o.login_lc = ?1",
                    [lc(login)],
                    |c| c.get(),
                )?;
                match ids.first().and_then(|id| totals.by_organization.get(id)) {
                    Some(ranking) => ranking,
                    None => return Ok(Vec::new()),
                }
            }
        };
        let mut filter = vec!["1"];
        if self.excluded.is_some() {
            filter.push("m.login_lc NOT IN (SELECT value FROM json_each(?4))");
        }
        if self.has_full_name {
            filter.push("m.name != ''");
        }
        // `?1` the scope, `?2` a chunk of the ranking as `[[member id, sum], ...]`,
        // `?3` how many members are still wanted.
        let sql = format!(
            "SELECT {cols} FROM (SELECT j.key AS k, json_extract(j.value, '$[0]') AS mid, \
                json_extract(j.value, '$[1]') AS n, ?1 AS scope FROM json_each(?2) j) g \
             JOIN members m ON m.id = g.mid WHERE {filter} ORDER BY g.k LIMIT ?3",
            cols = Contributor::RANKED_COLUMNS,
            filter = filter.join(" AND "),
        );
        let want = usize::try_from(self.limit).unwrap_or(0);
        let mut out: Vec<Contributor> = Vec::with_capacity(want.min(ranking.len()));
        let mut start = 0;
        // Enough when only the excluded logins are left out; doubled while the
        // filters leave too few.
        let mut size = want.saturating_add(self.excluded_count).max(1);
        while out.len() < want && start < ranking.len() {
            let end = start.saturating_add(size).min(ranking.len());
            let chunk = serde_json::to_string(&ranking[start..end])
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            let mut args = vec![
                Value::Text(self.scope.clone()),
                Value::Text(chunk),
                Value::Integer((want - out.len()) as i64),
            ];
            args.extend(self.excluded.clone());
            let rows = conn.rows(&sql, rusqlite::params_from_iter(args), |c| {
                Contributor::read_ranked(c, &totals.top_project)
            })?;
            out.extend(rows);
            start = end;
            size = size.saturating_mul(2);
        }
        Ok(out)
    }
}
