//! `getProgram`, `getProgramModules`, `getModule` and the login-only mentorship
//! fields, against the sample's programs and modules.

use super::*;

/// The key of the sample's first published program.
fn published(conn: &rusqlite::Connection) -> String {
    strings(
        conn,
        "SELECT key FROM programs WHERE status = 'published' ORDER BY id LIMIT 1",
        [],
    )
    .remove(0)
}

#[tokio::test]
async fn a_published_program_with_its_admins() {
    let app = app();
    let conn = app.sql();
    let key = published(&conn);
    let row = &rows(
        &conn,
        "SELECT name, description, mentees_limit, experience_levels, started_at, ended_at, \
         domains, tags FROM programs WHERE key = ?1",
        [&key],
    )[0];
    let admins = strings(
        &conn,
        "SELECT m.login FROM program_admins a JOIN members m ON m.id = a.member_id \
         JOIN programs p ON p.id = a.program_id WHERE p.key = ?1 ORDER BY m.login_lc, m.id",
        [&key],
    );
    let data = app
        .data(
            "query($k: String!) { getProgram(programKey: $k) { id key name description status \
             menteesLimit experienceLevels startedAt endedAt domains tags userRole \
             admins { login } } }",
            json!({"k": key.to_uppercase()}),
        )
        .await;
    let levels: Vec<String> = serde_json::from_str::<Vec<String>>(row[3].as_str().unwrap())
        .unwrap()
        .into_iter()
        .map(|l| l.to_uppercase())
        .collect();
    let list = |v: &Value| serde_json::from_str::<Value>(v.as_str().unwrap()).unwrap();
    assert_eq!(
        data["getProgram"],
        json!({
            "id": encode_id(&format!("Program:{}", key.to_lowercase())),
            "key": key, "name": row[0], "description": row[1], "status": "PUBLISHED",
            "menteesLimit": row[2], "experienceLevels": levels,
            "startedAt": ts(row[4].as_i64().unwrap()), "endedAt": ts(row[5].as_i64().unwrap()),
            "domains": list(&row[6]), "tags": list(&row[7]), "userRole": null,
            "admins": admins.iter().map(|l| json!({"login": l})).collect::<Vec<_>>(),
        })
    );
}

#[tokio::test]
async fn modules_in_display_order_with_mentors_and_mentees() {
    let app = app();
    let conn = app.sql();
    let key = published(&conn);
    let modules = rows(
        &conn,
        "SELECT m.id, m.key, m.position, (SELECT p.name FROM projects p \
           WHERE p.id = m.project_id AND p.is_active = 1) \
         FROM modules m JOIN programs g ON g.id = m.program_id WHERE g.key = ?1 \
         ORDER BY m.position, m.started_at, m.id",
        [&key],
    );
    assert!(modules.len() >= 2);
    let data = app
        .data(
            "query($k: String!) { getProgramModules(programKey: $k) { key order projectName \
             mentors { login } mentees { login } } }",
            json!({"k": key}),
        )
        .await;
    let got = data["getProgramModules"].as_array().unwrap();
    assert_eq!(got.len(), modules.len());
    for (module, row) in got.iter().zip(&modules) {
        assert_eq!(module["key"], row[1]);
        assert_eq!(module["order"], row[2]);
        assert_eq!(module["projectName"], row[3]);
        for (field, table) in [("mentors", "module_mentors"), ("mentees", "module_mentees")] {
            let logins = strings(
                &conn,
                &format!(
                    "SELECT m.login FROM {table} x JOIN members m ON m.id = x.member_id \
                     WHERE x.module_id = ?1 ORDER BY m.login_lc, m.id"
                ),
                [row[0].as_i64().unwrap()],
            );
            let got: Vec<&str> = module[field]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u["login"].as_str().unwrap())
                .collect();
            assert_eq!(got, logins, "{field}");
        }
    }
    // One module by the keys of both, in any case.
    let first = modules[0][1].as_str().unwrap();
    let data = app
        .data(
            "query($m: String!, $p: String!) { getModule(moduleKey: $m, programKey: $p) { key } }",
            json!({"m": first.to_uppercase(), "p": key}),
        )
        .await;
    assert_eq!(data["getModule"]["key"], first);
}

