//! `statsOverview`, computed from the dataset.

use super::*;

#[tokio::test]
async fn stats_overview_is_computed() {
    let app = app();
    let conn = app.sql();
    let data = app
        .data(
            "{ statsOverview { activeChaptersStats activeProjectsStats contributorsStats countriesStats } chapterCountries }",
            json!({}),
        )
        .await;
    let countries = data["chapterCountries"].as_array().unwrap().len() as i64;
    assert_eq!(
        data["statsOverview"],
        json!({
            "activeChaptersStats": int(&conn, "SELECT COUNT(*) FROM chapters WHERE is_active = 1", []),
            "activeProjectsStats": int(&conn, "SELECT COUNT(*) FROM projects WHERE is_active = 1", []),
            "contributorsStats": int(&conn, "SELECT COUNT(DISTINCT member_id) FROM repository_contributors", []),
            "countriesStats": countries,
        })
    );
}
