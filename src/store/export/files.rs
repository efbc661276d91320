//! The interchange files an export writes: for each, the query giving one row per
//! record in stable-id order and each column's field name and kind, fields in the
//! order of docs/data.md. A record's fields, their order and the columns of its own
//! table come from its declaration ([`StoredRecord`]); a file names only the tables
//! and the SQL of the fields kept elsewhere. `community.json` is one row, written as
//! its one object.

use std::sync::LazyLock;

use crate::records::{
    Badge, Board, Chapter, Committee, Event, Issue, Label, Member, MemberSnapshot, Milestone,
    Module, Organization, Post, Program, Project, ProjectHealthMetrics, PullRequest, Release,
    Repository, RepositoryContributor, Snapshot, Sponsor,
};
pub(super) use crate::schema::Kind;
use crate::schema::{Keep, StoredRecord};

use Kind::*;

/// The JSON array of what an entity of kind `$kind` (aliased `t`) lists in `$table`
/// (aliased `x`, with `$joins`), in order: `$item` of each row's `$select`.
macro_rules! entity_list {
    ($kind:literal, $item:expr, $select:expr, $table:literal, $joins:expr) => {
        concat!(
            "(SELECT json_group_array(",
            $item,
            ") FROM (SELECT ",
            $select,
            " FROM ",
            $table,
            " x",
            $joins,
            " WHERE x.entity_kind = '",
            $kind,
            "' AND x.entity_id = t.id ORDER BY x.position))"
        )
    };
}

/// The JSON array of an entity's leaders (`name`, `login`, `description`, and `email`
/// when there is one, in order).
macro_rules! leaders {
    ($kind:literal) => {
        entity_list!(
            $kind,
            "json_patch(json_object('name', name, 'login', login, \
             'description', description), CASE WHEN email != '' \
             THEN json_object('email', email) ELSE '{}' END)",
            "x.name AS name, m.login AS login, x.description AS description, x.email AS email",
            "leaders",
            " LEFT JOIN members m ON m.id = x.member_id"
        )
    };
}

/// The JSON array of an entity's related URLs, in order.
macro_rules! related_urls {
    ($kind:literal) => {
        entity_list!($kind, "url", "x.url AS url", "related_urls", "")
    };
}

/// The JSON array of an entity's channels (`platform`, `name`, `external_id`), in order.
macro_rules! channels {
    ($kind:literal) => {
        entity_list!(
            $kind,
            "json_object('platform', platform, 'name', name, 'external_id', external_id)",
            "x.platform AS platform, x.name AS name, x.external_id AS external_id",
            "channels",
            ""
        )
    };
}

/// The JSON array of an entity's own repositories (`organization`, `name`), in order,
/// from the link table `$table` whose entity column is `$column`.
macro_rules! repositories {
    ($kind:literal) => {
        concat!(
            "(SELECT json_group_array(json_object('organization', org, 'name', name)) FROM \
             (SELECT o.login AS org, r.name AS name FROM ",
            $kind,
            "_repositories x JOIN repositories r ON r.id = x.repository_id \
             JOIN organizations o ON o.id = r.organization_id \
             WHERE x.",
            $kind,
            "_id = t.id ORDER BY x.rowid))"
        )
    };
}

/// The JSON array of the names of the `$what`s a `$kind` (aliased `t`) lists, in order
/// (a member's badges, an issue's labels).
macro_rules! names_listed {
    ($kind:literal, $what:literal) => {
        concat!(
            "(SELECT json_group_array(name) FROM (SELECT n.name AS name FROM ",
            $kind,
            "_",
            $what,
            "s x JOIN ",
            $what,
            "s n ON n.id = x.",
            $what,
            "_id WHERE x.",
            $kind,
            "_id = t.id ORDER BY x.position))"
        )
    };
}

/// The JSON array of the records of `$kind` a snapshot lists as new, in order: each
/// record's `$key`, or for a record of a repository (`in repo`) an object of its
/// organization, repository and `$key`.
macro_rules! snapshot_new {
    ($kind:literal, $key:ident) => {
        snapshot_new!(@ $kind, "k", concat!("x.", stringify!($key), " AS k"), "")
    };
    ($kind:literal in repo, $key:ident) => {
        snapshot_new!(
            @ $kind,
            concat!(
                "json_object('organization', org, 'repository', repo, '",
                stringify!($key),
                "', k)"
            ),
            concat!("o.login AS org, r.name AS repo, x.", stringify!($key), " AS k"),
            " JOIN repositories r ON r.id = x.repository_id \
             JOIN organizations o ON o.id = r.organization_id"
        )
    };
    (@ $kind:literal, $item:expr, $select:expr, $joins:expr) => {
        concat!(
            "(SELECT json_group_array(",
            $item,
            ") FROM (SELECT ",
            $select,
            " FROM snapshot_",
            $kind,
            "s s JOIN ",
            $kind,
            "s x ON x.id = s.",
            $kind,
            "_id",
            $joins,
            " WHERE s.snapshot_id = t.id ORDER BY s.rowid))"
        )
    };
}

