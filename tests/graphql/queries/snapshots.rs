//! `snapshot(key)` and `snapshots`.

use super::*;

#[tokio::test]
async fn snapshot_and_snapshots() {
    let app = app();
    let conn = app.sql();
    let completed = strings(
        &conn,
        "SELECT key FROM snapshots WHERE status = 'completed' ORDER BY created_at DESC, id DESC",
        [],
    );
    let data = app.data("{ snapshots { key } }", json!({})).await;
    assert_eq!(pluck(&data["snapshots"], "key"), completed);
    let data = app.data("{ snapshots(limit: 2) { key } }", json!({})).await;
    assert_eq!(pluck(&data["snapshots"], "key"), completed[..2].to_vec());

    // The completed snapshot with the most new records.
    let row = &rows(
        &conn,
        "SELECT s.id, s.key, s.title, s.start_at, s.end_at, s.created_at, s.updated_at \
         FROM snapshots s WHERE s.status = 'completed' ORDER BY \
         (SELECT COUNT(*) FROM snapshot_issues i WHERE i.snapshot_id = s.id) + \
         (SELECT COUNT(*) FROM snapshot_members i WHERE i.snapshot_id = s.id) DESC, s.id LIMIT 1",
        [],
    )[0];
    let id = row[0].as_i64().unwrap();
    let chapters = strings(
        &conn,
        "SELECT substr(c.key, 13) FROM snapshot_chapters s JOIN chapters c ON c.id = s.chapter_id \
         WHERE s.snapshot_id = ?1 AND c.is_active = 1 ORDER BY c.created_at DESC, c.id DESC",
        [id],
    );
    let projects = strings(
        &conn,
        "SELECT substr(p.key, 13) FROM snapshot_projects s JOIN projects p ON p.id = s.project_id \
         WHERE s.snapshot_id = ?1 AND p.is_active = 1 ORDER BY p.created_at DESC, p.id DESC",
        [id],
    );
    let issues = strings(
        &conn,
        "SELECT i.title FROM snapshot_issues s JOIN issues i ON i.id = s.issue_id \
         WHERE s.snapshot_id = ?1 ORDER BY i.created_at DESC, i.id DESC LIMIT 100",
        [id],
    );
    let releases = strings(
        &conn,
        "SELECT x.tag_name FROM snapshot_releases s JOIN releases x ON x.id = s.release_id \
         WHERE s.snapshot_id = ?1 AND x.published_at IS NOT NULL ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC",
        [id],
    );
    let users = strings(
        &conn,
        "SELECT m.login FROM snapshot_members s JOIN members m ON m.id = s.member_id \
         WHERE s.snapshot_id = ?1 ORDER BY m.created_at DESC, m.id DESC",
        [id],
    );
    let data = app
        .data(
            "query($k: String!) { snapshot(key: $k) { key title startAt endAt createdAt updatedAt \
               newChaptersCount newIssuesCount newProjectsCount newReleasesCount newUsersCount \
               newChapters { key } newIssues { title } newProjects { key } \
               newReleases { tagName } newUsers { login } } }",
            json!({"k": row[1]}),
        )
        .await;
    let s = &data["snapshot"];
    assert_eq!(s["key"], row[1]);
    assert_eq!(s["title"], row[2]);
    assert_eq!(s["startAt"], json!(ts(row[3].as_i64().unwrap())));
    assert_eq!(s["endAt"], json!(ts(row[4].as_i64().unwrap())));
    assert_eq!(s["createdAt"], json!(ts(row[5].as_i64().unwrap())));
    assert_eq!(s["updatedAt"], json!(ts(row[6].as_i64().unwrap())));
    assert_eq!(pluck(&s["newChapters"], "key"), chapters);
    assert_eq!(pluck(&s["newProjects"], "key"), projects);
    assert_eq!(pluck(&s["newIssues"], "title"), issues);
    assert_eq!(pluck(&s["newReleases"], "tagName"), releases);
    assert_eq!(pluck(&s["newUsers"], "login"), users);
    assert_eq!(s["newChaptersCount"], json!(chapters.len()));
    assert_eq!(s["newProjectsCount"], json!(projects.len()));
    assert_eq!(s["newReleasesCount"], json!(releases.len()));
    assert_eq!(s["newUsersCount"], json!(users.len()));
    assert_eq!(
        s["newIssuesCount"],
        json!(int(
            &conn,
            "SELECT COUNT(*) FROM snapshot_issues WHERE snapshot_id = ?1",
            [id]
        ))
    );
    assert!(!issues.is_empty() && !users.is_empty());

    let other = strings(
        &conn,
        "SELECT key FROM snapshots WHERE status != 'completed'",
        [],
    );
    let data = app
        .data(
            "query($k: String!) { snapshot(key: $k) { key } }",
            json!({"k": other[0]}),
        )
        .await;
    assert_eq!(data["snapshot"], Value::Null);
}

