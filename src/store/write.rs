//! Writing a validated dataset to SQLite, all or nothing.
//!
//! The new dataset is built in a temporary file beside the target and renamed over it
//! ([`atomic`]: the temporary file, the stale ones of killed imports).
//!
//! Rows are inserted table by table in the order of their references; a record's row
//! id is its position in its file + 1. A streaming build ([`streamed`]) then inserts the
//! records handed over, each after the rows of its table so far, and the snapshots
//! last, once the issues and releases they list are all in.

use rusqlite::{params, Connection, Statement};

mod atomic;
mod pages;
mod streamed;

pub(super) use atomic::write_atomically;

use super::validate::Resolved;
use super::{lc, StoreError};
use crate::records::{
    Chapter, Committee, Dataset, Event, Issue, Label, Member, Milestone, Organization, Project,
    Records, Release, Repository, RepositoryContributor, Snapshot, Sponsor,
};

fn b(v: bool) -> i64 {
    v as i64
}

pub(super) fn n(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

fn github_url(given: &str, login: &str) -> String {
    if given.is_empty() {
        format!("https://github.com/{login}")
    } else {
        given.to_string()
    }
}

/// The row id of the record at `index` of its file.
pub(super) fn id(index: usize) -> i64 {
    index as i64 + 1
}

pub(super) use streamed::insert_more;

/// Inserts every record of a validated dataset but its snapshots (see
/// [`insert_snapshots`]), with the ids `r` resolved.
pub(super) fn insert(conn: &Connection, ds: &Dataset, r: &Resolved) -> Result<(), StoreError> {
    insert_organizations(conn, &ds.organizations)?;
    insert_members(conn, &ds.members)?;
    insert_repositories(conn, &ds.repositories, r)?;
    insert_contributors(conn, &ds.repository_contributors, r)?;
    insert_labels(conn, &ds.labels, r)?;
    insert_issues(conn, &ds.issues, r)?;
    insert_milestones(conn, &ds.milestones, r)?;
    insert_releases(conn, &ds.releases, r)?;
    let mut leaders = Leaders::new(conn)?;
    let mut links = pages::Links::new(conn)?;
    insert_chapters(conn, &ds.chapters, r, &mut leaders, &mut links)?;
    insert_committees(conn, &ds.committees, r, &mut leaders, &mut links)?;
    insert_projects(conn, &ds.projects, r, &mut leaders, &mut links)?;
    insert_events(conn, &ds.events)?;
    insert_sponsors(conn, &ds.sponsors)?;
    pages::insert(conn, ds, r)?;
    Ok(())
}

fn insert_organizations(
    conn: &Connection,
    records: &Records<Organization>,
) -> Result<(), StoreError> {
    let mut st = conn.prepare(
        "INSERT INTO organizations VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)",
    )?;
    for (i, (_, o)) in records.iter().enumerate() {
        st.execute(params![
            id(i),
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
            o.updated_at.0,
            n(o.collaborators_count),
            o.email
        ])?;
    }
    Ok(())
}

fn insert_members(conn: &Connection, records: &Records<Member>) -> Result<(), StoreError> {
    let mut st = conn.prepare(
        "INSERT INTO members VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)",
    )?;
    for (i, (_, m)) in records.iter().enumerate() {
        st.execute(params![
            id(i),
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
            m.updated_at.0,
            m.email
        ])?;
    }
    Ok(())
}

fn insert_repositories(
    conn: &Connection,
    records: &Records<Repository>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = conn.prepare(
        "INSERT INTO repositories (id, organization_id, name, name_lc, description, url, \
         commits_count, contributors_count, forks_count, open_issues_count, stars_count, \
         subscribers_count, is_archived, license, topics, languages, pushed_at, created_at, \
         updated_at, size) \
         VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)",
    )?;
    for (i, (_, x)) in records.iter().enumerate() {
        let url = if x.url.is_empty() {
            format!("https://github.com/{}/{}", x.organization, x.name)
        } else {
            x.url.clone()
        };
        st.execute(params![
            id(i),
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
            x.updated_at.0,
            x.size.map(n)
        ])?;
    }
    Ok(())
}

/// The statement of `repository_contributors`.
struct Contributors<'c>(Statement<'c>);

