//! `POST /idx/` (docs/api.md §8), the search endpoint of the community's web
//! frontend: each index asked as the frontend's pages ask it (`useSearchPage`: page
//! from 1, 25 hits by default, 24 on the members, organizations and programs pages,
//! 1000 for the chapters map, `idx_is_active:true` added for chapters and projects;
//! the header's search: 3 hits of chapters, events, organizations, projects and
//! users), the hit fields its cards read, the custom ranking and the sort variants,
//! facet filters, matching (prefix, case, accents, one typo, every word), the errors,
//! CSRF in production, CORS with credentials, the per-address rate, a dataset without
//! an index, and the index swapped with its dataset. Expectations come from SQL over
//! the sample, not from roost.

use axum::body::Body;
use axum::http::{Method, Request};
use roost::config::Env;
use roost::shim::App;
use roost::shim::ShimConfig;
use serde_json::{json, Value};

use crate::support::*;

/// A POST of `body` to `/idx/` from `ip`, with `headers`.
fn post(body: &str, ip: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut req = from(Method::POST, "/idx/", ip).header("content-type", "application/json");
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.body(Body::from(body.to_string())).unwrap()
}

/// The shim over the shared sample without a rate limit (it has its own test).
fn unlimited() -> App {
    shared().app(Env::Local, |c| c.graphql.rate_limit = 0)
}

async fn idx(app: &App, body: Value) -> Reply {
    oneshot(app, post(&body.to_string(), "192.0.2.10", &[])).await
}

/// The hits of a request that must succeed, and its `nbPages`.
async fn hits(app: &App, body: Value) -> (Vec<Value>, u64) {
    let r = idx(app, body.clone()).await;
    assert_eq!(r.status, 200, "{body}: {}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    let v = r.json();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["hits", "nbPages"], "{body}");
    (
        v["hits"].as_array().unwrap().clone(),
        v["nbPages"].as_u64().unwrap(),
    )
}

/// Every hit of an index for `query` (one page of 1000).
async fn all(app: &App, index: &str, query: &str) -> Vec<Value> {
    hits(
        app,
        json!({"indexName": index, "query": query, "page": 1, "hitsPerPage": 1000, "facetFilters": []}),
    )
    .await
    .0
}

fn field<'a>(hits: &'a [Value], name: &str) -> Vec<&'a str> {
    hits.iter().map(|h| h[name].as_str().unwrap()).collect()
}

