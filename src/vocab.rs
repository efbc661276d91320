//! The value vocabularies of the API: the fixed sets of values a field or a filter
//! takes (project levels and types, event categories, issue states, sponsor member
//! types), each with the OpenAPI component that names it.
//!
//! This is the ground floor under `model` (whose fields point at the components),
//! `catalog` (whose filters validate against the values) and `openapi` (which
//! documents both): it imports nothing from roost.

use std::borrow::Cow;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::Deserialize;
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

/// A vocabulary, declared once: the Rust enum the interchange records deserialise into
/// (serde, by its exact text), its `ALL` variants and their texts, `ToSql`/`FromSql`
/// (stored as its text), the GraphQL enum of the same name (its values in upper case,
/// `FLAGSHIP`), and the [`Vocab`] of the API with the OpenAPI component that
/// names it (the enum itself is the component's type in `#[schema(value_type = …)]`).
/// `api: all_but_last` leaves the last variant out of the API's values (a "none" that
/// is stored but never filtered on). The CHECK constraints of `data/schema.sql` and the
/// checks of `db check` are compared with / built from the same `VALUES`.
macro_rules! vocabulary {
    ($(#[$doc:meta])* $name:ident, $component:literal, $description:literal, api: $api:ident,
     { $($(#[$vm:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize,
                 async_graphql::Enum)]
        #[graphql(name = $component)]
        pub enum $name { $($(#[$vm])* #[serde(rename = $text)] $variant),+ }

        impl $name {
            /// Every value, in the documented order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The text of every value, in the same order.
            pub const VALUES: &'static [&'static str] = &[$($text),+];
            /// The values the API documents and filters on, with its component.
            pub const VOCAB: Vocab = Vocab {
                name: $component,
                description: $description,
                values: vocabulary!(@api $api, Self::VALUES),
            };

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// The value whose text is `text` (exactly).
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                $name::VOCAB.schema()
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($component)
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.as_str()))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                let text = value.as_str()?;
                $name::parse(text).ok_or_else(|| {
                    FromSqlError::Other(format!("'{text}' is not a {}", $component).into())
                })
            }
        }
    };
    (@api all, $values:expr) => { $values };
    (@api all_but_last, $values:expr) => {
        match $values.split_last() {
            Some((_, rest)) => rest,
            None => &[],
        }
    };
}

vocabulary!(
    /// `ProjectLevel`: the `level` of a project and the `level` filter.
    Level, "ProjectLevel", "Project level.", api: all,
    { Flagship = "flagship", Production = "production", Incubator = "incubator", Lab = "lab", Demo = "demo" }
);
vocabulary!(
    /// `ProjectType`: the `type` of a project and the repeatable `type` filter.
    ProjectType, "ProjectType", "Project type.", api: all,
    { Code = "code", Documentation = "documentation", Tool = "tool", Other = "other" }
);
vocabulary!(
    /// `EventCategory`: the `category` of an event and the repeatable `category` filter.
    Category, "EventCategory", "Event category.", api: all,
    { AppsecDays = "appsec_days", Global = "global", Partner = "partner", Other = "other" }
);
vocabulary!(
    /// `IssueState`: the `state` of issues, pull requests and milestones and their
    /// `state` filter.
    #[derive(Default)]
    State, "IssueState", "Issue and milestone state.", api: all,
    { #[default] Open = "open", Closed = "closed" }
);
vocabulary!(
    /// `SponsorMemberType`: a sponsor's membership and the `member_type` filter; `""`
    /// (none) is stored but not a filter value.
    #[derive(Default)]
    MemberType, "SponsorMemberType", "Sponsor membership level.", api: all_but_last,
    { Platinum = "Platinum", Gold = "Gold", Silver = "Silver", #[default] None = "" }
);
vocabulary!(
    /// `SponsorType`: a sponsor's type (not filtered on).
    SponsorType, "SponsorType", "Sponsor type.", api: all,
    { Diamond = "Diamond", Platinum = "Platinum", Gold = "Gold", Silver = "Silver", Supporter = "Supporter", NotASponsor = "Not a Sponsor" }
);
vocabulary!(
    /// `SnapshotStatus`: a snapshot's processing status; only completed snapshots
    /// appear in the API.
    SnapshotStatus, "SnapshotStatus", "Snapshot processing status.", api: all,
    { Completed = "completed", Processing = "processing", Pending = "pending", Error = "error" }
);
vocabulary!(
    /// `ProgramStatus`: a mentorship program's status; only published programs (and
    /// their modules) appear in the API.
    ProgramStatus, "ProgramStatus", "Mentorship program status.", api: all,
    { Draft = "draft", Published = "published", Completed = "completed" }
);
vocabulary!(
    /// `ExperienceLevel`: the experience a mentorship module asks of its mentees (and
    /// the levels a program is open to).
    ExperienceLevel, "ExperienceLevel", "Mentee experience level.", api: all,
    { Beginner = "beginner", Intermediate = "intermediate", Advanced = "advanced", Expert = "expert" }
);

/// The vocabularies of the OpenAPI document, in the order it first lists their
/// components.
pub const ALL: &[&Vocab] = &[
    &Level::VOCAB,
    &ProjectType::VOCAB,
    &Category::VOCAB,
    &State::VOCAB,
    &MemberType::VOCAB,
];

/// Every vocabulary the dataset stores, with the columns that hold it: what the CHECK
/// constraints of `data/schema.sql` and the checks of `db check` are made from.
pub const COLUMNS: &[(&str, &str, &[&str])] = &[
    ("issues", "state", State::VALUES),
    ("milestones", "state", State::VALUES),
    ("pull_requests", "state", State::VALUES),
    ("projects", "level", Level::VALUES),
    ("projects", "type", ProjectType::VALUES),
    ("events", "category", Category::VALUES),
    ("sponsors", "sponsor_type", SponsorType::VALUES),
    ("sponsors", "member_type", MemberType::VALUES),
    ("snapshots", "status", SnapshotStatus::VALUES),
    ("programs", "status", ProgramStatus::VALUES),
    ("modules", "experience_level", ExperienceLevel::VALUES),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// `(table, column, values)` of every `CHECK (column IN ('a', 'b'))` in the DDL.
    fn checks(ddl: &str) -> Vec<(String, String, Vec<String>)> {
        let mut found = Vec::new();
        let mut table = String::new();
        for line in ddl.lines() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("CREATE TABLE ") {
                table = rest.split_whitespace().next().unwrap_or("").to_string();
            }
            let Some(at) = line.find("CHECK (") else {
                continue;
            };
            let check = &line[at + "CHECK (".len()..];
            let Some((column, list)) = check.split_once(" IN (") else {
                continue;
            };
            let list = &list[..list.find(')').unwrap()];
            let values = list
                .split(',')
                .map(|v| v.trim().trim_matches('\'').to_string())
                .collect();
            found.push((table.clone(), column.trim().to_string(), values));
        }
        found
    }

    /// The DDL's CHECK constraints are the vocabularies, value for value and in order;
    /// every stored vocabulary has one, but the sponsor type (checked on import and by
    /// `db check` only).
    #[test]
    fn the_ddl_checks_the_declared_values() {
        let ddl = include_str!("../data/schema.sql");
        let found = checks(ddl);
        for (table, column, values) in &found {
            if column == "entity_kind" {
                // Leaders are also a board's candidates and members.
                let mut kinds = vec!["chapter", "committee", "project"];
                if table == "leaders" {
                    kinds.extend(["board_candidate", "board_member"]);
                }
                assert_eq!(values, &kinds, "{table}");
                continue;
            }
            let declared = COLUMNS
                .iter()
                .find(|(t, c, _)| t == table && c == column)
                .unwrap_or_else(|| panic!("{table}.{column}: a CHECK with no vocabulary"));
            assert_eq!(values, &declared.2, "{table}.{column}");
        }
        for (table, column, _) in COLUMNS {
            let checked = found.iter().any(|(t, c, _)| t == table && c == column);
            assert_eq!(
                checked,
                (*table, *column) != ("sponsors", "sponsor_type"),
                "{table}.{column}"
            );
        }
    }

    #[test]
    fn values_parse_back_and_the_api_leaves_out_none() {
        for level in Level::ALL {
            assert_eq!(Level::parse(level.as_str()), Some(*level));
        }
        assert_eq!(Level::parse("Flagship"), None);
        assert_eq!(MemberType::VALUES, ["Platinum", "Gold", "Silver", ""]);
        assert_eq!(MemberType::VOCAB.values, ["Platinum", "Gold", "Silver"]);
        assert_eq!(State::VOCAB.name, "IssueState");
    }
}
