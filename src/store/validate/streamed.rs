//! Checking records handed over one at a time after the dataset's own (`roost db
//! synth` streams the records of its repositories and its pull requests instead of
//! holding them all): repository contributors, issues, milestones, releases and pull
//! requests. Each gets the checks and messages a record of its file gets, its line
//! numbered after the file's last; its row id is that line. Only what later records
//! and the snapshots need is kept: the ids of issues and releases by repository, and
//! the keys seen, not the records.
//!
//! Snapshots list issues and releases that may come after them, so a streaming build
//! resolves the snapshots' references once every record is in ([`More::snapshot_links`]).

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use super::code::release_key;
use super::issues::{issue_key, issue_label_ids};
use super::{lc, non_empty, repo_key, Keys, RepoAndAuthor};
use crate::records::{
    Dataset, Issue, Milestone, Origin, PullRequest, Release, RepositoryContributor, Snapshot, State,
};

/// The checker of handed-over records, holding the keys of the dataset's own.
pub(in crate::store) struct More {
    keys: Keys,
    /// Records so far (the dataset's own, then handed over) of each streamed type.
    lines: Lines,
    contributors: HashSet<(i64, i64)>,
    /// Issue, milestone and pull request ids by (repository, number); release ids by
    /// (repository, tag).
    issues: HashMap<(i64, u64), i64>,
    milestones: HashMap<(i64, u64), i64>,
    releases: HashMap<(i64, String), i64>,
    pull_requests: HashSet<(i64, u64)>,
    pub errors: Vec<String>,
}

#[derive(Default)]
struct Lines {
    contributors: usize,
    issues: usize,
    milestones: usize,
    releases: usize,
    pull_requests: usize,
}

/// The resolved ids of the dataset's own records of the streamed types, which seed
/// the checker's keys.
pub(super) struct Own<'a> {
    pub contributors: &'a [(i64, i64)],
    pub issues: &'a RepoAndAuthor,
    pub milestones: &'a RepoAndAuthor,
    pub releases: &'a RepoAndAuthor,
    pub pull_requests: &'a RepoAndAuthor,
}

/// The ids of a handed-over issue that passed its checks.
pub(in crate::store) struct IssueIds {
    pub id: i64,
    pub repo: i64,
    pub author: Option<i64>,
    pub labels: Vec<i64>,
}

/// The ids of a handed-over milestone, release or pull request that passed its checks.
pub(in crate::store) struct RowIds {
    pub id: i64,
    pub repo: i64,
    pub author: Option<i64>,
}

impl More {
    pub(super) fn new(ds: &Dataset, keys: Keys, own: Own) -> More {
        // The first record of each key (duplicates were reported with the dataset's
        // own errors); records of a repository that does not exist have no key.
        fn first<K: std::hash::Hash + Eq>(map: &mut HashMap<K, i64>, repo: i64, key: K, i: usize) {
            if repo != 0 {
                map.entry(key).or_insert(i as i64 + 1);
            }
        }
        let mut issues = HashMap::new();
        for (i, (_, x)) in ds.issues.iter().enumerate() {
            let repo = own.issues.repo[i];
            first(&mut issues, repo, (repo, x.number), i);
        }
        let mut milestones = HashMap::new();
        for (i, (_, x)) in ds.milestones.iter().enumerate() {
            let repo = own.milestones.repo[i];
            first(&mut milestones, repo, (repo, x.number), i);
        }
        let mut releases = HashMap::new();
        for (i, (_, x)) in ds.releases.iter().enumerate() {
            let repo = own.releases.repo[i];
            first(&mut releases, repo, (repo, x.tag_name.clone()), i);
        }
        let pull_requests = ds
            .pull_requests
            .iter()
            .zip(&own.pull_requests.repo)
            .map(|((_, p), repo)| (*repo, p.number))
            .collect();
        More {
            keys,
            lines: Lines {
                contributors: ds.repository_contributors.len(),
                issues: ds.issues.len(),
                milestones: ds.milestones.len(),
                releases: ds.releases.len(),
                pull_requests: ds.pull_requests.len(),
            },
            contributors: own.contributors.iter().copied().collect(),
            issues,
            milestones,
            releases,
            pull_requests,
            errors: Vec::new(),
        }
    }

