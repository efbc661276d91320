//! Example answers for the docs page, per operation and status, as roost really sends
//! them: 200 is a file of a generated tree (for a list, its first page with the items
//! cut to [`LIST_ITEMS`], the totals kept); 400, 401, 404 and 429 are the bodies the
//! shim answers, made by the same code ([`crate::rest_errors`]) for a real request:
//! `page=0`, no key, a record that does not exist or the page after the last, the
//! rate limit.
//!
//! The request of each example names real records: path parameters are the first
//! records of the tree (sorted by file name), so the page can also offer them as the
//! try-it form's placeholders.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::catalog::AnswerError;
use crate::rest_errors;
use crate::tree::{self, Target};

/// Items a list example keeps.
pub const LIST_ITEMS: usize = 2;

/// Examples of every operation found in a tree.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    by_operation: HashMap<String, OperationSamples>,
}

/// The examples of one operation.
#[derive(Debug, Clone)]
pub struct OperationSamples {
    /// Path parameter values (name, value as a URL segment).
    pub params: Vec<(String, String)>,
    pub examples: Vec<Sample>,
}

/// One example: the request (path and query) and the answer's status and JSON body.
#[derive(Debug, Clone)]
pub struct Sample {
    pub status: u16,
    pub request: String,
    pub body: Value,
    /// The body as the API writes it (its keys in its order), indented.
    pub text: String,
    /// What was left out, when the body was shortened.
    pub note: String,
}

impl Samples {
    pub fn get(&self, operation_id: &str) -> Option<&OperationSamples> {
        self.by_operation.get(operation_id)
    }

    pub fn is_empty(&self) -> bool {
        self.by_operation.is_empty()
    }

    /// Reads the examples of the operations (`(operation id, path template)`) from the
    /// tree at `site` (the folder holding `api/v0/`). An operation whose records the
    /// tree lacks gets none.
    pub fn from_tree(site: &Path, operations: &[(String, String)]) -> Samples {
        Self::from_listed_tree(site, operations, &|rel, file| {
            first_entry(read_folder(&site.join(rel))?, file)
        })
    }

    /// As [`Samples::from_tree`], with the first record of each folder the tree's
    /// examples name found by `first` (the folder relative to `site`, and whether a
    /// record file rather than a sub-folder is wanted; see [`first_entry`]) instead
    /// of by reading the folder: a caller that holds the tree's listing in memory
    /// spares reading folders of hundreds of thousands of files.
    pub fn from_listed_tree(
        site: &Path,
        operations: &[(String, String)],
        first: &dyn Fn(&Path, bool) -> Option<String>,
    ) -> Samples {
        let by_operation = operations
            .iter()
            .filter_map(|(id, template)| {
                Some((id.clone(), operation_samples(site, template, first)?))
            })
            .collect();
        Samples { by_operation }
    }
}

fn operation_samples(
    site: &Path,
    template: &str,
    first: &dyn Fn(&Path, bool) -> Option<String>,
) -> Option<OperationSamples> {
    let (path, params) = concrete_path(template, first)?;
    let rel = tree::file_for_request(&path, None)?;
    let bytes = read_tree_file(&site.join(&rel))?;
    let mut body: Value = serde_json::from_slice(&bytes).ok()?;
    let mut text = indent_json(&bytes);
    let target = tree::route(&tree::split_path(&path)?);
    let mut examples = Vec::new();
    let mut note = String::new();
    if let Target::List { .. } = target {
        if let Some(items) = body["items"].as_array_mut() {
            if items.len() > LIST_ITEMS {
                note = format!("{} of the page's {} items shown", LIST_ITEMS, items.len());
                items.truncate(LIST_ITEMS);
                text = indent_json(body.to_string().as_bytes());
            }
        }
    }
    let total_pages = body["total_pages"].as_u64().unwrap_or(1);
    examples.push(Sample {
        status: 200,
        request: path.clone(),
        body,
        text,
        note,
    });
    examples.push(unauthorized(&path));
    match target {
        Target::List { spec, .. } => {
            if let Err(errors) = tree::list_query(spec, Some("page=0")) {
                examples.push(sample(
                    400,
                    format!("{path}?page=0"),
                    &rest_errors::invalid(errors),
                ));
            }
            let page = total_pages + 1;
            let text = AnswerError::PageNotFound { page, total_pages }.to_string();
            examples.push(sample(
                404,
                format!("{path}?page={page}"),
                &rest_errors::detail(&text),
            ));
        }
        Target::Detail { spec, .. } => {
            let missing = match path.rsplit_once('/') {
                Some((parent, _)) => format!("{parent}/no-such-{}", spec.singular.to_lowercase()),
                None => path.clone(),
            };
            examples.push(sample(
                404,
                missing,
                &rest_errors::record_not_found(spec.singular),
            ));
        }
        _ => return None,
    }
    examples.push(sample(
        429,
        path,
        &rest_errors::detail(rest_errors::TOO_MANY_REQUESTS),
    ));
    examples.sort_by_key(|s| s.status);
    Some(OperationSamples { params, examples })
}

