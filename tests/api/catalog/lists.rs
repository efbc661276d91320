//! The catalog's lists and details against the sample: filters, orderings with
//! tie-breakers and nulls, pagination edges, validation, detail lookups. Expected
//! answers are computed independently from the sample's interchange records.

use roost::catalog::{self, AnswerError};
use roost::records::Ts;
use serde_json::Value;

use super::*;
use crate::support::*;

#[test]
fn chapters_default_order_is_newest_first_with_id_tie_break_and_only_active() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(i64, usize, &str)> = ds
        .chapters
        .iter()
        .enumerate()
        .filter(|(_, (_, c))| c.is_active)
        .map(|(i, (_, c))| (c.created_at.0, i, c.key.as_str()))
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let keys: Vec<String> = expected.iter().map(|e| e.2.to_string()).collect();
    let got = all_items(&conn, "chapters", "");
    assert_eq!(pluck(&got, "key"), keys);
    let asc = all_items(&conn, "chapters", "ordering=created_at");
    let mut expected_asc = expected.clone();
    expected_asc.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    assert_eq!(
        pluck(&asc, "key"),
        expected_asc
            .iter()
            .map(|e| e.2.to_string())
            .collect::<Vec<_>>()
    );
    assert!(!keys.contains(&"www-chapter-montreal".to_string()));
}

#[test]
fn list_items_have_the_documented_fields_in_order() {
    let sample = Sample::new();
    let conn = sample.conn();
    let body = catalog::list_page(
        &conn,
        catalog::list_spec("chapters").unwrap(),
        None,
        &catalog::ListQuery {
            page_size: 1,
            ..Default::default()
        },
        TODAY,
    )
    .unwrap();
    let text = String::from_utf8(body).unwrap();
    let keys: Vec<&str> = [
        "\"current_page\"",
        "\"has_next\"",
        "\"has_previous\"",
        "\"items\"",
        "\"created_at\"",
        "\"key\"",
        "\"latitude\"",
        "\"longitude\"",
        "\"name\"",
        "\"updated_at\"",
        "\"total_count\"",
        "\"total_pages\"",
    ]
    .to_vec();
    let mut at = 0;
    for k in keys {
        let pos = text[at..]
            .find(k)
            .unwrap_or_else(|| panic!("{k} out of order in {text}"));
        at += pos;
    }
}

#[test]
fn country_filter_is_case_insensitive_whole_value() {
    let sample = Sample::new();
    let conn = sample.conn();
    let india = all_items(&conn, "chapters", "country=india");
    let upper = all_items(&conn, "chapters", "country=INDIA");
    assert_eq!(india, upper);
    let ds = dataset();
    let n = ds
        .chapters
        .iter()
        .filter(|(_, c)| c.is_active && c.country == "India")
        .count();
    assert_eq!(india.len(), n);
    assert!(n >= 2);
    assert!(items(&conn, "chapters", "country=indi").is_empty());
}

#[test]
fn coordinate_ordering_puts_nulls_last_in_both_directions() {
    let sample = Sample::new();
    let conn = sample.conn();
    for ordering in ["latitude", "-latitude", "longitude", "-longitude"] {
        let got = all_items(&conn, "chapters", &format!("ordering={ordering}"));
        let field = ordering.trim_start_matches('-');
        let values: Vec<Option<f64>> = got.iter().map(|i| i[field].as_f64()).collect();
        let first_null = values
            .iter()
            .position(|v| v.is_none())
            .expect("sample has nulls");
        assert!(
            values[first_null..].iter().all(|v| v.is_none()),
            "{ordering}"
        );
        let present: Vec<f64> = values[..first_null].iter().map(|v| v.unwrap()).collect();
        let mut sorted = present.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        if ordering.starts_with('-') {
            sorted.reverse();
        }
        assert_eq!(present, sorted, "{ordering}");
    }
}

#[test]
fn coordinate_ranges_filter_inclusively() {
    let sample = Sample::new();
    let conn = sample.conn();
    let got = all_items(
        &conn,
        "chapters",
        "latitude_gte=40&latitude_lte=60&longitude_gte=-10&longitude_lte=30",
    );
    assert!(!got.is_empty());
    for i in &got {
        let lat = i["latitude"].as_f64().unwrap();
        let lng = i["longitude"].as_f64().unwrap();
        assert!((40.0..=60.0).contains(&lat) && (-10.0..=30.0).contains(&lng));
    }
    assert!(pluck(&got, "key").contains(&"www-chapter-london".to_string()));
}

