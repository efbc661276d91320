//! The anonymous GraphQL budget against the frontend's heaviest page, as a visitor's
//! browser loads it (docs/api.md §6 "Limits").
//!
//! The board candidates page (`/board/{year}/candidates`) is the one page whose
//! browser asks more than one GraphQL question: the board, then each candidate's
//! member snapshot, then each chapter and project that snapshot names, one request
//! each. All of it comes from one address. `roost serve` with its defaults must answer
//! every request of that page, loaded twice in a row, without a 429; and a caller
//! sending far more than a page at once is still stopped.

use std::collections::BTreeMap;

use futures_util::future::join_all;
use futures_util::stream::{self, StreamExt as _};
use roost::config::Env;
use roost::graphql::Limits;
use serde_json::{json, Value};

use crate::support::graphql::*;
use crate::support::Serving;

const BOARD: &str = "query Board($year: Int!) { boardOfDirectors(year: $year) { id year owaspUrl
    candidates { id memberName memberEmail description
      member { id login name avatarUrl bio createdAt firstOwaspContributionAt
        isOwaspBoardMember isFormerOwaspStaff isGsocMentor linkedinPageId } } } }";

const SNAPSHOT: &str =
    "query Snapshot($userLogin: String!) { memberSnapshot(userLogin: $userLogin) {
    id startAt endAt commitsCount issuesCount pullRequestsCount messagesCount
    totalContributions chapterContributions projectContributions repositoryContributions
    channelCommunications communicationHeatmapData contributionHeatmapData
    githubUser { login } } }";

const CHAPTER: &str = "query Chapter($key: String!) { chapter(key: $key) { id key name url } }";

const PROJECT: &str =
    "query Project($key: String!) { project(key: $key) { id key level name type url } }";

/// The browser's requests of the newest board's candidates page, as (query,
/// variables), read from the sample through a GraphQL service without a budget.
async fn board_page() -> Vec<(&'static str, Value)> {
    let app = App::with_limits(
        Env::Local,
        Limits {
            rate_limit: 0,
            ..Limits::default()
        },
    );
    let boards = app
        .data("{ boardsOfDirectors(limit: 1) { year } }", json!({}))
        .await;
    let year = boards["boardsOfDirectors"][0]["year"].clone();
    let mut page = vec![(BOARD, json!({ "year": year }))];
    let board = app.data(BOARD, json!({ "year": year })).await;
    let logins: Vec<Value> = board["boardOfDirectors"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["member"]["login"].clone())
        .filter(|l| l.is_string())
        .collect();
    for login in logins {
        let variables = json!({ "userLogin": login });
        let snapshot = app.data(SNAPSHOT, variables.clone()).await;
        page.push((SNAPSHOT, variables));
        let snapshot = &snapshot["memberSnapshot"];
        for (field, query, prefix) in [
            ("chapterContributions", CHAPTER, "www-chapter-"),
            ("projectContributions", PROJECT, "www-project-"),
        ] {
            let keys: BTreeMap<String, Value> =
                serde_json::from_value(snapshot[field].clone()).unwrap_or_default();
            for key in keys.keys() {
                page.push((query, json!({ "key": key.trim_start_matches(prefix) })));
            }
        }
    }
    page
}

/// The status of one request, and whether its answer says when to come back.
async fn answer(
    client: &reqwest::Client,
    url: &str,
    query: &str,
    variables: &Value,
) -> (u16, bool) {
    let reply = client
        .post(url)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .unwrap();
    let retry_after = reply
        .headers()
        .get("retry-after")
        .is_some_and(|v| v.to_str().is_ok_and(|v| v.parse::<u64>().is_ok()));
    (reply.status().as_u16(), retry_after)
}

/// The status of one request.
async fn status(client: &reqwest::Client, url: &str, query: &str, variables: &Value) -> u16 {
    answer(client, url, query, variables).await.0
}

/// Sends every request of `page` at once; the status of each.
async fn load(client: &reqwest::Client, url: &str, page: &[(&str, Value)]) -> Vec<u16> {
    join_all(page.iter().map(|(q, v)| status(client, url, q, v))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_heaviest_page_loads_twice_from_one_address_within_the_defaults() {
    let page = board_page().await;
    let snapshots = page.iter().filter(|(q, _)| *q == SNAPSHOT).count();
    // The browser's client answers a repeated question from its cache (or joins it
    // while in flight): the page asks each chapter and project once. On the sample's
    // newest board, 7 candidates with an account and 25 distinct chapters and projects
    // among the 35 their snapshots name: 33 requests (the count docs/api.md gives).
    // All 43 are sent below, as a browser whose cache misses would.
    let distinct: std::collections::BTreeSet<String> =
        page.iter().map(|(q, v)| format!("{q}{v}")).collect();
    assert_eq!((page.len(), distinct.len(), snapshots), (43, 33, 7));

    // Defaults on: no budget flag.
    let serving = Serving::start(&[]);
    let url = serving.url("/graphql/");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()
        .unwrap();
    for visit in 1..=2 {
        let statuses = load(&client, &url, &page).await;
        assert!(
            statuses.iter().all(|s| *s == 200),
            "visit {visit}: {:?}",
            statuses.iter().filter(|s| **s != 200).collect::<Vec<_>>()
        );
    }

    // A scraper sending a thousand at once from the same address is stopped once the
    // burst is spent, and every refusal tells it when to come back. (Each refusal is
    // checked as it comes: a single request after the burst could find a token the
    // budget refilled meanwhile on a slow machine.)
    let london = json!({ "key": "london" });
    let answers: Vec<(u16, bool)> = stream::iter(0..1000)
        .map(|_| answer(&client, &url, CHAPTER, &london))
        .buffer_unordered(16)
        .collect()
        .await;
    let refused = answers.iter().filter(|(s, _)| *s == 429).count();
    assert!(refused > 600, "{refused} of 1000 refused");
    assert!(answers.iter().all(|(s, _)| *s == 200 || *s == 429));
    assert!(
        answers.iter().all(|(s, retry)| *s != 429 || *retry),
        "a 429 without a Retry-After in seconds"
    );
}
