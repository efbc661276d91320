//! GraphQL over HTTP: the auth matrix per environment, CSRF, introspection, the
//! explorer, the limits and the error shapes (docs/api.md §1 and §5).

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use roost::config::Env;
use roost::graphql::Limits;
use serde_json::{json, Value};

use crate::support::graphql::*;
use crate::support::*;

const QUERY: &str = "{ statsOverview { activeChaptersStats } }";
const INTROSPECTION: &str = "{ __schema { queryType { name } } }";

fn cookies(session: Option<&str>, csrf: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(s) = session {
        parts.push(format!("sessionid={s}"));
    }
    if let Some(c) = csrf {
        parts.push(format!("csrftoken={c}"));
    }
    parts.join("; ")
}

/// POST `QUERY` with an optional session, CSRF cookie and CSRF header.
async fn post_as(
    app: &App,
    session: Option<&str>,
    cookie: Option<&str>,
    header: Option<&str>,
) -> Reply {
    let cookie_header = cookies(session, cookie);
    let mut headers = Vec::new();
    if !cookie_header.is_empty() {
        headers.push(("cookie", cookie_header.as_str()));
    }
    if let Some(h) = header {
        headers.push(("x-csrftoken", h));
    }
    app.send(post_json(json!({"query": QUERY}), &headers)).await
}

fn assert_data(reply: &Reply) {
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert!(
        reply.json()["data"]["statsOverview"]["activeChaptersStats"].is_i64(),
        "{}",
        reply.text()
    );
}

fn assert_refused(reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status.as_u16(), status, "{}", reply.text());
    assert_eq!(reply.code(), code, "{}", reply.text());
    assert!(reply
        .header("content-type")
        .is_some_and(|t| t.starts_with("application/json")));
    assert!(reply.json().get("data").is_none(), "{}", reply.text());
}

#[tokio::test]
async fn local_and_e2e_need_no_session() {
    for env in [Env::Local, Env::E2e] {
        let app = App::new(env);
        assert_data(&post_as(&app, None, None, None).await);
        // A stray cookie without CSRF is fine too: there is no auth to protect.
        assert_data(&post_as(&app, Some("whatever"), None, None).await);
        assert_data(&app.send(get_request(&query_uri(QUERY), &[])).await);
        let reply = app.post(INTROSPECTION, json!({})).await;
        assert_eq!(
            reply.json()["data"]["__schema"]["queryType"]["name"],
            "Query"
        );
    }
}

