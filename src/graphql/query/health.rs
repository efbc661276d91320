//! The projects health dashboard's queries (docs/api.md §6.4): the newest measurement
//! of every active project, filtered, ordered and paged as the dashboard asks, how
//! many there are, and the overview of them.
//!
//! A filter is turned into one SQL condition with anonymous `?` parameters, bound in
//! the order they appear; nothing a request supplies is written into the statement.

use async_graphql::{Context, Enum, InputObject, Object, Result, SimpleObject};
use rusqlite::types::Value;

use super::{bad_user_input, count, fetch, run};
use crate::graphql::records::{HealthMetrics, MAX_LIMIT};
use crate::schema::Selected;
use crate::vocab::Level;

/// A project whose newest score is at least this is healthy.
pub const HEALTHY: f64 = 75.0;
/// Below [`HEALTHY`] and at least this: needs attention; below: unhealthy.
pub const NEED_ATTENTION: f64 = 50.0;
/// The furthest `pagination.offset` reaches.
const MAX_OFFSET: i64 = 10_000;
/// How deep `AND`/`OR`/`NOT` may nest.
const MAX_FILTER_DEPTH: usize = 8;

/// The newest measurement of each active project (`t`, its project `p`): one probe of
/// the `(project_id, created_at)` index per measurement.
const LATEST: &str = "project_health_metrics t JOIN api_projects p ON p.id = t.project_id \
     WHERE t.created_at = (SELECT MAX(m.created_at) FROM project_health_metrics m \
       WHERE m.project_id = t.project_id)";

#[derive(Default)]
pub struct HealthQuery;

/// Comparisons of a number; each is left out when null, the given ones must all hold.
#[derive(InputObject, Default)]
#[graphql(name = "FloatComparisonFilterLookup")]
pub struct FloatLookup {
    /// Equal to.
    exact: Option<f64>,
    /// Greater than.
    gt: Option<f64>,
    /// Greater than or equal to.
    gte: Option<f64>,
    /// Less than.
    lt: Option<f64>,
    /// Less than or equal to.
    lte: Option<f64>,
    /// Equal to one of these (none: no record).
    in_list: Option<Vec<f64>>,
    /// true: only records without a value; false: only records with one.
    is_null: Option<bool>,
    /// Between `start` and `end`, both included.
    range: Option<FloatRange>,
}

/// An inclusive range; a null end is open.
#[derive(InputObject, Default)]
#[graphql(name = "FloatRangeLookup")]
pub struct FloatRange {
    start: Option<f64>,
    end: Option<f64>,
}

/// Which measurements `projectHealthMetrics` lists: the given fields must all hold, then
/// `AND`, `OR` and `NOT` combine the result with another filter.
#[derive(InputObject, Default)]
#[graphql(name = "ProjectHealthMetricsFilter")]
pub struct HealthFilter {
    /// The measurement's score.
    score: Option<FloatLookup>,
    /// The project's level.
    level: Option<Level>,
    /// Also this filter.
    #[graphql(name = "AND")]
    and: Option<Box<HealthFilter>>,
    /// Or this filter.
    #[graphql(name = "OR")]
    or: Option<Box<HealthFilter>>,
    /// And not this filter.
    #[graphql(name = "NOT")]
    not: Option<Box<HealthFilter>>,
    /// Accepted for compatibility; the list never repeats a project.
    #[graphql(name = "DISTINCT")]
    distinct: Option<bool>,
}

/// A page of a list: skip `offset` records (0 to 10,000), then at most `limit`
/// (1 to 1,000; null: 1,000).
#[derive(InputObject)]
#[graphql(name = "OffsetPaginationInput")]
pub struct OffsetPagination {
    #[graphql(default = 0)]
    offset: i32,
    limit: Option<i32>,
}

/// A direction. A missing score sorts above every score: last going up, first going
/// down, unless the `NULLS_` variant says otherwise.
#[derive(Enum, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    Asc,
    AscNullsFirst,
    AscNullsLast,
    Desc,
    DescNullsFirst,
    DescNullsLast,
}