#[tokio::test]
async fn drafts_completed_and_unknown_programs_are_never_answered() {
    let app = app();
    let conn = app.sql();
    let hidden = rows(
        &conn,
        "SELECT g.key, m.key FROM programs g JOIN modules m ON m.program_id = g.id \
         WHERE g.status != 'published' ORDER BY g.id",
        [],
    );
    assert!(
        hidden.iter().any(|r| r[0].as_str().is_some()),
        "the sample has a draft"
    );
    let q = "query($p: String!, $m: String!) { getProgram(programKey: $p) { key } \
             getProgramModules(programKey: $p) { key } \
             getModule(moduleKey: $m, programKey: $p) { key } }";
    let unknown = vec![json!("no-such-program"), json!("no-such-module")];
    for row in hidden.iter().chain([&unknown]) {
        let data = app.data(q, json!({"p": row[0], "m": row[1]})).await;
        assert_eq!(
            data,
            json!({"getProgram": null, "getProgramModules": [], "getModule": null}),
            "{row:?}"
        );
    }
    // A published program's module under another program's key is unknown.
    let key = published(&conn);
    let data = app.data(q, json!({"p": key, "m": hidden[0][1]})).await;
    assert_eq!(data["getModule"], Value::Null);
}

#[tokio::test]
async fn a_modules_activity_comes_from_its_project() {
    let app = app();
    let conn = app.sql();
    // A published module with labels whose project's issues carry one of them.
    let row = &rows(
        &conn,
        "SELECT g.key, m.key, m.project_id, m.labels FROM modules m \
         JOIN programs g ON g.id = m.program_id WHERE g.status = 'published' \
         AND m.labels != '[]' ORDER BY m.id LIMIT 1",
        [],
    )[0];
    let labels: Vec<String> = serde_json::from_str(row[3].as_str().unwrap()).unwrap();
    let labels_lc: Vec<String> = labels.iter().map(|l| l.to_lowercase()).collect();
    let issues = strings(
        &conn,
        "SELECT CAST(i.number AS TEXT) FROM issues i WHERE i.repository_id IN \
           (SELECT repository_id FROM project_repositories WHERE project_id = ?1) \
         AND EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id \
           WHERE il.issue_id = i.id AND l.name_lc IN (SELECT value FROM json_each(?2))) \
         ORDER BY i.updated_at DESC, i.id DESC",
        rusqlite::params![row[2].as_i64().unwrap(), json!(labels_lc).to_string()],
    );
    let pulls = strings(
        &conn,
        "SELECT CAST(q.number AS TEXT) FROM pull_requests q WHERE q.repository_id IN \
           (SELECT repository_id FROM project_repositories WHERE project_id = ?1) \
         ORDER BY q.created_at DESC, q.updated_at DESC, q.id DESC",
        [row[2].as_i64().unwrap()],
    );
    let data = app
        .data(
            "query($p: String!, $m: String!) { getModule(moduleKey: $m, programKey: $p) { \
               issuesCount issues(limit: 100) { number } \
               recentPullRequests(limit: 2, offset: 1) { number } availableLabels } }",
            json!({"p": row[0], "m": row[1]}),
        )
        .await;
    let module = &data["getModule"];
    assert_eq!(module["issuesCount"], json!(issues.len()));
    let numbers: Vec<String> = module["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["number"].to_string())
        .collect();
    assert_eq!(numbers, issues);
    let numbers: Vec<String> = module["recentPullRequests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["number"].to_string())
        .collect();
    let expected: Vec<String> = pulls.into_iter().skip(1).take(2).collect();
    assert_eq!(numbers, expected);
    let available = module["availableLabels"].as_array().unwrap();
    if !issues.is_empty() {
        assert!(available
            .iter()
            .any(|l| labels.iter().any(|m| l == m.as_str())));
    }
}

#[tokio::test]
async fn login_only_fields_are_unauthenticated() {
    let app = app();
    let conn = app.sql();
    let key = published(&conn);
    let module = strings(
        &conn,
        "SELECT m.key FROM modules m JOIN programs g ON g.id = m.program_id \
         WHERE g.key = ?1 ORDER BY m.id LIMIT 1",
        [&key],
    )
    .remove(0);
    for (q, vars) in [
        (
            "query($p: String!) { managementProgram(programKey: $p) { key } }",
            json!({"p": key}),
        ),
        (
            "query($p: String!) { managementProgramModules(programKey: $p) { key } }",
            json!({"p": key}),
        ),
        (
            "query($p: String!, $m: String!) { managementModule(moduleKey: $m, programKey: $p) { key } }",
            json!({"p": key, "m": module}),
        ),
        ("{ myPrograms { currentPage } }", json!({})),
        (
            "query($p: String!, $m: String!) { getModule(moduleKey: $m, programKey: $p) { taskDeadline(issueNumber: 1) } }",
            json!({"p": key, "m": module}),
        ),
    ] {
        let reply = app.post(q, vars).await;
        let body = reply.json();
        assert_eq!(
            body["errors"][0]["extensions"]["code"], "UNAUTHENTICATED",
            "{q}: {body}"
        );
    }
}
