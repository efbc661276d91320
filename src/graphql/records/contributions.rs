//! Contribution heat maps (`contributionData`, `contributionStats`): the records a
//! chapter's, project's or member's activity is counted from, per day of the year
//! before the dataset's newest activity.
//!
//! Each kind of activity is one [`Activity`] (its table, or the view of what the API
//! exposes of it);
//! each kind of entity one [`Scope`] (how a record of activity belongs to it). The
//! statement of a scope reads the records of every kind in the days counted (one
//! index range per kind, joined with `UNION ALL`), for all the requested entities at
//! once: a page with N entities costs one statement, whatever N and whatever the
//! number of days. They are counted per day as they are read.

use crate::schema::Ts;
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
    /// A record of activity of an entity: its kind and when it was created.
    #[derive(Clone, Copy)]
    pub struct Dated {
        /// The index of its [`Activity`] in [`ACTIVITIES`].
        pub kind: i64 = get("kind"),
        /// Microseconds since the Unix epoch.
        pub created_at: i64 = get("created_at"),
    }
}

/// The statement of a relation read whole (see `relations::ListKey`, two sort keys):
/// for the entities in `?1`, `(entity id, created_at, kind, kind, created_at)` for
/// every record of activity in the days counted. Each kind is one range of an index
/// on the entity (or its repository) and `created_at`: the bounds lead the join, so
/// the range is searched rather than every record of the entity read. The records
/// are counted per day in Rust ([`day`]): grouping, numbering and ordering them in
/// SQLite cost several times reading them (one sorter each, for a few hundred rows).
pub fn dated(scope: &Scope) -> String {
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
    let records: Vec<String> = ACTIVITIES
        .iter()
        .enumerate()
        .map(|(kind, a)| {
            format!(
                "SELECT {entity}, x.created_at, {kind}, {kind}, x.created_at \
                 FROM bounds b CROSS JOIN {table} x{joins} \
                 WHERE {entity} IN (SELECT value FROM json_each(?1)) \
                   AND x.created_at >= b.lo AND x.created_at <= b.hi",
                entity = scope.entity,
                joins = scope.joins,
                table = a.table,
            )
        })
        .collect();
    format!(
        "WITH newest AS (SELECT MAX(v) AS hi FROM ({newest})), \
         bounds AS (SELECT hi, (hi / {DAY_MICROS} - {back}) * {DAY_MICROS} AS lo \
                    FROM newest WHERE hi IS NOT NULL) \
         {records}",
        newest = newest.join(" UNION ALL "),
        back = DAYS - 1,
        records = records.join(" UNION ALL "),
    )
}

/// The day (since the Unix epoch) of a timestamp, as SQLite's
/// `date(created_at / 1000000, 'unixepoch')` takes it: whole seconds first (toward
/// zero, as SQL's integer division), then the day they fall in.
pub fn day(created_at: i64) -> i64 {
    (created_at / 1_000_000).div_euclid(86_400)
}

/// A [`day`] as `YYYY-MM-DD`.
pub fn day_text(day: i64) -> String {
    let mut text = Ts(day.saturating_mul(DAY_MICROS)).format();
    text.truncate(10);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Days and their text as SQLite's `date(t / 1000000, 'unixepoch')` gives them,
    /// around the epoch and the turn of a day.
    #[test]
    fn days_are_sqlite_dates() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for t in [
            0,
            1,
            -1,
            -999_999,
            -1_000_000,
            -1_000_001,
            86_399_999_999,
            86_400_000_000,
            -86_400_000_000,
            -86_400_000_001,
            1_782_345_600_123_456,
            253_402_300_799_000_000,
        ] {
            let expected: String = conn
                .query_row("SELECT date(?1 / 1000000, 'unixepoch')", [t], |r| r.get(0))
                .unwrap();
            assert_eq!(day_text(day(t)), expected, "{t}");
        }
    }
}
