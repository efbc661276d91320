//! The projects health dashboard: `projectHealthMetrics` (the newest measurement of
//! every active project, filtered, ordered, paged), its count and
//! `projectHealthStats`, with expectations computed from the interchange records.

use chrono::Datelike as _;
use serde_json::{json, Value};

use super::app;
use crate::support::ts;

/// One project's newest measurement, as the dashboard lists it.
#[derive(Clone)]
struct Latest {
    /// Position in the file: the tie-breaker.
    order: usize,
    key: String,
    name: String,
    level: &'static str,
    score: Option<f64>,
    stars: u64,
    contributors: u64,
    forks: u64,
    created_micros: i64,
}

/// The newest measurement of each active project of the sample.
fn latest() -> Vec<Latest> {
    let ds = roost::store::sample_dataset().unwrap();
    let mut out: Vec<Latest> = Vec::new();
    for (order, (_, m)) in ds.project_health_metrics.iter().enumerate() {
        let Some((_, p)) = ds
            .projects
            .iter()
            .find(|(_, p)| p.key.eq_ignore_ascii_case(&m.project) && p.is_active)
        else {
            continue;
        };
        let rec = Latest {
            order,
            key: p.key.trim_start_matches("www-project-").to_string(),
            name: p.name.clone(),
            level: p.level.as_str(),
            score: m.score,
            stars: m.stars_count,
            contributors: m.contributors_count,
            forks: m.forks_count,
            created_micros: m.created_at.0,
        };
        match out.iter_mut().find(|o| o.key == rec.key) {
            Some(o) if o.created_micros < rec.created_micros => *o = rec,
            Some(_) => {}
            None => out.push(rec),
        }
    }
    assert!(
        out.len() >= 4,
        "the sample measures several active projects"
    );
    out
}

/// The project keys `projectHealthMetrics` listed, in order.
fn listed_keys(data: &Value) -> Vec<Value> {
    let list = data["projectHealthMetrics"].as_array().unwrap();
    list.iter().map(|m| m["projectKey"].clone()).collect()
}

fn keys(list: &[Latest]) -> Value {
    json!(list.iter().map(|l| l.key.clone()).collect::<Vec<_>>())
}

const LIST: &str = "query($f: ProjectHealthMetricsFilter!, $p: OffsetPaginationInput!,
    $o: [ProjectHealthMetricsOrder!]) {
    projectHealthMetrics(filters: $f, pagination: $p, ordering: $o) {
        projectKey projectName score starsCount contributorsCount forksCount createdAt }
    projectHealthMetricsDistinctLength(filters: $f) }";

async fn list(f: Value, p: Value, o: Value) -> Value {
    app().data(LIST, json!({"f": f, "p": p, "o": o})).await
}

/// The dashboard's default: score high to low (a missing score first, as the largest),
/// then the project's name.
#[tokio::test]
async fn newest_measurement_per_active_project_by_score() {
    let mut expected = latest();
    expected.sort_by(|a, b| {
        let score = |l: &Latest| l.score.unwrap_or(f64::INFINITY);
        score(b)
            .total_cmp(&score(a))
            .then(a.name.cmp(&b.name))
            .then(a.order.cmp(&b.order))
    });
    let data = list(
        json!({}),
        json!({"offset": 0, "limit": 10}),
        json!([{"score": "DESC"}, {"project_Name": "ASC"}]),
    )
    .await;
    let first = &expected[0];
    assert_eq!(
        data["projectHealthMetrics"][0],
        json!({"projectKey": first.key, "projectName": first.name, "score": first.score,
            "starsCount": first.stars, "contributorsCount": first.contributors,
            "forksCount": first.forks, "createdAt": ts(first.created_micros)})
    );
    let got = listed_keys(&data);
    assert_eq!(json!(got), keys(&expected));
    assert_eq!(
        data["projectHealthMetricsDistinctLength"],
        json!(expected.len())
    );
}

