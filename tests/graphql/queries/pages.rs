//! The records of the frontend's pages beyond the REST resources, against the sample:
//! channels, related links and leader roles of chapters, committees and projects;
//! the repositories linked to chapters and committees (committee counts, top
//! contributors); blog posts, project health metrics, member badges, contact
//! addresses, the chat workspace count, repository labels on issues.

use super::*;

/// The channels of an entity as the API shows them.
fn channels(conn: &rusqlite::Connection, kind: &str, id: i64) -> Value {
    let list: Vec<Value> = rows(
        conn,
        "SELECT platform, name, external_id FROM channels WHERE entity_kind = ?1 \
         AND entity_id = ?2 ORDER BY position",
        rusqlite::params![kind, id],
    )
    .into_iter()
    .map(|r| json!({"platform": r[0], "name": r[1], "externalId": r[2]}))
    .collect();
    json!(list)
}

fn urls(conn: &rusqlite::Connection, kind: &str, id: i64) -> Value {
    json!(strings(
        conn,
        "SELECT url FROM related_urls WHERE entity_kind = ?1 AND entity_id = ?2 ORDER BY position",
        rusqlite::params![kind, id],
    ))
}

fn leaders(conn: &rusqlite::Connection, kind: &str, id: i64) -> Value {
    let list: Vec<Value> = rows(
        conn,
        "SELECT name, description FROM leaders WHERE entity_kind = ?1 AND entity_id = ?2 \
         ORDER BY position",
        rusqlite::params![kind, id],
    )
    .into_iter()
    .map(|r| json!({"memberName": r[0], "description": r[1]}))
    .collect();
    json!(list)
}

/// Top contributors over the repositories of `link` (`?1` the entity id).
fn linked_top(conn: &rusqlite::Connection, link: &str, column: &str, id: i64) -> Value {
    let list: Vec<Value> = rows(
        conn,
        &format!(
            "SELECT m.login, SUM(rc.contributions_count) AS n FROM {link} l \
             JOIN repository_contributors rc ON rc.repository_id = l.repository_id \
             JOIN members m ON m.id = rc.member_id WHERE l.{column} = ?1 \
             GROUP BY m.id ORDER BY n DESC, m.login_lc, m.id LIMIT 5"
        ),
        [id],
    )
    .into_iter()
    .map(|r| json!({"login": r[0], "contributionsCount": r[1]}))
    .collect();
    json!(list)
}

#[tokio::test]
async fn chapter_channels_links_leaders_and_contributors() {
    let app = app();
    let conn = app.sql();
    // The active chapter with linked repositories, channels, links and most leaders.
    let row = &rows(
        &conn,
        "SELECT c.id, c.key, c.suggested_location FROM chapters c WHERE c.is_active = 1 \
         AND EXISTS (SELECT 1 FROM chapter_repositories WHERE chapter_id = c.id) \
         AND EXISTS (SELECT 1 FROM channels WHERE entity_kind = 'chapter' AND entity_id = c.id) \
         AND EXISTS (SELECT 1 FROM related_urls WHERE entity_kind = 'chapter' AND entity_id = c.id) \
         ORDER BY (SELECT COUNT(*) FROM leaders WHERE entity_kind = 'chapter' AND entity_id = c.id) \
         DESC, c.id LIMIT 1",
        [],
    )[0];
    let (id, key) = (row[0].as_i64().unwrap(), row[1].as_str().unwrap());
    let q = "query($k: String!) {
        chapter(key: $k) { suggestedLocation relatedUrls
            entityChannels { platform name externalId }
            entityLeaders { memberName description }
            topContributors(limit: 5) { login contributionsCount } }
        topContributors(limit: 5, chapter: $k) { login contributionsCount } }";
    let short = key.strip_prefix("www-chapter-").unwrap().to_uppercase();
    let data = app.data(q, json!({"k": short})).await;
    let top = linked_top(&conn, "chapter_repositories", "chapter_id", id);
    assert!(!top.as_array().unwrap().is_empty());
    assert_eq!(
        data["chapter"],
        json!({
            "suggestedLocation": row[2],
            "relatedUrls": urls(&conn, "chapter", id),
            "entityChannels": channels(&conn, "chapter", id),
            "entityLeaders": leaders(&conn, "chapter", id),
            "topContributors": top,
        })
    );
    assert_eq!(data["topContributors"], top);
    assert!(!data["chapter"]["relatedUrls"]
        .as_array()
        .unwrap()
        .is_empty());
    assert!(!data["chapter"]["entityChannels"]
        .as_array()
        .unwrap()
        .is_empty());

    // A chapter without linked repositories has no contributors; a chapter key that
    // names nothing gives [] at the root.
    let lonely = strings(
        &conn,
        "SELECT key FROM chapters c WHERE is_active = 1 AND NOT EXISTS \
         (SELECT 1 FROM chapter_repositories WHERE chapter_id = c.id) ORDER BY id LIMIT 1",
        [],
    )[0]
    .clone();
    let data = app.data(q, json!({"k": lonely})).await;
    assert_eq!(data["chapter"]["topContributors"], json!([]));
    assert_eq!(data["topContributors"], json!([]));
    let data = app
        .data(
            "{ topContributors(chapter: \"no-such-chapter\") { login } }",
            json!({}),
        )
        .await;
    assert_eq!(data["topContributors"], json!([]));
}

