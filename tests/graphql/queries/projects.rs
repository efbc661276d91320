//! `project(key)` as a project page asks it, `recentProjects` and `searchProjects`.

use super::*;

const PROJECT_PAGE: &str = "query($k: String!) { project(key: $k) {
    key name level type description url createdAt updatedAt
    starsCount forksCount contributorsCount openIssuesCount repositoriesCount
    leaders entityLeaders { memberName member { login } }
    repositories { name key starsCount organization { login } }
    recentIssues { title number organizationName repositoryName author { login } labels }
    recentReleases { tagName name publishedAt isPreRelease projectName author { login } }
    recentMilestones(limit: 2) { title progress openIssuesCount closedIssuesCount author { login } }
} }";

#[tokio::test]
async fn project_page() {
    let app = app();
    let conn = app.sql();
    // The active project with the most repositories.
    let row = &rows(
        &conn,
        "SELECT p.id, p.key, p.name, p.level, p.type, p.description, p.url, p.created_at, \
            p.updated_at FROM projects p JOIN project_repositories pr ON pr.project_id = p.id \
         WHERE p.is_active = 1 GROUP BY p.id ORDER BY COUNT(*) DESC, p.id LIMIT 1",
        [],
    )[0];
    let id = row[0].as_i64().unwrap();
    let key = row[1].as_str().unwrap();
    let sums = &rows(
        &conn,
        "SELECT SUM(r.stars_count), SUM(r.forks_count), SUM(r.contributors_count), \
            SUM(r.open_issues_count), COUNT(*) FROM project_repositories pr \
         JOIN repositories r ON r.id = pr.repository_id WHERE pr.project_id = ?1",
        [id],
    )[0];
    let repos = rows(
        &conn,
        "SELECT r.name, r.name_lc, r.stars_count, o.login, o.is_affiliated \
         FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
         JOIN organizations o ON o.id = r.organization_id WHERE pr.project_id = ?1 \
         ORDER BY r.stars_count DESC, r.id",
        [id],
    );
    let issues = rows(
        &conn,
        "SELECT i.id, i.title, i.number, o.login, r.name, m.login FROM issues i \
         JOIN project_repositories pr ON pr.repository_id = i.repository_id \
         JOIN repositories r ON r.id = i.repository_id JOIN organizations o ON o.id = r.organization_id \
         LEFT JOIN members m ON m.id = i.author_id WHERE pr.project_id = ?1 \
         ORDER BY i.created_at DESC, i.updated_at DESC, i.id DESC LIMIT 5",
        [id],
    );
    let releases = rows(
        &conn,
        "SELECT x.tag_name, x.name, x.published_at, x.is_pre_release, m.login FROM releases x \
         JOIN project_repositories pr ON pr.repository_id = x.repository_id \
         LEFT JOIN members m ON m.id = x.author_id \
         WHERE pr.project_id = ?1 AND x.published_at IS NOT NULL AND x.is_draft = 0 \
         ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC LIMIT 5",
        [id],
    );
    let milestones = rows(
        &conn,
        "SELECT x.title, x.open_issues_count, x.closed_issues_count, m.login FROM milestones x \
         JOIN project_repositories pr ON pr.repository_id = x.repository_id \
         LEFT JOIN members m ON m.id = x.author_id WHERE pr.project_id = ?1 \
         ORDER BY x.created_at DESC, x.updated_at DESC, x.id DESC LIMIT 2",
        [id],
    );
    let leaders = rows(
        &conn,
        "SELECT l.name, m.login FROM leaders l LEFT JOIN members m ON m.id = l.member_id \
         WHERE l.entity_kind = 'project' AND l.entity_id = ?1 ORDER BY l.position",
        [id],
    );
    let login = |v: &Value| {
        if v.is_null() {
            Value::Null
        } else {
            json!({"login": v})
        }
    };
    let expected = json!({
        "key": key.strip_prefix("www-project-").unwrap(), "name": row[2], "level": row[3], "type": row[4], "description": row[5],
        "url": row[6], "createdAt": ts(row[7].as_i64().unwrap()),
        "updatedAt": ts(row[8].as_i64().unwrap()),
        "starsCount": sums[0], "forksCount": sums[1], "contributorsCount": sums[2],
        "openIssuesCount": sums[3], "repositoriesCount": sums[4],
        "leaders": leaders.iter().map(|l| l[0].clone()).collect::<Vec<_>>(),
        "entityLeaders": leaders.iter()
            .map(|l| json!({"memberName": l[0], "member": login(&l[1])})).collect::<Vec<_>>(),
        "repositories": repos.iter().map(|r| json!({
            "name": r[0], "key": r[1], "starsCount": r[2],
            "organization": if r[4] == json!(1) { json!({"login": r[3]}) } else { Value::Null },
        })).collect::<Vec<_>>(),
        "recentIssues": issues.iter().map(|i| json!({
            "title": i[1], "number": i[2], "organizationName": i[3], "repositoryName": i[4],
            "author": login(&i[5]),
            "labels": strings(&conn, "SELECT l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE il.issue_id = ?1 ORDER BY il.position", [i[0].as_i64().unwrap()]),
        })).collect::<Vec<_>>(),
        "recentReleases": releases.iter().map(|x| json!({
            "tagName": x[0], "name": x[1], "publishedAt": ts(x[2].as_i64().unwrap()),
            "isPreRelease": x[3] == json!(1), "projectName": row[2], "author": login(&x[4]),
        })).collect::<Vec<_>>(),
        "recentMilestones": milestones.iter().map(|m| {
            let (open, closed) = (m[1].as_i64().unwrap(), m[2].as_i64().unwrap());
            let progress = if open + closed == 0 { 0.0 } else {
                (closed as f64 * 100.0 / (open + closed) as f64 * 100.0).round() / 100.0
            };
            json!({"title": m[0], "progress": progress, "openIssuesCount": open,
                   "closedIssuesCount": closed, "author": login(&m[3])})
        }).collect::<Vec<_>>(),
    });
    let short = key.strip_prefix("www-project-").unwrap();
    let data = app.data(PROJECT_PAGE, json!({"k": short})).await;
    assert_eq!(data["project"], expected);
    assert!(repos.len() >= 2 && !issues.is_empty() && !releases.is_empty());

    // Inactive projects do not exist for the API.
    let inactive = strings(&conn, "SELECT key FROM projects WHERE is_active = 0", []);
    let data = app
        .data(
            "query($k: String!) { project(key: $k) { key } }",
            json!({"k": inactive[0]}),
        )
        .await;
    assert_eq!(data["project"], Value::Null);
}

