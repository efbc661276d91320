//! Validating a whole dataset before anything is written: natural keys (unique,
//! case-insensitively), field checks the types alone do not express (non-empty names,
//! key prefixes, coordinates, date ranges, snapshot months), and every reference
//! resolved to the row id it points at.
//!
//! Errors are collected for the whole dataset, in a fixed order (keys, then fields,
//! then references table by table, the snapshots' last), each as `file:line: what is
//! wrong`. Records handed over after the dataset's own (a streaming build, see
//! `streamed`) are checked as they come, against the keys the dataset's own gave; the
//! snapshots of a streaming build are then checked once every record is in.

use std::collections::{HashMap, HashSet};

use super::{lc, ImportErrors};
use crate::records::{
    Chapter, Committee, Dataset, Date, Event, Label, Leader, Origin, Project, Records, Snapshot,
};

mod mentorship;
mod pages;
mod streamed;

pub(super) use mentorship::Mentorship;
pub(super) use pages::Pages;
pub(super) use streamed::More;

/// Row ids that references resolve to (index = position in the record list; a record's
/// own id is its position + 1).
pub(super) struct Resolved {
    /// The organization of each repository.
    pub repo_org: Vec<i64>,
    /// (repository, member) of each contributor record.
    pub contributors: Vec<(i64, i64)>,
    pub issues: RepoAndAuthor,
    /// Label ids of each issue, in the order listed.
    pub issue_labels: Vec<Vec<i64>>,
    pub milestones: RepoAndAuthor,
    pub releases: RepoAndAuthor,
    /// Member id of each leader (when the leader has a login), per entity.
    pub chapter_leaders: Vec<Vec<Option<i64>>>,
    pub committee_leaders: Vec<Vec<Option<i64>>>,
    pub project_leaders: Vec<Vec<Option<i64>>>,
    /// Repository ids of each project, and the stars and forks summed over them.
    pub project_repos: Vec<Vec<i64>>,
    pub project_stars_forks: Vec<(i64, i64)>,
    /// Per snapshot: new chapters, projects, members, issues, releases (empty in a
    /// streaming build until [`More::snapshot_links`] is asked once every record is in).
    pub snapshot_links: Vec<[Vec<i64>; 5]>,
    /// The repository of each label (`None`: shared).
    pub label_repo: Vec<Option<i64>>,
    /// The records of the frontend's pages.
    pub pages: Pages,
    /// Mentorship programs and modules.
    pub mentorship: Mentorship,
    /// The check of records handed over after the dataset's own.
    pub more: More,
}

/// When the snapshots' references are resolved.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Snapshots {
    /// With the rest: the dataset holds every record.
    Now,
    /// After the records handed over (a streaming build).
    Later,
}

/// The repository and the (optional) author of each record of a repository-owned type.
pub(super) struct RepoAndAuthor {
    pub repo: Vec<i64>,
    pub author: Vec<Option<i64>>,
}

/// Checks keys, fields and references of the whole dataset; the resolved ids, or every
/// error found. With [`Snapshots::Later`] the snapshots' references are left to
/// [`More::snapshot_links`].
pub(super) fn resolve(ds: &Dataset, snapshots: Snapshots) -> Result<Resolved, ImportErrors> {
    let mut errors = Vec::new();
    let e = &mut errors;

    let mut keys = Keys::build(ds, e);
    check_fields(ds, e);
    pages::check_fields(ds, e);

    let repo_org = ds
        .repositories
        .iter()
        .map(|(o, r)| keys.org(o, &r.organization, e))
        .collect();
    let contributors = resolve_contributors(ds, &keys, e);
    let issues = RepoAndAuthor::resolve(&ds.issues, &keys, e, |i| {
        (&i.organization, &i.repository, &i.author)
    });
    let issue_labels = resolve_issue_labels(ds, &keys, &issues.repo, e);
    let milestones = RepoAndAuthor::resolve(&ds.milestones, &keys, e, |m| {
        (&m.organization, &m.repository, &m.author)
    });
    let releases = RepoAndAuthor::resolve(&ds.releases, &keys, e, |r| {
        (&r.organization, &r.repository, &r.author)
    });
    let chapter_leaders = keys.leaders_of(&ds.chapters, |c: &Chapter| &c.leaders, e);
    let committee_leaders = keys.leaders_of(&ds.committees, |c: &Committee| &c.leaders, e);
    let project_leaders = keys.leaders_of(&ds.projects, |p: &Project| &p.leaders, e);
    let (project_repos, project_stars_forks) = resolve_project_repositories(ds, &keys, e);
    let pages = Pages::resolve(ds, &keys, e);
    let mentorship = Mentorship::resolve(ds, &keys, e);
    let label_repo = std::mem::take(&mut keys.label_repo);
    let own = streamed::Own {
        contributors: &contributors,
        issues: &issues,
        milestones: &milestones,
        releases: &releases,
        pull_requests: &pages.pull_requests,
    };
    let more = More::new(ds, keys, own);
    let snapshot_links = match snapshots {
        Snapshots::Now => more.snapshot_links(ds, e),
        Snapshots::Later => Vec::new(),
    };

    if !errors.is_empty() {
        return Err(ImportErrors(errors, 0));
    }
    Ok(Resolved {
        repo_org,
        contributors,
        issues,
        issue_labels,
        milestones,
        releases,
        chapter_leaders,
        committee_leaders,
        project_leaders,
        project_repos,
        project_stars_forks,
        snapshot_links,
        label_repo,
        pages,
        mentorship,
        more,
    })
}

