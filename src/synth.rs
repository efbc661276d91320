//! `roost db synth`: deterministic synthetic datasets for benchmarks.
//!
//! [`dataset`] builds a whole [`Dataset`] in memory from one ChaCha8 stream seeded with
//! the `--seed` value, so the same scale and seed always give the same records in the
//! same order. [`synth`] writes the same records without holding the large ones: it
//! draws the dataset keeping, of the records the repositories own (contributors,
//! issues, milestones, releases), only what later records need ([`Made`]); then
//! [`store::build_streaming`] validates the rest like an import while the owned records
//! are drawn again, repository by repository, from the random stream as it was before
//! them (`code::Repositories`), and the pull requests from a stream of their own, each
//! checked and written as it comes. The SQLite file is written atomically either way.
//!
//! The shape follows the real data it stands in for: repositories per organization,
//! stars and issues per repository follow power laws (a few huge repositories, a long
//! tail of quiet ones); timestamps spread over 2016–2026 with more recent activity;
//! names mix scripts (accents, Cyrillic, Greek, CJK); issue bodies are long Markdown
//! built cheaply from a word list; every enum value occurs; optional values are
//! sometimes null; companies and locations come from small pools so the member
//! filters have repeated values. Every natural key is unique case-insensitively.
//!
//! Here: the scales and their counts, and the generator's state and order. Beside it,
//! the generator per record family, grouped like `crate::schema` (`people`:
//! organizations, members and badges; `code`: labels, repositories, milestones,
//! releases; `issues`: issues, and the pull requests streamed into the file;
//! `community`: chapters, committees, projects and their links, events, sponsors,
//! snapshots, posts, health metrics; `board`: boards and member snapshots;
//! `mentorship`: programs and modules, from a stream of their own), the word lists
//! (`words`), the text built from them (`text`: Markdown bodies, slugs, unique keys)
//! and the shaped random draws and calendar (`random`). The records are drawn in the
//! order of `Synth::run`, not by family: what was added later is drawn after what was
//! there before, so that adding it changed no older record, and moving a draw would
//! change every dataset after it.

use std::path::Path;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use code::{Owned, RepoPlan, Repositories};
use issues::PullRequests;

use crate::records::{synthetic_origin, Dataset, Records, Ts};
use crate::store::{self, Streamed};

mod board;
mod code;
mod community;
mod issues;
mod mentorship;
mod people;
mod random;
pub mod sample;
mod text;
mod words;

type Rng = ChaCha8Rng;

/// Record counts of one scale. Repository contributors are not fixed: each repository
/// gets a skewed number between 2 and [`MAX_CONTRIBUTORS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub chapters: usize,
    pub committees: usize,
    pub events: usize,
    pub projects: usize,
    pub sponsors: usize,
    pub organizations: usize,
    pub repositories: usize,
    pub members: usize,
    pub issues: usize,
    pub milestones: usize,
    pub releases: usize,
    pub labels: usize,
    pub snapshots: usize,
    /// Labels of a single repository, beyond `labels` (the shared ones).
    pub repository_labels: usize,
    pub pull_requests: usize,
    pub posts: usize,
    /// Monthly health measurements per project.
    pub health_months: usize,
}

/// The most contributors one repository gets.
pub const MAX_CONTRIBUTORS: usize = 60;

const NEST: Counts = Counts {
    chapters: 300,
    committees: 12,
    events: 150,
    projects: 300,
    sponsors: 60,
    organizations: 40,
    repositories: 8_000,
    members: 60_000,
    issues: 200_000,
    milestones: 6_000,
    releases: 25_000,
    labels: 2_000,
    snapshots: 24,
    repository_labels: 2_000,
    pull_requests: 100_000,
    posts: 300,
    health_months: 12,
};

/// The size of a synthetic dataset (`roost db synth --scale`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// A twentieth of `nest`.
    Small,
    /// About the community's real size.
    Nest,
    /// `nest` with the code-hosting tables ten times larger.
    TenX,
}

