//! `roost db import` and `db check`: every bad input is reported as `file:line: what`,
//! and a failed import leaves the existing dataset byte-identical.

use std::fs;
use std::path::{Path, PathBuf};

use roost::store;

use crate::support::{roost, write_sample, Sample};

/// The embedded sample in `dir/jsonl`, with `edit` applied to one file's lines.
fn sample_dir(dir: &Path, file: &str, edit: impl FnOnce(&mut Vec<String>)) -> PathBuf {
    let out = dir.join("jsonl");
    write_sample(&out, file, edit);
    out
}

/// Imports a broken folder over a good dataset: returns the error text and checks
/// the dataset file did not change.
fn import_fails(file: &str, edit: impl FnOnce(&mut Vec<String>)) -> String {
    let Sample { dir: tmp, db } = Sample::new();
    let before = fs::read(&db).unwrap();
    let dir = sample_dir(tmp.path(), file, edit);
    let err = store::import_dir(&dir, &db, roost::idx::build).expect_err("import must fail");
    assert_eq!(fs::read(&db).unwrap(), before, "the dataset changed");
    let leftovers: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    format!("{err:#}")
}

#[test]
fn a_good_folder_imports_and_checks_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("roost.db");
    let dir = sample_dir(tmp.path(), "issues.jsonl", |_| {});
    store::import_dir(&dir, &db, roost::idx::build).unwrap();
    assert_eq!(store::check(&db).unwrap(), Vec::<String>::new());
}

#[test]
fn malformed_json_names_file_and_line() {
    let err = import_fails("issues.jsonl", |lines| {
        lines[6] = "{\"organization\": ".into()
    });
    assert!(err.contains("issues.jsonl:7: invalid JSON"), "{err}");
}

#[test]
fn wrong_enum_value_is_reported() {
    let err = import_fails("projects.jsonl", |lines| {
        lines[2] = lines[2].replacen("\"level\": \"", "\"level\": \"x", 1)
    });
    assert!(err.contains("projects.jsonl:3:"), "{err}");
    assert!(
        err.contains("unknown variant") && err.contains("flagship"),
        "{err}"
    );
}

#[test]
fn dangling_reference_is_reported() {
    let err = import_fails("issues.jsonl", |lines| {
        let mut v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        v["repository"] = "no-such-repo".into();
        lines[0] = v.to_string();
    });
    assert!(err.contains("issues.jsonl:1: repository"), "{err}");
    assert!(err.contains("no-such-repo' does not exist"), "{err}");
}

#[test]
fn duplicate_keys_are_case_insensitive() {
    let err = import_fails("members.jsonl", |lines| {
        let mut v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        let login = v["login"].as_str().unwrap().to_uppercase();
        v["login"] = login.into();
        lines.push(v.to_string());
    });
    assert!(err.contains("duplicate member login"), "{err}");
}

#[test]
fn unknown_and_missing_fields_and_wrong_types() {
    let err = import_fails("chapters.jsonl", |lines| {
        lines[0] = lines[0].replacen('{', "{\"lattitude\": 1, ", 1)
    });
    assert!(
        err.contains("chapters.jsonl:1: unknown field `lattitude`"),
        "{err}"
    );
    let err = import_fails("labels.jsonl", |lines| {
        let mut v: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
        v.as_object_mut().unwrap().remove("created_at");
        lines[1] = v.to_string();
    });
    assert!(
        err.contains("labels.jsonl:2: missing field `created_at`"),
        "{err}"
    );
    let err = import_fails("repositories.jsonl", |lines| {
        let mut v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        v["stars_count"] = (-3).into();
        lines[0] = v.to_string();
    });
    assert!(
        err.contains("repositories.jsonl:1:") && err.contains("-3"),
        "{err}"
    );
    let err = import_fails("events.jsonl", |lines| {
        let mut v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        v["start_date"] = "2024-02-30".into();
        lines[0] = v.to_string();
    });
    assert!(
        err.contains("events.jsonl:1:") && err.contains("2024-02-30"),
        "{err}"
    );
}

#[test]
fn blank_lines_are_skipped_and_line_numbers_stay_physical() {
    let err = import_fails("sponsors.jsonl", |lines| {
        lines.insert(0, String::new());
        lines.insert(1, "   ".into());
        lines[4] = "not json".into();
    });
    assert!(err.contains("sponsors.jsonl:5: invalid JSON"), "{err}");
}

#[test]
fn a_missing_folder_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let err = store::import_dir(
        &tmp.path().join("nope"),
        &tmp.path().join("x.db"),
        roost::idx::build,
    )
    .unwrap_err();
    assert!(format!("{err}").contains("not a directory"));
    assert!(!tmp.path().join("x.db").exists());
}

#[test]
fn check_reports_dangling_references_bad_enums_and_duplicates() {
    let Sample { dir: tmp, db } = Sample::new();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "PRAGMA ignore_check_constraints = ON; PRAGMA foreign_keys = OFF;
             UPDATE issues SET repository_id = 99999 WHERE id = 1;
             UPDATE projects SET level = 'legendary' WHERE id = 1;",
        )
        .unwrap();
    }
    let problems = store::check(&db).unwrap();
    let text = problems.join("\n");
    assert!(text.contains("dangling reference: issues"), "{text}");
    assert!(text.contains("bad enum value: projects level"), "{text}");
    let status = roost()
        .args(["db", "check", "--db"])
        .arg(&db)
        .status()
        .unwrap();
    assert!(!status.success());
    let fresh = tmp.path().join("fresh.db");
    roost::store::init_db(&fresh, false, roost::idx::build).unwrap();
    let status = roost()
        .args(["db", "check", "--db"])
        .arg(&fresh)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn init_refuses_to_overwrite_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("roost.db");
    roost::store::init_db(&db, false, roost::idx::build).unwrap();
    let err = roost::store::init_db(&db, false, roost::idx::build).unwrap_err();
    assert!(err.to_string().contains("--force"));
    roost::store::init_db(&db, true, roost::idx::build).unwrap();
}

#[test]
fn an_import_removes_temporary_files_of_dead_imports_only() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("roost.db");
    let dir = sample_dir(tmp.path(), "issues.jsonl", |_| {});
    // Above the kernel's largest possible pid (2^22), so no process has it.
    let dead = tmp.path().join(".roost.db.tmp-4194305");
    // This test process is alive while the import (a child process) runs.
    let live = tmp
        .path()
        .join(format!(".roost.db.tmp-{}", std::process::id()));
    // A dead import of another dataset in the same folder is not this import's business.
    let other = tmp.path().join(".other.db.tmp-4194305");
    for path in [&dead, &live, &other] {
        fs::write(path, b"half a dataset").unwrap();
    }
    let status = roost()
        .args(["db", "import", "--db"])
        .arg(&db)
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(store::check(&db).unwrap(), Vec::<String>::new());
    assert!(!dead.exists(), "the dead import's temporary file is left");
    assert!(live.exists(), "a live process's temporary file was removed");
    assert!(
        other.exists(),
        "another dataset's temporary file was removed"
    );
}
