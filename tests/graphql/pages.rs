//! The web frontend's read-only pages, as operations written for roost with the same
//! selections and variables as the frontend's (`tests/graphql/pages/*.graphql`, their
//! variables in `pages.json`, shared with the e2e step `.ci/steps/50-graphql.sh`).
//!
//! Every operation either validates and answers with data from the sample (no errors,
//! no null root field, no empty list), or is listed with the exact fields the schema
//! does not have yet (their records are not in the dataset yet): its only errors are
//! validation errors naming those fields. When a field is added, its page's `missing`
//! list must shrink.

use std::collections::BTreeSet;
use std::path::PathBuf;

use roost::config::Env;
use serde_json::{json, Value};

use crate::support::graphql::*;

fn pages_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/graphql/pages")
}

fn manifest() -> serde_json::Map<String, Value> {
    let text = std::fs::read_to_string(pages_dir().join("pages.json")).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_object()
        .unwrap()
        .clone()
}

/// A root field's answer that shows data: not null, not an empty list.
fn has_data(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Array(items) => !items.is_empty(),
        _ => true,
    }
}

#[tokio::test]
async fn frontend_pages_validate_and_answer() {
    let app = App::new(Env::Local);
    let manifest = manifest();
    let mut files: Vec<String> = std::fs::read_dir(pages_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".graphql"))
        .collect();
    files.sort();
    assert_eq!(
        files.iter().collect::<BTreeSet<_>>(),
        manifest.keys().collect::<BTreeSet<_>>(),
        "every operation has an entry in pages.json"
    );
    let mut answered = Vec::new();
    let mut pending = Vec::new();
    for file in &files {
        let query = std::fs::read_to_string(pages_dir().join(file)).unwrap();
        let entry = &manifest[file];
        let missing: BTreeSet<String> = entry["missing"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        let body = app.post(&query, entry["variables"].clone()).await.json();
        if missing.is_empty() {
            assert!(body.get("errors").is_none(), "{file}: {body}");
            let data = body["data"].as_object().unwrap();
            for (field, value) in data {
                assert!(has_data(value), "{file}: {field} has no data: {value}");
            }
            answered.push(file.clone());
            continue;
        }
        // Only validation errors, each naming a field of `missing`, and every field of
        // `missing` named.
        let errors = body["errors"]
            .as_array()
            .unwrap_or_else(|| panic!("{file}: {body}"));
        let mut named = BTreeSet::new();
        for error in errors {
            assert_eq!(
                error["extensions"]["code"], "GRAPHQL_VALIDATION_FAILED",
                "{file}: {error}"
            );
            let message = error["message"].as_str().unwrap();
            let field = missing
                .iter()
                .find(|m| message.contains(&format!("\"{m}\"")))
                .unwrap_or_else(|| panic!("{file}: unexpected error {message}"));
            named.insert(field.clone());
        }
        assert_eq!(named, missing, "{file}: {body}");
        pending.push(json!({"page": file, "missing": missing}));
    }
    // The pages answered today; see pages.json for the others and what they lack.
    assert_eq!(answered.len(), 13, "{answered:?}");
    assert_eq!(pending.len(), 8, "{pending:?}");
}
