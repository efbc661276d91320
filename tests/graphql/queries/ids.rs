//! `id` on every object type: base64 of `Type:naturalkey`, the same for the same
//! record wherever it appears, and unchanged when the dataset is regenerated with its
//! records in another order (row ids change, ids do not).

use base64::Engine as _;

use super::*;

fn decode(id: &Value) -> String {
    let text = id
        .as_str()
        .unwrap_or_else(|| panic!("id is not a string: {id}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    String::from_utf8(bytes).unwrap()
}

/// Every `id` in an answer with the object it identifies, depth first.
fn ids(value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            if let Some(id) = map.get("id") {
                out.push((decode(id), value.clone()));
            }
            map.values().for_each(|v| ids(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| ids(v, out)),
        _ => {}
    }
}

const PAGE: &str = "query($p: String!, $c: String!, $m: String!, $o: String!, $l: String!) {
    project(key: $p) {
        id key
        entityLeaders { id member { id login } }
        repositories { id name organization { id login }
            topContributors(limit: 2) { id login } }
        recentIssues { id number organizationName repositoryName author { id login } }
        recentReleases { id tagName organizationName repositoryName }
        recentMilestones(limit: 3) { id number organizationName repositoryName }
        topContributors(limit: 3) { id login }
        recentPullRequests { id number organizationName repositoryName }
        healthMetricsList(limit: 2) { id createdAt }
        entityChannels { id }
    }
    topContributors(limit: 3, project: $p) { id login }
    chapter(key: $c) { id key entityLeaders { id } entityChannels { id }
        topContributors(limit: 2) { id login } }
    chapterContributors: topContributors(limit: 2, chapter: $c) { id login }
    committee(key: $m) { id key entityChannels { id } topContributors(limit: 2) { id login } }
    organization(login: $o) { id login }
    user(login: $l) { id login badges { id name } }
    recentPosts(limit: 2) { id url }
    sponsors { id key }
    snapshots(limit: 2) { id key }
    upcomingEvents(limit: 2) { id key }
}";

fn vars(conn: &rusqlite::Connection) -> Value {
    let first = |sql: &str| strings(conn, sql, [])[0].clone();
    json!({
        "p": first("SELECT p.key FROM projects p JOIN project_repositories pr ON pr.project_id = p.id \
                    JOIN leaders l ON l.entity_kind = 'project' AND l.entity_id = p.id \
                    WHERE p.is_active = 1 GROUP BY p.id ORDER BY COUNT(*) DESC, p.id LIMIT 1"),
        "c": first("SELECT c.key FROM chapters c JOIN leaders l ON l.entity_kind = 'chapter' \
                    AND l.entity_id = c.id WHERE c.is_active = 1 ORDER BY c.id LIMIT 1"),
        "m": first("SELECT key FROM committees WHERE is_active = 1 ORDER BY id LIMIT 1"),
        "o": first("SELECT login FROM organizations WHERE is_affiliated = 1 ORDER BY id LIMIT 1"),
        "l": first("SELECT m.login FROM members m JOIN issues i ON i.author_id = m.id \
                    GROUP BY m.id ORDER BY COUNT(*) DESC, m.id LIMIT 1"),
    })
}

#[tokio::test]
async fn ids_name_the_record_by_its_natural_key() {
    let app = app();
    let conn = app.sql();
    let vars = vars(&conn);
    let data = app.data(PAGE, vars.clone()).await;
    let mut found = Vec::new();
    ids(&data, &mut found);
    assert!(found.len() > 30, "{}", found.len());
    let lc = |v: &Value| v.as_str().unwrap().to_lowercase();
    let mut kinds = std::collections::BTreeSet::new();
    for (decoded, object) in &found {
        let (kind, key) = decoded.split_once(':').unwrap();
        kinds.insert(kind.to_string());
        let expected = match kind {
            // The id keeps the dataset's full key; `key` answers without the prefix.
            "Project" => format!("www-project-{}", lc(&object["key"])),
            "Chapter" => format!("www-chapter-{}", lc(&object["key"])),
            "Committee" => format!("www-committee-{}", lc(&object["key"])),
            "Sponsor" | "Snapshot" | "Event" => lc(&object["key"]),
            "Organization" | "User" => lc(&object["login"]),
            "Issue" | "Milestone" | "PullRequest" => format!(
                "{}/{}#{}",
                lc(&object["organizationName"]),
                lc(&object["repositoryName"]),
                object["number"]
            ),
            "Release" => format!(
                "{}/{}@{}",
                lc(&object["organizationName"]),
                lc(&object["repositoryName"]),
                object["tagName"].as_str().unwrap()
            ),
            "Repository" => format!(
                "{}/{}",
                lc(&object["organization"]["login"]),
                lc(&object["name"])
            ),
            "Post" => lc(&object["url"]),
            "Badge" => lc(&object["name"]),
            "ProjectHealthMetrics" => {
                let (project, micros) = key.split_once('@').unwrap();
                assert_eq!(project, lc(&vars["p"]), "{decoded}");
                let micros: i64 = micros.parse().unwrap();
                assert_eq!(json!(ts(micros)), object["createdAt"], "{decoded}");
                continue;
            }
            "Contributor" => {
                let (scope, login) = key.rsplit_once(':').unwrap();
                assert!(
                    scope == format!("project={}", lc(&vars["p"]))
                        || scope == format!("chapter={}", lc(&vars["c"]))
                        || scope == format!("committee={}", lc(&vars["m"]))
                        || scope.starts_with("repository="),
                    "{decoded}"
                );
                assert_eq!(login, lc(&object["login"]));
                continue;
            }
            "EntityMember" | "EntityChannel" => {
                let parts: Vec<&str> = key.split(':').collect();
                assert_eq!(parts.len(), 3, "{decoded}");
                assert!(
                    ["project", "chapter", "committee"].contains(&parts[0]),
                    "{decoded}"
                );
                parts[2].parse::<u32>().unwrap();
                continue;
            }
            other => panic!("unexpected type {other} in {decoded}"),
        };
        assert_eq!(key, expected, "{object}");
    }
    for kind in [
        "Project",
        "Chapter",
        "Committee",
        "Sponsor",
        "Snapshot",
        "Event",
        "Organization",
        "User",
        "Issue",
        "Milestone",
        "Release",
        "Repository",
        "Contributor",
        "EntityMember",
        "PullRequest",
        "Post",
        "Badge",
        "ProjectHealthMetrics",
        "EntityChannel",
    ] {
        assert!(kinds.contains(kind), "no {kind} id in {data}");
    }
    // The same selection gives the same contributor ids, from the project or the query.
    assert_eq!(data["project"]["topContributors"], data["topContributors"]);
    assert_eq!(
        data["chapter"]["topContributors"],
        data["chapterContributors"]
    );
}

#[tokio::test]
async fn ids_survive_a_regeneration_in_another_order() {
    let app = app();
    let vars = vars(&app.sql());
    let before = app.data(PAGE, vars.clone()).await;
    let row_of = |conn: &rusqlite::Connection| {
        strings(
            conn,
            "SELECT id || ' ' || (SELECT id FROM issues ORDER BY id LIMIT 1) FROM members \
             WHERE login_lc = lower(?1)",
            [vars["l"].as_str().unwrap()],
        )
    };
    let rows_before = row_of(&app.sql());
    let mut ds = roost::store::sample_dataset().unwrap();
    ds.members.reverse();
    ds.issues.reverse();
    ds.releases.reverse();
    ds.milestones.reverse();
    ds.repositories.reverse();
    ds.repository_contributors.reverse();
    ds.projects.reverse();
    ds.chapters.reverse();
    ds.organizations.reverse();
    ds.committees.reverse();
    ds.pull_requests.reverse();
    ds.posts.reverse();
    ds.project_health_metrics.reverse();
    ds.badges.reverse();
    roost::store::build(&ds, &app.db, roost::idx::build).unwrap();
    assert_ne!(row_of(&app.sql()), rows_before, "row ids did not change");
    let after = app.data(PAGE, vars).await;
    // The same records, found by their keys, have the same ids.
    for path in [
        "/project/id",
        "/chapter/id",
        "/committee/id",
        "/organization/id",
        "/user/id",
    ] {
        assert!(before.pointer(path).unwrap().is_string(), "{path}");
        assert_eq!(before.pointer(path), after.pointer(path), "{path}");
    }
    let sorted = |v: &Value, list: &str| {
        let mut ids: Vec<String> = v
            .pointer(list)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    for list in [
        "/project/repositories",
        "/project/entityLeaders",
        "/project/recentIssues",
        "/project/recentReleases",
        "/project/topContributors",
        "/project/recentPullRequests",
        "/project/healthMetricsList",
        "/project/entityChannels",
        "/chapter/entityLeaders",
        "/chapter/entityChannels",
        "/chapter/topContributors",
        "/user/badges",
        "/recentPosts",
        "/sponsors",
    ] {
        assert!(!sorted(&before, list).is_empty(), "{list}");
        assert_eq!(sorted(&before, list), sorted(&after, list), "{list}");
    }
}