#[test]
fn pagination_edges() {
    let sample = Sample::new();
    let conn = sample.conn();
    let first = list(&conn, "issues", "").unwrap();
    assert_eq!(first["total_count"], 250);
    assert_eq!(first["total_pages"], 3);
    assert_eq!(first["has_next"], true);
    assert_eq!(first["has_previous"], false);
    assert_eq!(first["items"].as_array().unwrap().len(), 100);
    let last = list(&conn, "issues", "page=3").unwrap();
    assert_eq!(last["has_next"], false);
    assert_eq!(last["has_previous"], true);
    assert_eq!(last["items"].as_array().unwrap().len(), 50);
    // 250 issues in pages of 50: page 5 is exactly full and last.
    let exact = list(&conn, "issues", "page_size=50&page=5").unwrap();
    assert_eq!(exact["total_pages"], 5);
    assert_eq!(exact["has_next"], false);
    assert_eq!(exact["items"].as_array().unwrap().len(), 50);
    match list(&conn, "issues", "page=4") {
        Err(e @ AnswerError::PageNotFound { .. }) => {
            assert_eq!(e.to_string(), "Page 4 not found. Valid pages are 1 to 3.")
        }
        other => panic!("{other:?}"),
    }
    // An empty result is page 1 of 1.
    let empty = list(&conn, "issues", "organization=nobody").unwrap();
    assert_eq!(
        serde_json::to_string(&empty).unwrap(),
        r#"{"current_page":1,"has_next":false,"has_previous":false,"items":[],"total_count":0,"total_pages":1}"#
    );
    assert!(matches!(
        list(&conn, "issues", "organization=nobody&page=2"),
        Err(AnswerError::PageNotFound {
            page: 2,
            total_pages: 1
        })
    ));
}

#[test]
fn pages_never_repeat_or_drop_records() {
    let sample = Sample::new();
    let conn = sample.conn();
    for ordering in ["", "ordering=created_at", "ordering=-updated_at"] {
        let all = all_items(&conn, "issues", ordering);
        let mut urls = pluck(&all, "url");
        assert_eq!(urls.len(), 250);
        urls.sort();
        urls.dedup();
        assert_eq!(urls.len(), 250, "{ordering}");
    }
}

