//! The records of the JSON Lines interchange format (docs/data.md): one struct per
//! file, parsed strictly (unknown fields, wrong types and bad enum values are errors).
//! Each is declared beside its kin in `crate::schema`'s domain files (`issues`,
//! `code`, `community`), with where the dataset keeps each field; this module gathers
//! them into a [`Dataset`], with where each came from.
//!
//! `roost db import` reads these from files; `roost db synth` builds them in memory.
//! Either way they go through [`crate::store::build`], which checks references and keys.

use std::fmt;

pub use crate::schema::code::interchange::{
    Label, Milestone, Release, Repository, RepositoryContributor,
};
pub use crate::schema::community::interchange::{
    Badge, Board, Channel, Chapter, Committee, Community, Event, IssueRef, Leader, Member,
    MemberSnapshot, Organization, Post, Project, ProjectHealthMetrics, ReleaseRef, RepositoryRef,
    Snapshot, Sponsor,
};
pub use crate::schema::issues::interchange::{Issue, PullRequest};
pub use crate::schema::mentorship::interchange::{Module, Program};
pub use crate::schema::{Color, Date, Ts};

// The vocabularies (state, level, type, category, sponsor and member type, snapshot
// status) are declared once, in `crate::vocab`.
pub use crate::vocab::{
    Category, ExperienceLevel, Level, MemberType, ProgramStatus, ProjectType, SnapshotStatus,
    SponsorType, State,
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
    pub boards: Records<Board>,
    pub member_snapshots: Records<MemberSnapshot>,
    /// Mentorship programs and their modules.
    pub programs: Records<Program>,
    pub modules: Records<Module>,
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
    "boards.jsonl",
    "member_snapshots.jsonl",
    "programs.jsonl",
    "modules.jsonl",
    "community.json",
];

/// Origin used for records built in memory (synthetic datasets).
pub fn synthetic_origin(file: &'static str, index: usize) -> Origin {
    Origin {
        file,
        line: index + 1,
    }
}
