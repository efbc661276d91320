//! Contributions summed per member (`topContributors` without a filter or by
//! organization, `statsOverview.contributorsStats`, `Organization.stats
//! .totalContributors`) equal the same sums in SQL over the dataset the server reads,
//! before and after the dataset file is replaced under a running server.

use roost::config::Env;
use roost::records::{Dataset, Origin};
use rusqlite::Connection;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::support::graphql::*;
use crate::support::Sample;

const ORG: &str = "juice-labs";

/// One unfiltered ranking per request: each is costly enough that the complexity
/// limit takes one.
const QUERIES: [&str; 4] = [
    "{ all: topContributors(limit: 100) { login contributionsCount }
       statsOverview { contributorsStats } }",
    "query($e: [String!]) {
        named: topContributors(limit: 100, hasFullName: true, excludedUsernames: $e) { login }
    }",
    "{ top: topContributors(limit: 2) { login contributionsCount } }",
    "query($o: String!, $e: [String!]) {
        org: topContributors(organization: $o, limit: 100) { login contributionsCount }
        orgTop: topContributors(organization: $o, limit: 1, excludedUsernames: $e) { login }
        nobody: topContributors(organization: \"no-such-organization\") { login }
        organization(login: $o) { stats { totalContributors } }
    }",
];

fn record<T: DeserializeOwned>(file: &'static str, line: usize, value: Value) -> (Origin, T) {
    (
        Origin { file, line },
        serde_json::from_value(value).unwrap(),
    )
}

/// Logins and sums as `topContributors` orders them, from SQL; `filter` on `rc`, `m`
/// and the repository `r`.
fn ranking(sql: &Connection, filter: &str) -> Vec<(String, i64)> {
    let query = format!(
        "SELECT m.login, SUM(rc.contributions_count) AS n FROM repository_contributors rc \
         JOIN members m ON m.id = rc.member_id JOIN repositories r ON r.id = rc.repository_id \
         JOIN organizations o ON o.id = r.organization_id WHERE {filter} \
         GROUP BY rc.member_id ORDER BY n DESC, m.login_lc, m.id"
    );
    let mut st = sql.prepare(&query).unwrap();
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

fn answered(list: &Value) -> Vec<(String, i64)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["login"].as_str().unwrap().to_string(),
                c["contributionsCount"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn logins(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c["login"].as_str().unwrap().to_string())
        .collect()
}

/// Checks every sum of the query against SQL over `app`'s dataset; the login of the
/// top contributor.
async fn check(app: &App) -> String {
    let sql = app.sql();
    let all = ranking(&sql, "1");
    let org = ranking(&sql, &format!("o.login_lc = '{ORG}'"));
    assert!(
        all.len() > 2 && all.len() <= 100 && org.len() > 1,
        "{all:?}"
    );
    // The top contributor is excluded (in another case) where `$e` applies.
    let excluded = all[0].0.to_uppercase();
    let variables = json!({"o": ORG.to_uppercase(), "e": [excluded]});
    let mut data = serde_json::Map::new();
    for query in QUERIES {
        let vars = if query.starts_with("query") {
            variables.clone()
        } else {
            json!({})
        };
        data.extend(app.data(query, vars).await.as_object().unwrap().clone());
    }
    let data = Value::Object(data);
    assert_eq!(answered(&data["all"]), all);
    assert_eq!(answered(&data["top"]), all[..2]);
    assert_eq!(answered(&data["org"]), org);
    let named: Vec<String> = ranking(
        &sql,
        &format!(
            "m.name != '' AND m.login_lc != '{}'",
            all[0].0.to_lowercase()
        ),
    )
    .into_iter()
    .map(|(login, _)| login)
    .collect();
    assert_eq!(logins(&data["named"]), named);
    let org_top: Vec<String> = org
        .iter()
        .filter(|(login, _)| *login != all[0].0)
        .take(1)
        .map(|(login, _)| login.clone())
        .collect();
    assert_eq!(logins(&data["orgTop"]), org_top);
    assert_eq!(data["nobody"], json!([]));
    assert_eq!(data["statsOverview"]["contributorsStats"], json!(all.len()));
    assert_eq!(
        data["organization"]["stats"]["totalContributors"],
        json!(org.len())
    );
    all[0].0.clone()
}

#[tokio::test]
async fn contribution_sums_follow_the_dataset_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    let mut ds: Dataset = roost::store::sample_dataset().unwrap();
    roost::store::build(&ds, &db, roost::idx::build).unwrap();
    let app = App::over(dir, db.clone(), Env::Local, Default::default());
    let first = check(&app).await;

    // A new member with more contributions than anyone, to a repository of ORG.
    let repository = ds
        .repositories
        .iter()
        .find(|(_, r)| r.organization.eq_ignore_ascii_case(ORG))
        .map(|(_, r)| r.name.clone())
        .unwrap();
    let ts = "2026-01-01T00:00:00Z";
    let line = ds.members.len() + 1;
    ds.members.push(record(
        "members.jsonl",
        line,
        json!({"login": "Zz-Newcomer", "name": "Newcomer", "created_at": ts, "updated_at": ts}),
    ));
    let line = ds.repository_contributors.len() + 1;
    ds.repository_contributors.push(record(
        "repository_contributors.jsonl",
        line,
        json!({"organization": ORG, "repository": repository, "member": "Zz-Newcomer",
               "contributions_count": 1_000_000}),
    ));
    // Built beside the served file and renamed over it, as an import does.
    let next = db.with_extension("next");
    roost::store::build(&ds, &next, roost::idx::build).unwrap();
    std::fs::rename(&next, &db).unwrap();

    let second = check(&app).await;
    assert_ne!(first, second);
    assert_eq!(second, "Zz-Newcomer");
}