impl<'c> Contributors<'c> {
    fn new(conn: &'c Connection) -> Result<Contributors<'c>, StoreError> {
        Ok(Contributors(conn.prepare(
            "INSERT INTO repository_contributors VALUES (?1,?2,?3)",
        )?))
    }

    fn insert(
        &mut self,
        c: &RepositoryContributor,
        (repo, member): (i64, i64),
    ) -> Result<(), StoreError> {
        self.0
            .execute(params![repo, member, n(c.contributions_count)])?;
        Ok(())
    }
}

fn insert_contributors(
    conn: &Connection,
    records: &Records<RepositoryContributor>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = Contributors::new(conn)?;
    for (i, (_, c)) in records.iter().enumerate() {
        st.insert(c, r.contributors[i])?;
    }
    Ok(())
}

fn insert_labels(
    conn: &Connection,
    records: &Records<Label>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = conn.prepare("INSERT INTO labels VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)")?;
    for (i, (_, l)) in records.iter().enumerate() {
        st.execute(params![
            id(i),
            l.name,
            lc(&l.name),
            l.color.0,
            lc(&l.color.0),
            l.description,
            l.created_at.0,
            l.updated_at.0,
            r.label_repo[i]
        ])?;
    }
    Ok(())
}

/// The statements of an issue: its row, its body and its labels.
struct Issues<'c> {
    row: Statement<'c>,
    body: Statement<'c>,
    labels: Statement<'c>,
}

impl<'c> Issues<'c> {
    fn new(conn: &'c Connection) -> Result<Issues<'c>, StoreError> {
        Ok(Issues {
            row: conn.prepare("INSERT INTO issues VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)")?,
            body: conn.prepare("INSERT INTO issue_bodies VALUES (?1,?2)")?,
            labels: conn.prepare("INSERT INTO issue_labels VALUES (?1,?2,?3)")?,
        })
    }

    /// Issue `id` of repository `repo` (of organization `org`).
    fn insert(
        &mut self,
        id: i64,
        x: &Issue,
        (repo, org): (i64, i64),
        author: Option<i64>,
        labels: &[i64],
    ) -> Result<(), StoreError> {
        self.row.execute(params![
            id,
            repo,
            org,
            n(x.number),
            x.title,
            x.state.as_str(),
            author,
            x.url,
            x.created_at.0,
            x.updated_at.0,
            x.closed_at.map(|t| t.0)
        ])?;
        self.body.execute(params![id, x.body])?;
        for (pos, label) in labels.iter().enumerate() {
            self.labels.execute(params![id, label, pos as i64])?;
        }
        Ok(())
    }
}

fn insert_issues(
    conn: &Connection,
    records: &Records<Issue>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = Issues::new(conn)?;
    for (i, (_, x)) in records.iter().enumerate() {
        let repo = r.issues.repo[i];
        let org = r.repo_org[(repo - 1) as usize];
        st.insert(
            id(i),
            x,
            (repo, org),
            r.issues.author[i],
            &r.issue_labels[i],
        )?;
    }
    Ok(())
}

/// The statement of `milestones`.
struct Milestones<'c>(Statement<'c>);

impl<'c> Milestones<'c> {
    fn new(conn: &'c Connection) -> Result<Milestones<'c>, StoreError> {
        Ok(Milestones(conn.prepare(
            "INSERT INTO milestones VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)",
        )?))
    }

    fn insert(
        &mut self,
        id: i64,
        x: &Milestone,
        repo: i64,
        author: Option<i64>,
    ) -> Result<(), StoreError> {
        self.0.execute(params![
            id,
            repo,
            n(x.number),
            x.title,
            x.state.as_str(),
            x.body,
            author,
            x.url,
            n(x.open_issues_count),
            n(x.closed_issues_count),
            x.due_on.map(|t| t.0),
            x.created_at.0,
            x.updated_at.0
        ])?;
        Ok(())
    }
}

fn insert_milestones(
    conn: &Connection,
    records: &Records<Milestone>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = Milestones::new(conn)?;
    for (i, (_, x)) in records.iter().enumerate() {
        st.insert(id(i), x, r.milestones.repo[i], r.milestones.author[i])?;
    }
    Ok(())
}

/// The statement of `releases`.
struct Releases<'c>(Statement<'c>);

impl<'c> Releases<'c> {
    fn new(conn: &'c Connection) -> Result<Releases<'c>, StoreError> {
        Ok(Releases(conn.prepare(
            "INSERT INTO releases VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
        )?))
    }

    fn insert(
        &mut self,
        id: i64,
        x: &Release,
        repo: i64,
        author: Option<i64>,
    ) -> Result<(), StoreError> {
        let url = if x.url.is_empty() {
            format!(
                "https://github.com/{}/{}/releases/tag/{}",
                x.organization, x.repository, x.tag_name
            )
        } else {
            x.url.clone()
        };
        self.0.execute(params![
            id,
            repo,
            x.tag_name,
            x.name,
            x.description,
            author,
            url,
            b(x.is_draft),
            b(x.is_pre_release),
            x.published_at.map(|t| t.0),
            x.created_at.0
        ])?;
        Ok(())
    }
}

fn insert_releases(
    conn: &Connection,
    records: &Records<Release>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = Releases::new(conn)?;
    for (i, (_, x)) in records.iter().enumerate() {
        st.insert(id(i), x, r.releases.repo[i], r.releases.author[i])?;
    }
    Ok(())
}

/// The `leaders` table, shared by chapters, committees and projects.
struct Leaders<'c> {
    st: rusqlite::Statement<'c>,
}

