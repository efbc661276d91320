//! The mentorship pages' part of the schema (docs/api.md §6): the published programs
//! and their modules, looked up by key (`getProgram`, `getProgramModules`,
//! `getModule`), their admins, mentors and mentees (batched per request like every
//! relation), and a module's activity:
//!
//! - a program's `recentMilestones`: the open milestones of the repositories of its
//!   modules' active projects, newest first;
//! - a module's `recentPullRequests`: the pull requests of its active project's
//!   repositories, newest first;
//! - a module's `issues` (and `issuesCount`, `availableLabels`): the issues of its
//!   active project's repositories that carry one of the module's labels (none when
//!   the module lists no labels), most recently updated first, optionally narrowed to
//!   one label.
//!
//! Drafts and completed programs, and their modules, are never answered: a lookup of
//! one is `null` (or `[]`), as for an unknown key. What only a signed-in member of a
//! program sees in the original service (the management views, a member's own
//! programs, task deadlines) answers a coded `UNAUTHENTICATED` error; a module's
//! `userRole` is the role of an anonymous caller: `null`.

use async_graphql::{ComplexObject, Context, ErrorExtensions as _, Object, Result, SimpleObject};
use rusqlite::types::Value;

use super::loaders::many;
use super::query::{count, fetch, run};
use super::records::relations::{children, window, ListKey};
use super::records::{Issue, Milestone, Module, Program, PullRequest, Table, User, NEWEST_FIRST};
use super::types::{limit_cost, limit_or, list_cost, many_up_to, resolved, TYPICAL_LIST};
use crate::schema::Selected;
use crate::store::lc;

impl Table for Program {
    const TABLE: &'static str = "api_programs";
}

impl Table for Module {
    const TABLE: &'static str = "api_modules";
}

/// A module's display order: its position, then its start.
const MODULE_ORDER: &str = "t.position, t.started_at, t.id";

/// The published program whose key is `?` (in lower case).
const PUBLISHED_PROGRAM: &str = "(SELECT p.id FROM api_programs p WHERE p.key_lc = ?)";

/// The error of a field only a signed-in member of a program may read.
fn unauthenticated(what: &str) -> async_graphql::Error {
    async_graphql::Error::new(format!(
        "{what} needs a signed-in member of the program; this API serves anonymous \
         callers only"
    ))
    .extend_with(|_, ext| ext.set("code", "UNAUTHENTICATED"))
}

