//! The OpenAPI document of REST v0 (API.md section 7), served at
//! `/api/v0/openapi.json` and rendered into the docs page.
//!
//! Nothing here is hand-written JSON. The document is assembled with utoipa from:
//! - the response types of [`crate::model`] (their `ToSchema` derives give the item and
//!   detail components),
//! - the catalog's specs ([`catalog::LISTS`], [`catalog::SNAPSHOT_LISTS`],
//!   [`catalog::DETAILS`]): paths, operation ids, path ids, filters with their
//!   [`ParamKind`], orderings and the default order, the singular names of the
//!   "not found" messages,
//! - the catalog's allowed values (`PROJECT_LEVELS`, …) for the enum components, and
//! - the error bodies declared below.
//!
//! The bytes are deterministic (insertion-ordered maps, no timestamps), so
//! `tests/openapi.rs` can compare them with a reviewed snapshot.

use std::borrow::Cow;

use utoipa::openapi::extensions::{Extensions, ExtensionsBuilder};
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, Parameter, ParameterBuilder, ParameterIn, ParameterStyle,
    PathItem,
};
use utoipa::openapi::response::{ResponseBuilder, ResponsesBuilder};
use utoipa::openapi::schema::{
    AllOf, ArrayBuilder, ComponentsBuilder, KnownFormat, ObjectBuilder, OneOfBuilder, SchemaFormat,
    Type,
};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityRequirement, SecurityScheme};
use utoipa::openapi::server::{Server, ServerBuilder, ServerVariableBuilder};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    ContentBuilder, InfoBuilder, LicenseBuilder, OpenApi, OpenApiBuilder, OpenApiVersion,
    PathsBuilder, Ref, RefOr, Required, Schema,
};
use utoipa::{PartialSchema, ToSchema};

use crate::catalog::{self, DetailSpec, IdRule, ListSpec, ParamKind};
use crate::config::Env;
use crate::model;
use crate::tree::API_PREFIX;

/// Name of the security scheme; SDK generators derive their key parameter from it.
pub const SECURITY_SCHEME: &str = "ApiKey";
/// The header that carries the API key.
pub const API_KEY_HEADER: &str = "X-API-Key";

// ----------------------------------------------------------------------------------
// Enum components, from the catalog's allowed values (what the filters validate).

macro_rules! enum_component {
    ($(#[$doc:meta])* $name:ident, $values:expr, $description:literal) => {
        $(#[$doc])*
        pub struct $name;
        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some($description))
                    .enum_values(Some($values.iter().copied()))
                    .into()
            }
        }
        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    };
}

enum_component!(
    /// `ProjectLevel`: the `level` of a project and the `level` filter.
    ProjectLevel,
    catalog::PROJECT_LEVELS,
    "Project level."
);
enum_component!(
    /// `ProjectType`: the `type` of a project and the repeatable `type` filter.
    ProjectType,
    catalog::PROJECT_TYPES,
    "Project type."
);
enum_component!(
    /// `EventCategory`: the repeatable `category` filter of events.
    EventCategory,
    catalog::EVENT_CATEGORIES,
    "Event category."
);
enum_component!(
    /// `SponsorMemberType`: the `member_type` filter of sponsors.
    SponsorMemberType,
    catalog::MEMBER_TYPES,
    "Sponsor membership level."
);

/// The component that names a set of allowed values, if there is one.
fn enum_ref(allowed: &[&str]) -> Option<Component> {
    let candidates = [
        (
            catalog::PROJECT_LEVELS,
            component::<ProjectLevel> as fn() -> Component,
        ),
        (catalog::PROJECT_TYPES, component::<ProjectType>),
        (catalog::EVENT_CATEGORIES, component::<EventCategory>),
        (catalog::MEMBER_TYPES, component::<SponsorMemberType>),
        (catalog::STATES, component::<model::IssueState>),
    ];
    candidates
        .into_iter()
        .find(|(values, _)| *values == allowed)
        .map(|(_, make)| make())
}

