//! `roost db synth`: the small scale builds a healthy dataset of the advertised size and
//! shape, and the same seed always gives the same data.

use std::path::Path;

use roost::records::{Category, Level, MemberType, ProjectType, SponsorType};
use roost::synth::Scale;
use rusqlite::Connection;

use crate::support::{int, strings, table_digests as dump};

fn build(dir: &Path, name: &str, seed: u64) -> std::path::PathBuf {
    let db = dir.join(name);
    roost::synth::synth(Scale::Small, seed, &db).expect("synth small");
    db
}

#[test]
fn small_is_healthy_sized_and_shaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path(), "small.db", 7);
    let problems = roost::store::check(&db).unwrap();
    assert!(problems.is_empty(), "check found problems: {problems:?}");

    let conn = Connection::open(&db).unwrap();
    // About a twentieth of nest, within ±10%.
    let targets = [
        ("chapters", 15),
        ("projects", 15),
        ("events", 8),
        ("sponsors", 8),
        ("organizations", 5),
        ("repositories", 400),
        ("members", 3_000),
        ("issues", 10_000),
        ("milestones", 300),
        ("releases", 1_250),
        // 100 shared, 100 of single repositories.
        ("labels", 200),
        ("snapshots", 8),
        ("pull_requests", 5_000),
        ("posts", 15),
        ("project_health_metrics", 15 * 12),
        ("badges", 8),
    ];
    for (table, target) in targets {
        let n = int(&conn, &format!("SELECT COUNT(*) FROM {table}"), []);
        let (lo, hi) = (target as f64 * 0.9, target as f64 * 1.1);
        assert!(
            (lo..=hi).contains(&(n as f64)),
            "{table}: {n} rows, expected about {target}"
        );
    }
    assert!(int(&conn, "SELECT COUNT(*) FROM committees", []) >= 3);

    // Contributors: a few to a few dozen per repository.
    let per_repo = int(&conn, "SELECT COUNT(*) FROM repository_contributors", []) as f64 / 400.0;
    assert!(
        (3.0..=40.0).contains(&per_repo),
        "{per_repo} contributors per repository"
    );
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM repositories WHERE id NOT IN \
             (SELECT repository_id FROM repository_contributors)",
            []
        ),
        0
    );

    // Every enum value occurs.
    let enums: [(&str, Vec<&str>); 7] = [
        (
            "SELECT DISTINCT level FROM projects",
            Level::ALL.iter().map(|v| v.as_str()).collect(),
        ),
        (
            "SELECT DISTINCT type FROM projects",
            ProjectType::ALL.iter().map(|v| v.as_str()).collect(),
        ),
        (
            "SELECT DISTINCT category FROM events",
            Category::ALL.iter().map(|v| v.as_str()).collect(),
        ),
        (
            "SELECT DISTINCT sponsor_type FROM sponsors",
            SponsorType::ALL.iter().map(|v| v.as_str()).collect(),
        ),
        (
            "SELECT DISTINCT member_type FROM sponsors",
            MemberType::ALL.iter().map(|v| v.as_str()).collect(),
        ),
        (
            "SELECT DISTINCT status FROM snapshots",
            vec!["completed", "processing", "pending", "error"],
        ),
        ("SELECT DISTINCT state FROM issues", vec!["open", "closed"]),
    ];
    for (sql, all) in enums {
        let mut got = strings(&conn, sql, []);
        got.sort();
        let mut want: Vec<String> = all.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "{sql}");
    }
    let completed = int(
        &conn,
        "SELECT COUNT(*) FROM snapshots WHERE status = 'completed'",
        [],
    );
    assert!(
        completed * 2 > 8,
        "most snapshots are completed ({completed})"
    );

    // Skew: the busiest repository has far more issues than the median one.
    let busiest = int(
        &conn,
        "SELECT MAX(c) FROM (SELECT COUNT(*) c FROM issues GROUP BY repository_id)",
        [],
    );
    assert!(busiest > 10 * 25, "busiest repository has {busiest} issues");
    let max_stars = int(&conn, "SELECT MAX(stars_count) FROM repositories", []);
    let median_stars = int(
        &conn,
        "SELECT stars_count FROM repositories ORDER BY stars_count LIMIT 1 OFFSET 200",
        [],
    );
    assert!(
        max_stars > 50 * (median_stars + 1),
        "stars {max_stars} vs median {median_stars}"
    );

    // Dates over ten years, updated never before created.
    for table in [
        "members",
        "repositories",
        "issues",
        "milestones",
        "labels",
        "chapters",
        "projects",
    ] {
        let years = int(
            &conn,
            &format!(
                "SELECT COUNT(DISTINCT strftime('%Y', created_at / 1000000, 'unixepoch')) FROM {table}"
            ), [],
        );
        assert!(
            years
                >= if table == "members" || table == "issues" {
                    10
                } else {
                    5
                },
            "{table}: {years} years"
        );
        assert_eq!(
            int(
                &conn,
                &format!("SELECT COUNT(*) FROM {table} WHERE updated_at < created_at"),
                []
            ),
            0,
            "{table}"
        );
    }
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM issues WHERE closed_at IS NOT NULL AND \
             (closed_at < created_at OR state != 'closed')",
            []
        ),
        0
    );

    // Nulls, inactive records, unpublished releases, tags with '/'.
    for (sql, what) in [
        (
            "SELECT COUNT(*) FROM chapters WHERE latitude IS NULL",
            "chapters without coordinates",
        ),
        (
            "SELECT COUNT(*) FROM chapters WHERE is_active = 0",
            "inactive chapters",
        ),
        (
            "SELECT COUNT(*) FROM projects WHERE is_active = 0",
            "inactive projects",
        ),
        (
            "SELECT COUNT(*) FROM organizations WHERE is_affiliated = 0",
            "non-affiliated organizations",
        ),
        (
            "SELECT COUNT(*) FROM milestones WHERE due_on IS NULL",
            "milestones without due date",
        ),
        (
            "SELECT COUNT(*) FROM releases WHERE tag_name LIKE '%/%'",
            "tags with a slash",
        ),
        (
            "SELECT COUNT(*) FROM leaders WHERE member_id IS NULL",
            "leaders without login",
        ),
        (
            "SELECT COUNT(*) FROM leaders WHERE member_id IS NOT NULL",
            "leaders with login",
        ),
        (
            "SELECT COUNT(*) FROM project_repositories",
            "project repositories",
        ),
        ("SELECT COUNT(*) FROM issue_labels", "issue labels"),
        (
            "SELECT COUNT(*) FROM issues WHERE author_id IS NULL",
            "issues without author",
        ),
    ] {
        assert!(int(&conn, sql, []) > 0, "no {what}");
    }
    let unpublished = int(
        &conn,
        "SELECT COUNT(*) FROM releases WHERE published_at IS NULL",
        [],
    );
    assert!(
        (20..=120).contains(&unpublished),
        "{unpublished} unpublished releases of 1250"
    );

    // Unicode names and long Markdown bodies.
    let names = strings(&conn, "SELECT name FROM members", []);
    assert!(names
        .iter()
        .any(|n| n.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))));
    assert!(names
        .iter()
        .any(|n| n.chars().any(|c| "éèöüçñ".contains(c))));
    let avg_body = int(
        &conn,
        "SELECT CAST(AVG(LENGTH(body)) AS INTEGER) FROM issue_bodies WHERE body != ''",
        [],
    );
    assert!(
        (500..=4_000).contains(&avg_body),
        "average body {avg_body} bytes"
    );
    assert!(
        int(
            &conn,
            "SELECT COUNT(*) FROM issue_bodies WHERE body LIKE '%```%'",
            []
        ) > 1_000
    );
    assert!(
        int(
            &conn,
            "SELECT COUNT(*) FROM issue_bodies WHERE body LIKE '## %'",
            []
        ) > 5_000
    );

    // Filters have repeated values: companies and locations come from small pools.
    let companies = int(&conn, "SELECT COUNT(DISTINCT company) FROM members", []);
    let locations = int(&conn, "SELECT COUNT(DISTINCT location) FROM members", []);
    assert!(
        companies < 60 && locations < 80,
        "{companies} companies, {locations} locations"
    );

    // Snapshots list records created in their month.
    assert!(int(&conn, "SELECT COUNT(*) FROM snapshot_issues", []) > 100);
    assert!(int(&conn, "SELECT COUNT(*) FROM snapshot_members", []) > 10);
    assert!(int(&conn, "SELECT COUNT(*) FROM snapshot_releases", []) > 10);
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM snapshot_issues si JOIN snapshots s ON s.id = si.snapshot_id \
             JOIN issues i ON i.id = si.issue_id \
             WHERE i.created_at < s.start_at OR i.created_at > s.end_at",
            []
        ),
        0
    );
    let keys = strings(&conn, "SELECT key FROM snapshots ORDER BY key", []);
    assert!(
        keys.iter().all(|k| k.len() == 7 && &k[4..5] == "-"),
        "{keys:?}"
    );
    for (table, prefix) in [
        ("chapters", "www-chapter-"),
        ("committees", "www-committee-"),
        ("projects", "www-project-"),
    ] {
        let bad = int(
            &conn,
            &format!("SELECT COUNT(*) FROM {table} WHERE key NOT LIKE '{prefix}%'"),
            [],
        );
        assert_eq!(bad, 0, "{table} keys");
    }
}

