//! `roost db import` of mentorship programs and modules: the sample's import, and bad
//! references, keys and periods refused as `file:line` errors, nothing written.

use serde_json::{json, Value};

use super::import_pages::{edit_line as edit, import};

#[test]
fn the_sample_imports_its_programs_and_modules() {
    assert_eq!(import("programs.jsonl", |_| {}), "");
}

#[test]
fn modules_refer_to_programs_projects_and_members_that_exist() {
    let e = import("modules.jsonl", |l| {
        edit(l, 0, |v| v["program"] = json!("no-such-program"));
        edit(l, 1, |v| v["project"] = json!("www-project-no-such"));
        edit(l, 2, |v| v["mentors"] = json!(["no-such-member"]));
        edit(l, 3, |v| {
            let login = v["mentees"][0].clone();
            v["mentees"] = json!([login.clone(), login]);
        });
    });
    assert!(
        e.contains("modules.jsonl:1: program 'no-such-program' does not exist in programs.jsonl"),
        "{e}"
    );
    assert!(
        e.contains(
            "modules.jsonl:2: project 'www-project-no-such' does not exist in projects.jsonl"
        ),
        "{e}"
    );
    assert!(
        e.contains(
            "modules.jsonl:3: mentor login 'no-such-member' does not exist in members.jsonl"
        ),
        "{e}"
    );
    assert!(e.contains("modules.jsonl:4: mentee '"), "{e}");
    assert!(e.contains("is listed twice"), "{e}");
}

#[test]
fn programs_have_unique_keys_known_admins_and_periods_that_end_after_they_start() {
    // A status outside the vocabulary is a type error of its line.
    let e = import("programs.jsonl", |l| {
        edit(l, 3, |v| v["status"] = json!("archived"))
    });
    assert!(
        e.contains("programs.jsonl:4:") && e.contains("archived"),
        "{e}"
    );
    let e = import("programs.jsonl", |l| {
        let key = serde_json::from_str::<Value>(&l[0]).unwrap()["key"].clone();
        edit(l, 1, |v| {
            v["key"] = json!(key.as_str().unwrap().to_uppercase())
        });
        edit(l, 2, |v| v["admins"] = json!(["nobody-here"]));
        edit(l, 3, |v| {
            v["ended_at"] = json!("2000-01-01T00:00:00Z");
            v["key"] = json!("a/b");
        });
    });
    assert!(e.contains("programs.jsonl:2: duplicate program key"), "{e}");
    assert!(
        e.contains("programs.jsonl:3: admin login 'nobody-here' does not exist in members.jsonl"),
        "{e}"
    );
    assert!(
        e.contains("programs.jsonl:4: ended_at 2000-01-01T00:00:00Z is before started_at"),
        "{e}"
    );
    assert!(
        e.contains("programs.jsonl:4: key 'a/b' holds a slash (/)"),
        "{e}"
    );
}

#[test]
fn module_keys_are_unique_within_their_program() {
    let e = import("modules.jsonl", |l| {
        let first: Value = serde_json::from_str(&l[0]).unwrap();
        edit(l, 1, |v| {
            v["program"] = first["program"].clone();
            v["key"] = json!(first["key"].as_str().unwrap().to_uppercase());
        });
    });
    assert!(e.contains("modules.jsonl:2: duplicate module"), "{e}");
}
