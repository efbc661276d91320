//! The records of the JSON Lines interchange format (docs/data.md): one struct per
//! file, parsed strictly (unknown fields, wrong types and bad enum values are errors),
//! and the time values they carry.
//!
//! `roost db import` reads these from files; `roost db synth` builds them in memory.
//! Either way they go through [`crate::store::build`], which checks references and keys.

use std::fmt;

use serde::Deserialize;

pub use crate::schema::issues::interchange::{Issue, PullRequest};
pub use crate::schema::{Color, Date, Ts};
use crate::stored;

mod pages;

pub use pages::{Badge, Channel, Community, Post, ProjectHealthMetrics};

fn default_true() -> bool {
    true
}

// The vocabularies (state, level, type, category, sponsor and member type, snapshot
// status) are declared once, in `crate::vocab`.
pub use crate::vocab::{
    Category, Level, MemberType, ProjectType, SnapshotStatus, SponsorType, State,
};

impl Level {
    /// Rank for the project list's default order: flagship 5 … demo 1.
    pub fn rank(self) -> i64 {
        match self {
            Level::Flagship => 5,
            Level::Production => 4,
            Level::Lab => 3,
            Level::Incubator => 2,
            Level::Demo => 1,
        }
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Organization {
        pub login: String => shadowed,
        #[serde(default)]
        pub name: String => column,
        #[serde(default)]
        pub company: String => column,
        #[serde(default)]
        pub location: String => shadowed,
        #[serde(default)]
        pub description: String => column,
        #[serde(default)]
        pub avatar_url: String => column,
        #[serde(default)]
        pub url: String => elsewhere,
        #[serde(default)]
        pub followers_count: u64 => column,
        #[serde(default)]
        pub is_affiliated: bool => column,
        #[serde(default)]
        pub collaborators_count: u64 => column,
        #[serde(default)]
        pub email: String => column,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Member {
        pub login: String => shadowed,
        #[serde(default)]
        pub name: String => shadowed,
        #[serde(default)]
        pub avatar_url: String => column,
        #[serde(default)]
        pub url: String => elsewhere,
        #[serde(default)]
        pub bio: String => column,
        #[serde(default)]
        pub company: String => shadowed,
        #[serde(default)]
        pub location: String => shadowed,
        #[serde(default)]
        pub title: String => column,
        #[serde(default)]
        pub twitter_username: String => column,
        #[serde(default)]
        pub followers_count: u64 => column,
        #[serde(default)]
        pub following_count: u64 => column,
        #[serde(default)]
        pub public_repositories_count: u64 => column,
        #[serde(default)]
        pub email: String => column,
        /// Badge names, as listed.
        #[serde(default)]
        pub badges: Vec<String> => elsewhere,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Repository {
        pub organization: String => elsewhere,
        pub name: String => shadowed,
        #[serde(default)]
        pub description: Option<String> => column,
        #[serde(default)]
        pub url: String => elsewhere,
        #[serde(default)]
        pub commits_count: u64 => column,
        #[serde(default)]
        pub contributors_count: u64 => column,
        #[serde(default)]
        pub forks_count: u64 => column,
        #[serde(default)]
        pub open_issues_count: u64 => column,
        #[serde(default)]
        pub stars_count: u64 => column,
        #[serde(default)]
        pub subscribers_count: u64 => column,
        #[serde(default)]
        pub is_archived: bool => column,
        #[serde(default)]
        pub license: String => column,
        #[serde(default)]
        pub topics: Vec<String> => column,
        #[serde(default)]
        pub languages: Vec<String> => column,
        #[serde(default)]
        pub pushed_at: Option<Ts> => column,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
        /// The repository's size in kilobytes, as the code host reports it; none when
        /// unknown.
        #[serde(default)]
        pub size: Option<u64> => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RepositoryContributor {
        pub organization: String => elsewhere,
        pub repository: String => elsewhere,
        pub member: String => elsewhere,
        pub contributions_count: u64 => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Label {
        /// The organization and repository the label belongs to; neither: a label shared
        /// by every repository.
        #[serde(default)]
        pub organization: Option<String> => elsewhere,
        #[serde(default)]
        pub repository: Option<String> => elsewhere,
        pub name: String => shadowed,
        pub color: Color => shadowed,
        #[serde(default)]
        pub description: String => column,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Milestone {
        pub organization: String => elsewhere,
        pub repository: String => elsewhere,
        pub number: u64 => column,
        pub title: String => column,
        pub state: State => column,
        #[serde(default)]
        pub body: String => column,
        #[serde(default)]
        pub author: Option<String> => elsewhere,
        pub url: String => column,
        #[serde(default)]
        pub open_issues_count: u64 => column,
        #[serde(default)]
        pub closed_issues_count: u64 => column,
        #[serde(default)]
        pub due_on: Option<Ts> => column,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Release {
        pub organization: String => elsewhere,
        pub repository: String => elsewhere,
        pub tag_name: String => column,
        #[serde(default)]
        pub name: String => column,
        #[serde(default)]
        pub description: String => column,
        #[serde(default)]
        pub author: Option<String> => elsewhere,
        #[serde(default)]
        pub url: String => elsewhere,
        #[serde(default)]
        pub is_draft: bool => column,
        #[serde(default)]
        pub is_pre_release: bool => column,
        #[serde(default)]
        pub published_at: Option<Ts> => column,
        pub created_at: Ts => column,
    }
}

/// A leader of a chapter, committee or project.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leader {
    pub name: String,
    #[serde(default)]
    pub login: Option<String>,
    /// The leader's role.
    #[serde(default)]
    pub description: String,
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Chapter {
        pub key: String => shadowed,
        pub name: String => column,
        #[serde(default = "default_true")]
        pub is_active: bool => column,
        #[serde(default)]
        pub country: String => shadowed,
        #[serde(default)]
        pub region: String => column,
        #[serde(default)]
        pub latitude: Option<f64> => column,
        #[serde(default)]
        pub longitude: Option<f64> => column,
        #[serde(default)]
        pub summary: String => column,
        #[serde(default)]
        pub url: String => column,
        #[serde(default)]
        pub leaders: Vec<Leader> => elsewhere,
        #[serde(default)]
        pub suggested_location: Option<String> => column,
        #[serde(default)]
        pub related_urls: Vec<String> => elsewhere,
        #[serde(default)]
        pub channels: Vec<Channel> => elsewhere,
        #[serde(default)]
        pub repositories: Vec<RepositoryRef> => elsewhere,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Committee {
        pub key: String => shadowed,
        pub name: String => column,
        #[serde(default = "default_true")]
        pub is_active: bool => column,
        #[serde(default)]
        pub description: String => column,
        #[serde(default)]
        pub summary: String => column,
        #[serde(default)]
        pub url: String => column,
        #[serde(default)]
        pub leaders: Vec<Leader> => elsewhere,
        #[serde(default)]
        pub related_urls: Vec<String> => elsewhere,
        #[serde(default)]
        pub channels: Vec<Channel> => elsewhere,
        #[serde(default)]
        pub repositories: Vec<RepositoryRef> => elsewhere,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
    }
}

/// A link to one repository (of a project, chapter or committee).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepositoryRef {
    pub organization: String,
    pub name: String,
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Project {
        pub key: String => shadowed,
        pub name: String => shadowed,
        #[serde(default = "default_true")]
        pub is_active: bool => column,
        pub level: Level => column,
        #[serde(rename = "type")]
        pub kind: ProjectType => elsewhere,
        #[serde(default)]
        pub description: String => column,
        #[serde(default)]
        pub summary: String => column,
        #[serde(default)]
        pub url: String => column,
        #[serde(default)]
        pub leaders: Vec<Leader> => elsewhere,
        #[serde(default)]
        pub repositories: Vec<RepositoryRef> => elsewhere,
        #[serde(default)]
        pub related_urls: Vec<String> => elsewhere,
        #[serde(default)]
        pub channels: Vec<Channel> => elsewhere,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Event {
        pub key: String => shadowed,
        pub name: String => column,
        pub category: Category => column,
        pub start_date: Date => column,
        #[serde(default)]
        pub end_date: Option<Date> => column,
        #[serde(default)]
        pub latitude: Option<f64> => column,
        #[serde(default)]
        pub longitude: Option<f64> => column,
        #[serde(default)]
        pub url: Option<String> => column,
        #[serde(default)]
        pub description: Option<String> => column,
        #[serde(default)]
        pub summary: String => column,
        #[serde(default)]
        pub suggested_location: String => column,
    }
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Sponsor {
        pub key: String => shadowed,
        pub name: String => shadowed,
        pub sponsor_type: SponsorType => shadowed,
        #[serde(default)]
        pub is_member: bool => column,
        #[serde(default)]
        pub member_type: MemberType => column,
        #[serde(default)]
        pub image_url: String => column,
        #[serde(default)]
        pub url: String => column,
        #[serde(default)]
        pub job_url: String => column,
        #[serde(default)]
        pub description: String => column,
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueRef {
    pub organization: String,
    pub repository: String,
    pub number: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseRef {
    pub organization: String,
    pub repository: String,
    pub tag_name: String,
}

stored! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Snapshot {
        pub key: String => shadowed,
        pub title: String => column,
        pub status: SnapshotStatus => column,
        pub start_at: Ts => column,
        pub end_at: Ts => column,
        pub created_at: Ts => column,
        pub updated_at: Ts => column,
        #[serde(default)]
        pub new_chapters: Vec<String> => elsewhere,
        #[serde(default)]
        pub new_projects: Vec<String> => elsewhere,
        #[serde(default)]
        pub new_members: Vec<String> => elsewhere,
        #[serde(default)]
        pub new_issues: Vec<IssueRef> => elsewhere,
        #[serde(default)]
        pub new_releases: Vec<ReleaseRef> => elsewhere,
    }
}

/// Where a record came from, for error messages: `file:line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: &'static str,
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Records of one type, in stable-id order, each with its origin.
pub type Records<T> = Vec<(Origin, T)>;

/// A whole dataset in interchange form.
#[derive(Debug, Default, Clone)]
pub struct Dataset {
    pub organizations: Records<Organization>,
    pub members: Records<Member>,
    pub repositories: Records<Repository>,
    pub repository_contributors: Records<RepositoryContributor>,
    pub labels: Records<Label>,
    pub issues: Records<Issue>,
    pub milestones: Records<Milestone>,
    pub releases: Records<Release>,
    pub chapters: Records<Chapter>,
    pub committees: Records<Committee>,
    pub projects: Records<Project>,
    pub events: Records<Event>,
    pub sponsors: Records<Sponsor>,
    pub snapshots: Records<Snapshot>,
    pub pull_requests: Records<PullRequest>,
    pub posts: Records<Post>,
    pub project_health_metrics: Records<ProjectHealthMetrics>,
    pub badges: Records<Badge>,
    /// `community.json` (all defaults when the file is missing).
    pub community: Community,
}

/// The interchange files, in the order they are read.
pub const FILES: &[&str] = &[
    "organizations.jsonl",
    "members.jsonl",
    "repositories.jsonl",
    "repository_contributors.jsonl",
    "labels.jsonl",
    "issues.jsonl",
    "milestones.jsonl",
    "releases.jsonl",
    "chapters.jsonl",
    "committees.jsonl",
    "projects.jsonl",
    "events.jsonl",
    "sponsors.jsonl",
    "snapshots.jsonl",
    "pull_requests.jsonl",
    "posts.jsonl",
    "project_health_metrics.jsonl",
    "badges.jsonl",
    "community.json",
];

/// Origin used for records built in memory (synthetic datasets).
pub fn synthetic_origin(file: &'static str, index: usize) -> Origin {
    Origin {
        file,
        line: index + 1,
    }
}
