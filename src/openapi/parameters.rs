//! The parameters of the OpenAPI document: a list's filters (from the catalog's
//! [`ParamKind`]s and vocabularies), `ordering` with its default, `page` and
//! `page_size`, and the path ids of a detail.

use utoipa::openapi::extensions::{Extensions, ExtensionsBuilder};
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn, ParameterStyle};
use utoipa::openapi::schema::{ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, Type};
use utoipa::openapi::{Ref, RefOr, Required, Schema};

use crate::catalog::{self, IdRule, ListSpec, ParamKind};
use crate::vocab::Vocab;

pub(super) fn string_schema() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// A parameter `name` in `location` (required in the path, optional in the query).
fn parameter(
    name: &str,
    location: ParameterIn,
    description: String,
    schema: impl Into<RefOr<Schema>>,
) -> ParameterBuilder {
    let required = match location {
        ParameterIn::Path => Required::True,
        _ => Required::False,
    };
    ParameterBuilder::new()
        .name(name)
        .parameter_in(location)
        .required(required)
        .description(Some(description))
        .schema(Some(schema))
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
    parameter(name, ParameterIn::Query, description, schema).extensions(Some(keywords))
}

/// The field a coordinate bound applies to (`t.latitude` → `latitude`).
fn column_name(expr: &str) -> &str {
    expr.rsplit('.').next().unwrap_or(expr)
}

// One arm per filter kind, each the wording and schema of that kind: the length is
// the number of kinds.
fn filter_parameter(
    p: &catalog::Param,
    components: &mut Vec<(String, RefOr<Schema>)>,
) -> Parameter {
    let given = (!p.description.is_empty()).then(|| p.description.to_string());
    let mut enum_schema = |vocab: &Vocab| -> RefOr<Schema> {
        components.push((vocab.name.to_string(), vocab.schema()));
        Ref::from_schema_name(vocab.name).into()
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
        // No `uniqueItems`: a value given twice counts once, as the file tree's
        // canonical query (and every CDN rule built on it) reads it, so it is not an
        // error (docs/api.md §2, "Query parameters").
        ParamKind::Choices(allowed) => query(
            p.name,
            format!(
                "Only records with any of these {} values; repeat the parameter \
                 (`?{0}={1}&{0}={2}`). A value given twice counts once.",
                p.name,
                allowed.values[0],
                allowed.values.get(1).unwrap_or(&allowed.values[0])
            ),
            ArrayBuilder::new().items(enum_schema(allowed)),
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
             `name:juice stars:>=100`. `pattern` is this grammar: a value it matches is \
             answered, one it does not is a 400."
                .to_string(),
            string_schema()
                .max_length(Some(crate::search::MAX_QUERY_CHARS))
                .pattern(Some(crate::search::pattern()))
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
    match spec.default_order_words {
        "" => "the records' stable id order",
        words => words,
    }
}

pub(super) fn list_parameters(
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

pub(super) fn path_parameter(name: &str, rule: IdRule) -> Parameter {
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
    parameter(name, ParameterIn::Path, how, schema).build()
}
