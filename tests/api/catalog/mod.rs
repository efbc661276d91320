//! The catalog's answers on the sample, asked like a client would (a path and a query
//! string, `TODAY` as the day), checked against expectations computed independently
//! from the sample's interchange records.

mod chapters;
mod details;
mod events;
mod indexes;
mod issues;
mod labels;
mod lists;
mod members;
mod projects;
mod releases;
mod snapshots;
mod sponsors;

use roost::catalog::{self, AnswerError};
use rusqlite::Connection;
use serde_json::Value;

use crate::support::{pairs, TODAY};

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

pub fn detail(conn: &Connection, url_path: &str) -> Result<Value, AnswerError> {
    let segs = roost::tree::split_path(url_path).unwrap();
    match roost::tree::route(&segs) {
        roost::tree::Target::Detail { spec, ids } => {
            catalog::detail(conn, spec, &ids).map(|b| serde_json::from_slice(&b).unwrap())
        }
        other => panic!("{url_path} is not a detail: {other:?}"),
    }
}