#[test]
fn issues_tie_break_on_updated_at_descending_then_id() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(i64, i64, usize, String)> = ds
        .issues
        .iter()
        .enumerate()
        .map(|(i, (_, x))| (x.created_at.0, x.updated_at.0, i, x.url.clone()))
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "issues", "");
    assert_eq!(
        pluck(&got, "url"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    // Ascending created_at keeps the tie-breaker -updated_at.
    expected.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "issues", "ordering=created_at");
    assert_eq!(
        pluck(&got, "url"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    // updated_at has only the id as tie-breaker.
    expected.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "issues", "ordering=-updated_at");
    assert_eq!(
        pluck(&got, "url"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn issue_filters_combine() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let expected = ds
        .issues
        .iter()
        .filter(|(_, i)| {
            i.organization.eq_ignore_ascii_case("juice-labs")
                && i.repository.eq_ignore_ascii_case("juice-shop")
                && i.state.as_str() == "open"
        })
        .count();
    let got = all_items(
        &conn,
        "issues",
        "organization=Juice-Labs&repository=JUICE-SHOP&state=open",
    );
    assert_eq!(got.len(), expected);
    assert!(got.iter().all(|i| i["state"] == "open"));
    assert!(expected > 0);
}

#[test]
fn member_name_ordering_is_case_insensitive_then_exact_then_id() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(String, String, usize, String)> = ds
        .members
        .iter()
        .enumerate()
        .map(|(i, (_, m))| (m.name.to_lowercase(), m.name.clone(), i, m.login.clone()))
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "members", "ordering=name");
    assert_eq!(
        pluck(&got, "login"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "members", "ordering=-name");
    assert_eq!(
        pluck(&got, "login"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn member_filters_fold_unicode_case() {
    let sample = Sample::new();
    let conn = sample.conn();
    let a = all_items(&conn, "members", "company=acme");
    let b = all_items(&conn, "members", "company=ACME");
    assert_eq!(a, b);
    let ds = dataset();
    let n = ds
        .members
        .iter()
        .filter(|(_, m)| m.company.to_lowercase() == "acme")
        .count();
    assert_eq!(a.len(), n);
    let loc = dataset()
        .members
        .iter()
        .map(|(_, m)| m.location.clone())
        .find(|l| !l.is_ascii())
        .expect("a non-ASCII location");
    let upper = loc.to_uppercase();
    let got = all_items(
        &conn,
        "members",
        &format!("location={}", catalog::encode(&upper)),
    );
    assert!(!got.is_empty(), "location {upper}");
}

#[test]
fn project_default_order_is_level_rank_stars_forks() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let repo = |org: &str, name: &str| {
        ds.repositories
            .iter()
            .find(|(_, r)| {
                r.organization.eq_ignore_ascii_case(org) && r.name.eq_ignore_ascii_case(name)
            })
            .map(|(_, r)| (r.stars_count, r.forks_count))
            .unwrap()
    };
    let mut expected: Vec<(i64, u64, u64, usize, String)> = ds
        .projects
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| p.is_active)
        .map(|(i, (_, p))| {
            let (stars, forks) = p.repositories.iter().fold((0, 0), |acc, r| {
                let (s, f) = repo(&r.organization, &r.name);
                (acc.0 + s, acc.1 + f)
            });
            (p.level.rank(), stars, forks, i, p.key.clone())
        })
        .collect();
    expected.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(b.2.cmp(&a.2))
            .then(a.3.cmp(&b.3))
    });
    let got = all_items(&conn, "projects", "");
    assert_eq!(
        pluck(&got, "key"),
        expected.iter().map(|e| e.4.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn repeatable_type_matches_any_and_level_is_exact() {
    let sample = Sample::new();
    let conn = sample.conn();
    let got = all_items(&conn, "projects", "type=code&type=tool&type=code");
    assert!(got
        .iter()
        .all(|p| p["type"] == "code" || p["type"] == "tool"));
    let code = all_items(&conn, "projects", "type=code").len();
    let tool = all_items(&conn, "projects", "type=tool").len();
    assert_eq!(got.len(), code + tool);
    let flagship = all_items(&conn, "projects", "level=flagship");
    assert!(!flagship.is_empty() && flagship.iter().all(|p| p["level"] == "flagship"));
    let spec = catalog::list_spec("projects").unwrap();
    let err = catalog::parse_query(spec, &pairs("level=Flagship")).unwrap_err();
    assert_eq!(err[0].param, "level");
    assert!(err[0].msg.contains("'Flagship'") && err[0].msg.contains("flagship"));
}

#[test]
fn structured_search_filters_projects() {
    let sample = Sample::new();
    let conn = sample.conn();
    let juice = all_items(&conn, "projects", "q=juice");
    assert!(!juice.is_empty());
    assert!(juice
        .iter()
        .all(|p| p["name"].as_str().unwrap().to_lowercase().contains("juice")));
    let quoted = all_items(&conn, "projects", "q=name%3A%22juice+shop%22");
    assert_eq!(
        pluck(&quoted, "key"),
        ["www-project-juice-shop", "www-project-pwning-juice-shop"]
    );
    let big = all_items(&conn, "projects", "q=stars%3A%3E%3D10000");
    assert!(pluck(&big, "key").contains(&"www-project-zap".to_string()));
    let none = all_items(&conn, "projects", "q=stars%3A%3E%3D10000+name%3Anothing");
    assert!(none.is_empty());
    let blank = all_items(&conn, "projects", "q=+++");
    assert_eq!(blank.len(), all_items(&conn, "projects", "").len());
    let spec = catalog::list_spec("projects").unwrap();
    let err = catalog::parse_query(spec, &pairs("q=color%3Ared")).unwrap_err();
    assert_eq!(err[0].param, "q");
    assert!(err[0].msg.contains("color:red"), "{}", err[0].msg);
}

#[test]
fn events_upcoming_default_order_and_categories() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(String, Option<String>, usize, String)> = ds
        .events
        .iter()
        .enumerate()
        .filter(|(_, (_, e))| e.start_date.0.as_str() >= TODAY)
        .map(|(i, (_, e))| {
            (
                e.start_date.0.clone(),
                e.end_date.as_ref().map(|d| d.0.clone()),
                i,
                e.key.clone(),
            )
        })
        .collect();
    // start_date ascending, then end_date ascending with nulls last, then id.
    expected.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.is_none().cmp(&b.1.is_none()))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    let got = all_items(&conn, "events", "is_upcoming=TRUE");
    assert_eq!(
        pluck(&got, "key"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    assert!(!expected.is_empty());
    // is_upcoming=false is no filter.
    assert_eq!(
        all_items(&conn, "events", "is_upcoming=0").len(),
        ds.events.len()
    );
    // Default: start_date descending, tie-breaker end_date descending (nulls last).
    let mut all: Vec<(String, Option<String>, usize, String)> = ds
        .events
        .iter()
        .enumerate()
        .map(|(i, (_, e))| {
            (
                e.start_date.0.clone(),
                e.end_date.as_ref().map(|d| d.0.clone()),
                i,
                e.key.clone(),
            )
        })
        .collect();
    all.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.is_none().cmp(&b.1.is_none()))
            .then(b.1.cmp(&a.1))
            .then(a.2.cmp(&b.2))
    });
    let got = all_items(&conn, "events", "");
    assert_eq!(
        pluck(&got, "key"),
        all.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    let two = all_items(&conn, "events", "category=global&category=partner");
    let n = ds
        .events
        .iter()
        .filter(|(_, e)| matches!(e.category.as_str(), "global" | "partner"))
        .count();
    assert_eq!(two.len(), n);
    let end = all_items(&conn, "events", "ordering=-end_date");
    let ends: Vec<Value> = end.iter().map(|e| e["end_date"].clone()).collect();
    let first_null = ends.iter().position(|v| v.is_null()).unwrap();
    assert!(ends[first_null..].iter().all(|v| v.is_null()));
}

#[test]
fn releases_only_published_tag_exact_and_published_tie_break() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let mut expected: Vec<(i64, i64, usize, String)> = ds
        .releases
        .iter()
        .enumerate()
        .filter_map(|(i, (_, r))| {
            r.published_at
                .map(|p| (p.0, r.created_at.0, i, r.tag_name.clone()))
        })
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let got = all_items(&conn, "releases", "");
    assert_eq!(
        pluck(&got, "tag_name"),
        expected.iter().map(|e| e.3.clone()).collect::<Vec<_>>()
    );
    assert!(got.len() < ds.releases.len());
    let upper = all_items(&conn, "releases", "tag_name=V1.0.0");
    let lower = all_items(&conn, "releases", "tag_name=v1.0.0");
    assert!(upper.iter().all(|r| r["tag_name"] == "V1.0.0") && !upper.is_empty());
    assert!(lower.iter().all(|r| r["tag_name"] == "v1.0.0") && !lower.is_empty());
    let slash = all_items(&conn, "releases", "tag_name=release%2F2.0");
    assert_eq!(pluck(&slash, "tag_name"), vec!["release/2.0".to_string()]);
    let plus = all_items(&conn, "releases", "tag_name=v10.0.2%2Bhotfix.1");
    assert_eq!(plus.len(), 1);
}

#[test]
fn sponsors_boolean_and_name_order() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    for (value, want) in [
        ("true", true),
        ("TRUE", true),
        ("1", true),
        ("false", false),
        ("0", false),
    ] {
        let got = all_items(&conn, "sponsors", &format!("is_member={value}"));
        let n = ds
            .sponsors
            .iter()
            .filter(|(_, x)| x.is_member == want)
            .count();
        assert_eq!(got.len(), n, "{value}");
    }
    let spec = catalog::list_spec("sponsors").unwrap();
    let err = catalog::parse_query(spec, &pairs("is_member=yes")).unwrap_err();
    assert_eq!(
        (err[0].param.as_str(), err[0].kind),
        ("is_member", "bool_parsing")
    );
    let mut names: Vec<(String, String, usize)> = ds
        .sponsors
        .iter()
        .enumerate()
        .map(|(i, (_, x))| (x.name.to_lowercase(), x.name.clone(), i))
        .collect();
    names.sort();
    let got = all_items(&conn, "sponsors", "");
    assert_eq!(
        pluck(&got, "name"),
        names.iter().map(|n| n.1.clone()).collect::<Vec<_>>()
    );
    let gold = all_items(&conn, "sponsors", "member_type=Gold&sponsor_type=gold");
    assert!(gold.iter().all(|g| g["sponsor_type"] == "Gold"));
}

