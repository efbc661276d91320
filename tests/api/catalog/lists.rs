//! What every list answer shares (docs/api.md §2): fields in the documented order,
//! pagination edges, pages that never repeat or drop a record, validation errors that
//! name the parameter, canonical queries, and timestamps in UTC with `Z`.

use roost::catalog::{self, AnswerError};
use roost::records::Ts;

use super::*;
use crate::support::*;

#[test]
fn list_items_have_the_documented_fields_in_order() {
    let sample = Sample::new();
    let conn = sample.conn();
    let body = catalog::list_page(
        &conn,
        catalog::list_spec("chapters").unwrap(),
        None,
        &catalog::ListQuery {
            page_size: 1,
            ..Default::default()
        },
        TODAY,
    )
    .unwrap();
    let text = String::from_utf8(body).unwrap();
    let keys: Vec<&str> = [
        "\"current_page\"",
        "\"has_next\"",
        "\"has_previous\"",
        "\"items\"",
        "\"created_at\"",
        "\"key\"",
        "\"latitude\"",
        "\"longitude\"",
        "\"name\"",
        "\"updated_at\"",
        "\"total_count\"",
        "\"total_pages\"",
    ]
    .to_vec();
    let mut at = 0;
    for k in keys {
        let pos = text[at..]
            .find(k)
            .unwrap_or_else(|| panic!("{k} out of order in {text}"));
        at += pos;
    }
}

#[test]
fn pagination_edges() {
    let sample = Sample::new();
    let conn = sample.conn();
    let first = list(&conn, "issues", "").unwrap();
    assert_eq!(first["total_count"], 250);
    assert_eq!(first["total_pages"], 3);
    assert_eq!(first["has_next"], true);
    assert_eq!(first["has_previous"], false);
    assert_eq!(first["items"].as_array().unwrap().len(), 100);
    let last = list(&conn, "issues", "page=3").unwrap();
    assert_eq!(last["has_next"], false);
    assert_eq!(last["has_previous"], true);
    assert_eq!(last["items"].as_array().unwrap().len(), 50);
    // 250 issues in pages of 50: page 5 is exactly full and last.
    let exact = list(&conn, "issues", "page_size=50&page=5").unwrap();
    assert_eq!(exact["total_pages"], 5);
    assert_eq!(exact["has_next"], false);
    assert_eq!(exact["items"].as_array().unwrap().len(), 50);
    match list(&conn, "issues", "page=4") {
        Err(e @ AnswerError::PageNotFound { .. }) => {
            assert_eq!(e.to_string(), "Page 4 not found. Valid pages are 1 to 3.")
        }
        other => panic!("{other:?}"),
    }
    // An empty result is page 1 of 1.
    let empty = list(&conn, "issues", "organization=nobody").unwrap();
    assert_eq!(
        serde_json::to_string(&empty).unwrap(),
        r#"{"current_page":1,"has_next":false,"has_previous":false,"items":[],"total_count":0,"total_pages":1}"#
    );
    assert!(matches!(
        list(&conn, "issues", "organization=nobody&page=2"),
        Err(AnswerError::PageNotFound {
            page: 2,
            total_pages: 1
        })
    ));
}

#[test]
fn pages_never_repeat_or_drop_records() {
    let sample = Sample::new();
    let conn = sample.conn();
    for ordering in ["", "ordering=created_at", "ordering=-updated_at"] {
        let all = all_items(&conn, "issues", ordering);
        let mut urls = pluck(&all, "url");
        assert_eq!(urls.len(), 250);
        urls.sort();
        urls.dedup();
        assert_eq!(urls.len(), 250, "{ordering}");
    }
}

