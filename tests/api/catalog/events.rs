//! `/events/`: upcoming events for `TODAY`, the default order and categories.

use serde_json::Value;

use super::*;
use crate::support::*;

#[test]
fn events_upcoming_default_order_and_categories() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(String, Option<String>, usize, String)> = ds
        .events
        .iter()
        .enumerate()
        .filter(|(_, (_, e))| e.start_date.0.as_str() >= TODAY)
        .map(|(i, (_, e))| {
            (
                e.start_date.0.clone(),
                e.end_date.as_ref().map(|d| d.0.clone()),
                i,
                e.key.clone(),
            )
        })
        .collect();
    // start_date ascending, then end_date ascending with nulls last, then id.
    expected.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.is_none().cmp(&b.1.is_none()))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    let got = all_items(&conn, "events", "is_upcoming=TRUE");
    assert_eq!(
        pluck(&got, "key"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    assert!(!expected.is_empty());
    // is_upcoming=false is no filter.
    assert_eq!(
        all_items(&conn, "events", "is_upcoming=0").len(),
        ds.events.len()
    );
    // Default: start_date descending, tie-breaker end_date descending (nulls last).
    let mut all: Vec<(String, Option<String>, usize, String)> = ds
        .events
        .iter()
        .enumerate()
        .map(|(i, (_, e))| {
            (
                e.start_date.0.clone(),
                e.end_date.as_ref().map(|d| d.0.clone()),
                i,
                e.key.clone(),
            )
        })
        .collect();
    all.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.is_none().cmp(&b.1.is_none()))
            .then(b.1.cmp(&a.1))
            .then(a.2.cmp(&b.2))
    });
    let got = all_items(&conn, "events", "");
    assert_eq!(
        pluck(&got, "key"),
        all.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    let two = all_items(&conn, "events", "category=global&category=partner");
    let n = ds
        .events
        .iter()
        .filter(|(_, e)| matches!(e.category.as_str(), "global" | "partner"))
        .count();
    assert_eq!(two.len(), n);
    let end = all_items(&conn, "events", "ordering=-end_date");
    let ends: Vec<Value> = end.iter().map(|e| e["end_date"].clone()).collect();
    let first_null = ends.iter().position(|v| v.is_null()).unwrap();
    assert!(ends[first_null..].iter().all(|v| v.is_null()));
}