impl Ordering {
    fn sql(self) -> &'static str {
        match self {
            Ordering::Asc | Ordering::AscNullsLast => "ASC NULLS LAST",
            Ordering::AscNullsFirst => "ASC NULLS FIRST",
            Ordering::Desc | Ordering::DescNullsFirst => "DESC NULLS FIRST",
            Ordering::DescNullsLast => "DESC NULLS LAST",
        }
    }
}

/// One ordering of `projectHealthMetrics`: the given fields, in this order; the next
/// entry of the list breaks their ties, and the measurement's id the last ones.
#[derive(InputObject, Default)]
#[graphql(name = "ProjectHealthMetricsOrder")]
pub struct HealthOrder {
    contributors_count: Option<Ordering>,
    created_at: Option<Ordering>,
    forks_count: Option<Ordering>,
    /// The project's name.
    #[graphql(name = "project_Name")]
    project_name: Option<Ordering>,
    score: Option<Ordering>,
    stars_count: Option<Ordering>,
}

impl HealthOrder {
    fn terms(&self, out: &mut Vec<String>) {
        let fields = [
            ("t.contributors_count", self.contributors_count),
            ("t.created_at", self.created_at),
            ("t.forks_count", self.forks_count),
            ("p.name", self.project_name),
            ("t.score", self.score),
            ("t.stars_count", self.stars_count),
        ];
        for (column, ordering) in fields {
            if let Some(ordering) = ordering {
                out.push(format!("{column} {}", ordering.sql()));
            }
        }
    }
}

/// The `ORDER BY` of a list of orderings; by project name without one.
fn order_by(ordering: &[HealthOrder]) -> String {
    let mut terms = Vec::new();
    for order in ordering {
        order.terms(&mut terms);
    }
    if terms.is_empty() {
        terms.push("p.name ASC".to_string());
    }
    terms.push("t.id".to_string());
    terms.join(", ")
}

impl FloatLookup {
    /// The conditions on `column` (none when every comparison is null).
    fn conditions(&self, column: &str, args: &mut Vec<Value>, out: &mut Vec<String>) {
        let mut compare = |op: &str, value: Option<f64>| {
            if let Some(value) = value {
                out.push(format!("{column} {op} ?"));
                args.push(Value::Real(value));
            }
        };
        compare("=", self.exact);
        compare(">", self.gt);
        compare(">=", self.gte);
        compare("<", self.lt);
        compare("<=", self.lte);
        if let Some(range) = &self.range {
            compare(">=", range.start);
            compare("<=", range.end);
        }
        if let Some(list) = &self.in_list {
            if list.is_empty() {
                out.push("0".to_string());
            } else {
                out.push(format!(
                    "{column} IN ({})",
                    vec!["?"; list.len()].join(", ")
                ));
                args.extend(list.iter().map(|v| Value::Real(*v)));
            }
        }
        match self.is_null {
            Some(true) => out.push(format!("{column} IS NULL")),
            Some(false) => out.push(format!("{column} IS NOT NULL")),
            None => {}
        }
    }
}

/// A condition and the values of its `?`s, in order; none when it keeps every record.
type Condition = Option<(String, Vec<Value>)>;

impl HealthFilter {
    /// The filter as one condition with its values.
    fn condition(&self, depth: usize) -> Result<Condition> {
        if depth > MAX_FILTER_DEPTH {
            return Err(bad_user_input(format!(
                "filters: AND, OR and NOT nest at most {MAX_FILTER_DEPTH} deep"
            )));
        }
        let (mut parts, mut args) = (Vec::new(), Vec::new());
        if let Some(score) = &self.score {
            score.conditions("t.score", &mut args, &mut parts);
        }
        if let Some(level) = self.level {
            parts.push("p.level = ?".to_string());
            args.push(Value::Text(level.as_str().to_string()));
        }
        let mut own = (!parts.is_empty()).then(|| (parts.join(" AND "), args));
        if let Some(and) = &self.and {
            own = match (own, and.condition(depth + 1)?) {
                (Some((a, mut x)), Some((b, y))) => {
                    x.extend(y);
                    Some((format!("({a}) AND ({b})"), x))
                }
                (one, None) | (None, one) => one,
            };
        }
        if let Some(or) = &self.or {
            // An empty side keeps every record, and so does their union.
            own = match (own, or.condition(depth + 1)?) {
                (Some((a, mut x)), Some((b, y))) => {
                    x.extend(y);
                    Some((format!("({a}) OR ({b})"), x))
                }
                _ => None,
            };
        }
        if let Some(not) = &self.not {
            // Not an empty filter keeps no record.
            let (b, y) = not
                .condition(depth + 1)?
                .unwrap_or_else(|| ("1".into(), Vec::new()));
            own = Some(match own {
                Some((a, mut x)) => {
                    x.extend(y);
                    (format!("({a}) AND NOT ({b})"), x)
                }
                None => (format!("NOT ({b})"), y),
            });
        }
        Ok(own)
    }
}

