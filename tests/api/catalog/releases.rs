//! `/releases/`: only published releases, the exact tag filter, the tie-break on
//! `published_at`, and detail tags that are case-sensitive and may hold a slash.

use super::*;
use crate::support::*;

#[test]
fn releases_only_published_tag_exact_and_published_tie_break() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(i64, i64, usize, String)> = ds
        .releases
        .iter()
        .enumerate()
        .filter_map(|(i, (_, r))| {
            r.published_at
                .map(|p| (p.0, r.created_at.0, i, r.tag_name.clone()))
        })
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "releases", "");
    assert_eq!(
        pluck(&got, "tag_name"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    assert!(got.len() < ds.releases.len());
    let upper = all_items(&conn, "releases", "tag_name=V1.0.0");
    let lower = all_items(&conn, "releases", "tag_name=v1.0.0");
    assert!(upper.iter().all(|r| r["tag_name"] == "V1.0.0") && !upper.is_empty());
    assert!(lower.iter().all(|r| r["tag_name"] == "v1.0.0") && !lower.is_empty());
    let slash = all_items(&conn, "releases", "tag_name=release%2F2.0");
    assert_eq!(pluck(&slash, "tag_name"), vec!["release/2.0".to_string()]);
    let plus = all_items(&conn, "releases", "tag_name=v10.0.2%2Bhotfix.1");
    assert_eq!(plus.len(), 1);
}

#[test]
fn release_tags_are_case_sensitive_and_may_hold_a_slash() {
    let sample = Sample::new();
    let conn = sample.conn();
    let upper = detail(&conn, "/api/v0/releases/juice-labs/juice-shop/V1.0.0").unwrap();
    let lower = detail(&conn, "/api/v0/releases/Juice-Labs/Juice-Shop/v1.0.0").unwrap();
    assert_eq!(upper["tag_name"], "V1.0.0");
    assert_eq!(lower["tag_name"], "v1.0.0");
    let slash = detail(
        &conn,
        "/api/v0/releases/appsec-tools/zap-extensions/release%2F2.0",
    )
    .unwrap();
    assert_eq!(slash["tag_name"], "release/2.0");
    let (_, first) = &dataset().issues[0];
    let path = format!(
        "/api/v0/issues/{}/{}/{}",
        first.organization.to_uppercase(),
        first.repository,
        first.number
    );
    let issue = detail(&conn, &path).unwrap();
    assert_eq!(issue["body"].as_str().unwrap(), first.body);
    assert_eq!(issue["url"].as_str().unwrap(), first.url);
}
