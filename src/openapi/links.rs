//! The links of the OpenAPI document (docs/api.md §7): which operation a 200 leads
//! to, with the target's parameters taken from the answer (or from the request) by
//! runtime expressions, so that clients and test generators can walk the API:
//!
//! - a list (and a snapshot sub-list) to the detail of its first item, and to the
//!   repository of its first item where the item names one;
//! - a snapshot to its five sub-lists;
//! - an organization and a repository to the lists their records are filtered by
//!   (`?organization=`, `?organization_id=`, `?repository=`);
//! - the snapshot, organization and repository lists to those lists of their first
//!   item, as from its detail.
//!
//! What a record's path ids are is the catalog's ([`DetailSpec::id_names`]); which
//! field of a body holds which id is stated here, once, in [`own_id_field`],
//! [`reference_field`] and [`filter_resource`]. A path id the body does not hold can
//! come from a filter of the request (`$request.query.organization` for a milestone of
//! a list filtered by repository); a record whose own id is in no list item (an
//! issue's number) has no link to it.

use utoipa::openapi::link::{Link, LinkBuilder};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;

use crate::catalog::{self, Component, DetailSpec, ListSpec, ParamKind};

/// The field of a record's body (list item and detail) that holds its own id, the
/// last segment of its detail path.
fn own_id_field(resource: &str) -> &'static str {
    match resource {
        "members" | "organizations" => "login",
        "repositories" => "name",
        "issues" | "milestones" => "number",
        "releases" => "tag_name",
        _ => "key",
    }
}

/// The field of another record's body that names a record of `resource` (the
/// repository of a snapshot's issue or release).
fn reference_field(resource: &str) -> Option<&'static str> {
    match resource {
        "organizations" => Some("organization_login"),
        "repositories" => Some("repository_name"),
        _ => None,
    }
}

/// The resource a text filter names a record of, by the filter's name.
fn filter_resource(name: &str) -> Option<&'static str> {
    match name {
        "organization" | "organization_id" => Some("organizations"),
        "repository" => Some("repositories"),
        _ => None,
    }
}

/// The resource a path id of `detail` names: the record itself for the last one, its
/// organization or repository for the others.
fn id_resource(detail: &DetailSpec, index: usize) -> &'static str {
    if index + 1 == detail.id_names.len() {
        return detail.path;
    }
    match detail.id_names[index] {
        "organization_id" => "organizations",
        "repository_id" => "repositories",
        other => other,
    }
}

/// The records a link may lead to from another resource's list: the repository an
/// item lives in. (Organizations exist for the API only when affiliated, so an
/// item's organization is not linked.)
const REFERENCED: &[&str] = &["repositories"];