/// A snapshot's `newReleases` and `newUsers` are written without async-graphql's
/// per-field resolution when they ask only for plain fields (src/graphql/plain.rs).
/// A fragment anywhere in the selection sends the list through async-graphql's own
/// resolution: both must answer the same bytes, for every plain field, with aliases,
/// in any field order and with `@skip` and `@include` (which async-graphql applies
/// before either path runs).
#[tokio::test]
async fn plain_lists_answer_the_bytes_resolved_lists_do() {
    let app = app();
    let release = "id tagName name description url isPreRelease organizationName \
                   repositoryName projectName publishedAt createdAt";
    let user = "id login name avatarUrl url bio company location title twitterUsername \
                followersCount followingCount publicRepositoriesCount createdAt updatedAt email";
    let cases = [
        // Every plain field, the author read with the release.
        (
            format!("newReleases {{ {release} author {{ {user} }} }} newUsers {{ {user} }}"),
            format!(
                "newReleases {{ {release} author {{ ... on User {{ {user} }} }} }} \
                 newUsers {{ ... on User {{ {user} }} }}"
            ),
        ),
        // Aliases, another order, skipped fields.
        (
            "newReleases { when: publishedAt author { handle: login id } tag: tagName id \
             name @skip(if: true) } \
             newUsers { created: createdAt login @include(if: true) name @include(if: false) }"
                .to_string(),
            "newReleases { ... on Release { when: publishedAt author { handle: login id } \
             tag: tagName id } } newUsers { created: createdAt ... { login } }"
                .to_string(),
        ),
        // The snapshot page's releases: read as summaries (no description, url or
        // creation time) with their authors' cards.
        (
            "newReleases { id name organizationName projectName publishedAt repositoryName \
             tagName isPreRelease author { avatarUrl id login name } }"
                .to_string(),
            "newReleases { ... on Release { id name organizationName projectName publishedAt \
             repositoryName tagName isPreRelease author { avatarUrl id login name } } }"
                .to_string(),
        ),
        // A key selected twice anywhere in the operation: async-graphql merges the
        // two lists object by object, so neither is written directly.
        (
            "newReleases { tagName author { login } } newReleases { name author { id } }"
                .to_string(),
            "newReleases { ... on Release { tagName author { login id } name } }".to_string(),
        ),
        // Authors asked for their cards only are read as cards (four columns); a
        // fragment may ask for more, and they are read whole.
        (
            "newReleases { tagName author { login avatarUrl } } \
             more: newReleases { tagName author { login ... on User { bio email } } }"
                .to_string(),
            "newReleases { ... on Release { tagName author { login avatarUrl } } } \
             more: newReleases { ... on Release { tagName author { login bio email } } }"
                .to_string(),
        ),
    ];
    let keys = strings(
        &app.sql(),
        "SELECT key FROM snapshots WHERE status = 'completed'",
        [],
    );
    for (direct, resolved) in cases {
        let (mut releases, mut authors, mut users) = (0, 0, 0);
        for key in &keys {
            let ask =
                |fields: &str| format!("{{ snapshot(key: {}) {{ key {fields} }} }}", json!(key));
            let direct = app.post(&ask(&direct), json!({})).await;
            let resolved = app.post(&ask(&resolved), json!({})).await;
            assert_eq!(direct.status.as_u16(), 200, "{}", direct.text());
            assert_eq!(direct.text(), resolved.text());
            let body = direct.json();
            assert!(body.get("errors").is_none(), "{body}");
            let snapshot = &body["data"]["snapshot"];
            let new_releases = snapshot["newReleases"].as_array().unwrap();
            releases += new_releases.len();
            authors += new_releases
                .iter()
                .filter(|r| r["author"].is_object())
                .count();
            users += snapshot["newUsers"].as_array().map_or(0, Vec::len);
        }
        // Enough of the sample to mean something: releases, some with an author,
        // and new members where they are asked for.
        assert!(releases >= 5, "{releases} releases");
        assert!(authors >= 1, "{authors} authors");
        assert!(
            users >= 3 || !direct.contains("newUsers"),
            "{users} members"
        );
    }
}

