//! The docs page under `/api/v0/docs/` (API.md section 7): an interactive reference
//! rendered with askama from the OpenAPI document (`templates/docs/index.html`), plus
//! its stylesheet and script (`docs-assets/`), all local: no CDN, no external font.
//!
//! The page groups operations by tag and shows, for each, its parameters (type, enum,
//! default, bounds), its responses with their schemas, an example body and a form that
//! sends the request from the browser (API key remembered in `localStorage`, base URL
//! configurable, same origin by default) and shows status, headers and the formatted
//! JSON body. Everything the form needs is in the HTML (`data-` attributes), so the
//! page works on the static tree alone as well as through the shim.
//!
//! The document is read back with utoipa's own types, which keep the order of paths
//! and properties, so the page lists them as the document does.

use std::fmt::Write as _;

use anyhow::Context;
use askama::Template;
use serde_json::Value;
use utoipa::openapi::path::{Operation, Parameter, ParameterIn};
use utoipa::openapi::schema::{ArrayItems, SchemaType, Type};
use utoipa::openapi::{OpenApi, RefOr, Required, Schema};

/// The stylesheet, written beside `index.html`.
pub const CSS: &str = include_str!("../docs-assets/docs.css");
/// The script, written beside `index.html`.
pub const JS: &str = include_str!("../docs-assets/docs.js");

/// Files of the docs folder (relative path, bytes), rendered from the OpenAPI
/// document's bytes.
pub fn render(openapi: &[u8]) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let doc: OpenApi =
        serde_json::from_slice(openapi).context("reading the OpenAPI document for the docs")?;
    let page = Page::new(&doc);
    let html = page.render().context("rendering the docs page")?;
    Ok(vec![
        ("index.html".to_string(), html.into_bytes()),
        ("docs.css".to_string(), CSS.as_bytes().to_vec()),
        ("docs.js".to_string(), JS.as_bytes().to_vec()),
    ])
}

// ----------------------------------------------------------------------------------
// View model: plain strings for the template; `*_html` fields are already escaped.

#[derive(Template)]
#[template(path = "docs/index.html")]
struct Page {
    title: String,
    version: String,
    description_html: String,
    key_header: String,
    servers: Vec<ServerView>,
    tags: Vec<TagView>,
    schemas: Vec<SchemaView>,
    operation_count: usize,
}

struct ServerView {
    url: String,
    description: String,
}

struct TagView {
    name: String,
    anchor: String,
    description_html: String,
    operations: Vec<OperationView>,
}

struct OperationView {
    id: String,
    method: String,
    path: String,
    summary: String,
    description_html: String,
    params: Vec<ParamView>,
    responses: Vec<ResponseView>,
    example: String,
    curl: String,
}

struct ParamView {
    name: String,
    location: &'static str,
    required: bool,
    type_html: String,
    /// HTML.
    facts: Vec<String>,
    description_html: String,
    input: InputView,
}

/// The form control of a parameter.
struct InputView {
    id: String,
    /// `text`, `integer`, `number`, `select`, `bool` or `multi`.
    kind: &'static str,
    options: Vec<String>,
    /// Label of the empty choice of a select.
    empty_label: String,
    min: String,
    max: String,
    max_length: String,
    placeholder: String,
}

struct ResponseView {
    status: String,
    /// `s2`, `s3`, `s4`, `s5`: the status class, for colour.
    class: String,
    description_html: String,
    body_html: String,
    headers: Vec<HeaderView>,
}

struct HeaderView {
    name: String,
    description_html: String,
}

struct SchemaView {
    name: String,
    description_html: String,
    enum_values: Vec<String>,
    properties: Vec<PropertyView>,
    example: String,
}

struct PropertyView {
    name: String,
    type_html: String,
    required: bool,
    /// HTML.
    facts: Vec<String>,
    description_html: String,
}

// ----------------------------------------------------------------------------------
// Building the view model

