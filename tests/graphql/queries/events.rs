//! `upcomingEvents` and `event(key)`.

use super::*;

#[tokio::test]
async fn events_upcoming_and_by_key() {
    let app = app();
    let conn = app.sql();
    let today = roost::config::today();
    let upcoming = strings(
        &conn,
        "SELECT key FROM events WHERE start_date >= ?1 \
         ORDER BY start_date, end_date IS NULL, end_date, id",
        [&today],
    );
    assert!(upcoming.len() > 6, "the sample has upcoming events");
    let data = app.data("{ upcomingEvents { key } }", json!({})).await;
    assert_eq!(
        pluck(&data["upcomingEvents"], "key"),
        upcoming[..6].to_vec()
    );
    let data = app
        .data("{ upcomingEvents(limit: 1000) { key } }", json!({}))
        .await;
    assert_eq!(pluck(&data["upcomingEvents"], "key"), upcoming);

    let row = &rows(
        &conn,
        "SELECT key, name, category, start_date, end_date, latitude, longitude, url, description \
         FROM events WHERE end_date IS NULL LIMIT 1",
        [],
    )[0];
    let data = app
        .data(
            "query($k: String!) { event(key: $k) { key name category startDate endDate latitude longitude url description } }",
            json!({"k": row[0].as_str().unwrap().to_uppercase()}),
        )
        .await;
    assert_eq!(
        data["event"],
        json!({"key": row[0], "name": row[1], "category": row[2], "startDate": row[3],
               "endDate": row[4], "latitude": row[5], "longitude": row[6], "url": row[7],
               "description": row[8]})
    );
}
