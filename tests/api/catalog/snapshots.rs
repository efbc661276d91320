//! `/snapshots/{key}/…`: sub-lists show only the records the API exposes.

use super::*;
use crate::support::*;

#[test]
fn snapshot_sub_lists_show_only_exposed_records() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let snap = &ds
        .snapshots
        .iter()
        .find(|(_, x)| x.key == "2026-05")
        .unwrap()
        .1;
    let active: Vec<&String> = snap
        .new_chapters
        .iter()
        .filter(|k| ds.chapters.iter().any(|(_, c)| &&c.key == k && c.is_active))
        .collect();
    let chapters = snapshot_list(&conn, "2026-05", "chapters", "").unwrap();
    assert_eq!(chapters["total_count"], active.len());
    let published = snap
        .new_releases
        .iter()
        .filter(|r| {
            ds.releases.iter().any(|(_, x)| {
                x.tag_name == r.tag_name && x.repository == r.repository && x.published_at.is_some()
            })
        })
        .count();
    let releases = snapshot_list(&conn, "2026-05", "releases", "").unwrap();
    assert_eq!(releases["total_count"], published);
    assert!(releases["items"][0]["organization_login"].is_string());
    let detail = detail(&conn, "/api/v0/snapshots/2026-05").unwrap();
    assert_eq!(detail["new_chapters_count"], active.len());
    assert_eq!(detail["new_releases_count"], published);
    let issues = snapshot_list(&conn, "2026-05", "issues", "").unwrap();
    assert_eq!(detail["new_issues_count"], issues["total_count"]);
    assert!(issues["items"][0]["repository_name"].is_string());
    assert!(matches!(
        snapshot_list(&conn, "2099-01", "issues", ""),
        Err(AnswerError::NotFound("Snapshot"))
    ));
    let pending = ds
        .snapshots
        .iter()
        .find(|(_, x)| x.status.as_str() != "completed")
        .unwrap();
    assert!(matches!(
        snapshot_list(&conn, &pending.1.key, "issues", ""),
        Err(AnswerError::NotFound("Snapshot"))
    ));
}