// ----------------------------------------------------------------------------------
// Error bodies (API.md section 2, "Errors").

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
// Which model type answers which operation.

/// A component: its name and a function adding it (and what it references) to a list.
struct Component {
    name: Cow<'static, str>,
    add: fn(&mut Vec<(String, RefOr<Schema>)>),
}

fn component<T: ToSchema>() -> Component {
    Component {
        name: T::name(),
        add: |out| {
            out.push((T::name().into_owned(), T::schema()));
            T::schemas(out);
        },
    }
}

/// The item type of a list operation.
fn list_item(operation_id: &str) -> Component {
    match operation_id {
        "list_chapters" | "list_snapshot_chapters" => component::<model::Chapter>(),
        "list_committees" => component::<model::Committee>(),
        "list_events" => component::<model::Event>(),
        "list_issues" => component::<model::Issue>(),
        "list_labels" => component::<model::Label>(),
        "list_members" | "list_snapshot_members" => component::<model::Member>(),
        "list_milestones" => component::<model::Milestone>(),
        "list_organizations" => component::<model::Organization>(),
        "list_projects" | "list_snapshot_projects" => component::<model::Project>(),
        "list_releases" => component::<model::Release>(),
        "list_repositories" => component::<model::Repository>(),
        "list_snapshots" => component::<model::Snapshot>(),
        "list_snapshot_issues" => component::<model::SnapshotIssue>(),
        "list_snapshot_releases" => component::<model::SnapshotRelease>(),
        "list_sponsors" => component::<model::Sponsor>(),
        other => panic!("no item type for the list operation {other}"),
    }
}

/// The body type of a detail operation.
fn detail_body(operation_id: &str) -> Component {
    match operation_id {
        "get_chapter" => component::<model::ChapterDetail>(),
        "get_committee" => component::<model::CommitteeDetail>(),
        "get_event" => component::<model::EventDetail>(),
        "get_issue" => component::<model::IssueDetail>(),
        "get_member" => component::<model::MemberDetail>(),
        "get_milestone" => component::<model::MilestoneDetail>(),
        "get_organization" => component::<model::OrganizationDetail>(),
        "get_project" => component::<model::ProjectDetail>(),
        "get_release" => component::<model::ReleaseDetail>(),
        "get_repository" => component::<model::RepositoryDetail>(),
        "get_snapshot" => component::<model::SnapshotDetail>(),
        "get_sponsor" => component::<model::SponsorDetail>(),
        other => panic!("no body type for the detail operation {other}"),
    }
}

/// The list envelope around an item component (API.md section 2, "Pagination"), keys
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
// Tags

/// Tags in the order of their first operation, with descriptions.
const TAGS: &[(&str, &str)] = &[
    (
        "Chapters",
        "Local chapters of the community (active chapters only).",
    ),
    (
        "Committees",
        "Committees of the community (active committees only).",
    ),
    ("Events", "Community events, past and upcoming."),
    (
        "Issues",
        "Issues of the repositories on the code-hosting platform.",
    ),
    ("Labels", "Issue labels."),
    (
        "Community",
        "Members, affiliated organizations and monthly snapshots of what is new.",
    ),
    ("Milestones", "Milestones of the repositories."),
    (
        "Projects",
        "Projects of the community (active projects only).",
    ),
    ("Releases", "Published releases of the repositories."),
    (
        "Repositories",
        "Repositories on the code-hosting platform, whatever their organization.",
    ),
    ("Sponsors", "Sponsors and supporting members."),
];

/// The tag of a resource (the first URL segment).
pub fn tag(resource: &str) -> &'static str {
    match resource {
        "chapters" => "Chapters",
        "committees" => "Committees",
        "events" => "Events",
        "projects" => "Projects",
        "sponsors" => "Sponsors",
        "issues" => "Issues",
        "labels" => "Labels",
        "milestones" => "Milestones",
        "releases" => "Releases",
        "repositories" => "Repositories",
        _ => "Community",
    }
}

// ----------------------------------------------------------------------------------
// Parameters

