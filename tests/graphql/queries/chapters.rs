//! `chapter`, `chapterCountries` and `recentChapters`: a chapter looked up like REST does,
//! every field as the dataset holds it.

use super::*;

const CHAPTER_FIELDS: &str = "key name country region latitude longitude summary url createdAt \
    updatedAt geoLocation { lat lng } leaders entityLeaders { memberName member { login } }";

/// A chapter as the API must show it, from SQL (`key` with or without its prefix).
fn expected_chapter(app: &App, key: &str) -> Value {
    let conn = app.sql();
    let row = &rows(
        &conn,
        "SELECT id, key, name, country, region, latitude, longitude, summary, url, created_at, \
         updated_at FROM chapters WHERE key = ?1 OR key = 'www-chapter-' || ?1",
        [key],
    )[0];
    let id = row[0].as_i64().unwrap();
    let leaders = rows(
        &conn,
        "SELECT l.name, m.login FROM leaders l LEFT JOIN members m ON m.id = l.member_id \
         WHERE l.entity_kind = 'chapter' AND l.entity_id = ?1 ORDER BY l.position",
        [id],
    );
    let geo = if row[5].is_null() || row[6].is_null() {
        Value::Null
    } else {
        json!({"lat": row[5], "lng": row[6]})
    };
    json!({
        "key": row[1].as_str().unwrap().strip_prefix("www-chapter-").unwrap(), "name": row[2], "country": row[3], "region": row[4],
        "latitude": row[5], "longitude": row[6], "summary": row[7], "url": row[8],
        "createdAt": ts(row[9].as_i64().unwrap()), "updatedAt": ts(row[10].as_i64().unwrap()),
        "geoLocation": geo,
        "leaders": leaders.iter().map(|l| l[0].clone()).collect::<Vec<_>>(),
        "entityLeaders": leaders.iter().map(|l| json!({
            "memberName": l[0],
            "member": if l[1].is_null() { Value::Null } else { json!({"login": l[1]}) },
        })).collect::<Vec<_>>(),
    })
}

#[tokio::test]
async fn chapter_is_looked_up_like_rest() {
    let app = app();
    let conn = app.sql();
    // The active chapter with coordinates and the most leaders, some unlinked.
    let key = strings(
        &conn,
        "SELECT c.key FROM chapters c JOIN leaders l ON l.entity_kind = 'chapter' \
         AND l.entity_id = c.id WHERE c.is_active = 1 AND c.latitude IS NOT NULL \
         GROUP BY c.id ORDER BY COUNT(*) DESC, COUNT(l.member_id) ASC, c.id LIMIT 1",
        [],
    )[0]
    .clone();
    let expected = expected_chapter(&app, &key);
    let name_part = key.strip_prefix("www-chapter-").unwrap().to_uppercase();
    for lookup in [key.clone(), key.to_uppercase(), name_part] {
        let q = format!("query($k: String!) {{ chapter(key: $k) {{ {CHAPTER_FIELDS} }} }}");
        let data = app.data(&q, json!({"k": lookup})).await;
        assert_eq!(data["chapter"], expected, "lookup {lookup}");
    }
    assert!(expected["leaders"].as_array().unwrap().len() >= 2);

    // No coordinates: geoLocation is null.
    let bare = strings(
        &conn,
        "SELECT key FROM chapters WHERE is_active = 1 AND latitude IS NULL LIMIT 1",
        [],
    );
    let data = app
        .data(
            "query($k: String!) { chapter(key: $k) { geoLocation { lat } latitude } }",
            json!({"k": bare[0]}),
        )
        .await;
    assert_eq!(
        data["chapter"],
        json!({"geoLocation": null, "latitude": null})
    );

    // Inactive, unknown and empty keys are null, not errors.
    let inactive = strings(&conn, "SELECT key FROM chapters WHERE is_active = 0", []);
    for key in [inactive[0].as_str(), "nowhere", "", "www-chapter-"] {
        let data = app
            .data(
                "query($k: String!) { chapter(key: $k) { key } }",
                json!({"k": key}),
            )
            .await;
        assert_eq!(data["chapter"], Value::Null, "{key}");
    }
}

#[tokio::test]
async fn chapter_countries_and_recent_chapters() {
    let app = app();
    let conn = app.sql();
    let mut countries = strings(
        &conn,
        "SELECT DISTINCT country FROM chapters WHERE is_active = 1 AND country != ''",
        [],
    );
    countries.sort_by_key(|c| (c.to_lowercase(), c.clone()));
    let data = app.data("{ chapterCountries }", json!({})).await;
    assert_eq!(data["chapterCountries"], json!(countries));
    assert!(countries.len() > 10);

    let newest = strings(
        &conn,
        "SELECT substr(key, 13) FROM chapters WHERE is_active = 1 ORDER BY created_at DESC, id DESC",
        [],
    );
    let data = app.data("{ recentChapters { key } }", json!({})).await;
    assert_eq!(pluck(&data["recentChapters"], "key"), newest[..8].to_vec());
    let data = app
        .data(
            "{ a: recentChapters(limit: 3) { key } b: recentChapters(limit: 0) { key } \
               c: recentChapters(limit: -5) { key } d: recentChapters(limit: 100000) { key } }",
            json!({}),
        )
        .await;
    assert_eq!(pluck(&data["a"], "key"), newest[..3].to_vec());
    assert_eq!(data["b"], json!([]));
    assert_eq!(data["c"], json!([]));
    assert_eq!(pluck(&data["d"], "key"), newest);
    // The first recent chapter carries the full type.
    let first = app
        .data(
            &format!("{{ recentChapters(limit: 1) {{ {CHAPTER_FIELDS} }} }}"),
            json!({}),
        )
        .await;
    assert_eq!(
        first["recentChapters"][0],
        expected_chapter(&app, &newest[0])
    );
}