#[tokio::test]
async fn production_and_staging_serve_anonymous_visitors_with_csrf() {
    for env in [Env::Production, Env::Staging] {
        let app = App::new(env);
        let (id, token) = app.session("frontend", None);
        let csrf = "c".repeat(43);
        let other = "d".repeat(43);

        // Anonymous: a POST needs the CSRF pair (403 without it or on a mismatch)...
        for (cookie, header) in [
            (None, None),
            (Some(csrf.as_str()), None),
            (None, Some(csrf.as_str())),
            (Some(csrf.as_str()), Some(other.as_str())),
            (Some(""), Some("")),
        ] {
            assert_refused(
                &post_as(&app, None, cookie, header).await,
                403,
                "CSRF_FAILED",
            );
        }
        // ...and is served with it; a GET reads and changes nothing, so it needs none.
        assert_data(&post_as(&app, None, Some(&csrf), Some(&csrf)).await);
        assert_data(&app.send(get_request(&query_uri(QUERY), &[])).await);

        // A session cookie that names no valid session is refused, not silently
        // downgraded to the anonymous budget.
        for bad in ["nope", ""] {
            let reply = post_as(&app, Some(bad), Some(&csrf), Some(&csrf)).await;
            assert_refused(&reply, 401, "UNAUTHENTICATED");
            assert!(reply.text().contains("sessionid"), "{}", reply.text());
        }

        // A session without the CSRF pair, or with a mismatch: 403.
        assert_refused(
            &post_as(&app, Some(&token), None, None).await,
            403,
            "CSRF_FAILED",
        );
        assert_refused(
            &post_as(&app, Some(&token), Some(&csrf), None).await,
            403,
            "CSRF_FAILED",
        );
        assert_refused(
            &post_as(&app, Some(&token), None, Some(&csrf)).await,
            403,
            "CSRF_FAILED",
        );
        assert_refused(
            &post_as(&app, Some(&token), Some(&csrf), Some(&other)).await,
            403,
            "CSRF_FAILED",
        );

        // Session and matching CSRF: served.
        assert_data(&post_as(&app, Some(&token), Some(&csrf), Some(&csrf)).await);
        let session_cookie = format!("sessionid={token}");
        assert_data(
            &app.send(get_request(
                &query_uri(QUERY),
                &[("cookie", &session_cookie)],
            ))
            .await,
        );

        // Introspection is disabled.
        let reply = app
            .send(post_json(
                json!({"query": INTROSPECTION}),
                &[
                    ("cookie", &cookies(Some(&token), Some(&csrf))),
                    ("x-csrftoken", &csrf),
                ],
            ))
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.code(), "INTROSPECTION_DISABLED", "{}", reply.text());
        assert!(reply.json().get("data").is_none());
        // Also when hidden in a fragment or under `__type`; `__typename` stays available.
        let auth = [
            ("cookie", cookies(Some(&token), Some(&csrf))),
            ("x-csrftoken", csrf.clone()),
        ];
        let auth: Vec<(&str, &str)> = auth.iter().map(|(k, v)| (*k, v.as_str())).collect();
        for query in [
            "{ ...F } fragment F on Query { __schema { types { name } } }",
            "{ __type(name: \"Project\") { name } }",
        ] {
            let reply = app.send(post_json(json!({"query": query}), &auth)).await;
            assert_eq!(reply.code(), "INTROSPECTION_DISABLED", "{query}");
        }
        let reply = app
            .send(post_json(json!({"query": "{ __typename }"}), &auth))
            .await;
        assert_eq!(reply.json(), json!({"data": {"__typename": "Query"}}));

        // Revocation is effective on the next request.
        app.revoke_session(id);
        assert_refused(
            &post_as(&app, Some(&token), Some(&csrf), Some(&csrf)).await,
            401,
            "UNAUTHENTICATED",
        );
        // Introspection stays off for anonymous visitors too.
        let reply = app
            .send(post_json(
                json!({"query": INTROSPECTION}),
                &[
                    ("cookie", &cookies(None, Some(&csrf))),
                    ("x-csrftoken", &csrf),
                ],
            ))
            .await;
        assert_eq!(reply.code(), "INTROSPECTION_DISABLED", "{}", reply.text());
    }
}

/// `--graphql-require-session`: a private deployment refuses every request without a
/// valid session, as before anonymous visitors were served.
#[tokio::test]
async fn a_private_deployment_requires_a_session() {
    let limits = Limits {
        require_session: true,
        ..Limits::default()
    };
    let app = App::with_limits(Env::Production, limits);
    let (_, token) = app.session("frontend", None);
    let csrf = "c".repeat(43);
    for reply in [
        post_as(&app, None, Some(&csrf), Some(&csrf)).await,
        post_as(&app, None, None, None).await,
        app.send(get_request(&query_uri(QUERY), &[])).await,
        post_as(&app, Some("nope"), Some(&csrf), Some(&csrf)).await,
    ] {
        assert_refused(&reply, 401, "UNAUTHENTICATED");
    }
    assert_data(&post_as(&app, Some(&token), Some(&csrf), Some(&csrf)).await);
    // Local and e2e ignore the option: there is no auth there.
    let limits = Limits {
        require_session: true,
        ..Limits::default()
    };
    let app = App::with_limits(Env::E2e, limits);
    assert_data(&post_as(&app, None, None, None).await);
}

#[tokio::test]
async fn expired_sessions_are_refused() {
    let app = App::new(Env::Production);
    let (id, token) = app.session("short", Some(1));
    let csrf = "e".repeat(43);
    assert_data(&post_as(&app, Some(&token), Some(&csrf), Some(&csrf)).await);
    let conn = rusqlite::Connection::open(&app.auth_db).unwrap();
    conn.execute(
        "UPDATE credentials SET expires_at = created_at WHERE kind = 'session' AND id = ?1",
        [id],
    )
    .unwrap();
    assert_refused(
        &post_as(&app, Some(&token), Some(&csrf), Some(&csrf)).await,
        401,
        "UNAUTHENTICATED",
    );
}