fn string_schema() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// An optional query parameter of a list. Every one says `allowEmptyValue: true`: the
/// catalog reads `?name=` as the parameter left out (as HTML forms send unset fields),
/// and the document says so rather than call the value invalid. utoipa's `Parameter`
/// has no field for this OpenAPI keyword, so it goes in through the flattened
/// extensions map.
fn query(name: &str, description: String, schema: impl Into<RefOr<Schema>>) -> ParameterBuilder {
    // The builder would prefix the key with `x-`; the map itself takes it as it is.
    let mut keywords = Extensions::default();
    keywords.insert("allowEmptyValue".to_string(), true.into());
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(schema))
        .extensions(Some(keywords))
}

/// The field a coordinate bound applies to (`t.latitude` → `latitude`).
fn column_name(expr: &str) -> &str {
    expr.rsplit('.').next().unwrap_or(expr)
}

fn filter_parameter(
    p: &catalog::Param,
    components: &mut Vec<(String, RefOr<Schema>)>,
) -> Parameter {
    let given = (!p.description.is_empty()).then(|| p.description.to_string());
    let mut enum_schema = |allowed: &[&str]| -> RefOr<Schema> {
        match enum_ref(allowed) {
            Some(c) => {
                (c.add)(components);
                Ref::from_schema_name(c.name).into()
            }
            None => string_schema()
                .enum_values(Some(allowed.iter().copied()))
                .into(),
        }
    };
    let built = match p.kind {
        ParamKind::Text => query(
            p.name,
            format!(
                "Only records whose {} equals this value, compared case-insensitively.",
                p.name
            ),
            string_schema(),
        ),
        ParamKind::Exact => query(
            p.name,
            format!(
                "Only records whose {} is exactly this value (case-sensitive).",
                p.name
            ),
            string_schema(),
        ),
        ParamKind::Choice(allowed) => query(
            p.name,
            format!("Only records with this {} (exact value).", p.name),
            enum_schema(allowed),
        ),
        ParamKind::Choices(allowed) => query(
            p.name,
            format!(
                "Only records with any of these {} values; repeat the parameter \
                 (`?{0}={1}&{0}={2}`).",
                p.name,
                allowed[0],
                allowed.get(1).unwrap_or(&allowed[0])
            ),
            ArrayBuilder::new()
                .items(enum_schema(allowed))
                .unique_items(true),
        )
        .style(Some(ParameterStyle::Form))
        .explode(Some(true)),
        ParamKind::Bool => query(
            p.name,
            format!(
                "Only records whose {} is this boolean (`true`/`false`, also `1`/`0`, any case).",
                p.name
            ),
            ObjectBuilder::new().schema_type(Type::Boolean),
        ),
        ParamKind::Upcoming => query(
            p.name,
            "With `true`, only events whose start date is today (UTC) or later, in \
             `start_date` order by default; `false` is no filter."
                .to_string(),
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .default(Some(false.into())),
        ),
        ParamKind::Gte | ParamKind::Lte => query(
            p.name,
            format!(
                "Only records whose {} is {} this number (inclusive); records without one \
                 are left out.",
                column_name(p.expr),
                if p.kind == ParamKind::Gte {
                    "at least"
                } else {
                    "at most"
                }
            ),
            ObjectBuilder::new()
                .schema_type(Type::Number)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Double))),
        ),
        ParamKind::Search => query(
            p.name,
            "Structured search: space-separated terms, ANDed. A term is `field:value` or \
             `field:OPvalue` with OP one of `>`, `<`, `>=`, `<=`; fields are `name` \
             (case-insensitive substring) and `stars` (integer). A bare word means \
             `name:word`; quote values with spaces (`name:\"juice shop\"`). Example: \
             `name:juice stars:>=100`."
                .to_string(),
            string_schema()
                .max_length(Some(crate::search::MAX_QUERY_CHARS))
                .examples(["name:juice stars:>=100"]),
        ),
    };
    match given {
        Some(d) => built.description(Some(d)).build(),
        None => built.build(),
    }
}

