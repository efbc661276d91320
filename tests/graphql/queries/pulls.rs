//! Pull requests: `recentPullRequests` (login, organization, repository, `distinct`)
//! and `Project.recentPullRequests`, every field against the records.

use rusqlite::Connection;

use super::*;

/// Titles of the pull requests (as `x`, with repository `r`, organization `o` and
/// author `m`) matching `filter` (`?1` bound to `arg`), newest first; with `distinct`,
/// each author's newest only (all pull requests without an author as one author).
fn newest(conn: &Connection, filter: &str, arg: &str, distinct: bool, n: usize) -> Vec<String> {
    let all = rows(
        conn,
        &format!(
            "SELECT x.title, x.author_id FROM pull_requests x \
             JOIN repositories r ON r.id = x.repository_id \
             JOIN organizations o ON o.id = r.organization_id \
             LEFT JOIN members m ON m.id = x.author_id \
             WHERE {filter} ORDER BY x.created_at DESC, x.updated_at DESC, x.id DESC"
        ),
        [arg],
    );
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for row in all {
        if distinct {
            if seen.contains(&row[1]) {
                continue;
            }
            seen.push(row[1].clone());
        }
        out.push(row[0].as_str().unwrap().to_string());
    }
    out.truncate(n);
    out
}

const Q: &str = "query($n: Int, $l: String, $o: String, $r: String, $d: Boolean) {
    recentPullRequests(limit: $n, login: $l, organization: $o, repository: $r, distinct: $d) {
        id title number state url createdAt updatedAt closedAt mergedAt organizationName
        repositoryName author { login } } }";

#[tokio::test]
async fn recent_pull_requests_filters_and_distinct() {
    let app = app();
    let conn = app.sql();
    let titles = |data: &Value| pluck(&data["recentPullRequests"], "title");
    let data = app.data(Q, json!({})).await;
    assert_eq!(titles(&data), newest(&conn, "?1 = ?1", "", false, 5));
    let data = app.data(Q, json!({"n": 30, "d": true})).await;
    let distinct = newest(&conn, "?1 = ?1", "", true, 30);
    assert!(distinct.len() >= 5, "{distinct:?}");
    assert_eq!(titles(&data), distinct);

    let prolific = strings(
        &conn,
        "SELECT m.login FROM pull_requests p JOIN members m ON m.id = p.author_id GROUP BY m.id \
         ORDER BY COUNT(*) DESC, m.id LIMIT 1",
        [],
    )[0]
    .clone();
    let expected = newest(&conn, "m.login = ?1", &prolific, false, 100);
    assert!(expected.len() >= 2);
    let data = app
        .data(Q, json!({"n": 100, "l": prolific.to_uppercase()}))
        .await;
    assert_eq!(titles(&data), expected);

    // An organization, then one of its repositories.
    let row = &rows(
        &conn,
        "SELECT o.login, r.name FROM pull_requests p JOIN repositories r ON r.id = p.repository_id \
         JOIN organizations o ON o.id = r.organization_id GROUP BY r.id \
         ORDER BY COUNT(*) DESC, r.id LIMIT 1",
        [],
    )[0];
    let (org, repo) = (row[0].as_str().unwrap(), row[1].as_str().unwrap());
    let data = app.data(Q, json!({"n": 1000, "o": org})).await;
    let in_org = newest(&conn, "o.login = ?1", org, false, 1000);
    assert_eq!(titles(&data), in_org);
    let data = app
        .data(
            Q,
            json!({"n": 1000, "o": org.to_uppercase(), "r": repo.to_uppercase()}),
        )
        .await;
    let in_repo = newest(
        &conn,
        "o.login || '/' || r.name = ?1",
        &format!("{org}/{repo}"),
        false,
        1000,
    );
    assert!(!in_repo.is_empty() && in_repo.len() < in_org.len() + 1);
    assert_eq!(titles(&data), in_repo);
    // A repository name alone: every repository of that name.
    let data = app.data(Q, json!({"n": 1000, "r": repo})).await;
    assert_eq!(
        titles(&data),
        newest(&conn, "r.name_lc = lower(?1)", repo, false, 1000)
    );
    let data = app
        .data(Q, json!({"n": 5, "o": "no-such-org", "r": repo}))
        .await;
    assert_eq!(data["recentPullRequests"], json!([]));
    let data = app.data(Q, json!({"n": 5, "l": "no-such-member"})).await;
    assert_eq!(data["recentPullRequests"], json!([]));
    let data = app.data(Q, json!({"n": 0})).await;
    assert_eq!(data["recentPullRequests"], json!([]));

    // Every field of the newest merged pull request.
    let all = rows(
        &conn,
        "SELECT p.title, p.number, p.state, p.url, p.created_at, p.updated_at, p.closed_at, \
            p.merged_at, o.login, r.name, m.login FROM pull_requests p \
         JOIN repositories r ON r.id = p.repository_id \
         JOIN organizations o ON o.id = r.organization_id LEFT JOIN members m ON m.id = p.author_id \
         ORDER BY p.created_at DESC, p.updated_at DESC, p.id DESC",
        [],
    );
    let at = all.iter().position(|r| !r[7].is_null()).unwrap();
    let row = &all[at];
    let data = app.data(Q, json!({"n": at + 1})).await;
    let got = &data["recentPullRequests"][at];
    let key = format!(
        "PullRequest:{}/{}#{}",
        row[8].as_str().unwrap().to_lowercase(),
        row[9].as_str().unwrap().to_lowercase(),
        row[1]
    );
    let t = |v: &Value| v.as_i64().map_or(Value::Null, |m| json!(ts(m)));
    assert_eq!(
        got,
        &json!({"id": encode_id(&key), "title": row[0], "number": row[1], "state": row[2],
            "url": row[3], "createdAt": t(&row[4]), "updatedAt": t(&row[5]),
            "closedAt": t(&row[6]), "mergedAt": t(&row[7]),
            "organizationName": row[8], "repositoryName": row[9],
            "author": if row[10].is_null() { Value::Null } else { json!({"login": row[10]}) }})
    );
}

#[tokio::test]
async fn project_recent_pull_requests() {
    let app = app();
    let conn = app.sql();
    // Every active project at once: the 5 newest of its repositories' pull requests.
    let q = "{ recentProjects(limit: 100) { key recentPullRequests { title author { login } } } }";
    let data = app.data(q, json!({})).await;
    let mut seen = 0;
    for project in data["recentProjects"].as_array().unwrap() {
        let expected = strings(
            &conn,
            "SELECT x.title FROM pull_requests x \
             JOIN project_repositories pr ON pr.repository_id = x.repository_id \
             JOIN projects p ON p.id = pr.project_id WHERE p.key = 'www-project-' || ?1 \
             ORDER BY x.created_at DESC, x.updated_at DESC, x.id DESC LIMIT 5",
            [project["key"].as_str().unwrap()],
        );
        seen += expected.len();
        assert_eq!(
            pluck(&project["recentPullRequests"], "title"),
            expected,
            "{}",
            project["key"]
        );
    }
    assert!(seen >= 10, "{seen}");
}