#[tokio::test]
async fn csrf_endpoint_sets_the_cookie() {
    for (env, secure) in [
        (Env::Production, true),
        (Env::Staging, true),
        (Env::Local, false),
        (Env::E2e, false),
    ] {
        let app = App::new(env);
        for path in ["/csrf/", "/csrf"] {
            let reply = app.send(get_request(path, &[])).await;
            assert_eq!(reply.status, StatusCode::OK, "{path}");
            let token = reply.json()["csrftoken"].as_str().unwrap().to_string();
            assert!(
                token.len() >= 43
                    && token
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            );
            let cookie = reply.header("set-cookie").unwrap_or("");
            assert!(
                cookie.starts_with(&format!("csrftoken={token};")),
                "{cookie}"
            );
            assert!(
                cookie.contains("SameSite=Lax") && cookie.contains("Path=/"),
                "{cookie}"
            );
            assert_eq!(cookie.contains("Secure"), secure, "{env:?}: {cookie}");
            assert_eq!(reply.header("cache-control"), Some("no-store"));
        }
        // An existing token is kept (several tabs share it); a malformed one is replaced.
        let existing = "k".repeat(43);
        let reply = app
            .send(get_request(
                "/csrf/",
                &[("cookie", &format!("csrftoken={existing}"))],
            ))
            .await;
        assert_eq!(reply.json()["csrftoken"], existing.as_str());
        let reply = app
            .send(get_request("/csrf/", &[("cookie", "csrftoken=bad!")]))
            .await;
        assert_ne!(reply.json()["csrftoken"], "bad!");
        let post = Request::builder()
            .method(Method::POST)
            .uri("/csrf/")
            .body(Body::empty())
            .unwrap();
        let reply = app.send(post).await;
        assert_refused(&reply, 405, "METHOD_NOT_ALLOWED");
        assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    }
}

#[tokio::test]
async fn the_csrf_endpoint_feeds_a_production_post() {
    let app = App::new(Env::Production);
    let (_, session) = app.session("frontend", Some(30));
    let token = app.send(get_request("/csrf/", &[])).await.json()["csrftoken"]
        .as_str()
        .unwrap()
        .to_string();
    assert_data(&post_as(&app, Some(&session), Some(&token), Some(&token)).await);
}

#[tokio::test]
async fn explorer_only_in_local_and_e2e() {
    let html = [("accept", "text/html,application/xhtml+xml,*/*;q=0.8")];
    for env in [Env::Local, Env::E2e] {
        let app = App::new(env);
        for path in ["/graphql/", "/graphql"] {
            let reply = app.send(get_request(path, &html)).await;
            assert_eq!(reply.status, StatusCode::OK);
            assert!(reply
                .header("content-type")
                .is_some_and(|t| t.starts_with("text/html")));
            assert!(reply.text().contains("/graphql/graphiql.js"));
            // Every asset is roost's own: no other origin is allowed or referenced.
            let csp = reply.header("content-security-policy").unwrap_or("");
            assert!(
                csp.contains("script-src 'self'") && csp.contains("default-src 'none'"),
                "{csp}"
            );
            assert!(!reply.text().contains("http://") && !reply.text().contains("https://"));
        }
        // A browser asking for a query still gets JSON.
        let reply = app.send(get_request(&query_uri(QUERY), &html)).await;
        assert_data(&reply);
    }
    for env in [Env::Production, Env::Staging] {
        let app = App::new(env);
        // No explorer: a browser's GET without a query is a request without a query.
        let reply = app.send(get_request("/graphql/", &html)).await;
        assert_refused(&reply, 400, "BAD_REQUEST");
    }
}

