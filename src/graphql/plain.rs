//! Long lists of plain records, written straight into the response's JSON.
//!
//! async-graphql resolves every field of every object as a boxed future of its own,
//! with a context, a path node and a map insertion, into a tree of values that is
//! then ordered ([`super::order`]), serialised and freed. The snapshot page of the
//! frontend asks for all of a month's releases with their authors (thousands of
//! fields), and that machinery was most of its time (bench/history/2026-11.md, "The
//! executed `snapshot` page"). Yet a release's fields are values already read:
//! nothing is loaded, nothing can fail.
//!
//! [`Listed`] is a list field's value. When the selection set asks only for plain
//! fields of the item type ([`Plain`]: stored values, and objects read with the record
//! such as a release's author), the list is written as JSON bytes, each object's keys
//! in the selection's order, and carried to the response as a `Value::Binary` that
//! [`response_json`] splices in as it is. Anything else (a fragment, an argument, a
//! directive left after async-graphql has applied `@skip` and `@include`,
//! `__typename`, a field that loads, an operation that selects one key twice
//! anywhere: [`Direct`]) makes the whole list go through async-graphql as before, so
//! the two paths answer the same bytes; the GraphQL tests compare them
//! (`plain_lists_answer_the_bytes_resolved_lists_do`).

use std::borrow::Cow;

use async_graphql::parser::types::{Field, Selection, SelectionSet};
use async_graphql::registry::Registry;
use async_graphql::{ContextSelectionSet, OutputType, Positioned, ServerResult, Value};

use super::escape::string;
use super::records::{
    Carded, Contributor, Event, HealthMetrics, Issue, OrgCarded, Organization, Post, PullRequest,
    Release, Repository, Sponsor, User,
};

/// A record type whose plain fields can be written directly.
pub trait Plain: OutputType {
    /// The Rust fields answered directly, in the order of their indexes (checked
    /// against the schema by a test).
    const FIELDS: &'static [&'static str];
    /// The index of the plain field `name` and the plan of its own selection `set`
    /// (an author's card), or `None` when `name` is not plain on this type.
    fn field(name: &str, set: &SelectionSet) -> Option<(usize, Option<Plan>)>;
    /// Writes the JSON value of the field `field` (an index from [`Plain::field`]),
    /// or returns `None` when it is not plain on this record as it was read.
    fn write(&self, field: usize, plan: Option<&Plan>, out: &mut Vec<u8>) -> Option<()>;
}

/// An output type that wraps a list of `T`: its GraphQL type is the list's own
/// (`[T!]!`), and `resolve` (given as `|self, ctx, field| body`) answers it.
macro_rules! list_output {
    ($ty:ty, |$this:ident, $ctx:ident, $field:ident| $resolve:block) => {
        impl<T: Plain> OutputType for $ty {
            fn type_name() -> Cow<'static, str> {
                Vec::<T>::type_name()
            }

            fn qualified_type_name() -> String {
                Vec::<T>::qualified_type_name()
            }

            fn create_type_info(registry: &mut Registry) -> String {
                Vec::<T>::create_type_info(registry)
            }

            async fn resolve(
                &self,
                $ctx: &ContextSelectionSet<'_>,
                $field: &Positioned<Field>,
            ) -> ServerResult<Value> {
                let $this = self;
                $resolve
            }
        }
    };
}

/// The value of a list field of `T`: written directly when its selection allows it.
pub struct Listed<T>(pub Vec<T>);

impl<T> From<Vec<T>> for Listed<T> {
    fn from(records: Vec<T>) -> Self {
        Listed(records)
    }
}

/// Request data: the operation selects no response key twice in any selection set
/// ([`super::order::KeyOrder`]), so lists may be written directly. async-graphql
/// merges a key selected twice by walking both values, and a list written as bytes
/// has no values to walk.
pub struct Direct;

list_output!(Listed<T>, |this, ctx, field| {
    if ctx.data_opt::<Direct>().is_some() {
        if let Some(bytes) = list(&this.0, &ctx.item.node) {
            return Ok(Value::Binary(bytes.into()));
        }
    }
    this.0.resolve(ctx, field).await
});

/// The value of a list field of `T` that may have been written as JSON straight from
/// its rows ([`super::rows`]) rather than read into records.
pub enum Rows<T> {
    /// The list's JSON array, as the records would have written it.
    Written(bytes::Bytes),
    Records(Listed<T>),
}

list_output!(Rows<T>, |this, ctx, field| {
    match this {
        Rows::Written(json) => Ok(Value::Binary(json.clone())),
        Rows::Records(records) => records.resolve(ctx, field).await,
    }
});

