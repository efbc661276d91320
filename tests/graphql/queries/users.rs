//! `user(login)` and `topContributedRepositories`.

use super::*;

#[tokio::test]
async fn user_and_contributions() {
    let app = app();
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT m.id, m.login, m.name, m.avatar_url, m.url, m.bio, m.company, m.location, m.title, \
            m.twitter_username, m.followers_count, m.following_count, m.public_repositories_count, \
            m.created_at, m.updated_at FROM members m JOIN repository_contributors rc \
            ON rc.member_id = m.id GROUP BY m.id ORDER BY COUNT(*) DESC, m.id LIMIT 1",
        [],
    )[0];
    let id = row[0].as_i64().unwrap();
    let issues = int(
        &conn,
        "SELECT COUNT(*) FROM issues WHERE author_id = ?1",
        [id],
    );
    let releases = int(
        &conn,
        "SELECT COUNT(*) FROM releases WHERE author_id = ?1 AND published_at IS NOT NULL",
        [id],
    );
    let data = app
        .data(
            "query($l: String!) { user(login: $l) { login name avatarUrl url bio company location title
                twitterUsername followersCount followingCount publicRepositoriesCount createdAt
                updatedAt issuesCount releasesCount } }",
            json!({"l": row[1].as_str().unwrap().to_uppercase()}),
        )
        .await;
    assert_eq!(
        data["user"],
        json!({"login": row[1], "name": row[2], "avatarUrl": row[3], "url": row[4], "bio": row[5],
               "company": row[6], "location": row[7], "title": row[8], "twitterUsername": row[9],
               "followersCount": row[10], "followingCount": row[11],
               "publicRepositoriesCount": row[12], "createdAt": ts(row[13].as_i64().unwrap()),
               "updatedAt": ts(row[14].as_i64().unwrap()), "issuesCount": issues,
               "releasesCount": releases})
    );
    let data = app
        .data("{ user(login: \"no-such-member\") { login } }", json!({}))
        .await;
    assert_eq!(data["user"], Value::Null);

    let repos = strings(
        &conn,
        "SELECT r.name FROM repository_contributors rc JOIN repositories r ON r.id = rc.repository_id \
         WHERE rc.member_id = ?1 ORDER BY rc.contributions_count DESC, r.id",
        [id],
    );
    assert!(repos.len() >= 2);
    let data = app
        .data(
            "query($l: String!) { topContributedRepositories(login: $l) { name } }",
            json!({"l": row[1]}),
        )
        .await;
    assert_eq!(pluck(&data["topContributedRepositories"], "name"), repos);
}
