//! The dataset store: reading the JSON Lines interchange format, validating a whole
//! dataset (keys, references, ranges), writing it to SQLite all-or-nothing, opening it
//! for reading, and the integrity report of `roost db check`.
//!
//! A dataset is always written to a fresh file beside the target and renamed over it
//! once complete, so a failed import leaves the existing file byte-identical and a
//! reader sees either the old dataset or the new one.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use rusqlite::{params, Connection, OpenFlags};
use serde::de::DeserializeOwned;

use crate::records::*;

pub mod export;
mod sample;
pub use sample::{init_db, sample_dataset, SAMPLE};

/// The schema, embedded from `data/schema.sql`.
pub const SCHEMA: &str = include_str!("../data/schema.sql");
/// Bumped whenever `data/schema.sql` changes incompatibly.
pub const SCHEMA_VERSION: &str = "1";

/// Import errors, one `file:line: what is wrong` per entry.
#[derive(Debug)]
pub struct ImportErrors(pub Vec<String>);

impl std::fmt::Display for ImportErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 50;
        for line in self.0.iter().take(SHOWN) {
            writeln!(f, "{line}")?;
        }
        if self.0.len() > SHOWN {
            writeln!(f, "... and {} more", self.0.len() - SHOWN)?;
        }
        write!(f, "{} error(s); the dataset was not changed", self.0.len())
    }
}

impl std::error::Error for ImportErrors {}