/// The first column of every row of `sql` over the sample, as text.
fn column(sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(&shared().db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let rows = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows
}

fn count(sql: &str) -> u64 {
    let conn = rusqlite::Connection::open(&shared().db).unwrap();
    conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as u64
}

/// The first column of every row of `sql`, as text.
fn texts(sql: &str) -> Vec<String> {
    strings(&rusqlite::Connection::open(&shared().db).unwrap(), sql, [])
}

fn short(keys: Vec<String>, prefix: &str) -> Vec<String> {
    keys.into_iter()
        .map(|k| k.strip_prefix(prefix).unwrap_or(&k).to_string())
        .collect()
}

const OPEN_ISSUES_OF_ACTIVE_PROJECTS: &str = "FROM issues i WHERE i.state = 'open' AND EXISTS \
    (SELECT 1 FROM project_repositories pr JOIN projects p ON p.id = pr.project_id \
     WHERE pr.repository_id = i.repository_id AND p.is_active = 1)";

#[tokio::test]
async fn every_index_answers_the_list_pages_requests() {
    let app = unlimited();
    let cases = [
        (
            "chapters",
            1000,
            vec!["idx_is_active:true"],
            "SELECT COUNT(*) FROM chapters WHERE is_active = 1".to_string(),
        ),
        (
            "chapters",
            25,
            vec!["idx_is_active:true"],
            "SELECT COUNT(*) FROM chapters WHERE is_active = 1".to_string(),
        ),
        (
            "projects",
            25,
            vec!["idx_is_active:true"],
            "SELECT COUNT(*) FROM projects WHERE is_active = 1".to_string(),
        ),
        (
            "committees",
            25,
            vec![],
            "SELECT COUNT(*) FROM committees WHERE is_active = 1".to_string(),
        ),
        (
            "organizations",
            24,
            vec![],
            "SELECT COUNT(*) FROM organizations WHERE is_affiliated = 1".to_string(),
        ),
        (
            "users",
            24,
            vec![],
            "SELECT COUNT(*) FROM members".to_string(),
        ),
        (
            "issues",
            25,
            vec![],
            format!("SELECT COUNT(*) {OPEN_ISSUES_OF_ACTIVE_PROJECTS}"),
        ),
        (
            "events",
            3,
            vec![],
            "SELECT COUNT(*) FROM events".to_string(),
        ),
    ];
    for (index, per_page, facets, sql) in cases {
        let total = count(&sql);
        assert!(total > 0, "{index}: the sample has records");
        let body = json!({"facetFilters": facets, "hitsPerPage": per_page, "indexName": index, "page": 1, "query": ""});
        let (page, pages) = hits(&app, body).await;
        assert_eq!(pages, total.min(1000).div_ceil(per_page), "{index}");
        assert_eq!(page.len() as u64, total.min(per_page), "{index}");
        // The last page holds the rest; the pages together hold every record once.
        let mut seen = std::collections::BTreeSet::new();
        for n in 1..=pages {
            let body = json!({"facetFilters": facets, "hitsPerPage": per_page, "indexName": index, "page": n, "query": ""});
            for hit in hits(&app, body).await.0 {
                assert!(seen.insert(hit["objectID"].as_str().unwrap().to_string()));
            }
        }
        assert_eq!(seen.len() as u64, total.min(1000), "{index}");
    }
    // Mentorship programs: the published ones, in the order of their records, with
    // what the program card reads; drafts and completed programs never.
    let published = texts("SELECT key FROM programs WHERE status = 'published' ORDER BY id");
    assert!(published.len() >= 3, "the sample has published programs");
    let programs = all(&app, "programs", "").await;
    assert_eq!(field(&programs, "key"), published);
    for hit in &programs {
        for name in [
            "objectID",
            "key",
            "name",
            "description",
            "status",
            "startedAt",
            "endedAt",
            "experienceLevels",
        ] {
            assert!(hit.get(name).is_some(), "program hit without {name}: {hit}");
        }
        assert_eq!(hit["status"], "published");
    }
    let (page, pages) = hits(
        &app,
        json!({"facetFilters": ["idx_status:published"], "hitsPerPage": 24, "indexName": "programs", "page": 1, "query": ""}),
    )
    .await;
    assert_eq!((page.len(), pages), (published.len(), 1));
    for status in ["draft", "completed"] {
        let (page, _) = hits(
            &app,
            json!({"facetFilters": [format!("idx_status:{status}")], "hitsPerPage": 24, "indexName": "programs", "page": 1, "query": ""}),
        )
        .await;
        assert!(page.is_empty(), "{status}");
    }
    // A word of a published program's name finds it; a draft's name finds nothing.
    let draft = texts("SELECT name FROM programs WHERE status = 'draft' ORDER BY id");
    let name = programs[0]["name"].as_str().unwrap().to_string();
    let found = all(&app, "programs", &name).await;
    assert_eq!(found[0]["name"], name.as_str());
    for name in draft {
        let found = all(&app, "programs", &name).await;
        assert!(found.iter().all(|h| h["name"] != name.as_str()), "{name}");
    }
}

#[tokio::test]
async fn hits_carry_what_the_cards_read() {
    let app = unlimited();
    let chapters = all(&app, "chapters", "").await;
    for hit in &chapters {
        for name in [
            "objectID",
            "key",
            "name",
            "summary",
            "url",
            "country",
            "region",
            "createdAt",
            "updatedAt",
            "suggestedLocation",
        ] {
            assert!(hit[name].is_string(), "chapter {name}: {hit}");
        }
        assert_eq!(hit["isActive"], true);
        assert!(hit["leaders"].is_array() && hit["relatedUrls"].is_array());
        assert!(!hit["key"].as_str().unwrap().starts_with("www-"));
    }
    // Coordinates as the map reads them.
    let located = count(
        "SELECT COUNT(*) FROM chapters WHERE is_active = 1 AND latitude IS NOT NULL \
         AND longitude IS NOT NULL",
    );
    let with_geo: Vec<&Value> = chapters
        .iter()
        .filter(|h| h["_geoloc"].is_object())
        .collect();
    assert_eq!(with_geo.len() as u64, located);
    assert!(with_geo
        .iter()
        .all(|h| h["_geoloc"]["lat"].is_f64() && h["_geoloc"]["lng"].is_f64()));
    let edinburgh = chapters.iter().find(|h| h["key"] == "edinburgh").unwrap();
    assert_eq!(
        edinburgh["relatedUrls"],
        json!(column("SELECT u.url FROM related_urls u JOIN chapters c ON c.id = u.entity_id \
            WHERE u.entity_kind = 'chapter' AND c.key = 'www-chapter-edinburgh' ORDER BY u.position"))
    );
    assert_eq!(
        edinburgh["leaders"],
        json!(column("SELECT l.name FROM leaders l JOIN chapters c ON c.id = l.entity_id \
            WHERE l.entity_kind = 'chapter' AND c.key = 'www-chapter-edinburgh' ORDER BY l.position"))
    );
    // Top contributors: the members with most contributions over the chapter's
    // repositories, as the card shows them.
    let top = edinburgh["topContributors"].as_array().unwrap();
    assert!(!top.is_empty());
    let expected = column(
        "SELECT m.login FROM chapter_repositories cr JOIN chapters c ON c.id = cr.chapter_id \
         JOIN repository_contributors rc ON rc.repository_id = cr.repository_id \
         JOIN members m ON m.id = rc.member_id WHERE c.key = 'www-chapter-edinburgh' \
         GROUP BY m.id ORDER BY SUM(rc.contributions_count) DESC, m.login_lc, m.id LIMIT 15",
    );
    assert_eq!(field(top, "login"), expected);
    for c in top {
        assert!(c["avatarUrl"].is_string() && c["name"].is_string());
        assert!(c["contributionsCount"].as_i64().unwrap() > 0);
    }

    let projects = all(&app, "projects", "").await;
    for hit in &projects {
        for name in [
            "key",
            "name",
            "summary",
            "level",
            "type",
            "updatedAt",
            "url",
        ] {
            assert!(hit[name].is_string(), "project {name}: {hit}");
        }
        for name in [
            "forksCount",
            "starsCount",
            "contributorsCount",
            "openIssuesCount",
            "openPullRequestsCount",
            "repositoriesCount",
            "issuesCount",
        ] {
            assert!(hit[name].is_i64(), "project {name}: {hit}");
        }
        assert!(hit["topContributors"].is_array() && hit["leaders"].is_array());
    }
    let zap = projects.iter().find(|h| h["key"] == "zap").unwrap();
    assert_eq!(
        zap["starsCount"].as_i64().unwrap() as u64,
        count("SELECT stars FROM projects WHERE key = 'www-project-zap'")
    );
    assert_eq!(
        zap["contributorsCount"].as_i64().unwrap() as u64,
        count(
            "SELECT SUM(r.contributors_count) FROM project_repositories pr \
            JOIN repositories r ON r.id = pr.repository_id JOIN projects p ON p.id = pr.project_id \
            WHERE p.key = 'www-project-zap'"
        )
    );
    assert_eq!(
        zap["openPullRequestsCount"].as_i64().unwrap() as u64,
        count(
            "SELECT COUNT(*) FROM pull_requests q JOIN project_repositories pr \
            ON pr.repository_id = q.repository_id JOIN projects p ON p.id = pr.project_id \
            WHERE p.key = 'www-project-zap' AND q.state = 'open'"
        )
    );

    for hit in all(&app, "committees", "").await {
        for name in ["key", "name", "summary", "url", "createdAt", "updatedAt"] {
            assert!(hit[name].is_string(), "committee {name}: {hit}");
        }
        assert!(hit["topContributors"].is_array() && hit["leaders"].is_array());
        assert!(hit["relatedUrls"].is_array());
    }

    let issues = all(&app, "issues", "").await;
    for hit in &issues {
        for name in [
            "objectID",
            "url",
            "title",
            "projectName",
            "projectUrl",
            "createdAt",
        ] {
            assert!(hit[name].is_string(), "issue {name}: {hit}");
        }
        assert!(hit["labels"].is_array() && hit["repositoryLanguages"].is_array());
    }
    let mut urls: Vec<String> = field(&issues, "url")
        .into_iter()
        .map(String::from)
        .collect();
    urls.sort();
    let mut expected = column(&format!("SELECT i.url {OPEN_ISSUES_OF_ACTIVE_PROJECTS}"));
    expected.sort();
    assert_eq!(urls, expected, "the open issues of the active projects");

    let organizations = all(&app, "organizations", "").await;
    for hit in &organizations {
        for name in ["objectID", "login", "name", "avatarUrl", "location", "url"] {
            assert!(hit[name].is_string(), "organization {name}: {hit}");
        }
        assert!(hit["followersCount"].is_i64() && hit["publicRepositoriesCount"].is_i64());
    }
    let mut logins: Vec<&str> = field(&organizations, "login");
    logins.sort();
    let mut affiliated = column("SELECT login FROM organizations WHERE is_affiliated = 1");
    affiliated.sort();
    assert_eq!(logins, affiliated);

    for hit in all(&app, "users", "").await {
        for name in ["key", "login", "name", "avatarUrl", "url", "createdAt"] {
            assert!(hit[name].is_string(), "user {name}: {hit}");
        }
        for name in [
            "badgeCount",
            "followersCount",
            "followingCount",
            "publicRepositoriesCount",
        ] {
            assert!(hit[name].is_i64(), "user {name}: {hit}");
        }
        assert_eq!(hit["key"], hit["login"]);
        assert!(hit.get("email").is_none(), "no addresses in bulk: {hit}");
    }

    for hit in all(&app, "events", "").await {
        for name in ["key", "name", "category", "startDate", "url"] {
            assert!(hit[name].is_string(), "event {name}: {hit}");
        }
    }
}

#[tokio::test]
async fn an_empty_query_lists_in_the_custom_ranking() {
    let app = unlimited();
    let chapters = all(&app, "chapters", "").await;
    let expected = short(
        column(
            "SELECT key FROM chapters WHERE is_active = 1 ORDER BY created_at, updated_at DESC, id",
        ),
        "www-chapter-",
    );
    assert_eq!(field(&chapters, "key"), expected);

    let committees = all(&app, "committees", "").await;
    let expected = short(
        column(
            "SELECT key FROM committees WHERE is_active = 1 \
            ORDER BY lower(name), created_at, updated_at DESC, id",
        ),
        "www-committee-",
    );
    assert_eq!(field(&committees, "key"), expected);

    let projects = all(&app, "projects", "").await;
    let expected = short(
        column(
            "SELECT p.key FROM projects p WHERE p.is_active = 1 ORDER BY p.level_rank DESC, \
             p.stars DESC, (SELECT COALESCE(SUM(r.contributors_count), 0) \
               FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
               WHERE pr.project_id = p.id) DESC, p.forks DESC, p.updated_at DESC, p.id",
        ),
        "www-project-",
    );
    assert_eq!(field(&projects, "key"), expected);

    let users = all(&app, "users", "").await;
    let expected = column(
        "SELECT m.login FROM members m ORDER BY (SELECT COALESCE(SUM(contributions_count), 0) \
         FROM repository_contributors rc WHERE rc.member_id = m.id) DESC, m.followers_count DESC, \
         m.public_repositories_count DESC, m.created_at, m.id",
    );
    assert_eq!(field(&users, "login"), expected);

    let organizations = all(&app, "organizations", "").await;
    let expected = column(
        "SELECT login FROM organizations WHERE is_affiliated = 1 \
         ORDER BY followers_count DESC, collaborators_count DESC, created_at DESC, id",
    );
    assert_eq!(field(&organizations, "login"), expected);

    let issues = all(&app, "issues", "").await;
    let created: Vec<&str> = field(&issues, "createdAt");
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "newest first");
}