/// A snapshot's `newReleases` asking only for what a release summary holds, under the
/// fields' own names, are written as JSON straight from their rows
/// (src/graphql/rows.rs): the same bytes as async-graphql's resolution of the same
/// selection (behind a fragment), in any field order, for subsets, for two lists of
/// one snapshot with different selections (one load of two plans), and for every
/// snapshot of a list at once (one statement for all of them).
#[tokio::test]
async fn release_rows_answer_the_bytes_records_do() {
    let app = app();
    let page = "id name organizationName projectName publishedAt repositoryName tagName \
                author { avatarUrl id login name }";
    let selections = [
        page,
        "author { name login avatarUrl id } isPreRelease tagName publishedAt projectName \
         repositoryName organizationName name id",
        "id",
        "author { id }",
        "publishedAt isPreRelease",
        "projectName author { login }",
    ];
    let keys = strings(
        &app.sql(),
        "SELECT key FROM snapshots WHERE status = 'completed'",
        [],
    );
    let fragment = |fields: &str| format!("... on Release {{ {fields} }}");
    let compare = |direct: String, resolved: String| {
        let app = &app;
        async move {
            let direct = app.post(&direct, json!({})).await;
            let resolved = app.post(&resolved, json!({})).await;
            assert_eq!(direct.status.as_u16(), 200, "{}", direct.text());
            assert!(direct.json().get("errors").is_none(), "{}", direct.text());
            assert_eq!(direct.text(), resolved.text());
            direct.json()
        }
    };
    let (mut releases, mut authors, mut without) = (0, 0, 0);
    for fields in selections {
        for key in &keys {
            let ask = |fields: &str| {
                format!(
                    "{{ snapshot(key: {}) {{ key newReleases {{ {fields} }} }} }}",
                    json!(key)
                )
            };
            let body = compare(ask(fields), ask(&fragment(fields))).await;
            let list = body["data"]["snapshot"]["newReleases"].as_array().unwrap();
            if fields == page {
                releases += list.len();
                authors += list.iter().filter(|r| r["author"].is_object()).count();
                without += list.iter().filter(|r| r["author"].is_null()).count();
            }
        }
        // Every snapshot's releases in one load.
        let ask = |fields: &str| format!("{{ snapshots {{ key newReleases {{ {fields} }} }} }}");
        compare(ask(fields), ask(&fragment(fields))).await;
    }
    // Two selections of one snapshot's releases: two plans in one load.
    for key in &keys {
        let ask = |a: &str, b: &str| {
            format!(
                "{{ snapshot(key: {}) {{ a: newReleases {{ {a} }} b: newReleases {{ {b} }} }} }}",
                json!(key)
            )
        };
        compare(
            ask("tagName id", "author { login } name"),
            ask(&fragment("tagName id"), &fragment("author { login } name")),
        )
        .await;
    }
    // Enough of the sample to mean something: releases with and without an author.
    assert!(releases >= 5, "{releases} releases");
    assert!(authors >= 1, "{authors} authors");
    assert!(without >= 1, "{without} releases without an author");
}

