//! The operations of the OpenAPI document: one `GET` per catalog list and detail, with
//! its path, parameters and responses (the 200 with its links), and the components it
//! adds (the response type its spec links to, the page envelope, the "not found"
//! body).

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::link::Link;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, Parameter, PathItem};
use utoipa::openapi::response::{ResponseBuilder, ResponsesBuilder};
use utoipa::openapi::schema::{
    ArrayBuilder, KnownFormat, ObjectBuilder, OneOfBuilder, SchemaFormat, Type,
};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Schema};

use super::links::{detail_links, list_links};
use super::parameters::{list_parameters, path_parameter, string_schema};
use super::{tag, SECURITY_SCHEME};
use crate::catalog::{self, DetailSpec, IdRule, ListSpec};
use crate::tree::API_PREFIX;

// ----------------------------------------------------------------------------------
// Error bodies (docs/api.md §2, "Errors").

/// `{"message": "<Singular> not found"}` under the name `<Singular>Error`.
fn not_found_schema(singular: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(format!(
            "The {} does not exist for the API.",
            singular.to_lowercase()
        )))
        .property(
            "message",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .examples([format!("{singular} not found")]),
        )
        .required("message")
        .into()
}

// ----------------------------------------------------------------------------------
// The list envelope

/// The list envelope around an item component (docs/api.md §2, "Pagination"), keys
/// in the order [`catalog::render_page`] writes them.
fn paged_schema(item: &str) -> RefOr<Schema> {
    let integer = |min: i64, description: &str| {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
            .minimum(Some(min))
            .description(Some(description.to_string()))
    };
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(format!("One page of {item} items.")))
        .property("current_page", integer(1, "This page's number."))
        .property(
            "has_next",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .description(Some("Whether a page follows this one.")),
        )
        .property(
            "has_previous",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .description(Some("Whether a page precedes this one.")),
        )
        .property(
            "items",
            ArrayBuilder::new().items(Ref::from_schema_name(item)),
        )
        .property(
            "total_count",
            integer(0, "Records matching the query, over all pages."),
        )
        .property(
            "total_pages",
            integer(
                1,
                "max(1, ceil(total_count / page_size)); an empty result is page 1 of 1.",
            ),
        )
        .required("current_page")
        .required("has_next")
        .required("has_previous")
        .required("items")
        .required("total_count")
        .required("total_pages")
        .into()
}

// ----------------------------------------------------------------------------------
// Responses

fn json_response(
    description: impl Into<String>,
    schema: impl Into<RefOr<Schema>>,
) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        "application/json",
        ContentBuilder::new().schema(Some(schema)).build(),
    )
}

fn schema_ref(name: &str) -> RefOr<Schema> {
    Ref::from_schema_name(name).into()
}

/// The IETF draft's `RateLimit-*` fields, sent on every answer to a request with a
/// valid key in production and staging.
fn rate_limit_headers(builder: ResponseBuilder) -> ResponseBuilder {
    let count = |description: &str| {
        HeaderBuilder::new()
            .schema(Some(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0)),
            ))
            .description(Some(description.to_string()))
            .build()
    };
    builder
        .header(
            "RateLimit-Limit",
            count(
                "Requests the key may make per second (also its burst); production and \
                 staging, requests with a valid key.",
            ),
        )
        .header(
            "RateLimit-Remaining",
            count("Requests the key may still make right now."),
        )
        .header(
            "RateLimit-Reset",
            count("Seconds until the key's budget is full again (rounded up)."),
        )
}

/// The statuses every operation shares besides 200 and 404.
fn common_responses(builder: ResponsesBuilder, with_400: bool) -> ResponsesBuilder {
    let mut b = builder.response(
        "304",
        rate_limit_headers(
            ResponseBuilder::new()
                .description("Not modified: `If-None-Match` named the current `ETag`. No body."),
        )
        .build(),
    );
    if with_400 {
        b = b.response(
            "400",
            rate_limit_headers(json_response(
                "A query parameter is invalid; every invalid parameter is listed.",
                schema_ref("ValidationErrorSchema"),
            ))
            .build(),
        );
    }
    b.response(
        "401",
        json_response(
            "Missing, unknown, revoked or expired API key (production and staging). \
             Requests without a valid key are limited per client address (by default 10 per \
             second, burst 10); past that they are answered 429.",
            schema_ref("ErrorDetail"),
        )
        .build(),
    )
    .response(
        "429",
        rate_limit_headers(json_response(
            "Rate limit exceeded (production and staging): the key has spent its budget \
             (by default 10 requests per second, burst 10, failed ones included), or its \
             client address has sent more requests without a valid key than its own budget \
             allows (by default 10 per second). A valid key is never refused for what other \
             requests from its address send. When the key's budget is spent, the \
             `RateLimit-*` fields say so too.",
            schema_ref("ErrorDetail"),
        ))
        .header(
            "Retry-After",
            HeaderBuilder::new()
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .minimum(Some(1)),
                ))
                .description(Some("Seconds to wait before retrying."))
                .build(),
        )
        .build(),
    )
    .response(
        "500",
        json_response(
            "Unexpected error; the cause is logged.",
            schema_ref("ErrorDetail"),
        )
        .build(),
    )
}