#[tokio::test]
async fn depth_is_limited_to_five() {
    let app = App::new(Env::Local);
    let before = app.service.sql_statements();
    // Depth 6: project > repositories > project > repositories > issues > title.
    let deep = "{ project(key: \"juice-shop\") { repositories { project { repositories { issues { title } } } } } }";
    let reply = app.post(deep, json!({})).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.code(), "QUERY_TOO_DEEP");
    assert!(reply.json().get("data").is_none());
    // The same depth hidden in fragments.
    let fragments = "query { project(key: \"juice-shop\") { ...A } }
        fragment A on Project { repositories { ...B } }
        fragment B on Repository { project { repositories { issues { ...C } } } }
        fragment C on Issue { title }";
    assert_eq!(
        app.post(fragments, json!({})).await.code(),
        "QUERY_TOO_DEEP"
    );
    assert_eq!(
        app.service.sql_statements(),
        before,
        "refused before reading data"
    );
    // Depth 5 is served.
    let five =
        "{ project(key: \"juice-shop\") { repositories { project { repositories { name } } } } }";
    let data = app.data(five, json!({})).await;
    assert!(data["project"]["repositories"].is_array());
    // A fragment cycle is a validation error, not a hang.
    let cycle = "{ project(key: \"zap\") { ...A } } fragment A on Project { ...B } fragment B on Project { ...A }";
    let code = app.post(cycle, json!({})).await.code();
    assert!(
        code == "GRAPHQL_PARSE_FAILED" || code == "GRAPHQL_VALIDATION_FAILED",
        "{code}"
    );
}

#[tokio::test]
async fn complexity_is_bounded() {
    let app = App::new(Env::Local);
    let before = app.service.sql_statements();
    let costly = "{ snapshots(limit: 1000) { newIssues { title author { login } labels } } }";
    let reply = app.post(costly, json!({})).await;
    assert_eq!(reply.code(), "QUERY_TOO_COMPLEX", "{}", reply.text());
    // Many aliases of a big list add up.
    let aliases: String = (0..30)
        .map(|i| format!("a{i}: recentIssues(limit: 1000) {{ title }} "))
        .collect();
    let reply = app.post(&format!("{{ {aliases} }}"), json!({})).await;
    assert_eq!(reply.code(), "QUERY_TOO_COMPLEX", "{}", reply.text());
    // The limit counts the variable's value.
    let reply = app
        .post(
            "query($n: Int) { snapshots(limit: $n) { newIssues { title author { login name } } } }",
            json!({"n": 1000}),
        )
        .await;
    assert_eq!(reply.code(), "QUERY_TOO_COMPLEX", "{}", reply.text());
    assert_eq!(
        app.service.sql_statements(),
        before,
        "refused before reading data"
    );
    // A large but reasonable list is served.
    app.data(
        "{ recentIssues(limit: 1000) { title url state author { login } } }",
        json!({}),
    )
    .await;
}

#[tokio::test]
async fn body_size_is_bounded() {
    let app = App::new(Env::Local);
    let padding = " ".repeat(70 * 1024);
    let body = json!({"query": format!("{{ chapterCountries }}{padding}")});
    let reply = app.send(post_json(body.clone(), &[])).await;
    assert_refused(&reply, 413, "PAYLOAD_TOO_LARGE");
    // (In-process requests carry no Content-Length: that was the streamed case.) A
    // declared length over the limit is refused before the body is read.
    let request = Request::builder()
        .method(Method::POST)
        .uri("/graphql/")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CONTENT_LENGTH, "1000000")
        .body(Body::from(json!({"query": QUERY}).to_string()))
        .unwrap();
    assert_refused(&app.send(request).await, 413, "PAYLOAD_TOO_LARGE");
    // Just under the limit is served.
    let padding = " ".repeat(60 * 1024);
    let reply = app
        .send(post_json(
            json!({"query": format!("{QUERY}{padding}")}),
            &[],
        ))
        .await;
    assert_data(&reply);
    // A GET query string over the limit (a small limit: URIs over 64 KiB cannot even be
    // built).
    let small = Limits {
        max_body_bytes: 1024,
        ..Limits::default()
    };
    let app = App::with_limits(Env::Local, small);
    let padding = " ".repeat(2048);
    let uri = query_uri(&format!("{{ chapterCountries }}{padding}"));
    assert_refused(&app.send(get_request(&uri, &[])).await, 414, "URI_TOO_LONG");
    let body = json!({"query": format!("{QUERY}{padding}")});
    assert_refused(
        &app.send(post_json(body, &[])).await,
        413,
        "PAYLOAD_TOO_LARGE",
    );
}

#[tokio::test]
async fn timeout_is_an_error() {
    let limits = Limits {
        timeout: Duration::ZERO,
        ..Limits::default()
    };
    let app = App::with_limits(Env::Local, limits);
    let reply = app.post(QUERY, json!({})).await;
    assert_refused(&reply, 503, "TIMEOUT");
}

