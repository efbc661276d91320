//! Every query and type of API.md section 6 against the sample dataset, with values
//! checked against the dataset itself (read with SQL here, independently of roost).

mod graphql_support;

use graphql_support::*;
use roost::config::Env;
use serde_json::{json, Value};

fn app() -> App {
    App::new(Env::Local)
}

const CHAPTER_FIELDS: &str = "key name country region latitude longitude summary url createdAt \
    updatedAt geoLocation { lat lng } leaders entityLeaders { memberName member { login } }";

/// A chapter as the API must show it, from SQL.
fn expected_chapter(app: &App, key: &str) -> Value {
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT id, key, name, country, region, latitude, longitude, summary, url, created_at, \
         updated_at FROM chapters WHERE key = ?1",
        [key],
    )[0];
    let id = row[0].as_i64().unwrap();
    let leaders = rows(
        &conn,
        "SELECT l.name, m.login FROM leaders l LEFT JOIN members m ON m.id = l.member_id \
         WHERE l.entity_kind = 'chapter' AND l.entity_id = ?1 ORDER BY l.position",
        [id],
    );
    let geo = if row[5].is_null() || row[6].is_null() {
        Value::Null
    } else {
        json!({"lat": row[5], "lng": row[6]})
    };
    json!({
        "key": row[1], "name": row[2], "country": row[3], "region": row[4],
        "latitude": row[5], "longitude": row[6], "summary": row[7], "url": row[8],
        "createdAt": ts(row[9].as_i64().unwrap()), "updatedAt": ts(row[10].as_i64().unwrap()),
        "geoLocation": geo,
        "leaders": leaders.iter().map(|l| l[0].clone()).collect::<Vec<_>>(),
        "entityLeaders": leaders.iter().map(|l| json!({
            "memberName": l[0],
            "member": if l[1].is_null() { Value::Null } else { json!({"login": l[1]}) },
        })).collect::<Vec<_>>(),
    })
}

#[tokio::test]
async fn chapter_is_looked_up_like_rest() {
    let app = app();
    let conn = app.sql();
    // The active chapter with coordinates and the most leaders, some unlinked.
    let key = strings(
        &conn,
        "SELECT c.key FROM chapters c JOIN leaders l ON l.entity_kind = 'chapter' \
         AND l.entity_id = c.id WHERE c.is_active = 1 AND c.latitude IS NOT NULL \
         GROUP BY c.id ORDER BY COUNT(*) DESC, COUNT(l.member_id) ASC, c.id LIMIT 1",
        [],
    )[0]
    .clone();
    let expected = expected_chapter(&app, &key);
    let name_part = key.strip_prefix("www-chapter-").unwrap().to_uppercase();
    for lookup in [key.clone(), key.to_uppercase(), name_part] {
        let q = format!("query($k: String!) {{ chapter(key: $k) {{ {CHAPTER_FIELDS} }} }}");
        let data = app.data(&q, json!({"k": lookup})).await;
        assert_eq!(data["chapter"], expected, "lookup {lookup}");
    }
    assert!(expected["leaders"].as_array().unwrap().len() >= 2);

    // No coordinates: geoLocation is null.
    let bare = strings(
        &conn,
        "SELECT key FROM chapters WHERE is_active = 1 AND latitude IS NULL LIMIT 1",
        [],
    );
    let data = app
        .data(
            "query($k: String!) { chapter(key: $k) { geoLocation { lat } latitude } }",
            json!({"k": bare[0]}),
        )
        .await;
    assert_eq!(
        data["chapter"],
        json!({"geoLocation": null, "latitude": null})
    );

    // Inactive, unknown and empty keys are null, not errors.
    let inactive = strings(&conn, "SELECT key FROM chapters WHERE is_active = 0", []);
    for key in [inactive[0].as_str(), "nowhere", "", "www-chapter-"] {
        let data = app
            .data(
                "query($k: String!) { chapter(key: $k) { key } }",
                json!({"k": key}),
            )
            .await;
        assert_eq!(data["chapter"], Value::Null, "{key}");
    }
}