/// The 200 of an operation, with the links that lead from its body.
fn ok_response(description: String, schema: &str, links: Vec<(String, Link)>) -> ResponseBuilder {
    let builder = rate_limit_headers(json_response(description, schema_ref(schema))).header(
        "ETag",
        HeaderBuilder::new()
            .schema(Some(string_schema()))
            .description(Some(
                "Strong validator of the body; send it back in `If-None-Match` for a 304.",
            ))
            .build(),
    );
    links
        .into_iter()
        .fold(builder, |b, (name, link)| b.link(name, link))
}

// ----------------------------------------------------------------------------------
// Operations

/// Everything an operation adds to the document.
pub(super) struct Built {
    pub(super) path: String,
    pub(super) item: PathItem,
}

impl Built {
    /// The `GET` operation at `path` described by `operation`, behind the API key.
    fn get(
        path: String,
        operation: OperationBuilder,
        operation_id: &str,
        parameters: Vec<Parameter>,
        responses: ResponsesBuilder,
    ) -> Built {
        let operation = operation
            .operation_id(Some(operation_id))
            .parameters(Some(parameters))
            .responses(responses.build())
            .security(security());
        Built {
            path,
            item: PathItem::new(HttpMethod::Get, operation),
        }
    }
}

pub(super) fn security() -> SecurityRequirement {
    SecurityRequirement::new::<_, [&str; 0], &str>(SECURITY_SCHEME, [])
}

fn snapshot_id_name() -> &'static str {
    catalog::detail_spec("snapshots")
        .and_then(|s| s.id_names.first().copied())
        .unwrap_or("snapshot_id")
}

/// Adds `component` (and what it references) to `components`; its name.
fn added(
    component: crate::catalog::Component,
    components: &mut Vec<(String, RefOr<Schema>)>,
) -> std::borrow::Cow<'static, str> {
    (component.add)(components);
    (component.name)()
}

pub(super) fn list_operation(
    spec: &ListSpec,
    components: &mut Vec<(String, RefOr<Schema>)>,
) -> Built {
    let item_name = added(spec.item.schema, components);
    let paged = format!("Paged{item_name}");
    components.push((paged.clone(), paged_schema(&item_name)));
    let mut parameters = Vec::new();
    let (path, summary, description, tag_resource, not_found) = match spec.snapshot_link {
        None => (
            format!("{API_PREFIX}/{}/", spec.path),
            format!("List {}", spec.path),
            format!(
                "A page of {}. The same path without the trailing slash is served too.",
                spec.path
            ),
            spec.path,
            json_response("The page is past the last one.", schema_ref("ErrorDetail")),
        ),
        Some(_) => {
            let id = snapshot_id_name();
            parameters.push(path_parameter(id, IdRule::Ci));
            let snapshot_error = "SnapshotError".to_string();
            components.push((snapshot_error.clone(), not_found_schema("Snapshot")));
            (
                format!("{API_PREFIX}/snapshots/{{{id}}}/{}/", spec.path),
                format!("List the {} new in a snapshot", spec.path),
                format!(
                    "A page of the {} that are new in a completed snapshot, limited to \
                     records the API exposes elsewhere.",
                    spec.path
                ),
                "snapshots",
                json_response(
                    "No completed snapshot has this key (`message`), or the page is past \
                     the last one (`detail`).",
                    OneOfBuilder::new()
                        .item(schema_ref(&snapshot_error))
                        .item(schema_ref("ErrorDetail")),
                ),
            )
        }
    };
    parameters.extend(list_parameters(spec, components));
    let responses = common_responses(
        ResponsesBuilder::new()
            .response(
                "200",
                ok_response(
                    format!("A page of {}.", spec.path),
                    &paged,
                    list_links(spec),
                )
                .build(),
            )
            .response("404", rate_limit_headers(not_found).build()),
        true,
    );
    let operation = OperationBuilder::new()
        .tag(tag(tag_resource))
        .summary(Some(summary))
        .description(Some(description));
    Built::get(path, operation, spec.operation_id, parameters, responses)
}

pub(super) fn detail_operation(
    spec: &DetailSpec,
    components: &mut Vec<(String, RefOr<Schema>)>,
) -> Built {
    let body_name = added(spec.body.schema, components);
    let error = format!("{}Error", spec.singular);
    components.push((error.clone(), not_found_schema(spec.singular)));
    let mut path = format!("{API_PREFIX}/{}", spec.path);
    for name in spec.id_names {
        path.push_str(&format!("/{{{name}}}"));
    }
    let parameters: Vec<Parameter> = spec
        .id_names
        .iter()
        .zip(spec.ids)
        .map(|(name, rule)| path_parameter(name, *rule))
        .collect();
    let singular = spec.singular.to_lowercase();
    let article = if singular.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let responses = common_responses(
        ResponsesBuilder::new()
            .response(
                "200",
                ok_response(format!("The {singular}."), &body_name, detail_links(spec)).build(),
            )
            .response(
                "404",
                rate_limit_headers(json_response(
                    format!(
                        "No {singular} has this id (`message`), or an id is malformed, \
                         like a non-integer number (`detail`)."
                    ),
                    OneOfBuilder::new()
                        .item(schema_ref(&error))
                        .item(schema_ref("ErrorDetail")),
                ))
                .build(),
            ),
        false,
    );
    let operation = OperationBuilder::new()
        .tag(tag(spec.path))
        .summary(Some(format!("Get {article} {singular}")))
        .description(Some(format!(
            "One {singular} with its detail fields (list fields first)."
        )));
    Built::get(path, operation, spec.operation_id, parameters, responses)
}
