//! Shared test fixtures: the embedded sample as a dataset in a temporary folder, and
//! small helpers to ask the catalog like a client would.
#![allow(dead_code)]

mod lists;

use std::path::PathBuf;

use roost::catalog::{self, AnswerError};
use rusqlite::Connection;
use serde_json::Value;

pub const TODAY: &str = "2026-11-22";

pub struct Sample {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    pub conn: Connection,
}

pub fn sample() -> Sample {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    roost::store::init_db(&db, false).unwrap();
    let conn = roost::store::open_read(&db).unwrap();
    Sample { dir, db, conn }
}

/// `a=1&b=x+y` → pairs, decoded like a query string.
pub fn pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let dec = |s: &str| {
                percent_encoding::percent_decode_str(&s.replace('+', " "))
                    .decode_utf8()
                    .unwrap()
                    .into_owned()
            };
            (dec(k), dec(v))
        })
        .collect()
}

/// A list answer as JSON, or the error.
pub fn list(conn: &Connection, path: &str, query: &str) -> Result<Value, AnswerError> {
    let spec = catalog::list_spec(path).unwrap_or_else(|| panic!("no list {path}"));
    let q = catalog::parse_query(spec, &pairs(query)).expect("valid query");
    catalog::list_page(conn, spec, None, &q, TODAY).map(|b| serde_json::from_slice(&b).unwrap())
}

pub fn snapshot_list(
    conn: &Connection,
    snapshot: &str,
    path: &str,
    query: &str,
) -> Result<Value, AnswerError> {
    let spec = catalog::snapshot_list_spec(path).unwrap();
    let q = catalog::parse_query(spec, &pairs(query)).expect("valid query");
    catalog::list_page(conn, spec, Some(snapshot), &q, TODAY)
        .map(|b| serde_json::from_slice(&b).unwrap())
}

/// Items of a list answer that must succeed.
pub fn items(conn: &Connection, path: &str, query: &str) -> Vec<Value> {
    list(conn, path, query).unwrap()["items"]
        .as_array()
        .unwrap()
        .clone()
}

/// Every item over all pages.
pub fn all_items(conn: &Connection, path: &str, query: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut page = 1;
    loop {
        let sep = if query.is_empty() { "" } else { "&" };
        let v = list(conn, path, &format!("{query}{sep}page={page}")).unwrap();
        out.extend(v["items"].as_array().unwrap().iter().cloned());
        if !v["has_next"].as_bool().unwrap() {
            return out;
        }
        page += 1;
    }
}

pub fn field(items: &[Value], name: &str) -> Vec<String> {
    items
        .iter()
        .map(|i| match &i[name] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

pub fn detail(conn: &Connection, url_path: &str) -> Result<Value, AnswerError> {
    let segs = roost::tree::split_path(url_path).unwrap();
    match roost::tree::route(&segs) {
        roost::tree::Target::Detail { spec, ids } => {
            catalog::detail(conn, spec, &ids).map(|b| serde_json::from_slice(&b).unwrap())
        }
        other => panic!("{url_path} is not a detail: {other:?}"),
    }
}

/// The sample's interchange records, for computing expectations independently.
pub fn dataset() -> roost::records::Dataset {
    roost::store::sample_dataset().unwrap()
}