#[test]
fn labels_default_to_stable_id_order_and_filter_colour_case_insensitively() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let got = all_items(&conn, "labels", "");
    assert_eq!(
        pluck(&got, "name"),
        ds.labels
            .iter()
            .map(|(_, l)| l.name.clone())
            .collect::<Vec<_>>()
    );
    let red = all_items(&conn, "labels", "color=D73A4A");
    let n = ds
        .labels
        .iter()
        .filter(|(_, l)| l.color.0.eq_ignore_ascii_case("d73a4a"))
        .count();
    assert_eq!(red.len(), n);
    assert!(n >= 2);
    let by_created = all_items(&conn, "labels", "ordering=-nest_created_at");
    let mut expected: Vec<(i64, usize, String)> = ds
        .labels
        .iter()
        .enumerate()
        .map(|(i, (_, l))| (l.created_at.0, i, l.name.clone()))
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    assert_eq!(
        pluck(&by_created, "name"),
        expected.iter().map(|e| e.2.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn validation_errors_name_the_parameter_value_and_what_is_allowed() {
    let spec = catalog::list_spec("chapters").unwrap();
    let cases = [
        ("page=0", "page", "greater_than_equal"),
        ("page=abc", "page", "int_parsing"),
        ("page=-3", "page", "int_parsing"),
        // Integers beyond the documented bound (int64), in and beyond 64 bits.
        ("page=9223372036854775808", "page", "less_than_equal"),
        ("page=32589158477190044731", "page", "less_than_equal"),
        ("page_size=0", "page_size", "greater_than_equal"),
        ("page_size=101", "page_size", "less_than_equal"),
        ("ordering=name", "ordering", "enum"),
        ("latitude_gte=north", "latitude_gte", "float_parsing"),
        ("latitude_lte=NaN", "latitude_lte", "float_parsing"),
    ];
    for (query, param, kind) in cases {
        let errors = catalog::parse_query(spec, &pairs(query)).unwrap_err();
        assert_eq!(errors.len(), 1, "{query}");
        assert_eq!(errors[0].param, param, "{query}");
        assert_eq!(errors[0].kind, kind, "{query}");
        let value = query.split('=').nth(1).unwrap();
        assert!(
            errors[0].msg.contains(&format!("'{value}'")),
            "{}",
            errors[0].msg
        );
    }
    let errors = catalog::parse_query(spec, &pairs("page=x&page_size=500&unknown=1")).unwrap_err();
    assert_eq!(errors.len(), 2);
    // A page far beyond the data but within the bound is valid: the answer is a 404.
    let q = catalog::parse_query(spec, &pairs("page=9223372036854775807")).unwrap();
    assert_eq!(q.page, catalog::PAGE_MAX);
    let big = catalog::parse_query(spec, &pairs("page=99999999999999999999")).unwrap_err();
    assert!(
        big[0].msg.contains("from 1 to 9223372036854775807"),
        "{}",
        big[0].msg
    );
    let issues = catalog::list_spec("issues").unwrap();
    let errors = catalog::parse_query(issues, &pairs("state=OPEN")).unwrap_err();
    assert!(errors[0].msg.contains("open, closed"));
}

#[test]
fn canonical_queries_drop_defaults_sort_and_encode() {
    let spec = catalog::list_spec("projects").unwrap();
    let q = catalog::parse_query(
        spec,
        &pairs("page=1&page_size=100&type=tool&type=code&type=tool&level=lab&x=1"),
    )
    .unwrap();
    assert_eq!(q.canonical(spec), "level=lab&type=code&type=tool");
    let members = catalog::list_spec("members").unwrap();
    let q = catalog::parse_query(
        members,
        &pairs("location=S%C3%A3o+Paulo&ordering=-name&page=2"),
    )
    .unwrap();
    assert_eq!(
        q.canonical(members),
        "location=s%C3%A3o%20paulo&ordering=-name&page=2"
    );
    let events = catalog::list_spec("events").unwrap();
    let q = catalog::parse_query(events, &pairs("is_upcoming=false")).unwrap();
    assert_eq!(q.canonical(events), "");
    let q = catalog::parse_query(events, &pairs("is_upcoming=1")).unwrap();
    assert_eq!(q.canonical(events), "is_upcoming=true");
    let releases = catalog::list_spec("releases").unwrap();
    let q = catalog::parse_query(releases, &pairs("tag_name=A%26B%2FC%25")).unwrap();
    assert_eq!(q.canonical(releases), "tag_name=A%26B%2FC%25");
}

#[test]
fn details_accept_name_part_full_key_and_any_case() {
    let sample = Sample::new();
    let conn = sample.conn();
    let a = detail(&conn, "/api/v0/chapters/london").unwrap();
    let b = detail(&conn, "/api/v0/chapters/www-chapter-london").unwrap();
    let c = detail(&conn, "/api/v0/chapters/WWW-Chapter-LONDON").unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a["key"], "www-chapter-london");
    assert!(a["leaders"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["key"].is_null()));
    let p = detail(&conn, "/api/v0/projects/Juice-Shop").unwrap();
    assert_eq!(p["key"], "www-project-juice-shop");
    assert!(p.get("description").is_some() && p.get("leaders").is_some());
    let m = detail(&conn, "/api/v0/organizations/secdocs-community").unwrap();
    assert_eq!(m["login"], "SecDocs-Community");
}

#[test]
fn details_not_found_use_the_singular_name() {
    let sample = Sample::new();
    let conn = sample.conn();
    let cases = [
        ("/api/v0/chapters/montreal", "Chapter not found"),
        ("/api/v0/chapters/nowhere", "Chapter not found"),
        ("/api/v0/committees/nothing", "Committee not found"),
        (
            "/api/v0/organizations/cryptoguard-dev",
            "Organization not found",
        ),
        ("/api/v0/projects/webscarab", "Project not found"),
        (
            "/api/v0/issues/juice-labs/juice-shop/999999",
            "Issue not found",
        ),
        ("/api/v0/members/nobody-at-all", "Member not found"),
        ("/api/v0/snapshots/2026-10", "Snapshot not found"),
        ("/api/v0/sponsors/nobody", "Sponsor not found"),
        ("/api/v0/events/nothing", "Event not found"),
        (
            "/api/v0/milestones/juice-labs/juice-shop/999",
            "Milestone not found",
        ),
        (
            "/api/v0/repositories/juice-labs/nothing",
            "Repository not found",
        ),
        (
            "/api/v0/releases/juice-labs/juice-shop/v5.0-preview",
            "Release not found",
        ),
    ];
    for (path, message) in cases {
        match detail(&conn, path) {
            Err(e @ AnswerError::NotFound(_)) => assert_eq!(e.to_string(), message, "{path}"),
            other => panic!("{path}: {other:?}"),
        }
    }
}

#[test]
fn release_tags_are_case_sensitive_and_may_hold_a_slash() {
    let sample = Sample::new();
    let conn = sample.conn();
    let upper = detail(&conn, "/api/v0/releases/juice-labs/juice-shop/V1.0.0").unwrap();
    let lower = detail(&conn, "/api/v0/releases/Juice-Labs/Juice-Shop/v1.0.0").unwrap();
    assert_eq!(upper["tag_name"], "V1.0.0");
    assert_eq!(lower["tag_name"], "v1.0.0");
    let slash = detail(
        &conn,
        "/api/v0/releases/appsec-tools/zap-extensions/release%2F2.0",
    )
    .unwrap();
    assert_eq!(slash["tag_name"], "release/2.0");
    let (_, first) = &dataset().issues[0];
    let path = format!(
        "/api/v0/issues/{}/{}/{}",
        first.organization.to_uppercase(),
        first.repository,
        first.number
    );
    let issue = detail(&conn, &path).unwrap();
    assert_eq!(issue["body"].as_str().unwrap(), first.body);
    assert_eq!(issue["url"].as_str().unwrap(), first.url);
}

#[test]
fn snapshot_sub_lists_show_only_exposed_records() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    let snap = &ds
        .snapshots
        .iter()
        .find(|(_, x)| x.key == "2026-05")
        .unwrap()
        .1;
    let active: Vec<&String> = snap
        .new_chapters
        .iter()
        .filter(|k| ds.chapters.iter().any(|(_, c)| &&c.key == k && c.is_active))
        .collect();
    let chapters = snapshot_list(&conn, "2026-05", "chapters", "").unwrap();
    assert_eq!(chapters["total_count"], active.len());
    let published = snap
        .new_releases
        .iter()
        .filter(|r| {
            ds.releases.iter().any(|(_, x)| {
                x.tag_name == r.tag_name && x.repository == r.repository && x.published_at.is_some()
            })
        })
        .count();
    let releases = snapshot_list(&conn, "2026-05", "releases", "").unwrap();
    assert_eq!(releases["total_count"], published);
    assert!(releases["items"][0]["organization_login"].is_string());
    let detail = detail(&conn, "/api/v0/snapshots/2026-05").unwrap();
    assert_eq!(detail["new_chapters_count"], active.len());
    assert_eq!(detail["new_releases_count"], published);
    let issues = snapshot_list(&conn, "2026-05", "issues", "").unwrap();
    assert_eq!(detail["new_issues_count"], issues["total_count"]);
    assert!(issues["items"][0]["repository_name"].is_string());
    assert!(matches!(
        snapshot_list(&conn, "2099-01", "issues", ""),
        Err(AnswerError::NotFound("Snapshot"))
    ));
    let pending = ds
        .snapshots
        .iter()
        .find(|(_, x)| x.status.as_str() != "completed")
        .unwrap();
    assert!(matches!(
        snapshot_list(&conn, &pending.1.key, "issues", ""),
        Err(AnswerError::NotFound("Snapshot"))
    ));
}

