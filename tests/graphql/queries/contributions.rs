//! `contributionData` and `contributionStats` (a `JSON` scalar) of projects, members
//! and chapters: issues, pull requests and published releases per day over the 365
//! days ending on the day of the dataset's newest issue, pull request or release,
//! computed here from the records.

use std::collections::BTreeMap;

use chrono::DateTime;

use super::*;

const DAY: i64 = 86_400_000_000;

fn day(micros: i64) -> String {
    DateTime::from_timestamp_micros(micros)
        .unwrap()
        .format("%Y-%m-%d")
        .to_string()
}

/// The creation times of an entity's issues, pull requests and published releases.
struct Activity {
    issues: Vec<i64>,
    pulls: Vec<i64>,
    releases: Vec<i64>,
}

impl Activity {
    /// The activity of the records `scope` selects (`x` the record, `?1` the entity).
    fn of(conn: &rusqlite::Connection, joins: &str, entity: &str, id: i64) -> Activity {
        let list = |table: &str, filter: &str| {
            times(
                conn,
                &format!(
                    "SELECT x.created_at FROM {table} x{joins} WHERE {entity} = ?1 AND {filter}"
                ),
                id,
            )
        };
        Activity {
            issues: list("issues", "1"),
            pulls: list("pull_requests", "1"),
            releases: list("releases", "x.published_at IS NOT NULL"),
        }
    }
}

/// `(data, stats)` from the creation times of the records.
fn expected(conn: &rusqlite::Connection, a: &Activity) -> (Value, Value) {
    let newest = rows(
        conn,
        "SELECT MAX((SELECT MAX(created_at) FROM issues), \
            (SELECT MAX(created_at) FROM pull_requests), \
            (SELECT MAX(created_at) FROM releases WHERE published_at IS NOT NULL))",
        [],
    )[0][0]
        .as_i64()
        .unwrap();
    let first = (newest.div_euclid(DAY) - 364) * DAY;
    let inside = |t: &&i64| **t >= first && **t <= newest;
    let mut data: BTreeMap<String, i64> = BTreeMap::new();
    for t in a
        .issues
        .iter()
        .chain(&a.pulls)
        .chain(&a.releases)
        .filter(inside)
    {
        *data.entry(day(*t)).or_default() += 1;
    }
    assert!(data.len() <= 365);
    let i = a.issues.iter().filter(inside).count();
    let p = a.pulls.iter().filter(inside).count();
    let r = a.releases.iter().filter(inside).count();
    (
        json!(data),
        json!({"commits": 0, "issues": i, "pullRequests": p, "releases": r, "total": i + p + r}),
    )
}

