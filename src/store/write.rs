//! Writing a validated dataset to SQLite, all or nothing.
//!
//! The new dataset is built in a temporary file beside the target and renamed over it
//! ([`atomic`]: the temporary file, the stale ones of killed imports).
//!
//! Rows are inserted table by table in the order of their references; a record's row
//! id is its position in its file + 1. A streaming build ([`streamed`]) then inserts the
//! records handed over, each after the rows of its table so far, and the snapshots
//! last, once the issues and releases they list are all in.

use rusqlite::{params, Connection, Statement, ToSql};

mod atomic;
mod mentorship;
mod pages;
mod streamed;

pub(super) use atomic::write_atomically;

use super::validate::Resolved;
use super::StoreError;
use crate::records::{
    Channel, Chapter, Committee, Dataset, Event, Issue, Label, Leader, Member, Milestone,
    Organization, Project, Records, Release, Repository, RepositoryContributor, Snapshot, Sponsor,
};
use crate::schema::{insert_sql, StoredRecord};

/// Prepares the named `INSERT` of a record of `R` into its table: the columns `first`
/// (its id, resolved references, what is derived from more than one field), then the
/// record's own ([`StoredRecord::COLUMNS`]).
pub(super) fn prepare<'c, R: StoredRecord>(
    conn: &'c Connection,
    first: &[&str],
) -> Result<Statement<'c>, StoreError> {
    Ok(conn.prepare(&insert_sql::<R>(first))?)
}

/// Runs a statement of [`prepare`]: the values of `first`, then the record's columns.
pub(super) fn execute<R: StoredRecord>(
    st: &mut Statement,
    first: &[&dyn ToSql],
    record: &R,
) -> Result<(), StoreError> {
    let own = record.columns()?;
    st.execute(rusqlite::params_from_iter(
        first
            .iter()
            .copied()
            .chain(own.iter().map(|v| v as &dyn ToSql)),
    ))?;
    Ok(())
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
    insert_group::<Chapter>(conn, &ds.chapters, r, &mut leaders, &mut links)?;
    insert_group::<Committee>(conn, &ds.committees, r, &mut leaders, &mut links)?;
    insert_projects(conn, &ds.projects, r, &mut leaders, &mut links)?;
    insert_events(conn, &ds.events)?;
    insert_sponsors(conn, &ds.sponsors)?;
    pages::insert(conn, ds, r)?;
    mentorship::insert(conn, ds, &r.mentorship)?;
    Ok(())
}

fn insert_organizations(
    conn: &Connection,
    records: &Records<Organization>,
) -> Result<(), StoreError> {
    let mut st = prepare::<Organization>(conn, &["id", "url"])?;
    for (i, (_, o)) in records.iter().enumerate() {
        execute(&mut st, &[&id(i), &github_url(&o.url, &o.login)], o)?;
    }
    Ok(())
}

fn insert_members(conn: &Connection, records: &Records<Member>) -> Result<(), StoreError> {
    let mut st = prepare::<Member>(conn, &["id", "url"])?;
    for (i, (_, m)) in records.iter().enumerate() {
        execute(&mut st, &[&id(i), &github_url(&m.url, &m.login)], m)?;
    }
    Ok(())
}

fn insert_repositories(
    conn: &Connection,
    records: &Records<Repository>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = prepare::<Repository>(conn, &["id", "organization_id", "url"])?;
    for (i, (_, x)) in records.iter().enumerate() {
        let url = if x.url.is_empty() {
            format!("https://github.com/{}/{}", x.organization, x.name)
        } else {
            x.url.clone()
        };
        execute(&mut st, &[&id(i), &r.repo_org[i], &url], x)?;
    }
    Ok(())
}

/// The statement of `repository_contributors`.
struct Contributors<'c>(Statement<'c>);