/// Lower case used for every case-insensitive comparison in roost.
pub fn lc(text: &str) -> String {
    text.to_lowercase()
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

/// Checks a dataset (keys, references, ranges) and writes it to `db` atomically.
pub fn build(ds: &Dataset, db: &Path) -> anyhow::Result<()> {
    let resolved = resolve(ds).map_err(anyhow::Error::new)?;
    write_atomically(db, |conn| insert(conn, ds, &resolved))
}

/// Reads a folder and builds the dataset from it: `roost db import`.
pub fn import_dir(dir: &Path, db: &Path) -> anyhow::Result<()> {
    let ds = read_dir(dir).map_err(anyhow::Error::new)?;
    build(&ds, db)
}

/// Ids that references resolve to (index = position in the record list).
struct Resolved {
    repo_org: Vec<i64>,
    contributors: Vec<(i64, i64)>,
    issue_repo: Vec<i64>,
    issue_author: Vec<Option<i64>>,
    issue_labels: Vec<Vec<i64>>,
    milestone_repo: Vec<i64>,
    milestone_author: Vec<Option<i64>>,
    release_repo: Vec<i64>,
    release_author: Vec<Option<i64>>,
    chapter_leaders: Vec<Vec<Option<i64>>>,
    committee_leaders: Vec<Vec<Option<i64>>>,
    project_leaders: Vec<Vec<Option<i64>>>,
    project_repos: Vec<Vec<i64>>,
    project_stars_forks: Vec<(i64, i64)>,
    snapshot_links: Vec<[Vec<i64>; 5]>,
}

/// A natural-key index: lower-cased key → stable id.
struct KeyIndex {
    ids: HashMap<String, i64>,
}

impl KeyIndex {
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
}

fn repo_key(org: &str, name: &str) -> String {
    format!("{}/{}", lc(org), lc(name))
}

fn resolve(ds: &Dataset) -> Result<Resolved, ImportErrors> {
    let mut errors = Vec::new();
    let e = &mut errors;

    let orgs = KeyIndex::build(&ds.organizations, "organization login", |o| lc(&o.login), e);
    let members = KeyIndex::build(&ds.members, "member login", |m| lc(&m.login), e);
    let repos = KeyIndex::build(
        &ds.repositories,
        "repository",
        |r| repo_key(&r.organization, &r.name),
        e,
    );
    let labels = KeyIndex::build(&ds.labels, "label name", |l| lc(&l.name), e);
    let issues = KeyIndex::build(
        &ds.issues,
        "issue",
        |i| format!("{}#{}", repo_key(&i.organization, &i.repository), i.number),
        e,
    );
    KeyIndex::build(
        &ds.milestones,
        "milestone",
        |m| format!("{}#{}", repo_key(&m.organization, &m.repository), m.number),
        e,
    );
    let releases = KeyIndex::build(
        &ds.releases,
        "release",
        |r| {
            format!(
                "{}@{}",
                repo_key(&r.organization, &r.repository),
                r.tag_name
            )
        },
        e,
    );
    let chapters = KeyIndex::build(&ds.chapters, "chapter key", |c| lc(&c.key), e);
    KeyIndex::build(&ds.committees, "committee key", |c| lc(&c.key), e);
    let projects = KeyIndex::build(&ds.projects, "project key", |p| lc(&p.key), e);
    KeyIndex::build(&ds.events, "event key", |v| lc(&v.key), e);
    KeyIndex::build(&ds.sponsors, "sponsor key", |s| lc(&s.key), e);
    KeyIndex::build(&ds.snapshots, "snapshot key", |s| lc(&s.key), e);

    // Field checks that the types alone do not express.
    for (o, r) in &ds.organizations {
        non_empty(o, "login", &r.login, e);
    }
    for (o, r) in &ds.members {
        non_empty(o, "login", &r.login, e);
    }
    for (o, r) in &ds.repositories {
        non_empty(o, "name", &r.name, e);
    }
    for (o, r) in &ds.labels {
        non_empty(o, "name", &r.name, e);
    }
    for (o, r) in &ds.releases {
        non_empty(o, "tag_name", &r.tag_name, e);
    }
    for (o, r) in &ds.chapters {
        prefixed_key(o, &r.key, "www-chapter-", e);
        coordinates(o, r.latitude, r.longitude, e);
    }
    for (o, r) in &ds.committees {
        prefixed_key(o, &r.key, "www-committee-", e);
    }
    for (o, r) in &ds.projects {
        prefixed_key(o, &r.key, "www-project-", e);
    }
    for (o, r) in &ds.events {
        non_empty(o, "key", &r.key, e);
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
    for (o, r) in &ds.sponsors {
        non_empty(o, "key", &r.key, e);
    }
    for (o, r) in &ds.snapshots {
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

    let org_ref = |o: &Origin, login: &str, e: &mut Vec<String>| -> i64 {
        orgs.get(&lc(login)).unwrap_or_else(|| {
            e.push(format!(
                "{o}: organization '{login}' does not exist in organizations.jsonl"
            ));
            0
        })
    };
    let member_ref = |o: &Origin, field: &str, login: &str, e: &mut Vec<String>| -> i64 {
        members.get(&lc(login)).unwrap_or_else(|| {
            e.push(format!(
                "{o}: {field} '{login}' does not exist in members.jsonl"
            ));
            0
        })
    };
    let opt_member = |o: &Origin, field: &str, login: &Option<String>, e: &mut Vec<String>| {
        login.as_deref().map(|l| member_ref(o, field, l, e))
    };
    let repo_ref = |o: &Origin, org: &str, name: &str, e: &mut Vec<String>| -> i64 {
        repos.get(&repo_key(org, name)).unwrap_or_else(|| {
            e.push(format!(
                "{o}: repository '{org}/{name}' does not exist in repositories.jsonl"
            ));
            0
        })
    };

    let repo_org = ds
        .repositories
        .iter()
        .map(|(o, r)| org_ref(o, &r.organization, e))
        .collect();
    let mut seen_contrib = HashSet::new();
    let contributors = ds
        .repository_contributors
        .iter()
        .map(|(o, c)| {
            let pair = (
                repo_ref(o, &c.organization, &c.repository, e),
                member_ref(o, "member", &c.member, e),
            );
            if pair.0 != 0 && pair.1 != 0 && !seen_contrib.insert(pair) {
                e.push(format!(
                    "{o}: duplicate contributor '{}' of repository '{}/{}'",
                    c.member, c.organization, c.repository
                ));
            }
            pair
        })
        .collect();
    let issue_repo = ds
        .issues
        .iter()
        .map(|(o, i)| repo_ref(o, &i.organization, &i.repository, e))
        .collect();
    let issue_author = ds
        .issues
        .iter()
        .map(|(o, i)| opt_member(o, "author", &i.author, e))
        .collect();
    let issue_labels = ds
        .issues
        .iter()
        .map(|(o, i)| {
            let mut ids: Vec<i64> = Vec::new();
            for name in &i.labels {
                match labels.get(&lc(name)) {
                    Some(id) if ids.contains(&id) => {
                        e.push(format!("{o}: label '{name}' is listed twice"))
                    }
                    Some(id) => ids.push(id),
                    None => e.push(format!(
                        "{o}: label '{name}' does not exist in labels.jsonl"
                    )),
                }
            }
            ids
        })
        .collect();
    let milestone_repo = ds
        .milestones
        .iter()
        .map(|(o, m)| repo_ref(o, &m.organization, &m.repository, e))
        .collect();
    let milestone_author = ds
        .milestones
        .iter()
        .map(|(o, m)| opt_member(o, "author", &m.author, e))
        .collect();
    let release_repo = ds
        .releases
        .iter()
        .map(|(o, r)| repo_ref(o, &r.organization, &r.repository, e))
        .collect();
    let release_author = ds
        .releases
        .iter()
        .map(|(o, r)| opt_member(o, "author", &r.author, e))
        .collect();
    let leaders = |o: &Origin, list: &[Leader], e: &mut Vec<String>| -> Vec<Option<i64>> {
        list.iter()
            .map(|l| opt_member(o, "leader login", &l.login, e))
            .collect()
    };
    let chapter_leaders = ds
        .chapters
        .iter()
        .map(|(o, c)| leaders(o, &c.leaders, e))
        .collect();
    let committee_leaders = ds
        .committees
        .iter()
        .map(|(o, c)| leaders(o, &c.leaders, e))
        .collect();
    let project_leaders = ds
        .projects
        .iter()
        .map(|(o, p)| leaders(o, &p.leaders, e))
        .collect();
    let mut project_repos: Vec<Vec<i64>> = Vec::new();
    let mut project_stars_forks = Vec::new();
    for (o, p) in &ds.projects {
        let mut ids = Vec::new();
        let (mut stars, mut forks) = (0i64, 0i64);
        for r in &p.repositories {
            let id = repo_ref(o, &r.organization, &r.name, e);
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
            let repo = &ds.repositories[id as usize - 1].1;
            stars += repo.stars_count as i64;
            forks += repo.forks_count as i64;
            ids.push(id);
        }
        project_repos.push(ids);
        project_stars_forks.push((stars, forks));
    }
    let snapshot_links = ds
        .snapshots
        .iter()
        .map(|(o, s)| {
            let mut links: [Vec<i64>; 5] = Default::default();
            let mut push = |slot: usize, what: &str, id: Option<i64>, shown: String| match id {
                Some(id) if links[slot].contains(&id) => {
                    e.push(format!("{o}: {what} '{shown}' is listed twice"))
                }
                Some(id) => links[slot].push(id),
                None => e.push(format!("{o}: {what} '{shown}' does not exist")),
            };
            for k in &s.new_chapters {
                push(0, "new chapter", chapters.get(&lc(k)), k.clone());
            }
            for k in &s.new_projects {
                push(1, "new project", projects.get(&lc(k)), k.clone());
            }
            for k in &s.new_members {
                push(2, "new member", members.get(&lc(k)), k.clone());
            }
            for i in &s.new_issues {
                let key = format!("{}#{}", repo_key(&i.organization, &i.repository), i.number);
                let shown = format!("{}/{}#{}", i.organization, i.repository, i.number);
                push(3, "new issue", issues.get(&key), shown);
            }
            for r in &s.new_releases {
                let key = format!(
                    "{}@{}",
                    repo_key(&r.organization, &r.repository),
                    r.tag_name
                );
                let shown = format!("{}/{}@{}", r.organization, r.repository, r.tag_name);
                push(4, "new release", releases.get(&key), shown);
            }
            links
        })
        .collect();

    if !errors.is_empty() {
        return Err(ImportErrors(errors));
    }
    Ok(Resolved {
        repo_org,
        contributors,
        issue_repo,
        issue_author,
        issue_labels,
        milestone_repo,
        milestone_author,
        release_repo,
        release_author,
        chapter_leaders,
        committee_leaders,
        project_leaders,
        project_repos,
        project_stars_forks,
        snapshot_links,
    })
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

/// Builds a database in a temporary file beside `db` and renames it into place.
fn write_atomically(
    db: &Path,
    fill: impl FnOnce(&Connection) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let dir = match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let file_name = db
        .file_name()
        .ok_or_else(|| anyhow!("{} is not a file path", db.display()))?
        .to_string_lossy()
        .into_owned();
    let tmp = dir.join(format!(".{file_name}.tmp-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let result = (|| -> anyhow::Result<()> {
        let mut conn =
            Connection::open(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
        let tx = conn.transaction()?;
        tx.execute_batch(SCHEMA)?;
        fill(&tx)?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('schema_version', ?1)",
            [SCHEMA_VERSION],
        )?;
        tx.commit()?;
        conn.execute_batch("ANALYZE;")?;
        conn.close().map_err(|(_, e)| e)?;
        fs::File::open(&tmp)?.sync_all()?;
        fs::rename(&tmp, db)
            .with_context(|| format!("moving the new dataset to {}", db.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn b(v: bool) -> i64 {
    v as i64
}

fn n(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

fn github_url(given: &str, login: &str) -> String {
    if given.is_empty() {
        format!("https://github.com/{login}")
    } else {
        given.to_string()
    }
}

fn insert(conn: &Connection, ds: &Dataset, r: &Resolved) -> anyhow::Result<()> {
    let mut st = conn.prepare(
        "INSERT INTO organizations VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
    )?;
    for (i, (_, o)) in ds.organizations.iter().enumerate() {
        st.execute(params![
            i as i64 + 1,
            o.login,
            lc(&o.login),
            o.name,
            o.company,
            o.location,
            lc(&o.location),
            o.description,
            o.avatar_url,
            github_url(&o.url, &o.login),
            n(o.followers_count),
            b(o.is_affiliated),
            o.created_at.0,
            o.updated_at.0
        ])?;
    }
    let mut st = conn.prepare(
        "INSERT INTO members VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)",
    )?;
    for (i, (_, m)) in ds.members.iter().enumerate() {
        st.execute(params![
            i as i64 + 1,
            m.login,
            lc(&m.login),
            m.name,
            lc(&m.name),
            m.avatar_url,
            github_url(&m.url, &m.login),
            m.bio,
            m.company,
            lc(&m.company),
            m.location,
            lc(&m.location),
            m.title,
            m.twitter_username,
            n(m.followers_count),
            n(m.following_count),
            n(m.public_repositories_count),
            m.created_at.0,
            m.updated_at.0
        ])?;
    }
    let mut st = conn.prepare(
        "INSERT INTO repositories VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)",
    )?;
    for (i, (_, x)) in ds.repositories.iter().enumerate() {
        let url = if x.url.is_empty() {
            format!("https://github.com/{}/{}", x.organization, x.name)
        } else {
            x.url.clone()
        };
        st.execute(params![
            i as i64 + 1,
            r.repo_org[i],
            x.name,
            lc(&x.name),
            x.description,
            url,
            n(x.commits_count),
            n(x.contributors_count),
            n(x.forks_count),
            n(x.open_issues_count),
            n(x.stars_count),
            n(x.subscribers_count),
            b(x.is_archived),
            x.license,
            serde_json::to_string(&x.topics)?,
            serde_json::to_string(&x.languages)?,
            x.pushed_at.map(|t| t.0),
            x.created_at.0,
            x.updated_at.0
        ])?;
    }
    let mut st = conn.prepare("INSERT INTO repository_contributors VALUES (?1,?2,?3)")?;
    for (i, (_, c)) in ds.repository_contributors.iter().enumerate() {
        let (repo, member) = r.contributors[i];
        st.execute(params![repo, member, n(c.contributions_count)])?;
    }
    let mut st = conn.prepare("INSERT INTO labels VALUES (?1,?2,?3,?4,?5,?6,?7,?8)")?;
    for (i, (_, l)) in ds.labels.iter().enumerate() {
        st.execute(params![
            i as i64 + 1,
            l.name,
            lc(&l.name),
            l.color.0,
            lc(&l.color.0),
            l.description,
            l.created_at.0,
            l.updated_at.0
        ])?;
    }
    let mut st = conn.prepare("INSERT INTO issues VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)")?;
    let mut st_labels = conn.prepare("INSERT INTO issue_labels VALUES (?1,?2,?3)")?;
    for (i, (_, x)) in ds.issues.iter().enumerate() {
        let id = i as i64 + 1;
        st.execute(params![
            id,
            r.issue_repo[i],
            n(x.number),
            x.title,
            x.state.as_str(),
            x.body,
            r.issue_author[i],
            x.url,
            x.created_at.0,
            x.updated_at.0,
            x.closed_at.map(|t| t.0)
        ])?;
        for (pos, label) in r.issue_labels[i].iter().enumerate() {
            st_labels.execute(params![id, label, pos as i64])?;
        }
    }
    let mut st =
        conn.prepare("INSERT INTO milestones VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)")?;
    for (i, (_, x)) in ds.milestones.iter().enumerate() {
        st.execute(params![
            i as i64 + 1,
            r.milestone_repo[i],
            n(x.number),
            x.title,
            x.state.as_str(),
            x.body,
            r.milestone_author[i],
            x.url,
            n(x.open_issues_count),
            n(x.closed_issues_count),
            x.due_on.map(|t| t.0),
            x.created_at.0,
            x.updated_at.0
        ])?;
    }
    let mut st =
        conn.prepare("INSERT INTO releases VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)")?;
    for (i, (_, x)) in ds.releases.iter().enumerate() {
        let url = if x.url.is_empty() {
            format!(
                "https://github.com/{}/{}/releases/tag/{}",
                x.organization, x.repository, x.tag_name
            )
        } else {
            x.url.clone()
        };
        st.execute(params![
            i as i64 + 1,
            r.release_repo[i],
            x.tag_name,
            x.name,
            x.description,
            r.release_author[i],
            url,
            b(x.is_draft),
            b(x.is_pre_release),
            x.published_at.map(|t| t.0),
            x.created_at.0
        ])?;
    }
    let mut st_leader = conn.prepare("INSERT INTO leaders VALUES (?1,?2,?3,?4,?5)")?;
    let mut st = conn
        .prepare("INSERT INTO chapters VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)")?;
    for (i, (_, x)) in ds.chapters.iter().enumerate() {
        let id = i as i64 + 1;
        st.execute(params![
            id,
            x.key,
            lc(&x.key),
            x.name,
            b(x.is_active),
            x.country,
            lc(&x.country),
            x.region,
            x.latitude,
            x.longitude,
            x.summary,
            x.url,
            x.created_at.0,
            x.updated_at.0
        ])?;
        for (pos, l) in x.leaders.iter().enumerate() {
            st_leader.execute(params![
                "chapter",
                id,
                pos as i64,
                l.name,
                r.chapter_leaders[i][pos]
            ])?;
        }
    }
    let mut st = conn.prepare("INSERT INTO committees VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)")?;
    for (i, (_, x)) in ds.committees.iter().enumerate() {
        let id = i as i64 + 1;
        st.execute(params![
            id,
            x.key,
            lc(&x.key),
            x.name,
            b(x.is_active),
            x.description,
            x.summary,
            x.url,
            x.created_at.0,
            x.updated_at.0
        ])?;
        for (pos, l) in x.leaders.iter().enumerate() {
            st_leader.execute(params![
                "committee",
                id,
                pos as i64,
                l.name,
                r.committee_leaders[i][pos]
            ])?;
        }
    }
    let mut st = conn.prepare(
        "INSERT INTO projects VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)",
    )?;
    let mut st_link = conn.prepare("INSERT INTO project_repositories VALUES (?1,?2)")?;
    for (i, (_, x)) in ds.projects.iter().enumerate() {
        let id = i as i64 + 1;
        let (stars, forks) = r.project_stars_forks[i];
        st.execute(params![
            id,
            x.key,
            lc(&x.key),
            x.name,
            lc(&x.name),
            b(x.is_active),
            x.level.as_str(),
            x.level.rank(),
            x.kind.as_str(),
            x.description,
            x.summary,
            x.url,
            stars,
            forks,
            x.created_at.0,
            x.updated_at.0
        ])?;
        for (pos, l) in x.leaders.iter().enumerate() {
            st_leader.execute(params![
                "project",
                id,
                pos as i64,
                l.name,
                r.project_leaders[i][pos]
            ])?;
        }
        for repo in &r.project_repos[i] {
            st_link.execute(params![id, repo])?;
        }
    }
    let mut st =
        conn.prepare("INSERT INTO events VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)")?;
    for (i, (_, x)) in ds.events.iter().enumerate() {
        st.execute(params![
            i as i64 + 1,
            x.key,
            lc(&x.key),
            x.name,
            x.category.as_str(),
            x.start_date.0,
            x.end_date.as_ref().map(|d| d.0.clone()),
            x.latitude,
            x.longitude,
            x.url,
            x.description,
            x.summary,
            x.suggested_location
        ])?;
    }
    let mut st =
        conn.prepare("INSERT INTO sponsors VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)")?;
    for (i, (_, x)) in ds.sponsors.iter().enumerate() {
        st.execute(params![
            i as i64 + 1,
            x.key,
            lc(&x.key),
            x.name,
            lc(&x.name),
            x.sponsor_type.as_str(),
            lc(x.sponsor_type.as_str()),
            b(x.is_member),
            x.member_type.as_str(),
            x.image_url,
            x.url,
            x.job_url,
            x.description
        ])?;
    }
    let mut st = conn.prepare("INSERT INTO snapshots VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)")?;
    let link_tables = [
        "snapshot_chapters",
        "snapshot_projects",
        "snapshot_members",
        "snapshot_issues",
        "snapshot_releases",
    ];
    let mut link_stmts = link_tables
        .iter()
        .map(|t| conn.prepare(&format!("INSERT INTO {t} VALUES (?1, ?2)")))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, (_, x)) in ds.snapshots.iter().enumerate() {
        let id = i as i64 + 1;
        st.execute(params![
            id,
            x.key,
            lc(&x.key),
            x.title,
            x.status.as_str(),
            x.start_at.0,
            x.end_at.0,
            x.created_at.0,
            x.updated_at.0
        ])?;
        for (slot, ids) in r.snapshot_links[i].iter().enumerate() {
            for target in ids {
                link_stmts[slot].execute(params![id, target])?;
            }
        }
    }
    Ok(())
}

/// Opens the dataset read-only. Errors name the path and what to do.
pub fn open_read(db: &Path) -> anyhow::Result<Connection> {
    if !db.is_file() {
        return Err(anyhow!(
            "dataset {} does not exist; create it with `roost db init`",
            db.display()
        ));
    }
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("opening {}", db.display()))?;
    conn.execute_batch("PRAGMA query_only = ON; PRAGMA cache_size = -16000;")?;
    let version: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |row| row.get(0),
        )
        .with_context(|| format!("{} is not a roost dataset", db.display()))?;
    if version != SCHEMA_VERSION {
        return Err(anyhow!(
            "{} has schema version {version}, this roost reads {SCHEMA_VERSION}; re-import it",
            db.display()
        ));
    }
    Ok(conn)
}

/// `roost db check`: every integrity problem found, as sentences. Empty means healthy.
pub fn check(db: &Path) -> anyhow::Result<Vec<String>> {
    let conn = open_read(db)?;
    let mut problems = Vec::new();
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
    if integrity != "ok" {
        problems.push(format!("SQLite integrity check: {integrity}"));
    }
    let mut fk = conn.prepare("PRAGMA foreign_key_check")?;
    let rows = fk.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, Option<i64>>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    for row in rows {
        let (table, rowid, parent) = row?;
        problems.push(format!(
            "dangling reference: {table} row {} points to a missing {parent} record",
            rowid.map_or("?".to_string(), |r| r.to_string())
        ));
    }
    let leader_refs = "SELECT 'leader of ' || entity_kind || ' ' || entity_id FROM leaders \
         WHERE (entity_kind = 'chapter' AND entity_id NOT IN (SELECT id FROM chapters)) \
            OR (entity_kind = 'committee' AND entity_id NOT IN (SELECT id FROM committees)) \
            OR (entity_kind = 'project' AND entity_id NOT IN (SELECT id FROM projects))";
    for what in strings(&conn, leader_refs)? {
        problems.push(format!("dangling reference: {what} does not exist"));
    }
    let enums = [
        ("issues", "state", "('open','closed')"),
        ("milestones", "state", "('open','closed')"),
        (
            "projects",
            "level",
            "('flagship','production','incubator','lab','demo')",
        ),
        (
            "projects",
            "type",
            "('code','documentation','tool','other')",
        ),
        (
            "events",
            "category",
            "('appsec_days','global','partner','other')",
        ),
        (
            "sponsors",
            "sponsor_type",
            "('Diamond','Platinum','Gold','Silver','Supporter','Not a Sponsor')",
        ),
        ("sponsors", "member_type", "('Platinum','Gold','Silver','')"),
        (
            "snapshots",
            "status",
            "('completed','processing','pending','error')",
        ),
    ];
    for (table, column, allowed) in enums {
        let sql = format!(
            "SELECT id || ': ' || quote({column}) FROM {table} WHERE {column} NOT IN {allowed}"
        );
        for what in strings(&conn, &sql)? {
            problems.push(format!("bad enum value: {table} {column} of record {what}"));
        }
    }
    let keys = [
        ("organizations", "login_lc"),
        ("members", "login_lc"),
        ("labels", "name_lc"),
        ("chapters", "key_lc"),
        ("committees", "key_lc"),
        ("projects", "key_lc"),
        ("events", "key_lc"),
        ("sponsors", "key_lc"),
        ("snapshots", "key_lc"),
    ];
    for (table, column) in keys {
        let sql = format!("SELECT {column} FROM {table} GROUP BY {column} HAVING COUNT(*) > 1");
        for key in strings(&conn, &sql)? {
            problems.push(format!("duplicate key in {table}: '{key}'"));
        }
    }
    let sums = "SELECT p.key FROM projects p WHERE p.stars != \
        (SELECT COALESCE(SUM(r.stars_count), 0) FROM project_repositories pr \
         JOIN repositories r ON r.id = pr.repository_id WHERE pr.project_id = p.id) \
        OR p.forks != (SELECT COALESCE(SUM(r.forks_count), 0) FROM project_repositories pr \
         JOIN repositories r ON r.id = pr.repository_id WHERE pr.project_id = p.id)";
    for key in strings(&conn, sums)? {
        problems.push(format!(
            "project {key}: stored stars/forks differ from the sums over its repositories"
        ));
    }
    Ok(problems)
}

fn strings(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare(sql)?;
    let rows = st.query_map([], |r| r.get::<_, String>(0))?;
    rows.collect()
}
