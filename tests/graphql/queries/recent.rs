//! `recentIssues`, `recentMilestones` and `recentReleases`: their filters (login,
//! organization, state), `distinct` (the newest per author), and the releases the original
//! service lists: published, drafts and pre-releases left out (`Project.recentReleases`
//! keeps pre-releases).

use rusqlite::Connection;

use super::*;

/// Expected titles of a recent list: rows of (title, author id) in order, optionally
/// the first per author.
fn first_per_author(rows: Vec<Vec<Value>>, distinct: bool, limit: usize) -> Vec<String> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for row in rows {
        if distinct {
            if seen.contains(&row[1]) {
                continue;
            }
            seen.push(row[1].clone());
        }
        out.push(row[0].as_str().unwrap().to_string());
    }
    out.truncate(limit);
    out
}

/// (title, author id) of the rows of `table` (issues or milestones, as `x`, with their
/// repository `r`, organization `o` and author `m`) that match `filter`, `?1` bound to
/// `arg`; newest first, as the API orders them.
fn newest(conn: &Connection, table: &str, filter: &str, arg: &str) -> Vec<Vec<Value>> {
    rows(
        conn,
        &format!(
            "SELECT x.title, x.author_id FROM {table} x JOIN repositories r ON r.id = x.repository_id \
             JOIN organizations o ON o.id = r.organization_id LEFT JOIN members m ON m.id = x.author_id \
             WHERE {filter} ORDER BY x.created_at DESC, x.updated_at DESC, x.id DESC"
        ),
        [arg],
    )
}

#[tokio::test]
async fn recent_issues_filters_and_distinct() {
    let app = app();
    let conn = app.sql();
    let all = |filter: &str, arg: &str| newest(&conn, "issues", filter, arg);
    let q = "query($n: Int, $l: String, $o: String, $d: Boolean) {
        recentIssues(limit: $n, login: $l, organization: $o, distinct: $d) {
            title number state body url createdAt updatedAt organizationName repositoryName
            author { login } } }";
    let data = app.data(q, json!({})).await;
    assert_eq!(
        pluck(&data["recentIssues"], "title"),
        first_per_author(all("?1 = ?1", ""), false, 5)
    );
    let data = app.data(q, json!({"n": 30, "d": true})).await;
    let distinct = first_per_author(all("?1 = ?1", ""), true, 30);
    assert_eq!(pluck(&data["recentIssues"], "title"), distinct);
    assert!(distinct.len() >= 10);
    let authors = pluck(&data["recentIssues"], "author");
    let mut unique = authors.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), authors.len(), "one issue per author");

    let prolific = strings(
        &conn,
        "SELECT m.login FROM issues i JOIN members m ON m.id = i.author_id GROUP BY m.id \
         ORDER BY COUNT(*) DESC, m.id LIMIT 1",
        [],
    )[0]
    .clone();
    let data = app
        .data(q, json!({"n": 100, "l": prolific.to_uppercase()}))
        .await;
    assert_eq!(
        pluck(&data["recentIssues"], "title"),
        first_per_author(all("m.login = ?1", &prolific), false, 100)
    );
    let org = strings(
        &conn,
        "SELECT login FROM organizations ORDER BY id LIMIT 1",
        [],
    )[0]
    .clone();
    let data = app.data(q, json!({"n": 1000, "o": org})).await;
    assert_eq!(
        pluck(&data["recentIssues"], "title"),
        first_per_author(all("o.login = ?1", &org), false, 1000)
    );
    let data = app.data(q, json!({"n": 0})).await;
    assert_eq!(data["recentIssues"], json!([]));

    // Every field of the newest issue.
    let row = &rows(
        &conn,
        "SELECT i.title, i.number, i.state, b.body, i.url, i.created_at, i.updated_at, o.login, \
            r.name, m.login FROM issues i JOIN issue_bodies b ON b.issue_id = i.id \
         JOIN repositories r ON r.id = i.repository_id \
         JOIN organizations o ON o.id = r.organization_id LEFT JOIN members m ON m.id = i.author_id \
         ORDER BY i.created_at DESC, i.updated_at DESC, i.id DESC LIMIT 1",
        [],
    )[0];
    let data = app.data(q, json!({"n": 1})).await;
    assert_eq!(
        data["recentIssues"][0],
        json!({"title": row[0], "number": row[1], "state": row[2], "body": row[3], "url": row[4],
               "createdAt": ts(row[5].as_i64().unwrap()), "updatedAt": ts(row[6].as_i64().unwrap()),
               "organizationName": row[7], "repositoryName": row[8],
               "author": if row[9].is_null() { Value::Null } else { json!({"login": row[9]}) }})
    );
}