/// The entities with linked repositories, as `(kind, link table, link column)`.
const LINKED: [(&str, &str, &str); 3] = [
    ("project", "project_repositories", "project_id"),
    ("chapter", "chapter_repositories", "chapter_id"),
    ("committee", "committee_repositories", "committee_id"),
];

/// Logins, sums and member ids of an entity's contributors as its `topContributors`
/// ranks them, from SQL: each member's contributions summed over the repositories
/// linked to it (whether the repository's row exists or not; members that exist).
fn linked_ranking(sql: &Connection, link: &str, column: &str, id: i64) -> Vec<(String, i64)> {
    let query = format!(
        "SELECT m.login, SUM(rc.contributions_count) AS n FROM {link} lk \
         JOIN repository_contributors rc ON rc.repository_id = lk.repository_id \
         JOIN members m ON m.id = rc.member_id WHERE lk.{column} = ?1 \
         GROUP BY rc.member_id ORDER BY n DESC, m.login_lc, m.id"
    );
    let mut st = sql.prepare(&query).unwrap();
    let rows = st.query_map([id], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

/// The contributors of projects, chapters and committees (each one's
/// `topContributors`, read from the rankings kept per dataset file) are the sums of
/// the linked repositories' contributions in the statement's order, cut at the limit,
/// several entities in one request: with ties, a contributor whose member row is
/// missing (left out) and a linked repository whose row is missing (counted), and
/// with the ids the root `topContributors` of the same entity gives.
#[tokio::test]
async fn linked_contributors_are_the_links_sums() {
    let Sample { dir, db } = Sample::new();
    let conn = Connection::open(&db).unwrap();
    // Rows the dataset's constraints would refuse.
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    // The active project with the most linked contributors: all its contributions
    // count 1 (ties everywhere), one contributor's member row is deleted and one
    // linked repository's row too.
    let (project, repository): (i64, i64) = conn
        .query_row(
            "SELECT lk.project_id, MIN(lk.repository_id) FROM project_repositories lk \
             JOIN projects p ON p.id = lk.project_id AND p.is_active = 1 \
             JOIN repository_contributors rc ON rc.repository_id = lk.repository_id \
             GROUP BY lk.project_id ORDER BY COUNT(*) DESC, lk.project_id LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let before = linked_ranking(&conn, "project_repositories", "project_id", project);
    assert!(before.len() >= 4, "{before:?}");
    conn.execute(
        "UPDATE repository_contributors SET contributions_count = 1 WHERE repository_id IN \
         (SELECT repository_id FROM project_repositories WHERE project_id = ?1)",
        [project],
    )
    .unwrap();
    conn.execute("DELETE FROM members WHERE login = ?1", [&before[1].0])
        .unwrap();
    conn.execute("DELETE FROM repositories WHERE id = ?1", [repository])
        .unwrap();
    drop(conn);
    let app = App::over(dir, db, Env::Local, Default::default());
    let sql = app.sql();
    let after = linked_ranking(&sql, "project_repositories", "project_id", project);
    assert!(after.len() >= 3 && !after.iter().any(|(login, _)| *login == before[1].0));
    let mut compared = 0;
    for (kind, link, column) in LINKED {
        let mut st = sql
            .prepare(&format!(
                "SELECT e.id, e.key FROM {kind}s e WHERE e.is_active = 1 ORDER BY e.id"
            ))
            .unwrap();
        let entities: Vec<(i64, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!entities.is_empty(), "no active {kind}");
        let prefix = format!("www-{kind}-");
        let key = |full: &str| full.strip_prefix(&prefix).unwrap_or(full).to_string();
        // Three entities a request, each with two limits.
        for chunk in entities.chunks(3) {
            let fields: Vec<String> = chunk
                .iter()
                .enumerate()
                .map(|(i, (_, full))| {
                    format!(
                        "e{i}: {kind}(key: {}) {{ topContributors {{ id login contributionsCount }} \
                         {kind}: topContributors(limit: 2) {{ login contributionsCount }} }}",
                        json!(key(full))
                    )
                })
                .collect();
            let data = app
                .data(&format!("{{ {} }}", fields.join(" ")), json!({}))
                .await;
            for (i, (id, full)) in chunk.iter().enumerate() {
                let entity = &data[format!("e{i}")];
                let expected = linked_ranking(&sql, link, column, *id);
                let top = &entity["topContributors"];
                let n = expected.len().min(24);
                assert_eq!(answered(top), expected[..n], "{kind} {full}");
                assert_eq!(
                    answered(&entity[kind]),
                    expected[..expected.len().min(2)],
                    "{kind} {full}"
                );
                compared += n;
                if n == 0 {
                    continue;
                }
                // The same member's id in the root list over the same entity.
                let root = app
                    .data(
                        &format!(
                            "{{ topContributors({kind}: {}, limit: 100) {{ id login }} }}",
                            json!(key(full))
                        ),
                        json!({}),
                    )
                    .await;
                for c in top.as_array().unwrap() {
                    let same = root["topContributors"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|r| r["login"] == c["login"]);
                    if let Some(same) = same {
                        assert_eq!(same["id"], c["id"], "{kind} {full}");
                    }
                }
            }
        }
    }
    assert!(compared >= 10, "{compared}");
}
