//! Validating the community's records (docs/data.md): organizations and members,
//! chapters, committees and projects (their keys, leaders, related URLs, channels and
//! repositories), events, sponsors, snapshots, posts, project health measurements,
//! badges, boards of directors and member snapshots. Their keys are indexed with the
//! rest (`Keys::build`) but for the records nothing else refers to by key, indexed
//! here ([`index_activity`]).

use std::collections::HashMap;

use super::{coordinates, lc, non_empty, prefixed_key, segment, url_text, IdText, KeyIndex, Keys};
use crate::records::{
    Board, Channel, Chapter, Committee, Dataset, Date, Event, Origin, Project, Snapshot,
};

/// The resolved ids of the community's records.
#[derive(Default)]
pub(in crate::store) struct Community {
    /// Member id of each leader (when the leader has a login), per entity.
    pub chapter_leaders: Vec<Vec<Option<i64>>>,
    pub committee_leaders: Vec<Vec<Option<i64>>>,
    pub project_leaders: Vec<Vec<Option<i64>>>,
    /// Repository ids of each project, and the stars and forks summed over them.
    pub project_repos: Vec<Vec<i64>>,
    pub project_stars_forks: Vec<(i64, i64)>,
    /// Repository ids of each chapter and committee, in the order listed.
    pub chapter_repos: Vec<Vec<i64>>,
    pub committee_repos: Vec<Vec<i64>>,
    /// The project of each health measurement.
    pub health_project: Vec<i64>,
    /// The members of each board's candidates and members, in the order listed.
    pub board_candidates: Vec<Vec<Option<i64>>>,
    pub board_members: Vec<Vec<Option<i64>>>,
    /// The member of each member snapshot.
    pub snapshot_member: Vec<i64>,
    /// Badge ids of each member, in the order listed.
    pub member_badges: Vec<Vec<i64>>,
}

impl Community {
    /// The leaders of chapters, committees and projects, and the projects'
    /// repositories; the rest is resolved by [`Community::resolve_boards`] and
    /// [`Community::resolve_lists`].
    pub(super) fn resolve(ds: &Dataset, keys: &Keys, e: &mut Vec<String>) -> Community {
        let (project_repos, project_stars_forks) = project_repositories(ds, keys, e);
        Community {
            chapter_leaders: keys.leaders_of(&ds.chapters, |c: &Chapter| &c.leaders, e),
            committee_leaders: keys.leaders_of(&ds.committees, |c: &Committee| &c.leaders, e),
            project_leaders: keys.leaders_of(&ds.projects, |p: &Project| &p.leaders, e),
            project_repos,
            project_stars_forks,
            ..Community::default()
        }
    }

    /// The members of the boards' candidates and members, and of the member snapshots.
    pub(super) fn resolve_boards(&mut self, ds: &Dataset, keys: &Keys, e: &mut Vec<String>) {
        self.board_candidates = keys.leaders_of(&ds.boards, |b: &Board| &b.candidates, e);
        self.board_members = keys.leaders_of(&ds.boards, |b: &Board| &b.members, e);
        self.snapshot_member = ds
            .member_snapshots
            .iter()
            .map(|(o, m)| keys.member(o, "member", &m.member, e))
            .collect();
    }

    /// The project of each health measurement, the badges of each member (`badges`:
    /// the index of [`index_activity`]), the repositories of chapters and committees.
    pub(super) fn resolve_lists(
        &mut self,
        ds: &Dataset,
        keys: &Keys,
        badges: &KeyIndex,
        e: &mut Vec<String>,
    ) {
        self.health_project = ds
            .project_health_metrics
            .iter()
            .map(|(o, m)| keys.project(o, &m.project, e))
            .collect();
        self.member_badges = ds
            .members
            .iter()
            .map(|(o, m)| named_list(o, "badge", &m.badges, badges, "badges.jsonl", e))
            .collect();
        self.chapter_repos = keys.repositories_of(&ds.chapters, |c: &Chapter| &c.repositories, e);
        self.committee_repos =
            keys.repositories_of(&ds.committees, |c: &Committee| &c.repositories, e);
    }
}

/// Reports duplicate keys of posts, health measurements, badges, boards and member
/// snapshots; the badge index, which members refer to.
pub(super) fn index_activity(ds: &Dataset, e: &mut Vec<String>) -> KeyIndex {
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
    badges
}

/// Field checks of organizations and members.
pub(super) fn check_people(ds: &Dataset, e: &mut Vec<String>) {
    for (o, r) in &ds.organizations {
        segment(o, "login", &r.login, e);
    }
    for (o, r) in &ds.members {
        segment(o, "login", &r.login, e);
    }
}

/// Field checks of chapters, committees, projects, events, sponsors and snapshots.
pub(super) fn check_fields(ds: &Dataset, e: &mut Vec<String>) {
    for (o, r) in &ds.chapters {
        prefixed_key(o, &r.key, "www-chapter-", e);
        url_text(o, "key", &r.key, IdText::Segment, e);
        coordinates(o, r.latitude, r.longitude, e);
    }
    for (o, r) in &ds.committees {
        prefixed_key(o, &r.key, "www-committee-", e);
        url_text(o, "key", &r.key, IdText::Segment, e);
    }
    for (o, r) in &ds.projects {
        prefixed_key(o, &r.key, "www-project-", e);
        url_text(o, "key", &r.key, IdText::Segment, e);
    }
    for (o, r) in &ds.events {
        check_event(o, r, e);
    }
    for (o, r) in &ds.sponsors {
        segment(o, "key", &r.key, e);
    }
    for (o, r) in &ds.snapshots {
        check_snapshot_key(o, r, e);
    }
}

/// Field checks of posts, health measurements, badges, boards and member snapshots,
/// then of the related URLs and channels of chapters, committees and projects.
pub(super) fn check_activity(ds: &Dataset, e: &mut Vec<String>) {
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

fn check_event(o: &Origin, r: &Event, e: &mut Vec<String>) {
    segment(o, "key", &r.key, e);
    coordinates(o, r.latitude, r.longitude, e);
    if let Some(end) = &r.end_date {
        if end.0 < r.start_date.0 {
            e.push(format!(
                "{o}: end_date {} is before start_date {}",
                end.0, r.start_date.0
            ));
        }
    }
}

fn check_snapshot_key(o: &Origin, r: &Snapshot, e: &mut Vec<String>) {
    let valid = r.key.len() == 7
        && r.key.as_bytes()[4] == b'-'
        && Date::parse(&format!("{}-01", r.key)).is_ok();
    if !valid {
        e.push(format!(
            "{o}: snapshot key '{}' is not a month like 2025-02 (YYYY-MM)",
            r.key
        ));
    }
}

/// The repositories of each project, and its stars and forks summed over them.
fn project_repositories(
    ds: &Dataset,
    keys: &Keys,
    e: &mut Vec<String>,
) -> (Vec<Vec<i64>>, Vec<(i64, i64)>) {
    let project_repos = keys.repositories_of(&ds.projects, |p: &Project| &p.repositories, e);
    let project_stars_forks = project_repos
        .iter()
        .map(|ids| {
            ids.iter().fold((0i64, 0i64), |(stars, forks), id| {
                let repo = &ds.repositories[*id as usize - 1].1;
                (
                    stars + repo.stars_count as i64,
                    forks + repo.forks_count as i64,
                )
            })
        })
        .collect();
    (project_repos, project_stars_forks)
}
