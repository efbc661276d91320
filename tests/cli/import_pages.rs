//! `roost db import` of the records of the frontend's pages (pull requests, posts,
//! project health metrics, badges, `community.json`, channels, related URLs, member
//! badges, chapter and committee repositories) and of labels per repository: good
//! lines import, bad ones are `file:line` errors, and a dataset written before these
//! files existed still imports. A dataset file of an older schema is refused with a
//! message saying what to do.

use std::fs;
use std::path::Path;

use roost::store;
use serde_json::Value;

use crate::support::{write_sample, Sample};

/// Imports the sample with `edit` applied to `file`; the error text (or "" when it
/// imported). A failed import leaves no dataset behind.
pub(super) fn import(file: &str, edit: impl FnOnce(&mut Vec<String>)) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("jsonl");
    write_sample(&dir, file, edit);
    let db = tmp.path().join("roost.db");
    match store::import_dir(&dir, &db, roost::idx::build) {
        Ok(_) => {
            assert_eq!(store::check(&db).unwrap(), Vec::<String>::new());
            String::new()
        }
        Err(e) => {
            assert!(!db.exists());
            format!("{e:#}")
        }
    }
}

/// Line `index` of a file as JSON, changed by `change`.
pub(super) fn edit_line(lines: &mut [String], index: usize, change: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&lines[index]).unwrap();
    change(&mut v);
    lines[index] = v.to_string();
}

fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn the_sample_holds_every_new_kind_of_record() {
    let sample = Sample::new();
    for (sql, at_least) in [
        (
            "SELECT COUNT(*) FROM pull_requests WHERE merged_at IS NOT NULL",
            1,
        ),
        (
            "SELECT COUNT(*) FROM pull_requests WHERE state = 'closed' AND merged_at IS NULL",
            1,
        ),
        ("SELECT COUNT(*) FROM pull_requests WHERE state = 'open'", 1),
        (
            "SELECT COUNT(DISTINCT published_at / 31536000000000) FROM posts",
            3,
        ),
        (
            "SELECT COUNT(DISTINCT project_id) FROM project_health_metrics",
            3,
        ),
        ("SELECT COUNT(DISTINCT member_id) FROM member_badges", 5),
        (
            "SELECT COUNT(*) FROM channels WHERE entity_kind = 'chapter'",
            1,
        ),
        (
            "SELECT COUNT(*) FROM channels WHERE entity_kind = 'project'",
            1,
        ),
        (
            "SELECT COUNT(*) FROM channels WHERE entity_kind = 'committee'",
            1,
        ),
        ("SELECT COUNT(*) FROM related_urls", 3),
        ("SELECT COUNT(*) FROM chapter_repositories", 1),
        ("SELECT COUNT(*) FROM committee_repositories", 1),
        ("SELECT COUNT(*) FROM leaders WHERE description != ''", 1),
        ("SELECT COUNT(*) FROM members WHERE email != ''", 1),
        (
            "SELECT COUNT(*) FROM organizations WHERE collaborators_count > 0",
            1,
        ),
        (
            "SELECT COUNT(*) FROM chapters WHERE suggested_location != ''",
            1,
        ),
        ("SELECT slack_workspace_members FROM community", 1),
    ] {
        let n = count(&sample.db, sql);
        assert!(n >= at_least, "{sql}: {n}");
    }
}

#[test]
fn pull_requests_are_checked_line_by_line() {
    let err = import("pull_requests.jsonl", |lines| {
        edit_line(lines, 2, |v| v["state"] = "merged".into())
    });
    assert!(
        err.contains("pull_requests.jsonl:3: unknown variant `merged`"),
        "{err}"
    );
    let err = import("pull_requests.jsonl", |lines| {
        edit_line(lines, 0, |v| {
            v["state"] = "open".into();
            v["merged_at"] = "2025-01-01T00:00:00Z".into();
        })
    });
    assert!(
        err.contains("pull_requests.jsonl:1: merged_at is set but state is open"),
        "{err}"
    );
    let err = import("pull_requests.jsonl", |lines| {
        let first = lines[0].clone();
        lines.push(first.to_uppercase().replace("\"STATE\"", "\"state\""));
    });
    assert!(err.contains("pull_requests.jsonl:81:"), "{err}");
    let err = import("pull_requests.jsonl", |lines| {
        let mut v: Value = serde_json::from_str(&lines[0]).unwrap();
        v["title"] = "Again".into();
        lines.push(v.to_string());
    });
    assert!(
        err.contains("pull_requests.jsonl:81: duplicate pull request"),
        "{err}"
    );
    let err = import("pull_requests.jsonl", |lines| {
        edit_line(lines, 4, |v| v["author"] = "nobody-here".into())
    });
    assert!(
        err.contains("pull_requests.jsonl:5: author 'nobody-here' does not exist in members.jsonl"),
        "{err}"
    );
}