    /// The repository and member of the next contributor record; `None` (and errors)
    /// when it is not valid.
    pub fn contributor(&mut self, c: &RepositoryContributor) -> Option<(i64, i64)> {
        let o = next(
            &mut self.lines.contributors,
            "repository_contributors.jsonl",
        );
        let e = &mut self.errors;
        let before = e.len();
        let pair = (
            self.keys.repo(&o, &c.organization, &c.repository, e),
            self.keys.member(&o, "member", &c.member, e),
        );
        if pair.0 != 0 && pair.1 != 0 && !self.contributors.insert(pair) {
            e.push(format!(
                "{o}: duplicate contributor '{}' of repository '{}/{}'",
                c.member, c.organization, c.repository
            ));
        }
        (e.len() == before).then_some(pair)
    }

    /// The ids of the next issue; `None` (and errors) when it is not valid.
    pub fn issue(&mut self, x: &Issue) -> Option<IssueIds> {
        let e = &mut self.errors;
        let before = e.len();
        let line = (&mut self.lines.issues, "issues.jsonl");
        let place = (&x.organization[..], &x.repository[..], x.number, &x.author);
        let (o, row) = numbered(&self.keys, line, "issue", &mut self.issues, place, e);
        let labels = issue_label_ids(&self.keys, &o, x, row.repo, e);
        (e.len() == before).then_some(IssueIds {
            id: row.id,
            repo: row.repo,
            author: row.author,
            labels,
        })
    }

    /// The ids of the next milestone; `None` (and errors) when it is not valid.
    pub fn milestone(&mut self, x: &Milestone) -> Option<RowIds> {
        let e = &mut self.errors;
        let before = e.len();
        let line = (&mut self.lines.milestones, "milestones.jsonl");
        let place = (&x.organization[..], &x.repository[..], x.number, &x.author);
        let (_, row) = numbered(
            &self.keys,
            line,
            "milestone",
            &mut self.milestones,
            place,
            e,
        );
        (e.len() == before).then_some(row)
    }

    /// The ids of the next release; `None` (and errors) when it is not valid.
    pub fn release(&mut self, x: &Release) -> Option<RowIds> {
        let o = next(&mut self.lines.releases, "releases.jsonl");
        let id = self.lines.releases as i64;
        let e = &mut self.errors;
        let before = e.len();
        non_empty(&o, "tag_name", &x.tag_name, e);
        let repo = self.keys.repo(&o, &x.organization, &x.repository, e);
        let author = self.keys.opt_member(&o, "author", &x.author, e);
        if repo != 0 {
            let shown = || release_key(&x.organization, &x.repository, &x.tag_name);
            let key = (repo, x.tag_name.clone());
            unique(&mut self.releases, key, id, &o, "release", shown, e);
        }
        (e.len() == before).then_some(RowIds { id, repo, author })
    }

    /// The ids of the next pull request; `None` (and errors) when it is not valid.
    pub fn pull_request(&mut self, p: &PullRequest) -> Option<RowIds> {
        let o = next(&mut self.lines.pull_requests, "pull_requests.jsonl");
        let id = self.lines.pull_requests as i64;
        let e = &mut self.errors;
        let before = e.len();
        let repo = self
            .keys
            .repos
            .get(&repo_key(&p.organization, &p.repository));
        if repo.is_none() {
            e.push(format!(
                "{o}: repository '{}/{}' does not exist in repositories.jsonl",
                p.organization, p.repository
            ));
        }
        let author = self.keys.opt_member(&o, "author", &p.author, e);
        if let Some(repo) = repo {
            if !self.pull_requests.insert((repo, p.number)) {
                e.push(format!(
                    "{o}: duplicate pull request '{}'",
                    issue_key(&p.organization, &p.repository, p.number)
                ));
            }
        }
        if p.merged_at.is_some() && p.state == State::Open {
            e.push(format!(
                "{o}: merged_at is set but state is open (a merged pull request is closed)"
            ));
        }
        match repo {
            Some(repo) if e.len() == before => Some(RowIds { id, repo, author }),
            _ => None,
        }
    }