#[tokio::test]
async fn sort_variants_order_by_their_field() {
    let app = unlimited();
    let every = all(&app, "projects", "").await.len();
    for (variant, field_name) in [
        ("projects_stars_count", "starsCount"),
        ("projects_forks_count", "forksCount"),
        ("projects_contributors_count", "contributorsCount"),
    ] {
        for dir in ["asc", "desc"] {
            // Two pages of 25, as the list page walks them.
            let mut values = Vec::new();
            for page in 1..=2 {
                let body = json!({"indexName": format!("{variant}_{dir}"), "query": "", "page": page, "hitsPerPage": 25, "facetFilters": []});
                let (hits, pages) = hits(&app, body).await;
                assert_eq!(pages as usize, every.div_ceil(25));
                values.extend(hits.iter().map(|h| h[field_name].as_i64().unwrap()));
            }
            assert_eq!(values.len(), every.min(50));
            let ordered = values.windows(2).all(|w| {
                if dir == "asc" {
                    w[0] <= w[1]
                } else {
                    w[0] >= w[1]
                }
            });
            assert!(ordered, "{variant}_{dir}: {values:?}");
        }
    }
    let names: Vec<String> = all(&app, "projects_name_asc", "")
        .await
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_lowercase())
        .collect();
    assert!(names.windows(2).all(|w| w[0] <= w[1]), "{names:?}");
    let levels = ["demo", "incubator", "lab", "production", "flagship"];
    let ranks: Vec<usize> = all(&app, "projects_level_raw_desc", "")
        .await
        .iter()
        .map(|h| levels.iter().position(|l| *l == h["level"]).unwrap())
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "{ranks:?}");
    let updated: Vec<String> = all(&app, "projects_updated_at_asc", "")
        .await
        .iter()
        .map(|h| h["updatedAt"].as_str().unwrap().to_string())
        .collect();
    assert!(updated.windows(2).all(|w| w[0] <= w[1]));
    for (variant, name, desc) in [
        ("chapters_created_at_desc", "createdAt", true),
        ("chapters_created_at_asc", "createdAt", false),
        ("chapters_updated_at_desc", "updatedAt", true),
    ] {
        let hits = all(&app, variant, "").await;
        assert_eq!(hits.len(), all(&app, "chapters", "").await.len());
        let values = field(&hits, name);
        assert!(
            values
                .windows(2)
                .all(|w| if desc { w[0] >= w[1] } else { w[0] <= w[1] }),
            "{variant}"
        );
    }
    // With a query, the variant orders the matches by its field alone.
    let hits = all(&app, "projects_stars_count_asc", "security").await;
    assert!(hits.len() > 1);
    let stars: Vec<i64> = hits
        .iter()
        .map(|h| h["starsCount"].as_i64().unwrap())
        .collect();
    assert!(stars.windows(2).all(|w| w[0] <= w[1]), "{stars:?}");
    let mut by_variant: Vec<&str> = field(&hits, "key");
    let default = all(&app, "projects", "security").await;
    let mut by_default: Vec<&str> = field(&default, "key");
    by_variant.sort();
    by_default.sort();
    assert_eq!(by_variant, by_default, "the same matches");
}