impl<'c> Leaders<'c> {
    fn new(conn: &'c Connection) -> Result<Leaders<'c>, StoreError> {
        Ok(Leaders {
            st: conn.prepare("INSERT INTO leaders VALUES (?1,?2,?3,?4,?5,?6)")?,
        })
    }

    /// The leaders of entity `id` of `kind`, in order, with their resolved members.
    fn insert(
        &mut self,
        kind: &str,
        id: i64,
        leaders: &[crate::records::Leader],
        members: &[Option<i64>],
    ) -> Result<(), StoreError> {
        for (pos, l) in leaders.iter().enumerate() {
            self.st.execute(params![
                kind,
                id,
                pos as i64,
                l.name,
                members[pos],
                l.description
            ])?;
        }
        Ok(())
    }
}

fn insert_chapters(
    conn: &Connection,
    records: &Records<Chapter>,
    r: &Resolved,
    leaders: &mut Leaders,
    links: &mut pages::Links,
) -> Result<(), StoreError> {
    let mut st = conn.prepare(
        "INSERT INTO chapters VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)",
    )?;
    for (i, (_, x)) in records.iter().enumerate() {
        let id = id(i);
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
            x.updated_at.0,
            x.suggested_location
        ])?;
        leaders.insert("chapter", id, &x.leaders, &r.chapter_leaders[i])?;
        links.insert("chapter", id, &x.related_urls, &x.channels)?;
        links.repositories("chapter", id, &r.pages.chapter_repos[i])?;
    }
    Ok(())
}

fn insert_committees(
    conn: &Connection,
    records: &Records<Committee>,
    r: &Resolved,
    leaders: &mut Leaders,
    links: &mut pages::Links,
) -> Result<(), StoreError> {
    let mut st = conn.prepare("INSERT INTO committees VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)")?;
    for (i, (_, x)) in records.iter().enumerate() {
        let id = id(i);
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
        leaders.insert("committee", id, &x.leaders, &r.committee_leaders[i])?;
        links.insert("committee", id, &x.related_urls, &x.channels)?;
        links.repositories("committee", id, &r.pages.committee_repos[i])?;
    }
    Ok(())
}

fn insert_projects(
    conn: &Connection,
    records: &Records<Project>,
    r: &Resolved,
    leaders: &mut Leaders,
    links: &mut pages::Links,
) -> Result<(), StoreError> {
    let mut st = conn.prepare(
        "INSERT INTO projects VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)",
    )?;
    let mut st_link = conn.prepare("INSERT INTO project_repositories VALUES (?1,?2)")?;
    for (i, (_, x)) in records.iter().enumerate() {
        let id = id(i);
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
        leaders.insert("project", id, &x.leaders, &r.project_leaders[i])?;
        links.insert("project", id, &x.related_urls, &x.channels)?;
        for repo in &r.project_repos[i] {
            st_link.execute(params![id, repo])?;
        }
    }
    Ok(())
}

fn insert_events(conn: &Connection, records: &Records<Event>) -> Result<(), StoreError> {
    let mut st =
        conn.prepare("INSERT INTO events VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)")?;
    for (i, (_, x)) in records.iter().enumerate() {
        st.execute(params![
            id(i),
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
    Ok(())
}

fn insert_sponsors(conn: &Connection, records: &Records<Sponsor>) -> Result<(), StoreError> {
    let mut st =
        conn.prepare("INSERT INTO sponsors VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)")?;
    for (i, (_, x)) in records.iter().enumerate() {
        st.execute(params![
            id(i),
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
    Ok(())
}

/// The link tables of a snapshot's new records, in the order of
/// [`Resolved::snapshot_links`].
const SNAPSHOT_LINK_TABLES: [&str; 5] = [
    "snapshot_chapters",
    "snapshot_projects",
    "snapshot_members",
    "snapshot_issues",
    "snapshot_releases",
];

/// Inserts the snapshots and the records each lists as new (`links`, in the order of
/// [`Resolved::snapshot_links`]).
pub(super) fn insert_snapshots(
    conn: &Connection,
    records: &Records<Snapshot>,
    links: &[[Vec<i64>; 5]],
) -> Result<(), StoreError> {
    let mut st = conn.prepare("INSERT INTO snapshots VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)")?;
    let mut link_stmts = SNAPSHOT_LINK_TABLES
        .iter()
        .map(|t| conn.prepare(&format!("INSERT INTO {t} VALUES (?1, ?2)")))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, (_, x)) in records.iter().enumerate() {
        let id = id(i);
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
        for (slot, ids) in links[i].iter().enumerate() {
            for target in ids {
                link_stmts[slot].execute(params![id, target])?;
            }
        }
    }
    Ok(())
}