#[test]
fn posts_health_metrics_and_badges_are_checked_line_by_line() {
    let err = import("posts.jsonl", |lines| {
        let mut v: Value = serde_json::from_str(&lines[0]).unwrap();
        v["url"] = v["url"].as_str().unwrap().to_uppercase().into();
        lines.push(v.to_string());
    });
    assert!(err.contains("posts.jsonl:37: duplicate post url"), "{err}");
    let err = import("posts.jsonl", |lines| {
        edit_line(lines, 1, |v| {
            v.as_object_mut().unwrap().remove("title");
        })
    });
    assert!(
        err.contains("posts.jsonl:2: missing field `title`"),
        "{err}"
    );

    let err = import("project_health_metrics.jsonl", |lines| {
        edit_line(lines, 5, |v| v["score"] = 120.5.into())
    });
    assert!(
        err.contains("project_health_metrics.jsonl:6: score 120.5 is outside 0..100"),
        "{err}"
    );
    let err = import("project_health_metrics.jsonl", |lines| {
        edit_line(lines, 0, |v| v["project"] = "www-project-nope".into())
    });
    assert!(
        err.contains("project_health_metrics.jsonl:1: project 'www-project-nope' does not exist"),
        "{err}"
    );
    let err = import("project_health_metrics.jsonl", |lines| {
        let again = lines[3].clone();
        lines.push(again);
    });
    assert!(
        err.contains("project_health_metrics.jsonl:73: duplicate health measurement"),
        "{err}"
    );

    let err = import("badges.jsonl", |lines| {
        let mut v: Value = serde_json::from_str(&lines[0]).unwrap();
        v["name"] = v["name"].as_str().unwrap().to_lowercase().into();
        lines.push(v.to_string());
    });
    assert!(
        err.contains("badges.jsonl:7: duplicate badge name"),
        "{err}"
    );
    let err = import("badges.jsonl", |lines| {
        edit_line(lines, 0, |v| v["weight"] = "heavy".into())
    });
    assert!(err.contains("badges.jsonl:1: invalid type"), "{err}");
}

#[test]
fn new_fields_of_older_records_are_checked() {
    let err = import("members.jsonl", |lines| {
        edit_line(lines, 3, |v| {
            v["badges"] = serde_json::json!(["Staff", "No Such"])
        })
    });
    assert!(
        err.contains("members.jsonl:4: badge 'No Such' does not exist in badges.jsonl"),
        "{err}"
    );
    let err = import("members.jsonl", |lines| {
        edit_line(lines, 3, |v| {
            v["badges"] = serde_json::json!(["Staff", "staff"])
        })
    });
    assert!(
        err.contains("members.jsonl:4: badge 'staff' is listed twice"),
        "{err}"
    );
    let err = import("chapters.jsonl", |lines| {
        edit_line(lines, 1, |v| {
            v["channels"] = serde_json::json!([{"platform": "", "name": "#x"}])
        })
    });
    assert!(
        err.contains("chapters.jsonl:2: channels[0].platform must not be empty"),
        "{err}"
    );
    let err = import("chapters.jsonl", |lines| {
        edit_line(lines, 1, |v| {
            v["channels"] = serde_json::json!([{"platform": "slack", "topic": "x"}])
        })
    });
    assert!(
        err.contains("chapters.jsonl:2: unknown field `topic`"),
        "{err}"
    );
    let err = import("committees.jsonl", |lines| {
        edit_line(
            lines,
            0,
            |v| {
                v["repositories"] =
                    serde_json::json!([{"organization": "juice-labs", "name": "nope"}])
            },
        )
    });
    assert!(
        err.contains("committees.jsonl:1: repository 'juice-labs/nope' does not exist"),
        "{err}"
    );
    let err = import("projects.jsonl", |lines| {
        edit_line(lines, 0, |v| {
            v["related_urls"] = serde_json::json!(["https://a.example/", "https://a.example/"])
        })
    });
    assert!(
        err.contains("projects.jsonl:1: related URL 'https://a.example/' is listed twice"),
        "{err}"
    );
    let err = import("organizations.jsonl", |lines| {
        edit_line(lines, 0, |v| v["collaborators_count"] = (-1).into())
    });
    assert!(
        err.contains("organizations.jsonl:1:") && err.contains("-1"),
        "{err}"
    );
}

