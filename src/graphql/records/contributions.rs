//! Contribution heat maps (`contributionData`, `contributionStats`): the records a
//! chapter's, project's or member's activity is counted from, per day of the year
//! before the dataset's newest activity.
//!
//! Each kind of activity is one [`Activity`] (its table, or the view of what the API
//! exposes of it);
//! each kind of entity one [`Scope`] (how a record of activity belongs to it). The
//! statement of a scope counts every activity in one grouped query per kind, joined
//! with `UNION ALL`, for all the requested entities at once: a page with N entities
//! costs one statement, whatever N and whatever the number of days.

use crate::selected;

/// A kind of activity: its name in `contributionStats` and its table, or the view of
/// what the API exposes of it (aliased `x`, with `repository_id`, `author_id` and
/// `created_at`).
pub struct Activity {
    pub name: &'static str,
    table: &'static str,
}

/// Every kind of activity counted, in the order of `contributionStats`.
pub const ACTIVITIES: &[Activity] = &[
    Activity {
        name: "issues",
        table: "issues",
    },
    Activity {
        name: "pullRequests",
        table: "pull_requests",
    },
    Activity {
        name: "releases",
        table: "api_releases",
    },
];

/// Days counted, ending with the day of the dataset's newest activity.
pub const DAYS: i64 = 365;
const DAY_MICROS: i64 = 86_400_000_000;

/// How a record of activity `x` belongs to an entity: the joins from `x`, and the
/// expression giving the entity's id.
pub struct Scope {
    pub joins: &'static str,
    pub entity: &'static str,
}

/// A project: the activity of its repositories.
pub const PROJECT_SCOPE: Scope = Scope {
    joins: " JOIN project_repositories s ON s.repository_id = x.repository_id",
    entity: "s.project_id",
};

/// A chapter: the activity of the repositories linked to it.
pub const CHAPTER_SCOPE: Scope = Scope {
    joins: " JOIN chapter_repositories s ON s.repository_id = x.repository_id",
    entity: "s.chapter_id",
};

/// A member: the activity they authored.
pub const USER_SCOPE: Scope = Scope {
    joins: "",
    entity: "x.author_id",
};

selected! {
    /// The number of records of one kind of activity created on one day.
    #[derive(Clone)]
    pub struct DayCount {
        /// The [`Activity`] name.
        pub kind: String = get("kind"),
        /// `YYYY-MM-DD` (UTC).
        pub day: String = get("day"),
        pub count: i64 = get("n"),
    }
}

/// The statement of a relation (see `relations::ListKey`): for the entities in `?1`,
/// `(entity id, position, kind, day, count)` for every day with activity, at most
/// `?2` rows per entity.
pub fn day_counts(scope: &Scope) -> String {
    // The newest activity of each kind: one step down an index each.
    let newest: Vec<String> = ACTIVITIES
        .iter()
        .map(|a| {
            format!(
                "SELECT (SELECT x.created_at FROM {} x ORDER BY x.created_at DESC LIMIT 1) AS v",
                a.table
            )
        })
        .collect();
    let counts: Vec<String> = ACTIVITIES
        .iter()
        .map(|a| {
            format!(
                "SELECT {entity} AS grp, '{name}' AS kind, \
                    date(x.created_at / 1000000, 'unixepoch') AS day, COUNT(*) AS n \
                 FROM {table} x{joins} CROSS JOIN bounds b \
                 WHERE {entity} IN (SELECT value FROM json_each(?1)) \
                   AND x.created_at >= b.lo AND x.created_at <= b.hi \
                 GROUP BY grp, day",
                entity = scope.entity,
                joins = scope.joins,
                name = a.name,
                table = a.table,
            )
        })
        .collect();
    format!(
        "WITH newest AS (SELECT MAX(v) AS hi FROM ({newest})), \
         bounds AS (SELECT hi, (hi / {DAY_MICROS} - {back}) * {DAY_MICROS} AS lo \
                    FROM newest WHERE hi IS NOT NULL) \
         SELECT * FROM (SELECT grp, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY day, kind) AS pos, \
                kind, day, n FROM ({counts})) \
         WHERE pos <= ?2 ORDER BY grp, pos",
        newest = newest.join(" UNION ALL "),
        back = DAYS - 1,
        counts = counts.join(" UNION ALL "),
    )
}

/// Rows per entity at most: every day, every kind.
pub const MAX_ROWS: i64 = DAYS * ACTIVITIES.len() as i64;
