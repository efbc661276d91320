//! The OpenAPI document (docs/api.md §7): a reviewed snapshot, the contract's
//! operation ids and component names, the routes the shim answers, and the schemas
//! against real answers of the catalog on the sample.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test --test all api::openapi` rewrites
//! `tests/snapshots/openapi.json`; review the diff before committing it.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use roost::catalog::{self, ListQuery};
use roost::tree::{self, Target};
use serde_json::Value;

mod links;
mod schemas;
mod search_pattern;

/// docs/api.md §7, in its order.
const OPERATION_IDS: [&str; 30] = [
    "list_chapters",
    "get_chapter",
    "list_committees",
    "get_committee",
    "list_events",
    "get_event",
    "list_issues",
    "get_issue",
    "list_labels",
    "list_members",
    "get_member",
    "list_milestones",
    "get_milestone",
    "list_organizations",
    "get_organization",
    "list_projects",
    "get_project",
    "list_releases",
    "get_release",
    "list_repositories",
    "get_repository",
    "list_snapshots",
    "get_snapshot",
    "list_snapshot_chapters",
    "list_snapshot_issues",
    "list_snapshot_members",
    "list_snapshot_projects",
    "list_snapshot_releases",
    "list_sponsors",
    "get_sponsor",
];

fn doc() -> Value {
    serde_json::from_slice(&roost::openapi::document_json().unwrap()).unwrap()
}

/// (path, operation) for every operation of the document.
fn operations(doc: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            assert_eq!(method, "get", "{path}: only GET operations");
            out.push((path.clone(), op.clone()));
        }
    }
    out
}

fn schema<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["components"]["schemas"]
        .get(name)
        .unwrap_or_else(|| panic!("no component {name}"))
}

#[test]
fn document_matches_the_reviewed_snapshot() {
    let bytes = roost::openapi::document_json().unwrap();
    assert_eq!(
        bytes,
        roost::openapi::document_json().unwrap(),
        "not deterministic"
    );
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/openapi.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        return;
    }
    let expected = std::fs::read(&path).unwrap_or_default();
    if expected != bytes {
        let got = String::from_utf8_lossy(&bytes);
        let want = String::from_utf8_lossy(&expected);
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
        panic!(
            "openapi.json differs from tests/snapshots/openapi.json from line {}:\n  got:      {}\n  snapshot: {}\n\
             If the change is intended, run UPDATE_SNAPSHOTS=1 cargo test --test all api::openapi and review the diff.",
            line + 1,
            got.lines().nth(line).unwrap_or("<end>"),
            want.lines().nth(line).unwrap_or("<end>"),
        );
    }
}

#[test]
fn document_is_openapi_3_1_with_info_servers_and_the_api_key_scheme() {
    let doc = doc();
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(!doc["info"]["title"].as_str().unwrap().is_empty());
    assert!(!doc["info"]["version"].as_str().unwrap().is_empty());
    assert!(doc["info"]["description"].as_str().unwrap().len() > 100);
    let servers: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["description"].as_str().unwrap())
        .collect();
    assert_eq!(servers, ["Production", "Staging", "Local", "E2E"]);
    assert_eq!(
        doc["components"]["securitySchemes"]["ApiKey"],
        serde_json::json!({
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": doc["components"]["securitySchemes"]["ApiKey"]["description"],
        })
    );
    assert_eq!(doc["security"], serde_json::json!([{"ApiKey": []}]));
}