/// `FROM … WHERE …` of the newest measurements kept by `filters`, and its values.
fn latest(filters: Option<&HealthFilter>) -> Result<(String, Vec<Value>)> {
    let condition = match filters {
        Some(filters) => filters.condition(0)?,
        None => None,
    };
    Ok(match condition {
        Some((condition, args)) => (format!("{LATEST} AND ({condition})"), args),
        None => (LATEST.to_string(), Vec::new()),
    })
}

/// The overview of the newest measurement of every active project.
#[derive(SimpleObject, Default)]
#[graphql(name = "ProjectHealthStats")]
pub struct HealthStats {
    /// The mean score; 0 when no project has one.
    average_score: Option<f64>,
    /// The mean score of each month's measurements over the last twelve months,
    /// oldest month first.
    monthly_overall_scores: Vec<f64>,
    /// The months of `monthlyOverallScores`, 1 (January) to 12.
    monthly_overall_scores_months: Vec<i32>,
    /// Scores of 75 or more.
    projects_count_healthy: i64,
    /// Scores from 50 to below 75.
    projects_count_need_attention: i64,
    /// Scores below 50.
    projects_count_unhealthy: i64,
    projects_percentage_healthy: f64,
    projects_percentage_need_attention: f64,
    projects_percentage_unhealthy: f64,
    total_contributors: i64,
    total_forks: i64,
    total_stars: i64,
}

/// The first day (UTC, `YYYY-MM-01`) of the month eleven months before today's.
fn twelve_months_ago() -> String {
    twelve_months_before(chrono::Utc::now().date_naive())
}

/// The first day (`YYYY-MM-01`) of the month eleven months before `today`'s.
fn twelve_months_before(today: chrono::NaiveDate) -> String {
    use chrono::Datelike;
    let first = today.with_day(1).unwrap_or(today);
    first
        .checked_sub_months(chrono::Months::new(11))
        .unwrap_or(first)
        .format("%Y-%m-01")
        .to_string()
}

#[Object]
impl HealthQuery {
    /// The newest measurement of every active project, filtered, ordered and paged.
    #[graphql(complexity = "page_cost(&pagination, child_complexity)")]
    async fn project_health_metrics(
        &self,
        ctx: &Context<'_>,
        filters: Option<HealthFilter>,
        pagination: Option<OffsetPagination>,
        ordering: Option<Vec<HealthOrder>>,
    ) -> Result<Vec<HealthMetrics>> {
        let (offset, limit) = match &pagination {
            Some(p) => (i64::from(p.offset), p.limit.map(i64::from)),
            None => (0, None),
        };
        if offset < 0 || limit.is_some_and(|l| l <= 0) {
            return Ok(Vec::new());
        }
        let (from, mut args) = latest(filters.as_ref())?;
        let order = order_by(ordering.as_deref().unwrap_or_default());
        args.push(Value::Integer(limit.unwrap_or(MAX_LIMIT).min(MAX_LIMIT)));
        args.push(Value::Integer(offset.min(MAX_OFFSET)));
        let sql = format!(
            "SELECT {} FROM {from} ORDER BY {order} LIMIT ? OFFSET ?",
            HealthMetrics::COLUMNS
        );
        fetch(ctx, sql, args).await
    }