impl Page {
    fn new(doc: &OpenApi) -> Page {
        let r = Reader { doc };
        let mut tags: Vec<TagView> = doc
            .tags
            .iter()
            .flatten()
            .map(|t| TagView {
                name: t.name.clone(),
                anchor: format!("tag-{}", slug(&t.name)),
                description_html: markdown(t.description.as_deref().unwrap_or("")),
                operations: Vec::new(),
            })
            .collect();
        let mut operation_count = 0;
        for (path, item) in &doc.paths.paths {
            let Some(op) = &item.get else { continue };
            operation_count += 1;
            let view = r.operation("GET", path, op);
            let tag = op
                .tags
                .iter()
                .flatten()
                .next()
                .cloned()
                .unwrap_or_else(|| "Other".to_string());
            let index = match tags.iter().position(|t| t.name == tag) {
                Some(i) => i,
                None => {
                    tags.push(TagView {
                        anchor: format!("tag-{}", slug(&tag)),
                        name: tag,
                        description_html: String::new(),
                        operations: Vec::new(),
                    });
                    tags.len() - 1
                }
            };
            tags[index].operations.push(view);
        }
        tags.retain(|t| !t.operations.is_empty());
        let schemas = doc
            .components
            .iter()
            .flat_map(|c| c.schemas.iter())
            .map(|(name, schema)| r.schema_view(name, schema))
            .collect();
        let key_header = doc
            .components
            .as_ref()
            .and_then(|c| c.security_schemes.values().next())
            .and_then(|s| serde_json::to_value(s).ok())
            .and_then(|v| v["name"].as_str().map(str::to_string))
            .unwrap_or_else(|| "X-API-Key".to_string());
        Page {
            title: doc.info.title.clone(),
            version: doc.info.version.clone(),
            description_html: markdown(doc.info.description.as_deref().unwrap_or("")),
            key_header,
            servers: doc
                .servers
                .iter()
                .flatten()
                .map(|s| ServerView {
                    url: server_url(s),
                    description: s.description.clone().unwrap_or_default(),
                })
                .collect(),
            tags,
            schemas,
            operation_count,
        }
    }
}

/// A server's URL with its variables set to their defaults.
fn server_url(server: &utoipa::openapi::server::Server) -> String {
    let mut url = server.url.clone();
    for (name, variable) in server.variables.iter().flatten() {
        url = url.replace(&format!("{{{name}}}"), &variable.default_value);
    }
    url
}

struct Reader<'a> {
    doc: &'a OpenApi,
}

fn ref_name(location: &str) -> &str {
    location.rsplit('/').next().unwrap_or(location)
}

fn json_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn type_name(t: &Type) -> String {
    json_text(&serde_json::to_value(t).unwrap_or(Value::Null))
}

fn schema_type_text(t: &SchemaType) -> String {
    match t {
        SchemaType::Type(t) => type_name(t),
        SchemaType::Array(ts) => ts.iter().map(type_name).collect::<Vec<_>>().join(" | "),
        SchemaType::AnyValue => "any".to_string(),
    }
}

fn is_type(t: &SchemaType, want: Type) -> bool {
    match t {
        SchemaType::Type(t) => *t == want,
        SchemaType::Array(ts) => ts.contains(&want),
        SchemaType::AnyValue => false,
    }
}

