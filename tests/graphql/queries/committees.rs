//! `committee(key)`.

use super::*;

#[tokio::test]
async fn committee_by_key() {
    let app = app();
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT id, key, name, description, created_at, updated_at, url FROM committees \
         WHERE is_active = 1 ORDER BY id LIMIT 1",
        [],
    )[0];
    let leaders = strings(
        &conn,
        "SELECT name FROM leaders WHERE entity_kind = 'committee' AND entity_id = ?1 ORDER BY position",
        [row[0].as_i64().unwrap()],
    );
    let short = row[1]
        .as_str()
        .unwrap()
        .strip_prefix("www-committee-")
        .unwrap();
    let data = app
        .data(
            "query($k: String!) { committee(key: $k) { key name description createdAt updatedAt url leaders } }",
            json!({"k": short}),
        )
        .await;
    assert_eq!(
        data["committee"],
        json!({
            "key": short, "name": row[2], "description": row[3],
            "createdAt": ts(row[4].as_i64().unwrap()), "updatedAt": ts(row[5].as_i64().unwrap()),
            "url": row[6], "leaders": leaders,
        })
    );
    let inactive = strings(&conn, "SELECT key FROM committees WHERE is_active = 0", []);
    let data = app
        .data(
            "query($k: String!) { committee(key: $k) { key } }",
            json!({"k": inactive[0]}),
        )
        .await;
    assert_eq!(data["committee"], Value::Null);
}