#[tokio::test]
async fn facet_filters_select_records() {
    let app = unlimited();
    let ask = |facets: Value| json!({"indexName": "chapters", "query": "", "page": 1, "hitsPerPage": 1000, "facetFilters": facets});
    let india = hits(
        &app,
        ask(json!(["idx_is_active:true", "idx_country:India"])),
    )
    .await
    .0;
    assert_eq!(
        india.len() as u64,
        count("SELECT COUNT(*) FROM chapters WHERE is_active = 1 AND country = 'India'")
    );
    assert!(india.iter().all(|h| h["country"] == "India"));
    // Values compare without case.
    assert_eq!(hits(&app, ask(json!(["idx_country:INDIA"]))).await.0, india);
    // A group is an OR; a leading '-' negates.
    let two = hits(
        &app,
        ask(json!([["idx_country:India", "idx_country:United Kingdom"]])),
    )
    .await
    .0;
    assert_eq!(
        two.len() as u64,
        count(
            "SELECT COUNT(*) FROM chapters WHERE is_active = 1 \
            AND country IN ('India', 'United Kingdom')"
        )
    );
    let not_india = hits(&app, ask(json!(["idx_country:-India"]))).await.0;
    assert_eq!(
        not_india.len() + india.len(),
        all(&app, "chapters", "").await.len()
    );
    assert!(not_india.iter().all(|h| h["country"] != "India"));
    // Only active chapters are indexed.
    assert!(hits(&app, ask(json!(["idx_is_active:false"])))
        .await
        .0
        .is_empty());
    let one = hits(&app, ask(json!(["idx_key:edinburgh"]))).await.0;
    assert_eq!(field(&one, "key"), ["edinburgh"]);
    // With a query.
    let body = json!({"indexName": "chapters", "query": "a", "page": 1, "hitsPerPage": 1000, "facetFilters": ["idx_country:India"]});
    assert!(hits(&app, body)
        .await
        .0
        .iter()
        .all(|h| h["country"] == "India"));

    let body = json!({"indexName": "users", "query": "", "page": 1, "hitsPerPage": 10, "facetFilters": ["idx_key:bcohen"]});
    let user = hits(&app, body).await.0;
    assert_eq!(field(&user, "login"), ["BCohen"]);
    let body = json!({"indexName": "projects", "query": "", "page": 1, "hitsPerPage": 1000, "facetFilters": ["idx_repositories.name:ZAP-Extensions"]});
    let projects = hits(&app, body).await.0;
    let expected = short(
        column(
            "SELECT p.key FROM projects p JOIN project_repositories pr ON pr.project_id = p.id \
            JOIN repositories r ON r.id = pr.repository_id WHERE p.is_active = 1 \
            AND r.name_lc = 'zap-extensions' ORDER BY p.id",
        ),
        "www-project-",
    );
    let mut keys: Vec<&str> = field(&projects, "key");
    keys.sort();
    assert_eq!(keys, expected);
    assert!(!keys.is_empty());
}