impl Scale {
    pub const ALL: [Scale; 3] = [Scale::Small, Scale::Nest, Scale::TenX];

    pub fn as_str(self) -> &'static str {
        match self {
            Scale::Small => "small",
            Scale::Nest => "nest",
            Scale::TenX => "10x",
        }
    }
}

/// A scale name that is not one of [`Scale::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scale '{0}', expected one of small, nest, 10x")]
pub struct UnknownScale(pub String);

impl std::str::FromStr for Scale {
    type Err = UnknownScale;
    fn from_str(s: &str) -> Result<Scale, UnknownScale> {
        crate::config::named(Scale::ALL, Scale::as_str, s)
            .ok_or_else(|| UnknownScale(s.to_string()))
    }
}

/// How many records of each type a scale produces (exactly).
pub fn counts(scale: Scale) -> Counts {
    match scale {
        Scale::Nest => NEST,
        // The code-hosting tables (organizations, repositories, members, issues,
        // milestones, releases, labels) grow; the community ones stay.
        Scale::TenX => Counts {
            organizations: NEST.organizations * 10,
            repositories: NEST.repositories * 10,
            members: NEST.members * 10,
            issues: NEST.issues * 10,
            milestones: NEST.milestones * 10,
            releases: NEST.releases * 10,
            labels: NEST.labels * 10,
            repository_labels: NEST.repository_labels * 10,
            pull_requests: NEST.pull_requests * 10,
            ..NEST
        },
        // A twentieth, with enough of each to hold every enum value.
        Scale::Small => {
            let s = |n: usize, min: usize| (n / 20).max(min);
            Counts {
                chapters: s(NEST.chapters, 10),
                committees: s(NEST.committees, 3),
                events: s(NEST.events, 8),
                projects: s(NEST.projects, 10),
                sponsors: s(NEST.sponsors, 8),
                organizations: s(NEST.organizations, 5),
                repositories: s(NEST.repositories, 20),
                members: s(NEST.members, 50),
                issues: s(NEST.issues, 100),
                milestones: s(NEST.milestones, 10),
                releases: s(NEST.releases, 20),
                labels: s(NEST.labels, 20),
                snapshots: s(NEST.snapshots, 8),
                repository_labels: s(NEST.repository_labels, 20),
                pull_requests: s(NEST.pull_requests, 100),
                posts: s(NEST.posts, 12),
                health_months: NEST.health_months,
            }
        }
    }
}

/// Writes the synthetic dataset of `scale` and `seed` to `db` (atomically). The records
/// the repositories own and the pull requests are streamed into the file as they are
/// drawn, never held all at once.
pub fn synth(scale: Scale, seed: u64, db: &Path) -> Result<(), store::StoreError> {
    let n = counts(scale);
    let (mut ds, made, owned) = Synth::new(n, seed, Keep::Summary).run();
    mentorship::add(&mut ds, seed);
    let pull_requests = PullRequests::new(&ds, &made.issues, n.pull_requests, seed);
    // The snapshots and the pull requests have what they need of the summary.
    drop(made);
    let more = owned.chain(pull_requests.map(Streamed::PullRequest));
    store::build_streaming(&ds, more, db, crate::idx::build)
}

/// The synthetic dataset of `scale` and `seed`, in memory (its pull requests too).
/// Deterministic; the same records [`synth`] writes.
pub fn dataset(scale: Scale, seed: u64) -> Dataset {
    let n = counts(scale);
    let (mut ds, made, _) = Synth::new(n, seed, Keep::All).run();
    mentorship::add(&mut ds, seed);
    let pull_requests: Vec<_> =
        PullRequests::new(&ds, &made.issues, n.pull_requests, seed).collect();
    for pr in pull_requests {
        push(&mut ds.pull_requests, "pull_requests.jsonl", pr);
    }
    ds
}

/// A member as the other tables need it.
struct MemberInfo {
    login: String,
    name: String,
}

/// What becomes of the records the repositories own once drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Into the dataset.
    All,
    /// Only their [`Made`] summary; [`Repositories`] draws them again.
    Summary,
}