#[test]
fn timestamps_are_utc_with_z() {
    let sample = Sample::new();
    let conn = sample.conn();
    let members = all_items(&conn, "members", "ordering=created_at");
    for m in &members {
        let t = m["created_at"].as_str().unwrap();
        assert!(t.ends_with('Z'), "{t}");
        assert_eq!(Ts::parse(t).unwrap().format(), t);
    }
    assert!(members
        .iter()
        .any(|m| m["created_at"].as_str().unwrap().contains('.')));
}

/// `alias.column` references in an SQL expression of the catalog.
fn column_refs(expr: &str) -> Vec<(String, String)> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    expr.split(|c: char| !word(c))
        .filter_map(|token| token.split_once('.'))
        .filter(|(alias, column)| !alias.is_empty() && !column.is_empty())
        .map(|(alias, column)| (alias.to_string(), column.to_string()))
        .collect()
}

/// `issues t JOIN repositories r ON …` → alias → table.
fn aliases(from: &str) -> std::collections::HashMap<String, String> {
    let words: Vec<&str> = from.split_whitespace().collect();
    let mut out = std::collections::HashMap::new();
    for (i, w) in words.iter().enumerate() {
        if i == 0 || words[i - 1] == "JOIN" {
            out.insert(words[i + 1].to_string(), w.to_string());
        }
    }
    out
}

