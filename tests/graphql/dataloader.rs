//! No N+1: representative frontend page queries (a project page with repositories,
//! recent issues and pull requests with authors and their badges, releases,
//! milestones, leaders, health metrics, channels, aggregates and contribution data; a
//! member page with their repositories, pull requests, badges and contribution data;
//! the snapshot and home pages' lists) cost a number of SQL statements that does not
//! grow with the number of records they return.

use roost::config::Env;
use roost::records::{Dataset, Origin};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::support::graphql::*;
use crate::support::{pluck, strings};

const PROJECT: &str = "www-project-juice-shop";
const ORG: &str = "juice-labs";
/// A member who contributes to, and opens an issue in, every added repository.
const MEMBER: &str = "kwame-schmidt";

const PAGE: &str = "query($k: String!) { project(key: $k) {
    id name starsCount forksCount contributorsCount openIssuesCount repositoriesCount
    issuesCount isActive languages topics contributionData contributionStats
    leaders entityLeaders { id memberName description member { id login avatarUrl issuesCount
        contributionsCount contributionStats badges { id name weight } } }
    relatedUrls entityChannels { id platform name }
    healthMetricsList(limit: 1000) { id createdAt score }
    recentPullRequests { id title author { login badges { name } } }
    repositories {
        id name url starsCount subscribersCount isArchived languages
        organization { id login } project { key }
        issues { id title labels author { login } }
        releases { id tagName author { login } }
        recentMilestones(limit: 2) { id title progress }
        topContributors(limit: 3) { id login contributionsCount projectKey }
    }
    recentIssues { title labels author { login name avatarUrl } }
    recentReleases { tagName projectName author { login } }
    recentMilestones(limit: 5) { title progress author { login } }
    topContributors(limit: 100) { id login projectKey projectName }
} }";

const USER_PAGE: &str = "query($l: String!) {
    recentIssues(limit: 5, login: $l) { id title author { login } }
    recentMilestones(limit: 5, login: $l) { id title }
    recentReleases(limit: 5, login: $l) { id tagName }
    recentPullRequests(limit: 5, login: $l) { id title author { login } }
    topContributedRepositories(login: $l) { id name contributorsCount subscribersCount
        organization { id login } project { id key languages }
        topContributors(limit: 2) { id login } }
    user(login: $l) { id login contributionsCount issuesCount releasesCount
        contributionData contributionStats badges { id name } }
}";

fn record<T: DeserializeOwned>(file: &'static str, line: usize, value: Value) -> (Origin, T) {
    (
        Origin { file, line },
        serde_json::from_value(value).unwrap(),
    )
}

