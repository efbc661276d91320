//! Validating the records of the frontend's pages (docs/data.md): pull requests,
//! posts, project health measurements, badges, member badges, channels, related URLs
//! and the repositories of chapters and committees. Same rules as the rest: natural
//! keys unique case-insensitively, references resolved, every error as
//! `file:line: what is wrong`.

use std::collections::HashMap;

use super::{issue_key, lc, non_empty, KeyIndex, Keys, RepoAndAuthor};
use crate::records::{Board, Channel, Chapter, Committee, Dataset, Origin, State};

/// The resolved ids of the records of the frontend's pages.
pub(in crate::store) struct Pages {
    pub pull_requests: RepoAndAuthor,
    /// The project of each health measurement.
    pub health_project: Vec<i64>,
    /// The members of each board's candidates and members, in the order listed.
    pub board_candidates: Vec<Vec<Option<i64>>>,
    pub board_members: Vec<Vec<Option<i64>>>,
    /// The member of each member snapshot.
    pub snapshot_member: Vec<i64>,
    /// Badge ids of each member, in the order listed.
    pub member_badges: Vec<Vec<i64>>,
    /// Repository ids of each chapter and committee, in the order listed.
    pub chapter_repos: Vec<Vec<i64>>,
    pub committee_repos: Vec<Vec<i64>>,
}

impl Pages {
    pub(super) fn resolve(ds: &Dataset, keys: &Keys, e: &mut Vec<String>) -> Pages {
        KeyIndex::build(
            &ds.pull_requests,
            "pull request",
            |p| issue_key(&p.organization, &p.repository, p.number),
            e,
        );
        KeyIndex::build(&ds.posts, "post url", |p| lc(&p.url), e);
        KeyIndex::build(
            &ds.project_health_metrics,
            "health measurement of project",
            |m| format!("{} at {}", lc(&m.project), m.created_at),
            e,
        );
        let badges = KeyIndex::build(&ds.badges, "badge name", |b| lc(&b.name), e);
        KeyIndex::build(&ds.boards, "board year", |b| b.year.to_string(), e);
        KeyIndex::build(
            &ds.member_snapshots,
            "snapshot of member",
            |m| format!("{} from {}", lc(&m.member), m.start_at),
            e,
        );
        let board_candidates = keys.leaders_of(&ds.boards, |b: &Board| &b.candidates, e);
        let board_members = keys.leaders_of(&ds.boards, |b: &Board| &b.members, e);
        let snapshot_member = ds
            .member_snapshots
            .iter()
            .map(|(o, m)| keys.member(o, "member", &m.member, e))
            .collect();

        let pull_requests = RepoAndAuthor::resolve(&ds.pull_requests, keys, e, |p| {
            (&p.organization, &p.repository, &p.author)
        });
        let health_project = ds
            .project_health_metrics
            .iter()
            .map(|(o, m)| keys.project(o, &m.project, e))
            .collect();
        let member_badges = ds
            .members
            .iter()
            .map(|(o, m)| named_list(o, "badge", &m.badges, &badges, "badges.jsonl", e))
            .collect();
        let chapter_repos = keys.repositories_of(&ds.chapters, |c: &Chapter| &c.repositories, e);
        let committee_repos =
            keys.repositories_of(&ds.committees, |c: &Committee| &c.repositories, e);
        Pages {
            pull_requests,
            health_project,
            board_candidates,
            board_members,
            snapshot_member,
            member_badges,
            chapter_repos,
            committee_repos,
        }
    }
}

/// The ids of the records `names` refers to through `index`; a name listed twice or
/// missing from `file` is an error.
fn named_list(
    o: &Origin,
    what: &str,
    names: &[String],
    index: &KeyIndex,
    file: &str,
    e: &mut Vec<String>,
) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for name in names {
        match index.get(&lc(name)) {
            Some(id) if ids.contains(&id) => {
                e.push(format!("{o}: {what} '{name}' is listed twice"))
            }
            Some(id) => ids.push(id),
            None => e.push(format!("{o}: {what} '{name}' does not exist in {file}")),
        }
    }
    ids
}

/// Field checks of the new records and fields, table by table.
pub(super) fn check_fields(ds: &Dataset, e: &mut Vec<String>) {
    for (o, p) in &ds.pull_requests {
        if p.merged_at.is_some() && p.state == State::Open {
            e.push(format!(
                "{o}: merged_at is set but state is open (a merged pull request is closed)"
            ));
        }
    }
    for (o, p) in &ds.posts {
        non_empty(o, "title", &p.title, e);
        non_empty(o, "url", &p.url, e);
        non_empty(o, "author_name", &p.author_name, e);
    }
    for (o, m) in &ds.project_health_metrics {
        if let Some(score) = m.score {
            if !(0.0..=100.0).contains(&score) {
                e.push(format!("{o}: score {score} is outside 0..100"));
            }
        }
    }
    for (o, b) in &ds.badges {
        non_empty(o, "name", &b.name, e);
    }
    for (o, b) in &ds.boards {
        if !(1000..=9999).contains(&b.year) {
            e.push(format!("{o}: year {} is not a four-digit year", b.year));
        }
        for (i, c) in b.candidates.iter().chain(&b.members).enumerate() {
            if c.name.trim().is_empty() {
                e.push(format!("{o}: the name of entry {i} must not be empty"));
            }
        }
    }
    for (o, m) in &ds.member_snapshots {
        if m.end_at.0 < m.start_at.0 {
            e.push(format!(
                "{o}: end_at {} is before start_at {}",
                m.end_at, m.start_at
            ));
        }
    }
    for (o, c) in &ds.chapters {
        links(o, &c.related_urls, &c.channels, e);
    }
    for (o, c) in &ds.committees {
        links(o, &c.related_urls, &c.channels, e);
    }
    for (o, p) in &ds.projects {
        links(o, &p.related_urls, &p.channels, e);
    }
}

/// Related URLs are not empty and not listed twice; a channel names its platform.
fn links(o: &Origin, urls: &[String], channels: &[Channel], e: &mut Vec<String>) {
    let mut seen = HashMap::new();
    for (i, url) in urls.iter().enumerate() {
        if url.trim().is_empty() {
            e.push(format!("{o}: related_urls[{i}] must not be empty"));
        } else if seen.insert(url.as_str(), i).is_some() {
            e.push(format!("{o}: related URL '{url}' is listed twice"));
        }
    }
    for (i, c) in channels.iter().enumerate() {
        if c.platform.trim().is_empty() {
            e.push(format!("{o}: channels[{i}].platform must not be empty"));
        }
    }
}
