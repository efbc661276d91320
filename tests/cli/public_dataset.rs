//! The published dataset: `roost db export --public-only` and `roost generate
//! --with-dataset [--public-only]`. A public-only export holds what the API shows and
//! nothing else, imports cleanly, and renders the same tree as the full dataset.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use roost::generate::{self, Dataset};
use roost::store::export;
use serde_json::Value;

use crate::support::{generate_options, tree_files};

/// Every file of a tree under `api/` by relative path.
fn api_tree(site: &Path) -> BTreeMap<String, Vec<u8>> {
    tree_files(site)
        .into_iter()
        .filter(|(path, _)| path.starts_with("api/"))
        .collect()
}

fn records(dir: &Path, file: &str) -> Vec<Value> {
    fs::read_to_string(dir.join(file))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn public_export(db: &Path, dir: &Path) {
    let conn = generate::dataset::open_for_export(db, Dataset::PublicOnly).unwrap();
    export::export_dir(&conn, dir, false).unwrap();
}

#[test]
fn a_public_only_export_holds_what_the_api_shows_and_renders_the_same_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("roost.db");
    roost::store::init_db(&db, false, roost::idx::build).unwrap();
    let (full, public) = (tmp.path().join("full"), tmp.path().join("public"));
    export::export_dir(&roost::store::open_read(&db).unwrap(), &full, false).unwrap();
    public_export(&db, &public);

    let keys = |dir: &Path, file: &str, field: &str| -> BTreeSet<String> {
        records(dir, file)
            .iter()
            .map(|r| r[field].as_str().unwrap().to_string())
            .collect()
    };
    // Left out: what the API does not expose.
    for (file, flag, exposed) in [
        ("chapters.jsonl", "is_active", Value::Bool(true)),
        ("committees.jsonl", "is_active", Value::Bool(true)),
        ("projects.jsonl", "is_active", Value::Bool(true)),
        ("snapshots.jsonl", "status", Value::from("completed")),
    ] {
        let all = records(&full, file);
        let kept = records(&public, file);
        assert!(
            kept.len() < all.len(),
            "{file}: the sample has records to leave out"
        );
        assert!(kept.iter().all(|r| r[flag] == exposed), "{file}");
        assert_eq!(
            kept.len(),
            all.iter().filter(|r| r[flag] == exposed).count()
        );
    }
    let releases = records(&public, "releases.jsonl");
    assert!(releases.iter().all(|r| !r["published_at"].is_null()));
    assert!(releases.len() < records(&full, "releases.jsonl").len());
    // A completed snapshot lists only exposed chapters.
    let chapters = keys(&public, "chapters.jsonl", "key");
    for snapshot in records(&public, "snapshots.jsonl") {
        for key in snapshot["new_chapters"].as_array().unwrap() {
            assert!(chapters.contains(key.as_str().unwrap()), "{key}");
        }
    }
    // Organizations: affiliated ones whole; others, when they own repositories, a stub.
    let owners: BTreeSet<String> = records(&public, "repositories.jsonl")
        .iter()
        .map(|r| r["organization"].as_str().unwrap().to_string())
        .collect();
    for org in records(&public, "organizations.jsonl") {
        if org["is_affiliated"] == Value::Bool(false) {
            assert!(owners.contains(org["login"].as_str().unwrap()));
            assert_eq!(org["name"], "");
            assert_eq!(org["description"], "");
            assert_eq!(org["created_at"], "1970-01-01T00:00:00Z");
            assert_eq!(org["followers_count"], 0);
            assert_eq!(org["email"], "");
        } else {
            assert_ne!(org["created_at"], "1970-01-01T00:00:00Z");
        }
    }
    // Fields no answer shows are empty.
    let repositories = records(&public, "repositories.jsonl");
    assert!(repositories.iter().all(|r| r["pushed_at"].is_null()));
    assert!(records(&full, "repositories.jsonl")
        .iter()
        .any(|r| !r["pushed_at"].is_null()));
    assert!(releases.iter().all(|r| r["is_draft"] == Value::Bool(false)));
    // Personal fields are empty; the rest of a member stays, badges included.
    let members = records(&public, "members.jsonl");
    assert!(members.iter().all(|m| m["email"] == ""));
    assert!(records(&full, "members.jsonl")
        .iter()
        .any(|m| m["email"] != ""));
    assert!(members.iter().any(|m| m["badges"] != serde_json::json!([])));
    // Health measurements go with their project.
    let projects = keys(&public, "projects.jsonl", "key");
    let metrics = records(&public, "project_health_metrics.jsonl");
    assert!(metrics
        .iter()
        .all(|m| projects.contains(m["project"].as_str().unwrap())));
    assert!(metrics.len() < records(&full, "project_health_metrics.jsonl").len());
    assert!(!metrics.is_empty());

    // It imports cleanly and renders the same tree.
    let again = tmp.path().join("public.db");
    roost::store::import_dir(&public, &again, roost::idx::build).unwrap();
    assert!(roost::store::check(&again).unwrap().is_empty());
    let (a, b) = (tmp.path().join("site-a"), tmp.path().join("site-b"));
    generate::generate(&generate_options(&db, &a)).unwrap();
    generate::generate(&generate_options(&again, &b)).unwrap();
    let (a, b) = (api_tree(&a), api_tree(&b));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, bytes) in &a {
        assert!(bytes == &b[path], "{path} differs");
    }
}

