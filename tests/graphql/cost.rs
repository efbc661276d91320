//! GraphQL cost that reflects database work (docs/api.md §6): the width of an
//! operation is capped (root fields and aliases, all selected fields), aggregates
//! cost what their SQL reads, requests are rate-limited per session (per client
//! address in local and e2e), and a request's database time is bounded. Every refusal
//! comes before any resolver runs; the limits are set small so this runs in ms.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use roost::config::Env;
use roost::graphql::Limits;
use serde_json::json;

use crate::support::graphql::*;

fn aliases(n: usize, field: &str) -> String {
    let fields: String = (0..n).map(|i| format!("a{i}: {field} ")).collect();
    format!("{{ {fields}}}")
}

#[tokio::test]
async fn a_thousand_aliases_of_an_aggregate_are_refused_before_any_resolver_runs() {
    let app = App::new(Env::Local);
    let query = aliases(1000, "topContributors(limit: 1) { login }");
    assert!(query.len() > 25_000, "{}", query.len());
    let before = app.service.sql_statements();
    let started = Instant::now();
    let reply = app.post(&query, json!({})).await;
    let took = started.elapsed();
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.code(), "TOO_MANY_ROOT_FIELDS", "{}", reply.text());
    let message = reply.json()["errors"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("1000") && message.contains("50"),
        "{message}"
    );
    assert!(reply.json().get("data").is_none());
    assert_eq!(app.service.sql_statements(), before, "no statement ran");
    println!("1,000-alias query refused in {took:?}");
    // Under application/graphql-response+json it is a 400.
    let reply = app
        .send(post_json(
            json!({"query": query}),
            &[("accept", "application/graphql-response+json")],
        ))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.code(), "TOO_MANY_ROOT_FIELDS");
    // Fragments and inline fragments at the root count their fields.
    let spread = format!(
        "query {{ ...F ... on Query {{ x: sponsors {{ key }} }} }} fragment F on Query {}",
        aliases(50, "chapterCountries")
    );
    let reply = app.post(&spread, json!({})).await;
    assert_eq!(reply.code(), "TOO_MANY_ROOT_FIELDS", "{}", reply.text());
    assert_eq!(app.service.sql_statements(), before);
    // 50 root fields are allowed.
    let data = app.data(&aliases(50, "chapterCountries"), json!({})).await;
    assert_eq!(data.as_object().unwrap().len(), 50);
}

#[tokio::test]
async fn aggregates_cost_what_their_sql_reads() {
    let app = App::new(Env::Local);
    let before = app.service.sql_statements();
    // Two unfiltered topContributors are within the cap of root fields, but each
    // groups every contribution: over the complexity limit.
    for query in [
        aliases(2, "topContributors(limit: 1) { login }"),
        aliases(45, "statsOverview { contributorsStats }"),
        "{ organization(login: \"owasp\") { login } recentIssues(limit: 1000) { author { issuesCount releasesCount } } }".to_string(),
        // A year of activity per project or member, and per-project sums.
        "{ recentProjects(limit: 1000) { contributionData } }".to_string(),
        "{ recentIssues(limit: 500) { author { contributionStats } } }".to_string(),
        "{ recentProjects(limit: 1000) { languages topics } }".to_string(),
        "{ snapshots(limit: 50) { newProjects { topContributors(limit: 1) { login } } } }".to_string(),
    ] {
        let reply = app.post(&query, json!({})).await;
        assert_eq!(reply.code(), "QUERY_TOO_COMPLEX", "{query}: {}", reply.text());
    }
    assert_eq!(
        app.service.sql_statements(),
        before,
        "refused before reading"
    );
    // A page's worth is served.
    let data = app
        .data(
            "{ statsOverview { contributorsStats } topContributors(limit: 24) { login } \
               a: topContributors(organization: \"owasp\") { login } chapterCountries \
               project(key: \"juice-shop\") { contributionData contributionStats languages \
                 topics issuesCount topContributors { login } } \
               user(login: \"sarah-suzuki\") { contributionData contributionsCount } }",
            json!({}),
        )
        .await;
    assert!(data["topContributors"].is_array());
    // The cap is configurable: a low one refuses even one aggregate.
    let small = Limits {
        max_complexity: 500,
        ..Limits::default()
    };
    let app = App::with_limits(Env::Local, small);
    let reply = app
        .post("{ statsOverview { contributorsStats } }", json!({}))
        .await;
    assert_eq!(reply.code(), "QUERY_TOO_COMPLEX", "{}", reply.text());
    let reply = app
        .post(
            "{ repositories(organization: \"owasp\", limit: 5) { name } }",
            json!({}),
        )
        .await;
    assert!(
        reply.json()["data"]["repositories"].is_array(),
        "{}",
        reply.text()
    );
}

