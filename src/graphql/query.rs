//! The root `Query` type: every query of API.md section 6.
//!
//! Lookups follow the REST rules (the catalog's detail specs): keys with or without
//! their prefix, case-insensitive, and only what the API exposes (active chapters,
//! committees and projects, affiliated organizations, published releases, completed
//! snapshots). A record that is not found is `null`, not an error.

use std::sync::Arc;

use async_graphql::{Context, Object, Result};
use rusqlite::types::Value;

use super::db::{Conn, Db};
use super::loaders::Waves;
use super::types::*;
use crate::catalog;
use crate::store::lc;

pub struct Query;

/// Shortest and longest `searchProjects` query, in characters.
const SEARCH_MIN_CHARS: usize = 3;
const SEARCH_MAX_CHARS: usize = 100;
const SEARCH_RESULTS: i64 = 3;

/// Runs one dataset call of a root query, counted in the request's waves.
async fn run<T: Send + 'static>(
    ctx: &Context<'_>,
    work: impl FnOnce(&Conn) -> rusqlite::Result<T> + Send + 'static,
) -> Result<T> {
    let db = ctx.data::<Arc<Db>>()?;
    let call = db.run(work);
    let out = match ctx.data_opt::<Arc<Waves>>() {
        Some(waves) => waves.track(call).await,
        None => call.await,
    };
    Ok(out?)
}