/// The id and key of the completed snapshot with the most releases.
fn busiest_completed_snapshot(conn: &rusqlite::Connection) -> (i64, String) {
    conn.query_row(
        "SELECT s.id, s.key FROM snapshots s WHERE s.status = 'completed' \
         ORDER BY (SELECT COUNT(*) FROM snapshot_releases l WHERE l.snapshot_id = s.id) \
         DESC, s.id LIMIT 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

/// A release whose repository row is missing, or whose repository's organization row
/// is missing, is left out of a month's new releases, as the records' joins leave it
/// out, and a release whose author's row is missing has no author: the rows path
/// (which takes the repository's texts and the author's card from the kept facts,
/// not from joins) answers the same bytes as async-graphql's resolution.
#[tokio::test]
async fn new_releases_of_missing_repositories_and_authors() {
    let Sample { dir, db } = Sample::new();
    let conn = rusqlite::Connection::open(&db).unwrap();
    // Rows the dataset's constraints would refuse: what the joins are there for.
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    // The completed snapshot with the most releases; of its releases' repositories,
    // one is deleted and one moved to an organization that does not exist.
    let (snapshot, key) = busiest_completed_snapshot(&conn);
    let repositories = |conn: &rusqlite::Connection| -> Vec<i64> {
        let mut st = conn
            .prepare(
                "SELECT DISTINCT t.repository_id FROM snapshot_releases l \
                 JOIN releases t ON t.id = l.release_id \
                 WHERE l.snapshot_id = ?1 AND t.published_at IS NOT NULL \
                 ORDER BY t.repository_id",
            )
            .unwrap();
        st.query_map([snapshot], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let before = repositories(&conn);
    assert!(before.len() >= 3, "{before:?}");
    let (gone, orphan) = (before[0], before[1]);
    conn.execute("DELETE FROM repositories WHERE id = ?1", [gone])
        .unwrap();
    conn.execute(
        "UPDATE repositories SET organization_id = \
         (SELECT MAX(id) + 1 FROM organizations) WHERE id = ?1",
        [orphan],
    )
    .unwrap();
    let anonymous: i64 = conn
        .query_row(
            "SELECT t.id FROM snapshot_releases l JOIN releases t ON t.id = l.release_id \
             WHERE l.snapshot_id = ?1 AND t.published_at IS NOT NULL \
             AND t.author_id IS NOT NULL AND t.repository_id NOT IN (?2, ?3) \
             ORDER BY t.id LIMIT 1",
            [snapshot, gone, orphan],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "UPDATE releases SET author_id = (SELECT MAX(id) + 1 FROM members) WHERE id = ?1",
        [anonymous],
    )
    .unwrap();
    drop(conn);
    let app = App::over(dir, db, Env::Local, Default::default());
    let page = "id name organizationName projectName publishedAt repositoryName tagName \
                author { avatarUrl id login name }";
    let ask = |fields: &str| {
        format!(
            "{{ snapshot(key: {}) {{ newReleases {{ {fields} }} }} }}",
            json!(key)
        )
    };
    for fields in [page, "tagName", "projectName author { login }"] {
        let direct = app.post(&ask(fields), json!({})).await;
        let resolved = app
            .post(&ask(&format!("... on Release {{ {fields} }}")), json!({}))
            .await;
        assert!(direct.json().get("errors").is_none(), "{}", direct.text());
        assert_eq!(direct.text(), resolved.text());
    }
    // What is left: every release of the other repositories, none of the two, and
    // the release of the missing author without one.
    let data = app.data(&ask("tagName author { login }"), json!({})).await;
    let list = data["snapshot"]["newReleases"].as_array().unwrap();
    let tag: String = app
        .sql()
        .query_row(
            "SELECT tag_name FROM releases WHERE id = ?1",
            [anonymous],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        list.iter()
            .any(|r| r["tagName"] == json!(tag) && r["author"].is_null()),
        "{data}"
    );
    let expected: i64 = app
        .sql()
        .query_row(
            "SELECT COUNT(*) FROM snapshot_releases l JOIN releases t ON t.id = l.release_id \
             WHERE l.snapshot_id = ?1 AND t.published_at IS NOT NULL \
             AND t.repository_id NOT IN (?2, ?3)",
            [snapshot, gone, orphan],
            |r| r.get(0),
        )
        .unwrap();
    assert!(expected >= 1);
    assert_eq!(list.len() as i64, expected, "{data}");
}

/// A release author's login, name or avatar URL, or a repository's name, that cannot
/// be read as a `String` (text that is not UTF-8, or a value that is not text): the
/// rows path (which takes them from the kept facts) answers the bytes async-graphql's
/// resolution answers, the error included, for each selection: the list fails
/// whatever is selected, as reading the row does.
#[tokio::test]
async fn new_releases_whose_texts_cannot_be_read() {
    let cases = [
        ("members", "name", "CAST(x'4142ff' AS TEXT)"),
        ("members", "login", "CAST(x'61c3' AS TEXT)"),
        ("members", "avatar_url", "x'41'"),
        ("repositories", "name", "CAST(x'72ff' AS TEXT)"),
    ];
    let selections = [
        "tagName",
        "tagName author { name }",
        "author { login }",
        "author { id }",
        "author { avatarUrl }",
        "repositoryName projectName",
        "id",
    ];
    for (table, column, value) in cases {
        let Sample { dir, db } = Sample::new();
        let conn = rusqlite::Connection::open(&db).unwrap();
        let (snapshot, key) = busiest_completed_snapshot(&conn);
        let target = if table == "members" {
            "author_id"
        } else {
            "repository_id"
        };
        let id: i64 = conn
            .query_row(
                &format!(
                    "SELECT t.{target} FROM snapshot_releases l \
                     JOIN releases t ON t.id = l.release_id \
                     WHERE l.snapshot_id = ?1 AND t.published_at IS NOT NULL \
                     AND t.author_id IS NOT NULL ORDER BY t.id LIMIT 1"
                ),
                [snapshot],
                |r| r.get(0),
            )
            .unwrap();
        let changed = conn
            .execute(
                &format!("UPDATE {table} SET {column} = {value} WHERE id = ?1"),
                [id],
            )
            .unwrap();
        assert_eq!(changed, 1);
        drop(conn);
        let app = App::over(dir, db, Env::Local, Default::default());
        let ask = |fields: &str| {
            format!(
                "{{ snapshot(key: {}) {{ newReleases {{ {fields} }} }} }}",
                json!(key)
            )
        };
        let mut failed = Vec::new();
        for fields in selections {
            let direct = app.post(&ask(fields), json!({})).await;
            let resolved = app
                .post(&ask(&format!("... on Release {{ {fields} }}")), json!({}))
                .await;
            assert_eq!(direct.text(), resolved.text(), "{table}.{column}: {fields}");
            if direct.json().get("errors").is_some() {
                failed.push(fields);
            }
        }
        // Reading the row fails whatever is selected.
        assert_eq!(failed, selections, "{table}.{column}");
    }
}

/// The root lists written without async-graphql's per-field resolution (sponsors,
/// upcoming events, blog posts, contributors, recent releases with their authors'
/// cards) answer the bytes the same lists answer through it (a fragment sends a list
/// through async-graphql), with every plain field, aliases and `@skip`.
#[tokio::test]
async fn plain_root_lists_answer_the_bytes_resolved_lists_do() {
    let app = app();
    let sponsor = "id key name sponsorType isMember memberType imageUrl url jobUrl description";
    let event = "id key name category startDate endDate url description summary \
                 suggestedLocation latitude longitude";
    let post = "id title url authorName authorImageUrl publishedAt createdAt updatedAt";
    let contributor = "id login name avatarUrl contributionsCount projectKey projectName";
    let release = "id tagName name description url isPreRelease organizationName \
                   repositoryName projectName publishedAt createdAt";
    let card = "id login name avatarUrl";
    let repository = "id key name description url commitsCount contributorsCount forksCount \
                      openIssuesCount starsCount subscribersCount isArchived license createdAt \
                      updatedAt";
    // The member with the most repositories, some of organizations the API does not
    // expose (their `organization` is null).
    let member = strings(
        &app.sql(),
        "SELECT m.login FROM members m JOIN repository_contributors rc ON rc.member_id = m.id \
         JOIN repositories r ON r.id = rc.repository_id \
         JOIN organizations o ON o.id = r.organization_id \
         GROUP BY m.id ORDER BY COUNT(*) + 10 * MAX(o.is_affiliated = 0) DESC, m.id LIMIT 1",
        [],
    );
    let project = strings(
        &app.sql(),
        "SELECT substr(key, 13) FROM projects WHERE is_active = 1 ORDER BY id LIMIT 1",
        [],
    );
    let lists = [
        format!("sponsors {{ {sponsor} }}"),
        format!("upcomingEvents(limit: 50) {{ {event} }}"),
        format!("recentPosts(limit: 50) {{ {post} }}"),
        format!("topContributors(limit: 50) {{ {contributor} }}"),
        format!(
            "topContributors(project: {}, limit: 50) {{ {contributor} }}",
            json!(project[0])
        ),
        format!("recentReleases(limit: 50) {{ {release} author {{ {card} }} }}"),
        format!("recentReleases(limit: 20, distinct: true) {{ {release} author {{ {card} }} }}"),
        "sponsors { who: name name @skip(if: true) kind: sponsorType }".to_string(),
        "recentReleases(limit: 9) { when: publishedAt author { handle: login } tag: tagName }"
            .to_string(),
        format!(
            "topContributedRepositories(login: {}) {{ {repository} organization {{ {card} }} }}",
            json!(member[0])
        ),
        format!(
            "topContributedRepositories(login: {}) {{ stars: starsCount \
             organization {{ handle: login }} key }}",
            json!(member[0].to_uppercase())
        ),
    ];
    for list in lists {
        let (head, fields) = list.split_once(" {").unwrap();
        let fields = fields.strip_suffix('}').unwrap();
        let resolved = format!("{{ {head} {{ ... {{ {fields} }} }} }}");
        let direct = app.post(&format!("{{ {list} }}"), json!({})).await;
        let resolved = app.post(&resolved, json!({})).await;
        assert_eq!(direct.status.as_u16(), 200, "{}", direct.text());
        assert_eq!(direct.text(), resolved.text(), "{list}");
        let body = direct.json();
        assert!(body.get("errors").is_none(), "{body}");
        let items = body["data"].as_object().unwrap().values().next().unwrap();
        assert!(
            items.as_array().is_some_and(|items| !items.is_empty()),
            "{list}: {body}"
        );
    }
}

/// A project's repositories with their organizations' cards (read in the list's
/// statement) and its health measurements, written directly, answer the bytes the
/// resolved lists (each organization loaded) do.
#[tokio::test]
async fn plain_project_repositories_answer_the_bytes_resolved_lists_do() {
    let app = app();
    let projects = strings(
        &app.sql(),
        "SELECT substr(p.key, 13) FROM projects p WHERE p.is_active = 1 \
         ORDER BY (SELECT COUNT(*) FROM project_repositories pr WHERE pr.project_id = p.id) \
           * (SELECT COUNT(*) FROM project_health_metrics h WHERE h.project_id = p.id) DESC, \
           p.id LIMIT 3",
        [],
    );
    assert!(!projects.is_empty());
    let repository = "id key name description url commitsCount contributorsCount forksCount \
                      openIssuesCount starsCount subscribersCount isArchived license createdAt \
                      updatedAt organization { id login name avatarUrl }";
    let health = "id createdAt projectKey projectName score starsCount forksCount \
                  contributorsCount openIssuesCount openPullRequestsCount \
                  unansweredIssuesCount unassignedIssuesCount totalIssuesCount \
                  recentReleasesCount totalReleasesCount isFundingRequirementsCompliant \
                  isLeaderRequirementsCompliant ageDays ageDaysRequirement lastCommitDays \
                  lastCommitDaysRequirement lastPullRequestDays lastPullRequestDaysRequirement \
                  lastReleaseDays lastReleaseDaysRequirement owaspPageLastUpdateDays \
                  owaspPageLastUpdateDaysRequirement";
    let (mut repositories, mut measurements) = (0, 0);
    for project in &projects {
        let ask = |list: &str, fields: &str| {
            format!(
                "{{ project(key: {}) {{ key {list} {{ {fields} }} }} }}",
                json!(project)
            )
        };
        for (list, kind, fields) in [
            ("repositories", "Repository", repository),
            (
                "healthMetricsList(limit: 30)",
                "ProjectHealthMetrics",
                health,
            ),
            // With the authors' cards, read in the lists' statements.
            (
                "recentReleases",
                "Release",
                "id author { id avatarUrl login name } name organizationName publishedAt \
                 repositoryName tagName url",
            ),
            (
                "recentPullRequests",
                "PullRequest",
                "id author { id avatarUrl login name } createdAt organizationName \
                 repositoryName title url",
            ),
            // The project page's: read as summaries.
            (
                "repositories",
                "Repository",
                "id contributorsCount forksCount isArchived key name openIssuesCount \
                 organization { id login } starsCount subscribersCount url",
            ),
        ] {
            let direct = app.post(&ask(list, fields), json!({})).await;
            let resolved = app
                .post(
                    &ask(list, &format!("... on {kind} {{ {fields} }}")),
                    json!({}),
                )
                .await;
            assert_eq!(direct.status.as_u16(), 200, "{}", direct.text());
            assert_eq!(direct.text(), resolved.text(), "{project}");
            let body = direct.json();
            assert!(body.get("errors").is_none(), "{body}");
            let name = list.split('(').next().unwrap();
            let items = body["data"]["project"][name].as_array().map_or(0, Vec::len);
            if kind == "Repository" {
                repositories += items;
            } else if kind == "ProjectHealthMetrics" {
                measurements += items;
            }
        }
    }
    assert!(repositories >= 2, "{repositories} repositories");
    assert!(measurements >= 2, "{measurements} measurements");
}

/// The new records of every snapshot, asked in one request: each snapshot's lists,
/// read for all of them at once and ordered in memory, are its own and in the order
/// of SQL's `ORDER BY`.
#[tokio::test]
async fn every_snapshot_lists_its_own_records_in_order() {
    let app = app();
    let conn = app.sql();
    let data = app
        .data(
            "{ snapshots(limit: 5) { key newChapters { key } newProjects { key } \
               newReleases { tagName author { login } } newUsers { login } } }",
            json!({}),
        )
        .await;
    let snapshots = data["snapshots"].as_array().unwrap();
    assert!(snapshots.len() >= 2);
    let (mut releases_seen, mut users_seen) = (0, 0);
    for snapshot in snapshots {
        let key = snapshot["key"].as_str().unwrap();
        let expected = |sql: &str| strings(&conn, sql, [key]);
        let chapters = expected(
            "SELECT substr(c.key, 13) FROM snapshots n JOIN snapshot_chapters s ON s.snapshot_id = n.id \
             JOIN chapters c ON c.id = s.chapter_id WHERE n.key = ?1 AND c.is_active = 1 \
             ORDER BY c.created_at DESC, c.id DESC",
        );
        let projects = expected(
            "SELECT substr(p.key, 13) FROM snapshots n JOIN snapshot_projects s ON s.snapshot_id = n.id \
             JOIN projects p ON p.id = s.project_id WHERE n.key = ?1 AND p.is_active = 1 \
             ORDER BY p.created_at DESC, p.id DESC",
        );
        let releases = expected(
            "SELECT x.tag_name FROM snapshots n JOIN snapshot_releases s ON s.snapshot_id = n.id \
             JOIN releases x ON x.id = s.release_id WHERE n.key = ?1 \
             AND x.published_at IS NOT NULL \
             ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC",
        );
        let authors = expected(
            "SELECT coalesce(m.login, '') FROM snapshots n \
             JOIN snapshot_releases s ON s.snapshot_id = n.id \
             JOIN releases x ON x.id = s.release_id LEFT JOIN members m ON m.id = x.author_id \
             WHERE n.key = ?1 AND x.published_at IS NOT NULL \
             ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC",
        );
        let users = expected(
            "SELECT m.login FROM snapshots n JOIN snapshot_members s ON s.snapshot_id = n.id \
             JOIN members m ON m.id = s.member_id WHERE n.key = ?1 \
             ORDER BY m.created_at DESC, m.id DESC",
        );
        assert_eq!(pluck(&snapshot["newChapters"], "key"), chapters, "{key}");
        assert_eq!(pluck(&snapshot["newProjects"], "key"), projects, "{key}");
        assert_eq!(
            pluck(&snapshot["newReleases"], "tagName"),
            releases,
            "{key}"
        );
        let got_authors: Vec<String> = snapshot["newReleases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["author"]["login"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(got_authors, authors, "{key}");
        assert_eq!(pluck(&snapshot["newUsers"], "login"), users, "{key}");
        releases_seen += releases.len();
        users_seen += users.len();
    }
    assert!(releases_seen >= 2 && users_seen >= 2);
}