/// What a group of people (`$kind`: chapter, committee) lists, kept elsewhere: its
/// leaders, related URLs, channels and repositories, in the order of its file.
macro_rules! group_lists {
    ($kind:literal) => {
        &[
            ("leaders", leaders!($kind), Json),
            ("related_urls", related_urls!($kind), Json),
            ("channels", channels!($kind), Json),
            ("repositories", repositories!($kind), Json),
        ]
    };
}

/// The JSON array of the logins of a program's or module's members, in order, from
/// the table `$table` whose record column is `$column`.
macro_rules! people {
    ($table:literal, $column:literal) => {
        concat!(
            "(SELECT json_group_array(login) FROM (SELECT m.login AS login FROM ",
            $table,
            " x JOIN members m ON m.id = x.member_id WHERE x.",
            $column,
            " = t.id ORDER BY x.position))"
        )
    };
}

/// The organization `o` and repository `r` of a record `t` in a repository.
const IN_REPO: &str = "JOIN repositories r ON r.id = t.repository_id \
                       JOIN organizations o ON o.id = r.organization_id";

/// One interchange file: its name, the query giving one row per record in stable-id
/// order, and each column's field name and kind.
pub(super) struct FileSpec {
    pub file: &'static str,
    pub sql: String,
    pub fields: Vec<(&'static str, Kind)>,
}

/// The file of a record of a repository with an author (issues, milestones, releases,
/// pull requests): its organization, repository and author joined to `table` (aliased
/// `t`, with what it joins itself), then `more` of its fields kept elsewhere.
fn authored<R: StoredRecord>(
    file: &'static str,
    table: &str,
    more: &[(&'static str, &str, Kind)],
) -> FileSpec {
    let from = format!("{table} {IN_REPO} LEFT JOIN members a ON a.id = t.author_id ORDER BY t.id");
    let mut elsewhere = vec![
        ("organization", "o.login", Str),
        ("repository", "r.name", Str),
        ("author", "a.login", Str),
    ];
    elsewhere.extend_from_slice(more);
    records::<R>(file, &from, &elsewhere, &[])
}

/// The file of records of `R`: its fields in their declared order, each of the
/// record's own columns read from `t`, each field kept elsewhere from `elsewhere`
/// (field, SQL, kind), over `from` (the record's table aliased `t`, the joins, the
/// order). `renamed` gives the interchange name of a field whose Rust name differs.
fn records<R: StoredRecord>(
    file: &'static str,
    from: &str,
    elsewhere: &[(&'static str, &str, Kind)],
    renamed: &[(&'static str, &'static str)],
) -> FileSpec {
    let mut columns = Vec::new();
    let mut fields = Vec::new();
    for &(name, keep) in R::FIELDS {
        let (sql, kind) = match keep {
            Keep::Column(kind) | Keep::Shadowed(kind) => (format!("t.{name}"), kind),
            Keep::Elsewhere => match elsewhere.iter().find(|(field, ..)| *field == name) {
                Some(&(_, sql, kind)) => (sql.to_string(), kind),
                None => panic!("{file}: the export names no SQL for the field {name}"),
            },
        };
        columns.push(sql);
        let name = renamed
            .iter()
            .find(|(field, _)| *field == name)
            .map_or(name, |&(_, to)| to);
        fields.push((name, kind));
    }
    FileSpec {
        file,
        sql: format!("SELECT {} FROM {from}", columns.join(", ")),
        fields,
    }
}

pub(super) static FILES: LazyLock<Vec<FileSpec>> = LazyLock::new(|| {
    vec![
        records::<Organization>(
            "organizations.jsonl",
            "organizations t ORDER BY t.id",
            &[("url", "t.url", Str)],
            &[],
        ),
        records::<Member>(
            "members.jsonl",
            "members t ORDER BY t.id",
            &[
                ("url", "t.url", Str),
                ("badges", names_listed!("member", "badge"), Json),
            ],
            &[],
        ),
        records::<Repository>(
            "repositories.jsonl",
            "repositories t JOIN organizations o ON o.id = t.organization_id ORDER BY t.id",
            &[("organization", "o.login", Str), ("url", "t.url", Str)],
            &[],
        ),
        records::<RepositoryContributor>(
            "repository_contributors.jsonl",
            "repository_contributors t JOIN repositories r ON r.id = t.repository_id \
             JOIN organizations o ON o.id = r.organization_id \
             JOIN members m ON m.id = t.member_id ORDER BY t.rowid",
            &[
                ("organization", "o.login", Str),
                ("repository", "r.name", Str),
                ("member", "m.login", Str),
            ],
            &[],
        ),
        records::<Label>(
            "labels.jsonl",
            "labels t LEFT JOIN repositories r ON r.id = t.repository_id \
             LEFT JOIN organizations o ON o.id = r.organization_id ORDER BY t.id",
            &[
                ("organization", "o.login", Str),
                ("repository", "r.name", Str),
            ],
            &[],
        ),
        authored::<Issue>(
            "issues.jsonl",
            "issues t JOIN issue_bodies b ON b.issue_id = t.id",
            &[
                ("body", "b.body", Str),
                ("labels", names_listed!("issue", "label"), Json),
            ],
        ),
        authored::<Milestone>("milestones.jsonl", "milestones t", &[]),
        authored::<Release>("releases.jsonl", "releases t", &[("url", "t.url", Str)]),
        records::<Chapter>(
            "chapters.jsonl",
            "chapters t ORDER BY t.id",
            group_lists!("chapter"),
            &[],
        ),
        records::<Committee>(
            "committees.jsonl",
            "committees t ORDER BY t.id",
            group_lists!("committee"),
            &[],
        ),
        records::<Project>(
            "projects.jsonl",
            "projects t ORDER BY t.id",
            &[
                ("kind", "t.type", Str),
                ("leaders", leaders!("project"), Json),
                ("repositories", repositories!("project"), Json),
                ("related_urls", related_urls!("project"), Json),
                ("channels", channels!("project"), Json),
            ],
            &[("kind", "type")],
        ),
        records::<Event>("events.jsonl", "events t ORDER BY t.id", &[], &[]),
        records::<Sponsor>("sponsors.jsonl", "sponsors t ORDER BY t.id", &[], &[]),
        records::<Snapshot>(
            "snapshots.jsonl",
            "snapshots t ORDER BY t.id",
            &[
                ("new_chapters", snapshot_new!("chapter", key), Json),
                ("new_projects", snapshot_new!("project", key), Json),
                ("new_members", snapshot_new!("member", login), Json),
                ("new_issues", snapshot_new!("issue" in repo, number), Json),
                (
                    "new_releases",
                    snapshot_new!("release" in repo, tag_name),
                    Json,
                ),
            ],
            &[],
        ),
        authored::<PullRequest>(
            "pull_requests.jsonl",
            "pull_requests t JOIN pull_request_bodies b ON b.pull_request_id = t.id",
            &[("body", "b.body", Str)],
        ),
        records::<Post>("posts.jsonl", "posts t ORDER BY t.id", &[], &[]),
        // Joined to `projects`, so a public-only export keeps the measurements of the
        // projects it keeps.
        records::<ProjectHealthMetrics>(
            "project_health_metrics.jsonl",
            "project_health_metrics t JOIN projects p ON p.id = t.project_id ORDER BY t.id",
            &[("project", "p.key", Str)],
            &[],
        ),
        records::<Badge>("badges.jsonl", "badges t ORDER BY t.id", &[], &[]),
        records::<Board>(
            "boards.jsonl",
            "boards t ORDER BY t.id",
            &[
                ("candidates", leaders!("board_candidate"), Json),
                ("members", leaders!("board_member"), Json),
            ],
            &[],
        ),
        records::<MemberSnapshot>(
            "member_snapshots.jsonl",
            "member_snapshots t JOIN members m ON m.id = t.member_id ORDER BY t.id",
            &[("member", "m.login", Str)],
            &[],
        ),
        records::<Program>(
            "programs.jsonl",
            "programs t ORDER BY t.id",
            &[("admins", people!("program_admins", "program_id"), Json)],
            &[],
        ),
        // The project joined, not required: a public-only export keeps the modules of
        // the programs it keeps and names only the projects it keeps.
        records::<Module>(
            "modules.jsonl",
            "modules t JOIN programs g ON g.id = t.program_id \
             LEFT JOIN projects p ON p.id = t.project_id ORDER BY t.id",
            &[
                ("program", "g.key", Str),
                ("project", "p.key", Str),
                ("mentors", people!("module_mentors", "module_id"), Json),
                ("mentees", people!("module_mentees", "module_id"), Json),
            ],
            &[],
        ),
        FileSpec {
            file: "community.json",
            sql: "SELECT slack_workspace_members FROM community".to_string(),
            fields: vec![("slack_workspace_members", Int)],
        },
    ]
});