/// The sample plus `extra` repositories for the project, each with issues, pull
/// requests, releases, milestones and contributors by new members with badges, and
/// more leaders, channels, links and health measurements.
fn dataset(extra: usize) -> Dataset {
    let mut ds = roost::store::sample_dataset().unwrap();
    let badges: Vec<String> = ds
        .badges
        .iter()
        .take(2)
        .map(|(_, b)| b.name.clone())
        .collect();
    let ts = "2026-01-01T00:00:00Z";
    let labels: Vec<String> = ds
        .labels
        .iter()
        .take(3)
        .map(|(_, l)| l.name.clone())
        .collect();
    for r in 0..extra {
        let repo = format!("extra-{r}");
        let line = ds.repositories.len() + 1;
        ds.repositories.push(record(
            "repositories.jsonl",
            line,
            json!({"organization": ORG, "name": repo, "stars_count": r, "created_at": ts, "updated_at": ts}),
        ));
        for k in 0..8 {
            let login = format!("extra-member-{r}-{k}");
            let line = ds.members.len() + 1;
            ds.members.push(record(
                "members.jsonl",
                line,
                json!({"login": login, "created_at": ts, "updated_at": ts, "badges": badges}),
            ));
            let line = ds.pull_requests.len() + 1;
            ds.pull_requests.push(record(
                "pull_requests.jsonl",
                line,
                json!({"organization": ORG, "repository": repo, "number": 200 + k,
                       "title": format!("pull request {k} of {repo}"), "state": "open",
                       "author": login, "url": format!("https://example.org/{repo}/pull/{k}"),
                       "created_at": format!("2026-04-{:02}T00:00:00Z", k + 1), "updated_at": ts}),
            ));
            let line = ds.issues.len() + 1;
            ds.issues.push(record(
                "issues.jsonl",
                line,
                json!({"organization": ORG, "repository": repo, "number": k + 1,
                       "title": format!("issue {k} of {repo}"), "state": "open", "author": login,
                       "url": format!("https://example.org/{repo}/{k}"), "labels": labels,
                       "created_at": format!("2026-02-{:02}T00:00:00Z", k + 1), "updated_at": ts}),
            ));
            let line = ds.repository_contributors.len() + 1;
            ds.repository_contributors.push(record(
                "repository_contributors.jsonl",
                line,
                json!({"organization": ORG, "repository": repo, "member": login,
                       "contributions_count": k + 1}),
            ));
            if k < 4 {
                let line = ds.releases.len() + 1;
                ds.releases.push(record(
                    "releases.jsonl",
                    line,
                    json!({"organization": ORG, "repository": repo, "tag_name": format!("v{k}"),
                           "author": login, "published_at": ts, "created_at": ts}),
                ));
                let line = ds.milestones.len() + 1;
                ds.milestones.push(record(
                    "milestones.jsonl",
                    line,
                    json!({"organization": ORG, "repository": repo, "number": k + 1,
                           "title": format!("m{k}"), "state": "open", "author": login,
                           "url": "https://example.org/m", "open_issues_count": k,
                           "closed_issues_count": 3, "created_at": ts, "updated_at": ts}),
                ));
            }
        }
        let (_, project) = ds
            .projects
            .iter_mut()
            .find(|(_, p)| p.key == PROJECT)
            .unwrap();
        project
            .repositories
            .push(serde_json::from_value(json!({"organization": ORG, "name": repo})).unwrap());
        let line = ds.repository_contributors.len() + 1;
        ds.repository_contributors.push(record(
            "repository_contributors.jsonl",
            line,
            json!({"organization": ORG, "repository": repo, "member": MEMBER,
                   "contributions_count": 100 + r}),
        ));
        let line = ds.issues.len() + 1;
        ds.issues.push(record(
            "issues.jsonl",
            line,
            json!({"organization": ORG, "repository": repo, "number": 100,
                   "title": format!("{MEMBER} in {repo}"), "state": "closed", "author": MEMBER,
                   "url": format!("https://example.org/{repo}/100"),
                   "created_at": format!("2026-03-{:02}T00:00:00Z", r % 28 + 1), "updated_at": ts}),
        ));
        project
            .related_urls
            .push(format!("https://example.org/{repo}"));
        project.channels.push(
            serde_json::from_value(json!({"platform": "slack", "name": repo, "external_id": repo}))
                .unwrap(),
        );
        let line = ds.project_health_metrics.len() + 1;
        ds.project_health_metrics.push(record(
            "project_health_metrics.jsonl",
            line,
            json!({"project": PROJECT, "score": r, "stars_count": r,
                   "created_at": format!("2020-{:02}-{:02}T00:00:00Z", r / 28 + 1, r % 28 + 1)}),
        ));
        let line = ds.pull_requests.len() + 1;
        ds.pull_requests.push(record(
            "pull_requests.jsonl",
            line,
            json!({"organization": ORG, "repository": repo, "number": 300,
                   "title": format!("{MEMBER} pulls in {repo}"), "state": "closed", "author": MEMBER,
                   "url": format!("https://example.org/{repo}/pull/300"),
                   "created_at": format!("2026-05-{:02}T00:00:00Z", r % 28 + 1), "updated_at": ts}),
        ));
        let project = &mut ds
            .projects
            .iter_mut()
            .find(|(_, p)| p.key == PROJECT)
            .unwrap()
            .1;
        project.leaders.push(
            serde_json::from_value(
                json!({"name": format!("Leader {r}"), "login": format!("extra-member-{r}-0")}),
            )
            .unwrap(),
        );
    }
    ds
}

/// Objects in a JSON value: the records (and sub-records) a response carries.
fn objects(value: &Value) -> usize {
    match value {
        Value::Object(map) => 1 + map.values().map(objects).sum::<usize>(),
        Value::Array(items) => items.iter().map(objects).sum(),
        _ => 0,
    }
}

/// The statements and records of the project page and of the member page, over a
/// dataset with `extra` repositories.
struct Measure {
    project: (u64, usize),
    user: (u64, usize),
}

async fn measure(extra: usize) -> Measure {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    roost::store::build(&dataset(extra), &db, roost::idx::build).unwrap();
    let app = App::over(dir, db, Env::Local, Default::default());
    let before = app.service.sql_statements();
    let data = app.data(PAGE, json!({"k": PROJECT})).await;
    let statements = app.service.sql_statements() - before;
    let repos = data["project"]["repositories"].as_array().unwrap().len();
    assert_eq!(repos, 2 + extra, "the page shows every repository");
    let metrics = data["project"]["healthMetricsList"]
        .as_array()
        .unwrap()
        .len();
    let channels = data["project"]["entityChannels"].as_array().unwrap().len();
    assert!(
        metrics >= extra && channels >= extra,
        "{metrics} {channels}"
    );
    let project = (statements, objects(&data));

    let before = app.service.sql_statements();
    let data = app.data(USER_PAGE, json!({"l": MEMBER})).await;
    let statements = app.service.sql_statements() - before;
    let repos = data["topContributedRepositories"].as_array().unwrap().len();
    assert!(repos >= extra, "{repos}");
    let days = data["user"]["contributionData"].as_object().unwrap().len();
    assert!(days >= extra.min(28), "{days}");
    Measure {
        project,
        user: (statements, objects(&data)),
    }
}

