//! Details of every resource: looked up by name part, full key or any case, and not
//! found with the resource's singular name.

use super::*;
use crate::support::*;

#[test]
fn details_accept_name_part_full_key_and_any_case() {
    let sample = Sample::new();
    let conn = sample.conn();
    let a = detail(&conn, "/api/v0/chapters/london").unwrap();
    let b = detail(&conn, "/api/v0/chapters/www-chapter-london").unwrap();
    let c = detail(&conn, "/api/v0/chapters/WWW-Chapter-LONDON").unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a["key"], "www-chapter-london");
    assert!(a["leaders"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["key"].is_null()));
    let p = detail(&conn, "/api/v0/projects/Juice-Shop").unwrap();
    assert_eq!(p["key"], "www-project-juice-shop");
    assert!(p.get("description").is_some() && p.get("leaders").is_some());
    let m = detail(&conn, "/api/v0/organizations/secdocs-community").unwrap();
    assert_eq!(m["login"], "SecDocs-Community");
}

#[test]
fn details_not_found_use_the_singular_name() {
    let sample = Sample::new();
    let conn = sample.conn();
    let cases = [
        ("/api/v0/chapters/montreal", "Chapter not found"),
        ("/api/v0/chapters/nowhere", "Chapter not found"),
        ("/api/v0/committees/nothing", "Committee not found"),
        (
            "/api/v0/organizations/cryptoguard-dev",
            "Organization not found",
        ),
        ("/api/v0/projects/webscarab", "Project not found"),
        (
            "/api/v0/issues/juice-labs/juice-shop/999999",
            "Issue not found",
        ),
        ("/api/v0/members/nobody-at-all", "Member not found"),
        ("/api/v0/snapshots/2026-10", "Snapshot not found"),
        ("/api/v0/sponsors/nobody", "Sponsor not found"),
        ("/api/v0/events/nothing", "Event not found"),
        (
            "/api/v0/milestones/juice-labs/juice-shop/999",
            "Milestone not found",
        ),
        (
            "/api/v0/repositories/juice-labs/nothing",
            "Repository not found",
        ),
        (
            "/api/v0/releases/juice-labs/juice-shop/v5.0-preview",
            "Release not found",
        ),
    ];
    for (path, message) in cases {
        match detail(&conn, path) {
            Err(e @ AnswerError::NotFound(_)) => assert_eq!(e.to_string(), message, "{path}"),
            other => panic!("{path}: {other:?}"),
        }
    }
}
