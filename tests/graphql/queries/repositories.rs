//! `repository` with its relations, and `repositories` of an organization.

use super::*;

#[tokio::test]
async fn repository_with_relations() {
    let app = app();
    let conn = app.sql();
    // The repository with the most issues.
    let row = &rows(
        &conn,
        "SELECT r.id, o.login, r.name, r.description, r.url, r.commits_count, r.contributors_count, \
            r.forks_count, r.open_issues_count, r.stars_count, r.created_at, r.updated_at, r.name_lc \
         FROM repositories r JOIN organizations o ON o.id = r.organization_id \
         ORDER BY (SELECT COUNT(*) FROM issues i WHERE i.repository_id = r.id) DESC, r.id LIMIT 1",
        [],
    )[0];
    let id = row[0].as_i64().unwrap();
    let issues = strings(
        &conn,
        "SELECT title FROM issues WHERE repository_id = ?1 \
         ORDER BY created_at DESC, updated_at DESC, id DESC LIMIT 5",
        [id],
    );
    let releases = strings(
        &conn,
        "SELECT tag_name FROM releases WHERE repository_id = ?1 AND published_at IS NOT NULL \
         AND is_draft = 0 AND is_pre_release = 0 \
         ORDER BY published_at DESC, created_at DESC, id DESC LIMIT 5",
        [id],
    );
    let milestones = strings(
        &conn,
        "SELECT title FROM milestones WHERE repository_id = ?1 \
         ORDER BY created_at DESC, updated_at DESC, id DESC LIMIT 3",
        [id],
    );
    let contributors = rows(
        &conn,
        "SELECT m.login, rc.contributions_count FROM repository_contributors rc \
         JOIN members m ON m.id = rc.member_id WHERE rc.repository_id = ?1 \
         ORDER BY rc.contributions_count DESC, m.login_lc, m.id LIMIT 4",
        [id],
    );
    let project = strings(
        &conn,
        "SELECT substr(p.key, 13) FROM project_repositories pr JOIN projects p ON p.id = pr.project_id \
         WHERE pr.repository_id = ?1 AND p.is_active = 1 ORDER BY p.id LIMIT 1",
        [id],
    );
    let data = app
        .data(
            "query($o: String!, $r: String!) { repository(organizationKey: $o, repositoryKey: $r) {
                key name description url commitsCount contributorsCount forksCount openIssuesCount
                starsCount createdAt updatedAt organization { login } project { key }
                issues { title } releases { tagName } recentMilestones(limit: 3) { title }
                topContributors(limit: 4) { login contributionsCount } } }",
            json!({"o": row[1].as_str().unwrap().to_uppercase(), "r": row[2].as_str().unwrap().to_uppercase()}),
        )
        .await;
    let r = &data["repository"];
    assert_eq!(r["key"], row[12]);
    assert_eq!(r["name"], row[2]);
    assert_eq!(r["description"], row[3]);
    assert_eq!(r["url"], row[4]);
    assert_eq!(r["commitsCount"], row[5]);
    assert_eq!(r["contributorsCount"], row[6]);
    assert_eq!(r["forksCount"], row[7]);
    assert_eq!(r["openIssuesCount"], row[8]);
    assert_eq!(r["starsCount"], row[9]);
    assert_eq!(r["createdAt"], json!(ts(row[10].as_i64().unwrap())));
    assert_eq!(r["updatedAt"], json!(ts(row[11].as_i64().unwrap())));
    assert_eq!(r["organization"], json!({"login": row[1]}));
    assert_eq!(
        r["project"],
        project.first().map_or(Value::Null, |k| json!({"key": k}))
    );
    assert_eq!(pluck(&r["issues"], "title"), issues);
    assert_eq!(pluck(&r["releases"], "tagName"), releases);
    assert_eq!(pluck(&r["recentMilestones"], "title"), milestones);
    let expected: Vec<Value> = contributors
        .iter()
        .map(|c| json!({"login": c[0], "contributionsCount": c[1]}))
        .collect();
    assert_eq!(r["topContributors"], json!(expected));
    assert_eq!(issues.len(), 5);

    // A repository of an organization that is not affiliated: the repository exists,
    // its organization is not part of the API.
    let other = &rows(
        &conn,
        "SELECT o.login, r.name FROM repositories r JOIN organizations o ON o.id = r.organization_id \
         WHERE o.is_affiliated = 0 LIMIT 1",
        [],
    )[0];
    let data = app
        .data(
            "query($o: String!, $r: String!) { repository(organizationKey: $o, repositoryKey: $r) { name organization { login } } }",
            json!({"o": other[0], "r": other[1]}),
        )
        .await;
    assert_eq!(
        data["repository"],
        json!({"name": other[1], "organization": null})
    );
    let data = app
        .data(
            "{ repository(organizationKey: \"nobody\", repositoryKey: \"nothing\") { name } }",
            json!({}),
        )
        .await;
    assert_eq!(data["repository"], Value::Null);
}

#[tokio::test]
async fn repositories_of_an_organization() {
    let app = app();
    let conn = app.sql();
    let login = strings(
        &conn,
        "SELECT o.login FROM organizations o JOIN repositories r ON r.organization_id = o.id \
         GROUP BY o.id ORDER BY COUNT(*) DESC, o.id LIMIT 1",
        [],
    )[0]
    .clone();
    let expected = strings(
        &conn,
        "SELECT r.name FROM repositories r JOIN organizations o ON o.id = r.organization_id \
         WHERE o.login = ?1 ORDER BY r.stars_count DESC, r.id",
        [&login],
    );
    assert!(expected.len() >= 3);
    let q = "query($o: String!, $n: Int!) { repositories(organization: $o, limit: $n) { name } }";
    let data = app
        .data(q, json!({"o": login.to_uppercase(), "n": 12}))
        .await;
    assert_eq!(pluck(&data["repositories"], "name"), expected);
    let data = app.data(q, json!({"o": login, "n": 2})).await;
    assert_eq!(pluck(&data["repositories"], "name"), expected[..2].to_vec());
    let data = app.data(q, json!({"o": login, "n": 0})).await;
    assert_eq!(data["repositories"], json!([]));
}

/// A stored list that is not a JSON array (a damaged dataset) is an internal error,
/// like any unreadable column, and never shown as an empty list.
#[tokio::test]
async fn a_stored_list_that_is_not_json_is_an_internal_error_not_an_empty_list() {
    let app = app();
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT r.id, o.login, r.name FROM repositories r \
         JOIN organizations o ON o.id = r.organization_id \
         WHERE r.languages != '[]' ORDER BY r.id LIMIT 1",
        [],
    )[0];
    let q = "query($o: String!, $r: String!) { repository(organizationKey: $o, repositoryKey: $r) { name languages } }";
    let vars = json!({"o": row[1], "r": row[2]});
    let before = app.data(q, vars.clone()).await;
    assert!(
        before["repository"]["languages"]
            .as_array()
            .is_some_and(|l| !l.is_empty()),
        "{before}"
    );
    conn.execute(
        "UPDATE repositories SET languages = 'Rust, Go' WHERE id = ?1",
        [row[0].as_i64().unwrap()],
    )
    .unwrap();
    let reply = app.post(q, vars).await;
    assert_eq!(reply.status.as_u16(), 200);
    let body = reply.json();
    assert_eq!(
        body["errors"][0]["message"], "Internal server error",
        "{body}"
    );
    assert_eq!(body["data"]["repository"], Value::Null, "{body}");
}