/// The `ordering` value equal to the list's default order, if there is one.
fn default_ordering(spec: &ListSpec) -> Option<String> {
    let normalise = |sql: String| sql.replace(" ASC", "");
    let default = normalise(catalog::order_sql(spec, None, false));
    spec.orderings.iter().enumerate().find_map(|(field, o)| {
        [false, true].into_iter().find_map(|desc| {
            let choice = catalog::OrderChoice { field, desc };
            (normalise(catalog::order_sql(spec, Some(choice), false)) == default).then(|| {
                if desc {
                    format!("-{}", o.name)
                } else {
                    o.name.to_string()
                }
            })
        })
    })
}

/// Words for a default order that is not one of the `ordering` values.
fn default_order_words(spec: &ListSpec) -> &'static str {
    match spec.operation_id {
        "list_projects" => {
            "level rank descending (flagship, production, lab, incubator, demo), then \
             stars descending, then forks descending"
        }
        _ => "the records' stable id order",
    }
}

fn list_parameters(
    spec: &ListSpec,
    components: &mut Vec<(String, RefOr<Schema>)>,
) -> Vec<Parameter> {
    let mut out: Vec<Parameter> = spec
        .params
        .iter()
        .map(|p| filter_parameter(p, components))
        .collect();
    let values = catalog::ordering_values(spec);
    let default = default_ordering(spec);
    let nulls = if spec.orderings.iter().any(|o| o.nullable) {
        "; records without a value for the field come last in both directions"
    } else {
        ""
    };
    // Names for generated enum members (`-created_at` is not an identifier).
    let member_names: Vec<String> = values
        .iter()
        .map(|v| match v.strip_prefix('-') {
            Some(field) => format!("{}_DESC", field.to_uppercase()),
            None => v.to_uppercase(),
        })
        .collect();
    let mut ordering = string_schema()
        .enum_values(Some(values.iter().map(String::as_str)))
        .extensions(Some(
            ExtensionsBuilder::new()
                .add("x-enum-varnames", member_names)
                .build(),
        ));
    let description = match &default {
        Some(d) => {
            ordering = ordering.default(Some(d.clone().into()));
            format!(
                "Sort field; a leading `-` sorts descending. Default: `{d}`. Ties are broken \
                 by the list's tie-breakers, then by the record's stable id{nulls}."
            )
        }
        None => format!(
            "Sort field; a leading `-` sorts descending. Without it: {}. Ties are broken \
             by the record's stable id{nulls}.",
            default_order_words(spec)
        ),
    };
    out.push(query("ordering", description, ordering).build());
    out.push(
        query(
            "page",
            "Page number, from 1; a page past the last one is a 404.".to_string(),
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
                .minimum(Some(1))
                .maximum(Some(catalog::PAGE_MAX))
                .default(Some(1.into())),
        )
        .build(),
    );
    out.push(
        query(
            "page_size",
            format!("Items per page, 1 to {}.", catalog::PAGE_SIZE),
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(catalog::PAGE_SIZE))
                .default(Some(catalog::PAGE_SIZE.into())),
        )
        .build(),
    );
    out
}

/// What a detail path id is, by name.
fn id_meaning(name: &str) -> &'static str {
    match name {
        "organization_id" => "The organization's login",
        "repository_id" => "The repository's name",
        "issue_id" => "The issue number",
        "milestone_id" => "The milestone number",
        "release_id" => "The release's tag name",
        "member_id" => "The member's login",
        "snapshot_id" => "The snapshot key (`YYYY-MM`)",
        "event_id" => "The event key",
        "sponsor_id" => "The sponsor key",
        _ => "The key",
    }
}

