//! The fields the frontend's pages read besides the REST detail fields: project
//! aggregates over its repositories, repository, organization and member counts,
//! `topContributors` with `excludedUsernames` and `hasFullName`, and the project of
//! a contributor.

use std::collections::BTreeSet;

use super::*;

/// The active project with the most repositories: `(id, key)`.
fn big_project(conn: &rusqlite::Connection) -> (i64, String) {
    let row = &rows(
        conn,
        "SELECT p.id, p.key FROM projects p JOIN project_repositories pr ON pr.project_id = p.id \
         WHERE p.is_active = 1 GROUP BY p.id ORDER BY COUNT(*) DESC, p.id LIMIT 1",
        [],
    )[0];
    (
        row[0].as_i64().unwrap(),
        row[1].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn project_aggregates() {
    let app = app();
    let conn = app.sql();
    let (id, key) = big_project(&conn);
    let union = |column: &str| -> Vec<String> {
        let mut all = BTreeSet::new();
        for list in strings(
            &conn,
            &format!(
                "SELECT r.{column} FROM project_repositories pr \
                 JOIN repositories r ON r.id = pr.repository_id WHERE pr.project_id = ?1"
            ),
            [id],
        ) {
            let list: Vec<String> = serde_json::from_str(&list).unwrap();
            all.extend(list);
        }
        all.into_iter().collect()
    };
    let issues = rows(
        &conn,
        "SELECT COUNT(*) FROM issues i JOIN project_repositories pr \
         ON pr.repository_id = i.repository_id WHERE pr.project_id = ?1",
        [id],
    )[0][0]
        .clone();
    let contributors = rows(
        &conn,
        "SELECT m.login, SUM(rc.contributions_count) AS n FROM project_repositories pr \
         JOIN repository_contributors rc ON rc.repository_id = pr.repository_id \
         JOIN members m ON m.id = rc.member_id WHERE pr.project_id = ?1 \
         GROUP BY m.id ORDER BY n DESC, m.login_lc, m.id LIMIT 4",
        [id],
    );
    let q = "query($k: String!) { project(key: $k) { isActive issuesCount languages topics
        topContributors(limit: 4) { login contributionsCount } } }";
    let data = app.data(q, json!({"k": key})).await;
    let project = &data["project"];
    assert_eq!(project["isActive"], json!(true));
    assert_eq!(project["issuesCount"], issues);
    assert!(issues.as_i64().unwrap() > 0);
    let languages = union("languages");
    assert!(languages.len() > 1, "{languages:?}");
    assert_eq!(project["languages"], json!(languages));
    assert_eq!(project["topics"], json!(union("topics")));
    let expected: Vec<Value> = contributors
        .iter()
        .map(|r| json!({"login": r[0], "contributionsCount": r[1]}))
        .collect();
    assert_eq!(expected.len(), 4);
    assert_eq!(project["topContributors"], json!(expected));

    let q = "query($k: String!) { project(key: $k) { topContributors(limit: 0) { login } } }";
    let data = app.data(q, json!({"k": key})).await;
    assert_eq!(data["project"]["topContributors"], json!([]));
}

