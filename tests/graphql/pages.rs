//! The web frontend's read-only pages, as operations written for roost with the same
//! selections and variables as the frontend's (`tests/graphql/pages/*.graphql`, their
//! variables in `pages.json`, shared with the e2e step `.ci/steps/50-graphql.sh`).
//!
//! Every operation validates and answers with data from the sample: no errors, no
//! null root field, no empty list; the fields the pages show besides the root ones
//! are checked against the sample in `queries/`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use roost::config::Env;
use serde_json::Value;

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
    for file in &files {
        let query = std::fs::read_to_string(pages_dir().join(file)).unwrap();
        let entry = &manifest[file];
        let body = app.post(&query, entry["variables"].clone()).await.json();
        assert!(body.get("errors").is_none(), "{file}: {body}");
        let data = body["data"].as_object().unwrap();
        assert!(!data.is_empty(), "{file}: {body}");
        for (field, value) in data {
            assert!(has_data(value), "{file}: {field} has no data: {value}");
        }
        answered.push(file.clone());
    }
    assert_eq!(answered.len(), 21, "{answered:?}");
}