#[tokio::test]
async fn recent_and_searched_projects() {
    let app = app();
    let conn = app.sql();
    let newest = strings(
        &conn,
        "SELECT substr(key, 13) FROM projects WHERE is_active = 1 ORDER BY created_at DESC, id DESC",
        [],
    );
    let data = app.data("{ recentProjects { key } }", json!({})).await;
    assert_eq!(pluck(&data["recentProjects"], "key"), newest[..8].to_vec());

    let matching = |text: &str| {
        let mut names = strings(
            &conn,
            "SELECT name FROM projects WHERE is_active = 1 AND instr(name_lc, ?1) > 0",
            [text.to_lowercase()],
        );
        names.sort_by_key(|n| (n.to_lowercase(), n.clone()));
        names.truncate(3);
        names
    };
    for text in ["juice", "SHOP", " top ", "security", "zzzz"] {
        let data = app
            .data(
                "query($q: String!) { searchProjects(query: $q) { name } }",
                json!({"q": text}),
            )
            .await;
        assert_eq!(
            pluck(&data["searchProjects"], "name"),
            matching(text.trim()),
            "{text}"
        );
    }
    assert_eq!(matching("security").len(), 3);
    let long = "a".repeat(101);
    for text in ["ju", "  ju  ", long.as_str()] {
        let data = app
            .data(
                "query($q: String!) { searchProjects(query: $q) { name } }",
                json!({"q": text}),
            )
            .await;
        assert_eq!(data["searchProjects"], json!([]), "{text}");
    }
}