#[test]
fn community_json_is_one_object_with_errors_by_line() {
    let err = import("community.json", |lines| {
        *lines = vec![
            "{".into(),
            "  \"slack_workspace_members\": \"many\"".into(),
            "}".into(),
        ]
    });
    assert!(err.contains("community.json:2: invalid type"), "{err}");
    let err = import("community.json", |lines| {
        *lines = vec!["{\"slack_members\": 3}".into()]
    });
    assert!(
        err.contains("community.json:1: unknown field `slack_members`"),
        "{err}"
    );
    assert_eq!(
        import("community.json", |lines| { *lines = vec!["{}".into()] }),
        ""
    );
}

/// The sample as a dataset written before these files and fields existed: only the
/// older files, none of the new fields, shared labels only.
#[test]
fn a_dataset_without_the_new_files_and_fields_still_imports() {
    const NEW_FIELDS: &[&str] = &[
        "email",
        "badges",
        "collaborators_count",
        "suggested_location",
        "related_urls",
        "channels",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("old");
    write_sample(&dir, "issues.jsonl", |_| {});
    for file in [
        "pull_requests.jsonl",
        "posts.jsonl",
        "project_health_metrics.jsonl",
        "badges.jsonl",
        "community.json",
    ] {
        fs::remove_file(dir.join(file)).unwrap();
    }
    for file in [
        "members.jsonl",
        "organizations.jsonl",
        "chapters.jsonl",
        "committees.jsonl",
        "projects.jsonl",
        "labels.jsonl",
        "issues.jsonl",
    ] {
        let path = dir.join(file);
        let mut out = String::new();
        for line in fs::read_to_string(&path).unwrap().lines() {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let o = v.as_object_mut().unwrap();
            if file == "labels.jsonl" && o.contains_key("repository") {
                continue;
            }
            for field in NEW_FIELDS {
                o.remove(*field);
            }
            if file != "projects.jsonl" {
                o.remove("repositories");
            }
            if let Some(Value::Array(leaders)) = o.get_mut("leaders") {
                for l in leaders {
                    l.as_object_mut().unwrap().remove("description");
                }
            }
            if let Some(Value::Array(labels)) = o.get_mut("labels") {
                labels.retain(|l| l != "challenge");
            }
            out.push_str(&serde_json::to_string(&v).unwrap());
            out.push('\n');
        }
        fs::write(&path, out).unwrap();
    }
    let db = tmp.path().join("roost.db");
    store::import_dir(&dir, &db, roost::idx::build).unwrap();
    assert_eq!(store::check(&db).unwrap(), Vec::<String>::new());
    for table in [
        "pull_requests",
        "posts",
        "project_health_metrics",
        "badges",
        "member_badges",
        "channels",
        "related_urls",
        "chapter_repositories",
        "committee_repositories",
    ] {
        assert_eq!(
            count(&db, &format!("SELECT COUNT(*) FROM {table}")),
            0,
            "{table}"
        );
    }
    assert_eq!(
        count(&db, "SELECT slack_workspace_members FROM community"),
        0
    );
    assert_eq!(
        count(&db, "SELECT COUNT(*) FROM members WHERE email != ''"),
        0
    );
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM labels WHERE repository_id IS NOT NULL"
        ),
        0
    );
}

#[test]
fn a_dataset_of_an_older_schema_is_refused_with_what_to_do() {
    let sample = Sample::new();
    {
        let conn = rusqlite::Connection::open(&sample.db).unwrap();
        conn.execute(
            "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
            [],
        )
        .unwrap();
    }
    let err = store::open_read(&sample.db).unwrap_err().to_string();
    assert!(
        err.contains("was built by an older roost (schema version 3, this roost reads 5)"),
        "{err}"
    );
    assert!(err.contains("re-import it (`roost db import`"), "{err}");
}

