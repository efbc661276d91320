//! Queries: parsing and validating a list's query string into a [`ListQuery`], its
//! canonical form (the tree's file names), the SQL conditions and `ORDER BY` it
//! stands for, and the canonical ids of a detail path.

use std::fmt::Write as _;

use rusqlite::types::Value;
use serde::Serialize;

use super::spec::{DetailSpec, IdRule, ListSpec, Param, ParamKind, PAGE_MAX, PAGE_SIZE};
use crate::search::{self, Cmp, Term};
use crate::store::lc;
use crate::vocab::Vocab;

/// A validation error of one query parameter (one entry of a 400 body's `errors`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldError {
    pub param: String,
    pub msg: String,
    pub kind: &'static str,
}

/// The value of one filter, canonicalised.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterValue {
    /// Text (lower-cased for case-insensitive filters), exact text or a choice.
    One(String),
    /// Repeatable choice: sorted, de-duplicated.
    Many(Vec<String>),
    Bool(bool),
    Float(f64),
    Search {
        raw: String,
        terms: Vec<Term>,
    },
}

/// The chosen ordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderChoice {
    pub field: usize,
    pub desc: bool,
}

/// A validated list query.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    pub page: u64,
    pub page_size: u64,
    pub ordering: Option<OrderChoice>,
    /// (index into the spec's params, value), in the spec's parameter order.
    pub filters: Vec<(usize, FilterValue)>,
}

impl Default for ListQuery {
    fn default() -> Self {
        ListQuery {
            page: 1,
            page_size: PAGE_SIZE,
            ordering: None,
            filters: Vec::new(),
        }
    }
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// Allowed `ordering` values of a list, as clients write them.
pub fn ordering_values(spec: &ListSpec) -> Vec<String> {
    spec.orderings
        .iter()
        .flat_map(|o| [o.name.to_string(), format!("-{}", o.name)])
        .collect()
}

/// Parses and validates the query string pairs of a list request. Unknown parameters
/// are ignored, an empty value counts as absent, and a repeated single-valued
/// parameter takes its last value. Every invalid parameter is reported, not only the
/// first.
pub fn parse_query(
    spec: &ListSpec,
    pairs: &[(String, String)],
) -> Result<ListQuery, Vec<FieldError>> {
    let mut errors = Vec::new();
    let mut q = ListQuery::default();
    let last = |name: &str| -> Option<&str> {
        pairs
            .iter()
            .rev()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    };
    let mut keep = |result: Result<(), FieldError>| {
        if let Err(e) = result {
            errors.push(e);
        }
    };
    if let Some(v) = last("page") {
        keep(page(v).map(|p| q.page = p));
    }
    if let Some(v) = last("page_size") {
        keep(page_size(v).map(|p| q.page_size = p));
    }
    if let Some(v) = last("ordering") {
        keep(ordering(spec, v).map(|o| q.ordering = Some(o)));
    }
    for (index, p) in spec.params.iter().enumerate() {
        let value = match p.kind {
            ParamKind::Choices(allowed) => {
                let given = pairs.iter().filter(|(k, v)| k == p.name && !v.is_empty());
                choices(p, allowed, given.map(|(_, v)| v.as_str()), &mut errors)
            }
            _ => match last(p.name).map(|v| filter(p, v)) {
                Some(Ok(value)) => value,
                Some(Err(e)) => {
                    errors.push(e);
                    None
                }
                None => None,
            },
        };
        if let Some(value) = value {
            q.filters.push((index, value));
        }
    }
    if errors.is_empty() {
        Ok(q)
    } else {
        Err(errors)
    }
}

fn field_error(param: &str, msg: String, kind: &'static str) -> FieldError {
    FieldError {
        param: param.to_string(),
        msg,
        kind,
    }
}

/// Where a query value falls against an integer range.
enum Bound {
    Within(u64),
    /// An integer below the minimum, however small (`-1`, `-99999999999999999999`).
    Below,
    /// An integer above the maximum, however large (past 64 bits too).
    Above,
    /// Not an integer: a sign and decimal digits, nothing else.
    NotInteger,
}

/// Reads `v` as an integer and places it against `min..=max`: a bound broken is a
/// bound broken whatever the integer's size; only a value that is no integer is a
/// parsing error.
fn bounded(v: &str, min: u64, max: u64) -> Bound {
    let (negative, digits) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Bound::NotInteger;
    }
    if negative && digits.bytes().any(|b| b != b'0') {
        return Bound::Below;
    }
    match digits.parse::<u64>() {
        Ok(n) if n < min => Bound::Below,
        Ok(n) if n > max => Bound::Above,
        Ok(n) => Bound::Within(n),
        // Decimal digits only: an integer too large for 64 bits.
        Err(_) => Bound::Above,
    }
}