// ---------------------------------------------------------------------------------
// Natural keys

/// A natural-key index: lower-cased key → stable id.
#[derive(Default)]
struct KeyIndex {
    ids: HashMap<String, i64>,
}

impl KeyIndex {
    /// Indexes `records` by `key`; a key seen twice is reported at its second record.
    fn build<T>(
        records: &Records<T>,
        what: &str,
        key: impl Fn(&T) -> String,
        errors: &mut Vec<String>,
    ) -> KeyIndex {
        let mut ids = HashMap::with_capacity(records.len());
        for (i, (origin, record)) in records.iter().enumerate() {
            let k = key(record);
            if let Some(first) = ids.insert(k.clone(), i as i64 + 1) {
                ids.insert(k.clone(), first);
                errors.push(format!(
                    "{origin}: duplicate {what} '{k}' (first defined by record {first} of {})",
                    origin.file
                ));
            }
        }
        KeyIndex { ids }
    }

    fn get(&self, key: &str) -> Option<i64> {
        self.ids.get(key).copied()
    }

    /// The id of `key` (already in lower case), which a record at `o` refers to as its
    /// `what` `shown`; 0 (and an error) when `file` has no such record.
    fn require(
        &self,
        key: &str,
        o: &Origin,
        what: &str,
        shown: impl std::fmt::Display,
        file: &str,
        e: &mut Vec<String>,
    ) -> i64 {
        self.get(key).unwrap_or_else(|| {
            e.push(format!("{o}: {what} '{shown}' does not exist in {file}"));
            0
        })
    }
}

fn repo_key(org: &str, name: &str) -> String {
    format!("{}/{}", lc(org), lc(name))
}

/// A label's key: its repository's id (0 for a shared label) and its name.
fn label_key(repo: Option<i64>, name: &str) -> String {
    format!("{}#{}", repo.unwrap_or(0), lc(name))
}

/// The repository of each label: `None` for a shared label (neither `organization`
/// nor `repository`), `Some(0)` (and an error) for one naming only one of them or a
/// repository that does not exist.
fn label_repositories(
    labels: &Records<Label>,
    repos: &KeyIndex,
    e: &mut Vec<String>,
) -> Vec<Option<i64>> {
    labels
        .iter()
        .map(|(o, l)| match (&l.organization, &l.repository) {
            (None, None) => None,
            (Some(org), Some(name)) => Some(repos.require(
                &repo_key(org, name),
                o,
                "repository",
                format_args!("{org}/{name}"),
                "repositories.jsonl",
                e,
            )),
            _ => {
                e.push(format!(
                    "{o}: a label names both its organization and its repository, or neither \
                     (a label shared by every repository)"
                ));
                Some(0)
            }
        })
        .collect()
}