/// An example of an error answer: the body the shim sends.
fn sample(status: u16, request: String, body: &impl Serialize) -> Sample {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    Sample {
        status,
        request,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        text: indent_json(&bytes),
        note: String::new(),
    }
}

/// The 401 of a request without a key.
fn unauthorized(path: &str) -> Sample {
    sample(
        401,
        path.to_string(),
        &rest_errors::detail(rest_errors::UNAUTHORIZED),
    )
}

/// Compact JSON text indented by two spaces, keys kept in their order (serde_json's
/// map would sort them). Text that is not compact JSON comes out re-spaced the same.
fn indent_json(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// A request path for the template with its parameters set to the first records of
/// the tree, and those values.
fn concrete_path(
    template: &str,
    first: &dyn Fn(&Path, bool) -> Option<String>,
) -> Option<(String, Vec<(String, String)>)> {
    let mut dir = std::path::PathBuf::new();
    let mut path = String::new();
    let mut params = Vec::new();
    let segments: Vec<&str> = template.trim_start_matches('/').split('/').collect();
    for (i, segment) in segments.iter().enumerate() {
        path.push('/');
        let last = i + 1 == segments.len();
        let value = match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(name) => {
                let value = first(&dir, last)?;
                params.push((name.to_string(), value.clone()));
                value
            }
            None => segment.to_string(),
        };
        if !value.is_empty() {
            dir.push(&value);
        }
        path.push_str(&value);
    }
    Some((path, params))
}

/// The names in a tree folder, each with whether it is a folder; `None` when it
/// cannot be read.
fn read_folder(dir: &Path) -> Option<Vec<(String, bool)>> {
    Some(
        std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| {
                let e = e.ok()?;
                let is_dir = e.file_type().ok()?.is_dir();
                Some((e.file_name().into_string().ok()?, is_dir))
            })
            .collect(),
    )
}

/// The first (by name) record among the names of a tree folder (each with whether
/// it is a folder): a sub-folder, or for the last segment (`file`) a record file
/// (`<id>.json`, not a list page `index*.json`).
pub fn first_entry<S: AsRef<str>>(
    names: impl IntoIterator<Item = (S, bool)>,
    file: bool,
) -> Option<String> {
    let mut first: Option<String> = None;
    for (name, is_dir) in names {
        let name = name.as_ref();
        let record = if file {
            let Some(stem) = name
                .strip_suffix(".json.gz")
                .or_else(|| name.strip_suffix(".json"))
            else {
                continue;
            };
            (!is_dir && !stem.starts_with("index")).then_some(stem)
        } else {
            is_dir.then_some(name)
        };
        if let Some(record) = record {
            if first.as_deref().is_none_or(|f| record < f) {
                first = Some(record.to_string());
            }
        }
    }
    first
}

/// A tree file's bytes, from the file or its gzip sibling.
fn read_tree_file(path: &Path) -> Option<Vec<u8>> {
    if let Ok(bytes) = std::fs::read(path) {
        return Some(bytes);
    }
    let mut gz = path.as_os_str().to_owned();
    gz.push(".gz");
    let file = std::fs::File::open(gz).ok()?;
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indenting_keeps_key_order_and_strings() {
        let text = indent_json(br#"{"z":1,"a":[],"s":"a,b:{\"c\"}","o":{"k":[true,null]}}"#);
        assert_eq!(
            text,
            "{\n  \"z\": 1,\n  \"a\": [],\n  \"s\": \"a,b:{\\\"c\\\"}\",\n  \"o\": {\n    \"k\": [\n      true,\n      null\n    ]\n  }\n}"
        );
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["s"], "a,b:{\"c\"}");
    }
}
