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