/// Labels by repository and name: a name is unique per repository (and among the
/// shared labels), not across the dataset.
fn label_index(labels: &Records<Label>, repo: &[Option<i64>], e: &mut Vec<String>) -> KeyIndex {
    let mut ids = HashMap::with_capacity(labels.len());
    for (i, (origin, l)) in labels.iter().enumerate() {
        if repo[i] == Some(0) {
            continue;
        }
        let key = label_key(repo[i], &l.name);
        if let Some(&first) = ids.get(&key) {
            let scope = match (&l.organization, &l.repository) {
                (Some(org), Some(name)) => format!("of repository '{org}/{name}'"),
                _ => "shared by every repository".to_string(),
            };
            e.push(format!(
                "{origin}: duplicate label name '{}' {scope} (first defined by record {first} of {})",
                lc(&l.name),
                origin.file
            ));
        } else {
            ids.insert(key, i as i64 + 1);
        }
    }
    KeyIndex { ids }
}

fn issue_key(org: &str, repo: &str, number: u64) -> String {
    format!("{}#{number}", repo_key(org, repo))
}

fn release_key(org: &str, repo: &str, tag: &str) -> String {
    format!("{}@{tag}", repo_key(org, repo))
}

/// The indexes of the record types other records refer to. Building them reports
/// duplicate keys of every type, referred to or not.
struct Keys {
    orgs: KeyIndex,
    members: KeyIndex,
    repos: KeyIndex,
    /// Labels by [`label_key`].
    labels: KeyIndex,
    label_repo: Vec<Option<i64>>,
    chapters: KeyIndex,
    projects: KeyIndex,
}

impl Keys {
    fn build(ds: &Dataset, e: &mut Vec<String>) -> Keys {
        let orgs = KeyIndex::build(&ds.organizations, "organization login", |o| lc(&o.login), e);
        let members = KeyIndex::build(&ds.members, "member login", |m| lc(&m.login), e);
        let repos = KeyIndex::build(
            &ds.repositories,
            "repository",
            |r| repo_key(&r.organization, &r.name),
            e,
        );
        let label_repo = label_repositories(&ds.labels, &repos, e);
        let labels = label_index(&ds.labels, &label_repo, e);
        KeyIndex::build(
            &ds.issues,
            "issue",
            |i| issue_key(&i.organization, &i.repository, i.number),
            e,
        );
        KeyIndex::build(
            &ds.milestones,
            "milestone",
            |m| issue_key(&m.organization, &m.repository, m.number),
            e,
        );
        KeyIndex::build(
            &ds.releases,
            "release",
            |r| release_key(&r.organization, &r.repository, &r.tag_name),
            e,
        );
        let chapters = KeyIndex::build(&ds.chapters, "chapter key", |c| lc(&c.key), e);
        KeyIndex::build(&ds.committees, "committee key", |c| lc(&c.key), e);
        let projects = KeyIndex::build(&ds.projects, "project key", |p| lc(&p.key), e);
        KeyIndex::build(&ds.events, "event key", |v| lc(&v.key), e);
        KeyIndex::build(&ds.sponsors, "sponsor key", |s| lc(&s.key), e);
        KeyIndex::build(&ds.snapshots, "snapshot key", |s| lc(&s.key), e);
        Keys {
            orgs,
            members,
            repos,
            labels,
            label_repo,
            chapters,
            projects,
        }
    }

    /// The organization `login`; 0 (and an error) when it does not exist.
    fn org(&self, o: &Origin, login: &str, e: &mut Vec<String>) -> i64 {
        let file = "organizations.jsonl";
        self.orgs
            .require(&lc(login), o, "organization", login, file, e)
    }

    /// The member `login` named by `field`; 0 (and an error) when it does not exist.
    fn member(&self, o: &Origin, field: &str, login: &str, e: &mut Vec<String>) -> i64 {
        self.members
            .require(&lc(login), o, field, login, "members.jsonl", e)
    }

    /// The project `key`; 0 (and an error) when it does not exist.
    fn project(&self, o: &Origin, key: &str, e: &mut Vec<String>) -> i64 {
        self.projects
            .require(&lc(key), o, "project", key, "projects.jsonl", e)
    }

    fn opt_member(
        &self,
        o: &Origin,
        field: &str,
        login: &Option<String>,
        e: &mut Vec<String>,
    ) -> Option<i64> {
        login.as_deref().map(|l| self.member(o, field, l, e))
    }

