//! `topContributors`: contributions summed per member, filtered by organization,
//! project or repository.

use super::*;

#[tokio::test]
async fn top_contributors_are_summed() {
    let app = app();
    let conn = app.sql();
    let expected = |filter: &str, arg: &str, limit: i64| -> Vec<Value> {
        rows(
            &conn,
            &format!(
                "SELECT m.login, m.name, m.avatar_url, SUM(rc.contributions_count) AS total \
                 FROM repository_contributors rc JOIN members m ON m.id = rc.member_id \
                 JOIN repositories r ON r.id = rc.repository_id \
                 JOIN organizations o ON o.id = r.organization_id WHERE {filter} \
                 GROUP BY m.id ORDER BY total DESC, m.login_lc, m.id LIMIT {limit}"
            ),
            [arg],
        )
        .into_iter()
        .map(
            |r| json!({"login": r[0], "name": r[1], "avatarUrl": r[2], "contributionsCount": r[3]}),
        )
        .collect()
    };
    let q = "query($n: Int, $o: String, $p: String, $r: String) {
        topContributors(limit: $n, organization: $o, project: $p, repository: $r) {
            login name avatarUrl contributionsCount } }";
    let data = app.data(q, json!({})).await;
    assert_eq!(data["topContributors"], json!(expected("?1 = ?1", "", 24)));
    assert_eq!(data["topContributors"].as_array().unwrap().len(), 24);

    let org = strings(
        &conn,
        "SELECT login FROM organizations ORDER BY id LIMIT 1",
        [],
    )[0]
    .clone();
    let data = app
        .data(q, json!({"n": 1000, "o": org.to_uppercase()}))
        .await;
    assert_eq!(
        data["topContributors"],
        json!(expected("o.login = ?1", &org, 1000))
    );

    let repo = strings(
        &conn,
        "SELECT r.name FROM repositories r JOIN repository_contributors rc ON rc.repository_id = r.id \
         GROUP BY r.id ORDER BY COUNT(*) DESC LIMIT 1",
        [],
    )[0]
    .clone();
    let data = app.data(q, json!({"n": 5, "r": repo})).await;
    assert_eq!(
        data["topContributors"],
        json!(expected("r.name_lc = lower(?1)", &repo, 5))
    );

    let project = strings(
        &conn,
        "SELECT p.key FROM projects p JOIN project_repositories pr ON pr.project_id = p.id \
         WHERE p.is_active = 1 GROUP BY p.id ORDER BY COUNT(*) DESC, p.id LIMIT 1",
        [],
    )[0]
    .clone();
    let data = app
        .data(
            q,
            json!({"n": 100, "p": project.strip_prefix("www-project-").unwrap()}),
        )
        .await;
    let by_project = expected(
        "r.id IN (SELECT pr.repository_id FROM project_repositories pr JOIN projects p \
         ON p.id = pr.project_id WHERE p.key = ?1)",
        &project,
        100,
    );
    assert!(!by_project.is_empty());
    assert_eq!(data["topContributors"], json!(by_project));
    let data = app.data(q, json!({"p": "no-such-project"})).await;
    assert_eq!(data["topContributors"], json!([]));
    let data = app.data(q, json!({"n": -1})).await;
    assert_eq!(data["topContributors"], json!([]));
}