#[test]
fn same_seed_same_data_other_seed_other_data() {
    let dir = tempfile::tempdir().unwrap();
    let a = dump(&build(dir.path(), "a.db", 42));
    let b = dump(&build(dir.path(), "b.db", 42));
    let c = dump(&build(dir.path(), "c.db", 43));
    assert!(a.iter().any(|(t, _, _)| t == "issues"));
    assert_eq!(a, b, "the same seed must give identical datasets");
    for table in ["issues", "members", "repositories", "releases", "chapters"] {
        let hash = |d: &Vec<(String, usize, String)>| {
            d.iter().find(|(t, _, _)| t == table).unwrap().2.clone()
        };
        assert_ne!(
            hash(&a),
            hash(&c),
            "{table}: another seed must give other data"
        );
    }
}

/// `db synth` draws the records of its repositories again and streams them, with its
/// pull requests, into the file instead of holding them: the file holds exactly the
/// rows of the whole dataset built in memory and imported at once.
#[test]
fn the_streamed_file_holds_the_dataset_built_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let streamed = dump(&build(dir.path(), "streamed.db", 5));
    let whole = dir.path().join("whole.db");
    let ds = roost::synth::dataset(Scale::Small, 5);
    assert!(ds.issues.len() >= 10_000 && !ds.repository_contributors.is_empty());
    roost::store::build(&ds, &whole, roost::idx::build).expect("import the in-memory dataset");
    let whole = dump(&whole);
    assert_eq!(streamed.len(), whole.len());
    for (s, w) in streamed.iter().zip(&whole) {
        assert_eq!(s, w, "table {}", w.0);
    }
}

