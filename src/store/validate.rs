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

use std::collections::HashMap;

use super::{lc, ImportErrors};
use crate::records::{Dataset, Leader, Origin, Records};

mod code;
mod community;
mod issues;
mod mentorship;
mod streamed;

pub(super) use community::Community;
pub(super) use mentorship::Mentorship;
pub(super) use streamed::More;

/// Row ids that references resolve to (index = position in the record list; a record's
/// own id is its position + 1).
pub(super) struct Resolved {
    /// The organization of each repository.
    pub repo_org: RepoOrg,
    /// (repository, member) of each contributor record.
    pub contributors: Vec<(i64, i64)>,
    pub issues: RepoAndAuthor,
    /// Label ids of each issue, in the order listed.
    pub issue_labels: Vec<Vec<i64>>,
    pub pull_requests: RepoAndAuthor,
    pub milestones: RepoAndAuthor,
    pub releases: RepoAndAuthor,
    /// Chapters, committees, projects, boards, members' badges and snapshots.
    pub community: Community,
    /// Per snapshot: new chapters, projects, members, issues, releases (empty in a
    /// streaming build until [`More::snapshot_links`] is asked once every record is in).
    pub snapshot_links: Vec<[Vec<i64>; 5]>,
    /// The repository of each label (`None`: shared).
    pub label_repo: Vec<Option<i64>>,
    /// Mentorship programs and modules.
    pub mentorship: Mentorship,
    /// The check of records handed over after the dataset's own.
    pub more: More,
}

/// The organization of each repository.
pub(super) struct RepoOrg(pub Vec<i64>);

impl RepoOrg {
    /// Repository `repo` and its organization: who owns an issue or a pull request.
    pub fn owner(&self, repo: i64) -> (i64, i64) {
        (repo, self.0[(repo - 1) as usize])
    }
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
    // Field checks, table by table, those of the records and fields added for the
    // frontend's pages last: the order an invalid dataset's errors are reported in.
    community::check_people(ds, e);
    code::check_fields(ds, e);
    community::check_fields(ds, e);
    issues::check_pull_requests(ds, e);
    community::check_activity(ds, e);

    let repo_org = RepoOrg(
        ds.repositories
            .iter()
            .map(|(o, r)| keys.org(o, &r.organization, e))
            .collect(),
    );
    let contributors = code::resolve_contributors(ds, &keys, e);
    let issues = RepoAndAuthor::resolve(&ds.issues, &keys, e, |i| {
        (&i.organization, &i.repository, &i.author)
    });
    let issue_labels = issues::resolve_labels(ds, &keys, &issues.repo, e);
    let milestones = RepoAndAuthor::resolve(&ds.milestones, &keys, e, |m| {
        (&m.organization, &m.repository, &m.author)
    });
    let releases = RepoAndAuthor::resolve(&ds.releases, &keys, e, |r| {
        (&r.organization, &r.repository, &r.author)
    });
    let mut community = Community::resolve(ds, &keys, e);
    // The keys and references of the records added for the frontend's pages, after
    // every other reference, in this order (the order errors are reported in).
    issues::index_pull_requests(ds, e);
    let badges = community::index_activity(ds, e);
    community.resolve_boards(ds, &keys, e);
    let pull_requests = RepoAndAuthor::resolve(&ds.pull_requests, &keys, e, |p| {
        (&p.organization, &p.repository, &p.author)
    });
    community.resolve_lists(ds, &keys, &badges, e);
    let mentorship = Mentorship::resolve(ds, &keys, e);
    let label_repo = std::mem::take(&mut keys.label_repo);
    let own = streamed::Own {
        contributors: &contributors,
        issues: &issues,
        milestones: &milestones,
        releases: &releases,
        pull_requests: &pull_requests,
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
        pull_requests,
        milestones,
        releases,
        community,
        snapshot_links,
        label_repo,
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
                    "{origin}: duplicate {what} '{k}' (first defined by {})",
                    crate::records::first_defined(records, first)
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

pub(super) fn repo_key(org: &str, name: &str) -> String {
    format!("{}/{}", lc(org), lc(name))
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
        let label_repo = code::label_repositories(&ds.labels, &repos, e);
        let labels = code::label_index(&ds.labels, &label_repo, e);
        KeyIndex::build(
            &ds.issues,
            "issue",
            |i| issues::issue_key(&i.organization, &i.repository, i.number),
            e,
        );
        KeyIndex::build(
            &ds.milestones,
            "milestone",
            |m| issues::issue_key(&m.organization, &m.repository, m.number),
            e,
        );
        KeyIndex::build(
            &ds.releases,
            "release",
            |r| code::release_key(&r.organization, &r.repository, &r.tag_name),
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

/// A non-empty identifier that fits a URL segment (a key, a login, a name).
fn segment(o: &Origin, field: &str, value: &str, e: &mut Vec<String>) {
    non_empty(o, field, value, e);
    url_text(o, field, value, IdText::Segment, e);
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