/// The JSON array of `items` with the fields of `set`, or `None` if one of them is
/// not plain.
fn list<T: Plain>(items: &[T], set: &SelectionSet) -> Option<Vec<u8>> {
    let plan = Plan::of::<T>(set)?;
    let mut out = Vec::with_capacity(64 + items.len() * 32 * plan.steps.len());
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        plan.write(item, &mut out)?;
    }
    out.push(b']');
    Some(out)
}

/// How to write an object of a selection set: its fields in the selection's order
/// (the response's, as no key is selected twice), each found once for the whole list.
pub struct Plan {
    steps: Vec<Step>,
}

struct Step {
    /// The field's response key as JSON, with the comma before it and the colon.
    key: Vec<u8>,
    /// The field's index ([`Plain::field`]).
    field: usize,
    /// The plan of the field's own selection.
    plan: Option<Plan>,
}

impl Plan {
    /// The plan of `set` on `T`, or `None` if one of its selections is not a plain
    /// field.
    fn of<T: Plain>(set: &SelectionSet) -> Option<Plan> {
        // async-graphql answers an object without fields as null; a valid document
        // has at least one, and this path keeps no other case.
        if set.items.is_empty() {
            return None;
        }
        let mut steps = Vec::with_capacity(set.items.len());
        for selection in &set.items {
            let Selection::Field(field) = &selection.node else {
                return None;
            };
            let field = &field.node;
            if !field.directives.is_empty() || !field.arguments.is_empty() {
                return None;
            }
            let (index, plan) = T::field(field.name.node.as_str(), &field.selection_set.node)?;
            let mut key = Vec::new();
            if !steps.is_empty() {
                key.push(b',');
            }
            string(field.response_key().node.as_str(), &mut key);
            key.push(b':');
            steps.push(Step {
                key,
                field: index,
                plan,
            });
        }
        Some(Plan { steps })
    }

    /// Writes `item` as an object, or returns `None` if one of its fields is not
    /// plain on it.
    fn write<T: Plain>(&self, item: &T, out: &mut Vec<u8>) -> Option<()> {
        out.push(b'{');
        for step in &self.steps {
            out.extend_from_slice(&step.key);
            item.write(step.field, step.plan.as_ref(), out)?;
        }
        out.push(b'}');
        Some(())
    }
}

/// The response as JSON: what serde_json writes for it, with the lists written
/// directly ([`Listed`], held as `Value::Binary`) spliced in as they are. Every
/// executed response is written this way; nothing else in a response is binary.
pub fn response_json(response: &async_graphql::Response) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(b"{\"data\":");
    value(&response.data, &mut out)?;
    if !response.extensions.is_empty() {
        out.extend_from_slice(b",\"extensions\":");
        serde_json::to_writer(&mut out, &response.extensions)?;
    }
    if !response.errors.is_empty() {
        out.extend_from_slice(b",\"errors\":");
        serde_json::to_writer(&mut out, &response.errors)?;
    }
    out.push(b'}');
    Ok(out)
}

fn value(v: &Value, out: &mut Vec<u8>) -> serde_json::Result<()> {
    match v {
        Value::Binary(bytes) => out.extend_from_slice(bytes),
        Value::List(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                value(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(key.as_str(), out);
                out.push(b':');
                value(item, out)?;
            }
            out.push(b'}');
        }
        Value::String(s) => string(s, out),
        scalar => serde_json::to_writer(&mut *out, scalar)?,
    }
    Ok(())
}

/// The fields of a member's card ([`super::records::CardRelease`]).
const CARD: [&str; 4] = ["id", "login", "name", "avatarUrl"];

/// The fields of an organization's card ([`super::records::OrgCarded`]).
const ORGANIZATION_CARD: [&str; 4] = ["id", "login", "name", "avatarUrl"];

/// Whether a selection of releases asks no more of their authors than their cards:
/// every selection is a field (a fragment could ask for anything), and every field
/// selected of an `author` is a card field.
pub fn authors_as_cards(set: &SelectionSet) -> bool {
    cards_only(set, "author", &CARD)
}

/// The fields of a release a [`super::records::SummaryRelease`] leaves out.
const NOT_SUMMARY: [&str; 3] = ["description", "url", "createdAt"];

/// Whether a selection of releases asks for none of the fields a summary leaves out,
/// and no more of their authors than their cards.
pub fn releases_as_summaries(set: &SelectionSet) -> bool {
    authors_as_cards(set)
        && fields(set).all(|f| f.is_some_and(|f| !NOT_SUMMARY.contains(&f.name.node.as_str())))
}

/// The fields of a repository a [`super::records::RepositorySummary`] reads.
const REPOSITORY_SUMMARY: [&str; 11] = [
    "id",
    "key",
    "name",
    "url",
    "contributorsCount",
    "forksCount",
    "openIssuesCount",
    "starsCount",
    "subscribersCount",
    "isArchived",
    "organization",
];

