//! Example values for the docs page: a schema's own example when it has one,
//! otherwise one made up from its types, formats and field names, printed as JSON with
//! its object keys in the document's order.

use serde_json::Value;

/// A string example for a field named `hint` of `format`.
pub(super) fn string_example(hint: &str, format: &str) -> String {
    match format {
        "date-time" => return "2024-03-01T12:00:00Z".to_string(),
        "date" => return "2024-03-01".to_string(),
        _ => {}
    }
    if hint.ends_with("url") {
        return "https://example.org/".to_string();
    }
    match hint {
        "color" => "d73a4a",
        "login" | "key" | "organization_login" => "example",
        "name" | "title" | "repository_name" => "Example",
        "tag_name" => "v1.0.0",
        _ => "string",
    }
    .to_string()
}

/// An example value that keeps the order of its object keys (serde_json's map may not).
pub(super) enum Example {
    Null,
    /// A number or boolean, as JSON text.
    Raw(String),
    String(String),
    Array(Vec<Example>),
    Object(Vec<(String, Example)>),
}

impl Example {
    pub(super) fn from_value(value: &Value) -> Example {
        match value {
            Value::Null => Example::Null,
            Value::Bool(_) | Value::Number(_) => Example::Raw(value.to_string()),
            Value::String(s) => Example::String(s.clone()),
            Value::Array(items) => Example::Array(items.iter().map(Example::from_value).collect()),
            Value::Object(map) => Example::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Example::from_value(v)))
                    .collect(),
            ),
        }
    }

    pub(super) fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, indent: usize) {
        let pad = |n: usize| "  ".repeat(n);
        match self {
            Example::Null => out.push_str("null"),
            Example::Raw(text) => out.push_str(text),
            Example::String(s) => out.push_str(&Value::String(s.clone()).to_string()),
            Example::Array(items) if items.is_empty() => out.push_str("[]"),
            Example::Array(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&pad(indent + 1));
                    item.write(out, indent + 1);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(indent));
                out.push(']');
            }
            Example::Object(fields) if fields.is_empty() => out.push_str("{}"),
            Example::Object(fields) => {
                out.push_str("{\n");
                for (i, (key, value)) in fields.iter().enumerate() {
                    out.push_str(&pad(indent + 1));
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push_str(": ");
                    value.write(out, indent + 1);
                    out.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(indent));
                out.push('}');
            }
        }
    }
}

// ----------------------------------------------------------------------------------
// Text helpers

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_keep_key_order() {
        let e = Example::Object(vec![
            ("z".into(), Example::Raw("1".into())),
            (
                "a".into(),
                Example::Array(vec![Example::String("x\"".into())]),
            ),
        ]);
        assert_eq!(
            e.pretty(),
            "{\n  \"z\": 1,\n  \"a\": [\n    \"x\\\"\"\n  ]\n}"
        );
    }
}