    /// How many records `projectHealthMetrics` has with these filters, over all pages.
    #[graphql(complexity = "HEALTH_SCAN")]
    async fn project_health_metrics_distinct_length(
        &self,
        ctx: &Context<'_>,
        filters: Option<HealthFilter>,
    ) -> Result<i64> {
        let (from, args) = latest(filters.as_ref())?;
        count(ctx, format!("SELECT COUNT(*) FROM {from}"), args).await
    }

    /// The overview of the dashboard: the newest measurement of every active project
    /// counted by health, the totals over them, and the mean score per month.
    #[graphql(complexity = "HEALTH_SCAN")]
    async fn project_health_stats(&self, ctx: &Context<'_>) -> Result<HealthStats> {
        let since = Value::Text(twelve_months_ago());
        run(ctx, move |conn| {
            let sql = format!(
                "SELECT COUNT(*), COALESCE(AVG(t.score), 0.0), \
                   COUNT(CASE WHEN t.score >= {HEALTHY} THEN 1 END), \
                   COUNT(CASE WHEN t.score >= {NEED_ATTENTION} AND t.score < {HEALTHY} THEN 1 END), \
                   COUNT(CASE WHEN t.score < {NEED_ATTENTION} THEN 1 END), \
                   COALESCE(SUM(t.contributors_count), 0), COALESCE(SUM(t.forks_count), 0), \
                   COALESCE(SUM(t.stars_count), 0) FROM {LATEST}"
            );
            let mut stats = HealthStats::default();
            conn.each(&sql, [], |c| {
                let total: i64 = c.get()?;
                stats.average_score = Some(c.get()?);
                stats.projects_count_healthy = c.get()?;
                stats.projects_count_need_attention = c.get()?;
                stats.projects_count_unhealthy = c.get()?;
                stats.total_contributors = c.get()?;
                stats.total_forks = c.get()?;
                stats.total_stars = c.get()?;
                let share = |n: i64| n as f64 * 100.0 / total.max(1) as f64;
                stats.projects_percentage_healthy = share(stats.projects_count_healthy);
                stats.projects_percentage_need_attention =
                    share(stats.projects_count_need_attention);
                stats.projects_percentage_unhealthy = share(stats.projects_count_unhealthy);
                Ok(false)
            })?;
            let monthly = "SELECT CAST(strftime('%m', t.created_at / 1000000, 'unixepoch') AS INTEGER), \
                   AVG(t.score) \
                 FROM project_health_metrics t JOIN api_projects p ON p.id = t.project_id \
                 WHERE t.created_at >= unixepoch(?) * 1000000 AND t.score IS NOT NULL \
                 GROUP BY strftime('%Y-%m', t.created_at / 1000000, 'unixepoch') \
                 ORDER BY MIN(t.created_at)";
            conn.each(monthly, [since], |c| {
                stats.monthly_overall_scores_months.push(c.get()?);
                stats.monthly_overall_scores.push(c.get()?);
                Ok(true)
            })?;
            Ok(stats)
        })
        .await
    }
}

/// A dashboard query reads the newest measurement of every active project.
const HEALTH_SCAN: usize = 100;

/// Complexity of a page of `projectHealthMetrics`.
fn page_cost(pagination: &Option<OffsetPagination>, child_complexity: usize) -> usize {
    let limit = pagination
        .as_ref()
        .and_then(|p| p.limit)
        .map_or(MAX_LIMIT, |l| i64::from(l).clamp(0, MAX_LIMIT));
    HEALTH_SCAN.saturating_add((limit as usize).saturating_mul(child_complexity))
}

#[cfg(test)]
mod tests {
    use super::twelve_months_before;

    #[test]
    fn twelve_months_start_on_the_first_of_the_month_eleven_months_back() {
        let day = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
        assert_eq!(twelve_months_before(day(2026, 11, 26)), "2025-12-01");
        assert_eq!(twelve_months_before(day(2026, 1, 31)), "2025-02-01");
        assert_eq!(twelve_months_before(day(2026, 12, 1)), "2026-01-01");
        assert_eq!(twelve_months_before(day(2024, 3, 31)), "2023-04-01");
    }
}
