//! The community's mentorship programs and their modules, each declared once per face:
//! as the interchange format carries it and the dataset keeps it ([`interchange`]) and
//! as a GraphQL object ([`graphql`]; admins, mentors, mentees and the activity of a
//! module's project are resolved there, by `crate::graphql::records`). There is no
//! REST face: the frontend's mentorship pages read GraphQL and the `programs` search
//! index only.
//!
//! Only published programs, and the modules of published programs, are part of the
//! API (the `api_programs` and `api_modules` views, `crate::schema::exposure`).

use rusqlite::types::ToSqlOutput;

use crate::schema::{json_column, Kind, Stored};
use crate::vocab::ExperienceLevel;

/// A program's experience levels, kept as the JSON array of their texts.
impl Stored for Vec<ExperienceLevel> {
    const KIND: Kind = Kind::Json;
    fn column(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        let texts: Vec<&str> = self.iter().map(|l| l.as_str()).collect();
        json_column(&texts)
    }
}

/// The records of `programs.jsonl` and `modules.jsonl`.
pub mod interchange {
    use serde::Deserialize;

    use crate::schema::Ts;
    use crate::vocab::{ExperienceLevel, ProgramStatus};
    use crate::{field_group, stored};

    field_group! {
        /// The fields programs and modules share, each record listing them in its own
        /// order.
        mentorship for stored {
            pub key: String => shadowed,
            pub name: String => column,
            #[serde(default)]
            pub description: String => column,
            pub started_at: Ts => column,
            pub ended_at: Ts => column,
            #[serde(default)]
            pub domains: Vec<String> => column,
            #[serde(default)]
            pub tags: Vec<String> => column,
        }
    }

    stored! {
        /// A mentorship program: modules run over a period, open to mentees of some
        /// experience levels.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Program in "programs" {
            ..mentorship { key, name, description },
            pub status: ProgramStatus => column,
            /// The most mentees the program takes; none when it sets no limit.
            #[serde(default)]
            pub mentees_limit: Option<u64> => column,
            #[serde(default)]
            pub experience_levels: Vec<ExperienceLevel> => column,
            ..mentorship { started_at, ended_at, domains, tags },
            /// Member logins, in the order listed.
            #[serde(default)]
            pub admins: Vec<String> => elsewhere,
        }
    }

    stored! {
        /// A module of a mentorship program: mentors and mentees working on one
        /// project, optionally on its issues carrying some labels.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Module in "modules" {
            /// The program's key.
            pub program: String => elsewhere,
            ..mentorship { key, name, description },
            pub experience_level: ExperienceLevel => column,
            /// Display order within the program (ascending; ties by start).
            #[serde(default)]
            pub position: u64 => column,
            ..mentorship { started_at, ended_at, domains, tags },
            /// Label names: the module's issues are its project's issues carrying one.
            #[serde(default)]
            pub labels: Vec<String> => column,
            #[serde(default)]
            pub mentee_can_manage_deadlines: bool => column,
            /// The key of the project the module works on.
            #[serde(default)]
            pub project: Option<String> => elsewhere,
            /// Member logins, in the order listed.
            #[serde(default)]
            pub mentors: Vec<String> => elsewhere,
            #[serde(default)]
            pub mentees: Vec<String> => elsewhere,
        }
    }
}

/// The GraphQL objects of programs and modules (`ProgramNode`, `ModuleNode`, as the
/// frontend's documents name them; their resolved fields are in
/// `crate::graphql::records`).
pub mod graphql {
    use async_graphql::{Enum, SimpleObject, ID};

    use crate::schema::{lc, node_id, Cols};
    use crate::vocab;
    use crate::{field_group, selected};

    /// A program's status, as the frontend compares it (`PUBLISHED`).
    #[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
    #[graphql(name = "ProgramStatusEnum")]
    pub enum ProgramStatus {
        Draft,
        Published,
        Completed,
    }

    impl From<vocab::ProgramStatus> for ProgramStatus {
        fn from(status: vocab::ProgramStatus) -> ProgramStatus {
            match status {
                vocab::ProgramStatus::Draft => ProgramStatus::Draft,
                vocab::ProgramStatus::Published => ProgramStatus::Published,
                vocab::ProgramStatus::Completed => ProgramStatus::Completed,
            }
        }
    }

    /// The experience a module asks of its mentees.
    #[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
    #[graphql(name = "ExperienceLevelEnum")]
    pub enum ExperienceLevel {
        Beginner,
        Intermediate,
        Advanced,
        Expert,
    }

