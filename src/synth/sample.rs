//! `roost db sample`: the committed sample dataset (`data/sample/`), written from
//! code. Deterministic: every draw comes from CPython's `random.Random` rebuilt draw
//! for draw ([`pyrandom`]), so the files are the bytes the sample has always had (the
//! REST and GraphQL tests read them), and nothing depends on the clock, the locale or
//! hash order.
//!
//! The records are invented but realistic in shape, and built to exercise every
//! filter, ordering and tie-breaker of docs/api.md (the comments marked "exercises").
//! The older files come from one stream seeded 20261122, drawn in the order of
//! [`records`]; what was added later comes from streams of their own, drawn after,
//! so adding it changed no earlier record: the records and fields of the frontend's
//! GraphQL pages ([`second_stream`]), the platform project and the boards
//! ([`third_stream`]) and mentorship ([`mentorship`]). Each record's code lives with its kin, grouped like
//! `crate::schema` (`people`, `code`, `issues`, `community`, `events`), whichever
//! stream draws it; the stream functions here call them in draw order.
//!
//! Unlike the benchmark datasets of [`super::synth`] (ChaCha8, sizes by scale), the
//! sample is small and hand-shaped: the two share the interchange format, not their
//! draws.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use json::Obj;
use pyrandom::PyRandom;

mod code;
mod community;
mod events;
mod governance;
mod issues;
mod json;
mod mentorship;
mod people;
mod pyrandom;
mod time;

/// The seed of the older files' stream.
const SEED: u32 = 20_261_122;
/// The seed of the second stream (see [`second_stream`]).
const SECOND_SEED: u32 = 20_261_123;
/// The seed of the stream of the platform project and the boards.
const THIRD_SEED: u32 = 20_261_126;

/// The interchange files of the sample, in the order they are written.
pub const FILES: [&str; 22] = [
    "organizations",
    "members",
    "repositories",
    "repository_contributors",
    "labels",
    "issues",
    "milestones",
    "releases",
    "chapters",
    "committees",
    "projects",
    "events",
    "sponsors",
    "snapshots",
    "pull_requests",
    "posts",
    "project_health_metrics",
    "badges",
    "boards",
    "member_snapshots",
    "programs",
    "modules",
];

/// The community-wide values' file.
pub const COMMUNITY: &str = "community.json";

/// `text` in ASCII for a key: accents dropped (NFKD, combining marks removed), lower
/// case, ø ł æ ß spelled out, every run of other characters one dash, none at either
/// end.
pub(super) fn slug(text: &str) -> String {
    use unicode_normalization::char::canonical_combining_class;
    use unicode_normalization::UnicodeNormalization;
    let plain: String = text
        .nfkd()
        .filter(|c| canonical_combining_class(*c) == 0)
        .collect::<String>()
        .to_lowercase()
        .replace('ø', "o")
        .replace('ł', "l")
        .replace('æ', "ae")
        .replace('ß', "ss");
    crate::synth::text::dashed_words(&plain, |c, out| {
        let word = c.is_ascii_lowercase() || c.is_ascii_digit();
        if word {
            out.push(c);
        }
        word
    })
}

/// `text` lower-cased, every character that is not a letter or digit a dash, runs of
/// dashes one, none at either end.
pub(super) fn dashed(text: &str) -> String {
    crate::synth::text::dashed_words(text, |c, out| {
        let word = c.is_alphanumeric();
        if word {
            out.extend(c.to_lowercase());
        }
        word
    })
}

/// A Pareto count: `int(paretovariate(alpha) * scale) - scale`, at most `cap`.
fn pareto(rng: &mut PyRandom, scale: i64, alpha: f64, cap: i64) -> i64 {
    let v = (rng.paretovariate(alpha) * scale as f64) as i64 - scale;
    v.min(cap)
}

/// Every record of the sample, by file.
struct Sample {
    organizations: Vec<Obj>,
    members: Vec<Obj>,
    repositories: Vec<Obj>,
    contributors: Vec<Obj>,
    labels: Vec<Obj>,
    issues: Vec<Obj>,
    milestones: Vec<Obj>,
    releases: Vec<Obj>,
    chapters: Vec<Obj>,
    committees: Vec<Obj>,
    projects: Vec<Obj>,
    events: Vec<Obj>,
    sponsors: Vec<Obj>,
    snapshots: Vec<Obj>,
}

/// The older files' records, from the one stream, in draw order.
fn records() -> Sample {
    let rng = &mut PyRandom::new(SEED);
    let organizations = people::organizations(rng);
    let members = people::members(rng);
    let names: community::Names = members
        .iter()
        .map(|m| {
            let login = m.s("login").to_string();
            let name = if m.truthy("name") {
                m.s("name").to_string()
            } else {
                login.clone()
            };
            (login, name)
        })
        .collect();
    let logins: Vec<String> = members.iter().map(|m| m.s("login").to_string()).collect();
    let core = &logins[..70]; // the people of repositories, issues and leadership
    let labels = people::labels();
    let label_names: Vec<String> = labels.iter().map(|l| l.s("name").to_string()).collect();
    let contributors = people::contributors(rng, core);
    let issue_people: Vec<String> = core.iter().chain(&logins[..20]).cloned().collect();
    let issues = issues::issues(rng, &issue_people, &label_names);
    let mut contributed = std::collections::HashMap::new();
    for c in &contributors {
        let key = (
            c.s("organization").to_string(),
            c.s("repository").to_string(),
        );
        *contributed.entry(key).or_insert(0i64) += 1;
    }
    let repositories = code::repositories(rng, &issues, &contributed);
    let milestones = code::milestones(rng, core);
    let releases = code::releases(rng, &core[..40]);
    let chapters = community::chapters(rng, &names, &logins);
    let committees = community::committees(rng, &names, core);
    let projects = community::projects(rng, &names, core);
    let events = events::events(rng);
    let sponsors = events::sponsors(rng);
    let known = events::Known {
        chapters: &chapters,
        projects: &projects,
        members: &members,
        issues: &issues,
        releases: &releases,
    };
    let snapshots = events::snapshots(rng, &known);
    Sample {
        organizations,
        members,
        repositories,
        contributors,
        labels,
        issues,
        milestones,
        releases,
        chapters,
        committees,
        projects,
        events,
        sponsors,
        snapshots,
    }
}