#[tokio::test]
async fn matching_folds_case_and_accents_takes_prefixes_and_one_typo() {
    let app = unlimited();
    let names = |hits: &[Value]| -> Vec<String> {
        hits.iter()
            .map(|h| h["name"].as_str().unwrap().to_string())
            .collect()
    };
    // Prefix of the last word, any case.
    for q in ["Edinb", "edinburgh", "EDINBURGH", "edi"] {
        let hits = all(&app, "chapters", q).await;
        assert_eq!(names(&hits)[0], "Edinburgh", "{q}");
    }
    // Accents folded both ways.
    for q in ["movil", "Móvil", "MOVIL", "guia segur"] {
        let hits = all(&app, "projects", q).await;
        assert!(
            names(&hits).contains(&"Guía de Seguridad Móvil".to_string()),
            "{q}"
        );
    }
    for q in ["bjorn", "Björn", "dvorak"] {
        let logins: Vec<String> = all(&app, "users", q)
            .await
            .iter()
            .map(|h| h["login"].as_str().unwrap().to_string())
            .collect();
        let expected = if q == "dvorak" {
            "noah-dvorak"
        } else {
            "BCohen"
        };
        assert!(logins.contains(&expected.to_string()), "{q}: {logins:?}");
    }
    // One typo in a word of 5 letters or more: swapped, missing, extra, replaced.
    for q in ["Edinbrugh", "Edinburh", "Edinnburgh", "Edimburgh"] {
        let hits = all(&app, "chapters", q).await;
        assert_eq!(names(&hits), ["Edinburgh"], "{q}");
    }
    assert!(names(&all(&app, "projects", "Cornucopai").await).contains(&"Cornucopia".into()));
    assert!(
        names(&all(&app, "projects", "dependncy check").await).contains(&"Dependency Check".into())
    );
    // Not in shorter words, and never two.
    assert!(all(&app, "projects", "zpa").await.is_empty());
    assert!(all(&app, "chapters", "Edinbrugk").await.is_empty());
    // Every word must match.
    let both = names(&all(&app, "projects", "mobile security").await);
    assert!(both.contains(&"Mobile Application Security".to_string()));
    assert!(!both.contains(&"Mobile Top 10".to_string()));
    assert!(all(&app, "projects", "mobile zzzzqqq").await.is_empty());
    // A match in the name ranks first.
    let zap = all(&app, "projects", "zap").await;
    assert_eq!(zap[0]["name"], "ZAP");
    // An empty or blank query browses.
    assert_eq!(
        all(&app, "chapters", "  ").await,
        all(&app, "chapters", "").await
    );
    // The header's search: three hits of each index.
    for index in ["chapters", "events", "organizations", "projects", "users"] {
        let body = json!({"facetFilters": [], "hitsPerPage": 3, "indexName": index, "page": 1, "query": "a"});
        let (hits, _) = hits(&app, body).await;
        assert!(hits.len() <= 3, "{index}");
    }
}