/// What later records need of the records the repositories own: the pull requests
/// (issue numbers) and the snapshots (what was created when).
#[derive(Debug, Default)]
struct Made {
    /// Per repository, in order: its issues, and the highest issue number (0: none).
    issues: Vec<RepoIssues>,
    /// Every issue, in order: repository index, number, creation time.
    issue_times: Vec<(u32, u64, Ts)>,
    /// Every release, in order: repository index, tag, creation time.
    releases: Vec<(u32, String, Ts)>,
}

/// The issues of one repository.
#[derive(Debug, Default, Clone, Copy)]
struct RepoIssues {
    count: u64,
    last_number: u64,
}

/// The generator: the counts to reach, the one random stream, the dataset so far, and
/// the members and shared labels the later tables refer to.
struct Synth {
    n: Counts,
    rng: Rng,
    ds: Dataset,
    members: Vec<MemberInfo>,
    /// The names of the shared labels, in order.
    label_names: Vec<String>,
    keep: Keep,
    made: Made,
    /// The random stream and plans before the first repository (see [`Repositories`]).
    replay: Option<(Rng, Vec<RepoPlan>)>,
}

impl Synth {
    fn new(n: Counts, seed: u64, keep: Keep) -> Synth {
        Synth {
            n,
            rng: Rng::seed_from_u64(seed),
            ds: Dataset::default(),
            members: Vec::new(),
            label_names: Vec::new(),
            keep,
            made: Made::default(),
            replay: None,
        }
    }

    /// The dataset (with the records the repositories own only if [`Keep::All`]), the
    /// summary of those records, and the records drawn again.
    fn run(mut self) -> (Dataset, Made, Repositories) {
        self.organizations();
        self.members();
        self.labels();
        self.repositories();
        self.chapters();
        self.committees();
        self.projects();
        self.events();
        self.sponsors();
        self.snapshots();
        // Drawn after every record above because they were added later: drawing them
        // earlier would have changed those records of every scale and seed. Pull
        // requests are not among them: `issues::PullRequests` streams them.
        self.repository_labels();
        self.badges();
        self.member_details();
        self.organization_details();
        self.roles_and_links();
        self.posts();
        self.health_metrics();
        self.community();
        self.boards();
        let orgs = self
            .ds
            .organizations
            .iter()
            .map(|(_, o)| o.login.clone())
            .collect();
        let ds = std::mem::take(&mut self.ds);
        let made = std::mem::take(&mut self.made);
        (ds, made, Repositories::new(self, orgs))
    }

    /// Keeps a repository and, as [`Keep`] says, the records it owns or their summary.
    fn keep_owned(&mut self, repository: crate::records::Repository, owned: Owned) {
        let r = self.ds.repositories.len() as u32;
        let made = &mut self.made;
        made.issues.push(RepoIssues {
            count: owned.issues.len() as u64,
            last_number: owned.issues.iter().map(|i| i.number).max().unwrap_or(0),
        });
        made.issue_times
            .extend(owned.issues.iter().map(|i| (r, i.number, i.created_at)));
        made.releases.extend(
            owned
                .releases
                .iter()
                .map(|x| (r, x.tag_name.clone(), x.created_at)),
        );
        push(&mut self.ds.repositories, "repositories.jsonl", repository);
        if self.keep == Keep::All {
            let ds = &mut self.ds;
            for x in owned.contributors {
                push(
                    &mut ds.repository_contributors,
                    "repository_contributors.jsonl",
                    x,
                );
            }
            for x in owned.issues {
                push(&mut ds.issues, "issues.jsonl", x);
            }
            for x in owned.milestones {
                push(&mut ds.milestones, "milestones.jsonl", x);
            }
            for x in owned.releases {
                push(&mut ds.releases, "releases.jsonl", x);
            }
        }
    }
}

/// Appends a record with the origin it would have as the next line of `file`.
fn push<T>(records: &mut Records<T>, file: &'static str, record: T) {
    let index = records.len();
    records.push((synthetic_origin(file, index), record));
}
