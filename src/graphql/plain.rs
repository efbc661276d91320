//! Long lists of plain records, written without async-graphql's per-field machinery.
//!
//! async-graphql resolves every field of every object as a boxed future of its own,
//! with a context, a path node and a map insertion: about 3,000 instructions a field.
//! The snapshot page of the frontend asks for all of a month's releases with their
//! authors (529 releases, about 6,300 fields at `nest`), and that machinery was a third
//! of its time. Yet a release's fields are values already read: nothing is loaded,
//! nothing can fail.
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

fn text(value: &str) -> Option<Value> {
    Some(Value::String(value.to_owned()))
}

fn opt_text(value: &Option<String>) -> Option<Value> {
    Some(
        value
            .as_deref()
            .map_or(Value::Null, |v| Value::String(v.to_owned())),
    )
}

fn number(value: i64) -> Option<Value> {
    Some(Value::Number(value.into()))
}

impl Plain for Release {
    fn plain(&self, name: &str, set: &SelectionSet) -> Option<Value> {
        match name {
            "id" => text(&self.node_id),
            "tagName" => text(&self.tag_name),
            "name" => text(&self.name),
            "description" => text(&self.description),
            "url" => text(&self.url),
            "isPreRelease" => Some(Value::Boolean(self.is_pre_release)),
            "organizationName" => text(&self.organization_name),
            "repositoryName" => text(&self.repository_name),
            "projectName" => opt_text(&self.project_name),
            "publishedAt" => opt_text(&self.published_at),
            "createdAt" => text(&self.created_at),
            // Plain only when the author was read with the release.
            "author" => match self.author.as_ref()? {
                Some(author) => object(author, set),
                None => Some(Value::Null),
            },
            _ => None,
        }
    }
}

impl Plain for User {
    fn plain(&self, name: &str, _set: &SelectionSet) -> Option<Value> {
        match name {
            "id" => text(&self.node_id),
            "login" => text(&self.login),
            "name" => text(&self.name),
            "avatarUrl" => text(&self.avatar_url),
            "url" => text(&self.url),
            "bio" => text(&self.bio),
            "company" => text(&self.company),
            "location" => text(&self.location),
            "title" => text(&self.title),
            "twitterUsername" => text(&self.twitter_username),
            "followersCount" => number(self.followers_count),
            "followingCount" => number(self.following_count),
            "publicRepositoriesCount" => number(self.public_repositories_count),
            "createdAt" => text(&self.created_at),
            "updatedAt" => text(&self.updated_at),
            "email" => text(&self.email),
            _ => None,
        }
    }
}

fn flag(value: bool) -> Option<Value> {
    Some(Value::Boolean(value))
}

impl Plain for Sponsor {
    fn plain(&self, name: &str, _set: &SelectionSet) -> Option<Value> {
        match name {
            "id" => text(&self.node_id),
            "key" => text(&self.key),
            "name" => text(&self.name),
            "sponsorType" => text(&self.sponsor_type),
            "isMember" => flag(self.is_member),
            "memberType" => text(&self.member_type),
            "imageUrl" => text(&self.image_url),
            "url" => text(&self.url),
            "jobUrl" => text(&self.job_url),
            "description" => text(&self.description),
            _ => None,
        }
    }
}

impl Plain for Contributor {
    fn plain(&self, name: &str, _set: &SelectionSet) -> Option<Value> {
        match name {
            "id" => text(&self.node_id),
            "login" => text(&self.login),
            "name" => text(&self.name),
            "avatarUrl" => text(&self.avatar_url),
            "contributionsCount" => number(self.contributions_count),
            "projectKey" => opt_text(&self.project_key),
            "projectName" => opt_text(&self.project_name),
            _ => None,
        }
    }
}

impl Plain for Post {
    fn plain(&self, name: &str, _set: &SelectionSet) -> Option<Value> {
        match name {
            "id" => text(&self.node_id),
            "title" => text(&self.title),
            "url" => text(&self.url),
            "authorName" => text(&self.author_name),
            "authorImageUrl" => text(&self.author_image_url),
            "publishedAt" => text(&self.published_at),
            "createdAt" => text(&self.created_at),
            "updatedAt" => text(&self.updated_at),
            _ => None,
        }
    }
}

/// Latitude and longitude (floats) go through async-graphql.
impl Plain for Event {
    fn plain(&self, name: &str, _set: &SelectionSet) -> Option<Value> {
        match name {
            "id" => text(&self.node_id),
            "key" => text(&self.key),
            "name" => text(&self.name),
            "category" => text(&self.category),
            "startDate" => text(&self.start_date),
            "endDate" => opt_text(&self.end_date),
            "url" => opt_text(&self.url),
            "description" => opt_text(&self.description),
            "summary" => text(&self.summary),
            "suggestedLocation" => text(&self.suggested_location),
            _ => None,
        }
    }
}

/// The author's card, when it was read with the record.
fn card(author: &Option<Option<User>>, set: &SelectionSet) -> Option<Value> {
    match author.as_ref()? {
        Some(author) => object(author, set),
        None => Some(Value::Null),
    }
}

/// Labels are loaded: they go through async-graphql.
impl Plain for Carded<Issue> {
    fn plain(&self, name: &str, set: &SelectionSet) -> Option<Value> {
        let issue = &self.record;
        match name {
            "id" => text(&issue.node_id),
            "number" => number(issue.number),
            "title" => text(&issue.title),
            "state" => text(&issue.state),
            "body" => text(&issue.body),
            "url" => text(&issue.url),
            "organizationName" => text(&issue.organization_name),
            "repositoryName" => text(&issue.repository_name),
            "createdAt" => text(&issue.created_at),
            "updatedAt" => text(&issue.updated_at),
            "author" => card(&self.author, set),
            _ => None,
        }
    }
}

impl Plain for Carded<PullRequest> {
    fn plain(&self, name: &str, set: &SelectionSet) -> Option<Value> {
        let pull = &self.record;
        match name {
            "id" => text(&pull.node_id),
            "number" => number(pull.number),
            "title" => text(&pull.title),
            "state" => text(&pull.state),
            "url" => text(&pull.url),
            "organizationName" => text(&pull.organization_name),
            "repositoryName" => text(&pull.repository_name),
            "createdAt" => text(&pull.created_at),
            "updatedAt" => text(&pull.updated_at),
            "closedAt" => opt_text(&pull.closed_at),
            "mergedAt" => opt_text(&pull.merged_at),
            "author" => card(&self.author, set),
            _ => None,
        }
    }
}