#[test]
fn document_for_an_environment_names_its_public_url() {
    use roost::config::Env;
    let prod: Value = serde_json::from_slice(
        &roost::openapi::document_json_for(Env::Production, Some("https://api.example.org/"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        prod["servers"],
        serde_json::json!([{"url": "https://api.example.org", "description": "Production"}])
    );
    let e2e: Value =
        serde_json::from_slice(&roost::openapi::document_json_for(Env::E2e, None).unwrap())
            .unwrap();
    assert_eq!(
        e2e["servers"],
        serde_json::json!([{"url": "/", "description": "E2E"}])
    );
    assert_eq!(prod["paths"], doc()["paths"]);
}

#[test]
fn operation_ids_are_unique_and_exactly_those_of_the_contract() {
    let doc = doc();
    let ids: Vec<String> = operations(&doc)
        .iter()
        .map(|(_, op)| op["operationId"].as_str().unwrap().to_string())
        .collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "duplicate operationId in {ids:?}");
    let mut want: Vec<&str> = OPERATION_IDS.to_vec();
    let mut got: Vec<&str> = ids.iter().map(String::as_str).collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn component_names_follow_the_contract() {
    let doc = doc();
    let names: BTreeSet<&str> = doc["components"]["schemas"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut want = vec![
        "ValidationErrorSchema",
        "ErrorDetail",
        "ProjectLevel",
        "ProjectType",
        "EventCategory",
        "IssueState",
        "SponsorMemberType",
        "SnapshotIssue",
        "PagedSnapshotIssue",
        "SnapshotRelease",
        "PagedSnapshotRelease",
        "SnapshotError",
    ];
    let resources = [
        "Chapter",
        "Committee",
        "Event",
        "Issue",
        "Member",
        "Milestone",
        "Organization",
        "Project",
        "Release",
        "Repository",
        "Snapshot",
        "Sponsor",
    ];
    let mut owned = Vec::new();
    for r in resources {
        owned.push(r.to_string());
        owned.push(format!("{r}Detail"));
        owned.push(format!("{r}Error"));
        owned.push(format!("Paged{r}"));
    }
    owned.push("Label".into());
    owned.push("PagedLabel".into());
    want.extend(owned.iter().map(String::as_str));
    for name in want {
        assert!(names.contains(name), "missing component {name}");
    }
    // Enums name the catalog's allowed values.
    let values = |name: &str| -> Vec<String> {
        schema(&doc, name)["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    // The values of the contract (API.md §3), in its order.
    assert_eq!(
        values("ProjectLevel"),
        ["flagship", "production", "incubator", "lab", "demo"]
    );
    assert_eq!(
        values("ProjectType"),
        ["code", "documentation", "tool", "other"]
    );
    assert_eq!(
        values("EventCategory"),
        ["appsec_days", "global", "partner", "other"]
    );
    assert_eq!(values("IssueState"), ["open", "closed"]);
    assert_eq!(values("SponsorMemberType"), ["Platinum", "Gold", "Silver"]);
    // Items reference them.
    let project = &schema(&doc, "Project")["properties"];
    assert_eq!(
        project["level"]["$ref"],
        "#/components/schemas/ProjectLevel"
    );
    assert_eq!(project["type"]["$ref"], "#/components/schemas/ProjectType");
    assert_eq!(
        schema(&doc, "Issue")["properties"]["state"]["$ref"],
        "#/components/schemas/IssueState"
    );
}

fn param<'a>(op: &'a Value, name: &str) -> &'a Value {
    op["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{}: no parameter {name}", op["operationId"]))
}

#[test]
fn every_operation_declares_parameters_responses_tags_and_security() {
    let doc = doc();
    for (path, op) in operations(&doc) {
        let id = op["operationId"].as_str().unwrap();
        assert_eq!(op["security"], serde_json::json!([{"ApiKey": []}]), "{id}");
        let tags = op["tags"].as_array().unwrap();
        assert_eq!(tags.len(), 1, "{id}");
        let resource = path.split('/').nth(3).unwrap();
        if ["members", "organizations", "snapshots"].contains(&resource) {
            assert_eq!(tags[0], "Community", "{id}");
        }
        let responses = op["responses"].as_object().unwrap();
        let is_list = path.ends_with('/');
        let mut want = vec!["200", "304", "401", "404", "429", "500"];
        if is_list {
            want.push("400");
        }
        for status in &want {
            assert!(responses.contains_key(*status), "{id}: no {status}");
        }
        assert!(
            responses["429"]["headers"]["Retry-After"]["schema"]["type"] == "integer",
            "{id}"
        );
        let ok = responses["200"]["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .unwrap();
        let not_found = &responses["404"]["content"]["application/json"]["schema"];
        if is_list {
            assert!(ok.starts_with("#/components/schemas/Paged"), "{id}: {ok}");
            assert_eq!(
                responses["400"]["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/ValidationErrorSchema"
            );
            // Pagination and ordering.
            let page = &param(&op, "page")["schema"];
            assert_eq!(
                (page["minimum"].as_i64(), page["default"].as_i64()),
                (Some(1), Some(1))
            );
            let size = &param(&op, "page_size")["schema"];
            assert_eq!(
                (
                    size["minimum"].as_i64(),
                    size["maximum"].as_i64(),
                    size["default"].as_i64()
                ),
                (Some(1), Some(100), Some(100))
            );
            let ordering: Vec<&str> = param(&op, "ordering")["schema"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            for o in ordering.iter().filter(|o| !o.starts_with('-')) {
                assert!(
                    ordering.contains(&format!("-{o}").as_str()),
                    "{id}: no -{o}"
                );
            }
        } else {
            assert!(ok.ends_with("Detail"), "{id}: {ok}");
            let refs: Vec<&str> = not_found["oneOf"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["$ref"].as_str().unwrap())
                .collect();
            assert_eq!(refs.len(), 2, "{id}");
            assert!(refs[0].ends_with("Error"), "{id}");
            assert_eq!(refs[1], "#/components/schemas/ErrorDetail");
        }
        // Every path parameter of the template is declared, required.
        for segment in path.split('/').filter(|s| s.starts_with('{')) {
            let name = segment.trim_matches(|c| c == '{' || c == '}');
            let p = param(&op, name);
            assert_eq!(p["in"], "path");
            assert_eq!(p["required"], true);
        }
        for p in op["parameters"].as_array().unwrap() {
            assert!(p["schema"].is_object(), "{id}: {p}");
            assert!(
                !p["description"].as_str().unwrap_or("").is_empty(),
                "{id}: {p}"
            );
        }
    }
}

#[test]
fn filters_carry_their_types_enums_and_bounds() {
    let doc = doc();
    let op = |path: &str| doc["paths"][path]["get"].clone();
    let projects = op("/api/v0/projects/");
    let kind = param(&projects, "type");
    assert_eq!(kind["schema"]["type"], "array");
    assert_eq!(
        kind["schema"]["items"]["$ref"],
        "#/components/schemas/ProjectType"
    );
    assert_eq!(
        (kind["style"].as_str(), kind["explode"].as_bool()),
        (Some("form"), Some(true))
    );
    assert_eq!(
        param(&projects, "level")["schema"]["$ref"],
        "#/components/schemas/ProjectLevel"
    );
    assert_eq!(param(&projects, "q")["schema"]["maxLength"], 256);
    assert!(param(&projects, "ordering")["schema"]
        .get("default")
        .is_none());

    let events = op("/api/v0/events/");
    let category = param(&events, "category");
    assert_eq!(
        category["schema"]["items"]["$ref"],
        "#/components/schemas/EventCategory"
    );
    assert_eq!(
        (category["style"].as_str(), category["explode"].as_bool()),
        (Some("form"), Some(true))
    );
    assert_eq!(param(&events, "is_upcoming")["schema"]["type"], "boolean");
    assert_eq!(param(&events, "latitude_gte")["schema"]["type"], "number");
    assert_eq!(
        param(&events, "ordering")["schema"]["default"],
        "-start_date"
    );

    let sponsors = op("/api/v0/sponsors/");
    assert_eq!(param(&sponsors, "is_member")["schema"]["type"], "boolean");
    assert_eq!(
        param(&sponsors, "member_type")["schema"]["$ref"],
        "#/components/schemas/SponsorMemberType"
    );
    assert_eq!(param(&sponsors, "ordering")["schema"]["default"], "name");
    assert_eq!(
        param(&op("/api/v0/issues/"), "state")["schema"]["$ref"],
        "#/components/schemas/IssueState"
    );
    assert_eq!(
        param(&op("/api/v0/chapters/"), "ordering")["schema"]["default"],
        "-created_at"
    );
    assert_eq!(
        param(&op("/api/v0/releases/"), "ordering")["schema"]["default"],
        "-published_at"
    );
    let issue = op("/api/v0/issues/{organization_id}/{repository_id}/{issue_id}");
    assert_eq!(param(&issue, "issue_id")["schema"]["type"], "integer");

    // Every filter of the catalog is declared on its operation.
    for spec in catalog::LISTS.iter().chain(catalog::SNAPSHOT_LISTS) {
        let (path, _) = operations(&doc)
            .into_iter()
            .find(|(_, o)| o["operationId"] == spec.operation_id)
            .unwrap();
        let op = op(&path);
        for p in spec.params {
            param(&op, p.name);
        }
    }
}

/// A value repeated in `type` or `category` counts once, as the file tree's canonical
/// query reads it: the document declares no `uniqueItems` the API does not enforce.
#[test]
fn repeated_values_are_declared_as_the_api_reads_them() {
    let doc = doc();
    for (path, name, values) in [
        ("/api/v0/projects/", "type", "type=code&type=tool"),
        (
            "/api/v0/events/",
            "category",
            "category=global&category=partner",
        ),
    ] {
        let schema = &param(&doc["paths"][path]["get"], name)["schema"];
        assert_eq!(schema["type"], "array", "{name}");
        assert!(schema.get("uniqueItems").is_none(), "{name}: {schema}");
        let spec = catalog::list_spec(path.split('/').nth(3).unwrap()).unwrap();
        let once = catalog::parse_query(spec, &crate::support::pairs(values)).unwrap();
        let twice =
            catalog::parse_query(spec, &crate::support::pairs(&format!("{values}&{values}")))
                .unwrap();
        assert_eq!(twice, once, "{name}");
        assert_eq!(twice.canonical(spec), once.canonical(spec));
    }
}

/// A sample value for a path parameter.
fn sample_id(name: &str) -> &'static str {
    match name {
        "issue_id" | "milestone_id" => "1",
        "release_id" => "v1.0.0",
        "snapshot_id" => "2025-02",
        _ => "sample",
    }
}

fn fill(template: &str) -> String {
    template
        .split('/')
        .map(|s| {
            if s.starts_with('{') {
                sample_id(s.trim_matches(|c| c == '{' || c == '}')).to_string()
            } else {
                s.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn route(path: &str) -> Target {
    tree::route(&tree::split_path(path).unwrap())
}

fn target_operation(target: &Target) -> Option<&'static str> {
    match target {
        Target::List { spec, .. } => Some(spec.operation_id),
        Target::Detail { spec, .. } => Some(spec.operation_id),
        _ => None,
    }
}

#[test]
fn every_document_path_routes_to_its_operation() {
    let doc = doc();
    for (template, op) in operations(&doc) {
        let path = fill(&template);
        let target = route(&path);
        assert_eq!(
            target_operation(&target),
            op["operationId"].as_str(),
            "{template} ({path}) routes to {target:?}"
        );
        if template.ends_with('/') {
            // The same list without the slash, as docs/api.md §2 promises.
            let bare = route(path.trim_end_matches('/'));
            assert_eq!(
                target_operation(&bare),
                op["operationId"].as_str(),
                "{path}"
            );
        }
    }
}

#[test]
fn every_route_of_the_catalog_is_in_the_document() {
    let doc = doc();
    let by_id: HashMap<String, String> = operations(&doc)
        .into_iter()
        .map(|(path, op)| (op["operationId"].as_str().unwrap().to_string(), path))
        .collect();
    let mut routes = Vec::new();
    for spec in catalog::LISTS {
        routes.push((format!("/api/v0/{}/", spec.path), spec.operation_id));
    }
    for spec in catalog::SNAPSHOT_LISTS {
        routes.push((
            format!("/api/v0/snapshots/2025-02/{}/", spec.path),
            spec.operation_id,
        ));
    }
    for spec in catalog::DETAILS {
        let ids: Vec<&str> = spec.id_names.iter().map(|n| sample_id(n)).collect();
        routes.push((
            format!("/api/v0/{}/{}", spec.path, ids.join("/")),
            spec.operation_id,
        ));
    }
    assert_eq!(routes.len(), OPERATION_IDS.len());
    for (path, id) in routes {
        assert_eq!(target_operation(&route(&path)), Some(id), "{path}");
        let template = by_id
            .get(id)
            .unwrap_or_else(|| panic!("{id} ({path}) is not in the document"));
        assert_eq!(&fill(template), &path, "{id}");
    }
    // The fixed documents are not API operations.
    assert_eq!(route("/api/v0/"), Target::Root);
    assert_eq!(route("/api/v0/openapi.json"), Target::OpenApi);
    assert!(matches!(route("/api/v0/docs/"), Target::Docs(_)));
}

#[test]
fn empty_query_values_are_declared_allowed_and_read_as_absent() {
    let doc = doc();
    let lists: HashMap<&str, &catalog::ListSpec> = catalog::LISTS
        .iter()
        .chain(catalog::SNAPSHOT_LISTS)
        .map(|s| (s.operation_id, s))
        .collect();
    let mut checked = 0;
    for (path, op) in operations(&doc) {
        let id = op["operationId"].as_str().unwrap();
        for p in op["parameters"].as_array().into_iter().flatten() {
            if p["in"] != "query" {
                continue;
            }
            let name = p["name"].as_str().unwrap();
            assert_eq!(p["allowEmptyValue"], true, "{path} {name}");
            // What the keyword promises: `?name=` is the parameter left out.
            let spec = lists[id];
            let empty = catalog::parse_query(spec, &[(name.to_string(), String::new())]);
            assert_eq!(empty, Ok(ListQuery::default()), "{id} {name}=");
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked} query parameters");
}