#[tokio::test]
async fn chapter_countries_and_recent_chapters() {
    let app = app();
    let conn = app.sql();
    let mut countries = strings(
        &conn,
        "SELECT DISTINCT country FROM chapters WHERE is_active = 1 AND country != ''",
        [],
    );
    countries.sort_by_key(|c| (c.to_lowercase(), c.clone()));
    let data = app.data("{ chapterCountries }", json!({})).await;
    assert_eq!(data["chapterCountries"], json!(countries));
    assert!(countries.len() > 10);

    let newest = strings(
        &conn,
        "SELECT key FROM chapters WHERE is_active = 1 ORDER BY created_at DESC, id DESC",
        [],
    );
    let data = app.data("{ recentChapters { key } }", json!({})).await;
    assert_eq!(pluck(&data["recentChapters"], "key"), newest[..8].to_vec());
    let data = app
        .data(
            "{ a: recentChapters(limit: 3) { key } b: recentChapters(limit: 0) { key } \
               c: recentChapters(limit: -5) { key } d: recentChapters(limit: 100000) { key } }",
            json!({}),
        )
        .await;
    assert_eq!(pluck(&data["a"], "key"), newest[..3].to_vec());
    assert_eq!(data["b"], json!([]));
    assert_eq!(data["c"], json!([]));
    assert_eq!(pluck(&data["d"], "key"), newest);
    // The first recent chapter carries the full type.
    let first = app
        .data(
            &format!("{{ recentChapters(limit: 1) {{ {CHAPTER_FIELDS} }} }}"),
            json!({}),
        )
        .await;
    assert_eq!(
        first["recentChapters"][0],
        expected_chapter(&app, &newest[0])
    );
}

#[tokio::test]
async fn committee_by_key() {
    let app = app();
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT id, key, name, description, created_at, updated_at, url FROM committees \
         WHERE is_active = 1 ORDER BY id LIMIT 1",
        [],
    )[0];
    let leaders = strings(
        &conn,
        "SELECT name FROM leaders WHERE entity_kind = 'committee' AND entity_id = ?1 ORDER BY position",
        [row[0].as_i64().unwrap()],
    );
    let short = row[1]
        .as_str()
        .unwrap()
        .strip_prefix("www-committee-")
        .unwrap();
    let data = app
        .data(
            "query($k: String!) { committee(key: $k) { key name description createdAt updatedAt url leaders } }",
            json!({"k": short}),
        )
        .await;
    assert_eq!(
        data["committee"],
        json!({
            "key": row[1], "name": row[2], "description": row[3],
            "createdAt": ts(row[4].as_i64().unwrap()), "updatedAt": ts(row[5].as_i64().unwrap()),
            "url": row[6], "leaders": leaders,
        })
    );
    let inactive = strings(&conn, "SELECT key FROM committees WHERE is_active = 0", []);
    let data = app
        .data(
            "query($k: String!) { committee(key: $k) { key } }",
            json!({"k": inactive[0]}),
        )
        .await;
    assert_eq!(data["committee"], Value::Null);
}

