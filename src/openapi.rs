//! The OpenAPI document of REST v0 (docs/api.md §7), served at `/api/v0/openapi.json`
//! and rendered into the docs page.
//!
//! Nothing here is hand-written JSON. The document is assembled with utoipa from:
//! - the catalog's specs ([`catalog::LISTS`], [`catalog::SNAPSHOT_LISTS`],
//!   [`catalog::DETAILS`]): paths, operation ids, path ids, filters with their
//!   [`catalog::ParamKind`], orderings and the default order, the singular names of the
//!   "not found" messages, and the response type each spec links to (a
//!   [`crate::model`] type, whose `ToSchema` derive gives the item or detail
//!   component);
//! - the vocabularies of [`crate::vocab`] for the enum components; and
//! - the error bodies of [`crate::model`].
//!
//! This file assembles the document (tags, servers, components, the whole);
//! `operations` builds one operation per list and detail, `parameters` their
//! parameters, `links` the links from their answers to other operations.
//!
//! The bytes are deterministic (insertion-ordered maps, no timestamps), so
//! `tests/openapi.rs` can compare them with a reviewed snapshot.

mod links;
mod operations;
mod parameters;

use utoipa::openapi::schema::{AllOf, ComponentsBuilder, ObjectBuilder, Type};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::server::{Server, ServerBuilder, ServerVariableBuilder};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    InfoBuilder, LicenseBuilder, OpenApi, OpenApiBuilder, OpenApiVersion, PathsBuilder, RefOr,
    Schema,
};

use self::operations::{detail_operation, list_operation, security, Built};
use crate::catalog::{self, Component};
use crate::config::Env;
use crate::{model, vocab};

/// Name of the security scheme; SDK generators derive their key parameter from it.
pub const SECURITY_SCHEME: &str = "ApiKey";
/// The header that carries the API key.
pub const API_KEY_HEADER: &str = "X-API-Key";

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
    (
        "Labels",
        "Issue labels, one item per label record: a label belongs to one repository or is \
         shared by all of them, so a name such as `bug` is listed once per repository that \
         has its own.",
    ),
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
// Servers

/// One `servers` entry per environment (docs/api.md §1). The generated document
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
require it and allow 10 requests per second per key: every answer to a keyed request \
says the budget in `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (IETF \
RateLimit header fields draft), and a 429 says how long to wait in `Retry-After`. Requests without a valid key are 401, limited per client address to 10 \
per second (then 429); a valid key is served whatever else its address sends. Local and \
e2e servers need no key.

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
        Component::of::<model::ErrorDetail>(),
        Component::of::<model::ValidationErrorSchema>(),
    ] {
        (c.add)(out);
    }
    for vocab in vocab::ALL {
        out.push((vocab.name.to_string(), vocab.schema()));
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

fn to_bytes(doc: &OpenApi) -> Result<Vec<u8>, serde_json::Error> {
    let mut bytes = serde_json::to_vec_pretty(doc)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The document as written to `site/api/v0/openapi.json` (pretty JSON, final newline;
/// the same bytes on every call).
pub fn document_json() -> Result<Vec<u8>, serde_json::Error> {
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
pub fn document_json_for(env: Env, public_url: Option<&str>) -> Result<Vec<u8>, serde_json::Error> {
    to_bytes(&document_for(env, public_url))
}
