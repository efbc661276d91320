//! `sponsors`, ordered by name.

use super::*;

#[tokio::test]
async fn sponsors_by_name() {
    let app = app();
    let conn = app.sql();
    let expected = rows(
        &conn,
        "SELECT key, name, sponsor_type, is_member, member_type, image_url, url, job_url, \
         description FROM sponsors ORDER BY name_lc, name, id",
        [],
    );
    let data = app
        .data(
            "{ sponsors { key name sponsorType isMember memberType imageUrl url jobUrl description } }",
            json!({}),
        )
        .await;
    let expected: Vec<Value> = expected
        .iter()
        .map(|s| {
            json!({"key": s[0], "name": s[1], "sponsorType": s[2], "isMember": s[3] == json!(1),
                   "memberType": s[4], "imageUrl": s[5], "url": s[6], "jobUrl": s[7],
                   "description": s[8]})
        })
        .collect();
    assert_eq!(data["sponsors"], json!(expected));
}