    /// The repository `org/name`; 0 (and an error) when it does not exist.
    fn repo(&self, o: &Origin, org: &str, name: &str, e: &mut Vec<String>) -> i64 {
        let shown = format_args!("{org}/{name}");
        let file = "repositories.jsonl";
        self.repos
            .require(&repo_key(org, name), o, "repository", shown, file, e)
    }

    /// The repository ids every record of one type links to, in the order listed; a
    /// repository listed twice is an error.
    fn repositories_of<T>(
        &self,
        records: &Records<T>,
        refs: impl Fn(&T) -> &Vec<crate::records::RepositoryRef>,
        e: &mut Vec<String>,
    ) -> Vec<Vec<i64>> {
        records
            .iter()
            .map(|(o, x)| {
                let mut ids = Vec::new();
                for r in refs(x) {
                    let id = self.repo(o, &r.organization, &r.name, e);
                    if id == 0 {
                        continue;
                    }
                    if ids.contains(&id) {
                        e.push(format!(
                            "{o}: repository '{}/{}' is listed twice",
                            r.organization, r.name
                        ));
                        continue;
                    }
                    ids.push(id);
                }
                ids
            })
            .collect()
    }

    /// The member ids of the leaders of every record of one type.
    fn leaders_of<T>(
        &self,
        records: &Records<T>,
        leaders: impl Fn(&T) -> &Vec<Leader>,
        e: &mut Vec<String>,
    ) -> Vec<Vec<Option<i64>>> {
        records
            .iter()
            .map(|(o, x)| {
                leaders(x)
                    .iter()
                    .map(|l| self.opt_member(o, "leader login", &l.login, e))
                    .collect()
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------
// Fields

/// Field checks that the types alone do not express, table by table.
fn check_fields(ds: &Dataset, e: &mut Vec<String>) {
    for (o, r) in &ds.organizations {
        non_empty(o, "login", &r.login, e);
        url_text(o, "login", &r.login, IdText::Segment, e);
    }
    for (o, r) in &ds.members {
        non_empty(o, "login", &r.login, e);
        url_text(o, "login", &r.login, IdText::Segment, e);
    }
    for (o, r) in &ds.repositories {
        non_empty(o, "name", &r.name, e);
        url_text(o, "name", &r.name, IdText::Segment, e);
    }
    for (o, r) in &ds.labels {
        non_empty(o, "name", &r.name, e);
    }
    for (o, r) in &ds.releases {
        non_empty(o, "tag_name", &r.tag_name, e);
        url_text(o, "tag_name", &r.tag_name, IdText::Tag, e);
    }
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
        non_empty(o, "key", &r.key, e);
        url_text(o, "key", &r.key, IdText::Segment, e);
    }
    for (o, r) in &ds.snapshots {
        check_snapshot_key(o, r, e);
    }
}

fn check_event(o: &Origin, r: &Event, e: &mut Vec<String>) {
    non_empty(o, "key", &r.key, e);
    url_text(o, "key", &r.key, IdText::Segment, e);
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

/// Where an identifier goes in a URL (docs/data.md, "Keys in URLs").
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdText {
    /// One path segment: keys, logins, repository names.
    Segment,
    /// A release tag: `/`-separated segments (`release/2.0`).
    Tag,
}

/// Why `value` cannot be an identifier in a URL and a file name faithfully: a control
/// character (U+0000–U+001F, U+007F–U+009F: SQLite's text functions stop at a NUL,
/// and a request cannot carry one), `/` (outside tags) or `\` (clients and proxies
/// read both as path separators), or a whole value or tag segment `.` or `..`
/// (removed from paths by URL normalisation), or a tag with an empty segment. `None`
/// when it can.
pub(crate) fn url_text_problem(value: &str, kind: IdText) -> Option<String> {
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Some(format!("holds the control character U+{:04X}", c as u32));
    }
    if value.contains('\\') {
        return Some("holds a backslash (\\)".to_string());
    }
    if kind == IdText::Segment && value.contains('/') {
        return Some("holds a slash (/)".to_string());
    }
    match kind {
        IdText::Segment => (value == "." || value == "..").then(|| "is '.' or '..'".to_string()),
        IdText::Tag => value
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
            .then(|| "has a segment that is empty, '.' or '..'".to_string()),
    }
}

fn url_text(o: &Origin, field: &str, value: &str, kind: IdText, e: &mut Vec<String>) {
    if let Some(problem) = url_text_problem(value, kind) {
        e.push(format!(
            "{o}: {field} '{}' {problem}; keys, logins, repository names and tags go \
             into URLs and file names (docs/data.md)",
            value.escape_debug()
        ));
    }
}

fn non_empty(o: &Origin, field: &str, value: &str, e: &mut Vec<String>) {
    if value.trim().is_empty() {
        e.push(format!("{o}: {field} must not be empty"));
    }
}

fn prefixed_key(o: &Origin, key: &str, prefix: &str, e: &mut Vec<String>) {
    let ok = key.len() > prefix.len() && lc(key).starts_with(prefix);
    if !ok {
        e.push(format!(
            "{o}: key '{key}' must be '{prefix}' followed by the name part"
        ));
    }
}

fn coordinates(o: &Origin, lat: Option<f64>, lng: Option<f64>, e: &mut Vec<String>) {
    if let Some(lat) = lat {
        if !(-90.0..=90.0).contains(&lat) {
            e.push(format!("{o}: latitude {lat} is outside -90..90"));
        }
    }
    if let Some(lng) = lng {
        if !(-180.0..=180.0).contains(&lng) {
            e.push(format!("{o}: longitude {lng} is outside -180..180"));
        }
    }
}

// ---------------------------------------------------------------------------------
// References

impl RepoAndAuthor {
    /// Resolves the repository of every record, then the author of every record (in
    /// two passes, so repository errors come before author errors).
    fn resolve<T>(
        records: &Records<T>,
        keys: &Keys,
        e: &mut Vec<String>,
        refs: impl Fn(&T) -> (&String, &String, &Option<String>),
    ) -> RepoAndAuthor {
        let repo = records
            .iter()
            .map(|(o, x)| {
                let (org, name, _) = refs(x);
                keys.repo(o, org, name, e)
            })
            .collect();
        let author = records
            .iter()
            .map(|(o, x)| keys.opt_member(o, "author", refs(x).2, e))
            .collect();
        RepoAndAuthor { repo, author }
    }
}

fn resolve_contributors(ds: &Dataset, keys: &Keys, e: &mut Vec<String>) -> Vec<(i64, i64)> {
    let mut seen = HashSet::new();
    ds.repository_contributors
        .iter()
        .map(|(o, c)| {
            let pair = (
                keys.repo(o, &c.organization, &c.repository, e),
                keys.member(o, "member", &c.member, e),
            );
            if pair.0 != 0 && pair.1 != 0 && !seen.insert(pair) {
                e.push(format!(
                    "{o}: duplicate contributor '{}' of repository '{}/{}'",
                    c.member, c.organization, c.repository
                ));
            }
            pair
        })
        .collect()
}

/// The labels of each issue (see [`issue_label_ids`]).
fn resolve_issue_labels(
    ds: &Dataset,
    keys: &Keys,
    issue_repo: &[i64],
    e: &mut Vec<String>,
) -> Vec<Vec<i64>> {
    ds.issues
        .iter()
        .enumerate()
        .map(|(index, (o, i))| issue_label_ids(keys, o, i, issue_repo[index], e))
        .collect()
}

/// The label ids of issue `i` of repository `repo`, in the order listed: a name is
/// looked up among the labels of the issue's repository first, then among the shared
/// ones.
fn issue_label_ids(
    keys: &Keys,
    o: &Origin,
    i: &crate::records::Issue,
    repo: i64,
    e: &mut Vec<String>,
) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for name in &i.labels {
        let found = keys
            .labels
            .get(&label_key(Some(repo), name))
            .or_else(|| keys.labels.get(&label_key(None, name)));
        match found {
            Some(id) if ids.contains(&id) => e.push(format!("{o}: label '{name}' is listed twice")),
            Some(id) => ids.push(id),
            None => e.push(format!(
                "{o}: label '{name}' does not exist in labels.jsonl (neither a label \
                 of repository '{}/{}' nor a shared one)",
                i.organization, i.repository
            )),
        }
    }
    ids
}

/// The repositories of each project, and its stars and forks summed over them.
fn resolve_project_repositories(
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