/// The records and fields added after the older files (for the frontend's GraphQL
/// pages), from the second stream, in its draw order: fields of the older records
/// (organizations, members, the leaders' roles and the links of chapters, committees
/// and projects, the labels of single repositories), then the pull requests, posts
/// and health metrics, returned in that order.
fn second_stream(s: &mut Sample) -> (Vec<Obj>, Vec<Obj>, Vec<Obj>) {
    let logins: Vec<String> = s.members.iter().map(|m| m.s("login").to_string()).collect();
    let rng = &mut PyRandom::new(SECOND_SEED);
    people::add_organization_fields(rng, &mut s.organizations);
    let groups = [
        ("Project Leader", &s.projects[..]),
        ("Chapter Leader", &s.chapters[..]),
        ("Committee Member", &s.committees[..]),
    ];
    people::add_member_fields(rng, &mut s.members, groups);
    for recs in [&mut s.chapters, &mut s.committees, &mut s.projects] {
        community::add_leader_roles(rng, recs);
    }
    community::add_entity_links(
        rng,
        &mut s.chapters,
        &mut s.committees,
        &mut s.projects,
        &s.repositories,
    );
    code::add_repository_labels(rng, &mut s.labels, &mut s.issues);
    let pull_requests = issues::pull_requests(rng, &s.repositories, &s.issues, &logins);
    let posts = community::posts(rng);
    let health = community::health_metrics(rng, &s.projects);
    (pull_requests, posts, health)
}

/// The platform project (the about page's) added to the older records, then the
/// boards, from their own stream; returns (boards, member snapshots).
fn third_stream(s: &mut Sample) -> (Vec<Obj>, Vec<Obj>) {
    let rng = &mut PyRandom::new(THIRD_SEED);
    community::add_platform_project(
        rng,
        community::Platform {
            members: &mut s.members,
            repositories: &mut s.repositories,
            contributors: &mut s.contributors,
            milestones: &mut s.milestones,
            projects: &mut s.projects,
        },
    );
    governance::boards(
        rng,
        &mut s.members,
        &s.chapters,
        &s.projects,
        &s.repositories,
    )
}

/// The sample's files: (file name, contents), the interchange files in [`FILES`]
/// order, then [`COMMUNITY`].
pub fn files() -> Vec<(String, String)> {
    let mut s = records();
    let (pull_requests, posts, health) = second_stream(&mut s);
    let (boards, member_snapshots) = third_stream(&mut s);
    let rng = &mut PyRandom::new(mentorship::SEED);
    let (programs, modules) = mentorship::mentorship(rng, &s.members, &s.projects, &s.issues);

    let all: [Vec<Obj>; 22] = [
        s.organizations,
        s.members,
        s.repositories,
        s.contributors,
        s.labels,
        s.issues,
        s.milestones,
        s.releases,
        s.chapters,
        s.committees,
        s.projects,
        s.events,
        s.sponsors,
        s.snapshots,
        pull_requests,
        posts,
        health,
        people::badges(),
        boards,
        member_snapshots,
        programs,
        modules,
    ];
    let mut out: Vec<(String, String)> = FILES
        .iter()
        .zip(all)
        .map(|(name, records)| {
            let text: String = records.iter().map(|r| r.line(false)).collect();
            (format!("{name}.jsonl"), text)
        })
        .collect();
    out.push((COMMUNITY.to_string(), community::community().line(true)));
    out
}

/// Why `roost db sample` could not write the sample.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    #[error("cannot write the sample at {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{0} is not a folder")]
    NotAFolder(PathBuf),
    #[error(
        "{dir} holds {file}, which is not a file of the sample; refusing to replace the folder \
         (give --out a new folder or the sample's own)"
    )]
    Foreign { dir: PathBuf, file: String },
}

/// Writes the sample in `dir`: in a temporary folder beside it, moved into place when
/// complete, so a failure leaves the previous sample as it was. A `dir` holding
/// anything but the sample's files is refused (it is replaced whole). The number of
/// files written.
pub fn write(dir: &Path) -> Result<usize, SampleError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SampleError::Io { path, source }
    };
    let exists = match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => true,
        Ok(_) => return Err(SampleError::NotAFolder(dir.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(io_err(dir)(e)),
    };
    let files = files();
    if exists {
        for entry in fs::read_dir(dir).map_err(io_err(dir))? {
            let name = entry
                .map_err(io_err(dir))?
                .file_name()
                .to_string_lossy()
                .into_owned();
            if !files.iter().any(|(f, _)| *f == name) {
                return Err(SampleError::Foreign {
                    dir: dir.to_path_buf(),
                    file: name,
                });
            }
        }
    }
    crate::atomic::replace_dir(
        dir,
        "sample",
        None,
        |tmp| {
            for (file, text) in &files {
                let path = tmp.join(file);
                crate::atomic::write_synced(&path, text.as_bytes()).map_err(io_err(&path))?;
            }
            Ok(files.len())
        },
        |path, source| io_err(path)(source),
    )
}
