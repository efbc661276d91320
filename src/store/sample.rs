//! The sample dataset shipped inside the binary (`data/sample/`): what `roost db init`
//! writes and what the tests compare against.

use std::path::Path;

use super::{ImportErrors, StoreError};
use crate::records::Dataset;

/// The sample dataset shipped in the binary (data/sample/), as (file, contents).
pub const SAMPLE: &[(&str, &str)] = &[
    (
        "organizations.jsonl",
        include_str!("../../data/sample/organizations.jsonl"),
    ),
    (
        "members.jsonl",
        include_str!("../../data/sample/members.jsonl"),
    ),
    (
        "repositories.jsonl",
        include_str!("../../data/sample/repositories.jsonl"),
    ),
    (
        "repository_contributors.jsonl",
        include_str!("../../data/sample/repository_contributors.jsonl"),
    ),
    (
        "labels.jsonl",
        include_str!("../../data/sample/labels.jsonl"),
    ),
    (
        "issues.jsonl",
        include_str!("../../data/sample/issues.jsonl"),
    ),
    (
        "milestones.jsonl",
        include_str!("../../data/sample/milestones.jsonl"),
    ),
    (
        "releases.jsonl",
        include_str!("../../data/sample/releases.jsonl"),
    ),
    (
        "chapters.jsonl",
        include_str!("../../data/sample/chapters.jsonl"),
    ),
    (
        "committees.jsonl",
        include_str!("../../data/sample/committees.jsonl"),
    ),
    (
        "projects.jsonl",
        include_str!("../../data/sample/projects.jsonl"),
    ),
    (
        "events.jsonl",
        include_str!("../../data/sample/events.jsonl"),
    ),
    (
        "sponsors.jsonl",
        include_str!("../../data/sample/sponsors.jsonl"),
    ),
    (
        "snapshots.jsonl",
        include_str!("../../data/sample/snapshots.jsonl"),
    ),
    (
        "pull_requests.jsonl",
        include_str!("../../data/sample/pull_requests.jsonl"),
    ),
    ("posts.jsonl", include_str!("../../data/sample/posts.jsonl")),
    (
        "project_health_metrics.jsonl",
        include_str!("../../data/sample/project_health_metrics.jsonl"),
    ),
    (
        "badges.jsonl",
        include_str!("../../data/sample/badges.jsonl"),
    ),
    (
        "boards.jsonl",
        include_str!("../../data/sample/boards.jsonl"),
    ),
    (
        "member_snapshots.jsonl",
        include_str!("../../data/sample/member_snapshots.jsonl"),
    ),
    (
        "programs.jsonl",
        include_str!("../../data/sample/programs.jsonl"),
    ),
    (
        "modules.jsonl",
        include_str!("../../data/sample/modules.jsonl"),
    ),
    (
        "community.json",
        include_str!("../../data/sample/community.json"),
    ),
];

/// The embedded sample as a dataset.
pub fn sample_dataset() -> Result<Dataset, ImportErrors> {
    let mut errors = Vec::new();
    let mut ds = Dataset::default();
    for (file, text) in SAMPLE {
        let bytes = text.as_bytes();
        let e = &mut errors;
        match *file {
            "organizations.jsonl" => ds.organizations = super::parse_lines(file, bytes, e),
            "members.jsonl" => ds.members = super::parse_lines(file, bytes, e),
            "repositories.jsonl" => ds.repositories = super::parse_lines(file, bytes, e),
            "repository_contributors.jsonl" => {
                ds.repository_contributors = super::parse_lines(file, bytes, e)
            }
            "labels.jsonl" => ds.labels = super::parse_lines(file, bytes, e),
            "issues.jsonl" => ds.issues = super::parse_lines(file, bytes, e),
            "milestones.jsonl" => ds.milestones = super::parse_lines(file, bytes, e),
            "releases.jsonl" => ds.releases = super::parse_lines(file, bytes, e),
            "chapters.jsonl" => ds.chapters = super::parse_lines(file, bytes, e),
            "committees.jsonl" => ds.committees = super::parse_lines(file, bytes, e),
            "projects.jsonl" => ds.projects = super::parse_lines(file, bytes, e),
            "events.jsonl" => ds.events = super::parse_lines(file, bytes, e),
            "sponsors.jsonl" => ds.sponsors = super::parse_lines(file, bytes, e),
            "snapshots.jsonl" => ds.snapshots = super::parse_lines(file, bytes, e),
            "pull_requests.jsonl" => ds.pull_requests = super::parse_lines(file, bytes, e),
            "posts.jsonl" => ds.posts = super::parse_lines(file, bytes, e),
            "project_health_metrics.jsonl" => {
                ds.project_health_metrics = super::parse_lines(file, bytes, e)
            }
            "badges.jsonl" => ds.badges = super::parse_lines(file, bytes, e),
            "boards.jsonl" => ds.boards = super::parse_lines(file, bytes, e),
            "member_snapshots.jsonl" => ds.member_snapshots = super::parse_lines(file, bytes, e),
            "programs.jsonl" => ds.programs = super::parse_lines(file, bytes, e),
            "modules.jsonl" => ds.modules = super::parse_lines(file, bytes, e),
            "community.json" => ds.community = super::read::parse_community(bytes, e),
            _ => {}
        }
    }
    if errors.is_empty() {
        Ok(ds)
    } else {
        Err(ImportErrors(errors, 0))
    }
}

/// `roost db init`: the sample dataset at `db` (refused when `db` exists, unless `force`).
/// `derive`: the tables built beside the records ([`super::Derive`]).
pub fn init_db(db: &Path, force: bool, derive: super::Derive) -> Result<(), StoreError> {
    if db.exists() && !force {
        return Err(StoreError::Exists(db.to_path_buf()));
    }
    super::build(&sample_dataset()?, db, derive)
}
