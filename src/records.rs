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

/// Where a record came from, for error messages: `file:line` for a record of an
/// interchange file, `table id N` for a row of the original service's database
/// (`roost db import postgresql://…`, whose `file` is a table and `line` the row's
/// primary key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: &'static str,
    pub line: usize,
}

impl Origin {
    /// Whether the record is a line of an interchange file (not a database row).
    pub fn is_file(&self) -> bool {
        self.file.ends_with(".jsonl") || self.file.ends_with(".json")
    }
}

/// The record at 1-based position `first` of `records`, as a duplicate's message names
/// it: `record 3 of members.jsonl`, or `github_users id 42` for a database row.
pub fn first_defined<T>(records: &Records<T>, first: i64) -> String {
    let at = usize::try_from(first - 1).ok();
    match at.and_then(|i| records.get(i)) {
        Some((origin, _)) if !origin.is_file() => origin.to_string(),
        Some((origin, _)) => format!("record {first} of {}", origin.file),
        None => format!("record {first}"),
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_file() {
            write!(f, "{}:{}", self.file, self.line)
        } else {
            write!(f, "{} id {}", self.file, self.line)
        }
    }
}

/// Records of one type, in stable-id order, each with its origin.
pub type Records<T> = Vec<(Origin, T)>;

/// Every kind of record, declared once: `name: Type`, where the name is its interchange
/// file (`name.jsonl`), its table and its field of [`Dataset`], in the order `roost db
/// import` reads and reports them. `with_kinds!(m)` calls the macro `m!` with the list,
/// so the dataset, its file names, the reader and the embedded sample are all made
/// from it.
#[macro_export]
macro_rules! with_kinds {
    ($m:ident) => {
        $m! {
            organizations: Organization,
            members: Member,
            repositories: Repository,
            repository_contributors: RepositoryContributor,
            labels: Label,
            issues: Issue,
            milestones: Milestone,
            releases: Release,
            chapters: Chapter,
            committees: Committee,
            projects: Project,
            events: Event,
            sponsors: Sponsor,
            snapshots: Snapshot,
            pull_requests: PullRequest,
            posts: Post,
            project_health_metrics: ProjectHealthMetrics,
            badges: Badge,
            boards: Board,
            member_snapshots: MemberSnapshot,
            programs: Program,
            modules: Module,
        }
    };
}

macro_rules! define_dataset {
    ($($field:ident: $ty:ty),* $(,)?) => {
        /// A whole dataset in interchange form.
        #[derive(Debug, Default, Clone)]
        pub struct Dataset {
            $(pub $field: Records<$ty>,)*
            /// `community.json` (all defaults when the file is missing).
            pub community: Community,
        }

        /// The kinds of record, one JSON Lines file each (`KIND.jsonl`), in the order
        /// `roost db import` reports them. Each is also the name of its table.
        pub const KINDS: &[&str] = &[$(stringify!($field)),*];

        /// The interchange files, in the order they are read.
        pub const FILES: &[&str] = &[$(concat!(stringify!($field), ".jsonl"),)* "community.json"];

        impl Dataset {
            /// The records of each kind, in the order of [`KINDS`].
            pub fn kind_counts(&self) -> Vec<(&'static str, u64)> {
                vec![$((stringify!($field), self.$field.len() as u64)),*]
            }
        }
    };
}
with_kinds!(define_dataset);

/// Origin used for records built in memory (synthetic datasets).
pub fn synthetic_origin(file: &'static str, index: usize) -> Origin {
    Origin {
        file,
        line: index + 1,
    }
}