/// Whether a selection of repositories asks only for the fields of a summary, and no
/// more of their organizations than their cards.
pub fn repositories_as_summaries(set: &SelectionSet) -> bool {
    organizations_as_cards(set)
        && fields(set)
            .all(|f| f.is_some_and(|f| REPOSITORY_SUMMARY.contains(&f.name.node.as_str())))
}

/// Whether a selection of repositories asks no more of their organizations than
/// their cards (as [`authors_as_cards`]).
pub fn organizations_as_cards(set: &SelectionSet) -> bool {
    cards_only(set, "organization", &ORGANIZATION_CARD)
}

/// Whether every selection of `set` is a field, and every field selected of
/// `object` one of `card`.
fn cards_only(set: &SelectionSet, object: &str, card: &[&str]) -> bool {
    fields(set).all(|field| match field {
        None => false,
        Some(field) if field.name.node != object => true,
        Some(object) => fields(&object.selection_set.node)
            .all(|f| f.is_some_and(|f| card.contains(&f.name.node.as_str()))),
    })
}

/// The selections of `set`, each a field or `None` (a fragment).
fn fields(set: &SelectionSet) -> impl Iterator<Item = Option<&Field>> {
    set.items.iter().map(|selection| match &selection.node {
        Selection::Field(field) => Some(&field.node),
        _ => None,
    })
}

/// A stored value, written as the JSON async-graphql writes for it.
trait PlainValue {
    fn write(&self, out: &mut Vec<u8>);
}

impl PlainValue for String {
    fn write(&self, out: &mut Vec<u8>) {
        string(self, out);
    }
}

impl PlainValue for async_graphql::ID {
    fn write(&self, out: &mut Vec<u8>) {
        string(&self.0, out);
    }
}

impl PlainValue for i64 {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(itoa::Buffer::new().format(*self).as_bytes());
    }
}

/// A float as async-graphql writes it: its `serde_json::Number`, or null when JSON
/// has no number for it.
impl PlainValue for f64 {
    fn write(&self, out: &mut Vec<u8>) {
        match serde_json::Number::from_f64(*self) {
            Some(n) => {
                // Writing a number into a vector cannot fail.
                let _ = serde_json::to_writer(&mut *out, &n);
            }
            None => out.extend_from_slice(b"null"),
        }
    }
}

impl<T: PlainValue> PlainValue for Option<T> {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Some(v) => v.write(out),
            None => out.extend_from_slice(b"null"),
        }
    }
}

impl PlainValue for bool {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
    }
}

/// Whether `name`, a field's GraphQL name, is the Rust field `field`: its name in
/// camelCase, as async-graphql names fields (`node_id` is every record's `id`).
fn names(name: &str, field: &str) -> bool {
    if field == "node_id" {
        return name == "id";
    }
    let mut name = name.bytes();
    let mut upper = false;
    for b in field.bytes() {
        if b == b'_' {
            upper = true;
            continue;
        }
        let expected = if upper { b.to_ascii_uppercase() } else { b };
        upper = false;
        if name.next() != Some(expected) {
            return false;
        }
    }
    name.next().is_none()
}

/// Writes a card (an author's, an organization's) with `plan`, when it was read with
/// the record.
fn card<T: Plain>(card: &Option<Option<T>>, plan: Option<&Plan>, out: &mut Vec<u8>) -> Option<()> {
    match card.as_ref()? {
        Some(card) => plan?.write(card, out),
        None => {
            out.extend_from_slice(b"null");
            Some(())
        }
    }
}

/// The [`Plain`] implementation of a record type: the stored fields named, each
/// answered under its GraphQL name (`[record]`: the fields of `self.record`, a record
/// read with its author's card), and `with author: User` for a record whose author
/// (or another object) may have been read with it ([`card`]), the last index. A field
/// left out (one that loads, a float) sends the list through async-graphql.
macro_rules! plain {
    ($ty:ty $([$record:ident])? { $($field:ident),+ $(,)? }
     $(with $author:ident: $card:ty)?) => {
        impl Plain for $ty {
            const FIELDS: &'static [&'static str] =
                &[$(stringify!($field)),+ $(, stringify!($author))?];

            fn field(name: &str, _set: &SelectionSet) -> Option<(usize, Option<Plan>)> {
                let at = Self::FIELDS.iter().position(|field| names(name, field))?;
                $(
                    if Self::FIELDS[at] == stringify!($author) {
                        return Some((at, Some(Plan::of::<$card>(_set)?)));
                    }
                )?
                Some((at, None))
            }

            fn write(&self, field: usize, _plan: Option<&Plan>, out: &mut Vec<u8>) -> Option<()> {
                let record = &self$(.$record)?;
                let mut at = 0;
                $(
                    if field == at {
                        record.$field.write(out);
                        return Some(());
                    }
                    at += 1;
                )+
                $(
                    if field == at {
                        return card(&self.$author, _plan, out);
                    }
                )?
                let _ = at;
                None
            }
        }
    };
}