#[tokio::test]
async fn project_page_statements_do_not_grow_with_records() {
    let (small, large) = (measure(0).await, measure(40).await);
    let (small_statements, small_records) = small.project;
    let (large_statements, large_records) = large.project;
    println!(
        "project page: {small_statements} statements for {small_records} records; \
         {large_statements} statements for {large_records} records"
    );
    assert!(
        large_records >= 10 * small_records,
        "{large_records} vs {small_records}"
    );
    // One statement for the project, then one per relation (key type) and wave of
    // the page: the same number whatever the number of records.
    // The page asks for 25 relations over 4 waves; a relation asked in two waves (a
    // member's, for leaders then for authors) costs one statement per wave.
    assert_eq!(large_statements, small_statements);
    assert!(small_statements <= 32, "{small_statements}");
    assert!((large_statements as usize) < large_records / 20);

    let (small_statements, small_records) = small.user;
    let (large_statements, large_records) = large.user;
    println!(
        "member page: {small_statements} statements for {small_records} records; \
         {large_statements} statements for {large_records} records"
    );
    assert!(
        large_records >= small_records + 4 * 40,
        "{large_records} vs {small_records}"
    );
    assert_eq!(large_statements, small_statements);
    assert!(small_statements <= 20, "{small_statements}");
}

#[tokio::test]
async fn list_queries_batch_their_relations() {
    let app = App::new(Env::Local);
    let before = app.service.sql_statements();
    let data = app
        .data(
            "{ snapshots(limit: 5) { key newChapters { key leaders entityLeaders { member { login } } }
                 newIssues { title labels author { login issuesCount } }
                 newProjects { key repositoriesCount repositories { name } }
                 newReleases { tagName author { login } } newUsers { login releasesCount badges { name } }
                 newChapters { relatedUrls entityChannels { name } contributionStats
                     topContributors(limit: 3) { login } } } }",
            json!({}),
        )
        .await;
    let statements = app.service.sql_statements() - before;
    let records = objects(&data);
    println!("snapshots page: {statements} statements for {records} records");
    assert!(records > 100, "{records}");
    // One statement for the snapshots, then one per relation and wave (the links of
    // the four lists read whole are counted per dataset file; a relation kept per
    // dataset file, such as the chapters' related links, runs none).
    assert!(statements <= 26, "{statements}");
}

#[tokio::test]
async fn home_lists_batch_their_relations() {
    let app = App::new(Env::Local);
    let before = app.service.sql_statements();
    let data = app
        .data(
            "{ recentPullRequests(limit: 100) { title author { login badges { name } issuesCount } }
               recentPosts(limit: 100) { title }
               recentChapters(limit: 100) { key suggestedLocation entityChannels { name } }
               statsOverview { slackWorkspaceStats } }",
            json!({}),
        )
        .await;
    let statements = app.service.sql_statements() - before;
    let records = objects(&data);
    println!("home lists: {statements} statements for {records} records");
    assert!(records > 150, "{records}");
    // Four root statements, then one per relation: authors, their badges and totals,
    // the chapters' channels.
    assert!(statements <= 8, "{statements}");
}

/// A snapshot with more new members than a list returns (1,000): its first 1,000 in
/// order, the same as SQL's `ORDER BY ... LIMIT`, read numbered (its links are
/// counted first) rather than whole; the other snapshots of the same request are
/// still read whole and complete.
#[tokio::test]
async fn a_snapshot_longer_than_the_limit_lists_its_first_records() {
    let mut ds = roost::store::sample_dataset().unwrap();
    let long = ds.snapshots[0].1.key.clone();
    for i in 0..1_100 {
        let login = format!("newcomer-{i:04}");
        let line = ds.members.len() + 1;
        // Ties in `created_at` by the hundred: the order's last key (the id) decides.
        let created = format!("2026-03-{:02}T00:00:00Z", 1 + i / 100);
        ds.members.push(record(
            "members.jsonl",
            line,
            json!({"login": login, "created_at": created, "updated_at": created}),
        ));
        ds.snapshots[0].1.new_members.push(login);
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    roost::store::build(&ds, &db, roost::idx::build).unwrap();
    let app = App::over(dir, db, Env::Local, Default::default());
    let conn = app.sql();
    let expected = |key: &str| {
        strings(
            &conn,
            "SELECT m.login FROM snapshots n JOIN snapshot_members s ON s.snapshot_id = n.id \
             JOIN members m ON m.id = s.member_id WHERE n.key = ?1 \
             ORDER BY m.created_at DESC, m.id DESC LIMIT 1000",
            [key],
        )
    };
    let data = app
        .data(
            "{ snapshots(limit: 5) { key newUsersCount newUsers { login } } }",
            json!({}),
        )
        .await;
    let snapshots = data["snapshots"].as_array().unwrap();
    let mut seen_long = false;
    for snapshot in snapshots {
        let key = snapshot["key"].as_str().unwrap();
        let users = pluck(&snapshot["newUsers"], "login");
        assert_eq!(users, expected(key), "{key}");
        if key == long {
            seen_long = true;
            assert_eq!(users.len(), 1000);
            assert!(snapshot["newUsersCount"].as_i64().unwrap() > 1000);
        } else {
            assert!(users.len() < 1000);
        }
    }
    assert!(seen_long && snapshots.len() >= 2, "{data}");
}