impl<'c> Contributors<'c> {
    fn new(conn: &'c Connection) -> Result<Contributors<'c>, StoreError> {
        Ok(Contributors(prepare::<RepositoryContributor>(
            conn,
            &["repository_id", "member_id"],
        )?))
    }

    fn insert(
        &mut self,
        c: &RepositoryContributor,
        (repo, member): (i64, i64),
    ) -> Result<(), StoreError> {
        execute(&mut self.0, &[&repo, &member], c)
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
    let mut st = prepare::<Label>(conn, &["id", "repository_id"])?;
    for (i, (_, l)) in records.iter().enumerate() {
        execute(&mut st, &[&id(i), &r.label_repo[i]], l)?;
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
            row: prepare::<Issue>(
                conn,
                &["id", "repository_id", "organization_id", "author_id"],
            )?,
            body: conn.prepare("INSERT INTO issue_bodies (issue_id, body) VALUES (?1, ?2)")?,
            labels: conn.prepare(
                "INSERT INTO issue_labels (issue_id, label_id, position) VALUES (?1, ?2, ?3)",
            )?,
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
        execute(&mut self.row, &[&id, &repo, &org, &author], x)?;
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
        Ok(Milestones(prepare::<Milestone>(
            conn,
            &["id", "repository_id", "author_id"],
        )?))
    }

    fn insert(
        &mut self,
        id: i64,
        x: &Milestone,
        repo: i64,
        author: Option<i64>,
    ) -> Result<(), StoreError> {
        execute(&mut self.0, &[&id, &repo, &author], x)?;
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
        Ok(Releases(prepare::<Release>(
            conn,
            &["id", "repository_id", "author_id", "url"],
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
        execute(&mut self.0, &[&id, &repo, &author, &url], x)?;
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

/// The `leaders` table, shared by chapters, committees, projects and boards.
pub(super) struct Leaders<'c> {
    st: rusqlite::Statement<'c>,
}

impl<'c> Leaders<'c> {
    pub(super) fn new(conn: &'c Connection) -> Result<Leaders<'c>, StoreError> {
        Ok(Leaders {
            st: conn.prepare(
                "INSERT INTO leaders (entity_kind, entity_id, position, name, member_id, \
                 description, email) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?,
        })
    }

    /// The leaders of entity `id` of `kind`, in order, with their resolved members.
    pub(super) fn insert(
        &mut self,
        kind: &str,
        id: i64,
        leaders: &[Leader],
        members: &[Option<i64>],
    ) -> Result<(), StoreError> {
        for (pos, l) in leaders.iter().enumerate() {
            self.st.execute(params![
                kind,
                id,
                pos as i64,
                l.name,
                members[pos],
                l.description,
                l.email
            ])?;
        }
        Ok(())
    }
}

/// What a chapter or committee lists: leaders, related URLs, channels.
type GroupLists<'a> = (&'a [Leader], &'a [String], &'a [Channel]);

/// A group of people (a chapter, a committee): the record, its leaders, related URLs,
/// channels and repositories.
trait Group: StoredRecord {
    /// The `entity_kind` its leaders and links are kept under.
    const KIND: &'static str;
    fn lists(&self) -> GroupLists<'_>;
    /// The resolved members of each record's leaders, and its repositories.
    fn resolved(r: &Resolved) -> (&[Vec<Option<i64>>], &[Vec<i64>]);
}

macro_rules! group {
    ($ty:ty, $kind:literal, $leaders:ident, $repos:ident) => {
        impl Group for $ty {
            const KIND: &'static str = $kind;
            fn lists(&self) -> GroupLists<'_> {
                (&self.leaders, &self.related_urls, &self.channels)
            }
            fn resolved(r: &Resolved) -> (&[Vec<Option<i64>>], &[Vec<i64>]) {
                (&r.$leaders, &r.pages.$repos)
            }
        }
    };
}

group!(Chapter, "chapter", chapter_leaders, chapter_repos);
group!(Committee, "committee", committee_leaders, committee_repos);

fn insert_group<T: Group>(
    conn: &Connection,
    records: &Records<T>,
    r: &Resolved,
    leaders: &mut Leaders,
    links: &mut pages::Links,
) -> Result<(), StoreError> {
    let (who, repos) = T::resolved(r);
    let mut st = prepare::<T>(conn, &["id"])?;
    for (i, (_, x)) in records.iter().enumerate() {
        let id = id(i);
        execute(&mut st, &[&id], x)?;
        let (listed, urls, channels) = x.lists();
        leaders.insert(T::KIND, id, listed, &who[i])?;
        links.insert(T::KIND, id, urls, channels)?;
        links.repositories(T::KIND, id, &repos[i])?;
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
    let mut st = prepare::<Project>(conn, &["id", "level_rank", "type", "stars", "forks"])?;
    let mut st_link = conn
        .prepare("INSERT INTO project_repositories (project_id, repository_id) VALUES (?1, ?2)")?;
    for (i, (_, x)) in records.iter().enumerate() {
        let id = id(i);
        let (stars, forks) = r.project_stars_forks[i];
        let first: [&dyn ToSql; 5] = [&id, &x.level.rank(), &x.kind, &stars, &forks];
        execute(&mut st, &first, x)?;
        leaders.insert("project", id, &x.leaders, &r.project_leaders[i])?;
        links.insert("project", id, &x.related_urls, &x.channels)?;
        for repo in &r.project_repos[i] {
            st_link.execute(params![id, repo])?;
        }
    }
    Ok(())
}

fn insert_events(conn: &Connection, records: &Records<Event>) -> Result<(), StoreError> {
    let mut st = prepare::<Event>(conn, &["id"])?;
    for (i, (_, x)) in records.iter().enumerate() {
        execute(&mut st, &[&id(i)], x)?;
    }
    Ok(())
}

fn insert_sponsors(conn: &Connection, records: &Records<Sponsor>) -> Result<(), StoreError> {
    let mut st = prepare::<Sponsor>(conn, &["id"])?;
    for (i, (_, x)) in records.iter().enumerate() {
        execute(&mut st, &[&id(i)], x)?;
    }
    Ok(())
}

/// The link tables of a snapshot's new records, in the order of
/// [`Resolved::snapshot_links`].
const SNAPSHOT_LINK_TABLES: [(&str, &str); 5] = [
    ("snapshot_chapters", "chapter_id"),
    ("snapshot_projects", "project_id"),
    ("snapshot_members", "member_id"),
    ("snapshot_issues", "issue_id"),
    ("snapshot_releases", "release_id"),
];

/// Inserts the snapshots and the records each lists as new (`links`, in the order of
/// [`Resolved::snapshot_links`]).
pub(super) fn insert_snapshots(
    conn: &Connection,
    records: &Records<Snapshot>,
    links: &[[Vec<i64>; 5]],
) -> Result<(), StoreError> {
    let mut st = prepare::<Snapshot>(conn, &["id"])?;
    let mut link_stmts = SNAPSHOT_LINK_TABLES
        .iter()
        .map(|(t, column)| {
            conn.prepare(&format!(
                "INSERT INTO {t} (snapshot_id, {column}) VALUES (?1, ?2)"
            ))
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (i, (_, x)) in records.iter().enumerate() {
        let id = id(i);
        execute(&mut st, &[&id], x)?;
        for (slot, ids) in links[i].iter().enumerate() {
            for target in ids {
                link_stmts[slot].execute(params![id, target])?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use crate::records::*;
    use crate::schema::{Keep, Kind, StoredRecord};

    /// The declared type of every column of `table` in `data/schema.sql`.
    fn columns(conn: &Connection, table: &str) -> Vec<(String, String)> {
        let mut st = conn
            .prepare(&format!(
                "SELECT name, type FROM pragma_table_info('{table}')"
            ))
            .unwrap();
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.map(Result::unwrap).collect()
    }

    /// Every column a record's declaration names is in its table, with the SQL type of
    /// its kind, and a shadowed one has its `_lc` column: the DDL and the declarations
    /// cannot drift apart unnoticed.
    fn holds<R: StoredRecord>(conn: &Connection) {
        let table = columns(conn, R::TABLE);
        assert!(!table.is_empty(), "no table {}", R::TABLE);
        let type_of = |name: &str| {
            table
                .iter()
                .find(|(column, _)| column == name)
                .map(|(_, ty)| ty.as_str())
                .unwrap_or_else(|| panic!("{} has no column {name}", R::TABLE))
        };
        for &(name, keep) in R::FIELDS {
            let kind = match keep {
                Keep::Column(kind) => kind,
                Keep::Shadowed(kind) => {
                    assert_eq!(type_of(&format!("{name}_lc")), "TEXT", "{}", R::TABLE);
                    kind
                }
                Keep::Elsewhere => continue,
            };
            let expected = match kind {
                Kind::Str | Kind::Json => "TEXT",
                Kind::Int | Kind::Bool | Kind::Ts => "INTEGER",
                Kind::Real => "REAL",
            };
            assert_eq!(type_of(name), expected, "{}.{name}", R::TABLE);
        }
    }

    #[test]
    fn every_declared_column_is_in_the_schema_with_its_type() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(crate::store::SCHEMA).unwrap();
        holds::<Organization>(&conn);
        holds::<Member>(&conn);
        holds::<Repository>(&conn);
        holds::<RepositoryContributor>(&conn);
        holds::<Label>(&conn);
        holds::<Issue>(&conn);
        holds::<PullRequest>(&conn);
        holds::<Milestone>(&conn);
        holds::<Release>(&conn);
        holds::<Chapter>(&conn);
        holds::<Committee>(&conn);
        holds::<Project>(&conn);
        holds::<Event>(&conn);
        holds::<Sponsor>(&conn);
        holds::<Snapshot>(&conn);
        holds::<Post>(&conn);
        holds::<ProjectHealthMetrics>(&conn);
        holds::<Badge>(&conn);
        holds::<Program>(&conn);
        holds::<Module>(&conn);
    }
}