#[test]
fn labels_are_unique_per_repository_not_across_the_dataset() {
    let sample = Sample::new();
    // Three `bug` labels: the shared one and those of two repositories.
    assert_eq!(
        count(
            &sample.db,
            "SELECT COUNT(*) FROM labels WHERE name_lc = 'bug'"
        ),
        3
    );
    // An issue of juice-shop showing `bug` has juice-shop's own; one of another
    // repository without a `bug` of its own has the shared one.
    assert!(
        count(
            &sample.db,
            "SELECT COUNT(*) FROM issue_labels il JOIN labels l ON l.id = il.label_id \
             JOIN issues i ON i.id = il.issue_id JOIN repositories r ON r.id = i.repository_id \
             WHERE l.name_lc = 'bug' AND r.name = 'juice-shop' AND l.repository_id = r.id"
        ) >= 1
    );
    assert_eq!(
        count(
            &sample.db,
            "SELECT COUNT(*) FROM issue_labels il JOIN labels l ON l.id = il.label_id \
             JOIN issues i ON i.id = il.issue_id \
             WHERE l.repository_id IS NOT NULL AND l.repository_id != i.repository_id"
        ),
        0
    );
    assert!(
        count(
            &sample.db,
            "SELECT COUNT(*) FROM issue_labels il JOIN labels l ON l.id = il.label_id \
             WHERE l.name_lc = 'bug' AND l.repository_id IS NULL"
        ) >= 1
    );

    // Twice in one repository (case-insensitively): an error at the second.
    let err = import("labels.jsonl", |lines| {
        let mut v: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
        v["name"] = "BUG".into();
        lines.push(v.to_string());
    });
    assert!(
        err.contains(
            "labels.jsonl:20: duplicate label name 'bug' of repository 'appsec-tools/zap-extensions' (first defined by record 19"
        ),
        "{err}"
    );
    // Twice among the shared labels.
    let err = import("labels.jsonl", |lines| {
        let first = lines[0].clone();
        lines.push(first);
    });
    assert!(
        err.contains("labels.jsonl:20: duplicate label name 'bug' shared by every repository"),
        "{err}"
    );
    // An organization without a repository.
    let err = import("labels.jsonl", |lines| {
        edit_line(lines, 18, |v| {
            v.as_object_mut().unwrap().remove("repository");
        })
    });
    assert!(
        err.contains(
            "labels.jsonl:19: a label names both its organization and its repository, or neither"
        ),
        "{err}"
    );
    // An issue naming another repository's label.
    let err = import("issues.jsonl", |lines| {
        let at = lines
            .iter()
            .position(|l| !l.contains("\"juice-shop\""))
            .unwrap();
        edit_line(lines, at, |v| {
            v["labels"] = serde_json::json!(["challenge"])
        });
    });
    assert!(
        err.contains(
            "label 'challenge' does not exist in labels.jsonl (neither a label of repository"
        ),
        "{err}"
    );
}

/// The plan of `sql` on the sample, one detail per line.
fn plan(db: &Path, sql: &str) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let rows = st.query_map([], |r| r.get::<_, String>(3)).unwrap();
    rows.map(Result::unwrap).collect::<Vec<_>>().join("\n")
}

