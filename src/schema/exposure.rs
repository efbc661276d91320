//! What the API exposes, written once: the conditions under which a record exists for
//! the API (docs/api.md §3), as SQL views that every reader reads.
//!
//! - Chapters, committees and projects: only the active ones (`api_chapters`,
//!   `api_committees`, `api_projects`).
//! - Organizations: only those affiliated with the community (`api_organizations`).
//! - Releases: only the published ones (`api_releases`).
//! - Snapshots: only the completed ones (`api_snapshots`).
//! - Mentorship programs: only the published ones, and only their modules
//!   (`api_programs`, `api_modules`).
//! - Everything else (events, issues, labels, members, milestones, repositories,
//!   sponsors…): every record, read from its table.
//!
//! Every dataset holds the views ([`views_ddl`], created with the tables by every
//! command that writes a dataset), so the REST catalog, GraphQL, the search indexes,
//! the published dataset and the public-only export all read the same definitions.
//! The views are plain `SELECT … WHERE`: SQLite flattens them into the statement that
//! reads them, so a statement over a view is planned as the one over the table with
//! the condition written out (the same indexes, the same order).
//!
//! No statement can forget a rule by naming the table instead of its view: every
//! connection that answers the API carries [`guard`] as its SQLite authorizer, which
//! refuses, when a statement is prepared, any read of a ruled table that does not go
//! through the table's own view. A statement that names `chapters` fails at once (in
//! every test that runs it) instead of leaking an inactive chapter. Organizations are
//! the exception: a repository's path names its organization, affiliated or not, so
//! their table stays readable and only the organization resources read
//! `api_organizations`.

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

/// One exposure rule: the records of `table` the API shows are the rows of `view`.
pub struct Rule {
    pub view: &'static str,
    pub table: &'static str,
    /// The condition on the table's own columns (no alias).
    pub condition: &'static str,
    /// Whether the view is the only way an API reader may read the table ([`guard`]).
    pub sole_reader: bool,
}

/// The exposure rules, in the order their views are created (a view may read an
/// earlier one).
pub const RULES: &[Rule] = &[
    rule("api_chapters", "chapters", "is_active = 1"),
    rule("api_committees", "committees", "is_active = 1"),
    rule("api_projects", "projects", "is_active = 1"),
    Rule {
        sole_reader: false,
        ..rule("api_organizations", "organizations", "is_affiliated = 1")
    },
    rule("api_releases", "releases", "published_at IS NOT NULL"),
    rule("api_snapshots", "snapshots", "status = 'completed'"),
    rule("api_programs", "programs", "status = 'published'"),
    rule(
        "api_modules",
        "modules",
        "program_id IN (SELECT id FROM api_programs)",
    ),
];

const fn rule(view: &'static str, table: &'static str, condition: &'static str) -> Rule {
    Rule {
        view,
        table,
        condition,
        sole_reader: true,
    }
}

/// The table `name` reads: the table of an exposure view, else `name` itself.
pub fn table_of(name: &str) -> &str {
    RULES
        .iter()
        .find(|r| r.view == name)
        .map_or(name, |r| r.table)
}

/// The statements that create the views of [`RULES`], run after the tables'.
pub fn views_ddl() -> String {
    RULES
        .iter()
        .map(|r| {
            format!(
                "CREATE VIEW {} AS SELECT * FROM {} WHERE {};\n",
                r.view, r.table, r.condition
            )
        })
        .collect()
}

/// The SQLite authorizer of every connection that answers the API: a read of a
/// table whose rule is the sole reader is allowed only from inside its view.
/// Everything else is allowed (the connections are read-only and `query_only`
/// anyway).
pub fn guard(ctx: &AuthContext<'_>) -> Authorization {
    if let AuthAction::Read { table_name, .. } = ctx.action {
        if let Some(rule) = RULES.iter().find(|r| r.table == table_name) {
            if rule.sole_reader && ctx.accessor != Some(rule.view) {
                return Authorization::Deny;
            }
        }
    }
    Authorization::Allow
}

/// Installs [`guard`] on `conn`.
pub fn install_guard(conn: &mut rusqlite::Connection) -> rusqlite::Result<()> {
    conn.authorizer(Some(|ctx: AuthContext<'_>| guard(&ctx)))
}

/// One counter of a snapshot aliased `t`, as a select-list column: the chapters,
/// issues, projects, releases or members new in it that the API exposes (the total
/// of that sub-list).
macro_rules! new_in_snapshot {
    (chapters) => {
        "(SELECT COUNT(*) FROM snapshot_chapters s JOIN api_chapters c ON c.id = s.chapter_id \
          WHERE s.snapshot_id = t.id)"
    };
    (issues) => {
        "(SELECT COUNT(*) FROM snapshot_issues s WHERE s.snapshot_id = t.id)"
    };
    (projects) => {
        "(SELECT COUNT(*) FROM snapshot_projects s JOIN api_projects p ON p.id = s.project_id \
          WHERE s.snapshot_id = t.id)"
    };
    (releases) => {
        "(SELECT COUNT(*) FROM snapshot_releases s JOIN api_releases r ON r.id = s.release_id \
          WHERE s.snapshot_id = t.id)"
    };
    (members) => {
        "(SELECT COUNT(*) FROM snapshot_members s WHERE s.snapshot_id = t.id)"
    };
}

pub(crate) use new_in_snapshot;
