//! `/issues/`: the tie-break on `updated_at` then id, and filters that combine.

use super::*;
use crate::support::*;

#[test]
fn issues_tie_break_on_updated_at_descending_then_id() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(i64, i64, usize, String)> = ds
        .issues
        .iter()
        .enumerate()
        .map(|(i, (_, x))| (x.created_at.0, x.updated_at.0, i, x.url.clone()))
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "issues", "");
    assert_eq!(
        pluck(&got, "url"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    // Ascending created_at keeps the tie-breaker -updated_at.
    expected.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "issues", "ordering=created_at");
    assert_eq!(
        pluck(&got, "url"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    // updated_at has only the id as tie-breaker.
    expected.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "issues", "ordering=-updated_at");
    assert_eq!(
        pluck(&got, "url"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn issue_filters_combine() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let expected = ds
        .issues
        .iter()
        .filter(|(_, i)| {
            i.organization.eq_ignore_ascii_case("juice-labs")
                && i.repository.eq_ignore_ascii_case("juice-shop")
                && i.state.as_str() == "open"
        })
        .count();
    let got = all_items(
        &conn,
        "issues",
        "organization=Juice-Labs&repository=JUICE-SHOP&state=open",
    );
    assert_eq!(got.len(), expected);
    assert!(got.iter().all(|i| i["state"] == "open"));
    assert!(expected > 0);
}
