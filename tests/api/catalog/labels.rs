//! `/labels/`: every label record (names repeat across repositories), stable id order
//! by default and a case-insensitive colour filter.

use super::*;
use crate::support::*;

#[test]
fn labels_default_to_stable_id_order_and_filter_colour_case_insensitively() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let got = all_items(&conn, "labels", "");
    assert_eq!(
        pluck(&got, "name"),
        ds.labels
            .iter()
            .map(|(_, l)| l.name.clone())
            .collect::<Vec<_>>()
    );
    // Every label record: the shared `bug` and the `bug` of two repositories.
    assert_eq!(
        pluck(&got, "name")
            .iter()
            .filter(|n| n.eq_ignore_ascii_case("bug"))
            .count(),
        3
    );
    let red = all_items(&conn, "labels", "color=D73A4A");
    let n = ds
        .labels
        .iter()
        .filter(|(_, l)| l.color.0.eq_ignore_ascii_case("d73a4a"))
        .count();
    assert_eq!(red.len(), n);
    assert!(n >= 2);
    let by_created = all_items(&conn, "labels", "ordering=-nest_created_at");
    let mut expected: Vec<(i64, usize, String)> = ds
        .labels
        .iter()
        .enumerate()
        .map(|(i, (_, l))| (l.created_at.0, i, l.name.clone()))
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    assert_eq!(
        pluck(&by_created, "name"),
        expected.iter().map(|e| e.2.clone()).collect::<Vec<_>>()
    );
}