#[test]
fn validation_errors_name_the_parameter_value_and_what_is_allowed() {
    let spec = catalog::list_spec("chapters").unwrap();
    let cases = [
        ("page=0", "page", "greater_than_equal"),
        ("page=abc", "page", "int_parsing"),
        ("page=1.5", "page", "int_parsing"),
        ("page=--3", "page", "int_parsing"),
        // Below the minimum is below it whatever the integer's size.
        ("page=-3", "page", "greater_than_equal"),
        ("page=-0", "page", "greater_than_equal"),
        (
            "page=-99999999999999999999999",
            "page",
            "greater_than_equal",
        ),
        ("page_size=-1", "page_size", "greater_than_equal"),
        (
            "page_size=1000000000000000000000",
            "page_size",
            "less_than_equal",
        ),
        ("page_size=abc", "page_size", "int_parsing"),
        // Integers beyond the documented bound (int64), in and beyond 64 bits.
        ("page=9223372036854775808", "page", "less_than_equal"),
        ("page=32589158477190044731", "page", "less_than_equal"),
        ("page_size=0", "page_size", "greater_than_equal"),
        ("page_size=101", "page_size", "less_than_equal"),
        ("ordering=name", "ordering", "enum"),
        ("latitude_gte=north", "latitude_gte", "float_parsing"),
        ("latitude_lte=NaN", "latitude_lte", "float_parsing"),
    ];
    for (query, param, kind) in cases {
        let errors = catalog::parse_query(spec, &pairs(query)).unwrap_err();
        assert_eq!(errors.len(), 1, "{query}");
        assert_eq!(errors[0].param, param, "{query}");
        assert_eq!(errors[0].kind, kind, "{query}");
        let value = query.split('=').nth(1).unwrap();
        assert!(
            errors[0].msg.contains(&format!("'{value}'")),
            "{}",
            errors[0].msg
        );
    }
    let errors = catalog::parse_query(spec, &pairs("page=x&page_size=500&unknown=1")).unwrap_err();
    assert_eq!(errors.len(), 2);
    // A page far beyond the data but within the bound is valid: the answer is a 404.
    let q = catalog::parse_query(spec, &pairs("page=9223372036854775807")).unwrap();
    assert_eq!(q.page, catalog::PAGE_MAX);
    let big = catalog::parse_query(spec, &pairs("page=99999999999999999999")).unwrap_err();
    assert!(
        big[0].msg.contains("from 1 to 9223372036854775807"),
        "{}",
        big[0].msg
    );
    let issues = catalog::list_spec("issues").unwrap();
    let errors = catalog::parse_query(issues, &pairs("state=OPEN")).unwrap_err();
    assert!(errors[0].msg.contains("open, closed"));
}

#[test]
fn canonical_queries_drop_defaults_sort_and_encode() {
    let spec = catalog::list_spec("projects").unwrap();
    let q = catalog::parse_query(
        spec,
        &pairs("page=1&page_size=100&type=tool&type=code&type=tool&level=lab&x=1"),
    )
    .unwrap();
    assert_eq!(q.canonical(spec), "level=lab&type=code&type=tool");
    let members = catalog::list_spec("members").unwrap();
    let q = catalog::parse_query(
        members,
        &pairs("location=S%C3%A3o+Paulo&ordering=-name&page=2"),
    )
    .unwrap();
    assert_eq!(
        q.canonical(members),
        "location=s%C3%A3o%20paulo&ordering=-name&page=2"
    );
    let events = catalog::list_spec("events").unwrap();
    let q = catalog::parse_query(events, &pairs("is_upcoming=false")).unwrap();
    assert_eq!(q.canonical(events), "");
    let q = catalog::parse_query(events, &pairs("is_upcoming=1")).unwrap();
    assert_eq!(q.canonical(events), "is_upcoming=true");
    let releases = catalog::list_spec("releases").unwrap();
    let q = catalog::parse_query(releases, &pairs("tag_name=A%26B%2FC%25")).unwrap();
    assert_eq!(q.canonical(releases), "tag_name=A%26B%2FC%25");
}

#[test]
fn timestamps_are_utc_with_z() {
    let sample = Sample::new();
    let conn = sample.conn();
    let members = all_items(&conn, "members", "ordering=created_at");
    for m in &members {
        let t = m["created_at"].as_str().unwrap();
        assert!(t.ends_with('Z'), "{t}");
        assert_eq!(Ts::parse(t).unwrap().format(), t);
    }
    assert!(members
        .iter()
        .any(|m| m["created_at"].as_str().unwrap().contains('.')));
}