fn times(conn: &rusqlite::Connection, sql: &str, id: i64) -> Vec<i64> {
    rows(conn, sql, [id])
        .iter()
        .map(|r| r[0].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn project_contributions_per_day() {
    let app = app();
    let conn = app.sql();
    // Every active project at once (one batched statement).
    let q = "{ recentProjects(limit: 100) { key contributionData contributionStats } }";
    let answer = app.data(q, json!({})).await;
    let projects = answer["recentProjects"].as_array().unwrap();
    assert!(projects.len() > 20);
    let (mut issues_seen, mut pulls_seen, mut releases_seen) = (0, 0, 0);
    for project in projects {
        let id = rows(
            &conn,
            "SELECT id FROM projects WHERE key = 'www-project-' || ?1",
            [project["key"].as_str().unwrap()],
        )[0][0]
            .as_i64()
            .unwrap();
        let activity = Activity::of(
            &conn,
            " JOIN project_repositories pr ON pr.repository_id = x.repository_id",
            "pr.project_id",
            id,
        );
        let (data, stats) = expected(&conn, &activity);
        assert_eq!(project["contributionData"], data, "{}", project["key"]);
        assert_eq!(project["contributionStats"], stats, "{}", project["key"]);
        issues_seen += stats["issues"].as_i64().unwrap();
        pulls_seen += stats["pullRequests"].as_i64().unwrap();
        releases_seen += stats["releases"].as_i64().unwrap();
    }
    assert!(
        issues_seen > 10 && pulls_seen > 10 && releases_seen > 0,
        "{issues_seen} {pulls_seen} {releases_seen}"
    );
}

#[tokio::test]
async fn user_contributions_per_day() {
    let app = app();
    let conn = app.sql();
    let q = "query($l: String!) { user(login: $l) { contributionData contributionStats } }";
    // The authors of the newest issue and of the newest pull request.
    for (table, kind) in [("issues", "issues"), ("pull_requests", "pullRequests")] {
        let row = &rows(
            &conn,
            &format!(
                "SELECT m.id, m.login FROM members m JOIN {table} x ON x.author_id = m.id \
                 GROUP BY m.id ORDER BY MAX(x.created_at) DESC, m.id LIMIT 1"
            ),
            [],
        )[0];
        let id = row[0].as_i64().unwrap();
        let activity = Activity::of(&conn, "", "x.author_id", id);
        let (data, stats) = expected(&conn, &activity);
        assert!(stats[kind].as_i64().unwrap() > 0, "{stats}");
        let answer = app.data(q, json!({"l": row[1]})).await;
        assert_eq!(answer["user"]["contributionData"], data);
        assert_eq!(answer["user"]["contributionStats"], stats);
    }

    // A member without issues or releases: no days, all counts 0.
    let quiet = strings(
        &conn,
        "SELECT login FROM members m WHERE NOT EXISTS (SELECT 1 FROM issues WHERE author_id = m.id) \
         AND NOT EXISTS (SELECT 1 FROM releases WHERE author_id = m.id) \
         AND NOT EXISTS (SELECT 1 FROM pull_requests WHERE author_id = m.id) ORDER BY id LIMIT 1",
        [],
    )[0]
    .clone();
    let answer = app.data(q, json!({"l": quiet})).await;
    assert_eq!(answer["user"]["contributionData"], json!({}));
    assert_eq!(
        answer["user"]["contributionStats"],
        json!({"commits": 0, "issues": 0, "pullRequests": 0, "releases": 0, "total": 0})
    );
}

#[tokio::test]
async fn only_the_last_year_counts() {
    // Move an issue of a project's repository, with an author, to two years before
    // the newest activity: it leaves the project's and the author's counts.
    let app = app();
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT i.id, p.key, m.login FROM issues i \
         JOIN project_repositories pr ON pr.repository_id = i.repository_id \
         JOIN projects p ON p.id = pr.project_id JOIN members m ON m.id = i.author_id \
         WHERE p.is_active = 1 AND i.created_at < (SELECT MAX(created_at) FROM issues) \
         AND i.created_at > (SELECT MAX(created_at) FROM issues) - 300 * 86400000000 \
         ORDER BY i.id LIMIT 1",
        [],
    )[0];
    let q = "query($k: String!, $l: String!) { project(key: $k) { contributionStats }
        user(login: $l) { contributionStats } }";
    let vars = json!({"k": row[1], "l": row[2]});
    let before = app.data(q, vars.clone()).await;
    let mut ds = roost::store::sample_dataset().unwrap();
    let newest = ds.issues.iter().map(|(_, i)| i.created_at).max().unwrap();
    let index = row[0].as_i64().unwrap() as usize - 1;
    ds.issues[index].1.created_at = roost::records::Ts(newest.0 - 2 * 365 * DAY);
    roost::store::build(&ds, &app.db, roost::idx::build).unwrap();
    let after = app.data(q, vars).await;
    for entity in ["project", "user"] {
        let issues = |v: &Value| v[entity]["contributionStats"]["issues"].as_i64().unwrap();
        assert!(issues(&before) > 0, "{before}");
        assert_eq!(
            issues(&after),
            issues(&before) - 1,
            "{entity}: {before} {after}"
        );
    }
}

#[tokio::test]
async fn chapter_contributions_over_linked_repositories() {
    let app = app();
    let conn = app.sql();
    // Every active chapter at once (one batched statement): those with linked
    // repositories count their activity, the others have none.
    let q = "{ recentChapters(limit: 100) { key contributionData contributionStats } }";
    let answer = app.data(q, json!({})).await;
    let chapters = answer["recentChapters"].as_array().unwrap();
    let mut with_activity = 0;
    for chapter in chapters {
        let id = rows(
            &conn,
            "SELECT id FROM chapters WHERE key = 'www-chapter-' || ?1",
            [chapter["key"].as_str().unwrap()],
        )[0][0]
            .as_i64()
            .unwrap();
        let activity = Activity::of(
            &conn,
            " JOIN chapter_repositories cr ON cr.repository_id = x.repository_id",
            "cr.chapter_id",
            id,
        );
        let (data, stats) = expected(&conn, &activity);
        assert_eq!(chapter["contributionData"], data, "{}", chapter["key"]);
        assert_eq!(chapter["contributionStats"], stats, "{}", chapter["key"]);
        if stats["total"].as_i64().unwrap() > 0 {
            with_activity += 1;
        }
    }
    assert!(
        with_activity >= 2 && with_activity < chapters.len(),
        "{with_activity}"
    );
}
