//! The links of the document (docs/api.md §7): every link names an operation and gives
//! it every path id it requires, from expressions that read the source's answer or
//! request; the links are those the contract's bodies allow; and each one, followed
//! on the sample, leads to an answer (a 200).

use std::collections::{BTreeMap, BTreeSet};

use roost::catalog::{self, DetailSpec, ListSpec};
use serde_json::Value;

use super::{doc, operations};
use crate::support::{Sample, TODAY};

/// (source operationId, link name, link) for every link of every 200.
fn links(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (_, op) in operations(doc) {
        let source = op["operationId"].as_str().unwrap().to_string();
        if let Some(links) = op["responses"]["200"]["links"].as_object() {
            for (name, link) in links {
                out.push((source.clone(), name.clone(), link.clone()));
            }
        }
    }
    out
}

fn operation(doc: &Value, id: &str) -> Option<Value> {
    operations(doc)
        .into_iter()
        .map(|(_, op)| op)
        .find(|op| op["operationId"] == id)
}

/// The parameters of an operation: name → location.
fn parameters(op: &Value) -> BTreeMap<String, String> {
    op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["in"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Resolves a schema's `$ref` in the document.
fn resolved<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => super::schema(doc, r.trim_start_matches("#/components/schemas/")),
        None => schema,
    }
}

/// Whether a JSON pointer into a body follows the body's schema (objects by
/// property, arrays by index).
fn pointer_fits(doc: &Value, body: &Value, pointer: &str) -> bool {
    let mut at = resolved(doc, body);
    for token in pointer.trim_start_matches('/').split('/') {
        at = if at["type"] == "array" && token.parse::<usize>().is_ok() {
            resolved(doc, &at["items"])
        } else {
            match at["properties"].get(token) {
                Some(property) => resolved(doc, property),
                None => return false,
            }
        };
    }
    true
}

#[test]
fn every_link_names_an_operation_and_gives_it_every_path_id() {
    let doc = doc();
    let all = links(&doc);
    assert!(!all.is_empty(), "no links");
    for (source, name, link) in all {
        let at = format!("{source} -> {name}");
        let target_id = link["operationId"].as_str().unwrap();
        assert_eq!(name, target_id, "{at}: named after its target");
        let target = operation(&doc, target_id).unwrap_or_else(|| panic!("{at}: no operation"));
        let source_op = operation(&doc, &source).unwrap();
        let source_params = parameters(&source_op);
        let target_params = parameters(&target);
        let given = link["parameters"].as_object().unwrap();
        for (param, location) in &target_params {
            if location == "path" {
                assert!(given.contains_key(param), "{at}: path id {param} not given");
            }
        }
        let body = &source_op["responses"]["200"]["content"]["application/json"]["schema"];
        for (param, expression) in given {
            assert!(
                target_params.contains_key(param),
                "{at}: {param} is no parameter of {target_id}"
            );
            let expression = expression.as_str().unwrap();
            if let Some(pointer) = expression.strip_prefix("$response.body#") {
                assert!(pointer_fits(&doc, body, pointer), "{at}: {expression}");
            } else if let Some(query) = expression.strip_prefix("$request.query.") {
                assert_eq!(
                    source_params.get(query).map(String::as_str),
                    Some("query"),
                    "{at}"
                );
            } else if let Some(path) = expression.strip_prefix("$request.path.") {
                assert_eq!(
                    source_params.get(path).map(String::as_str),
                    Some("path"),
                    "{at}"
                );
            } else {
                panic!("{at}: {expression} is no runtime expression of a request or answer");
            }
        }
        assert!(
            !link["description"].as_str().unwrap_or("").is_empty(),
            "{at}"
        );
    }
}

/// Every list whose items name their detail links to it; a detail that no item names
/// (an issue: no list item carries its number) has no link to it.
#[test]
fn links_lead_from_every_list_to_the_detail_its_items_name() {
    let doc = doc();
    let got: BTreeSet<(String, String)> = links(&doc)
        .into_iter()
        .map(|(source, name, _)| (source, name))
        .collect();
    let mut want: BTreeSet<(String, String)> = BTreeSet::new();
    let mut add = |source: &str, target: &str| {
        want.insert((source.to_string(), target.to_string()));
    };
    for resource in [
        "chapters",
        "committees",
        "events",
        "members",
        "milestones",
        "organizations",
        "projects",
        "releases",
        "repositories",
        "snapshots",
        "sponsors",
    ] {
        let detail = catalog::detail_spec(resource).unwrap();
        add(&format!("list_{resource}"), detail.operation_id);
    }
    for (sub, detail) in [
        ("chapters", "get_chapter"),
        ("members", "get_member"),
        ("projects", "get_project"),
        ("releases", "get_release"),
        ("releases", "get_repository"),
        ("issues", "get_repository"),
    ] {
        add(&format!("list_snapshot_{sub}"), detail);
    }
    for sub in catalog::SNAPSHOT_LISTS {
        add("get_snapshot", sub.operation_id);
    }
    for list in [
        "list_issues",
        "list_milestones",
        "list_releases",
        "list_repositories",
    ] {
        add("get_organization", list);
    }
    for list in ["list_issues", "list_milestones", "list_releases"] {
        add("get_repository", list);
        add("list_repositories", list);
    }
    // The lists of a list's first item, as from its detail.
    for list in [
        "list_issues",
        "list_milestones",
        "list_releases",
        "list_repositories",
    ] {
        add("list_organizations", list);
    }
    for sub in catalog::SNAPSHOT_LISTS {
        add("list_snapshots", sub.operation_id);
    }
    assert_eq!(got, want);
    // Every detail but the is reached.
    let targets: BTreeSet<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
    for detail in catalog::DETAILS {
        assert_eq!(
            targets.contains(detail.operation_id),
            detail.operation_id != "get_issue",
            "{}",
            detail.operation_id
        );
    }
}

