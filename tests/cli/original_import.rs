//! `roost db import postgresql://…` against a real PostgreSQL server (Debian's
//! `postgresql`, started on a loopback port with a data directory of its own by
//! `support::postgres`): records loaded into the original service's tables by the
//! fixture writer (`examples/original_fixture.rs`) come back with every field the
//! original's schema can hold, and the tree generated after the import is
//! byte-identical to the tree generated after a folder import of the same records.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::postgres::Postgres;
use crate::support::*;

/// The fields the original's schema cannot hold (docs/data.md, "Fields the original's
/// schema cannot hold"): `file.field`, or `file.*` for a file it does not hold at all.
/// Each comes back as that table says; every other field comes back as it went in.
const NOT_HELD: &[&str] = &[
    "organizations.url",
    "members.url",
    "members.title",
    "repositories.url",
    "repositories.description",
    "repositories.pushed_at",
    "repositories.size",
    "releases.url",
    "labels.organization",
    "labels.repository",
    "chapters.url",
    "chapters.suggested_location",
    "chapters.repositories",
    "chapters.channels",
    "committees.url",
    "committees.repositories",
    "committees.channels",
    "projects.url",
    "projects.channels",
    "events.url",
    "events.description",
    "boards.url",
    "boards.candidates",
    "boards.members",
    "badges.weight",
    "project_health_metrics.last_commit_days_requirement",
    "project_health_metrics.last_release_days_requirement",
    "project_health_metrics.age_days_requirement",
    "project_health_metrics.last_pull_request_days_requirement",
    "project_health_metrics.owasp_page_last_update_days_requirement",
    "programs.*",
    "modules.*",
];

/// The fixture writer, built by `cargo test` beside the test binary.
fn fixture_writer() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(Path::parent).unwrap();
    let writer = profile.join("examples").join("original_fixture");
    assert!(
        writer.is_file(),
        "{} is missing: `cargo test` builds it (or `cargo build --example original_fixture`)",
        writer.display()
    );
    writer
}

/// Loads the interchange folder `from` into the database `db` of `pg`.
fn load(pg: &Postgres, db: &str, from: &Path) {
    pg.create_db(db);
    let out = Command::new(fixture_writer())
        .arg("--from")
        .arg(from)
        .arg("--to")
        .arg(pg.url(db))
        .output()
        .unwrap();
    stdout(&out);
}

/// `roost db import SOURCE --db DB --json`, its summary.
fn import(source: &str, db: &Path) -> Value {
    let out = roost()
        .args(["db", "import", source, "--json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn export(db: &Path, dir: &Path) {
    stdout(
        &roost()
            .args(["db", "export"])
            .arg(dir)
            .arg("--db")
            .arg(db)
            .output()
            .unwrap(),
    );
}

/// The records of each interchange file of `dir`, as JSON objects.
fn records(dir: &Path) -> BTreeMap<String, Vec<serde_json::Map<String, Value>>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Map<String, Value>> = if name.ends_with(".jsonl") {
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        } else {
            vec![serde_json::from_str(&text).unwrap()]
        };
        out.insert(name.trim_end_matches(".jsonl").to_string(), lines);
    }
    out
}

/// A field left out of an interchange line stands for its default.
fn is_default(field: &str, value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => *b == (field == "is_active"),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// A value as the format means it: fields at their default left out (at any depth),
/// timestamps in UTC with microseconds.
fn normal(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| !is_default(k, v))
                .map(|(k, v)| (k.clone(), normal(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normal).collect()),
        Value::String(s) if s.len() >= 20 && s.as_bytes().get(10) == Some(&b'T') => {
            match chrono::DateTime::parse_from_rfc3339(s) {
                Ok(t) => Value::String(
                    t.with_timezone(&chrono::Utc)
                        .format("%Y-%m-%dT%H:%M:%S%.6fZ")
                        .to_string(),
                ),
                Err(_) => value.clone(),
            }
        }
        _ => value.clone(),
    }
}

