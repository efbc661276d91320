//! The value vocabularies of the API: the fixed sets of values a field or a filter
//! takes (project levels and types, event categories, issue states, sponsor member
//! types), each with the OpenAPI component that names it.
//!
//! This is the ground floor under `model` (whose fields point at the components),
//! `catalog` (whose filters validate against the values) and `openapi` (which
//! documents both): it imports nothing from roost.

use std::borrow::Cow;

use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

/// A fixed set of values, exact (case-sensitive), in their documented order.
#[derive(Debug, PartialEq, Eq)]
pub struct Vocab {
    /// The name of its OpenAPI component.
    pub name: &'static str,
    /// The component's description.
    pub description: &'static str,
    pub values: &'static [&'static str],
}

impl Vocab {
    /// Whether `value` is one of the values (exactly).
    pub fn contains(&self, value: &str) -> bool {
        self.values.contains(&value)
    }

    /// The component: a string with these values.
    pub fn schema(&self) -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(self.description))
            .enum_values(Some(self.values.iter().copied()))
            .into()
    }
}

/// A vocabulary: its values, the [`Vocab`] and a marker type that names the component
/// in `#[schema(value_type = …)]`.
macro_rules! vocabulary {
    ($(#[$doc:meta])* $marker:ident, $vocab:ident, $values:ident = [$($value:literal),+ $(,)?],
     $description:literal) => {
        pub const $values: &[&str] = &[$($value),+];

        $(#[$doc])*
        pub const $vocab: Vocab = Vocab {
            name: stringify!($marker),
            description: $description,
            values: $values,
        };

        $(#[$doc])*
        pub struct $marker;

        impl PartialSchema for $marker {
            fn schema() -> RefOr<Schema> {
                $vocab.schema()
            }
        }

        impl ToSchema for $marker {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($vocab.name)
            }
        }
    };
}

vocabulary!(
    /// `ProjectLevel`: the `level` of a project and the `level` filter.
    ProjectLevel, PROJECT_LEVEL,
    PROJECT_LEVELS = ["flagship", "production", "incubator", "lab", "demo"],
    "Project level."
);
vocabulary!(
    /// `ProjectType`: the `type` of a project and the repeatable `type` filter.
    ProjectType, PROJECT_TYPE,
    PROJECT_TYPES = ["code", "documentation", "tool", "other"],
    "Project type."
);
vocabulary!(
    /// `EventCategory`: the repeatable `category` filter of events.
    EventCategory, EVENT_CATEGORY,
    EVENT_CATEGORIES = ["appsec_days", "global", "partner", "other"],
    "Event category."
);
vocabulary!(
    /// `IssueState`: the `state` of issues and milestones and their `state` filter.
    IssueState, ISSUE_STATE,
    STATES = ["open", "closed"],
    "Issue and milestone state."
);
vocabulary!(
    /// `SponsorMemberType`: the `member_type` filter of sponsors.
    SponsorMemberType, SPONSOR_MEMBER_TYPE,
    MEMBER_TYPES = ["Platinum", "Gold", "Silver"],
    "Sponsor membership level."
);

/// Every vocabulary, in the order the OpenAPI document first lists their components.
pub const ALL: &[&Vocab] = &[
    &PROJECT_LEVEL,
    &PROJECT_TYPE,
    &EVENT_CATEGORY,
    &ISSUE_STATE,
    &SPONSOR_MEMBER_TYPE,
];