#[tokio::test]
async fn the_selected_fields_are_capped_through_fragments() {
    let limits = Limits {
        max_fields: 20,
        ..Limits::default()
    };
    let app = App::with_limits(Env::Local, limits);
    let before = app.service.sql_statements();
    // 3 fields, spread 4 times, in a fragment spread 2 times: 24 with the roots.
    let query = "{ a: recentChapters(limit: 1) { ...B } b: recentChapters(limit: 1) { ...B } }
        fragment B on Chapter { ...A ...A ...A ...A }
        fragment A on Chapter { key name country }";
    let reply = app.post(query, json!({})).await;
    assert_eq!(reply.code(), "TOO_MANY_FIELDS", "{}", reply.text());
    assert_eq!(app.service.sql_statements(), before);
    // A fragment chain that doubles at each step is counted, not walked.
    let mut chain = String::from("{ recentChapters(limit: 1) { ...F0 } }\n");
    for i in 0..25 {
        chain.push_str(&format!(
            "fragment F{i} on Chapter {{ ...F{} ...F{} }}\n",
            i + 1,
            i + 1
        ));
    }
    chain.push_str("fragment F25 on Chapter { key }");
    let started = Instant::now();
    let reply = app.post(&chain, json!({})).await;
    let code = reply.code();
    assert!(code == "TOO_MANY_FIELDS", "{code}: {}", reply.text());
    assert!(started.elapsed() < Duration::from_secs(5));
    // Within the cap, served.
    let data = app
        .data(
            "{ recentChapters(limit: 1) { ...A } } fragment A on Chapter { key name }",
            json!({}),
        )
        .await;
    assert!(data["recentChapters"].is_array());
}

#[tokio::test]
async fn a_session_over_its_rate_gets_429_with_retry_after() {
    // One request a second: the second within the second is refused. Sent one after
    // another, a few requests reach the limit however slowly this machine answers
    // them (each would have to take a whole second to refill the budget).
    let limits = Limits {
        trusted_rate_limit: 1,
        ..Limits::default()
    };
    let app = App::with_limits(Env::Production, limits);
    let (_, busy) = app.session("busy", Some(1));
    let (_, other) = app.session("other", Some(1));
    let get_as = |token: &str| {
        get_request(
            &query_uri("{ chapterCountries }"),
            &[("cookie", &format!("sessionid={token}"))],
        )
    };
    let reply = app.send(get_as(&busy)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let mut refused = None;
    for _ in 0..5 {
        let reply = app.send(get_as(&busy)).await;
        if reply.status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(reply);
            break;
        }
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    }
    let reply = refused.expect("five requests in a row over a budget of one a second");
    assert_eq!(reply.code(), "RATE_LIMITED");
    assert!(reply.json().get("data").is_none());
    let retry: u64 = reply.header("retry-after").unwrap().parse().unwrap();
    assert_eq!(retry, 1);
    // Another session has its own budget.
    assert_eq!(app.send(get_as(&other)).await.status, StatusCode::OK);
    // The budget refills within the second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(app.send(get_as(&busy)).await.status, StatusCode::OK);
}