fn path_parameter(name: &str, rule: IdRule) -> Parameter {
    let (how, schema): (String, RefOr<Schema>) = match rule {
        IdRule::Prefixed(prefix) => (
            format!("The key without its `{prefix}` prefix, or the full key; case-insensitive."),
            string_schema().into(),
        ),
        IdRule::Ci => (
            format!("{}, case-insensitive.", id_meaning(name)),
            string_schema().into(),
        ),
        IdRule::Exact => (
            format!(
                "{}, case-sensitive; a `/` in it is sent as `%2F`.",
                id_meaning(name)
            ),
            string_schema().into(),
        ),
        IdRule::Number => (
            format!(
                "{}; anything but an integer is an unknown path.",
                id_meaning(name)
            ),
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
                .minimum(Some(0))
                .into(),
        ),
    };
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some(how))
        .schema(Some(schema))
        .build()
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

/// The statuses every operation shares besides 200 and 404.
fn common_responses(builder: ResponsesBuilder, with_400: bool) -> ResponsesBuilder {
    let mut b = builder.response(
        "304",
        ResponseBuilder::new()
            .description("Not modified: `If-None-Match` named the current `ETag`. No body.")
            .build(),
    );
    if with_400 {
        b = b.response(
            "400",
            json_response(
                "A query parameter is invalid; every invalid parameter is listed.",
                schema_ref("ValidationErrorSchema"),
            )
            .build(),
        );
    }
    b.response(
        "401",
        json_response(
            "Missing, unknown, revoked or expired API key (production and staging).",
            schema_ref("ErrorDetail"),
        )
        .build(),
    )
    .response(
        "429",
        json_response(
            "Rate limit exceeded (production and staging).",
            schema_ref("ErrorDetail"),
        )
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

fn ok_response(description: String, schema: &str) -> ResponseBuilder {
    json_response(description, schema_ref(schema)).header(
        "ETag",
        HeaderBuilder::new()
            .schema(Some(string_schema()))
            .description(Some(
                "Strong validator of the body; send it back in `If-None-Match` for a 304.",
            ))
            .build(),
    )
}

// ----------------------------------------------------------------------------------
// Operations

/// Everything an operation adds to the document.
struct Built {
    path: String,
    item: PathItem,
}

fn security() -> SecurityRequirement {
    SecurityRequirement::new::<_, [&str; 0], &str>(SECURITY_SCHEME, [])
}

fn snapshot_id_name() -> &'static str {
    catalog::detail_spec("snapshots")
        .and_then(|s| s.id_names.first().copied())
        .unwrap_or("snapshot_id")
}

fn list_operation(spec: &ListSpec, components: &mut Vec<(String, RefOr<Schema>)>) -> Built {
    let item = list_item(spec.operation_id);
    (item.add)(components);
    let paged = format!("Paged{}", item.name);
    components.push((paged.clone(), paged_schema(&item.name)));
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
                ok_response(format!("A page of {}.", spec.path), &paged).build(),
            )
            .response("404", not_found.build()),
        true,
    );
    let operation = OperationBuilder::new()
        .tag(tag(tag_resource))
        .summary(Some(summary))
        .description(Some(description))
        .operation_id(Some(spec.operation_id))
        .parameters(Some(parameters))
        .responses(responses.build())
        .security(security());
    Built {
        path,
        item: PathItem::new(HttpMethod::Get, operation),
    }
}

fn detail_operation(spec: &DetailSpec, components: &mut Vec<(String, RefOr<Schema>)>) -> Built {
    let body = detail_body(spec.operation_id);
    (body.add)(components);
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
                ok_response(format!("The {singular}."), &body.name).build(),
            )
            .response(
                "404",
                json_response(
                    format!(
                        "No {singular} has this id (`message`), or an id is malformed, \
                         like a non-integer number (`detail`)."
                    ),
                    OneOfBuilder::new()
                        .item(schema_ref(&error))
                        .item(schema_ref("ErrorDetail")),
                )
                .build(),
            ),
        false,
    );
    let operation = OperationBuilder::new()
        .tag(tag(spec.path))
        .summary(Some(format!("Get {article} {singular}")))
        .description(Some(format!(
            "One {singular} with its detail fields (list fields first)."
        )))
        .operation_id(Some(spec.operation_id))
        .parameters(Some(parameters))
        .responses(responses.build())
        .security(security());
    Built {
        path,
        item: PathItem::new(HttpMethod::Get, operation),
    }
}

