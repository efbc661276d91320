//! The REST v0 response bodies as clients see them (docs/api.md §3): one struct per
//! list item and per detail, serialised with serde in the documented field order (list
//! fields, then detail fields) and described to OpenAPI by utoipa from the same types.
//!
//! Each body is declared with [`selected!`]: every field names the SQL expression it
//! is read from (over the record aliased `t`, and the joins of its list's or detail's
//! `from`), so the catalog's select list and reader come from the same lines.

use serde::Serialize;
use utoipa::ToSchema;

use crate::schema::exposure::new_in_snapshot;
pub use crate::schema::issues::rest::{Issue, IssueDetail, SnapshotIssue};
use crate::schema::Cols;
use crate::selected;
use crate::vocab::{Level, ProjectType, State};

/// A leader of a chapter, committee or project.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Leader {
    /// The leader's member login; null when the leader has no linked account.
    pub key: Option<String>,
    pub name: String,
}

/// The leaders of the record of `kind` whose id is the next column, in their order.
fn leaders(kind: &str, c: &mut Cols) -> rusqlite::Result<Vec<Leader>> {
    let id: i64 = c.get()?;
    let mut st = c.conn().prepare_cached(
        "SELECT m.login, l.name FROM leaders l LEFT JOIN members m ON m.id = l.member_id \
         WHERE l.entity_kind = ?1 AND l.entity_id = ?2 ORDER BY l.position",
    )?;
    let rows = st.query_map(rusqlite::params![kind, id], |r| {
        Ok(Leader {
            key: r.get(0)?,
            name: r.get(1)?,
        })
    })?;
    rows.collect()
}

fn chapter_leaders(c: &mut Cols) -> rusqlite::Result<Vec<Leader>> {
    leaders("chapter", c)
}

