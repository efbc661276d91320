//! The records that feed the frontend's GraphQL pages (docs/data.md, "Records for the
//! frontend's pages"): pull requests, the community's blog posts, project health
//! measurements, member badges, the community-wide values of `community.json`, and the
//! chat channels of chapters, committees and projects. Every one of them is optional:
//! a dataset without them imports as before.

use serde::Deserialize;

use crate::stored;

use super::Ts;

stored! {
    /// A post of the community's blog.
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Post {
        pub title: String => column,
        pub url: String => shadowed,
        pub author_name: String => column,
        #[serde(default)]
        pub author_image_url: String => column,
        pub published_at: Ts => column,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
    }
}

stored! {
    /// One measurement of a project's health.
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ProjectHealthMetrics {
        pub project: String => elsewhere,
        pub created_at: Ts => column,
        #[serde(default)]
        pub score: Option<f64> => column,
        #[serde(default)]
        pub stars_count: u64 => column,
        #[serde(default)]
        pub forks_count: u64 => column,
        #[serde(default)]
        pub open_issues_count: u64 => column,
        #[serde(default)]
        pub open_pull_requests_count: u64 => column,
        #[serde(default)]
        pub unanswered_issues_count: u64 => column,
        #[serde(default)]
        pub unassigned_issues_count: u64 => column,
        #[serde(default)]
        pub last_commit_days: u64 => column,
        #[serde(default)]
        pub last_commit_days_requirement: u64 => column,
        #[serde(default)]
        pub last_release_days: u64 => column,
        #[serde(default)]
        pub last_release_days_requirement: u64 => column,
    }
}

stored! {
    /// A badge members can hold.
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Badge {
        pub name: String => shadowed,
        #[serde(default)]
        pub description: String => column,
        #[serde(default)]
        pub css_class: String => column,
        #[serde(default)]
        pub weight: i64 => column,
    }
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