#[tokio::test]
async fn score_and_level_filters_and_their_combinations() {
    let all = latest();
    let by_name = |keep: &dyn Fn(&Latest) -> bool| {
        let mut v: Vec<Latest> = all.iter().filter(|l| keep(l)).cloned().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name).then(a.order.cmp(&b.order)));
        v
    };
    let order = json!([{"project_Name": "ASC"}]);
    let page = json!({"offset": 0});
    let cases: Vec<(Value, Vec<Latest>)> = vec![
        (
            json!({"score": {"gte": 75}}),
            by_name(&|l| l.score.is_some_and(|s| s >= 75.0)),
        ),
        (
            json!({"score": {"gte": 50, "lt": 75}}),
            by_name(&|l| l.score.is_some_and(|s| (50.0..75.0).contains(&s))),
        ),
        (
            json!({"score": {"range": {"start": 0, "end": 60}}}),
            by_name(&|l| l.score.is_some_and(|s| (0.0..=60.0).contains(&s))),
        ),
        (
            json!({"score": {"isNull": true}}),
            by_name(&|l| l.score.is_none()),
        ),
        (
            json!({"level": "FLAGSHIP"}),
            by_name(&|l| l.level == "flagship"),
        ),
        (
            json!({"level": "FLAGSHIP", "score": {"lt": 75}}),
            by_name(&|l| l.level == "flagship" && l.score.is_some_and(|s| s < 75.0)),
        ),
        (
            json!({"score": {"gte": 75}, "OR": {"level": "LAB"}}),
            by_name(&|l| l.score.is_some_and(|s| s >= 75.0) || l.level == "lab"),
        ),
        (
            json!({"NOT": {"level": "FLAGSHIP"}}),
            by_name(&|l| l.level != "flagship"),
        ),
        (json!({"score": {"inList": []}}), vec![]),
        // An empty side: `OR` with it keeps everything, `AND` with it changes nothing,
        // and the values of the side left out are not bound.
        (json!({"OR": {"level": "LAB"}}), by_name(&|_| true)),
        (json!({"score": {"gte": 75}, "OR": {}}), by_name(&|_| true)),
        (
            json!({"AND": {"level": "LAB"}}),
            by_name(&|l| l.level == "lab"),
        ),
        (
            json!({"level": "FLAGSHIP", "NOT": {"score": {"gte": 75}, "OR": {"level": "LAB"}}}),
            // SQL's NOT: a missing score is neither kept nor left out by it, so dropped.
            by_name(&|l| l.level == "flagship" && l.score.is_some_and(|s| s < 75.0)),
        ),
    ];
    for (filter, expected) in cases {
        let data = list(filter.clone(), page.clone(), order.clone()).await;
        let got = listed_keys(&data);
        assert_eq!(json!(got), keys(&expected), "{filter}");
        assert_eq!(
            data["projectHealthMetricsDistinctLength"],
            json!(expected.len()),
            "{filter}"
        );
    }
}