#[tokio::test]
async fn committee_counts_over_linked_repositories() {
    let app = app();
    let conn = app.sql();
    let q = "query($k: String!) {
        committee(key: $k) { contributorsCount forksCount issuesCount repositoriesCount
            starsCount relatedUrls entityChannels { platform name externalId }
            entityLeaders { memberName description }
            topContributors(limit: 5) { login contributionsCount } }
        topContributors(limit: 5, committee: $k) { login contributionsCount } }";
    let committees = rows(
        &conn,
        "SELECT id, key FROM committees WHERE is_active = 1 ORDER BY id",
        [],
    );
    let mut linked = 0;
    for row in &committees {
        let (id, key) = (row[0].as_i64().unwrap(), row[1].as_str().unwrap());
        let sums = &rows(
            &conn,
            "SELECT COALESCE(SUM(r.contributors_count), 0), COALESCE(SUM(r.forks_count), 0), \
                (SELECT COUNT(*) FROM issues i JOIN committee_repositories c2 \
                   ON c2.repository_id = i.repository_id WHERE c2.committee_id = ?1), \
                COUNT(r.id), COALESCE(SUM(r.stars_count), 0) \
             FROM committee_repositories cr JOIN repositories r ON r.id = cr.repository_id \
             WHERE cr.committee_id = ?1",
            [id],
        )[0];
        if sums[3].as_i64().unwrap() > 0 {
            linked += 1;
        }
        let top = linked_top(&conn, "committee_repositories", "committee_id", id);
        let data = app.data(q, json!({"k": key})).await;
        assert_eq!(
            data["committee"],
            json!({
                "contributorsCount": sums[0], "forksCount": sums[1], "issuesCount": sums[2],
                "repositoriesCount": sums[3], "starsCount": sums[4],
                "relatedUrls": urls(&conn, "committee", id),
                "entityChannels": channels(&conn, "committee", id),
                "entityLeaders": leaders(&conn, "committee", id),
                "topContributors": top,
            }),
            "{key}"
        );
        assert_eq!(data["topContributors"], top, "{key}");
    }
    assert!(linked >= 2 && linked < committees.len(), "{linked}");
}