/// Runs one statement returning records.
async fn fetch<T: Record>(ctx: &Context<'_>, sql: String, args: Vec<Value>) -> Result<Vec<T>> {
    run(ctx, move |conn| {
        conn.rows(&sql, rusqlite::params_from_iter(args), T::read)
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
        "SELECT {} FROM {} WHERE {} AND {}",
        T::COLS,
        spec.from,
        spec.base_where,
        spec.lookup
    );
    let args = ids.into_iter().map(Value::Text).collect();
    Ok(fetch(ctx, sql, args).await?.into_iter().next())
}

/// The first `limit` records of `from` matching `filter`, in `order` (none without a
/// limit).
async fn list<T: Record>(
    ctx: &Context<'_>,
    limit: Option<i64>,
    from: &str,
    filter: &str,
    order: &str,
    mut args: Vec<Value>,
) -> Result<Vec<T>> {
    let Some(limit) = limit else {
        return Ok(Vec::new());
    };
    args.push(Value::Integer(limit));
    let sql = format!(
        "SELECT {} FROM {from} WHERE {filter} ORDER BY {order} LIMIT ?{}",
        T::COLS,
        args.len()
    );
    fetch(ctx, sql, args).await
}

/// Like [`list`]; with `distinct` (null: false), only each author's first record (all records
/// without an author count as one author).
async fn recent<T: Record>(
    ctx: &Context<'_>,
    limit: Option<i64>,
    from: &str,
    filter: &str,
    order: &str,
    distinct: Option<bool>,
    args: Vec<Value>,
) -> Result<Vec<T>> {
    if !distinct.unwrap_or(false) {
        return list(ctx, limit, from, filter, order, args).await;
    }
    let first_per_author = format!(
        "{filter} AND t.id IN (SELECT id FROM (SELECT t.id AS id, \
           ROW_NUMBER() OVER (PARTITION BY t.author_id ORDER BY {order}) AS pos \
         FROM {from} WHERE {filter}) WHERE pos = 1)"
    );
    list(ctx, limit, from, &first_per_author, order, args).await
}

/// An optional case-insensitive filter value.
fn opt_lc(value: Option<String>) -> Value {
    value.map_or(Value::Null, |v| Value::Text(lc(&v)))
}

const RECENT_ISSUES: &str = "issues t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id LEFT JOIN members m ON m.id = t.author_id";
const RECENT_MILESTONES: &str = "milestones t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id LEFT JOIN members m ON m.id = t.author_id";
const RECENT_RELEASES: &str = "releases t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id LEFT JOIN members m ON m.id = t.author_id";
/// `?1` author login, `?2` organization login (lower case, null for any).
const BY_AUTHOR_AND_ORG: &str =
    "(?1 IS NULL OR m.login_lc = ?1) AND (?2 IS NULL OR o.login_lc = ?2)";
const NEWEST: &str = "t.created_at DESC, t.updated_at DESC, t.id";

#[Object]
impl Query {
    /// An active chapter by key (`london` or `www-chapter-london`, any case).
    async fn chapter(&self, ctx: &Context<'_>, key: String) -> Result<Option<Chapter>> {
        lookup(ctx, "chapters", &[&key]).await
    }

    /// The distinct countries of active chapters, sorted.
    async fn chapter_countries(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
        run(ctx, |conn| {
            conn.rows(
                "SELECT country FROM chapters WHERE is_active = 1 AND country != '' \
                 GROUP BY country ORDER BY MIN(country_lc), country",
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
        let order = "t.created_at DESC, t.id";
        list(
            ctx,
            limit_or(limit, 8),
            "chapters t",
            "t.is_active = 1",
            order,
            vec![],
        )
        .await
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
    ) -> Result<Vec<Event>> {
        let order = "t.start_date, t.end_date IS NULL, t.end_date, t.id";
        let today = vec![Value::Text(crate::cli::today())];
        list(
            ctx,
            limit_or(limit, 6),
            "events t",
            "t.start_date >= ?1",
            order,
            today,
        )
        .await
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
        let order = "t.created_at DESC, t.id";
        list(
            ctx,
            limit_or(limit, 8),
            "projects t",
            "t.is_active = 1",
            order,
            vec![],
        )
        .await
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
        let order = "t.name_lc, t.name, t.id";
        let filter = "t.is_active = 1 AND instr(t.name_lc, ?1) > 0";
        let args = vec![Value::Text(lc(text))];
        list(ctx, Some(SEARCH_RESULTS), "projects t", filter, order, args).await
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
        let order = "t.created_at DESC, t.id";
        list(
            ctx,
            limit_or(limit, 12),
            "snapshots t",
            "t.status = 'completed'",
            order,
            vec![],
        )
        .await
    }

    /// All sponsors, by name.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn sponsors(&self, ctx: &Context<'_>) -> Result<Vec<Sponsor>> {
        let order = "t.name_lc, t.name, t.id";
        list(ctx, Some(MAX_LIMIT), "sponsors t", "1", order, vec![]).await
    }

    /// Community totals.
    async fn stats_overview(&self, ctx: &Context<'_>) -> Result<StatsOverview> {
        let sql = format!("SELECT {}", StatsOverview::COLS);
        let stats = fetch(ctx, sql, vec![]).await?.into_iter().next();
        stats.ok_or_else(|| async_graphql::Error::new("Internal server error"))
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
        let from = "repositories t JOIN organizations o ON o.id = t.organization_id";
        let order = "t.stars_count DESC, t.id";
        let args = vec![Value::Text(lc(&organization))];
        list(
            ctx,
            limit_or(limit, 12),
            from,
            "o.login_lc = ?1",
            order,
            args,
        )
        .await
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
    ) -> Result<Vec<Issue>> {
        let args = vec![opt_lc(login), opt_lc(organization)];
        recent(
            ctx,
            limit_or(limit, 5),
            RECENT_ISSUES,
            BY_AUTHOR_AND_ORG,
            NEWEST,
            distinct,
            args,
        )
        .await
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
            if !catalog::STATES.contains(&state.as_str()) {
                return Err(async_graphql::Error::new(format!(
                    "Invalid state '{state}': expected 'open' or 'closed'"
                )));
            }
        }
        let filter = format!("{BY_AUTHOR_AND_ORG} AND (?3 IS NULL OR t.state = ?3)");
        let state = state.map_or(Value::Null, Value::Text);
        let args = vec![opt_lc(login), opt_lc(organization), state];
        recent(
            ctx,
            limit_or(limit, 5),
            RECENT_MILESTONES,
            &filter,
            NEWEST,
            distinct,
            args,
        )
        .await
    }

    /// Published releases, most recently published first; optionally by author and
    /// organization, at most one per author with `distinct`.
    #[graphql(complexity = "limit_cost(limit, 6, child_complexity)")]
    async fn recent_releases(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 6)] limit: Option<i32>,
        login: Option<String>,
        organization: Option<String>,
        #[graphql(default_with = "Some(false)")] distinct: Option<bool>,
    ) -> Result<Vec<Release>> {
        let filter = format!("t.published_at IS NOT NULL AND {BY_AUTHOR_AND_ORG}");
        let order = "t.published_at DESC, t.created_at DESC, t.id";
        let args = vec![opt_lc(login), opt_lc(organization)];
        recent(
            ctx,
            limit_or(limit, 6),
            RECENT_RELEASES,
            &filter,
            order,
            distinct,
            args,
        )
        .await
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
    ) -> Result<Vec<Repository>> {
        let from = "repository_contributors rc JOIN members m ON m.id = rc.member_id \
                    JOIN repositories t ON t.id = rc.repository_id";
        let order = "rc.contributions_count DESC, t.id";
        let args = vec![Value::Text(lc(&login))];
        list(ctx, Some(MAX_LIMIT), from, "m.login_lc = ?1", order, args).await
    }

    /// Members by their contributions summed over the selected repositories (all, or
    /// those of an organization, of an active project, or named `repository`), most
    /// first.
    #[graphql(complexity = "limit_cost(limit, 24, child_complexity)")]
    async fn top_contributors(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 24)] limit: Option<i32>,
        organization: Option<String>,
        project: Option<String>,
        repository: Option<String>,
    ) -> Result<Vec<Contributor>> {
        let Some(limit) = limit_or(limit, 24) else {
            return Ok(Vec::new());
        };
        let project = match project {
            Some(key) => {
                let spec = catalog::detail_spec("projects")
                    .ok_or_else(|| async_graphql::Error::new("no detail spec for projects"))?;
                match catalog::canonical_ids(spec, &[key]).and_then(|mut ids| ids.pop()) {
                    Some(name) => Value::Text(name),
                    None => return Ok(Vec::new()),
                }
            }
            None => Value::Null,
        };
        let args = vec![
            opt_lc(organization),
            opt_lc(repository),
            project,
            Value::Integer(limit),
        ];
        let sql = "SELECT m.login, m.name, m.avatar_url, SUM(rc.contributions_count) AS total \
             FROM repository_contributors rc JOIN members m ON m.id = rc.member_id \
             JOIN repositories r ON r.id = rc.repository_id \
             JOIN organizations o ON o.id = r.organization_id \
             WHERE (?1 IS NULL OR o.login_lc = ?1) AND (?2 IS NULL OR r.name_lc = ?2) \
               AND (?3 IS NULL OR r.id IN (SELECT pr.repository_id FROM project_repositories pr \
                    JOIN projects p ON p.id = pr.project_id \
                    WHERE p.is_active = 1 AND p.key_lc = 'www-project-' || ?3)) \
             GROUP BY m.id ORDER BY total DESC, m.login_lc, m.id LIMIT ?4";
        fetch(ctx, sql.to_string(), args).await
    }
}
