//! Reading the JSON Lines interchange format: one file per record type in a folder,
//! parsed strictly into [`crate::records`] types. Every syntax and type error of every
//! file is collected as `file:line: what is wrong` (physical line numbers) before
//! anything is returned; blank lines are skipped. `community.json` is the one file
//! holding a single JSON object; its errors name the line too.

use std::fs;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::ImportErrors;
use crate::records::{Community, Dataset, Origin, Records};

/// The one interchange file that is a single JSON object, not JSON Lines.
pub const COMMUNITY: &str = "community.json";

/// The kinds of record, one JSON Lines file each (`KIND.jsonl`), in the order
/// `roost db import` reports them. Each is also the name of its table.
pub const KINDS: [&str; 18] = [
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
];

/// The records of each kind of `ds`, in the order of [`KINDS`].
pub fn kind_counts(ds: &Dataset) -> [(&'static str, u64); 18] {
    let n = |len: usize| len as u64;
    let counts = [
        n(ds.organizations.len()),
        n(ds.members.len()),
        n(ds.repositories.len()),
        n(ds.repository_contributors.len()),
        n(ds.labels.len()),
        n(ds.issues.len()),
        n(ds.milestones.len()),
        n(ds.releases.len()),
        n(ds.chapters.len()),
        n(ds.committees.len()),
        n(ds.projects.len()),
        n(ds.events.len()),
        n(ds.sponsors.len()),
        n(ds.snapshots.len()),
        n(ds.pull_requests.len()),
        n(ds.posts.len()),
        n(ds.project_health_metrics.len()),
        n(ds.badges.len()),
    ];
    std::array::from_fn(|i| (KINDS[i], counts[i]))
}

/// Every name in `dir` that is not an interchange file (hidden names, starting with
/// `.`, aside): `Name: not a file roost imports; did you mean name?`, naming the
/// closest known file (compared without case, by edit distance).
fn unknown_names(dir: &Path, errors: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let known: Vec<String> = KINDS
        .iter()
        .map(|k| format!("{k}.jsonl"))
        .chain([COMMUNITY.to_string()])
        .collect();
    let mut unknown: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && !known.contains(name))
        .collect();
    unknown.sort();
    for name in unknown {
        let lower = name.to_lowercase();
        let closest = known
            .iter()
            .min_by_key(|k| strsim::levenshtein(&lower, k))
            .map(|k| format!("; did you mean {k}?"))
            .unwrap_or_default();
        errors.push(format!(
            "{name}: not a file roost imports (KIND.jsonl or {COMMUNITY}, in lower \
             case){closest}"
        ));
    }
}

/// Reads a folder of interchange files. Syntax and type errors are collected for all
/// files before returning.
pub fn read_dir(dir: &Path) -> Result<Dataset, ImportErrors> {
    if !dir.is_dir() {
        return Err(ImportErrors(vec![format!(
            "{}: not a directory of JSON Lines files",
            dir.display()
        )]));
    }
    let mut errors = Vec::new();
    unknown_names(dir, &mut errors);
    let ds = Dataset {
        organizations: read_file(dir, "organizations.jsonl", &mut errors),
        members: read_file(dir, "members.jsonl", &mut errors),
        repositories: read_file(dir, "repositories.jsonl", &mut errors),
        repository_contributors: read_file(dir, "repository_contributors.jsonl", &mut errors),
        labels: read_file(dir, "labels.jsonl", &mut errors),
        issues: read_file(dir, "issues.jsonl", &mut errors),
        milestones: read_file(dir, "milestones.jsonl", &mut errors),
        releases: read_file(dir, "releases.jsonl", &mut errors),
        chapters: read_file(dir, "chapters.jsonl", &mut errors),
        committees: read_file(dir, "committees.jsonl", &mut errors),
        projects: read_file(dir, "projects.jsonl", &mut errors),
        events: read_file(dir, "events.jsonl", &mut errors),
        sponsors: read_file(dir, "sponsors.jsonl", &mut errors),
        snapshots: read_file(dir, "snapshots.jsonl", &mut errors),
        pull_requests: read_file(dir, "pull_requests.jsonl", &mut errors),
        posts: read_file(dir, "posts.jsonl", &mut errors),
        project_health_metrics: read_file(dir, "project_health_metrics.jsonl", &mut errors),
        badges: read_file(dir, "badges.jsonl", &mut errors),
        community: read_community(dir, &mut errors),
    };
    if errors.is_empty() {
        Ok(ds)
    } else {
        Err(ImportErrors(errors))
    }
}

fn read_file<T: DeserializeOwned>(
    dir: &Path,
    file: &'static str,
    errors: &mut Vec<String>,
) -> Records<T> {
    match fs::read(dir.join(file)) {
        Ok(bytes) => parse_lines(file, &bytes, errors),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            errors.push(format!("{file}: cannot read: {e}"));
            Vec::new()
        }
    }
}

/// `community.json`: one JSON object (all defaults when the file is missing).
fn read_community(dir: &Path, errors: &mut Vec<String>) -> Community {
    match fs::read(dir.join(COMMUNITY)) {
        Ok(bytes) => parse_community(&bytes, errors),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Community::default(),
        Err(e) => {
            errors.push(format!("{COMMUNITY}: cannot read: {e}"));
            Community::default()
        }
    }
}

/// Parses `community.json`; an error names the file's line.
pub fn parse_community(bytes: &[u8], errors: &mut Vec<String>) -> Community {
    match serde_json::from_slice::<Community>(bytes) {
        Ok(community) => community,
        Err(e) => {
            errors.push(format!(
                "{COMMUNITY}:{}: {}",
                e.line(),
                describe_json_error(&e)
            ));
            Community::default()
        }
    }
}

/// Parses the lines of one interchange file.
pub fn parse_lines<T: DeserializeOwned>(
    file: &'static str,
    bytes: &[u8],
    errors: &mut Vec<String>,
) -> Records<T> {
    let mut out = Vec::new();
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let origin = Origin {
            file,
            line: index + 1,
        };
        let Ok(line) = std::str::from_utf8(raw) else {
            errors.push(format!("{origin}: not valid UTF-8"));
            continue;
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<T>(line) {
            Ok(record) => out.push((origin, record)),
            Err(e) => errors.push(format!("{origin}: {}", describe_json_error(&e))),
        }
    }
    out
}

/// serde_json's message without its "at line 1 column N" (the line is the file's),
/// keeping the column.
fn describe_json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    let message = message.replace("struct ", "record ");
    match e.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            format!("invalid JSON: {message} (column {})", e.column())
        }
        _ => format!("{message} (column {})", e.column()),
    }
}