#[tokio::test]
async fn pages_orderings_and_bad_input() {
    let mut by_stars = latest();
    by_stars.sort_by(|a, b| a.stars.cmp(&b.stars).then(a.order.cmp(&b.order)));
    let order = json!([{"starsCount": "ASC"}]);
    let data = list(json!({}), json!({"offset": 1, "limit": 2}), order.clone()).await;
    let got = listed_keys(&data);
    assert_eq!(json!(got), keys(&by_stars[1..3]));
    // The count is of every page.
    assert_eq!(
        data["projectHealthMetricsDistinctLength"],
        json!(by_stars.len())
    );
    for page in [
        json!({"offset": 0, "limit": 0}),
        json!({"offset": -1, "limit": 5}),
        json!({"offset": 500, "limit": 5}),
    ] {
        let data = list(json!({}), page.clone(), order.clone()).await;
        assert_eq!(data["projectHealthMetrics"], json!([]), "{page}");
    }
    // An unknown level is the client's mistake, named.
    let answer = app()
        .post(
            LIST,
            json!({"f": {"level": "LEGENDARY"}, "p": {"offset": 0}}),
        )
        .await
        .json();
    let message = answer["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("LEGENDARY"), "{answer}");
    // An `Int` past 32 bits is the client's mistake, coded (a variable when the
    // document is checked, a literal when the field runs).
    let answer = app()
        .post(
            "query($p: OffsetPaginationInput!) { projectHealthMetrics(pagination: $p) { score } }",
            json!({"p": {"offset": 0, "limit": 4_294_967_296u64}}),
        )
        .await
        .json();
    let code = &answer["errors"][0]["extensions"]["code"];
    assert!(
        code == "BAD_USER_INPUT" || code == "GRAPHQL_VALIDATION_FAILED",
        "{answer}"
    );
    let answer = app()
        .post(
            "{ boardOfDirectors(year: 99999999999) { year } }",
            json!({}),
        )
        .await
        .json();
    assert_eq!(
        answer["errors"][0]["extensions"]["code"],
        json!("BAD_USER_INPUT"),
        "{answer}"
    );
    // Nesting deeper than 8 is refused with a coded error, not a crash.
    let mut deep = json!({"level": "LAB"});
    for _ in 0..12 {
        deep = json!({"NOT": deep});
    }
    let answer = app()
        .post(LIST, json!({"f": deep, "p": {"offset": 0}}))
        .await
        .json();
    assert_eq!(
        answer["errors"][0]["extensions"]["code"],
        json!("BAD_USER_INPUT"),
        "{answer}"
    );
}

#[tokio::test]
async fn stats_over_the_newest_measurements() {
    let all = latest();
    let count =
        |keep: &dyn Fn(f64) -> bool| all.iter().filter(|l| l.score.is_some_and(keep)).count();
    let healthy = count(&|s| s >= 75.0);
    let attention = count(&|s| (50.0..75.0).contains(&s));
    let unhealthy = count(&|s| s < 50.0);
    let scores: Vec<f64> = all.iter().filter_map(|l| l.score).collect();
    let average = scores.iter().sum::<f64>() / scores.len() as f64;
    let data = app()
        .data(
            "{ projectHealthStats { averageScore monthlyOverallScoresMonths
                projectsCountHealthy projectsCountNeedAttention projectsCountUnhealthy
                projectsPercentageHealthy totalContributors totalForks totalStars } }",
            json!({}),
        )
        .await;
    let stats = &data["projectHealthStats"];
    assert_eq!(stats["projectsCountHealthy"], json!(healthy));
    assert_eq!(stats["projectsCountNeedAttention"], json!(attention));
    assert_eq!(stats["projectsCountUnhealthy"], json!(unhealthy));
    assert!((stats["averageScore"].as_f64().unwrap() - average).abs() < 1e-9);
    let share = healthy as f64 * 100.0 / all.len() as f64;
    assert!((stats["projectsPercentageHealthy"].as_f64().unwrap() - share).abs() < 1e-9);
    let sum = |f: &dyn Fn(&Latest) -> u64| all.iter().map(f).sum::<u64>();
    assert_eq!(stats["totalStars"], json!(sum(&|l| l.stars)));
    assert_eq!(stats["totalForks"], json!(sum(&|l| l.forks)));
    assert_eq!(stats["totalContributors"], json!(sum(&|l| l.contributors)));
    // The months of the last twelve with a scored measurement, oldest first.
    let ds = roost::store::sample_dataset().unwrap();
    let now = chrono::Utc::now();
    let first = now.year() * 12 + now.month0() as i32 - 11;
    let mut months: Vec<i32> = Vec::new();
    let mut measured: Vec<(i64, i32)> = ds
        .project_health_metrics
        .iter()
        .filter(|(_, m)| m.score.is_some())
        .filter(|(_, m)| {
            ds.projects
                .iter()
                .any(|(_, p)| p.is_active && p.key.eq_ignore_ascii_case(&m.project))
        })
        .map(|(_, m)| {
            let at = chrono::DateTime::from_timestamp_micros(m.created_at.0).unwrap();
            (m.created_at.0, at.year() * 12 + at.month0() as i32)
        })
        .filter(|(_, month)| *month >= first)
        .collect();
    measured.sort();
    for (_, month) in measured {
        let m = month % 12 + 1;
        if months.last() != Some(&m) {
            months.push(m);
        }
    }
    assert_eq!(stats["monthlyOverallScoresMonths"], json!(months));
}

#[tokio::test]
async fn project_latest_measurement() {
    let all = latest();
    let newest = &all[0];
    let q = "query($k: String!) { project(key: $k) { healthMetricsLatest { projectKey
        createdAt score ageDays isLeaderRequirementsCompliant } } }";
    let data = app().data(q, json!({"k": newest.key})).await;
    let got = &data["project"]["healthMetricsLatest"];
    assert_eq!(got["projectKey"], json!(newest.key));
    assert_eq!(got["createdAt"], json!(ts(newest.created_micros)));
    assert_eq!(got["score"], json!(newest.score));
    // A project without measurements has none.
    let ds = roost::store::sample_dataset().unwrap();
    let unmeasured = ds
        .projects
        .iter()
        .find(|(_, p)| {
            p.is_active
                && !ds
                    .project_health_metrics
                    .iter()
                    .any(|(_, m)| m.project.eq_ignore_ascii_case(&p.key))
        })
        .map(|(_, p)| p.key.clone())
        .unwrap();
    let data = app().data(q, json!({"k": unmeasured})).await;
    assert_eq!(data["project"]["healthMetricsLatest"], Value::Null);
}