/// What the frontend's GraphQL fields read is an index walk: the newest pull requests
/// (alone, of an author, an organization, a repository), the newest posts, a project's
/// health measurements newest first, and contributions per day of a repository or an
/// author (issues, pull requests, releases), none sorted in a temporary tree and no
/// table scanned.
#[test]
fn the_reads_of_the_frontend_pages_walk_indexes() {
    let sample = Sample::new();
    let newest = "ORDER BY created_at DESC, updated_at DESC, id DESC LIMIT 5";
    for (sql, index) in [
        (
            format!("SELECT id FROM pull_requests {newest}"),
            "pull_requests_newest",
        ),
        (
            format!("SELECT id FROM pull_requests WHERE author_id = 3 {newest}"),
            "pull_requests_author",
        ),
        (
            format!("SELECT id FROM pull_requests WHERE organization_id = 2 {newest}"),
            "pull_requests_org",
        ),
        (
            format!("SELECT id FROM pull_requests WHERE repository_id = 5 {newest}"),
            "pull_requests_repo",
        ),
        (
            "SELECT id FROM posts ORDER BY published_at DESC, id DESC LIMIT 5".to_string(),
            "posts_published",
        ),
        (
            "SELECT id FROM project_health_metrics WHERE project_id = 1 \
             ORDER BY created_at DESC LIMIT 30"
                .to_string(),
            "sqlite_autoindex_project_health_metrics_1",
        ),
        (
            "SELECT COUNT(*) FROM project_health_metrics WHERE created_at >= 0 \
             AND created_at < 99999999999999"
                .to_string(),
            "project_health_metrics_created",
        ),
        (
            // A member's handful of badges is sorted by weight after the lookup.
            "SELECT badge_id FROM member_badges WHERE member_id = 4".to_string(),
            "sqlite_autoindex_member_badges_1",
        ),
        (
            "SELECT id FROM labels WHERE repository_id = 5 AND name_lc = 'bug'".to_string(),
            "labels_repository",
        ),
    ] {
        let p = plan(&sample.db, &sql);
        assert!(p.contains(index), "{sql}:\n{p}");
        assert!(
            !p.contains("TEMP B-TREE") && !p.contains("SCAN pull_requests\n"),
            "{sql}:\n{p}"
        );
    }
    // Contributions per day: one grouped range of an index per kind and entity.
    let day = "created_at / 86400000000";
    for (table, column, index) in [
        ("issues", "repository_id", "issues_repo_created_asc"),
        ("issues", "author_id", "issues_author"),
        ("pull_requests", "repository_id", "pull_requests_repo"),
        ("pull_requests", "author_id", "pull_requests_author"),
        ("releases", "repository_id", "releases_repo_created"),
        ("releases", "author_id", "releases_author"),
    ] {
        let sql = format!(
            "SELECT {day}, COUNT(*) FROM {table} WHERE {column} IN (1, 2, 3) \
             AND created_at >= 1700000000000000 GROUP BY 1"
        );
        let p = plan(&sample.db, &sql);
        assert!(
            p.contains(&format!("SEARCH {table} USING COVERING INDEX {index}"))
                || (p.contains(&format!("SEARCH {table} USING COVERING INDEX"))
                    && p.contains(&format!("({column}=?"))),
            "{sql}:\n{p}"
        );
    }
}

#[test]
fn boards_and_member_snapshots_are_checked_line_by_line() {
    let err = import("boards.jsonl", |lines| {
        let again = lines[0].clone();
        lines.push(again);
    });
    assert!(
        err.contains("boards.jsonl:3: duplicate board year"),
        "{err}"
    );
    let err = import("boards.jsonl", |lines| {
        edit_line(lines, 1, |v| {
            v["candidates"][0]["login"] = "no-such-member".into()
        })
    });
    assert!(
        err.contains("boards.jsonl:2: leader login 'no-such-member' does not exist"),
        "{err}"
    );
    let err = import("boards.jsonl", |lines| {
        edit_line(lines, 0, |v| v["year"] = 24.into())
    });
    assert!(
        err.contains("boards.jsonl:1: year 24 is not a four-digit year"),
        "{err}"
    );
    let err = import("member_snapshots.jsonl", |lines| {
        edit_line(lines, 2, |v| v["member"] = "no-such-member".into())
    });
    assert!(
        err.contains(
            "member_snapshots.jsonl:3: member 'no-such-member' does not exist in members.jsonl"
        ),
        "{err}"
    );
    let err = import("member_snapshots.jsonl", |lines| {
        edit_line(lines, 0, |v| v["end_at"] = "2001-01-01T00:00:00Z".into())
    });
    assert!(
        err.contains("member_snapshots.jsonl:1: end_at 2001-01-01T00:00:00Z is before start_at"),
        "{err}"
    );
    let err = import("member_snapshots.jsonl", |lines| {
        edit_line(lines, 0, |v| {
            v["project_contributions"] = serde_json::json!({"a": -1})
        })
    });
    assert!(
        err.contains("member_snapshots.jsonl:1: invalid value"),
        "{err}"
    );
    let err = import("member_snapshots.jsonl", |lines| {
        let again = lines[4].clone();
        lines.push(again);
    });
    assert!(
        err.contains("member_snapshots.jsonl:15: duplicate snapshot of member"),
        "{err}"
    );
}