/// `page`: from 1 to [`PAGE_MAX`].
fn page(v: &str) -> Result<u64, FieldError> {
    let (msg, kind) = match bounded(v, 1, PAGE_MAX) {
        Bound::Within(p) => return Ok(p),
        Bound::Below => ("of at least 1".to_string(), "greater_than_equal"),
        Bound::Above => (format!("from 1 to {PAGE_MAX}"), "less_than_equal"),
        Bound::NotInteger => ("of at least 1".to_string(), "int_parsing"),
    };
    Err(field_error(
        "page",
        format!("page must be an integer {msg}; got '{v}'"),
        kind,
    ))
}

/// `page_size`: from 1 to [`PAGE_SIZE`].
fn page_size(v: &str) -> Result<u64, FieldError> {
    let kind = match bounded(v, 1, PAGE_SIZE) {
        Bound::Within(p) => return Ok(p),
        Bound::Below => "greater_than_equal",
        Bound::Above => "less_than_equal",
        Bound::NotInteger => "int_parsing",
    };
    Err(field_error(
        "page_size",
        format!("page_size must be an integer from 1 to {PAGE_SIZE}; got '{v}'"),
        kind,
    ))
}

/// `ordering`: one of the list's fields, `-` first for descending.
fn ordering(spec: &ListSpec, v: &str) -> Result<OrderChoice, FieldError> {
    let (desc, name) = match v.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, v),
    };
    match spec.orderings.iter().position(|o| o.name == name) {
        Some(field) => Ok(OrderChoice { field, desc }),
        None => Err(field_error(
            "ordering",
            format!(
                "ordering must be one of {}; got '{v}'",
                ordering_values(spec).join(", ")
            ),
            "enum",
        )),
    }
}

/// "NAME must be one of …" for a value outside a vocabulary.
fn not_in(p: &Param, allowed: &Vocab, v: &str) -> FieldError {
    field_error(
        p.name,
        format!(
            "{} must be one of {}; got '{v}'",
            p.name,
            allowed.values.join(", ")
        ),
        "enum",
    )
}

/// A repeatable filter: every value given, each checked, sorted and without repeats;
/// `None` when no valid value is left.
fn choices<'a>(
    p: &Param,
    allowed: &Vocab,
    given: impl Iterator<Item = &'a str>,
    errors: &mut Vec<FieldError>,
) -> Option<FilterValue> {
    let mut values: Vec<String> = Vec::new();
    for v in given {
        if allowed.contains(v) {
            values.push(v.to_string());
        } else {
            errors.push(not_in(p, allowed, v));
        }
    }
    values.sort();
    values.dedup();
    (!values.is_empty()).then_some(FilterValue::Many(values))
}

