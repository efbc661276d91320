//! Prometheus metrics on their own router (`--metrics-listen`): requests by route
//! class and status, latency histograms, limiter rejections, read-pool waits, the
//! dataset's and the tree's age and generation; every metric with its help text, the
//! build, the process, requests in flight and open connections, in a scrape of
//! `roost serve` (`.ci/steps/45-metrics.sh` runs `promtool check metrics` on one).

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

/// The metric families of a scrape: name → (has `# HELP`, has `# TYPE`, samples).
fn families(text: &str) -> std::collections::BTreeMap<String, (bool, bool, usize)> {
    let mut out = std::collections::BTreeMap::<String, (bool, bool, usize)>::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
            assert!(!help.trim().is_empty(), "empty help: {line}");
            out.entry(name.to_string()).or_default().0 = true;
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let name = rest.split(' ').next().unwrap();
            out.entry(name.to_string()).or_default().1 = true;
        } else if !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['{', ' ']).next().unwrap();
            let family = ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| name.strip_suffix(s).filter(|base| out.contains_key(*base)))
                .unwrap_or(name);
            out.entry(family.to_string()).or_default().2 += 1;
        }
    }
    out
}

/// `roost serve --metrics-listen` as a process (its own recorder, nothing else
/// recorded into it): every metric has its help text; the build, the process, the
/// requests in flight and the open connections are there; the first read of a tree
/// file counts as a tree file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_metric_is_described_and_tree_files_count_as_tree_files() {
    let server = Serving::start(&["--metrics-listen", "127.0.0.1:0"]);
    let metrics_url = server.metrics_url();
    let client = reqwest::Client::new();
    // The first request of the process for this file reads it from the tree.
    let r = client
        .get(server.url("/api/v0/chapters/london"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.bytes().await.unwrap();
    // A request in progress: its head is read, its body still coming.
    let addr = server.addr.clone();
    let mut held = tokio::task::spawn_blocking(move || {
        use std::io::Write as _;
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(
            b"POST /graphql/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"query\"",
        )
        .unwrap();
        s
    })
    .await
    .unwrap();
    // The in-flight gauge moves once the server has read the head.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let text = loop {
        let text = client
            .get(&metrics_url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if text.contains("roost_http_requests_in_flight 1") {
            break text;
        }
        assert!(std::time::Instant::now() < deadline, "{text}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let commit = String::from_utf8(roost().arg("--version").output().unwrap().stdout).unwrap();
    let commit = commit
        .split("(commit ")
        .nth(1)
        .and_then(|c| c.split(')').next())
        .unwrap()
        .to_string();
    for needle in [
        format!(
            "roost_build_info{{version=\"{}\",commit=\"{commit}\"}} 1",
            env!("CARGO_PKG_VERSION")
        ),
        "roost_http_requests_total{class=\"tree_file\",status=\"200\"} 1".to_string(),
        // The kept-alive connection of `client` and the one held open.
        "roost_open_connections 2".to_string(),
        "process_cpu_seconds_total ".to_string(),
        "process_resident_memory_bytes ".to_string(),
        "process_open_fds ".to_string(),
        "process_start_time_seconds ".to_string(),
    ] {
        assert!(text.contains(&needle), "no {needle} in:\n{text}");
    }
    assert!(!text.contains("class=\"live_rest\""), "{text}");
    let families = families(&text);
    assert!(families.len() >= 10, "{families:?}");
    for (name, (help, kind, samples)) in &families {
        assert!(*help && *kind, "{name}: HELP {help}, TYPE {kind}:\n{text}");
        assert!(*samples > 0, "{name} has no sample");
    }
    {
        use std::io::Write as _;
        held.write_all(&[b' '; 92]).unwrap();
    }
}