#[tokio::test]
async fn malformed_requests_are_clear_json_errors() {
    let app = App::new(Env::Local);
    let raw = |content_type: Option<&str>, body: &str| {
        let mut request = Request::builder().method(Method::POST).uri("/graphql/");
        if let Some(ct) = content_type {
            request = request.header(header::CONTENT_TYPE, ct);
        }
        request.body(Body::from(body.to_string())).unwrap()
    };
    let json_ct = Some("application/json");
    let cases: Vec<(Request<Body>, u16, &str, &str)> = vec![
        (
            raw(json_ct, "{\"query\": "),
            400,
            "BAD_REQUEST",
            "not valid JSON",
        ),
        (raw(json_ct, ""), 400, "BAD_REQUEST", "not valid JSON"),
        (
            raw(json_ct, "[{\"query\": \"{ sponsors { key } }\"}]"),
            400,
            "BAD_REQUEST",
            "Batched",
        ),
        (
            raw(json_ct, "\"{ sponsors { key } }\""),
            400,
            "BAD_REQUEST",
            "JSON object",
        ),
        (raw(json_ct, "{}"), 400, "BAD_REQUEST", "Missing 'query'"),
        (
            raw(json_ct, "{\"query\": 5}"),
            400,
            "BAD_REQUEST",
            "'query' must be a string",
        ),
        (
            raw(
                json_ct,
                "{\"query\": \"{ sponsors { key } }\", \"variables\": [1]}",
            ),
            400,
            "BAD_REQUEST",
            "'variables'",
        ),
        (
            raw(
                json_ct,
                "{\"query\": \"{ sponsors { key } }\", \"operationName\": 1}",
            ),
            400,
            "BAD_REQUEST",
            "'operationName'",
        ),
        (
            raw(Some("text/plain"), "{ sponsors { key } }"),
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            "application/json",
        ),
        (
            raw(Some("application/graphql"), "{ sponsors { key } }"),
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            "application/json",
        ),
        (
            raw(None, "{\"query\": \"{ sponsors { key } }\"}"),
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            "got none",
        ),
        (
            get_request("/graphql/", &[("accept", "application/json")]),
            400,
            "BAD_REQUEST",
            "Missing 'query'",
        ),
        (
            get_request("/graphql/?query={sponsors{key}}&query=x", &[]),
            400,
            "BAD_REQUEST",
            "more than once",
        ),
        (
            get_request("/graphql/?query={sponsors{key}}&variables=nope", &[]),
            400,
            "BAD_REQUEST",
            "not valid JSON",
        ),
    ];
    for (request, status, code, words) in cases {
        let reply = app.send(request).await;
        assert_refused(&reply, status, code);
        let message = reply.json()["errors"][0]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(words), "{message}");
    }
    for method in [Method::PUT, Method::DELETE, Method::PATCH] {
        let request = Request::builder()
            .method(method)
            .uri("/graphql/")
            .body(Body::empty())
            .unwrap();
        let reply = app.send(request).await;
        assert_refused(&reply, 405, "METHOD_NOT_ALLOWED");
        assert_eq!(reply.header("allow"), Some("GET, POST"));
    }
    // charset parameters and upper case are fine.
    let request = raw(
        Some("Application/JSON; charset=utf-8"),
        &json!({"query": QUERY}).to_string(),
    );
    assert_data(&app.send(request).await);
}