/// A record without the fields the original cannot hold, as the format means it.
fn held(file: &str, record: &serde_json::Map<String, Value>) -> Value {
    let kept: serde_json::Map<String, Value> = record
        .iter()
        .filter(|(field, _)| !NOT_HELD.contains(&format!("{file}.{field}").as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    normal(&Value::Object(kept))
}

/// Compares the records that went in with those that came back, field by field, and
/// returns every difference outside [`NOT_HELD`]. Labels may come back fewer: a
/// repository's label that no issue carries comes back shared, and a shared name is
/// kept once (`skipped_labels` of them, as the import reported).
fn differences(went_in: &Path, came_back: &Path, skipped_labels: usize) -> Vec<String> {
    let (before, after) = (records(went_in), records(came_back));
    let mut out = Vec::new();
    for (file, records) in &before {
        if NOT_HELD.contains(&format!("{file}.*").as_str()) {
            continue;
        }
        let empty = Vec::new();
        let back = after.get(file).unwrap_or(&empty);
        let expected = records.len() - if file == "labels" { skipped_labels } else { 0 };
        if back.len() != expected {
            out.push(format!(
                "{file}: {} records went in, {} came back, {expected} expected",
                records.len(),
                back.len()
            ));
            continue;
        }
        let mut went = records.iter().enumerate();
        for b in back {
            let b = held(file, b);
            // Labels left out are skipped over, in order; any other record is matched
            // with the one at its position.
            let found = went
                .by_ref()
                .find(|(_, a)| file != "labels" || held(file, a) == b);
            let Some((i, a)) = found else {
                out.push(format!("{file}: {b} came back but did not go in"));
                break;
            };
            let a = held(file, a);
            if a != b {
                out.push(format!(
                    "{file} record {}: {a} went in, {b} came back",
                    i + 1
                ));
            }
        }
    }
    out
}

/// Every file of the tree `db` renders, by path, with its digest.
fn tree(db: &Path, site: &Path) -> BTreeMap<String, String> {
    generate(db, site, false);
    let manifest = roost::generate::read_manifest(&site.canonicalize().unwrap()).unwrap();
    manifest
        .files
        .iter()
        .map(|f| (f.path.clone(), f.sha256.clone()))
        .collect()
}

/// Loads `folder` into the original's tables, imports it back, and checks the
/// records and the tree; returns the import's summary.
fn round_trip(pg: &Postgres, name: &str, folder: &Path) -> Value {
    let work = tempfile::tempdir().unwrap();
    load(pg, name, folder);
    let from_pg = work.path().join("from-pg.db");
    let summary = import(&pg.url(name), &from_pg);

    let exported = work.path().join("exported");
    export(&from_pg, &exported);
    let skipped_labels = summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["what"] == "labels")
        .map(|s| s["count"].as_u64().unwrap() as usize)
        .sum();
    let diff = differences(folder, &exported, skipped_labels);
    assert!(
        diff.is_empty(),
        "fields the original can hold changed on the way:\n{}",
        diff.join("\n")
    );

    let from_folder = work.path().join("from-folder.db");
    import(exported.to_str().unwrap(), &from_folder);
    let a = tree(&from_pg, &work.path().join("site-pg"));
    let b = tree(&from_folder, &work.path().join("site-folder"));
    assert!(a.len() > 100, "a tree of {} files", a.len());
    let differing: Vec<&String> = a
        .keys()
        .chain(b.keys())
        .filter(|p| a.get(*p) != b.get(*p))
        .take(20)
        .collect();
    assert!(
        differing.is_empty(),
        "the trees differ (first 20 paths): {differing:?}"
    );
    summary
}

#[test]
fn the_sample_comes_back_from_the_original_database_with_every_field_it_holds() {
    let pg = Postgres::start();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let summary = round_trip(&pg, "sample", &sample);
    assert_eq!(summary["source"], Value::String(pg.url("sample")));
    assert_eq!(summary["records"]["chapters"], 43);
    assert_eq!(summary["records"]["programs"], 0);
}

#[test]
fn a_small_synthetic_community_comes_back_with_every_field_it_holds() {
    let pg = Postgres::start();
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("small.db");
    stdout(
        &roost()
            .args(["db", "synth", "--scale", "small", "--db"])
            .arg(&db)
            .output()
            .unwrap(),
    );
    let folder = work.path().join("small");
    export(&db, &folder);
    round_trip(&pg, "small", &folder);
}

/// `roost db import SOURCE --db DB` that must fail: its standard error.
fn import_fails(source: &str, db: &Path) -> String {
    let out = roost()
        .args(["db", "import", source, "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

/// The sample loaded into a database of its own, for the tests that change it.
fn sample_db(pg: &Postgres, name: &str) {
    load(
        pg,
        name,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample"),
    );
}

#[test]
fn a_database_lacking_what_roost_reads_is_refused_before_reading_naming_each() {
    let pg = Postgres::start();
    sample_db(&pg, "moved");
    pg.psql(
        "moved",
        "ALTER TABLE owasp_chapters DROP COLUMN region; \
         ALTER TABLE github_issues RENAME COLUMN closed_at TO closed_on; \
         DROP TABLE owasp_posts;",
    );
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("roost.db");
    let url = pg.url("moved").replace("roost@", "roost:hunter2@");
    let err = import_fails(&url, &db);
    assert!(
        err.contains("owasp_chapters.region: no such column"),
        "{err}"
    );
    assert!(
        err.contains("github_issues.closed_at: no such column"),
        "{err}"
    );
    assert!(err.contains("owasp_posts: no such table"), "{err}");
    assert!(
        err.contains("3 error(s); the dataset was not changed"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "the password was printed: {err}");
    assert!(!db.exists(), "a refused import left {}", db.display());
}

#[test]
fn a_row_the_contract_cannot_express_is_named_by_table_id_and_column() {
    let pg = Postgres::start();
    sample_db(&pg, "bad");
    pg.psql(
        "bad",
        "UPDATE github_issues SET state = 'merged' WHERE id = 3; \
         UPDATE owasp_events SET category = 'webinar' WHERE id = 2;",
    );
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("roost.db");
    std::fs::write(&db, b"the previous dataset").unwrap();
    let err = import_fails(&pg.url("bad"), &db);
    assert!(
        err.contains("github_issues id 3: state (github_issues.state): unknown variant `merged`"),
        "{err}"
    );
    assert!(
        err.contains(
            "owasp_events id 2: category (owasp_events.category): unknown variant `webinar`"
        ),
        "{err}"
    );
    assert!(
        err.contains("2 error(s); the dataset was not changed"),
        "{err}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), b"the previous dataset");
}

#[test]
fn rows_the_api_cannot_express_are_left_out_and_counted_by_reason() {
    let pg = Postgres::start();
    sample_db(&pg, "odd");
    let repositories = pg.psql("odd", "SELECT count(*) FROM github_repositories");
    let repositories: u64 = repositories.trim().parse().unwrap();
    pg.psql(
        "odd",
        "UPDATE github_releases SET tag_name = '' WHERE id IN (1, 2); \
         INSERT INTO github_repositories (id, name, key, created_at, updated_at, pushed_at, \
           owner_id) VALUES (1000, 'dotfiles', 'dotfiles', now(), now(), now(), 1); \
         INSERT INTO github_issues (id, title, number, created_at, updated_at, repository_id) \
           VALUES (1000, 'A user''s own issue', 1, now(), now(), 1000); \
         DELETE FROM owasp_snapshots_new_projects WHERE project_id = 2; \
         DELETE FROM owasp_project_health_metrics WHERE project_id = 2; \
         UPDATE owasp_projects SET level = 'other' WHERE id = 2; \
         UPDATE django_content_type SET model = 'boardelection' WHERE model = 'boardofdirectors';",
    );
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("roost.db");
    let out = roost()
        .args(["db", "import", &pg.url("odd"), "--db"])
        .arg(&db)
        .output()
        .unwrap();
    stdout(&out);
    let err = String::from_utf8(out.stderr).unwrap();
    for line in [
        "skipped 1 repositories: owned by a user, not an organization",
        "skipped 1 issues: not in a repository of an organization",
        "skipped 2 releases: no tag name",
        "skipped 1 projects: level 'other', which is not one of the API's levels",
        "entity members: their entity type is not a chapter, committee, project or board",
    ] {
        assert!(err.contains(line), "{line:?} not in {err}");
    }
    let summary = import(&pg.url("odd"), &work.path().join("again.db"));
    assert_eq!(summary["records"]["repositories"], repositories);
    assert_eq!(summary["records"]["projects"], 40);
    let skipped: Vec<(String, u64)> = summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["what"].as_str().unwrap().to_string(),
                s["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        skipped.contains(&("releases".to_string(), 2)),
        "{skipped:?}"
    );
    assert!(
        skipped.contains(&("projects".to_string(), 1)),
        "{skipped:?}"
    );
}

#[test]
fn an_unchanged_database_imported_again_generates_nothing_and_a_change_what_it_changes() {
    let pg = Postgres::start();
    sample_db(&pg, "daily");
    let work = tempfile::tempdir().unwrap();
    let (db, site) = (work.path().join("roost.db"), work.path().join("site"));
    import(&pg.url("daily"), &db);
    let first = roost::generate::generate(&generate_options(&db, &site)).unwrap();
    assert!(first.written > 100);

    import(&pg.url("daily"), &db);
    let again = roost::generate::generate(&generate_options(&db, &site)).unwrap();
    assert_eq!((again.written, again.rendered), (0, 0), "{again:?}");

    pg.psql(
        "daily",
        "UPDATE github_issues SET title = 'Retitled upstream' WHERE id = 7;",
    );
    import(&pg.url("daily"), &db);
    let changed = roost::generate::generate(&generate_options(&db, &site)).unwrap();
    assert!(changed.written > 0, "{changed:?}");
    assert!(
        changed.rendered * 10 < first.rendered,
        "one retitled issue rendered {} of {} files",
        changed.rendered,
        first.rendered
    );
}

#[test]
fn the_password_comes_from_pgpassword_or_a_password_file_and_is_never_printed() {
    let pg = Postgres::start();
    sample_db(&pg, "guarded");
    let password = "s3cret-Passw0rd";
    let url = pg.password_role("guarded", password);
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("roost.db");
    let run = |url: &str, env: &[(&str, &Path)], pgpassword: Option<&str>| {
        let mut command = roost();
        command
            .args(["db", "import", url, "--json", "--db"])
            .arg(&db);
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("PG") {
                command.env_remove(name);
            }
        }
        command.env("HOME", work.path());
        for (name, value) in env {
            command.env(name, value);
        }
        if let Some(p) = pgpassword {
            command.env("PGPASSWORD", p);
        }
        command.output().unwrap()
    };
    let printed = |out: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };

    // No password anywhere: refused by the server, the dataset not made.
    let out = run(&url, &[], None);
    assert_eq!(out.status.code(), Some(2), "{}", printed(&out));
    assert!(!db.exists());

    // A wrong password in the URL: refused, and never printed.
    let wrong = url.replace("reader@", "reader:not-the-Passw0rd@");
    let out = run(&wrong, &[], None);
    assert_eq!(out.status.code(), Some(2), "{}", printed(&out));
    assert!(
        !printed(&out).contains("not-the-Passw0rd"),
        "{}",
        printed(&out)
    );
    assert!(printed(&out).contains(&url), "{}", printed(&out));

    // PGPASSWORD, as psql reads it.
    let out = run(&url, &[], Some(password));
    assert!(out.status.success(), "{}", printed(&out));
    assert!(!printed(&out).contains(password));
    std::fs::remove_file(&db).unwrap();

    // A password file (PGPASSFILE; ~/.pgpass the same way), as psql reads it.
    let pgpass = work.path().join("pgpass");
    let port = url.rsplit(':').next().unwrap().split('/').next().unwrap();
    std::fs::write(
        &pgpass,
        format!("127.0.0.1:{port}:guarded:reader:{password}\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = run(&url, &[("PGPASSFILE", &pgpass)], None);
    assert!(out.status.success(), "{}", printed(&out));
    std::fs::rename(&pgpass, work.path().join(".pgpass")).unwrap();
    std::fs::remove_file(&db).unwrap();
    let out = run(&url, &[], None);
    assert!(out.status.success(), "~/.pgpass: {}", printed(&out));
    assert!(!printed(&out).contains(password));
}

#[test]
fn keys_the_original_keeps_apart_but_the_api_compares_without_case_name_both_rows() {
    let pg = Postgres::start();
    sample_db(&pg, "twins");
    let login = pg.psql("twins", "SELECT login FROM github_users WHERE id = 5");
    pg.psql(
        "twins",
        &format!(
            "INSERT INTO github_users (id, login, created_at, updated_at) \
             VALUES (900, upper('{}'), now(), now());",
            login.trim()
        ),
    );
    let work = tempfile::tempdir().unwrap();
    let err = import_fails(&pg.url("twins"), &work.path().join("roost.db"));
    assert!(
        err.contains(&format!(
            "github_users id 900: duplicate member login '{}' (first defined by github_users id 5)",
            login.trim().to_lowercase()
        )),
        "{err}"
    );
}

#[test]
fn an_import_that_would_empty_a_kind_the_dataset_holds_is_refused_unless_allowed() {
    let pg = Postgres::start();
    sample_db(&pg, "shrunk");
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("roost.db");
    import(&pg.url("shrunk"), &db);
    let before = std::fs::read(&db).unwrap();
    pg.psql("shrunk", "DELETE FROM owasp_events;");
    let err = import_fails(&pg.url("shrunk"), &db);
    assert!(
        err.contains("holds 30 events but the import has none")
            && err.contains("--allow-empty events"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "a refused import changed the dataset"
    );
    let out = roost()
        .args([
            "db",
            "import",
            &pg.url("shrunk"),
            "--allow-empty",
            "events",
            "--json",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let summary: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(summary["records"]["events"], 0);
}