/// A single-valued filter's value, by its kind; `Ok(None)` when the value filters
/// nothing (`is_upcoming=false`, an empty search).
fn filter(p: &Param, v: &str) -> Result<Option<FilterValue>, FieldError> {
    Ok(Some(match p.kind {
        ParamKind::Text => FilterValue::One(lc(v)),
        ParamKind::Exact => FilterValue::One(v.to_string()),
        ParamKind::Choice(allowed) if allowed.contains(v) => FilterValue::One(v.to_string()),
        ParamKind::Choice(allowed) => return Err(not_in(p, allowed, v)),
        ParamKind::Bool | ParamKind::Upcoming => match parse_bool(v) {
            Some(false) if p.kind == ParamKind::Upcoming => return Ok(None),
            Some(b) => FilterValue::Bool(b),
            None => {
                return Err(field_error(
                    p.name,
                    format!(
                        "{} must be a boolean (true, false, 1 or 0); got '{v}'",
                        p.name
                    ),
                    "bool_parsing",
                ))
            }
        },
        ParamKind::Gte | ParamKind::Lte => match v.parse::<f64>() {
            Ok(f) if f.is_finite() => FilterValue::Float(f),
            _ => {
                return Err(field_error(
                    p.name,
                    format!("{} must be a number; got '{v}'", p.name),
                    "float_parsing",
                ))
            }
        },
        ParamKind::Search => match search::parse(v) {
            Ok(terms) if terms.is_empty() => return Ok(None),
            Ok(terms) => FilterValue::Search {
                raw: v.to_string(),
                terms,
            },
            Err(e) => {
                return Err(field_error(
                    p.name,
                    format!("q: {}", e.message),
                    "value_error",
                ))
            }
        },
        ParamKind::Choices(_) => unreachable!("repeatable filters are read by `choices`"),
    }))
}

/// Percent-encoding of canonical names and values: only `A-Z a-z 0-9 - . _ ~` stay.
pub const COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

pub fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, COMPONENT).to_string()
}

fn format_float(f: f64) -> String {
    let text = format!("{f}");
    if text == "-0" {
        "0".to_string()
    } else {
        text
    }
}

impl ListQuery {
    /// Whether the tree may hold this query's answer (the generator renders only
    /// page size 100, no search, no coordinate range and no time-dependent filter).
    pub fn prerenderable(&self, spec: &ListSpec) -> bool {
        self.page_size == PAGE_SIZE
            && self.filters.iter().all(|(i, _)| {
                !matches!(
                    spec.params[*i].kind,
                    ParamKind::Search | ParamKind::Gte | ParamKind::Lte | ParamKind::Upcoming
                )
            })
    }

    pub(super) fn upcoming(&self, spec: &ListSpec) -> bool {
        self.filters.iter().any(|(i, v)| {
            spec.params[*i].kind == ParamKind::Upcoming && *v == FilterValue::Bool(true)
        })
    }