#[tokio::test]
async fn document_errors_follow_graphql_over_http() {
    let app = App::new(Env::Local);
    for (query, code) in [
        ("{ sponsors { key ", "GRAPHQL_PARSE_FAILED"),
        ("{ sponsors { nope } }", "GRAPHQL_VALIDATION_FAILED"),
        ("{ chapter { key } }", "GRAPHQL_VALIDATION_FAILED"),
        ("mutation { sponsors { key } }", "GRAPHQL_VALIDATION_FAILED"),
    ] {
        // application/json: 200, errors, no data.
        let reply = app.post(query, json!({})).await;
        assert_eq!(reply.status, StatusCode::OK, "{query}");
        assert_eq!(reply.code(), code, "{query}: {}", reply.text());
        assert!(reply.json().get("data").is_none());
        assert!(reply
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json")));
        // application/graphql-response+json: 400.
        let accept = [(
            "accept",
            "application/graphql-response+json, application/json;q=0.9",
        )];
        let reply = app.send(post_json(json!({"query": query}), &accept)).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(
            reply.header("content-type"),
            Some("application/graphql-response+json")
        );
        assert_eq!(reply.code(), code);
    }
    // An error while executing keeps 200 and the data of the other fields.
    let accept = [("accept", "application/graphql-response+json")];
    let reply = app
        .send(post_json(
            json!({"query": "{ recentMilestones(state: \"bad\") { title } sponsors { key } }"}),
            &accept,
        ))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json();
    assert!(
        body["data"]["sponsors"].is_array() && body["errors"].is_array(),
        "{body}"
    );
    assert_eq!(body["errors"][0]["path"], json!(["recentMilestones"]));
    // Operation names pick the operation; variables are typed.
    let body = app
        .send(post_json(
            json!({"query": "query A { sponsors { key } } query B($k: String!) { chapter(key: $k) { key } }",
                   "operationName": "B", "variables": {"k": "london"}}),
            &[],
        ))
        .await
        .json();
    assert_eq!(body["data"], json!({"chapter": {"key": "london"}}));
    let reply = app
        .post(
            "query($k: String!) { chapter(key: $k) { key } }",
            json!({"k": 5}),
        )
        .await;
    assert!(reply.json()["errors"].is_array());
}

#[tokio::test]
async fn both_paths_are_served() {
    let app = App::new(Env::Local);
    for path in ["/graphql/", "/graphql"] {
        let request = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(json!({"query": QUERY}).to_string()))
            .unwrap();
        assert_data(&app.send(request).await);
    }
    let value: Value = app
        .send(get_request("/graphql?query={chapterCountries}", &[]))
        .await
        .json();
    assert!(value["data"]["chapterCountries"].is_array());
}

/// Root fields are resolved concurrently; the response still lists every object's
/// fields in the order the query asked for them (GraphQL spec §7.2.2), so the same
/// query gives the same bytes every time.
#[tokio::test]
async fn responses_list_fields_in_query_order_every_time() {
    let app = App::new(Env::Local);
    let query = "{ upcomingEvents(limit: 2) { url name } sponsors { url name } \
                 recentIssues(limit: 3) { title author { name login } } \
                 statsOverview { countriesStats activeChaptersStats } \
                 recentProjects(limit: 3) { name key } }";
    let first = app.post(query, json!({})).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    let text = first.text();
    let at = |key: &str| {
        text.find(&format!("\"{key}\""))
            .unwrap_or_else(|| panic!("{key} missing from {text}"))
    };
    let roots = [
        "upcomingEvents",
        "sponsors",
        "recentIssues",
        "statsOverview",
        "recentProjects",
    ];
    for pair in roots.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{pair:?} out of order: {text}");
    }
    assert!(at("countriesStats") < at("activeChaptersStats"), "{text}");
    assert!(text.contains(r#"{"url":"#), "{text}");
    for _ in 0..20 {
        assert_eq!(app.post(query, json!({})).await.text(), text);
    }
}

/// A page asking `/csrf/` from two places at once before it holds the cookie gets one
/// token, so whichever answer's cookie the browser keeps matches the token either
/// caller sends; another browser gets its own.
#[tokio::test]
async fn concurrent_first_csrf_calls_of_one_browser_share_a_token() {
    let app = App::new(Env::Production);
    let ua = [("user-agent", "Mozilla/5.0 (first visit)")];
    let (a, b) = tokio::join!(
        app.send(get_request("/csrf/", &ua)),
        app.send(get_request("/csrf/", &ua))
    );
    let token = a.json()["csrftoken"].as_str().unwrap().to_string();
    assert_eq!(b.json()["csrftoken"], token.as_str());
    assert!(a
        .header("set-cookie")
        .unwrap()
        .starts_with(&format!("csrftoken={token};")));
    assert!(b
        .header("set-cookie")
        .unwrap()
        .starts_with(&format!("csrftoken={token};")));
    let other = app
        .send(get_request("/csrf/", &[("user-agent", "another browser")]))
        .await;
    assert_ne!(other.json()["csrftoken"], token.as_str());
    // Either answer feeds an anonymous POST.
    assert_data(&post_as(&app, None, Some(&token), Some(&token)).await);
}