/// Production: anonymous visitors are counted per client address on the anonymous
/// budget; a session, or an address listed as trusted (the frontend's server-side
/// renderer), on the larger trusted budget, so visitors never throttle it.
#[tokio::test]
async fn anonymous_visitors_and_trusted_callers_have_their_own_budgets() {
    let limits = Limits {
        rate_limit: 2,
        burst: 2,
        trusted_rate_limit: 6,
        trusted_clients: vec!["10.9.0.0/16".parse().unwrap()],
        ..Limits::default()
    };
    let app = App::with_limits(Env::Production, limits);
    let (_, session) = app.session("frontend-ssr", None);
    let from = |ip: &str, cookie: Option<&str>| {
        let cookie = cookie.map(|c| format!("sessionid={c}"));
        let headers: Vec<(&str, &str)> = cookie.iter().map(|c| ("cookie", c.as_str())).collect();
        let mut request = get_request(&query_uri("{ chapterCountries }"), &headers);
        let ip: std::net::IpAddr = ip.parse().unwrap();
        request
            .extensions_mut()
            .insert(ConnectInfo(SocketAddr::new(ip, 5000)));
        request
    };
    let status = |request| async { app.send(request).await.status.as_u16() };
    // A visitor's burst of 2, then 429; another visitor has its own.
    assert_eq!(status(from("198.51.100.1", None)).await, 200);
    assert_eq!(status(from("198.51.100.1", None)).await, 200);
    let reply = app.send(from("198.51.100.1", None)).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(reply.code(), "RATE_LIMITED");
    assert_eq!(status(from("198.51.100.2", None)).await, 200);
    // The session from the same spent address is served on its own budget of 6.
    for _ in 0..6 {
        assert_eq!(status(from("198.51.100.1", Some(&session))).await, 200);
    }
    assert_eq!(status(from("198.51.100.1", Some(&session))).await, 429);
    // A trusted address without a session: the trusted budget, per address.
    for _ in 0..6 {
        assert_eq!(status(from("10.9.3.4", None)).await, 200);
    }
    assert_eq!(status(from("10.9.3.4", None)).await, 429);
    assert_eq!(status(from("::ffff:10.9.3.5", None)).await, 200);
}

#[tokio::test]
async fn local_requests_are_limited_per_client_address() {
    let limits = Limits {
        rate_limit: 3,
        burst: 3,
        ..Limits::default()
    };
    let app = App::with_limits(Env::E2e, limits);
    let from = |ip: &str| {
        let mut request = get_request(&query_uri("{ chapterCountries }"), &[]);
        let addr: SocketAddr = format!("{ip}:5000").parse().unwrap();
        request.extensions_mut().insert(ConnectInfo(addr));
        request
    };
    for _ in 0..3 {
        assert_eq!(app.send(from("127.0.0.7")).await.status, StatusCode::OK);
    }
    let reply = app.send(from("127.0.0.7")).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(reply.code(), "RATE_LIMITED");
    assert!(reply.header("retry-after").is_some_and(|v| !v.is_empty()));
    assert_eq!(app.send(from("127.0.0.8")).await.status, StatusCode::OK);
    // 0 turns the limit off.
    let app = App::with_limits(
        Env::E2e,
        Limits {
            rate_limit: 0,
            ..Limits::default()
        },
    );
    for _ in 0..20 {
        assert_eq!(app.send(from("127.0.0.7")).await.status, StatusCode::OK);
    }
}

#[tokio::test]
async fn a_request_past_its_database_time_gets_a_coded_error() {
    let limits = Limits {
        db_budget: Duration::ZERO,
        ..Limits::default()
    };
    let app = App::with_limits(Env::Local, limits);
    let reply = app
        .post("{ chapterCountries sponsors { key } }", json!({}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let body = reply.json();
    let errors = body["errors"].as_array().unwrap();
    assert!(!errors.is_empty());
    for error in errors {
        assert_eq!(
            error["extensions"]["code"], "DATABASE_TIME_EXCEEDED",
            "{body}"
        );
    }
    // Within the default budget the same query is served.
    let app = App::new(Env::Local);
    let data = app
        .data("{ chapterCountries sponsors { key } }", json!({}))
        .await;
    assert!(data["sponsors"].is_array());
}