#[tokio::test]
async fn events_upcoming_and_by_key() {
    let app = app();
    let conn = app.sql();
    let today = roost::config::today();
    let upcoming = strings(
        &conn,
        "SELECT key FROM events WHERE start_date >= ?1 \
         ORDER BY start_date, end_date IS NULL, end_date, id",
        [&today],
    );
    assert!(upcoming.len() > 6, "the sample has upcoming events");
    let data = app.data("{ upcomingEvents { key } }", json!({})).await;
    assert_eq!(
        pluck(&data["upcomingEvents"], "key"),
        upcoming[..6].to_vec()
    );
    let data = app
        .data("{ upcomingEvents(limit: 1000) { key } }", json!({}))
        .await;
    assert_eq!(pluck(&data["upcomingEvents"], "key"), upcoming);

    let row = &rows(
        &conn,
        "SELECT key, name, category, start_date, end_date, latitude, longitude, url, description \
         FROM events WHERE end_date IS NULL LIMIT 1",
        [],
    )[0];
    let data = app
        .data(
            "query($k: String!) { event(key: $k) { key name category startDate endDate latitude longitude url description } }",
            json!({"k": row[0].as_str().unwrap().to_uppercase()}),
        )
        .await;
    assert_eq!(
        data["event"],
        json!({"key": row[0], "name": row[1], "category": row[2], "startDate": row[3],
               "endDate": row[4], "latitude": row[5], "longitude": row[6], "url": row[7],
               "description": row[8]})
    );
}

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
         WHERE pr.project_id = ?1 AND x.published_at IS NOT NULL \
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
        "key": key, "name": row[2], "level": row[3], "type": row[4], "description": row[5],
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
        "SELECT key FROM projects WHERE is_active = 1 ORDER BY created_at DESC, id DESC",
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
        "SELECT c.key FROM snapshot_chapters s JOIN chapters c ON c.id = s.chapter_id \
         WHERE s.snapshot_id = ?1 AND c.is_active = 1 ORDER BY c.created_at DESC, c.id DESC",
        [id],
    );
    let projects = strings(
        &conn,
        "SELECT p.key FROM snapshot_projects s JOIN projects p ON p.id = s.project_id \
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

#[tokio::test]
async fn sponsors_by_name() {
    let app = app();
    let conn = app.sql();
    let expected = rows(
        &conn,
        "SELECT key, name, sponsor_type, is_member, member_type, image_url, url, job_url, \
         description FROM sponsors ORDER BY name_lc, name, id",
        [],
    );
    let data = app
        .data(
            "{ sponsors { key name sponsorType isMember memberType imageUrl url jobUrl description } }",
            json!({}),
        )
        .await;
    let expected: Vec<Value> = expected
        .iter()
        .map(|s| {
            json!({"key": s[0], "name": s[1], "sponsorType": s[2], "isMember": s[3] == json!(1),
                   "memberType": s[4], "imageUrl": s[5], "url": s[6], "jobUrl": s[7],
                   "description": s[8]})
        })
        .collect();
    assert_eq!(data["sponsors"], json!(expected));
}

#[tokio::test]
async fn stats_overview_is_computed() {
    let app = app();
    let conn = app.sql();
    let data = app
        .data(
            "{ statsOverview { activeChaptersStats activeProjectsStats contributorsStats countriesStats } chapterCountries }",
            json!({}),
        )
        .await;
    let countries = data["chapterCountries"].as_array().unwrap().len() as i64;
    assert_eq!(
        data["statsOverview"],
        json!({
            "activeChaptersStats": int(&conn, "SELECT COUNT(*) FROM chapters WHERE is_active = 1", []),
            "activeProjectsStats": int(&conn, "SELECT COUNT(*) FROM projects WHERE is_active = 1", []),
            "contributorsStats": int(&conn, "SELECT COUNT(DISTINCT member_id) FROM repository_contributors", []),
            "countriesStats": countries,
        })
    );
}

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
        "SELECT p.key FROM project_repositories pr JOIN projects p ON p.id = pr.project_id \
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

#[tokio::test]
async fn recent_issues_filters_and_distinct() {
    let app = app();
    let conn = app.sql();
    let all = |filter: &str, arg: &str| {
        rows(
            &conn,
            &format!(
                "SELECT i.title, i.author_id FROM issues i JOIN repositories r ON r.id = i.repository_id \
                 JOIN organizations o ON o.id = r.organization_id LEFT JOIN members m ON m.id = i.author_id \
                 WHERE {filter} ORDER BY i.created_at DESC, i.updated_at DESC, i.id DESC"
            ),
            [arg],
        )
    };
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
    let all = |filter: &str, arg: &str| {
        rows(
            &conn,
            &format!(
                "SELECT x.title, x.author_id FROM milestones x JOIN repositories r ON r.id = x.repository_id \
                 JOIN organizations o ON o.id = r.organization_id LEFT JOIN members m ON m.id = x.author_id \
                 WHERE {filter} ORDER BY x.created_at DESC, x.updated_at DESC, x.id DESC"
            ),
            [arg],
        )
    };
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
async fn recent_releases_only_published() {
    let app = app();
    let conn = app.sql();
    let all = rows(
        &conn,
        "SELECT x.tag_name, x.author_id FROM releases x WHERE x.published_at IS NOT NULL \
         ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC",
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
        "SELECT x.tag_name, x.name, x.description, x.url, x.is_pre_release, x.published_at, \
            x.created_at, o.login, r.name, m.login, \
            (SELECT p.name FROM project_repositories pr JOIN projects p ON p.id = pr.project_id \
             WHERE pr.repository_id = x.repository_id AND p.is_active = 1 ORDER BY p.id LIMIT 1) \
         FROM releases x JOIN repositories r ON r.id = x.repository_id \
         JOIN organizations o ON o.id = r.organization_id JOIN members m ON m.id = x.author_id \
         WHERE x.published_at IS NOT NULL ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC LIMIT 1",
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

#[tokio::test]
async fn replaced_dataset_is_picked_up() {
    let app = app();
    let q = "{ statsOverview { activeChaptersStats } }";
    let before = app.data(q, json!({})).await;
    // Rebuild the dataset without chapters and rename it over the served file.
    let mut ds = roost::store::sample_dataset().unwrap();
    ds.chapters.truncate(3);
    ds.snapshots.clear();
    roost::store::build(&ds, &app.db).unwrap();
    let after = app.data(q, json!({})).await;
    assert_ne!(before, after);
    let active = ds.chapters.iter().filter(|(_, c)| c.is_active).count();
    assert_eq!(after["statsOverview"]["activeChaptersStats"], json!(active));
}

#[tokio::test]
async fn missing_dataset_is_an_internal_error_without_details() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("missing.db");
    let app = App::over(dir, db, Env::Local, Default::default());
    let reply = app.post("{ chapterCountries }", json!({})).await;
    assert_eq!(reply.status.as_u16(), 200);
    let body = reply.json();
    assert_eq!(body["errors"][0]["message"], "Internal server error");
    assert!(!reply.text.contains("missing.db"), "{}", reply.text);
}
