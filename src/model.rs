//! The REST v0 response bodies as clients see them (docs/api.md §3): one struct per
//! list item and per detail, serialised with serde in the documented field order (list
//! fields, then detail fields) and described to OpenAPI by utoipa from the same types.
//!
//! Each body is declared with [`selected!`]: every field names the SQL expression it
//! is read from (over the record aliased `t`, and the joins of its list's or detail's
//! `from`), so the catalog's select list and reader come from the same lines.

use serde::Serialize;
use utoipa::ToSchema;

pub use crate::schema::code::rest::{
    Label, Milestone, MilestoneDetail, Release, ReleaseDetail, Repository, RepositoryDetail,
    SnapshotRelease,
};
pub use crate::schema::community::rest::{
    Chapter, ChapterDetail, Committee, CommitteeDetail, Event, EventDetail, Leader, Member,
    MemberDetail, Organization, OrganizationDetail, Project, ProjectDetail, Snapshot,
    SnapshotDetail, Sponsor, SponsorDetail,
};
pub use crate::schema::issues::rest::{Issue, IssueDetail, SnapshotIssue};

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
