//! `organization(login)` with its stats.

use super::*;

#[tokio::test]
async fn organization_with_stats() {
    let app = app();
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT o.id, o.login, o.name, o.company, o.location, o.description, o.avatar_url, o.url, \
            o.created_at, o.updated_at FROM organizations o JOIN repositories r \
            ON r.organization_id = o.id WHERE o.is_affiliated = 1 \
         GROUP BY o.id ORDER BY COUNT(*) DESC, o.id LIMIT 1",
        [],
    )[0];
    let id = row[0].as_i64().unwrap();
    let sums = &rows(
        &conn,
        "SELECT SUM(forks_count), SUM(open_issues_count), COUNT(*), SUM(stars_count) \
         FROM repositories WHERE organization_id = ?1",
        [id],
    )[0];
    let contributors = int(
        &conn,
        "SELECT COUNT(DISTINCT rc.member_id) FROM repository_contributors rc \
         JOIN repositories r ON r.id = rc.repository_id WHERE r.organization_id = ?1",
        [id],
    );
    let data = app
        .data(
            "query($l: String!) { organization(login: $l) { login name company location description \
               avatarUrl url createdAt updatedAt stats { totalContributors totalForks totalIssues \
               totalRepositories totalStars } } }",
            json!({"l": row[1].as_str().unwrap().to_uppercase()}),
        )
        .await;
    assert_eq!(
        data["organization"],
        json!({
            "login": row[1], "name": row[2], "company": row[3], "location": row[4],
            "description": row[5], "avatarUrl": row[6], "url": row[7],
            "createdAt": ts(row[8].as_i64().unwrap()), "updatedAt": ts(row[9].as_i64().unwrap()),
            "stats": {"totalContributors": contributors, "totalForks": sums[0],
                      "totalIssues": sums[1], "totalRepositories": sums[2], "totalStars": sums[3]},
        })
    );
    assert!(contributors > 0);
    let unaffiliated = strings(
        &conn,
        "SELECT login FROM organizations WHERE is_affiliated = 0",
        [],
    );
    let data = app
        .data(
            "query($l: String!) { organization(login: $l) { login } }",
            json!({"l": unaffiliated[0]}),
        )
        .await;
    assert_eq!(data["organization"], Value::Null);
}