/// The fields a public-only export empties are shown by no REST schema and no GraphQL
/// type of their record.
#[test]
fn hidden_fields_are_in_no_answer() {
    let openapi: Value = serde_json::from_slice(&roost::openapi::document_json().unwrap()).unwrap();
    let sdl =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("schema.graphql")).unwrap();
    fn property_names(value: &Value, out: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    out.extend(props.keys().cloned());
                }
                map.values().for_each(|v| property_names(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| property_names(v, out)),
            _ => {}
        }
    }
    for (file, field) in export::HIDDEN_FIELDS {
        assert!(!export::PERSONAL_FIELDS.contains(&(*file, *field)));
        let (schemas, graphql_type) = match *file {
            "repositories.jsonl" => (&["Repository", "RepositoryDetail"][..], "Repository"),
            "releases.jsonl" => (
                &["Release", "ReleaseDetail", "SnapshotRelease"][..],
                "Release",
            ),
            "organizations.jsonl" => (&["Organization", "OrganizationDetail"][..], "Organization"),
            other => panic!("no schemas listed for {other}"),
        };
        let mut names = BTreeSet::new();
        for schema in schemas {
            property_names(&openapi["components"]["schemas"][schema], &mut names);
        }
        assert!(!names.is_empty());
        assert!(!names.contains(*field), "{file}: REST shows {field}");
        let camel: String = field
            .split('_')
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    w.to_string()
                } else {
                    w[..1].to_uppercase() + &w[1..]
                }
            })
            .collect();
        let body = sdl
            .split(&format!("type {graphql_type} {{"))
            .nth(1)
            .and_then(|rest| rest.split("\n}").next())
            .unwrap();
        let shown = body.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("{camel}:")) || l.starts_with(&format!("{camel}("))
        });
        assert!(!shown, "{file}: GraphQL {graphql_type} shows {camel}");
    }
}

#[test]
fn generate_with_dataset_publishes_the_export_compressed_and_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("roost.db");
    roost::store::init_db(&db, false, roost::idx::build).unwrap();
    let site = tmp.path().join("site");
    generate::generate_with(&generate_options(&db, &site), Some(Dataset::PublicOnly)).unwrap();
    let manifest = roost::manifest::read_manifest(&fs::canonicalize(&site).unwrap()).unwrap();
    let listed: Vec<&str> = manifest
        .files
        .iter()
        .map(|e| e.path.as_str())
        .filter(|p| p.starts_with("dataset/"))
        .collect();
    assert_eq!(listed.len(), export::file_names().count());
    assert!(listed.contains(&"dataset/issues.jsonl.gz"));

    // The published files are the public-only export, compressed.
    let unpacked = tmp.path().join("unpacked");
    fs::create_dir(&unpacked).unwrap();
    generate::dataset::decompress_into(&site, &unpacked).unwrap();
    let public = tmp.path().join("public");
    public_export(&db, &public);
    for name in export::file_names() {
        assert_eq!(
            fs::read(unpacked.join(name)).unwrap(),
            fs::read(public.join(name)).unwrap(),
            "{name}"
        );
    }
    // Same dataset, same bytes: a second run links them.
    let summary =
        generate::generate_with(&generate_options(&db, &site), Some(Dataset::PublicOnly)).unwrap();
    assert_eq!(summary.written, 0, "{summary}");
}
