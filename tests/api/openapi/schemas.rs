//! The document's schemas against real answers: every list (and snapshot sub-list)
//! page, every detail and its 404, the list envelope and the error bodies of the
//! catalog on the sample validate against the schemas the document gives them.

use roost::catalog::{self, ListQuery};
use serde_json::Value;

use super::{doc, operations, schema};
use crate::support::{Sample, TODAY};

/// Checks `value` against a schema of the document (the subset it uses); returns
/// the problems found.
fn check(doc: &Value, schema: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        return check(
            doc,
            &doc["components"]["schemas"][name],
            value,
            at,
            problems,
        );
    }
    if let Some(options) = schema["oneOf"].as_array() {
        let fits = options.iter().filter(|o| {
            let mut p = Vec::new();
            check(doc, o, value, at, &mut p);
            p.is_empty()
        });
        if fits.count() != 1 {
            problems.push(format!("{at}: not exactly one of oneOf"));
        }
        return;
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
        _ => vec![],
    };
    let actual = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let ok = types.contains(&actual) || (actual == "integer" && types.contains(&"number"));
    if !types.is_empty() && !ok {
        problems.push(format!("{at}: {actual} where the schema says {types:?}"));
        return;
    }
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(value) {
            problems.push(format!("{at}: {value} is not one of {allowed:?}"));
        }
    }
    if let (Some(s), Some("date-time")) = (value.as_str(), schema["format"].as_str()) {
        if !(s.len() >= 20 && s.ends_with('Z') && s.as_bytes()[10] == b'T') {
            problems.push(format!("{at}: {s} is not a UTC date-time"));
        }
    }
    if let (Some(s), Some("date")) = (value.as_str(), schema["format"].as_str()) {
        if s.len() != 10 {
            problems.push(format!("{at}: {s} is not a date"));
        }
    }
    match value {
        Value::Object(object) => {
            let properties = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let declared: Vec<&String> = properties.keys().collect();
            let present: Vec<&String> = object.keys().collect();
            if declared != present {
                problems.push(format!("{at}: keys {present:?}, schema {declared:?}"));
            }
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().map(|v| v.as_str().unwrap()).collect())
                .unwrap_or_default();
            for name in required {
                if !object.contains_key(name) {
                    problems.push(format!("{at}: required {name} is missing"));
                }
            }
            for (name, v) in object {
                if let Some(s) = properties.get(name) {
                    check(doc, s, v, &format!("{at}.{name}"), problems);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check(doc, &schema["items"], item, &format!("{at}[{i}]"), problems);
            }
        }
        _ => {}
    }
}

fn response_schema(doc: &Value, operation_id: &str, status: &str) -> Value {
    let (_, op) = operations(doc)
        .into_iter()
        .find(|(_, op)| op["operationId"] == operation_id)
        .unwrap();
    op["responses"][status]["content"]["application/json"]["schema"].clone()
}

#[test]
fn schemas_describe_the_catalogs_answers_on_the_sample() {
    let doc = doc();
    let sample = Sample::new();
    let conn = sample.conn();
    let snapshots = catalog::snapshot_keys(&conn).unwrap();
    let mut problems = Vec::new();
    let mut check_list = |spec: &catalog::ListSpec, snapshot: Option<&str>| {
        let body = catalog::list_page(&conn, spec, snapshot, &ListQuery::default(), TODAY)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.operation_id));
        let value: Value = serde_json::from_slice(&body).unwrap();
        let schema = response_schema(&doc, spec.operation_id, "200");
        check(&doc, &schema, &value, spec.operation_id, &mut problems);
        value["total_count"].as_u64().unwrap()
    };
    for spec in catalog::LISTS {
        assert!(
            check_list(spec, None) > 0,
            "{}: empty on the sample",
            spec.operation_id
        );
    }
    for spec in catalog::SNAPSHOT_LISTS {
        let total: u64 = snapshots
            .iter()
            .map(|(_, key)| check_list(spec, Some(key)))
            .sum();
        assert!(total > 0, "{}: empty in every snapshot", spec.operation_id);
    }
    for spec in catalog::DETAILS {
        let schema = response_schema(&doc, spec.operation_id, "200");
        let mut seen = 0;
        // Every record, read the way the generator reads them.
        let ids: Vec<i64> = catalog::detail_rows(&conn, spec, &[])
            .unwrap()
            .iter()
            .map(|row| row.id)
            .collect();
        catalog::bodies(&conn, &spec.body, spec.from, &ids, ids.len(), |_, body| {
            let value: Value = serde_json::from_slice(&body)?;
            check(&doc, &schema, &value, spec.operation_id, &mut problems);
            seen += 1;
            Ok(())
        })
        .unwrap();
        assert!(seen > 0, "{}", spec.operation_id);
        // The not-found body matches the first of the 404's shapes.
        let not_found = catalog::detail(&conn, spec, &vec!["0".to_string(); spec.ids.len()]);
        let message = not_found.err().map(|e| e.to_string()).unwrap();
        let body = serde_json::json!({ "message": message });
        let schema = response_schema(&doc, spec.operation_id, "404");
        check(&doc, &schema, &body, spec.operation_id, &mut problems);
    }
    // The envelope and error bodies.
    let empty: Value = serde_json::from_slice(&catalog::render_page([], 1, 100, 0)).unwrap();
    check(
        &doc,
        schema(&doc, "PagedLabel"),
        &empty,
        "empty page",
        &mut problems,
    );
    let detail = serde_json::json!({"detail": "Not Found"});
    check(
        &doc,
        schema(&doc, "ErrorDetail"),
        &detail,
        "ErrorDetail",
        &mut problems,
    );
    let invalid = serde_json::json!({"message": "Invalid request", "errors": [
        {"loc": ["query", "page"], "msg": "page must be an integer of at least 1; got 'x'", "type": "int_parsing"}
    ]});
    check(
        &doc,
        schema(&doc, "ValidationErrorSchema"),
        &invalid,
        "400",
        &mut problems,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