/// Where one parameter of a link comes from.
enum Source {
    /// A field of the answer: `$response.body#/<pointer>`.
    Body(String),
    /// A query parameter of the request (a filter of the source list).
    Query(&'static str),
    /// A path id of the request (a detail's own path).
    Path(&'static str),
}

impl Source {
    fn expression(&self) -> String {
        match self {
            Source::Body(pointer) => format!("$response.body#/{pointer}"),
            Source::Query(name) => format!("$request.query.{name}"),
            Source::Path(name) => format!("$request.path.{name}"),
        }
    }
}

/// The property names of a response component (a detail's `allOf` merged).
fn fields(component: Component) -> Vec<String> {
    let mut out: Vec<(String, RefOr<Schema>)> = Vec::new();
    (component.add)(&mut out);
    let name = (component.name)();
    let Some((_, schema)) = out.into_iter().find(|(n, _)| *n == name) else {
        return Vec::new();
    };
    match super::flatten_all_of(schema) {
        RefOr::T(Schema::Object(object)) => object.properties.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// `sources` as a link to `target`, described by `description`.
fn link(target: &str, description: String, sources: Vec<(&str, Source)>) -> Link {
    sources
        .into_iter()
        .fold(
            LinkBuilder::new()
                .operation_id(target)
                .description(description),
            |b, (name, source)| b.parameter(name, source.expression()),
        )
        .build()
}

/// "`organization` and `repository`", the filters a link reads from its request.
fn filters_words(sources: &[(&str, Source)]) -> String {
    let names: Vec<String> = sources
        .iter()
        .filter_map(|(_, s)| match s {
            Source::Query(name) => Some(format!("`{name}`")),
            _ => None,
        })
        .collect();
    names.join(" and ")
}

/// The links of a list's 200: to the detail of its first item, to the record its
/// first item references, and (top-level lists) to the lists of its first item, as
/// from its detail. Named by the target operation.
pub(super) fn list_links(spec: &ListSpec) -> Vec<(String, Link)> {
    let item_fields = fields(spec.item.schema);
    let has = |field: &str| item_fields.iter().any(|f| f == field);
    let referenced = REFERENCED
        .iter()
        .filter(|r| **r != spec.path && reference_field(r).is_some_and(has));
    let targets = catalog::detail_spec(spec.path)
        .into_iter()
        .chain(referenced.filter_map(|r| catalog::detail_spec(r)));
    let mut out = Vec::new();
    'targets: for detail in targets {
        let mut sources = Vec::new();
        for (index, name) in detail.id_names.iter().enumerate() {
            let resource = id_resource(detail, index);
            let field = if resource == spec.path {
                Some(own_id_field(resource))
            } else {
                reference_field(resource)
            };
            let source = match field.filter(|f| has(f)) {
                Some(field) => Source::Body(format!("items/0/{field}")),
                // The record itself must be named by the item.
                None if resource == detail.path => continue 'targets,
                None => match spec.params.iter().find(|p| {
                    p.kind == ParamKind::Text && filter_resource(p.name) == Some(resource)
                }) {
                    Some(filter) => Source::Query(filter.name),
                    None => continue 'targets,
                },
            };
            sources.push((*name, source));
        }
        let singular = detail.singular.to_lowercase();
        let what = if detail.path == spec.path {
            format!("The {singular} of the first item")
        } else {
            format!("The {singular} the first item belongs to")
        };
        let filters = filters_words(&sources);
        let description = if filters.is_empty() {
            format!("{what}.")
        } else {
            format!(
                "{what}, when the list is filtered by {filters}, which name the rest of its path."
            )
        };
        out.push((
            detail.operation_id.to_string(),
            link(detail.operation_id, description, sources),
        ));
    }
    if spec.snapshot_link.is_none() {
        out.extend(record_lists(spec.path, "items/0/", "the first item", |r| {
            let filter = spec
                .params
                .iter()
                .find(|p| p.kind == ParamKind::Text && filter_resource(p.name) == Some(r))?;
            Some(Source::Query(filter.name))
        }));
    }
    out
}

/// The links of a detail's 200: a snapshot to its sub-lists, a record to the lists
/// filtered by it (a repository's organization from the request's path). Named by
/// the target operation.
pub(super) fn detail_links(spec: &DetailSpec) -> Vec<(String, Link)> {
    let singular = spec.singular.to_lowercase();
    record_lists(spec.path, "", &format!("this {singular}"), |resource| {
        (0..spec.id_names.len())
            .find(|&i| id_resource(spec, i) == resource)
            .map(|i| Source::Path(spec.id_names[i]))
    })
}

/// The links from a record of `resource` at `at` in a body (`""`, or `items/0/` for
/// a list's first item), described as `record`, to the lists of that record: a
/// snapshot's sub-lists, and the lists filtered by it. A filter naming another
/// resource (a repository's organization) takes its value from `elsewhere`, or is
/// left out.
fn record_lists(
    resource: &str,
    at: &str,
    record: &str,
    elsewhere: impl Fn(&str) -> Option<Source>,
) -> Vec<(String, Link)> {
    let own = format!("{at}{}", own_id_field(resource));
    let mut out = Vec::new();
    if let Some(snapshots) = catalog::detail_spec("snapshots").filter(|_| resource == "snapshots") {
        for sub in catalog::SNAPSHOT_LISTS {
            out.push((
                sub.operation_id.to_string(),
                link(
                    sub.operation_id,
                    format!("The {} new in {record}.", sub.path),
                    vec![(snapshots.id_names[0], Source::Body(own.clone()))],
                ),
            ));
        }
    }
    for list in catalog::LISTS {
        let filters: Vec<(&str, &str)> = (list.params.iter())
            .filter(|p| p.kind == ParamKind::Text)
            .filter_map(|p| filter_resource(p.name).map(|r| (p.name, r)))
            .collect();
        if !filters.iter().any(|(_, r)| *r == resource) {
            continue;
        }
        let sources = filters
            .into_iter()
            .filter_map(|(name, r)| {
                let source = if r == resource {
                    Some(Source::Body(own.clone()))
                } else {
                    elsewhere(r)
                };
                source.map(|s| (name, s))
            })
            .collect();
        out.push((
            list.operation_id.to_string(),
            link(
                list.operation_id,
                format!("The {} of {record}.", list.path),
                sources,
            ),
        ));
    }
    out
}