// ----------------------------------------------------------------------------------
// Servers

/// One `servers` entry per environment (API.md section 1). The generated document
/// cannot know the public URLs, so production and staging are templated on their
/// host (`https://{host}`, with a placeholder default under the reserved `.example`
/// domain), local is the default listen address and e2e a loopback port. The shim,
/// which knows its environment and `--public-url`, can serve [`document_for`] instead.
pub fn servers() -> Vec<Server> {
    let host = |default: &str, env: &str| {
        ServerBuilder::new()
            .url("https://{host}")
            .description(Some(env))
            .parameter(
                "host",
                ServerVariableBuilder::new()
                    .default_value(default)
                    .description(Some(format!(
                        "Host of the {} deployment (its `ROOST_PUBLIC_URL`).",
                        env.to_lowercase()
                    ))),
            )
            .build()
    };
    vec![
        host("api.roost.example", "Production"),
        host("staging.api.roost.example", "Staging"),
        Server::builder()
            .url("http://127.0.0.1:8000")
            .description(Some("Local"))
            .build(),
        ServerBuilder::new()
            .url("http://127.0.0.1:{port}")
            .description(Some("E2E"))
            .parameter(
                "port",
                ServerVariableBuilder::new()
                    .default_value("8000")
                    .description(Some("Port the e2e server listens on.")),
            )
            .build(),
    ]
}

/// The one `servers` entry of an environment served at `public_url` (the origin,
/// without `/api/v0`); without a public URL, the serving host (`/`).
pub fn server_for(env: Env, public_url: Option<&str>) -> Server {
    let description = match env {
        Env::Production => "Production",
        Env::Staging => "Staging",
        Env::Local => "Local",
        Env::E2e => "E2E",
    };
    let url = public_url
        .map(|u| u.trim_end_matches('/').to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "/".to_string());
    Server::builder()
        .url(url)
        .description(Some(description))
        .build()
}

// ----------------------------------------------------------------------------------
// The document

const DESCRIPTION: &str = "\
The public directory API of the community: chapters, committees, events, projects and \
sponsors, members, organizations and snapshots, and the code-hosting activity around them \
(repositories, issues, milestones, releases, labels). Every operation is a `GET`.

**Authentication.** Send your key in the `X-API-Key` header. Production and staging \
require it and allow 10 requests per second per key (a 429 says how long to wait in \
`Retry-After`); local and e2e servers need no key.

**Lists** end with `/`, take `page` (from 1) and `page_size` (1 to 100, default 100) \
and answer `{current_page, has_next, has_previous, items, total_count, total_pages}`. \
`ordering` takes one field, `-` for descending; every ordering is total. String filters \
compare whole values case-insensitively (except `tag_name`); enum values are exact; \
booleans accept `true`/`false`/`1`/`0`; unknown parameters are ignored.

**Caching.** Every 200 has a strong `ETag`; send it in `If-None-Match` to get a 304. \
gzip and brotli are negotiated with `Accept-Encoding`.

**Errors** are JSON: 400 `{message, errors[]}` for invalid parameters, 404 \
`{message: \"<Resource> not found\"}` for a missing record and `{detail}` for a page out \
of range or an unknown path, 401 and 429 `{detail}`.

Timestamps are ISO 8601 in UTC (`2024-03-01T12:00:00Z`); event dates are `YYYY-MM-DD`.";

/// The components every document has, besides those the operations add.
fn base_components(out: &mut Vec<(String, RefOr<Schema>)>) {
    for c in [
        component::<model::ErrorDetail>(),
        component::<model::ValidationErrorSchema>(),
        component::<ProjectLevel>(),
        component::<ProjectType>(),
        component::<EventCategory>(),
        component::<model::IssueState>(),
        component::<SponsorMemberType>(),
    ] {
        (c.add)(out);
    }
}

