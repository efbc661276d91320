//! Live answers kept in memory (README "Serving"): made once per dataset file and
//! canonical request, answered again with the same bytes and ETag, and never past a
//! replacement of the dataset.

use roost::config::Env;
use roost::shim::AppState;

use crate::support::*;

/// The (hits, misses) so far of the cache `name`.
fn cache(state: &AppState, name: &str) -> (u64, u64) {
    let (_, stats) = state
        .cache_stats()
        .into_iter()
        .find(|(n, _)| *n == name)
        .expect("a cache of that name");
    (stats.hits, stats.misses)
}

/// The live cache's (hits, misses) so far.
fn live(state: &AppState) -> (u64, u64) {
    cache(state, "live")
}

/// A GraphQL POST of `query` with `variables`.
async fn graphql(app: &roost::shim::App, query: &str, variables: serde_json::Value) -> Reply {
    let body = serde_json::json!({ "query": query, "variables": variables }).to_string();
    let req = request(axum::http::Method::POST, "/graphql/")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body))
        .unwrap();
    oneshot(app, req).await
}

#[tokio::test]
async fn a_live_answer_is_made_once_and_answered_again_until_the_dataset_is_replaced() {
    let sample = Sample::new();
    let dir = sample.dir.path();
    let state = {
        let mut config = roost::shim::ShimConfig::new(Env::Local, &sample.db, None, &dir.join("a"));
        config.today = Some(TODAY.to_string());
        AppState::new(config).unwrap()
    };
    let app = roost::shim::app(state.clone());
    let url = "/api/v0/issues/?state=open&page_size=7";

    let first = get(&app, url).await;
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(live(&state), (0, 1));
    // The same request, spelled differently: one canonical request, answered from memory.
    let again = get(&app, "/api/v0/issues/?page_size=7&page=1&state=open").await;
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("etag"), first.header("etag"));
    assert_eq!(live(&state), (1, 1));
    let conditional = send(
        &app,
        request(axum::http::Method::GET, url)
            .header("if-none-match", first.header("etag").unwrap()),
    )
    .await;
    assert_eq!(conditional.status, 304);
    // Another page is another answer.
    let second_page = get(&app, "/api/v0/issues/?state=open&page_size=7&page=2").await;
    assert_ne!(second_page.body, first.body);
    // Errors are answered each time, not kept.
    for _ in 0..2 {
        assert_eq!(
            get(&app, "/api/v0/issues/?page_size=7&page=999")
                .await
                .status,
            404
        );
    }
    let (_, misses) = live(&state);

    // The dataset replaced (as `roost db import` does: a new file renamed over it):
    // the next request answers from the new one.
    let edited = dir.join("edited");
    write_sample(&edited, "issues.jsonl", |lines| {
        for line in lines.iter_mut() {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["state"] == "open" {
                v["title"] = serde_json::json!("Retitled while cached");
            }
            *line = v.to_string();
        }
    });
    roost::store::import_dir(&edited, &sample.db, roost::idx::build).unwrap();
    let after = get(&app, url).await;
    assert_eq!(after.status, 200);
    assert_ne!(after.body, first.body);
    assert!(after.text().contains("Retitled while cached"));
    assert_eq!(live(&state).1, misses + 1);

    // What is answered from memory is what a shim without the cache answers.
    let uncached = {
        let mut config = roost::shim::ShimConfig::new(Env::Local, &sample.db, None, &dir.join("a"));
        config.today = Some(TODAY.to_string());
        config.live_cache = 0;
        roost::shim::app(AppState::new(config).unwrap())
    };
    let cached = get(&app, url).await;
    assert_eq!(cached.body, after.body);
    assert_eq!(get(&uncached, url).await.body, cached.body);
}

#[tokio::test]
async fn records_answered_live_are_kept_too_and_a_zero_budget_keeps_nothing() {
    let fixture = shared();
    for (budget, hits) in [(1 << 20, 1), (0, 0)] {
        let state = fixture.state(Env::Local, |c| {
            c.site = None;
            c.live_cache = budget;
        });
        let app = roost::shim::app(state.clone());
        let a = get(&app, "/api/v0/projects/juice-shop").await;
        let b = get(&app, "/api/v0/projects/Juice-Shop").await;
        assert_eq!(a.status, 200, "{}", a.text());
        assert_eq!(a.body, b.body);
        assert_eq!(live(&state), (hits, 2 - hits));
    }
}

#[tokio::test]
async fn a_graphql_answer_is_executed_once_per_request_and_dataset_file() {
    let sample = Sample::new();
    let dir = sample.dir.path();
    let state = AppState::new(roost::shim::ShimConfig::new(
        Env::Local,
        &sample.db,
        None,
        &dir.join("a"),
    ))
    .unwrap();
    let app = roost::shim::app(state.clone());
    let query = "query Q($n: Int) { recentIssues(limit: $n) { title state } }";

    let first = graphql(&app, query, serde_json::json!({"n": 3})).await;
    assert_eq!(first.status, 200, "{}", first.text());
    assert!(first
        .text()
        .starts_with(r#"{"data":{"recentIssues":[{"title":"#));
    assert_eq!(cache(&state, "graphql"), (0, 1));
    let again = graphql(&app, query, serde_json::json!({"n": 3})).await;
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("content-type"), first.header("content-type"));
    assert_eq!(cache(&state, "graphql"), (1, 1));
    // Other variables are another answer.
    let two = graphql(&app, query, serde_json::json!({"n": 2})).await;
    assert_ne!(two.body, first.body);
    assert_eq!(cache(&state, "graphql"), (1, 2));
    // A refused document is answered each time, never kept.
    for _ in 0..2 {
        let refused = graphql(&app, "{ nope }", serde_json::json!({})).await;
        assert!(
            refused.text().contains("GRAPHQL_VALIDATION_FAILED"),
            "{}",
            refused.text()
        );
    }
    assert_eq!(cache(&state, "graphql"), (1, 4));

    // The dataset replaced: the next answer is executed on the new file.
    let edited = dir.join("edited");
    write_sample(&edited, "issues.jsonl", |lines| {
        for line in lines.iter_mut() {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["title"] = serde_json::json!("Retitled while cached");
            *line = v.to_string();
        }
    });
    roost::store::import_dir(&edited, &sample.db, roost::idx::build).unwrap();
    let after = graphql(&app, query, serde_json::json!({"n": 3})).await;
    assert!(
        after.text().contains("Retitled while cached"),
        "{}",
        after.text()
    );
    assert_eq!(cache(&state, "graphql"), (1, 5));

    // What is answered from memory is what a shim that keeps nothing answers.
    let uncached = {
        let mut config = roost::shim::ShimConfig::new(Env::Local, &sample.db, None, &dir.join("a"));
        config.live_cache = 0;
        roost::shim::app(AppState::new(config).unwrap())
    };
    let kept = graphql(&app, query, serde_json::json!({"n": 3})).await;
    assert_eq!(cache(&state, "graphql"), (2, 5));
    assert_eq!(kept.body, after.body);
    assert_eq!(
        graphql(&uncached, query, serde_json::json!({"n": 3}))
            .await
            .body,
        kept.body
    );
}
