//! `roost serve` warms up before `/readyz` says ready: until then `/readyz` is 503
//! "warming up" (the process answers everything else), the warm-up's log line comes
//! before the first 200, and the first answers after it build nothing a warm process
//! has: GraphQL's facts are built once, by the warm-up; every connection of the read
//! pool is open; the web frontend's home page is answered from memory. A dataset put
//! in place later is warmed without a request.

use std::cell::Cell;

use serde_json::{json, Value};

use crate::support::*;

/// The value of the series `series` (name and labels as rendered) in a scrape.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_once_warm_and_the_first_answers_build_nothing() {
    let server = Serving::start(&["--metrics-listen", "127.0.0.1:0"]);
    let client = reqwest::Client::new();
    // Asked from the first moment: 503 "warming up" until the warm-up is over.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let r = client.get(server.url("/readyz")).send().await.unwrap();
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap();
        if status == 200 {
            assert_eq!(body, json!({"status": "ready"}));
            break;
        }
        assert_eq!(status, 503, "{body}");
        assert_eq!(
            body,
            json!({"status": "unavailable", "reason": "warming up"})
        );
        assert!(std::time::Instant::now() < deadline, "never ready");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let metrics_url = server.metrics_url();
    // The warm-up's line, with its duration, before any 200 of /readyz.
    let ready_before = Cell::new(false);
    let warmed = server.line_where(|l| {
        if l["target"] == "roost::access" && l["path"] == "/readyz" && l["status"] == 200 {
            ready_before.set(true);
        }
        l["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("warmed up in "))
    });
    assert!(!ready_before.get(), "/readyz said ready before: {warmed}");
    assert_eq!(warmed["target"], "roost::start");
    assert!(warmed["millis"].is_u64(), "{warmed}");
    assert!(warmed["connections"].as_u64().unwrap() >= 1, "{warmed}");

    let scrape = || async {
        client
            .get(&metrics_url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let before = scrape().await;
    let facts = "roost_graphql_facts_builds_total";
    let opened = "roost_read_pool_connections_opened_total";
    let graphql_hits = "roost_response_cache_hits_total{cache=\"graphql\"}";
    assert_eq!(sample(&before, facts), Some(1.0), "{before}");
    let connections = sample(&before, opened).unwrap_or_else(|| panic!("{before}"));
    assert_eq!(connections, warmed["connections"].as_f64().unwrap());
    assert!(
        sample(&before, "roost_warmup_seconds").is_some(),
        "{before}"
    );

    // The frontend's home page, as it asks for it; then a live list.
    let pages: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/graphql/pages/pages.json").unwrap())
            .unwrap();
    let home = json!({
        "query": std::fs::read_to_string("tests/graphql/pages/home.graphql").unwrap(),
        "variables": pages["home.graphql"]["variables"],
    });
    let r = client
        .post(server.url("/graphql/"))
        .json(&home)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let answer: Value = r.json().await.unwrap();
    assert!(answer["errors"].is_null(), "{answer}");
    assert!(answer["data"]["topContributors"].is_array(), "{answer}");
    let r = client
        .get(server.url("/api/v0/issues/?page_size=7"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    let after = scrape().await;
    assert_eq!(
        sample(&after, facts),
        Some(1.0),
        "the facts were built again"
    );
    assert_eq!(
        sample(&after, opened),
        Some(connections),
        "a request opened a connection"
    );
    assert_eq!(
        sample(&after, graphql_hits).unwrap_or(0.0) - sample(&before, graphql_hits).unwrap_or(0.0),
        1.0,
        "the home page was executed, not answered from memory:\n{after}"
    );
}

/// A dataset put in place under a running `roost serve` is warmed within about a
/// second, without a request: its facts built (a second time in the process), one
/// line in the log; `/readyz` stays 200 meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_dataset_is_warmed_without_a_request() {
    let fx = Fixture::new(false);
    let server = Serving::start_on(&fx.db, &fx.site, &["--metrics-listen", "127.0.0.1:0"]);
    let metrics_url = server.metrics_url();
    server.line_where(|l| {
        l["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("warmed up in "))
    });
    // What `roost db import` does: a new file renamed over the dataset.
    let output = roost()
        .args(["db", "init", "--force", "--db"])
        .arg(&fx.db)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let warmed = server.line_where(|l| {
        l["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("warmed up the replaced dataset in "))
    });
    assert_eq!(warmed["target"], "roost::dataset");
    let client = reqwest::Client::new();
    let text = client
        .get(&metrics_url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        sample(&text, "roost_graphql_facts_builds_total"),
        Some(2.0),
        "{text}"
    );
    let r = client.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
}
