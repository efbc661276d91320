//! Prometheus metrics on their own router (`--metrics-listen`): requests by route
//! class and status, latency histograms, limiter rejections, read-pool waits, the
//! dataset's and the tree's age and generation.

use axum::http::Method;
use roost::config::Env;

use crate::support::*;

#[tokio::test]
async fn a_scrape_shows_requests_rejections_and_ages() {
    let dir = tempfile::tempdir().unwrap();
    let auth_db = dir.path().join("auth.db");
    let state = shared().state(Env::Production, |c| {
        c.auth_db = auth_db;
        c.failed_auth_rate = 1;
    });
    // The recorder is installed before the first request (as `roost serve` does).
    roost::shim::metrics::handle();
    let app = roost::shim::app(state.clone());
    for _ in 0..3 {
        let req =
            from(Method::GET, "/api/v0/chapters/", "198.51.100.77").header("x-api-key", "rk_no");
        send(&app, req).await;
    }
    assert_eq!(get(&app, "/healthz").await.status, 200);
    assert_eq!(get(&app, "/readyz").await.status, 200);

    let metrics = roost::shim::metrics::router(state);
    roost::shim::metrics::handle().run_upkeep();
    let r = get(&metrics, "/metrics").await;
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/plain"));
    let text = r.text();
    for needle in [
        "roost_http_requests_total{class=\"live_rest\",status=\"401\"}",
        "roost_http_requests_total{class=\"live_rest\",status=\"429\"}",
        "roost_http_requests_total{class=\"other\",status=\"200\"}",
        "roost_http_request_duration_seconds_bucket{class=\"other\",le=\"0.0005\"}",
        "roost_limiter_rejections_total{kind=\"failed_auth\"}",
        "roost_read_pool_wait_seconds_bucket",
        "roost_dataset_age_seconds",
        "roost_dataset_generation",
        "roost_tree_age_seconds",
        "roost_tree_generation",
        "roost_redis_degraded 0",
        "roost_response_cache_hits_total{cache=\"tree_file\"}",
        "roost_response_cache_misses_total{cache=\"live\"}",
        "roost_response_cache_bytes{cache=\"live\"}",
    ] {
        assert!(text.contains(needle), "no {needle} in:\n{text}");
    }
    assert_eq!(get(&metrics, "/api/v0/").await.status, 404);
}
