//! `/members/`: name ordering (case-insensitive, then exact, then id) and filters that
//! fold Unicode case.

use super::*;
use crate::support::*;

#[test]
fn member_name_ordering_is_case_insensitive_then_exact_then_id() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(String, String, usize, String)> = ds
        .members
        .iter()
        .enumerate()
        .map(|(i, (_, m))| (m.name.to_lowercase(), m.name.clone(), i, m.login.clone()))
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "members", "ordering=name");
    assert_eq!(
        pluck(&got, "login"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "members", "ordering=-name");
    assert_eq!(
        pluck(&got, "login"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn member_filters_fold_unicode_case() {
    let sample = Sample::new();
    let conn = sample.conn();
    let a = all_items(&conn, "members", "company=acme");
    let b = all_items(&conn, "members", "company=ACME");
    assert_eq!(a, b);
    let ds = dataset();
    let n = ds
        .members
        .iter()
        .filter(|(_, m)| m.company.to_lowercase() == "acme")
        .count();
    assert_eq!(a.len(), n);
    let loc = dataset()
        .members
        .iter()
        .map(|(_, m)| m.location.clone())
        .find(|l| !l.is_ascii())
        .expect("a non-ASCII location");
    let upper = loc.to_uppercase();
    let got = all_items(
        &conn,
        "members",
        &format!("location={}", catalog::encode(&upper)),
    );
    assert!(!got.is_empty(), "location {upper}");
}