#[tokio::test]
async fn project_health_metrics_channels_and_links() {
    let app = app();
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT p.id, p.key FROM projects p JOIN project_health_metrics h ON h.project_id = p.id \
         WHERE p.is_active = 1 AND EXISTS (SELECT 1 FROM channels WHERE entity_kind = 'project' \
           AND entity_id = p.id) \
         GROUP BY p.id ORDER BY COUNT(*) DESC, p.id LIMIT 1",
        [],
    )[0];
    let (id, key) = (row[0].as_i64().unwrap(), row[1].as_str().unwrap());
    let metrics: Vec<Value> = rows(
        &conn,
        "SELECT created_at, score, stars_count, forks_count, open_issues_count, \
            open_pull_requests_count, unanswered_issues_count, unassigned_issues_count, \
            last_commit_days, last_commit_days_requirement, last_release_days, \
            last_release_days_requirement FROM project_health_metrics WHERE project_id = ?1 \
         ORDER BY created_at DESC LIMIT 3",
        [id],
    )
    .into_iter()
    .map(|r| {
        json!({"createdAt": ts(r[0].as_i64().unwrap()), "score": r[1], "starsCount": r[2],
            "forksCount": r[3], "openIssuesCount": r[4], "openPullRequestsCount": r[5],
            "unansweredIssuesCount": r[6], "unassignedIssuesCount": r[7],
            "lastCommitDays": r[8], "lastCommitDaysRequirement": r[9],
            "lastReleaseDays": r[10], "lastReleaseDaysRequirement": r[11]})
    })
    .collect();
    assert_eq!(metrics.len(), 3);
    let q = "query($k: String!, $n: Int) { project(key: $k) {
        healthMetricsList(limit: $n) { createdAt score starsCount forksCount openIssuesCount
            openPullRequestsCount unansweredIssuesCount unassignedIssuesCount lastCommitDays
            lastCommitDaysRequirement lastReleaseDays lastReleaseDaysRequirement }
        relatedUrls entityChannels { platform name externalId }
        entityLeaders { memberName description } } }";
    let data = app.data(q, json!({"k": key, "n": 3})).await;
    assert_eq!(
        data["project"],
        json!({
            "healthMetricsList": metrics,
            "relatedUrls": urls(&conn, "project", id),
            "entityChannels": channels(&conn, "project", id),
            "entityLeaders": leaders(&conn, "project", id),
        })
    );
    // The default is 30 (or all of them), 0 gives [].
    let all = int(
        &conn,
        "SELECT COUNT(*) FROM project_health_metrics WHERE project_id = ?1",
        [id],
    );
    let data = app.data(q, json!({"k": key})).await;
    let n = data["project"]["healthMetricsList"]
        .as_array()
        .unwrap()
        .len() as i64;
    assert_eq!(n, all.min(30));
    let data = app.data(q, json!({"k": key, "n": 0})).await;
    assert_eq!(data["project"]["healthMetricsList"], json!([]));
}

#[tokio::test]
async fn recent_posts_newest_first() {
    let app = app();
    let conn = app.sql();
    let expected: Vec<Value> = rows(
        &conn,
        "SELECT title, url, author_name, author_image_url, published_at FROM posts \
         ORDER BY published_at DESC, id DESC",
        [],
    )
    .into_iter()
    .map(|r| {
        json!({"title": r[0], "url": r[1], "authorName": r[2], "authorImageUrl": r[3],
            "publishedAt": ts(r[4].as_i64().unwrap())})
    })
    .collect();
    let q = "query($n: Int) { recentPosts(limit: $n) { title url authorName authorImageUrl
        publishedAt } }";
    let data = app.data(q, json!({})).await;
    assert_eq!(data["recentPosts"], json!(expected[..5]));
    let data = app.data(q, json!({"n": 1000})).await;
    assert_eq!(data["recentPosts"], json!(expected));
    let data = app.data(q, json!({"n": -1})).await;
    assert_eq!(data["recentPosts"], json!([]));
}