/// A relation from a program or module to members, through a link table.
macro_rules! people {
    ($(#[$doc:meta])* $key:ident, $link:literal, $column:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $key(pub i64);

        impl ListKey for $key {
            type Item = User;
            fn sql() -> String {
                window(
                    User::COLUMNS,
                    concat!($link, " x JOIN members t ON t.id = x.member_id"),
                    concat!("x.", $column),
                    "1",
                    "t.login_lc, t.id",
                )
            }
            fn parent(self) -> i64 {
                self.0
            }
            fn limit(self) -> i64 {
                super::records::MAX_LIMIT
            }
        }
    };
}

people!(
    /// A program's admins, by login.
    ProgramAdmins, "program_admins", "program_id");
people!(
    /// A module's mentors, by login.
    ModuleMentors, "module_mentors", "module_id");
people!(
    /// A module's mentees, by login.
    ModuleMentees, "module_mentees", "module_id");

/// The newest open milestones of the repositories of a program's modules' active
/// projects (each repository once, however many modules share it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProgramMilestones(pub i64, pub i64);

impl ListKey for ProgramMilestones {
    type Item = Milestone;
    fn sql() -> String {
        children::<Milestone>(
            "(SELECT DISTINCT md.program_id AS program_id, pr.repository_id AS repository_id \
             FROM api_modules md JOIN api_projects p ON p.id = md.project_id \
             JOIN project_repositories pr ON pr.project_id = p.id) lk \
             JOIN milestones t ON t.repository_id = lk.repository_id",
            "lk.program_id",
            "t.state = 'open'",
            NEWEST_FIRST,
        )
    }
    fn parent(self) -> i64 {
        self.0
    }
    fn limit(self) -> i64 {
        self.1
    }
}

resolved! {
    #[ComplexObject]
    impl Program {
        /// The program's admins, by login.
        many admins: Vec<User> = ProgramAdmins, "list_cost(TYPICAL_LIST, child_complexity)";

        /// The newest open milestones of the repositories of the program's modules'
        /// projects.
        up_to recent_milestones(limit = 5): Vec<Milestone> = ProgramMilestones,
            "limit_cost(limit, 5, child_complexity)";

        /// The caller's role in the program: `null` for an anonymous caller.
        async fn user_role(&self) -> Option<String> {
            None
        }
    }
}

/// The issues of a module: `?1` its project's row id, `?2` its labels in lower case (a
/// JSON array), over `issues t` with its repository `r` and organization `o`.
const MODULE_ISSUES: &str = "t.repository_id IN (SELECT pr.repository_id FROM \
    project_repositories pr WHERE pr.project_id = ?1) \
    AND EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id \
      WHERE il.issue_id = t.id AND l.name_lc IN (SELECT value FROM json_each(?2)))";

/// The narrowing to one label (`?3`, in lower case).
const WITH_LABEL: &str = " AND EXISTS (SELECT 1 FROM issue_labels il \
    JOIN labels l ON l.id = il.label_id WHERE il.issue_id = t.id AND l.name_lc = ?3)";

impl Module {
    /// The statement values of [`MODULE_ISSUES`] (and [`WITH_LABEL`] for a `label`
    /// other than `all`) and its conditions; none without an active project or labels.
    fn issue_filter(&self, label: Option<String>) -> Option<(String, Vec<Value>)> {
        let project = self.project_row?;
        if self.labels.is_empty() {
            return None;
        }
        let labels: Vec<String> = self.labels.iter().map(|l| lc(l)).collect();
        let mut filter = MODULE_ISSUES.to_string();
        let mut args = vec![
            Value::Integer(project),
            Value::Text(serde_json::Value::from(labels).to_string()),
        ];
        if let Some(label) = label.filter(|l| l != "all") {
            filter.push_str(WITH_LABEL);
            args.push(Value::Text(lc(&label)));
        }
        Some((filter, args))
    }
}

/// An `offset` argument: 0 or more.
fn offset_of(offset: Option<i32>) -> i64 {
    i64::from(offset.unwrap_or(0).max(0))
}

resolved! {
    #[ComplexObject]
    impl Module {
        /// The module's mentors, by login.
        many mentors: Vec<User> = ModuleMentors, "list_cost(TYPICAL_LIST, child_complexity)";

        /// The module's mentees, by login.
        many mentees: Vec<User> = ModuleMentees, "list_cost(TYPICAL_LIST, child_complexity)";

        /// The pull requests of the module's project's repositories, newest first, from
        /// `offset`.
        #[graphql(complexity = "limit_cost(limit, 4, child_complexity)")]
        async fn recent_pull_requests(
            &self,
            ctx: &Context<'_>,
            #[graphql(default = 4)] limit: Option<i32>,
            #[graphql(default = 0)] offset: Option<i32>,
        ) -> Result<Vec<PullRequest>> {
            let (Some(limit), Some(project)) = (limit_or(limit, 4), self.project_row) else {
                return Ok(Vec::new());
            };
            let sql = format!(
                "SELECT {} FROM {} t{} WHERE t.repository_id IN (SELECT pr.repository_id \
                   FROM project_repositories pr WHERE pr.project_id = ?1) \
                 ORDER BY {NEWEST_FIRST} LIMIT ?2 OFFSET ?3",
                PullRequest::COLUMNS,
                PullRequest::TABLE,
                PullRequest::JOINS,
            );
            let args = vec![
                Value::Integer(project),
                Value::Integer(limit),
                Value::Integer(offset_of(offset)),
            ];
            fetch(ctx, sql, args).await
        }

        /// The module's issues (its project's issues carrying one of its labels), most
        /// recently updated first, from `offset`; with `label` (other than `all`) only
        /// those carrying that label.
        #[graphql(complexity = "limit_cost(limit, 20, child_complexity)")]
        async fn issues(
            &self,
            ctx: &Context<'_>,
            #[graphql(default = 20)] limit: Option<i32>,
            #[graphql(default = 0)] offset: Option<i32>,
            label: Option<String>,
        ) -> Result<Vec<Issue>> {
            let (Some(limit), Some((filter, mut args))) =
                (limit_or(limit, 20), self.issue_filter(label))
            else {
                return Ok(Vec::new());
            };
            let sql = format!(
                "SELECT {} FROM {} t{} WHERE {filter} \
                 ORDER BY t.updated_at DESC, t.id DESC LIMIT ?{} OFFSET ?{}",
                Issue::COLUMNS,
                Issue::TABLE,
                Issue::JOINS,
                args.len() + 1,
                args.len() + 2,
            );
            args.push(Value::Integer(limit));
            args.push(Value::Integer(offset_of(offset)));
            fetch(ctx, sql, args).await
        }

        /// How many issues `issues` lists in all (with the same `label`).
        async fn issues_count(&self, ctx: &Context<'_>, label: Option<String>) -> Result<i64> {
            let Some((filter, args)) = self.issue_filter(label) else {
                return Ok(0);
            };
            count(
                ctx,
                format!("SELECT COUNT(*) FROM issues t WHERE {filter}"),
                args,
            )
            .await
        }

        /// The names of the labels the module's issues carry, each once, sorted.
        #[graphql(complexity = "list_cost(TYPICAL_LIST, 1)")]
        async fn available_labels(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
            let Some((filter, args)) = self.issue_filter(None) else {
                return Ok(Vec::new());
            };
            let sql = format!(
                "SELECT l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id \
                 WHERE il.issue_id IN (SELECT t.id FROM issues t WHERE {filter}) \
                 GROUP BY l.name ORDER BY l.name"
            );
            run(ctx, move |conn| {
                conn.rows(&sql, rusqlite::params_from_iter(args), |c| c.get())
            })
            .await
        }

        /// The caller's role in the module: `null` for an anonymous caller.
        async fn user_role(&self) -> Option<String> {
            None
        }

        /// The deadline of the task of the module's issue `issueNumber`: only its mentee,
        /// mentors and program admins, signed in, may read it.
        async fn task_deadline(&self, issue_number: i32) -> Result<Option<String>> {
            let _ = issue_number;
            Err(unauthenticated("taskDeadline"))
        }
    }
}

/// A page of the programs of the signed-in member (`myPrograms`).
#[derive(SimpleObject)]
pub struct PaginatedPrograms {
    pub current_page: i32,
    pub programs: Vec<Program>,
    pub total_pages: i32,
}

/// The mentorship queries.
#[derive(Default)]
pub struct MentorshipQuery;

#[Object]
impl MentorshipQuery {
    /// A published program by key (any case); null for a draft, a completed or an
    /// unknown program.
    async fn get_program(&self, ctx: &Context<'_>, program_key: String) -> Result<Option<Program>> {
        let sql = format!(
            "SELECT {} FROM api_programs t WHERE t.id = {PUBLISHED_PROGRAM}",
            Program::COLUMNS
        );
        let args = vec![Value::Text(lc(&program_key))];
        Ok(fetch(ctx, sql, args).await?.into_iter().next())
    }

    /// The modules of a published program, in display order; `[]` for a draft, a
    /// completed or an unknown program.
    #[graphql(complexity = "list_cost(TYPICAL_LIST, child_complexity)")]
    async fn get_program_modules(
        &self,
        ctx: &Context<'_>,
        program_key: String,
    ) -> Result<Vec<Module>> {
        let sql = format!(
            "SELECT {} FROM api_modules t WHERE t.program_id = {PUBLISHED_PROGRAM} \
             ORDER BY {MODULE_ORDER}",
            Module::COLUMNS
        );
        fetch(ctx, sql, vec![Value::Text(lc(&program_key))]).await
    }

    /// A module of a published program by the keys of both (any case); null when
    /// either is unknown or the program is not published.
    async fn get_module(
        &self,
        ctx: &Context<'_>,
        module_key: String,
        program_key: String,
    ) -> Result<Option<Module>> {
        let sql = format!(
            "SELECT {} FROM api_modules t WHERE t.program_id = {PUBLISHED_PROGRAM} \
             AND t.key_lc = ?",
            Module::COLUMNS
        );
        let args = vec![Value::Text(lc(&program_key)), Value::Text(lc(&module_key))];
        Ok(fetch(ctx, sql, args).await?.into_iter().next())
    }

    /// A program as its admins, mentors and mentees manage it: needs a signed-in
    /// member of the program.
    async fn management_program(&self, program_key: String) -> Result<Option<Program>> {
        let _ = program_key;
        Err(unauthenticated("managementProgram"))
    }

    /// A program's modules as its members manage them: needs a signed-in member.
    async fn management_program_modules(&self, program_key: String) -> Result<Vec<Module>> {
        let _ = program_key;
        Err(unauthenticated("managementProgramModules"))
    }

    /// A module as its members manage it: needs a signed-in member of the program.
    async fn management_module(
        &self,
        module_key: String,
        program_key: String,
    ) -> Result<Option<Module>> {
        let _ = (module_key, program_key);
        Err(unauthenticated("managementModule"))
    }

    /// The programs of the signed-in member: needs a signed-in member.
    async fn my_programs(
        &self,
        #[graphql(default_with = "Some(String::new())")] search: Option<String>,
        #[graphql(default = 1)] page: Option<i32>,
        #[graphql(default = 24)] limit: Option<i32>,
    ) -> Result<PaginatedPrograms> {
        let _ = (search, page, limit);
        Err(unauthenticated("myPrograms"))
    }
}