    /// The records each snapshot lists as new (chapters, projects, members, issues,
    /// releases), once every issue and release is known; errors go to `e`.
    pub fn snapshot_links(&self, ds: &Dataset, e: &mut Vec<String>) -> Vec<[Vec<i64>; 5]> {
        ds.snapshots
            .iter()
            .map(|(o, s)| self.snapshot(o, s, e))
            .collect()
    }

    fn snapshot(&self, o: &Origin, s: &Snapshot, e: &mut Vec<String>) -> [Vec<i64>; 5] {
        let keys = &self.keys;
        let mut links: [Vec<i64>; 5] = Default::default();
        let mut push =
            |slot: usize, what: &str, id: Option<i64>, shown: &dyn Fn() -> String| match id {
                Some(id) if links[slot].contains(&id) => {
                    e.push(format!("{o}: {what} '{}' is listed twice", shown()))
                }
                Some(id) => links[slot].push(id),
                None => e.push(format!("{o}: {what} '{}' does not exist", shown())),
            };
        for k in &s.new_chapters {
            push(0, "new chapter", keys.chapters.get(&lc(k)), &|| k.clone());
        }
        for k in &s.new_projects {
            push(1, "new project", keys.projects.get(&lc(k)), &|| k.clone());
        }
        for k in &s.new_members {
            push(2, "new member", keys.members.get(&lc(k)), &|| k.clone());
        }
        for i in &s.new_issues {
            let id = keys
                .repos
                .get(&repo_key(&i.organization, &i.repository))
                .and_then(|repo| self.issues.get(&(repo, i.number)).copied());
            let shown = || format!("{}/{}#{}", i.organization, i.repository, i.number);
            push(3, "new issue", id, &shown);
        }
        for r in &s.new_releases {
            let id = keys
                .repos
                .get(&repo_key(&r.organization, &r.repository))
                .and_then(|repo| self.releases.get(&(repo, r.tag_name.clone())).copied());
            let shown = || format!("{}/{}@{}", r.organization, r.repository, r.tag_name);
            push(4, "new release", id, &shown);
        }
        links
    }
}

/// Counts the next `what` of `file` (an issue or a milestone, numbered within its
/// repository), resolves its repository and author (`place`: organization,
/// repository, number, author) and checks that its number is new in the repository.
fn numbered(
    keys: &Keys,
    (line, file): (&mut usize, &'static str),
    what: &str,
    ids: &mut HashMap<(i64, u64), i64>,
    place: (&str, &str, u64, &Option<String>),
    e: &mut Vec<String>,
) -> (Origin, RowIds) {
    let (organization, repository, number, author) = place;
    let o = next(line, file);
    let id = *line as i64;
    let repo = keys.repo(&o, organization, repository, e);
    let author = keys.opt_member(&o, "author", author, e);
    if repo != 0 {
        let shown = || issue_key(organization, repository, number);
        unique(ids, (repo, number), id, &o, what, shown, e);
    }
    (o, RowIds { id, repo, author })
}

/// The origin of the next record of `file`, counting it.
fn next(line: &mut usize, file: &'static str) -> Origin {
    *line += 1;
    Origin { file, line: *line }
}

/// Records `key` as `id`'s; a key seen before is an error naming its first record.
fn unique<K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, i64>,
    key: K,
    id: i64,
    o: &Origin,
    what: &str,
    shown: impl Fn() -> String,
    e: &mut Vec<String>,
) {
    match map.entry(key) {
        Entry::Occupied(first) => e.push(format!(
            "{o}: duplicate {what} '{}' (first defined by record {} of {})",
            shown(),
            first.get(),
            o.file
        )),
        Entry::Vacant(slot) => {
            slot.insert(id);
        }
    }
}