#[tokio::test]
async fn user_badges_and_contact_addresses() {
    let app = app();
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT m.id, m.login, m.email FROM members m JOIN member_badges mb ON mb.member_id = m.id \
         WHERE m.email != '' GROUP BY m.id ORDER BY COUNT(*) DESC, m.id LIMIT 1",
        [],
    )[0];
    let badges: Vec<Value> = rows(
        &conn,
        "SELECT b.name, b.description, b.css_class, b.weight FROM member_badges mb \
         JOIN badges b ON b.id = mb.badge_id WHERE mb.member_id = ?1 \
         ORDER BY b.weight, b.name_lc, b.id",
        [row[0].as_i64().unwrap()],
    )
    .into_iter()
    .map(|r| json!({"name": r[0], "description": r[1], "cssClass": r[2], "weight": r[3]}))
    .collect();
    assert!(badges.len() >= 2);
    let q = "query($l: String!) { user(login: $l) { email
        badges { name description cssClass weight } } }";
    let data = app.data(q, json!({"l": row[1]})).await;
    assert_eq!(data["user"], json!({"email": row[2], "badges": badges}));
    // Without badges: [].
    let plain = strings(
        &conn,
        "SELECT login FROM members m WHERE NOT EXISTS \
         (SELECT 1 FROM member_badges WHERE member_id = m.id) ORDER BY id LIMIT 1",
        [],
    )[0]
    .clone();
    let data = app.data(q, json!({"l": plain})).await;
    assert_eq!(data["user"]["badges"], json!([]));

    let org = &rows(
        &conn,
        "SELECT login, email, collaborators_count FROM organizations WHERE is_affiliated = 1 \
         AND email != '' ORDER BY id LIMIT 1",
        [],
    )[0];
    let data = app
        .data(
            "query($o: String!) { organization(login: $o) { email collaboratorsCount } }",
            json!({"o": org[0]}),
        )
        .await;
    assert_eq!(
        data["organization"],
        json!({"email": org[1], "collaboratorsCount": org[2]})
    );
}

#[tokio::test]
async fn slack_workspace_size_and_repository_size() {
    let app = app();
    let conn = app.sql();
    let data = app
        .data(
            "{ statsOverview { slackWorkspaceStats }
               repository(organizationKey: \"juice-labs\", repositoryKey: \"juice-shop\") { size } \
               empty: repository(organizationKey: \"vuln-research-collective\", repositoryKey: \"scratch\") { size } }",
            json!({}),
        )
        .await;
    assert_eq!(
        data["statsOverview"]["slackWorkspaceStats"],
        json!(int(
            &conn,
            "SELECT slack_workspace_members FROM community",
            []
        ))
    );
    // The repository's size in kilobytes, from its record; null where it gives none.
    let size = int(
        &conn,
        "SELECT size FROM repositories WHERE name = 'juice-shop'",
        [],
    );
    assert!(size > 0);
    assert_eq!(data["repository"], json!({"size": size}));
    assert_eq!(data["empty"], json!({"size": null}));
}

#[tokio::test]
async fn issue_labels_are_the_repository_labels() {
    let app = app();
    let conn = app.sql();
    // An issue with a label of its own repository whose name is also a shared label
    // or another repository's: the issue shows its repository's label.
    let row = &rows(
        &conn,
        "SELECT o.login, r.name, i.number, l.name FROM issues i \
         JOIN issue_labels il ON il.issue_id = i.id JOIN labels l ON l.id = il.label_id \
         JOIN repositories r ON r.id = i.repository_id \
         JOIN organizations o ON o.id = r.organization_id \
         WHERE l.repository_id = i.repository_id AND EXISTS (SELECT 1 FROM labels l2 \
           WHERE l2.name_lc = l.name_lc AND l2.id != l.id) \
         ORDER BY i.id LIMIT 1",
        [],
    )[0];
    let q = "query($o: String!) { recentIssues(limit: 1000, organization: $o) {
        repositoryName number labels } }";
    let data = app.data(q, json!({"o": row[0]})).await;
    let issue = data["recentIssues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["repositoryName"] == row[1] && i["number"] == row[2])
        .unwrap()
        .clone();
    let expected = strings(
        &conn,
        "SELECT l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id \
         JOIN issues i ON i.id = il.issue_id JOIN repositories r ON r.id = i.repository_id \
         WHERE r.name = ?1 AND i.number = ?2 ORDER BY il.position",
        rusqlite::params![row[1].as_str().unwrap(), row[2].as_i64().unwrap()],
    );
    assert!(expected.contains(&row[3].as_str().unwrap().to_string()));
    assert_eq!(issue["labels"], json!(expected));
}
