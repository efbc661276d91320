//! `/chapters/`: newest first with the id as tie-breaker and only active chapters, the
//! country filter, coordinate orderings with nulls last, and coordinate ranges.

use super::*;
use crate::support::*;

#[test]
fn chapters_default_order_is_newest_first_with_id_tie_break_and_only_active() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(i64, usize, &str)> = ds
        .chapters
        .iter()
        .enumerate()
        .filter(|(_, (_, c))| c.is_active)
        .map(|(i, (_, c))| (c.created_at.0, i, c.key.as_str()))
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let keys: Vec<String> = expected.iter().map(|e| e.2.to_string()).collect();
    let got = all_items(&conn, "chapters", "");
    assert_eq!(pluck(&got, "key"), keys);
    let asc = all_items(&conn, "chapters", "ordering=created_at");
    let mut expected_asc = expected.clone();
    expected_asc.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    assert_eq!(
        pluck(&asc, "key"),
        expected_asc
            .iter()
            .map(|e| e.2.to_string())
            .collect::<Vec<_>>()
    );
    assert!(!keys.contains(&"www-chapter-montreal".to_string()));
}

#[test]
fn country_filter_is_case_insensitive_whole_value() {
    let sample = Sample::new();
    let conn = sample.conn();
    let india = all_items(&conn, "chapters", "country=india");
    let upper = all_items(&conn, "chapters", "country=INDIA");
    assert_eq!(india, upper);
    let ds = dataset();
    let n = ds
        .chapters
        .iter()
        .filter(|(_, c)| c.is_active && c.country == "India")
        .count();
    assert_eq!(india.len(), n);
    assert!(n >= 2);
    assert!(items(&conn, "chapters", "country=indi").is_empty());
}

#[test]
fn coordinate_ordering_puts_nulls_last_in_both_directions() {
    let sample = Sample::new();
    let conn = sample.conn();
    for ordering in ["latitude", "-latitude", "longitude", "-longitude"] {
        let got = all_items(&conn, "chapters", &format!("ordering={ordering}"));
        let field = ordering.trim_start_matches('-');
        let values: Vec<Option<f64>> = got.iter().map(|i| i[field].as_f64()).collect();
        let first_null = values
            .iter()
            .position(|v| v.is_none())
            .expect("sample has nulls");
        assert!(
            values[first_null..].iter().all(|v| v.is_none()),
            "{ordering}"
        );
        let present: Vec<f64> = values[..first_null].iter().map(|v| v.unwrap()).collect();
        let mut sorted = present.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        if ordering.starts_with('-') {
            sorted.reverse();
        }
        assert_eq!(present, sorted, "{ordering}");
    }
}

#[test]
fn coordinate_ranges_filter_inclusively() {
    let sample = Sample::new();
    let conn = sample.conn();
    let got = all_items(
        &conn,
        "chapters",
        "latitude_gte=40&latitude_lte=60&longitude_gte=-10&longitude_lte=30",
    );
    assert!(!got.is_empty());
    for i in &got {
        let lat = i["latitude"].as_f64().unwrap();
        let lng = i["longitude"].as_f64().unwrap();
        assert!((40.0..=60.0).contains(&lat) && (-10.0..=30.0).contains(&lng));
    }
    assert!(pluck(&got, "key").contains(&"www-chapter-london".to_string()));
}