impl<'a> Reader<'a> {
    /// The schema a reference names, or the schema itself.
    fn resolve(&self, schema: &'a RefOr<Schema>) -> Option<&'a Schema> {
        match schema {
            RefOr::T(s) => Some(s),
            RefOr::Ref(r) => {
                let name = ref_name(&r.ref_location);
                match self.doc.components.as_ref()?.schemas.get(name)? {
                    RefOr::T(s) => Some(s),
                    RefOr::Ref(_) => None,
                }
            }
        }
    }

    fn array_items(items: &ArrayItems) -> Option<&RefOr<Schema>> {
        match items {
            ArrayItems::RefOrSchema(s) => Some(s),
            ArrayItems::False => None,
        }
    }

    /// Type as HTML: component names link to their schema.
    fn type_html(&self, schema: &RefOr<Schema>) -> String {
        match schema {
            RefOr::Ref(r) => {
                let name = esc(ref_name(&r.ref_location));
                format!("<a href=\"#schema-{name}\">{name}</a>")
            }
            RefOr::T(Schema::Object(o)) => {
                let mut text = esc(&schema_type_text(&o.schema_type));
                if let Some(format) = &o.format {
                    let format = json_text(&serde_json::to_value(format).unwrap_or_default());
                    let _ = write!(text, " <span class=\"format\">({})</span>", esc(&format));
                }
                text
            }
            RefOr::T(Schema::Array(a)) => match Self::array_items(&a.items) {
                Some(items) => format!("array of {}", self.type_html(items)),
                None => "array".to_string(),
            },
            RefOr::T(Schema::OneOf(one)) => self.join_types(&one.items, " | "),
            RefOr::T(Schema::AnyOf(any)) => self.join_types(&any.items, " | "),
            RefOr::T(Schema::AllOf(all)) => self.join_types(&all.items, " &amp; "),
            RefOr::T(_) => "any".to_string(),
        }
    }

    fn join_types(&self, items: &[RefOr<Schema>], separator: &str) -> String {
        items
            .iter()
            .map(|i| self.type_html(i))
            .collect::<Vec<_>>()
            .join(separator)
    }

    /// Allowed values of an enum schema (direct or referenced).
    fn enum_values(&self, schema: &'a RefOr<Schema>) -> Option<Vec<String>> {
        match self.resolve(schema)? {
            Schema::Object(o) => o
                .enum_values
                .as_ref()
                .map(|vs| vs.iter().map(json_text).collect()),
            _ => None,
        }
    }

    /// Constraints worth a line (HTML): default, allowed values, bounds, lengths.
    fn facts(&self, schema: &'a RefOr<Schema>) -> Vec<String> {
        let code = |text: String| format!("<code>{}</code>", esc(&text));
        let codes =
            |values: Vec<String>| values.into_iter().map(code).collect::<Vec<_>>().join(", ");
        let mut facts = Vec::new();
        match self.resolve(schema) {
            Some(Schema::Object(o)) => {
                if let Some(values) = self.enum_values(schema) {
                    facts.push(format!("one of: {}", codes(values)));
                }
                if let Some(d) = &o.default {
                    facts.push(format!("default: {}", code(json_text(d))));
                }
                if let Some(min) = &o.minimum {
                    facts.push(format!("minimum: {}", code(json_text(&number(min)))));
                }
                if let Some(max) = &o.maximum {
                    facts.push(format!("maximum: {}", code(json_text(&number(max)))));
                }
                if let Some(n) = o.max_length {
                    facts.push(format!("at most {n} characters"));
                }
                if let Some(example) = o.examples.first() {
                    facts.push(format!("example: {}", code(json_text(example))));
                }
            }
            Some(Schema::Array(a)) => {
                if let Some(values) = Self::array_items(&a.items).and_then(|i| self.enum_values(i))
                {
                    facts.push(format!("any of: {}", codes(values)));
                }
                if a.unique_items {
                    facts.push("values unique".to_string());
                }
            }
            _ => {}
        }
        facts
    }

    fn operation(&self, method: &str, path: &str, op: &'a Operation) -> OperationView {
        let id = op.operation_id.clone().unwrap_or_else(|| slug(path));
        let params = op
            .parameters
            .iter()
            .flatten()
            .filter_map(|p| match p {
                RefOr::T(p) => Some(self.param(&id, p)),
                RefOr::Ref(_) => None,
            })
            .collect();
        let responses = op
            .responses
            .responses
            .iter()
            .filter_map(|(status, r)| match r {
                RefOr::T(r) => Some(ResponseView {
                    status: status.clone(),
                    class: format!("s{}", &status[..1.min(status.len())]),
                    description_html: markdown_inline(&r.description),
                    body_html: r
                        .content
                        .values()
                        .next()
                        .and_then(|c| match c {
                            RefOr::T(c) => c.schema.as_ref(),
                            RefOr::Ref(_) => None,
                        })
                        .map(|s| self.type_html(s))
                        .unwrap_or_else(|| "none".to_string()),
                    headers: r
                        .headers
                        .iter()
                        .map(|(name, h)| HeaderView {
                            name: name.clone(),
                            description_html: match h {
                                RefOr::T(h) => {
                                    markdown_inline(h.description.as_deref().unwrap_or(""))
                                }
                                RefOr::Ref(_) => String::new(),
                            },
                        })
                        .collect(),
                }),
                RefOr::Ref(_) => None,
            })
            .collect();
        let example = op
            .responses
            .responses
            .get("200")
            .and_then(|r| match r {
                RefOr::T(r) => r.content.values().next(),
                RefOr::Ref(_) => None,
            })
            .and_then(|c| match c {
                RefOr::T(c) => c.schema.as_ref(),
                RefOr::Ref(_) => None,
            })
            .map(|s| self.example(s, "", 0).pretty())
            .unwrap_or_default();
        let base = self
            .doc
            .servers
            .iter()
            .flatten()
            .next()
            .map(server_url)
            .unwrap_or_default();
        OperationView {
            curl: format!("curl -H \"X-API-Key: $API_KEY\" \"{base}{path}\""),
            id,
            method: method.to_string(),
            path: path.to_string(),
            summary: op.summary.clone().unwrap_or_default(),
            description_html: markdown(op.description.as_deref().unwrap_or("")),
            params,
            responses,
            example,
        }
    }

    fn param(&self, operation_id: &str, p: &'a Parameter) -> ParamView {
        let location = match p.parameter_in {
            ParameterIn::Path => "path",
            ParameterIn::Query => "query",
            ParameterIn::Header => "header",
            ParameterIn::Cookie => "cookie",
            ParameterIn::QueryString => "querystring",
        };
        let required = matches!(p.required, Required::True);
        let (type_html, facts, input) = match &p.schema {
            Some(schema) => {
                let mut facts = self.facts(schema);
                if p.explode == Some(true) {
                    facts.push(format!(
                        "repeat it: <code>?{0}=a&amp;{0}=b</code>",
                        esc(&p.name)
                    ));
                }
                (
                    self.type_html(schema),
                    facts,
                    self.input(operation_id, &p.name, schema),
                )
            }
            None => (
                "string".to_string(),
                Vec::new(),
                self.input_text(operation_id, &p.name),
            ),
        };
        ParamView {
            name: p.name.clone(),
            location,
            required,
            type_html,
            facts,
            description_html: markdown_inline(p.description.as_deref().unwrap_or("")),
            input,
        }
    }

    fn input_text(&self, operation_id: &str, name: &str) -> InputView {
        InputView {
            id: format!("{operation_id}--{name}"),
            kind: "text",
            options: Vec::new(),
            empty_label: String::new(),
            min: String::new(),
            max: String::new(),
            max_length: String::new(),
            placeholder: String::new(),
        }
    }

    fn input(&self, operation_id: &str, name: &str, schema: &'a RefOr<Schema>) -> InputView {
        let mut input = self.input_text(operation_id, name);
        match self.resolve(schema) {
            Some(Schema::Array(a)) => {
                if let Some(values) = Self::array_items(&a.items).and_then(|i| self.enum_values(i))
                {
                    input.kind = "multi";
                    input.options = values;
                }
            }
            Some(Schema::Object(o)) => {
                let default = o.default.as_ref().map(json_text);
                if let Some(values) = self.enum_values(schema) {
                    input.kind = "select";
                    input.options = values;
                    input.empty_label = match &default {
                        Some(d) => format!("(default: {d})"),
                        None => "(any)".to_string(),
                    };
                } else if is_type(&o.schema_type, Type::Boolean) {
                    input.kind = "bool";
                    input.options = vec!["true".to_string(), "false".to_string()];
                    input.empty_label = match &default {
                        Some(d) => format!("(default: {d})"),
                        None => "(any)".to_string(),
                    };
                } else if is_type(&o.schema_type, Type::Integer) {
                    input.kind = "integer";
                    input.min = o
                        .minimum
                        .as_ref()
                        .map(|n| json_text(&number(n)))
                        .unwrap_or_default();
                    input.max = o
                        .maximum
                        .as_ref()
                        .map(|n| json_text(&number(n)))
                        .unwrap_or_default();
                    input.placeholder = default.unwrap_or_default();
                } else if is_type(&o.schema_type, Type::Number) {
                    input.kind = "number";
                } else {
                    input.max_length = o.max_length.map(|n| n.to_string()).unwrap_or_default();
                    input.placeholder = o.examples.first().map(json_text).unwrap_or_default();
                }
            }
            _ => {}
        }
        input
    }

    fn schema_view(&self, name: &str, schema: &'a RefOr<Schema>) -> SchemaView {
        let mut view = SchemaView {
            name: name.to_string(),
            description_html: String::new(),
            enum_values: Vec::new(),
            properties: Vec::new(),
            example: String::new(),
        };
        if let Some(Schema::Object(o)) = self.resolve(schema) {
            view.description_html = markdown(o.description.as_deref().unwrap_or(""));
            if let Some(values) = self.enum_values(schema) {
                view.enum_values = values;
                return view;
            }
            view.properties = o
                .properties
                .iter()
                .map(|(prop, s)| PropertyView {
                    name: prop.clone(),
                    type_html: self.type_html(s),
                    required: o.required.contains(prop),
                    facts: match s {
                        // Constraints of a referenced component are on its own entry.
                        RefOr::Ref(_) => Vec::new(),
                        RefOr::T(_) => self.facts(s),
                    },
                    description_html: match s {
                        RefOr::T(Schema::Object(p)) => {
                            markdown_inline(p.description.as_deref().unwrap_or(""))
                        }
                        RefOr::T(Schema::Array(a)) => {
                            markdown_inline(a.description.as_deref().unwrap_or(""))
                        }
                        _ => String::new(),
                    },
                })
                .collect();
            view.example = self.example(schema, name, 0).pretty();
        }
        view
    }

    /// An example value of a schema: its own example if it has one, otherwise one
    /// made from types, formats, enums and bounds.
    fn example(&self, schema: &'a RefOr<Schema>, hint: &str, depth: usize) -> Example {
        if depth > 8 {
            return Example::Null;
        }
        let Some(resolved) = self.resolve(schema) else {
            return Example::Null;
        };
        match resolved {
            Schema::Object(o) => {
                if let Some(e) = o.example.as_ref().or(o.examples.first()) {
                    return Example::from_value(e);
                }
                if let Some(values) = &o.enum_values {
                    return values
                        .first()
                        .map(Example::from_value)
                        .unwrap_or(Example::Null);
                }
                if !o.properties.is_empty() || is_type(&o.schema_type, Type::Object) {
                    return Example::Object(
                        o.properties
                            .iter()
                            .map(|(k, s)| (k.clone(), self.example(s, k, depth + 1)))
                            .collect(),
                    );
                }
                let format = o
                    .format
                    .as_ref()
                    .and_then(|f| serde_json::to_value(f).ok())
                    .map(|v| json_text(&v))
                    .unwrap_or_default();
                if is_type(&o.schema_type, Type::String) {
                    Example::String(string_example(hint, &format))
                } else if is_type(&o.schema_type, Type::Integer) {
                    let min = o.minimum.as_ref().map(|n| json_text(&number(n)));
                    Example::Raw(min.unwrap_or_else(|| "1".to_string()))
                } else if is_type(&o.schema_type, Type::Number) {
                    Example::Raw(
                        match hint {
                            "latitude" => "51.5072",
                            "longitude" => "-0.1276",
                            _ => "1.5",
                        }
                        .to_string(),
                    )
                } else if is_type(&o.schema_type, Type::Boolean) {
                    Example::Raw("false".to_string())
                } else {
                    Example::Null
                }
            }
            Schema::Array(a) => match Self::array_items(&a.items) {
                Some(items) => Example::Array(vec![self.example(items, hint, depth + 1)]),
                None => Example::Array(Vec::new()),
            },
            Schema::OneOf(one) => one
                .items
                .first()
                .map(|s| self.example(s, hint, depth + 1))
                .unwrap_or(Example::Null),
            Schema::AnyOf(any) => any
                .items
                .first()
                .map(|s| self.example(s, hint, depth + 1))
                .unwrap_or(Example::Null),
            Schema::AllOf(all) => {
                let mut fields = Vec::new();
                for part in &all.items {
                    if let Example::Object(more) = self.example(part, hint, depth + 1) {
                        fields.extend(more);
                    }
                }
                Example::Object(fields)
            }
            _ => Example::Null,
        }
    }
}

fn number(n: &utoipa::Number) -> Value {
    serde_json::to_value(n).unwrap_or(Value::Null)
}

fn string_example(hint: &str, format: &str) -> String {
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
enum Example {
    Null,
    /// A number or boolean, as JSON text.
    Raw(String),
    String(String),
    Array(Vec<Example>),
    Object(Vec<(String, Example)>),
}

impl Example {
    fn from_value(value: &Value) -> Example {
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

    fn pretty(&self) -> String {
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

/// HTML-escapes text.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An anchor-safe name: lower-case letters, digits and dashes.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// The small Markdown subset the document's descriptions use, as HTML: paragraphs
/// (blank lines), `code` and **strong**. Everything else is escaped text.
fn markdown(text: &str) -> String {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| format!("<p>{}</p>", markdown_inline(p)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn markdown_inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let code = rest.find('`');
        let strong = rest.find("**");
        match (code, strong) {
            (Some(c), s) if s.is_none_or(|s| c < s) => {
                let after = &rest[c + 1..];
                match after.find('`') {
                    Some(end) => {
                        out.push_str(&esc(&rest[..c]));
                        let _ = write!(out, "<code>{}</code>", esc(&after[..end]));
                        rest = &after[end + 1..];
                    }
                    None => {
                        out.push_str(&esc(rest));
                        rest = "";
                    }
                }
            }
            (_, Some(s)) => {
                let after = &rest[s + 2..];
                match after.find("**") {
                    Some(end) => {
                        out.push_str(&esc(&rest[..s]));
                        let _ = write!(out, "<strong>{}</strong>", markdown_inline(&after[..end]));
                        rest = &after[end + 2..];
                    }
                    None => {
                        out.push_str(&esc(rest));
                        rest = "";
                    }
                }
            }
            _ => {
                out.push_str(&esc(rest));
                rest = "";
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escapes_and_marks_code_and_strong() {
        assert_eq!(
            markdown("**Lists** take `page` <b>\n\nsecond"),
            "<p><strong>Lists</strong> take <code>page</code> &lt;b&gt;</p>\n<p>second</p>"
        );
        assert_eq!(
            markdown_inline("a `<x>` b ` c"),
            "a <code>&lt;x&gt;</code> b ` c"
        );
        assert_eq!(slug("Code Hosting"), "code-hosting");
    }

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
