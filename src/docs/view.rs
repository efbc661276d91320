//! The docs page's view model: plain strings for the askama template
//! (`templates/docs/index.html`), built by the reader from the OpenAPI document.
//! Fields named `*_html` (and `facts`) hold HTML that is already escaped or rendered
//! from Markdown with raw HTML escaped; every other string is escaped by the template.

use askama::Template;

#[derive(Template)]
#[template(path = "docs/index.html")]
pub(super) struct Page {
    pub(super) title: String,
    pub(super) version: String,
    pub(super) description_html: String,
    pub(super) key_header: String,
    pub(super) servers: Vec<ServerView>,
    pub(super) tags: Vec<TagView>,
    pub(super) schemas: Vec<SchemaView>,
    pub(super) operation_count: usize,
}

pub(super) struct ServerView {
    pub(super) url: String,
    pub(super) description: String,
}

pub(super) struct TagView {
    pub(super) name: String,
    pub(super) anchor: String,
    pub(super) description_html: String,
    pub(super) operations: Vec<OperationView>,
}

pub(super) struct OperationView {
    pub(super) id: String,
    pub(super) method: String,
    pub(super) path: String,
    pub(super) summary: String,
    pub(super) description_html: String,
    pub(super) params: Vec<ParamView>,
    pub(super) responses: Vec<ResponseView>,
    /// Example answers, by status.
    pub(super) examples: Vec<ExampleView>,
    /// The example request's path and query (real records when read from a tree).
    pub(super) curl_path: String,
    /// The curl command of the example request, for a page without script (the
    /// script writes the page's own origin in).
    pub(super) curl: String,
    /// The words the search matches: id, method, path, summary, tag.
    pub(super) search: String,
}

/// One example answer of an operation.
pub(super) struct ExampleView {
    pub(super) status: String,
    pub(super) class: String,
    /// The request that gets this answer (path and query).
    pub(super) request: String,
    pub(super) body: String,
    /// What the example leaves out, or where it comes from.
    pub(super) note: String,
}

pub(super) struct ParamView {
    pub(super) name: String,
    pub(super) location: &'static str,
    pub(super) required: bool,
    pub(super) type_html: String,
    /// HTML.
    pub(super) facts: Vec<String>,
    pub(super) description_html: String,
    pub(super) input: InputView,
}

/// The form control of a parameter.
pub(super) struct InputView {
    pub(super) id: String,
    /// `text`, `integer`, `number`, `select`, `bool` or `multi`.
    pub(super) kind: &'static str,
    pub(super) options: Vec<String>,
    /// Label of the empty choice of a select.
    pub(super) empty_label: String,
    pub(super) min: String,
    pub(super) max: String,
    pub(super) max_length: String,
    pub(super) placeholder: String,
}

pub(super) struct ResponseView {
    pub(super) status: String,
    /// `s2`, `s3`, `s4`, `s5`: the status class, for colour.
    pub(super) class: String,
    pub(super) description_html: String,
    pub(super) body_html: String,
    pub(super) headers: Vec<HeaderView>,
}

pub(super) struct HeaderView {
    pub(super) name: String,
    pub(super) description_html: String,
}

pub(super) struct SchemaView {
    pub(super) name: String,
    pub(super) description_html: String,
    pub(super) enum_values: Vec<String>,
    pub(super) properties: Vec<PropertyView>,
    pub(super) example: String,
    /// The words the search matches: name, field names, description.
    pub(super) search: String,
}

pub(super) struct PropertyView {
    pub(super) name: String,
    pub(super) type_html: String,
    pub(super) required: bool,
    /// HTML.
    pub(super) facts: Vec<String>,
    pub(super) description_html: String,
}