plain! {
    Release {
        node_id, tag_name, name, description, url, is_pre_release, organization_name,
        repository_name, project_name, published_at, created_at,
    }
    with author: User
}

plain! {
    User {
        node_id, login, name, avatar_url, url, bio, company, location, title,
        twitter_username, followers_count, following_count, public_repositories_count,
        created_at, updated_at, email,
    }
}

plain! {
    Sponsor {
        node_id, key, name, sponsor_type, is_member, member_type, image_url, url, job_url,
        description,
    }
}

plain! {
    Contributor {
        node_id, login, name, avatar_url, contributions_count, project_key, project_name,
    }
}

plain! {
    Post {
        node_id, title, url, author_name, author_image_url, published_at, created_at,
        updated_at,
    }
}

// Latitude and longitude (floats) go through async-graphql.
plain! {
    Event {
        node_id, key, name, category, start_date, end_date, url, description, summary,
        suggested_location,
    }
}

// Labels are loaded: they go through async-graphql.
plain! {
    Carded<Issue> [record] {
        node_id, number, title, state, body, url, organization_name, repository_name,
        created_at, updated_at,
    }
    with author: User
}

plain! {
    Carded<PullRequest> [record] {
        node_id, number, title, state, url, organization_name, repository_name, created_at,
        updated_at, closed_at, merged_at,
    }
    with author: User
}

// Languages and topics (lists) and the size go through async-graphql.
plain! {
    OrgCarded<Repository> [record] {
        node_id, key, name, description, url, commits_count, contributors_count,
        forks_count, open_issues_count, stars_count, subscribers_count, is_archived,
        license, created_at, updated_at,
    }
    with organization: Organization
}

plain! {
    Organization {
        node_id, login, name, avatar_url, company, location, description, url,
        followers_count, created_at, updated_at, email, collaborators_count,
    }
}

plain! {
    HealthMetrics {
        node_id, created_at, project_key, project_name, score, stars_count, forks_count,
        contributors_count, open_issues_count, open_pull_requests_count,
        unanswered_issues_count, unassigned_issues_count, total_issues_count,
        recent_releases_count, total_releases_count, is_funding_requirements_compliant,
        is_leader_requirements_compliant, age_days, age_days_requirement, last_commit_days,
        last_commit_days_requirement, last_pull_request_days,
        last_pull_request_days_requirement, last_release_days, last_release_days_requirement,
        owasp_page_last_update_days, owasp_page_last_update_days_requirement,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of `type name { ... }` in the schema's SDL.
    fn sdl_fields(sdl: &str, name: &str) -> Vec<String> {
        let start = sdl
            .find(&format!("type {name} "))
            .expect("the type is in the SDL");
        let body = &sdl[start..start + sdl[start..].find('}').unwrap()];
        body.lines()
            .filter_map(|line| {
                let field = line.trim().split(['(', ':']).next()?;
                (line.starts_with('\t') && line.contains(':')).then(|| field.to_string())
            })
            .collect()
    }

    fn every_field_is_in_the_schema<T: Plain>() {
        let sdl = crate::graphql::sdl();
        let name = T::type_name();
        let fields = sdl_fields(&sdl, &name);
        for field in T::FIELDS {
            assert!(
                fields.iter().any(|f| names(f, field)),
                "{name}.{field} is not a field of {name}: {fields:?}"
            );
        }
    }

    #[test]
    fn plain_fields_are_fields_of_their_types() {
        every_field_is_in_the_schema::<Release>();
        every_field_is_in_the_schema::<User>();
        every_field_is_in_the_schema::<Sponsor>();
        every_field_is_in_the_schema::<Contributor>();
        every_field_is_in_the_schema::<Post>();
        every_field_is_in_the_schema::<Event>();
        every_field_is_in_the_schema::<Carded<Issue>>();
        every_field_is_in_the_schema::<Carded<PullRequest>>();
        every_field_is_in_the_schema::<OrgCarded<Repository>>();
        every_field_is_in_the_schema::<Organization>();
        every_field_is_in_the_schema::<HealthMetrics>();
    }

    #[test]
    fn graphql_names_are_camel_case() {
        assert!(names("id", "node_id"));
        assert!(names("isPreRelease", "is_pre_release"));
        assert!(names("login", "login"));
        assert!(!names("nodeId", "node_id"));
        assert!(!names("isPre", "is_pre_release"));
        assert!(!names("isPreReleases", "is_pre_release"));
        assert!(!names("is_pre_release", "is_pre_release"));
    }
}
