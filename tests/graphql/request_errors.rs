//! GraphQL requests that fail before execution answer in the GraphQL error shape with
//! a documented `extensions.code` (docs/api.md §6): a missing variable, an unknown
//! `operationName`, several operations without one; bad argument values are coded
//! client errors (`BAD_USER_INPUT`); messages quoting the document are clipped.

use axum::http::StatusCode;
use roost::config::Env;
use serde_json::{json, Value};

use crate::support::graphql::*;

const GRAPHQL_RESPONSE: [(&str, &str); 1] = [("accept", "application/graphql-response+json")];

/// Asserts a document refused before execution: no `data`, the code, 200 under
/// `application/json` and 400 under `application/graphql-response+json`.
async fn assert_refused(app: &App, body: Value, code: &str) -> String {
    let before = app.service.sql_statements();
    let reply = app.send(post_json(body.clone(), &[])).await;
    assert_eq!(reply.status, StatusCode::OK, "{body}: {}", reply.text());
    assert_eq!(reply.code(), code, "{body}: {}", reply.text());
    assert!(reply.json().get("data").is_none(), "{}", reply.text());
    let reply = app.send(post_json(body.clone(), &GRAPHQL_RESPONSE)).await;
    assert_eq!(
        reply.status,
        StatusCode::BAD_REQUEST,
        "{body}: {}",
        reply.text()
    );
    assert_eq!(
        reply.header("content-type"),
        Some("application/graphql-response+json")
    );
    assert_eq!(reply.code(), code, "{body}: {}", reply.text());
    assert!(reply.json().get("data").is_none(), "{}", reply.text());
    assert_eq!(
        app.service.sql_statements(),
        before,
        "refused before reading data"
    );
    reply.json()["errors"][0]["message"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_missing_variable_is_refused_before_execution() {
    let app = App::new(Env::Local);
    let query = "query($k: String!) { chapter(key: $k) { key } }";
    let message = assert_refused(&app, json!({"query": query}), "GRAPHQL_VALIDATION_FAILED").await;
    assert!(
        message.contains("$k") && message.contains("String!"),
        "{message}"
    );
    let message = assert_refused(
        &app,
        json!({"query": query, "variables": {"k": null}}),
        "GRAPHQL_VALIDATION_FAILED",
    )
    .await;
    assert!(message.contains("not provided"), "{message}");
    // Nullable variables and variables with a default may be left out.
    let data = app
        .data(
            "query($n: Int, $k: String! = \"london\") { chapter(key: $k) { key } recentChapters(limit: $n) { key } }",
            json!({}),
        )
        .await;
    assert_eq!(data["chapter"]["key"], "london");
    assert!(data["recentChapters"].is_array());
}

#[tokio::test]
async fn the_operation_to_run_must_be_known() {
    let app = App::new(Env::Local);
    let two = "query A { sponsors { key } } query B { chapterCountries }";
    let message = assert_refused(&app, json!({"query": two}), "GRAPHQL_VALIDATION_FAILED").await;
    assert!(message.contains("operationName"), "{message}");
    let message = assert_refused(
        &app,
        json!({"query": two, "operationName": "C"}),
        "GRAPHQL_VALIDATION_FAILED",
    )
    .await;
    assert_eq!(message, "Unknown operation named \"C\"");
    // An anonymous operation has no name to pick.
    assert_refused(
        &app,
        json!({"query": "{ sponsors { key } }", "operationName": "A"}),
        "GRAPHQL_VALIDATION_FAILED",
    )
    .await;
    // A long unknown name is not echoed whole.
    let long = "N".repeat(5000);
    let message = assert_refused(
        &app,
        json!({"query": two, "operationName": long}),
        "GRAPHQL_VALIDATION_FAILED",
    )
    .await;
    assert!(message.len() < 300, "{}", message.len());
    // The named operation runs; so does a lone named operation without a name given.
    let body = app
        .send(post_json(json!({"query": two, "operationName": "B"}), &[]))
        .await
        .json();
    assert!(body["data"]["chapterCountries"].is_array(), "{body}");
    let data = app.data("query Only { chapterCountries }", json!({})).await;
    assert!(data["chapterCountries"].is_array());
}

#[tokio::test]
async fn a_bad_argument_value_is_bad_user_input() {
    let app = App::new(Env::Local);
    for state in ["", "OPEN", "merged", &"x".repeat(10_000)] {
        let reply = app
            .send(post_json(
                json!({"query": "query($s: String) { recentMilestones(state: $s) { title } }",
                       "variables": {"s": state}}),
                &GRAPHQL_RESPONSE,
            ))
            .await;
        // Executed: 200, with the field's error coded as the client's.
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        let body = reply.json();
        let error = &body["errors"][0];
        assert_eq!(error["extensions"]["code"], "BAD_USER_INPUT", "{body}");
        assert_eq!(error["path"], json!(["recentMilestones"]));
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("'open' or 'closed'"), "{message}");
        assert!(message.len() < 200, "{}", message.len());
    }
    // The valid states are served.
    for state in ["open", "closed"] {
        let data = app
            .data(
                "query($s: String) { recentMilestones(state: $s, limit: 3) { state } }",
                json!({"s": state}),
            )
            .await;
        for m in data["recentMilestones"].as_array().unwrap() {
            assert_eq!(m["state"], state);
        }
    }
}

#[tokio::test]
async fn errors_do_not_echo_a_long_query() {
    let app = App::new(Env::Local);
    // A 60 KB query with a syntax error at its end.
    let filler = "a".repeat(60_000);
    let query = format!("{{ sponsors {{ key {filler} ");
    let message = assert_refused(&app, json!({"query": query}), "GRAPHQL_PARSE_FAILED").await;
    assert!(message.starts_with("Syntax error at 1:"), "{message}");
    assert!(message.len() <= 400, "{} bytes", message.len());
    assert!(!message.contains(&"a".repeat(100)), "{message}");
    // A short one still says where and what.
    let message = assert_refused(
        &app,
        json!({"query": "{ sponsors { key "}),
        "GRAPHQL_PARSE_FAILED",
    )
    .await;
    assert!(
        message.contains("1:18") && message.contains("expected"),
        "{message}"
    );
    // A validation error naming a 10,000-character field.
    let field = "b".repeat(10_000);
    let message = assert_refused(
        &app,
        json!({"query": format!("{{ sponsors {{ {field} }} }}")}),
        "GRAPHQL_VALIDATION_FAILED",
    )
    .await;
    assert!(message.chars().count() <= 301, "{} chars", message.len());
}