fn project_leaders(c: &mut Cols) -> rusqlite::Result<Vec<Leader>> {
    leaders("project", c)
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Chapter {
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        /// Full key: `www-chapter-` then the name part.
        pub key: String = get("t.key"),
        pub latitude: Option<f64> = get("t.latitude"),
        pub longitude: Option<f64> = get("t.longitude"),
        pub name: String = get("t.name"),
        #[schema(format = DateTime)]
        pub updated_at: String = ts("t.updated_at"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct ChapterDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Chapter = flatten(Chapter),
        pub country: String = get("t.country"),
        pub leaders: Vec<Leader> = with(chapter_leaders, "t.id"),
        pub region: String = get("t.region"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Committee {
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        /// Full key: `www-committee-` then the name part.
        pub key: String = get("t.key"),
        pub name: String = get("t.name"),
        #[schema(format = DateTime)]
        pub updated_at: String = ts("t.updated_at"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct CommitteeDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Committee = flatten(Committee),
        pub description: String = get("t.description"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Event {
        #[schema(format = Date)]
        pub end_date: Option<String> = get("t.end_date"),
        pub key: String = get("t.key"),
        pub latitude: Option<f64> = get("t.latitude"),
        pub longitude: Option<f64> = get("t.longitude"),
        pub name: String = get("t.name"),
        #[schema(format = Date)]
        pub start_date: String = get("t.start_date"),
        pub url: Option<String> = get("t.url"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct EventDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Event = flatten(Event),
        pub description: Option<String> = get("t.description"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Label {
        pub color: String = get("t.color"),
        pub name: String = get("t.name"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Member {
        pub avatar_url: String = get("t.avatar_url"),
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        pub login: String = get("t.login"),
        pub name: String = get("t.name"),
        #[schema(format = DateTime)]
        pub updated_at: String = ts("t.updated_at"),
        pub url: String = get("t.url"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct MemberDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Member = flatten(Member),
        pub bio: String = get("t.bio"),
        pub company: String = get("t.company"),
        pub followers_count: i64 = get("t.followers_count"),
        pub following_count: i64 = get("t.following_count"),
        pub location: String = get("t.location"),
        pub public_repositories_count: i64 = get("t.public_repositories_count"),
        pub title: String = get("t.title"),
        pub twitter_username: String = get("t.twitter_username"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Milestone {
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        pub number: i64 = get("t.number"),
        #[schema(value_type = State)]
        pub state: String = get("t.state"),
        pub title: String = get("t.title"),
        #[schema(format = DateTime)]
        pub updated_at: String = ts("t.updated_at"),
        pub url: String = get("t.url"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct MilestoneDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Milestone = flatten(Milestone),
        pub body: String = get("t.body"),
        pub closed_issues_count: i64 = get("t.closed_issues_count"),
        #[schema(format = DateTime)]
        pub due_on: Option<String> = opt_ts("t.due_on"),
        pub open_issues_count: i64 = get("t.open_issues_count"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Organization {
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        pub login: String = get("t.login"),
        pub name: String = get("t.name"),
        #[schema(format = DateTime)]
        pub updated_at: String = ts("t.updated_at"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct OrganizationDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Organization = flatten(Organization),
        pub company: String = get("t.company"),
        pub location: String = get("t.location"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Project {
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        /// Full key: `www-project-` then the name part.
        pub key: String = get("t.key"),
        #[schema(value_type = Level)]
        pub level: String = get("t.level"),
        pub name: String = get("t.name"),
        #[serde(rename = "type")]
        #[schema(value_type = ProjectType)]
        pub kind: String = get("t.type"),
        #[schema(format = DateTime)]
        pub updated_at: String = ts("t.updated_at"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct ProjectDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Project = flatten(Project),
        pub description: String = get("t.description"),
        pub leaders: Vec<Leader> = with(project_leaders, "t.id"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Release {
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        pub name: String = get("t.name"),
        #[schema(format = DateTime)]
        pub published_at: Option<String> = opt_ts("t.published_at"),
        pub tag_name: String = get("t.tag_name"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct ReleaseDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Release = flatten(Release),
        pub description: String = get("t.description"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Repository {
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        pub name: String = get("t.name"),
        #[schema(format = DateTime)]
        pub updated_at: String = ts("t.updated_at"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct RepositoryDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Repository = flatten(Repository),
        pub commits_count: i64 = get("t.commits_count"),
        pub contributors_count: i64 = get("t.contributors_count"),
        pub description: Option<String> = get("t.description"),
        pub forks_count: i64 = get("t.forks_count"),
        pub open_issues_count: i64 = get("t.open_issues_count"),
        pub stars_count: i64 = get("t.stars_count"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Snapshot {
        #[schema(format = DateTime)]
        pub created_at: String = ts("t.created_at"),
        #[schema(format = DateTime)]
        pub end_at: String = ts("t.end_at"),
        /// `YYYY-MM`.
        pub key: String = get("t.key"),
        #[schema(format = DateTime)]
        pub start_at: String = ts("t.start_at"),
        pub title: String = get("t.title"),
        #[schema(format = DateTime)]
        pub updated_at: String = ts("t.updated_at"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct SnapshotDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Snapshot = flatten(Snapshot),
        pub new_chapters_count: i64 = get(new_in_snapshot!(chapters)),
        pub new_issues_count: i64 = get(new_in_snapshot!(issues)),
        pub new_projects_count: i64 = get(new_in_snapshot!(projects)),
        pub new_releases_count: i64 = get(new_in_snapshot!(releases)),
        pub new_users_count: i64 = get(new_in_snapshot!(members)),
    }
}

selected! {
    /// A release in a snapshot sub-list: the release list item plus where it lives.
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct SnapshotRelease {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Release = flatten(Release),
        pub organization_login: Option<String> = get("o.login"),
        pub repository_name: Option<String> = get("r.name"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Sponsor {
        pub image_url: String = get("t.image_url"),
        pub key: String = get("t.key"),
        pub name: String = get("t.name"),
        pub sponsor_type: String = get("t.sponsor_type"),
        pub url: String = get("t.url"),
    }
}

selected! {
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct SponsorDetail {
        #[serde(flatten)]
        #[schema(inline)]
        pub base: Sponsor = flatten(Sponsor),
        pub description: String = get("t.description"),
        pub is_member: bool = get("t.is_member"),
        pub job_url: String = get("t.job_url"),
        /// `Platinum`, `Gold` or `Silver` (see `SponsorMemberType`), or empty when the
        /// sponsor is not a member.
        pub member_type: String = get("t.member_type"),
    }
}
// ----------------------------------------------------------------------------------
// Error bodies (docs/api.md §2, "Errors"): the shim serialises these, OpenAPI
// describes them.

/// `{"detail": …}`: authentication, rate limit, page out of range, unknown path and
/// unexpected errors.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"detail": "Page 5 not found. Valid pages are 1 to 3."}))]
pub struct ErrorDetail {
    pub detail: String,
}

/// The body of a 400: every invalid query parameter, each with where it is, what is
/// wrong and the kind of error.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "message": "Invalid request",
    "errors": [{
        "loc": ["query", "page_size"],
        "msg": "page_size must be an integer from 1 to 100; got '101'",
        "type": "less_than_equal"
    }]
}))]
pub struct ValidationErrorSchema {
    /// Always `Invalid request`.
    pub message: String,
    pub errors: Vec<ValidationErrorItem>,
}

/// One invalid parameter of a 400.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ValidationErrorItem {
    /// Where the parameter is: `["query", "<name>"]`.
    pub loc: Vec<String>,
    /// A sentence naming the parameter, the value received and what is allowed.
    pub msg: String,
    /// A short machine-readable kind: `int_parsing`, `greater_than_equal`,
    /// `less_than_equal`, `enum`, `bool_parsing`, `float_parsing`, `value_error`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// `{"message": "<Singular> not found"}`: no such record (documented per resource as
/// `<Singular>Error`).
#[derive(Debug, Clone, Serialize)]
pub struct NotFoundMessage {
    pub message: String,
}