#[tokio::test]
async fn errors_name_what_was_wrong() {
    let app = unlimited();
    let cases: Vec<(String, &str)> = vec![
        ("{bad".into(), "The body is not valid JSON"),
        ("[1]".into(), "The body must be a JSON object"),
        (json!({"query": "x"}).to_string(), "indexName is required"),
        (
            json!({"indexName": "nope"}).to_string(),
            "Unknown indexName 'nope'",
        ),
        (
            json!({"indexName": "projects_stars_desc"}).to_string(),
            "Unknown indexName",
        ),
        (json!({"indexName": "a b"}).to_string(), "Invalid indexName"),
        (
            json!({"indexName": "users", "hitsPerPage": 1001}).to_string(),
            "between 1 and 1000",
        ),
        (
            json!({"indexName": "users", "hitsPerPage": 0}).to_string(),
            "between 1 and 1000",
        ),
        (
            json!({"indexName": "users", "hitsPerPage": "25"}).to_string(),
            "hitsPerPage must be an integer",
        ),
        (
            json!({"indexName": "users", "page": 0}).to_string(),
            "page value must be a positive integer",
        ),
        (
            json!({"indexName": "users", "page": 1.5}).to_string(),
            "page value must be an integer",
        ),
        (
            json!({"indexName": "users", "page": 99}).to_string(),
            "page 99 is past the end",
        ),
        (
            json!({"indexName": "users", "page": 2, "query": "zzzzqqqq"}).to_string(),
            "past the end",
        ),
        (
            json!({"indexName": "users", "hitsPerPage": 25, "page": 41}).to_string(),
            "past the end",
        ),
        (
            json!({"indexName": "users", "query": 5}).to_string(),
            "query must be a string",
        ),
        (
            json!({"indexName": "users", "query": "<script>"}).to_string(),
            "Invalid query value",
        ),
        (
            json!({"indexName": "users", "facetFilters": "x"}).to_string(),
            "facetFilters must be a list",
        ),
        (
            json!({"indexName": "users", "facetFilters": ["idx_country:India"]}).to_string(),
            "'idx_country' is not a facet of the index 'users'",
        ),
        (
            json!({"indexName": "users", "facetFilters": ["nocolon"]}).to_string(),
            "is not 'attribute:value'",
        ),
        (
            json!({"indexName": "users", "facetFilters": [3]}).to_string(),
            "is not a string",
        ),
    ];
    for (body, message) in cases {
        let r = oneshot(&app, post(&body, "192.0.2.11", &[])).await;
        assert_eq!(r.status, 400, "{body}: {}", r.text());
        let v = r.json();
        assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
        let error = v["error"].as_str().unwrap();
        assert!(error.contains(message), "{body}: {error}");
    }
    // Page 1 of nothing is no error.
    let (h, pages) = hits(&app, json!({"indexName": "users", "query": "zzzzqqqq"})).await;
    assert!(h.is_empty() && pages == 0);
    for method in [Method::GET, Method::PUT, Method::DELETE] {
        let r = send(&app, request(method.clone(), "/idx/")).await;
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("allow"), Some("POST"));
        assert!(r.json()["error"]
            .as_str()
            .unwrap()
            .contains("is not allowed"));
    }
    // Without the trailing slash too.
    let req = from(Method::POST, "/idx", "192.0.2.11")
        .body(Body::from(json!({"indexName": "committees"}).to_string()))
        .unwrap();
    assert_eq!(oneshot(&app, req).await.status, 200);
    let big = format!(
        r#"{{"indexName":"users","query":"{}"}}"#,
        "a".repeat(70_000)
    );
    assert_eq!(
        oneshot(&app, post(&big, "192.0.2.11", &[])).await.status,
        413
    );
}