#[test]
fn every_filter_and_ordering_column_leads_an_index() {
    let sample = Sample::new();
    let conn = sample.conn();
    // (table, first column) of every index, the UNIQUE constraints' included.
    let mut leading = std::collections::HashSet::new();
    let tables = strings(
        &conn,
        "SELECT name FROM sqlite_master WHERE type = 'table'",
        [],
    );
    for table in &tables {
        let indexes: Vec<String> = conn
            .prepare(&format!("PRAGMA index_list('{table}')"))
            .unwrap()
            .query_map([], |r| r.get(1))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for index in indexes {
            let first: String = conn
                .query_row(&format!("PRAGMA index_info('{index}')"), [], |r| r.get(2))
                .unwrap();
            leading.insert((table.clone(), first));
        }
    }
    let mut missing = Vec::new();
    for spec in catalog::LISTS.iter().chain(catalog::SNAPSHOT_LISTS) {
        let tables = aliases(spec.from);
        let mut exprs: Vec<&str> = spec
            .params
            .iter()
            .filter(|p| !matches!(p.kind, catalog::ParamKind::Search))
            .map(|p| p.expr)
            .collect();
        exprs.extend(spec.orderings.iter().map(|o| o.keys[0]));
        for (alias, column) in exprs.iter().flat_map(|e| column_refs(e)) {
            let table = &tables[&alias];
            if !leading.contains(&(table.clone(), column.clone())) {
                missing.push(format!("{}: {table}.{column}", spec.operation_id));
            }
        }
    }
    assert!(missing.is_empty(), "no index leads with: {missing:?}");
    // The check reads what it should: the issue list's organization filter goes
    // through the organizations table.
    assert_eq!(
        column_refs("(CASE WHEN t.is_member THEN 'true' END) = o.login_lc"),
        [
            ("t".into(), "is_member".into()),
            ("o".into(), "login_lc".into())
        ]
    );
    assert_eq!(
        aliases(catalog::list_spec("issues").unwrap().from)["o"],
        "organizations"
    );
}