    /// The canonical query string (docs/architecture.md, the file tree contract): defaults
    /// dropped, values canonical, parameters sorted by name (then value), names and
    /// values percent-encoded, joined with `&`. Empty for the default query.
    pub fn canonical(&self, spec: &ListSpec) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        for (i, value) in &self.filters {
            let name = spec.params[*i].name;
            match value {
                FilterValue::One(v) => pairs.push((name, v.clone())),
                FilterValue::Many(vs) => pairs.extend(vs.iter().map(|v| (name, v.clone()))),
                FilterValue::Bool(b) => pairs.push((name, b.to_string())),
                FilterValue::Float(f) => pairs.push((name, format_float(*f))),
                FilterValue::Search { raw, .. } => pairs.push((name, raw.clone())),
            }
        }
        if let Some(o) = self.ordering {
            let name = spec.orderings[o.field].name;
            pairs.push((
                "ordering",
                if o.desc {
                    format!("-{name}")
                } else {
                    name.to_string()
                },
            ));
        }
        if self.page != 1 {
            pairs.push(("page", self.page.to_string()));
        }
        if self.page_size != PAGE_SIZE {
            pairs.push(("page_size", self.page_size.to_string()));
        }
        pairs.sort();
        let mut out = String::new();
        for (name, value) in pairs {
            if !out.is_empty() {
                out.push('&');
            }
            let _ = write!(out, "{}={}", encode(name), encode(&value));
        }
        out
    }

    /// SQL `WHERE` (without the base condition) and its parameters.
    pub(super) fn conditions(
        &self,
        spec: &ListSpec,
        today: &str,
        sql: &mut String,
        args: &mut Vec<Value>,
    ) {
        for (i, value) in &self.filters {
            let p = &spec.params[*i];
            match (p.kind, value) {
                (ParamKind::Upcoming, FilterValue::Bool(true)) => {
                    let _ = write!(sql, " AND {} >= ?", p.expr);
                    args.push(Value::Text(today.to_string()));
                }
                (ParamKind::Upcoming, _) => {}
                (ParamKind::Gte, FilterValue::Float(f)) => {
                    let _ = write!(sql, " AND {} >= ?", p.expr);
                    args.push(Value::Real(*f));
                }
                (ParamKind::Lte, FilterValue::Float(f)) => {
                    let _ = write!(sql, " AND {} <= ?", p.expr);
                    args.push(Value::Real(*f));
                }
                (_, FilterValue::Many(values)) => {
                    let marks = vec!["?"; values.len()].join(", ");
                    let _ = write!(sql, " AND {} IN ({marks})", p.expr);
                    args.extend(values.iter().map(|v| Value::Text(v.clone())));
                }
                (_, FilterValue::Search { terms, .. }) => {
                    for term in terms {
                        match term {
                            Term::NameContains(text) => {
                                let _ = write!(sql, " AND instr({}, ?) > 0", p.expr);
                                args.push(Value::Text(text.clone()));
                            }
                            Term::Stars(cmp, n) => {
                                let op = match cmp {
                                    Cmp::Eq => "=",
                                    Cmp::Gt => ">",
                                    Cmp::Lt => "<",
                                    Cmp::Ge => ">=",
                                    Cmp::Le => "<=",
                                };
                                let _ = write!(sql, " AND t.stars {op} ?");
                                args.push(Value::Integer(*n));
                            }
                        }
                    }
                }
                (_, FilterValue::One(v)) => {
                    let _ = write!(sql, " AND {} = ?", p.expr);
                    args.push(Value::Text(v.clone()));
                }
                (_, FilterValue::Bool(b)) => {
                    let _ = write!(sql, " AND {} = ?", p.expr);
                    args.push(Value::Text(b.to_string()));
                }
                (_, FilterValue::Float(_)) => {}
            }
        }
    }
}

/// `ORDER BY` of a list for an ordering choice (or the default), ending with the id.
pub fn order_sql(spec: &ListSpec, ordering: Option<OrderChoice>, upcoming: bool) -> String {
    let rules = spec.upcoming.as_ref().filter(|_| upcoming);
    let mut parts: Vec<String> = Vec::new();
    match ordering {
        None => {
            let default = rules.map_or(spec.default_order, |r| r.default_order);
            if !default.is_empty() {
                parts.push(default.to_string());
            }
        }
        Some(choice) => {
            let field = &spec.orderings[choice.field];
            let dir = if choice.desc { "DESC" } else { "ASC" };
            if field.nullable {
                parts.push(format!("{} IS NULL", field.keys[0]));
            }
            for key in field.keys {
                parts.push(format!("{key} {dir}"));
            }
            let tie = rules.map_or(field.tie, |r| r.tie);
            if !tie.is_empty() {
                parts.push(tie.to_string());
            }
        }
    }
    parts.push("t.id".to_string());
    parts.join(", ")
}

/// Canonical ids of a detail request from its decoded path segments; `None` when a
/// segment cannot be an id (a non-integer number): an unknown path.
pub fn canonical_ids(spec: &DetailSpec, segments: &[String]) -> Option<Vec<String>> {
    if segments.len() != spec.ids.len() {
        return None;
    }
    spec.ids
        .iter()
        .zip(segments)
        .map(|(rule, seg)| match rule {
            IdRule::Prefixed(prefix) => {
                let lower = lc(seg);
                let part = lower.strip_prefix(prefix).unwrap_or(&lower).to_string();
                (!part.is_empty()).then_some(part)
            }
            IdRule::Ci => Some(lc(seg)),
            IdRule::Exact => Some(seg.clone()),
            IdRule::Number => seg
                .parse::<u64>()
                .ok()
                .filter(|n| *n <= i64::MAX as u64)
                .map(|n| n.to_string()),
        })
        .collect()
}