#[test]
fn counts_scale_the_code_hosting_tables() {
    use roost::synth::counts;
    let nest = counts(Scale::Nest);
    let ten = counts(Scale::TenX);
    let small = counts(Scale::Small);
    assert_eq!(
        (nest.issues, nest.members, nest.repositories),
        (200_000, 60_000, 8_000)
    );
    assert_eq!(ten.issues, 10 * nest.issues);
    assert_eq!(ten.labels, 10 * nest.labels);
    assert_eq!(ten.organizations, 10 * nest.organizations);
    assert_eq!(ten.members, 10 * nest.members);
    assert_eq!(ten.repositories, 10 * nest.repositories);
    assert_eq!(ten.milestones, 10 * nest.milestones);
    assert_eq!(ten.releases, 10 * nest.releases);
    assert_eq!(ten.projects, nest.projects);
    assert_eq!(ten.chapters, nest.chapters);
    assert_eq!(small.issues, nest.issues / 20);
    assert_eq!(
        (nest.pull_requests, nest.posts, nest.health_months),
        (100_000, 300, 12)
    );
    assert_eq!(ten.pull_requests, 10 * nest.pull_requests);
    assert_eq!(ten.repository_labels, 10 * nest.repository_labels);
    assert_eq!(ten.posts, nest.posts);
}

/// The records of the frontend's pages: pull requests in every state, labels of
/// single repositories beside the shared ones, a year of monthly measurements per
/// project, badges on some members, channels and related URLs.
#[test]
fn small_holds_the_records_of_the_frontend_pages() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path(), "pages.db", 3);
    let conn = Connection::open(&db).unwrap();
    for (sql, at_least) in [
        (
            "SELECT COUNT(*) FROM pull_requests WHERE state = 'open'",
            100,
        ),
        (
            "SELECT COUNT(*) FROM pull_requests WHERE merged_at IS NOT NULL",
            1_000,
        ),
        (
            "SELECT COUNT(*) FROM pull_requests WHERE state = 'closed' AND merged_at IS NULL",
            100,
        ),
        (
            "SELECT COUNT(*) FROM labels WHERE repository_id IS NOT NULL",
            100,
        ),
        (
            "SELECT COUNT(*) FROM issue_labels il JOIN labels l ON l.id = il.label_id \
             WHERE l.repository_id IS NOT NULL",
            1,
        ),
        ("SELECT COUNT(DISTINCT member_id) FROM member_badges", 20),
        ("SELECT COUNT(*) FROM members WHERE email != ''", 100),
        ("SELECT COUNT(*) FROM channels", 10),
        ("SELECT COUNT(*) FROM related_urls", 10),
        ("SELECT COUNT(*) FROM leaders WHERE description != ''", 10),
        ("SELECT COUNT(*) FROM committee_repositories", 1),
        ("SELECT slack_workspace_members FROM community", 1),
    ] {
        let n = int(&conn, sql, []);
        assert!(n >= at_least, "{sql}: {n}");
    }
    // Every project has twelve monthly measurements, one per month.
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM (SELECT project_id, COUNT(DISTINCT \
             strftime('%Y-%m', created_at / 1000000, 'unixepoch')) AS months \
             FROM project_health_metrics GROUP BY project_id) WHERE months != 12",
            []
        ),
        0
    );
    // Pull request numbers follow the repository's issues.
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM pull_requests p JOIN issues i \
             ON i.repository_id = p.repository_id AND i.number = p.number",
            []
        ),
        0
    );
}