#[tokio::test]
async fn repository_organization_and_user_fields() {
    let app = app();
    let conn = app.sql();
    let r = &rows(
        &conn,
        "SELECT o.login, r.name, r.subscribers_count, r.is_archived, r.license, r.languages, \
            r.topics FROM repositories r JOIN organizations o ON o.id = r.organization_id \
         WHERE o.is_affiliated = 1 AND r.license != '' ORDER BY r.id LIMIT 1",
        [],
    )[0];
    let q = "query($o: String!, $r: String!) {
        repository(organizationKey: $o, repositoryKey: $r) {
            subscribersCount isArchived license languages topics }
        organization(login: $o) { followersCount } }";
    let data = app.data(q, json!({"o": r[0], "r": r[1]})).await;
    let parse = |v: &Value| serde_json::from_str::<Value>(v.as_str().unwrap()).unwrap();
    assert_eq!(
        data["repository"],
        json!({"subscribersCount": r[2], "isArchived": r[3] == json!(1), "license": r[4],
               "languages": parse(&r[5]), "topics": parse(&r[6])})
    );
    assert!(!data["repository"]["languages"]
        .as_array()
        .unwrap()
        .is_empty());
    let followers = rows(
        &conn,
        "SELECT followers_count FROM organizations WHERE login = ?1",
        [r[0].as_str().unwrap()],
    )[0][0]
        .clone();
    assert_eq!(data["organization"]["followersCount"], followers);

    let u = &rows(
        &conn,
        "SELECT m.login, SUM(rc.contributions_count) FROM members m \
         JOIN repository_contributors rc ON rc.member_id = m.id \
         GROUP BY m.id HAVING COUNT(*) > 1 ORDER BY m.id LIMIT 1",
        [],
    )[0];
    let q = "query($l: String!) { user(login: $l) { contributionsCount } }";
    let data = app.data(q, json!({"l": u[0]})).await;
    assert_eq!(data["user"]["contributionsCount"], u[1]);
}

#[tokio::test]
async fn top_contributors_exclusions_and_full_names() {
    let app = app();
    let conn = app.sql();
    let (_, key) = big_project(&conn);
    let q = "query($k: String!, $x: [String!], $f: Boolean = false, $n: Int) {
        topContributors(project: $k, excludedUsernames: $x, hasFullName: $f, limit: $n) {
            login name contributionsCount } }";
    let all = app.data(q, json!({"k": key, "n": 1000})).await["topContributors"].clone();
    let all = all.as_array().unwrap().clone();
    assert!(all.len() > 3);
    // Excluding the first two (in another case) drops exactly them.
    let excluded = vec![
        all[0]["login"].as_str().unwrap().to_uppercase(),
        all[1]["login"].as_str().unwrap().to_string(),
    ];
    let data = app
        .data(q, json!({"k": key, "n": 1000, "x": excluded}))
        .await;
    assert_eq!(data["topContributors"], json!(all[2..]));
    // An empty list excludes nobody.
    let data = app.data(q, json!({"k": key, "n": 1000, "x": []})).await;
    assert_eq!(data["topContributors"], json!(all));
    // hasFullName keeps the members with a name, in the same order.
    let named: Vec<Value> = all
        .iter()
        .filter(|c| !c["name"].as_str().unwrap().is_empty())
        .cloned()
        .collect();
    assert!(
        named.len() < all.len() && !named.is_empty(),
        "sample needs both kinds"
    );
    let data = app.data(q, json!({"k": key, "n": 1000, "f": true})).await;
    assert_eq!(data["topContributors"], json!(named));
    let data = app.data(q, json!({"k": key, "n": 1000, "f": null})).await;
    assert_eq!(data["topContributors"], json!(all));
}

#[tokio::test]
async fn contributors_name_their_top_project() {
    let app = app();
    let conn = app.sql();
    let q = "{ topContributors(limit: 1000) { login projectKey projectName } }";
    let data = app.data(q, json!({})).await;
    let list = data["topContributors"].as_array().unwrap();
    let mut with_project = 0;
    for c in list {
        let expected = rows(
            &conn,
            "SELECT substr(p.key, 13), p.name FROM repository_contributors rc \
             JOIN project_repositories pr ON pr.repository_id = rc.repository_id \
             JOIN projects p ON p.id = pr.project_id JOIN members m ON m.id = rc.member_id \
             WHERE m.login = ?1 AND p.is_active = 1 \
             ORDER BY rc.contributions_count DESC, rc.repository_id, p.id LIMIT 1",
            [c["login"].as_str().unwrap()],
        );
        match expected.first() {
            Some(row) => {
                with_project += 1;
                assert_eq!(
                    (&c["projectKey"], &c["projectName"]),
                    (&row[0], &row[1]),
                    "{c}"
                );
            }
            None => assert_eq!(
                (&c["projectKey"], &c["projectName"]),
                (&Value::Null, &Value::Null)
            ),
        }
    }
    assert!(with_project > 0, "{with_project} of {}", list.len());
}
