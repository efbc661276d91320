//! The records that feed the frontend's GraphQL pages (docs/data.md, "Records for the
//! frontend's pages"): pull requests, the community's blog posts, project health
//! measurements, member badges, the community-wide values of `community.json`, and the
//! chat channels of chapters, committees and projects. Every one of them is optional:
//! a dataset without them imports as before.

use serde::Deserialize;

use super::{State, Ts};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PullRequest {
    pub organization: String,
    pub repository: String,
    pub number: u64,
    pub title: String,
    pub state: State,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub author: Option<String>,
    pub url: String,
    pub created_at: Ts,
    pub updated_at: Ts,
    #[serde(default)]
    pub closed_at: Option<Ts>,
    #[serde(default)]
    pub merged_at: Option<Ts>,
}

/// A post of the community's blog.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Post {
    pub title: String,
    pub url: String,
    pub author_name: String,
    #[serde(default)]
    pub author_image_url: String,
    pub published_at: Ts,
    pub created_at: Ts,
    pub updated_at: Ts,
}

/// One measurement of a project's health.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectHealthMetrics {
    pub project: String,
    pub created_at: Ts,
    #[serde(default)]
    pub score: Option<f64>,
    #[serde(default)]
    pub stars_count: u64,
    #[serde(default)]
    pub forks_count: u64,
    #[serde(default)]
    pub open_issues_count: u64,
    #[serde(default)]
    pub open_pull_requests_count: u64,
    #[serde(default)]
    pub unanswered_issues_count: u64,
    #[serde(default)]
    pub unassigned_issues_count: u64,
    #[serde(default)]
    pub last_commit_days: u64,
    #[serde(default)]
    pub last_commit_days_requirement: u64,
    #[serde(default)]
    pub last_release_days: u64,
    #[serde(default)]
    pub last_release_days_requirement: u64,
}

/// A badge members can hold.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Badge {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub css_class: String,
    #[serde(default)]
    pub weight: i64,
}

/// `community.json`: values of the community as a whole (one JSON object).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Community {
    /// Members of the community's chat workspace.
    #[serde(default)]
    pub slack_workspace_members: u64,
}

/// A chat channel of a chapter, committee or project.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Channel {
    pub platform: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub external_id: String,
}
