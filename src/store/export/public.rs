//! A public-only export: the dataset as the API shows it, and nothing else.
//!
//! [`restrict_to`] puts temporary views in front of the tables of an open connection
//! (SQLite looks a name up in `temp` before `main`), so the export's own statements
//! read only what the API exposes: each reads the dataset's exposure view of its table
//! (`api_chapters`, …; `crate::schema::exposure`), the views every API reader reads.
//!
//! The rule:
//! - records the API does not expose are left out: inactive chapters, committees and
//!   projects, unpublished releases, snapshots that are not completed, and with them
//!   everything that belongs only to them (their leaders, a project's repository
//!   links, a snapshot's lists; a completed snapshot lists only the exposed chapters,
//!   projects and releases, which is what its sub-lists and counts show);
//! - an organization that is not affiliated is not in the API, but its login is
//!   (every repository names its organization), so one that owns repositories is
//!   written as a stub: its login, `is_affiliated: false`, every other field empty or
//!   zero and its times at the Unix epoch; one that owns none is left out;
//! - fields no answer shows are written empty: a repository's `pushed_at`, a release's
//!   `is_draft` ([`HIDDEN_FIELDS`]);
//! - personal fields are written empty although the API shows them one record at a
//!   time: a member's `email` ([`PERSONAL_FIELDS`]);
//! - mentorship programs that are not published are left out with their modules; a
//!   module kept names its project only when that project is kept;
//! - the health measurements of projects left out are left out with them; the
//!   channels, related URLs and repositories of a chapter, committee or project go
//!   with it;
//! - everything else (members with their badges, repositories, contributors, labels,
//!   issues, pull requests, milestones, events, sponsors, posts, badges, the
//!   community's values) is written whole.
//!
//! Such an export imports cleanly and renders the same tree, byte for byte, as the
//! dataset it came from; GraphQL answers the same too.

use rusqlite::Connection;

use super::ExportError;

/// The interchange fields a public-only export writes empty: no REST answer and no
/// GraphQL field shows them (a test holds this list against the OpenAPI document and
/// the GraphQL schema).
pub const HIDDEN_FIELDS: &[(&str, &str)] = &[
    ("repositories.jsonl", "pushed_at"),
    ("releases.jsonl", "is_draft"),
];

/// The personal fields a public-only export writes empty although the API shows them
/// one record at a time: a member's email is on their own GraphQL user page, but a
/// published file of every address is a mailing list for spammers. The addresses of
/// board candidates and members (`boards.jsonl`) are written empty too.
pub const PERSONAL_FIELDS: &[(&str, &str)] = &[("members.jsonl", "email")];

/// Restricts what the export statements on `conn` read to what the API shows (see
/// the module doc). The views live as long as the connection.
pub fn restrict_to(conn: &Connection) -> Result<(), ExportError> {
    let sql = views();
    let result = conn
        .execute_batch("PRAGMA query_only = OFF;")
        .and_then(|()| conn.execute_batch(&sql));
    let restored = conn.execute_batch("PRAGMA query_only = ON;");
    result.and(restored).map_err(|source| ExportError::Sql {
        file: "the public-only views",
        source,
    })
}

fn views() -> String {
    let org = "t.id IN (SELECT a.id FROM main.api_organizations a)";
    // A stub keeps the login; everything else of an organization that is not exposed
    // is empty, zero, false or the epoch.
    let keep = |column: &str, blank: &str| {
        format!("CASE WHEN ({org}) THEN t.{column} ELSE {blank} END AS {column}")
    };
    let organization_columns = [
        "t.id".to_string(),
        "t.login".to_string(),
        "t.login_lc".to_string(),
        keep("name", "''"),
        keep("company", "''"),
        keep("location", "''"),
        keep("location_lc", "''"),
        keep("description", "''"),
        keep("avatar_url", "''"),
        keep("url", "''"),
        keep("followers_count", "0"),
        "t.is_affiliated".to_string(),
        keep("created_at", "0"),
        keep("updated_at", "0"),
        keep("collaborators_count", "0"),
        keep("email", "''"),
    ]
    .join(", ");
    [
        "CREATE TEMP VIEW chapters AS SELECT * FROM main.api_chapters".to_string(),
        "CREATE TEMP VIEW committees AS SELECT * FROM main.api_committees".to_string(),
        "CREATE TEMP VIEW projects AS SELECT * FROM main.api_projects".to_string(),
        "CREATE TEMP VIEW snapshots AS SELECT * FROM main.api_snapshots".to_string(),
        "CREATE TEMP VIEW programs AS SELECT * FROM main.api_programs".to_string(),
        "CREATE TEMP VIEW modules AS SELECT * FROM main.api_modules".to_string(),
        "CREATE TEMP VIEW releases AS SELECT t.id, t.repository_id, t.tag_name, t.name, \
         t.description, t.author_id, t.url, 0 AS is_draft, t.is_pre_release, \
         t.published_at, t.created_at FROM main.api_releases t"
            .to_string(),
        "CREATE TEMP VIEW repositories AS SELECT t.id, t.organization_id, t.name, t.name_lc, \
         t.description, t.url, t.commits_count, t.contributors_count, t.forks_count, \
         t.open_issues_count, t.stars_count, t.subscribers_count, t.is_archived, \
         t.license, t.topics, t.languages, NULL AS pushed_at, t.created_at, \
         t.updated_at, t.size FROM main.repositories t"
            .to_string(),
        "CREATE TEMP VIEW members AS SELECT t.id, t.login, t.login_lc, t.name, t.name_lc, \
         t.avatar_url, t.url, t.bio, t.company, t.company_lc, t.location, t.location_lc, \
         t.title, t.twitter_username, t.followers_count, t.following_count, \
         t.public_repositories_count, t.created_at, t.updated_at, '' AS email, \
         t.is_owasp_board_member, t.is_former_owasp_staff, t.is_gsoc_mentor, \
         t.linkedin_page_id, t.first_owasp_contribution_at FROM main.members t"
            .to_string(),
        // The contact addresses of board candidates and members, like members' own.
        "CREATE TEMP VIEW leaders AS SELECT t.entity_kind, t.entity_id, t.position, t.name, \
         t.member_id, t.description, '' AS email FROM main.leaders t"
            .to_string(),
        format!(
            "CREATE TEMP VIEW organizations AS SELECT {organization_columns} \
             FROM main.organizations t WHERE ({org}) OR EXISTS \
             (SELECT 1 FROM main.repositories r WHERE r.organization_id = t.id)"
        ),
    ]
    .map(|statement| statement + ";\n")
    .concat()
}
