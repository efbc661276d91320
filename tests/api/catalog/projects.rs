//! `/projects/`: the default order (level rank, stars, forks), the repeatable type
//! filter and the exact level, and structured search.

use super::*;
use crate::support::*;

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
    // Numbers past the 64-bit range compare as integers: no count reaches them.
    let every = all_items(&conn, "projects", "").len();
    let below = all_items(&conn, "projects", "q=stars%3A%3C99999999999999999999");
    assert_eq!(below.len(), every);
    let above = all_items(&conn, "projects", "q=stars%3A%3E%3D-99999999999999999999");
    assert_eq!(above.len(), every);
    for none in [
        "q=stars%3A99999999999999999999",
        "q=stars%3A%3E9223372036854775808",
        "q=stars%3A%3C%3D-9223372036854775809",
    ] {
        assert!(all_items(&conn, "projects", none).is_empty(), "{none}");
    }
    let blank = all_items(&conn, "projects", "q=+++");
    assert_eq!(blank.len(), all_items(&conn, "projects", "").len());
    let spec = catalog::list_spec("projects").unwrap();
    let err = catalog::parse_query(spec, &pairs("q=color%3Ared")).unwrap_err();
    assert_eq!(err[0].param, "q");
    assert!(err[0].msg.contains("color:red"), "{}", err[0].msg);
}