/// Every property of every object schema is required: the model types serialise
/// every field (`null` when absent), none is skipped.
fn require_all(schema: &mut RefOr<Schema>) {
    match schema {
        RefOr::T(Schema::Object(object)) => {
            object.required = object.properties.keys().cloned().collect();
            for property in object.properties.values_mut() {
                require_all(property);
            }
        }
        RefOr::T(Schema::AllOf(all)) => all.items.iter_mut().for_each(require_all),
        RefOr::T(Schema::Array(array)) => {
            if let utoipa::openapi::schema::ArrayItems::RefOrSchema(items) = &mut array.items {
                require_all(items);
            }
        }
        _ => {}
    }
}

/// A detail flattens its list item: `allOf` of the item's fields and its own. Merge
/// them into one object so generators make one flat type.
fn flatten_all_of(schema: RefOr<Schema>) -> RefOr<Schema> {
    let RefOr::T(Schema::AllOf(AllOf {
        items, description, ..
    })) = schema
    else {
        return schema;
    };
    let mut merged = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(description)
        .build();
    for item in items {
        match item {
            RefOr::T(Schema::Object(part)) => {
                merged.properties.extend(part.properties);
                merged.required.extend(part.required);
            }
            _ => panic!("cannot merge a non-object part of allOf"),
        }
    }
    RefOr::T(Schema::Object(merged))
}

/// The document, with the environment-independent `servers` list of [`servers`].
pub fn document() -> OpenApi {
    let mut components: Vec<(String, RefOr<Schema>)> = Vec::new();
    base_components(&mut components);
    let mut paths = PathsBuilder::new();
    let mut built: Vec<Built> = Vec::new();
    for list in catalog::LISTS {
        built.push(list_operation(list, &mut components));
        if let Some(detail) = catalog::detail_spec(list.path) {
            built.push(detail_operation(detail, &mut components));
        }
        if list.path == "snapshots" {
            for sub in catalog::SNAPSHOT_LISTS {
                built.push(list_operation(sub, &mut components));
            }
        }
    }
    for b in built {
        paths = paths.path(b.path, b.item);
    }

    // Components: first occurrence wins, sorted by name for a stable, findable order.
    let mut seen = std::collections::BTreeMap::new();
    for (name, schema) in components {
        seen.entry(name).or_insert(schema);
    }
    let mut schemas = ComponentsBuilder::new();
    for (name, schema) in seen {
        let mut schema = flatten_all_of(schema);
        require_all(&mut schema);
        schemas = schemas.schema(name, schema);
    }
    let components = schemas
        .security_scheme(
            SECURITY_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                API_KEY_HEADER,
                "An API key (production and staging; local and e2e servers need none).",
            ))),
        )
        .build();

    OpenApiBuilder::new()
        .openapi(OpenApiVersion::Version31)
        .info(
            InfoBuilder::new()
                .title("roost REST API")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(DESCRIPTION))
                .license(Some(
                    LicenseBuilder::new()
                        .name("MIT")
                        .identifier(Some("MIT"))
                        .build(),
                )),
        )
        .servers(Some(servers()))
        .paths(paths)
        .components(Some(components))
        .security(Some([security()]))
        .tags(Some(TAGS.iter().map(|(name, description)| {
            TagBuilder::new()
                .name(*name)
                .description(Some(*description))
                .build()
        })))
        .build()
}

fn to_bytes(doc: &OpenApi) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// The document as written to `site/api/v0/openapi.json` (pretty JSON, final newline;
/// the same bytes on every call).
pub fn document_json() -> Vec<u8> {
    to_bytes(&document())
}

/// The document for one environment: its `servers` list is that environment's
/// entry alone ([`server_for`]). For the shim, which knows both.
pub fn document_for(env: Env, public_url: Option<&str>) -> OpenApi {
    let mut doc = document();
    doc.servers = Some(vec![server_for(env, public_url)]);
    doc
}

/// [`document_for`] as bytes.
pub fn document_json_for(env: Env, public_url: Option<&str>) -> Vec<u8> {
    to_bytes(&document_for(env, public_url))
}