#[tokio::test]
async fn recent_milestones_filters() {
    let app = app();
    let conn = app.sql();
    let all = |filter: &str, arg: &str| newest(&conn, "milestones", filter, arg);
    let q = "query($n: Int, $s: String, $d: Boolean, $o: String) {
        recentMilestones(limit: $n, state: $s, distinct: $d, organization: $o) {
            title number state body url openIssuesCount closedIssuesCount dueOn progress
            organizationName repositoryName createdAt updatedAt author { login } } }";
    let data = app.data(q, json!({})).await;
    assert_eq!(
        pluck(&data["recentMilestones"], "title"),
        first_per_author(all("?1 = ?1", ""), false, 5)
    );
    for state in ["open", "closed"] {
        let data = app.data(q, json!({"n": 100, "s": state})).await;
        let expected = first_per_author(all("x.state = ?1", state), false, 100);
        assert!(!expected.is_empty());
        assert_eq!(
            pluck(&data["recentMilestones"], "title"),
            expected,
            "{state}"
        );
    }
    let data = app.data(q, json!({"n": 100, "d": true})).await;
    assert_eq!(
        pluck(&data["recentMilestones"], "title"),
        first_per_author(all("?1 = ?1", ""), true, 100)
    );
    let message = app.error(q, json!({"s": "OPEN"})).await;
    assert!(message.contains("'open' or 'closed'"), "{message}");

    // Progress: closed share in percent, 2 decimals, 0 without issues.
    let data = app.data(q, json!({"n": 1000})).await;
    for m in data["recentMilestones"].as_array().unwrap() {
        let open = m["openIssuesCount"].as_f64().unwrap();
        let closed = m["closedIssuesCount"].as_f64().unwrap();
        let expected = if open + closed == 0.0 {
            0.0
        } else {
            (closed * 100.0 / (open + closed) * 100.0).round() / 100.0
        };
        assert_eq!(m["progress"].as_f64().unwrap(), expected, "{m}");
    }
    let due = strings(&conn, "SELECT due_on FROM milestones WHERE due_on IS NOT NULL ORDER BY created_at DESC, updated_at DESC, id DESC LIMIT 1", []);
    let shown: Vec<&Value> = data["recentMilestones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["dueOn"])
        .filter(|d| !d.is_null())
        .collect();
    assert_eq!(shown[0], &json!(ts(due[0].parse().unwrap())));
}

#[tokio::test]
async fn recent_releases_as_the_original_lists_them() {
    let app = app();
    let conn = app.sql();
    let all = rows(
        &conn,
        &format!(
            "SELECT x.tag_name, x.author_id FROM releases x WHERE {LISTED} \
             ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC"
        ),
        [],
    );
    let q = "query($n: Int, $d: Boolean, $l: String) { recentReleases(limit: $n, distinct: $d, login: $l) {
        tagName name description url isPreRelease publishedAt createdAt organizationName
        repositoryName projectName author { login } } }";
    let data = app.data(q, json!({})).await;
    assert_eq!(
        pluck(&data["recentReleases"], "tagName"),
        first_per_author(all.clone(), false, 6)
    );
    let data = app.data(q, json!({"n": 1000})).await;
    assert_eq!(
        pluck(&data["recentReleases"], "tagName"),
        first_per_author(all.clone(), false, 1000)
    );
    let data = app.data(q, json!({"n": 1000, "d": true})).await;
    let distinct = first_per_author(all.clone(), true, 1000);
    assert!(distinct.len() < all.len());
    assert_eq!(pluck(&data["recentReleases"], "tagName"), distinct);

    let row = &rows(
        &conn,
        &format!(
            "SELECT x.tag_name, x.name, x.description, x.url, x.is_pre_release, x.published_at, \
            x.created_at, o.login, r.name, m.login, \
            (SELECT p.name FROM project_repositories pr JOIN projects p ON p.id = pr.project_id \
             WHERE pr.repository_id = x.repository_id AND p.is_active = 1 ORDER BY p.id LIMIT 1) \
         FROM releases x JOIN repositories r ON r.id = x.repository_id \
         JOIN organizations o ON o.id = r.organization_id JOIN members m ON m.id = x.author_id \
         WHERE {LISTED} ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC LIMIT 1"
        ),
        [],
    )[0];
    let data = app.data(q, json!({"n": 1, "l": row[9]})).await;
    assert_eq!(
        data["recentReleases"][0],
        json!({"tagName": row[0], "name": row[1], "description": row[2], "url": row[3],
               "isPreRelease": row[4] == json!(1), "publishedAt": ts(row[5].as_i64().unwrap()),
               "createdAt": ts(row[6].as_i64().unwrap()), "organizationName": row[7],
               "repositoryName": row[8], "projectName": row[10], "author": {"login": row[9]}})
    );
}