    impl From<vocab::ExperienceLevel> for ExperienceLevel {
        fn from(level: vocab::ExperienceLevel) -> ExperienceLevel {
            match level {
                vocab::ExperienceLevel::Beginner => ExperienceLevel::Beginner,
                vocab::ExperienceLevel::Intermediate => ExperienceLevel::Intermediate,
                vocab::ExperienceLevel::Advanced => ExperienceLevel::Advanced,
                vocab::ExperienceLevel::Expert => ExperienceLevel::Expert,
            }
        }
    }

    fn status(c: &mut Cols) -> rusqlite::Result<ProgramStatus> {
        Ok(c.get::<vocab::ProgramStatus>()?.into())
    }

    fn level(c: &mut Cols) -> rusqlite::Result<ExperienceLevel> {
        Ok(c.get::<vocab::ExperienceLevel>()?.into())
    }

    /// A JSON array of level texts; a text that is no level is an error, as a stored
    /// level outside its vocabulary is.
    fn levels(c: &mut Cols) -> rusqlite::Result<Vec<ExperienceLevel>> {
        c.string_list()?
            .iter()
            .map(|text| {
                vocab::ExperienceLevel::parse(text)
                    .map(ExperienceLevel::from)
                    .ok_or_else(|| {
                        rusqlite::Error::FromSqlConversionFailure(
                            0,
                            rusqlite::types::Type::Text,
                            format!("'{text}' is not an experience level").into(),
                        )
                    })
            })
            .collect()
    }

    field_group! {
        /// The fields programs and modules share, each record listing them in its own
        /// order.
        mentorship for selected {
            pub key: String = get(),
            pub name: String = get(),
            /// Markdown.
            pub description: String = get(),
            pub started_at: String = ts(),
            pub ended_at: String = ts(),
            pub domains: Vec<String> = list(),
            pub tags: Vec<String> = list(),
        }
    }

    selected! {
        /// A published mentorship program.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex, name = "ProgramNode")]
        pub struct Program: node, id {
            ..mentorship { key, name, description },
            /// Always `PUBLISHED`: drafts and completed programs are not part of the API.
            pub status: ProgramStatus = with(status, "t.status"),
            /// The most mentees the program takes; null when it sets no limit.
            pub mentees_limit: Option<i64> = get(),
            pub experience_levels: Vec<ExperienceLevel> = with(levels, "t.experience_levels"),
            ..mentorship { started_at, ended_at, domains, tags },
        } => keyed("Program", key)
    }

    selected! {
        /// A module of a published mentorship program.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex, name = "ModuleNode")]
        pub struct Module: node, id {
            /// The program's key in lower case, for the id.
            #[graphql(skip)]
            pub program_key: String = get("(SELECT p.key_lc FROM api_programs p WHERE p.id = t.program_id)"),
            /// The row id of the module's project when it is active.
            #[graphql(skip)]
            pub project_row: Option<i64> = get("(SELECT p.id FROM api_projects p WHERE p.id = t.project_id)"),
            /// The key of the module's project when it is active.
            #[graphql(skip)]
            pub project_key: Option<String> = get("(SELECT p.key_lc FROM api_projects p WHERE p.id = t.project_id)"),
            ..mentorship { key, name, description },
            pub experience_level: ExperienceLevel = with(level, "t.experience_level"),
            /// Display order within the program.
            pub order: i64 = get("t.position"),
            ..mentorship { started_at, ended_at, domains, tags },
            /// The labels of the project's issues the module works on.
            pub labels: Vec<String> = list(),
            /// Whether mentees may set the deadlines of the issues assigned to them.
            pub mentee_can_manage_deadlines: bool = get(),
            /// The id of the module's project (as `Project.id`); null without an active
            /// project.
            pub project_id: Option<ID> = later(),
            /// The name of the module's project; null without an active project.
            pub project_name: Option<String> = get("(SELECT p.name FROM api_projects p WHERE p.id = t.project_id)"),
        } => finish_module
    }

    /// Derives what [`Module`] does not read as it is.
    fn finish_module(rec: &mut Module, _c: &mut Cols) -> rusqlite::Result<()> {
        rec.node_id = node_id("Module", &format!("{}/{}", rec.program_key, lc(&rec.key)));
        rec.project_id = rec.project_key.as_deref().map(|k| node_id("Project", k));
        Ok(())
    }
}
