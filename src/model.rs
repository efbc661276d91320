//! The REST v0 response bodies as clients see them (docs/api.md §3): one struct per
//! list item and per detail, serialised with serde in the documented field order (list
//! fields, then detail fields) and described to OpenAPI by utoipa from the same types.
//!
//! These are serialisation-only types, filled by the catalog from SQL rows.

use serde::Serialize;
use utoipa::ToSchema;

use crate::vocab::{Level, ProjectType, State};

/// A leader of a chapter, committee or project.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Leader {
    /// The leader's member login; null when the leader has no linked account.
    pub key: Option<String>,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Chapter {
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Full key: `www-chapter-` then the name part.
    pub key: String,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub name: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChapterDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Chapter,
    pub country: String,
    pub leaders: Vec<Leader>,
    pub region: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Committee {
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Full key: `www-committee-` then the name part.
    pub key: String,
    pub name: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CommitteeDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Committee,
    pub description: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Event {
    #[schema(format = Date)]
    pub end_date: Option<String>,
    pub key: String,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub name: String,
    #[schema(format = Date)]
    pub start_date: String,
    pub url: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Event,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Issue {
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(value_type = State)]
    pub state: String,
    pub title: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    pub url: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct IssueDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Issue,
    /// Markdown.
    pub body: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Label {
    pub color: String,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Member {
    pub avatar_url: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    pub login: String,
    pub name: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    pub url: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MemberDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Member,
    pub bio: String,
    pub company: String,
    pub followers_count: i64,
    pub following_count: i64,
    pub location: String,
    pub public_repositories_count: i64,
    pub title: String,
    pub twitter_username: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Milestone {
    #[schema(format = DateTime)]
    pub created_at: String,
    pub number: i64,
    #[schema(value_type = State)]
    pub state: String,
    pub title: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    pub url: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MilestoneDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Milestone,
    pub body: String,
    pub closed_issues_count: i64,
    #[schema(format = DateTime)]
    pub due_on: Option<String>,
    pub open_issues_count: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Organization {
    #[schema(format = DateTime)]
    pub created_at: String,
    pub login: String,
    pub name: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OrganizationDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Organization,
    pub company: String,
    pub location: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Project {
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Full key: `www-project-` then the name part.
    pub key: String,
    #[schema(value_type = Level)]
    pub level: String,
    pub name: String,
    #[serde(rename = "type")]
    #[schema(value_type = ProjectType)]
    pub kind: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ProjectDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Project,
    pub description: String,
    pub leaders: Vec<Leader>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Release {
    #[schema(format = DateTime)]
    pub created_at: String,
    pub name: String,
    #[schema(format = DateTime)]
    pub published_at: Option<String>,
    pub tag_name: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ReleaseDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Release,
    pub description: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Repository {
    #[schema(format = DateTime)]
    pub created_at: String,
    pub name: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RepositoryDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Repository,
    pub commits_count: i64,
    pub contributors_count: i64,
    pub description: Option<String>,
    pub forks_count: i64,
    pub open_issues_count: i64,
    pub stars_count: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Snapshot {
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub end_at: String,
    /// `YYYY-MM`.
    pub key: String,
    #[schema(format = DateTime)]
    pub start_at: String,
    pub title: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SnapshotDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Snapshot,
    pub new_chapters_count: i64,
    pub new_issues_count: i64,
    pub new_projects_count: i64,
    pub new_releases_count: i64,
    pub new_users_count: i64,
}

/// An issue in a snapshot sub-list: the issue list item plus where it lives.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SnapshotIssue {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Issue,
    pub organization_login: Option<String>,
    pub repository_name: Option<String>,
}

/// A release in a snapshot sub-list: the release list item plus where it lives.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SnapshotRelease {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Release,
    pub organization_login: Option<String>,
    pub repository_name: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Sponsor {
    pub image_url: String,
    pub key: String,
    pub name: String,
    pub sponsor_type: String,
    pub url: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SponsorDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub base: Sponsor,
    pub description: String,
    pub is_member: bool,
    pub job_url: String,
    /// `Platinum`, `Gold` or `Silver` (see `SponsorMemberType`), or empty when the
    /// sponsor is not a member.
    pub member_type: String,
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