enum Spec {
    List(&'static ListSpec),
    Detail(&'static DetailSpec),
}

fn spec(id: &str) -> Spec {
    if let Some(list) = catalog::LISTS
        .iter()
        .chain(catalog::SNAPSHOT_LISTS)
        .find(|s| s.operation_id == id)
    {
        return Spec::List(list);
    }
    Spec::Detail(
        catalog::DETAILS
            .iter()
            .find(|s| s.operation_id == id)
            .unwrap(),
    )
}

/// A value of a body as a request parameter.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The canonical ids of the first record of a detail resource, by path id name.
fn first_record(conn: &rusqlite::Connection, detail: &DetailSpec) -> BTreeMap<String, String> {
    let row = catalog::detail_rows(conn, detail, &[]).unwrap().remove(0);
    detail
        .id_names
        .iter()
        .map(|n| n.to_string())
        .zip(row.ids)
        .collect()
}

/// Answers an operation on the sample: `path` holds its path ids, `query` its query.
fn answer(
    conn: &rusqlite::Connection,
    id: &str,
    path: &BTreeMap<String, String>,
    query: &[(String, String)],
) -> Result<Value, String> {
    let body = match spec(id) {
        Spec::List(list) => {
            let snapshot =
                (list.snapshot_link.as_ref()).map(|_| path["snapshot_id"].to_lowercase());
            let q = catalog::parse_query(list, query).map_err(|e| format!("{e:?}"))?;
            catalog::list_page(conn, list, snapshot.as_deref(), &q, TODAY)
        }
        Spec::Detail(detail) => {
            let segments: Vec<String> = detail.id_names.iter().map(|n| path[*n].clone()).collect();
            let ids = catalog::canonical_ids(detail, &segments)
                .ok_or_else(|| format!("{segments:?} are no ids"))?;
            catalog::detail(conn, detail, &ids)
        }
    };
    body.map(|b| serde_json::from_slice(&b).unwrap())
        .map_err(|e| e.to_string())
}

#[test]
fn links_followed_on_the_sample_lead_to_answers() {
    let doc = doc();
    let sample = Sample::new();
    let conn = sample.conn();
    let snapshots: Vec<String> = catalog::snapshot_keys(&conn)
        .unwrap()
        .into_iter()
        .map(|(_, key)| key)
        .collect();
    let mut followed = 0;
    for (source, name, link) in links(&doc) {
        let at = format!("{source} -> {name}");
        let given = link["parameters"].as_object().unwrap();
        let target_params = parameters(&operation(&doc, &name).unwrap());
        // The source request: a record of the source, or a list filtered the way the
        // link's request expressions need (by where a record of the target lives).
        let mut path: BTreeMap<String, String> = BTreeMap::new();
        let mut query: Vec<(String, String)> = Vec::new();
        if let Spec::Detail(detail) = spec(&source) {
            path = first_record(&conn, detail);
        }
        // A filter the link reads names where a record of the target (or, for a
        // list, of the source) lives.
        let lives = match (spec(&name), spec(&source)) {
            (Spec::Detail(target), _) => Some(target),
            (_, Spec::List(list)) => catalog::detail_spec(list.path),
            _ => None,
        };
        if let Some(detail) = lives {
            let record = first_record(&conn, detail);
            for expression in given.values() {
                if let Some(filter) = expression.as_str().unwrap().strip_prefix("$request.query.") {
                    let id = match filter {
                        "repository" => "repository_id",
                        _ => "organization_id",
                    };
                    query.push((filter.to_string(), record[id].clone()));
                }
            }
        }
        let candidates: Vec<Option<&String>> = match spec(&source) {
            Spec::List(list) if list.snapshot_link.is_some() => {
                snapshots.iter().map(Some).collect()
            }
            _ => vec![None],
        };
        // The first source answer with an item (a snapshot may have none of a kind).
        let body = candidates
            .into_iter()
            .find_map(|snapshot| {
                if let Some(key) = snapshot {
                    path.insert("snapshot_id".to_string(), key.clone());
                }
                let body = answer(&conn, &source, &path, &query).unwrap();
                (body.get("items").is_none() || body["items"][0].is_object()).then_some(body)
            })
            .unwrap_or_else(|| panic!("{at}: no source answer with an item"));
        // The target request, from the link's expressions.
        let mut target_path = BTreeMap::new();
        let mut target_query = Vec::new();
        for (param, expression) in given {
            let expression = expression.as_str().unwrap();
            let value = if let Some(pointer) = expression.strip_prefix("$response.body#") {
                text(
                    body.pointer(pointer)
                        .unwrap_or_else(|| panic!("{at}: {pointer}")),
                )
            } else if let Some(filter) = expression.strip_prefix("$request.query.") {
                query.iter().find(|(k, _)| k == filter).unwrap().1.clone()
            } else {
                path[expression.strip_prefix("$request.path.").unwrap()].clone()
            };
            match target_params[param].as_str() {
                "path" => {
                    target_path.insert(param.clone(), value);
                }
                _ => target_query.push((param.clone(), value)),
            }
        }
        let got = answer(&conn, &name, &target_path, &target_query);
        assert!(
            got.is_ok(),
            "{at}: {target_path:?} {target_query:?}: {got:?}"
        );
        followed += 1;
    }
    assert_eq!(followed, 41, "links followed");
}