/// The releases the original service lists as recent (`recentReleases`,
/// `Repository.releases`): published, neither a draft nor a pre-release.
const LISTED: &str = "x.published_at IS NOT NULL AND x.is_draft = 0 AND x.is_pre_release = 0";

/// The original's release rules hold where REST's does not: the sample's drafts are
/// published and its pre-releases are published, so REST lists them
/// (`/api/v0/releases/`), while `recentReleases` and `Repository.releases` leave both
/// out and `Project.recentReleases` leaves out the drafts only.
#[tokio::test]
async fn release_lists_follow_the_originals_rules() {
    let app = app();
    let conn = app.sql();
    let count = |filter: &str| {
        rows(
            &conn,
            &format!("SELECT COUNT(*) FROM releases x WHERE {filter}"),
            [],
        )[0][0]
            .as_i64()
            .unwrap()
    };
    assert!(count("x.published_at IS NOT NULL AND x.is_draft = 1") > 0);
    assert!(count("x.published_at IS NOT NULL AND x.is_pre_release = 1") > 0);

    // Every listed release, of every author, and no other.
    let data = app
        .data(
            "{ recentReleases(limit: 1000) { tagName isPreRelease } }",
            json!({}),
        )
        .await;
    let listed = data["recentReleases"].as_array().unwrap();
    assert_eq!(listed.len() as i64, count(LISTED));
    assert!(listed.iter().all(|r| r["isPreRelease"] == json!(false)));
    // With the authors' cards only, the same list.
    let cards = app
        .data(
            "{ recentReleases(limit: 1000) { tagName author { login avatarUrl } } }",
            json!({}),
        )
        .await;
    assert_eq!(
        pluck(&cards["recentReleases"], "tagName"),
        pluck(&data["recentReleases"], "tagName")
    );

    // Each repository with a draft or a pre-release: its five newest listed ones.
    let repositories = rows(
        &conn,
        "SELECT DISTINCT o.login, r.name, r.id FROM releases x \
         JOIN repositories r ON r.id = x.repository_id JOIN organizations o ON o.id = r.organization_id \
         WHERE x.published_at IS NOT NULL AND (x.is_draft = 1 OR x.is_pre_release = 1) ORDER BY r.id",
        [],
    );
    assert!(repositories.len() >= 2);
    for repository in &repositories {
        let expected: Vec<String> = rows(
            &conn,
            &format!(
                "SELECT x.tag_name FROM releases x WHERE x.repository_id = ?1 AND {LISTED} \
                 ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC LIMIT 5"
            ),
            [repository[2].as_i64().unwrap()],
        )
        .into_iter()
        .map(|r| r[0].as_str().unwrap().to_string())
        .collect();
        let data = app
            .data(
                "query($o: String!, $r: String!) { repository(organizationKey: $o, repositoryKey: $r) {
                    releases { tagName } } }",
                json!({"o": repository[0], "r": repository[1]}),
            )
            .await;
        assert_eq!(pluck(&data["repository"]["releases"], "tagName"), expected);
    }

    // Each active project with a draft or a pre-release in its repositories: drafts
    // left out, pre-releases kept.
    let projects = rows(
        &conn,
        "SELECT DISTINCT p.key, p.id FROM releases x \
         JOIN project_repositories pr ON pr.repository_id = x.repository_id \
         JOIN projects p ON p.id = pr.project_id \
         WHERE p.is_active = 1 AND x.published_at IS NOT NULL \
           AND (x.is_draft = 1 OR x.is_pre_release = 1) ORDER BY p.id",
        [],
    );
    assert!(!projects.is_empty());
    let mut pre_releases_shown = 0;
    for project in &projects {
        let expected: Vec<String> = rows(
            &conn,
            "SELECT x.tag_name FROM releases x \
             JOIN project_repositories pr ON pr.repository_id = x.repository_id \
             WHERE pr.project_id = ?1 AND x.published_at IS NOT NULL AND x.is_draft = 0 \
             ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC LIMIT 5",
            [project[1].as_i64().unwrap()],
        )
        .into_iter()
        .map(|r| r[0].as_str().unwrap().to_string())
        .collect();
        let key = project[0]
            .as_str()
            .unwrap()
            .trim_start_matches("www-project-");
        for selection in [
            "tagName isPreRelease",
            "tagName isPreRelease author { login avatarUrl }",
        ] {
            let data = app
                .data(
                    &format!("query($k: String!) {{ project(key: $k) {{ recentReleases {{ {selection} }} }} }}"),
                    json!({"k": key}),
                )
                .await;
            let shown = &data["project"]["recentReleases"];
            assert_eq!(pluck(shown, "tagName"), expected, "{key}: {selection}");
            pre_releases_shown += shown
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["isPreRelease"] == json!(true))
                .count();
        }
    }
    assert!(pre_releases_shown > 0);
}
