//! Long lists of plain records, written without async-graphql's per-field machinery.
//!
//! async-graphql resolves every field of every object as a boxed future of its own,
//! with a context, a path node and a map insertion. The snapshot page of the frontend
//! asks for all of a month's releases with their authors (thousands of fields), and
//! that machinery was a large part of its time (bench/RESULTS.md). Yet a release's
//! fields are values already read: nothing is loaded, nothing can fail.
//!
//! [`Listed`] is a list field's value. When the selection set asks only for plain
//! fields of the item type ([`Plain`]: stored values, and objects read with the record
//! such as a release's author), the list is written directly, each object's keys in
//! the selection's order. Anything else (a fragment, an argument, a directive left
//! after async-graphql has applied `@skip` and `@include`, `__typename`, a field that
//! loads, the same key twice) makes the whole list go through async-graphql as
//! before, so the two paths answer the same bytes; the GraphQL tests compare them
//! (`plain_lists_answer_the_bytes_resolved_lists_do`).

use std::borrow::Cow;

use async_graphql::indexmap::IndexMap;
use async_graphql::parser::types::{Field, Selection, SelectionSet};
use async_graphql::registry::Registry;
use async_graphql::{ContextSelectionSet, OutputType, Positioned, ServerResult, Value};

use super::records::{
    Carded, Contributor, Event, Issue, Post, PullRequest, Release, Sponsor, User,
};

/// A record type whose plain fields can be written directly.
pub trait Plain: OutputType {
    /// The Rust fields answered directly (checked against the schema by a test).
    #[cfg(test)]
    const FIELDS: &'static [&'static str];
    /// The value of the field `name` (with its own selection `set`), or `None` when
    /// the field is not plain on this record as it was read.
    fn plain(&self, name: &str, set: &SelectionSet) -> Option<Value>;
}

/// The value of a list field of `T`: written directly when its selection allows it.
pub struct Listed<T>(pub Vec<T>);

impl<T: Plain> OutputType for Listed<T> {
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
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        let set = &ctx.item.node;
        let direct: Option<Vec<Value>> = self.0.iter().map(|item| object(item, set)).collect();
        match direct {
            Some(items) => Ok(Value::List(items)),
            None => self.0.resolve(ctx, field).await,
        }
    }
}

/// `item` as an object of the fields of `set`, or `None` if one of them is not
/// plain.
pub fn object<T: Plain>(item: &T, set: &SelectionSet) -> Option<Value> {
    let mut map = IndexMap::with_capacity(set.items.len());
    for selection in &set.items {
        let Selection::Field(field) = &selection.node else {
            return None;
        };
        let field = &field.node;
        if !field.directives.is_empty() || !field.arguments.is_empty() {
            return None;
        }
        let value = item.plain(field.name.node.as_str(), &field.selection_set.node)?;
        // The same key twice is merged by async-graphql's path.
        if map
            .insert(field.response_key().node.clone(), value)
            .is_some()
        {
            return None;
        }
    }
    // async-graphql answers an object without fields as null; a valid document has
    // at least one, and this path keeps no other case.
    (!map.is_empty()).then_some(Value::Object(map))
}

/// The fields of a member's card ([`super::records::CardRelease`]).
const CARD: [&str; 4] = ["id", "login", "name", "avatarUrl"];

/// Whether a selection of releases asks no more of their authors than their cards:
/// every selection is a field (a fragment could ask for anything), and every field
/// selected of an `author` is a card field.
pub fn authors_as_cards(set: &SelectionSet) -> bool {
    fields(set).all(|field| match field {
        None => false,
        Some(field) if field.name.node != "author" => true,
        Some(author) => fields(&author.selection_set.node)
            .all(|f| f.is_some_and(|f| CARD.contains(&f.name.node.as_str()))),
    })
}

/// The selections of `set`, each a field or `None` (a fragment).
fn fields(set: &SelectionSet) -> impl Iterator<Item = Option<&Field>> {
    set.items.iter().map(|selection| match &selection.node {
        Selection::Field(field) => Some(&field.node),
        _ => None,
    })
}

/// A stored value as the GraphQL value async-graphql writes for it.
trait PlainValue {
    fn value(&self) -> Value;
}

impl PlainValue for String {
    fn value(&self) -> Value {
        Value::String(self.clone())
    }
}

impl PlainValue for async_graphql::ID {
    fn value(&self) -> Value {
        Value::String(self.0.clone())
    }
}

impl PlainValue for Option<String> {
    fn value(&self) -> Value {
        self.as_ref().map_or(Value::Null, String::value)
    }
}

impl PlainValue for i64 {
    fn value(&self) -> Value {
        Value::Number((*self).into())
    }
}

impl PlainValue for bool {
    fn value(&self) -> Value {
        Value::Boolean(*self)
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

/// The author's card, when it was read with the record.
fn card(author: &Option<Option<User>>, set: &SelectionSet) -> Option<Value> {
    match author.as_ref()? {
        Some(author) => object(author, set),
        None => Some(Value::Null),
    }
}

/// The [`Plain`] implementation of a record type: the stored fields named, each
/// answered under its GraphQL name (`[record]`: the fields of `self.record`, a record
/// read with its author's card), and `with author` for a record whose author may have
/// been read with it ([`card`]). A field left out (one that loads, a float) sends the
/// list through async-graphql.
macro_rules! plain {
    ($ty:ty $([$record:ident])? { $($field:ident),+ $(,)? } $(with $author:ident)?) => {
        impl Plain for $ty {
            #[cfg(test)]
            const FIELDS: &'static [&'static str] =
                &[$(stringify!($field)),+ $(, stringify!($author))?];

            fn plain(&self, name: &str, _set: &SelectionSet) -> Option<Value> {
                let record = &self$(.$record)?;
                $(
                    if names(name, stringify!($field)) {
                        return Some(record.$field.value());
                    }
                )+
                $(
                    if name == stringify!($author) {
                        return card(&self.$author, _set);
                    }
                )?
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
    with author
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
    with author
}

plain! {
    Carded<PullRequest> [record] {
        node_id, number, title, state, url, organization_name, repository_name, created_at,
        updated_at, closed_at, merged_at,
    }
    with author
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
