//! Reading the OpenAPI document into the docs page's view model: operations grouped
//! by tag, parameters with their types, constraints and form controls, responses with
//! their schemas and headers, component schemas with their properties, and example
//! bodies. The document is read with utoipa's own types, which keep the order of paths
//! and properties, so the page lists them as the document does.

use std::fmt::Write as _;

use serde_json::Value;
use utoipa::openapi::path::{Operation, Parameter, ParameterIn};
use utoipa::openapi::schema::{ArrayItems, SchemaFormat, SchemaType, Type};
use utoipa::openapi::security::{ApiKey, SecurityScheme};
use utoipa::openapi::{OpenApi, RefOr, Required, Schema};

use super::example::{string_example, Example};
use super::markdown::{esc, markdown, markdown_inline};
use super::samples::Samples;
use super::view::{
    ExampleView, HeaderView, InputView, OperationView, Page, ParamView, PropertyView, ResponseView,
    SchemaView, ServerView, TagView,
};

impl Page {
    /// The view model of the whole page. Fails only if a schema format cannot be
    /// written back as JSON.
    pub(super) fn new(doc: &OpenApi, samples: &Samples) -> Result<Page, serde_json::Error> {
        let r = Reader { doc, samples };
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
            let tag = op
                .tags
                .iter()
                .flatten()
                .next()
                .cloned()
                .unwrap_or_else(|| "Other".to_string());
            let mut view = r.operation("GET", path, op)?;
            view.search = format!("{} {}", view.search, tag.to_lowercase());
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
            .collect::<Result<_, _>>()?;
        let key_header = doc
            .components
            .as_ref()
            .and_then(|c| c.security_schemes.values().next())
            .and_then(|s| match s {
                RefOr::T(SecurityScheme::ApiKey(
                    ApiKey::Header(k) | ApiKey::Query(k) | ApiKey::Cookie(k),
                )) => Some(k.name.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "X-API-Key".to_string());
        Ok(Page {
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
        })
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
    samples: &'a Samples,
}

/// The base URL of curl commands in the page as written (the script puts the page's
/// own origin, or the base URL chosen, in its place): the first server of the
/// document with an absolute URL.
fn curl_base(doc: &OpenApi) -> String {
    doc.servers
        .iter()
        .flatten()
        .map(server_url)
        .find(|url| url.starts_with("http://") || url.starts_with("https://"))
        .unwrap_or_else(|| "http://127.0.0.1:8000".to_string())
        .trim_end_matches('/')
        .to_string()
}

/// The words of a text the search matches, lower-case.
fn search_text<'s>(parts: impl IntoIterator<Item = &'s str>) -> String {
    parts
        .into_iter()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
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
    match t {
        Type::Object => "object",
        Type::String => "string",
        Type::Integer => "integer",
        Type::Number => "number",
        Type::Boolean => "boolean",
        Type::Array => "array",
        Type::Null => "null",
    }
    .to_string()
}

/// A schema format as the document writes it (`date-time`, `int64`, a custom name).
fn format_text(format: &SchemaFormat) -> Result<String, serde_json::Error> {
    Ok(json_text(&serde_json::to_value(format)?))
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
    fn type_html(&self, schema: &RefOr<Schema>) -> Result<String, serde_json::Error> {
        Ok(match schema {
            RefOr::Ref(r) => {
                let name = esc(ref_name(&r.ref_location));
                format!("<a href=\"#schema-{name}\">{name}</a>")
            }
            RefOr::T(Schema::Object(o)) => {
                let mut text = esc(&schema_type_text(&o.schema_type));
                if let Some(format) = &o.format {
                    let format = format_text(format)?;
                    let _ = write!(text, " <span class=\"format\">({})</span>", esc(&format));
                }
                text
            }
            RefOr::T(Schema::Array(a)) => match Self::array_items(&a.items) {
                Some(items) => format!("array of {}", self.type_html(items)?),
                None => "array".to_string(),
            },
            RefOr::T(Schema::OneOf(one)) => self.join_types(&one.items, " | ")?,
            RefOr::T(Schema::AnyOf(any)) => self.join_types(&any.items, " | ")?,
            RefOr::T(Schema::AllOf(all)) => self.join_types(&all.items, " &amp; ")?,
            RefOr::T(_) => "any".to_string(),
        })
    }

    fn join_types(
        &self,
        items: &[RefOr<Schema>],
        separator: &str,
    ) -> Result<String, serde_json::Error> {
        Ok(items
            .iter()
            .map(|i| self.type_html(i))
            .collect::<Result<Vec<_>, _>>()?
            .join(separator))
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

    // Long because the view of one operation is built field by field (parameters,
    // responses, examples, the curl line, the search words) from the one document.
    fn operation(
        &self,
        method: &str,
        path: &str,
        op: &'a Operation,
    ) -> Result<OperationView, serde_json::Error> {
        let id = op.operation_id.clone().unwrap_or_else(|| slug(path));
        let params: Vec<ParamView> = op
            .parameters
            .iter()
            .flatten()
            .filter_map(|p| match p {
                RefOr::T(p) => Some(self.param(&id, p)),
                RefOr::Ref(_) => None,
            })
            .collect::<Result<_, _>>()?;
        let responses = op
            .responses
            .responses
            .iter()
            .filter_map(|(status, r)| match r {
                RefOr::T(r) => Some(self.response(status, r)),
                RefOr::Ref(_) => None,
            })
            .collect::<Result<_, _>>()?;
        let samples = self.samples.get(&id);
        let examples = match samples {
            Some(samples) => samples
                .examples
                .iter()
                .map(|e| ExampleView {
                    status: e.status.to_string(),
                    class: format!("s{}", e.status / 100),
                    request: e.request.clone(),
                    body: e.text.clone(),
                    note: e.note.clone(),
                })
                .collect(),
            None => op
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
                .map(|s| self.example(s, "", 0).map(|e| e.pretty()))
                .transpose()?
                .map(|body| ExampleView {
                    status: "200".to_string(),
                    class: "s2".to_string(),
                    request: path.to_string(),
                    body,
                    note: "made from the schema".to_string(),
                })
                .into_iter()
                .collect(),
        };
        let curl_path = samples
            .and_then(|s| s.examples.first())
            .map(|e| e.request.clone())
            .unwrap_or_else(|| path.to_string());
        let mut params: Vec<ParamView> = params;
        if let Some(samples) = samples {
            for p in params.iter_mut().filter(|p| p.location == "path") {
                if let Some((_, value)) = samples.params.iter().find(|(n, _)| *n == p.name) {
                    p.input.placeholder = percent_encoding::percent_decode_str(value)
                        .decode_utf8_lossy()
                        .into_owned();
                }
            }
        }
        let summary = op.summary.clone().unwrap_or_default();
        Ok(OperationView {
            curl: format!(
                "curl -H \"X-API-Key: $API_KEY\" \"{}{curl_path}\"",
                curl_base(self.doc)
            ),
            curl_path,
            search: search_text([id.as_str(), method, path, summary.as_str()]),
            id,
            method: method.to_string(),
            path: path.to_string(),
            summary,
            description_html: markdown(op.description.as_deref().unwrap_or("")),
            params,
            responses,
            examples,
        })
    }

    fn response(
        &self,
        status: &str,
        r: &'a utoipa::openapi::Response,
    ) -> Result<ResponseView, serde_json::Error> {
        let body = r.content.values().next().and_then(|c| match c {
            RefOr::T(c) => c.schema.as_ref(),
            RefOr::Ref(_) => None,
        });
        Ok(ResponseView {
            status: status.to_string(),
            class: format!("s{}", &status[..1.min(status.len())]),
            description_html: markdown_inline(&r.description),
            body_html: match body {
                Some(s) => self.type_html(s)?,
                None => "none".to_string(),
            },
            headers: r
                .headers
                .iter()
                .map(|(name, h)| HeaderView {
                    name: name.clone(),
                    description_html: match h {
                        RefOr::T(h) => markdown_inline(h.description.as_deref().unwrap_or("")),
                        RefOr::Ref(_) => String::new(),
                    },
                })
                .collect(),
        })
    }

    fn param(&self, operation_id: &str, p: &'a Parameter) -> Result<ParamView, serde_json::Error> {
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
                    self.type_html(schema)?,
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
        Ok(ParamView {
            name: p.name.clone(),
            location,
            required,
            type_html,
            facts,
            description_html: markdown_inline(p.description.as_deref().unwrap_or("")),
            input,
        })
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

    fn schema_view(
        &self,
        name: &str,
        schema: &'a RefOr<Schema>,
    ) -> Result<SchemaView, serde_json::Error> {
        let mut view = SchemaView {
            name: name.to_string(),
            description_html: String::new(),
            enum_values: Vec::new(),
            properties: Vec::new(),
            example: String::new(),
            search: String::new(),
        };
        if let Some(Schema::Object(o)) = self.resolve(schema) {
            view.description_html = markdown(o.description.as_deref().unwrap_or(""));
            if let Some(values) = self.enum_values(schema) {
                view.enum_values = values;
                return Ok(view);
            }
            view.properties = o
                .properties
                .iter()
                .map(|(prop, s)| {
                    Ok(PropertyView {
                        name: prop.clone(),
                        type_html: self.type_html(s)?,
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
                })
                .collect::<Result<_, _>>()?;
            view.example = self.example(schema, name, 0)?.pretty();
        }
        let fields: Vec<&str> = view.properties.iter().map(|p| p.name.as_str()).collect();
        let description = match self.resolve(schema) {
            Some(Schema::Object(o)) => o.description.as_deref().unwrap_or(""),
            _ => "",
        };
        view.search = search_text(
            [name, description]
                .into_iter()
                .chain(fields)
                .chain(view.enum_values.iter().map(String::as_str)),
        );
        Ok(view)
    }

    /// An example value of a schema: its own example if it has one, otherwise one
    /// made from types, formats, enums and bounds.
    /// The example of the first of `items` (null when there is none).
    fn first_example(
        &self,
        items: &'a [RefOr<Schema>],
        hint: &str,
        depth: usize,
    ) -> Result<Example, serde_json::Error> {
        match items.first() {
            Some(s) => self.example(s, hint, depth + 1),
            None => Ok(Example::Null),
        }
    }

    fn example(
        &self,
        schema: &'a RefOr<Schema>,
        hint: &str,
        depth: usize,
    ) -> Result<Example, serde_json::Error> {
        if depth > 8 {
            return Ok(Example::Null);
        }
        let Some(resolved) = self.resolve(schema) else {
            return Ok(Example::Null);
        };
        Ok(match resolved {
            Schema::Object(o) => {
                if let Some(e) = o.example.as_ref().or(o.examples.first()) {
                    return Ok(Example::from_value(e));
                }
                if let Some(values) = &o.enum_values {
                    return Ok(values
                        .first()
                        .map(Example::from_value)
                        .unwrap_or(Example::Null));
                }
                if !o.properties.is_empty() || is_type(&o.schema_type, Type::Object) {
                    return Ok(Example::Object(
                        o.properties
                            .iter()
                            .map(|(k, s)| Ok((k.clone(), self.example(s, k, depth + 1)?)))
                            .collect::<Result<_, serde_json::Error>>()?,
                    ));
                }
                let format = match &o.format {
                    Some(f) => format_text(f)?,
                    None => String::new(),
                };
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
                Some(items) => Example::Array(vec![self.example(items, hint, depth + 1)?]),
                None => Example::Array(Vec::new()),
            },
            // The first choice stands for all of them.
            Schema::OneOf(one) => self.first_example(&one.items, hint, depth)?,
            Schema::AnyOf(any) => self.first_example(&any.items, hint, depth)?,
            Schema::AllOf(all) => {
                let mut fields = Vec::new();
                for part in &all.items {
                    if let Example::Object(more) = self.example(part, hint, depth + 1)? {
                        fields.extend(more);
                    }
                }
                Example::Object(fields)
            }
            _ => Example::Null,
        })
    }
}

/// A number as JSON (a non-finite float as null, as serde_json writes it).
fn number(n: &utoipa::Number) -> Value {
    match *n {
        utoipa::Number::Int(i) => Value::from(i),
        utoipa::Number::UInt(u) => Value::from(u),
        utoipa::Number::Float(f) => Value::from(f),
    }
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