fn production(tweak: impl FnOnce(&mut ShimConfig)) -> (Keyed, App) {
    let keyed = Keyed::new();
    let f = shared();
    let app = roost::shim::app(shim_state(
        Env::Production,
        &f.db,
        &f.site,
        &keyed.auth_db,
        tweak,
    ));
    (keyed, app)
}

#[tokio::test]
async fn production_needs_the_csrf_pair() {
    let (_keyed, app) = production(|c| c.graphql.rate_limit = 0);
    let body = json!({"indexName": "chapters", "query": "", "page": 1, "hitsPerPage": 25, "facetFilters": ["idx_is_active:true"]}).to_string();
    let token = "a".repeat(40);
    let cookie = format!("csrftoken={token}");
    for headers in [
        vec![],
        vec![("x-csrftoken", token.as_str())],
        vec![("cookie", cookie.as_str())],
        vec![("cookie", cookie.as_str()), ("x-csrftoken", "b")],
    ] {
        let r = oneshot(&app, post(&body, "192.0.2.12", &headers)).await;
        assert_eq!(r.status, 403, "{headers:?}");
        assert!(r.json()["error"].as_str().unwrap().contains("CSRF"));
    }
    let r = oneshot(
        &app,
        post(
            &body,
            "192.0.2.12",
            &[("cookie", &cookie), ("x-csrftoken", &token)],
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // No session needed: the pair from /csrf/ is enough.
    let r = get(&app, "/csrf/").await;
    let token = r.json()["csrftoken"].as_str().unwrap().to_string();
    let cookie = format!("csrftoken={token}");
    let r = oneshot(
        &app,
        post(
            &body,
            "192.0.2.12",
            &[("cookie", &cookie), ("x-csrftoken", &token)],
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(!r.json()["hits"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn cors_with_credentials_for_the_configured_origins() {
    const ORIGIN: &str = "https://nest.example.org";
    let (_keyed, app) = production(|c| {
        c.cors_origins = vec![format!("{ORIGIN}/")];
        c.graphql.rate_limit = 0;
    });
    let r = send(
        &app,
        request(Method::OPTIONS, "/idx/")
            .header("origin", ORIGIN)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type,x-csrftoken"),
    )
    .await;
    assert!(r.status.is_success(), "{}", r.status);
    assert_eq!(r.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(r.header("access-control-allow-credentials"), Some("true"));
    let headers = r
        .header("access-control-allow-headers")
        .unwrap()
        .to_lowercase();
    assert!(
        headers.contains("content-type") && headers.contains("x-csrftoken"),
        "{headers}"
    );
    assert!(r
        .header("access-control-allow-methods")
        .unwrap()
        .contains("POST"));
    // The request itself, with the browser's cookies.
    let token = "c".repeat(40);
    let cookie = format!("csrftoken={token}");
    let body = json!({"indexName": "projects", "query": "zap"}).to_string();
    let r = oneshot(
        &app,
        post(
            &body,
            "192.0.2.13",
            &[
                ("origin", ORIGIN),
                ("cookie", &cookie),
                ("x-csrftoken", &token),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(r.header("access-control-allow-credentials"), Some("true"));
    // Its refusals are readable by the page too.
    let r = oneshot(&app, post(&body, "192.0.2.13", &[("origin", ORIGIN)])).await;
    assert_eq!(r.status, 403);
    assert_eq!(r.header("access-control-allow-origin"), Some(ORIGIN));
    // Another origin gets no grant.
    let r = send(
        &app,
        request(Method::OPTIONS, "/idx/")
            .header("origin", "https://evil.example")
            .header("access-control-request-method", "POST"),
    )
    .await;
    assert!(r.header("access-control-allow-origin").is_none());
    // `*`: any origin, echoed (never `*` with credentials).
    let app = shared().app(Env::Local, |c| c.cors_origins = vec!["*".into()]);
    let r = oneshot(
        &app,
        post(&body, "192.0.2.13", &[("origin", "https://any.example")]),
    )
    .await;
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://any.example")
    );
    assert_eq!(r.header("access-control-allow-credentials"), Some("true"));
    // No origin configured: no CORS headers.
    let r = oneshot(
        &unlimited(),
        post(&body, "192.0.2.13", &[("origin", ORIGIN)]),
    )
    .await;
    assert!(r.header("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn the_rate_is_counted_per_address() {
    let app = shared().app(Env::Local, |c| {
        c.graphql.rate_limit = 1;
        c.graphql.burst = 2;
    });
    let body = json!({"indexName": "committees"}).to_string();
    for _ in 0..2 {
        assert_eq!(
            oneshot(&app, post(&body, "192.0.2.20", &[])).await.status,
            200
        );
    }
    let r = oneshot(&app, post(&body, "192.0.2.20", &[])).await;
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("Too many requests"));
    assert_eq!(
        oneshot(&app, post(&body, "192.0.2.21", &[])).await.status,
        200
    );
}

#[tokio::test]
async fn a_dataset_without_the_index_is_503_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    roost::store::init_db(&db, false, |_| Ok(())).unwrap();
    let f = shared();
    let app = roost::shim::app(shim_state(Env::Local, &db, &f.site, &f.auth_db, |_| {}));
    let r = idx(&app, json!({"indexName": "chapters"})).await;
    assert_eq!(r.status, 503);
    let error = r.json()["error"].as_str().unwrap().to_string();
    assert!(error.contains("roost db import"), "{error}");
}

#[tokio::test]
async fn the_index_is_swapped_with_its_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    roost::store::init_db(&db, false, roost::idx::build).unwrap();
    let f = shared();
    let app = roost::shim::app(shim_state(Env::Local, &db, &f.site, &f.auth_db, |_| {}));
    let ask = json!({"indexName": "chapters", "query": "Edinburgh"});
    assert_eq!(
        field(&hits(&app, ask.clone()).await.0, "name"),
        ["Edinburgh"]
    );
    // A new import renamed over the file: the next answer comes from its index.
    let edited = dir.path().join("edited");
    write_sample(&edited, "chapters.jsonl", |lines| {
        for line in lines.iter_mut() {
            *line = line.replace("\"Edinburgh\"", "\"Auld Reekie\"");
        }
    });
    roost::store::import_dir(&edited, &db, roost::idx::build).unwrap();
    // (Its location still says Edinburgh.)
    assert_eq!(field(&hits(&app, ask).await.0, "name"), ["Auld Reekie"]);
    let renamed = hits(&app, json!({"indexName": "chapters", "query": "reekie"}))
        .await
        .0;
    assert_eq!(field(&renamed, "name"), ["Auld Reekie"]);
}

/// The indexes hold what the API exposes: every statement of their build reads the
/// exposure views, never a ruled table (built on the sample under the guard every API
/// reader carries, it succeeds).
#[test]
fn the_indexes_are_built_from_the_exposure_views() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    roost::store::init_db(&db, false, |_| Ok(())).unwrap();
    let mut conn = rusqlite::Connection::open(&db).unwrap();
    roost::schema::exposure::install_guard(&mut conn).unwrap();
    roost::idx::build(&conn).unwrap();
    let documents: i64 = conn
        .query_row("SELECT COUNT(*) FROM search_docs", [], |r| r.get(0))
        .unwrap();
    assert!(documents > 100, "{documents} documents");
}
