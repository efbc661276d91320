//! Writing the community's records: organizations and members (with their default
//! URL), chapters, committees and projects with their leaders and [`links`], events,
//! sponsors, snapshots (with the records each lists as new), posts, project health
//! measurements, boards of directors (their candidates and members kept as leaders),
//! member snapshots, badges and the members' badges, and the one `community` row.

use rusqlite::{params, Connection, ToSql};

use super::{each, execute, id, insert_into, insert_plain, n, prepare, Listed, StoreError};
use crate::records::{
    Badge, Board, Chapter, Committee, Dataset, Leader, Member, MemberSnapshot, Organization, Post,
    Project, ProjectHealthMetrics, Records, Snapshot,
};
use crate::schema::StoredRecord;
use crate::store::validate::Community;

mod links;

use links::Links;

fn github_url(given: &str, login: &str) -> String {
    if given.is_empty() {
        format!("https://github.com/{login}")
    } else {
        given.to_string()
    }
}

/// An organization or a member: a GitHub account, its URL its profile's by default.
pub(super) trait Account: StoredRecord {
    fn url_and_login(&self) -> (&str, &str);
}

impl Account for Organization {
    fn url_and_login(&self) -> (&str, &str) {
        (&self.url, &self.login)
    }
}

impl Account for Member {
    fn url_and_login(&self) -> (&str, &str) {
        (&self.url, &self.login)
    }
}

/// Inserts the organizations or the members.
pub(super) fn insert_accounts<R: Account>(
    conn: &Connection,
    records: &Records<R>,
) -> Result<(), StoreError> {
    let mut st = prepare::<R>(conn, &["id", "url"])?;
    each(records, |i, x| {
        let (url, login) = x.url_and_login();
        execute(&mut st, &[&id(i), &github_url(url, login)], x)
    })
}

/// The `leaders` table, shared by chapters, committees, projects and boards.
struct Leaders<'c>(Listed<'c>);

impl<'c> Leaders<'c> {
    fn new(conn: &'c Connection) -> Result<Leaders<'c>, StoreError> {
        let columns = ["name", "member_id", "description", "email"];
        Ok(Leaders(Listed::new(conn, "leaders", &columns)?))
    }

    /// The leaders of entity `id` of `kind`, in order, with their resolved members.
    fn insert(
        &mut self,
        kind: &str,
        id: i64,
        leaders: &[Leader],
        members: &[Option<i64>],
    ) -> Result<(), StoreError> {
        for (pos, l) in leaders.iter().enumerate() {
            let values: [&dyn ToSql; 4] = [&l.name, &members[pos], &l.description, &l.email];
            self.0.insert((kind, id), pos, &values)?;
        }
        Ok(())
    }
}

/// A chapter, a committee or a project: its leaders, related URLs, channels and
/// repositories, and the columns it derives.
trait Group: StoredRecord {
    /// The `entity_kind` its leaders and links are kept under.
    const KIND: &'static str;
    /// The columns it derives, written after its id.
    const DERIVED: &'static [&'static str] = &[];
    fn leaders(&self) -> &[Leader];
    fn links(&self) -> (&[String], &[crate::records::Channel]);
    /// The resolved members of each record's leaders, and its repositories.
    fn resolved(r: &Community) -> (&[Vec<Option<i64>>], &[Vec<i64>]);
    /// The values of [`Group::DERIVED`] of the record at `index`.
    fn derived(&self, _index: usize, _r: &Community) -> Vec<Box<dyn ToSql>> {
        Vec::new()
    }
}

macro_rules! group {
    ($ty:ty, $kind:literal, $leaders:ident, $repos:ident) => {
        const KIND: &'static str = $kind;
        fn leaders(&self) -> &[Leader] {
            &self.leaders
        }
        fn links(&self) -> (&[String], &[crate::records::Channel]) {
            (&self.related_urls, &self.channels)
        }
        fn resolved(r: &Community) -> (&[Vec<Option<i64>>], &[Vec<i64>]) {
            (&r.$leaders, &r.$repos)
        }
    };
}

impl Group for Chapter {
    group!(Chapter, "chapter", chapter_leaders, chapter_repos);
}

impl Group for Committee {
    group!(Committee, "committee", committee_leaders, committee_repos);
}

impl Group for Project {
    group!(Project, "project", project_leaders, project_repos);
    const DERIVED: &'static [&'static str] = &["level_rank", "type", "stars", "forks"];
    fn derived(&self, index: usize, r: &Community) -> Vec<Box<dyn ToSql>> {
        let (stars, forks) = r.project_stars_forks[index];
        vec![
            Box::new(self.level.rank()),
            Box::new(self.kind),
            Box::new(stars),
            Box::new(forks),
        ]
    }
}

/// Inserts the chapters, committees and projects, each with its lists.
pub(super) fn insert_groups(
    conn: &Connection,
    ds: &Dataset,
    r: &Community,
) -> Result<(), StoreError> {
    let mut leaders = Leaders::new(conn)?;
    let mut links = Links::new(conn)?;
    insert_group(conn, &ds.chapters, r, &mut leaders, &mut links)?;
    insert_group(conn, &ds.committees, r, &mut leaders, &mut links)?;
    insert_group(conn, &ds.projects, r, &mut leaders, &mut links)
}

fn insert_group<T: Group>(
    conn: &Connection,
    records: &Records<T>,
    r: &Community,
    leaders: &mut Leaders,
    links: &mut Links,
) -> Result<(), StoreError> {
    let (who, repos) = T::resolved(r);
    let mut first = vec!["id"];
    first.extend(T::DERIVED);
    let mut st = prepare::<T>(conn, &first)?;
    for (i, (_, x)) in records.iter().enumerate() {
        let id = id(i);
        let derived = x.derived(i, r);
        let mut values: Vec<&dyn ToSql> = vec![&id];
        values.extend(derived.iter().map(|v| v.as_ref()));
        execute(&mut st, &values, x)?;
        leaders.insert(T::KIND, id, x.leaders(), &who[i])?;
        let (urls, channels) = x.links();
        links.insert(T::KIND, id, urls, channels)?;
        links.repositories(T::KIND, id, &repos[i])?;
    }
    Ok(())
}

/// Inserts the posts, health measurements, boards, member snapshots, badges, the
/// members' badges and the community row.
pub(super) fn insert_activity(
    conn: &Connection,
    ds: &Dataset,
    r: &Community,
) -> Result<(), StoreError> {
    insert_plain::<Post>(conn, &ds.posts)?;

    let mut st = prepare::<ProjectHealthMetrics>(conn, &["id", "project_id"])?;
    for (i, (_, x)) in ds.project_health_metrics.iter().enumerate() {
        execute(&mut st, &[&id(i), &r.health_project[i]], x)?;
    }

    let mut st = prepare::<Board>(conn, &["id"])?;
    let mut leaders = Leaders::new(conn)?;
    for (i, (_, x)) in ds.boards.iter().enumerate() {
        execute(&mut st, &[&id(i)], x)?;
        let candidates = &r.board_candidates[i];
        leaders.insert("board_candidate", id(i), &x.candidates, candidates)?;
        leaders.insert("board_member", id(i), &x.members, &r.board_members[i])?;
    }

    let mut st = prepare::<MemberSnapshot>(conn, &["id", "member_id"])?;
    for (i, (_, x)) in ds.member_snapshots.iter().enumerate() {
        execute(&mut st, &[&id(i), &r.snapshot_member[i]], x)?;
    }

    insert_plain::<Badge>(conn, &ds.badges)?;
    let mut st = insert_into(
        conn,
        "member_badges",
        &["member_id", "badge_id", "position"],
    )?;
    for (i, badges) in r.member_badges.iter().enumerate() {
        for (pos, badge) in badges.iter().enumerate() {
            st.execute(params![id(i), badge, pos as i64])?;
        }
    }

    let mut st = insert_into(conn, "community", &["slack_workspace_members"])?;
    st.execute([n(ds.community.slack_workspace_members)])?;
    Ok(())
}

/// The link tables of a snapshot's new records, in the order of
/// `Resolved::snapshot_links`.
const SNAPSHOT_LINK_TABLES: [(&str, &str); 5] = [
    ("snapshot_chapters", "chapter_id"),
    ("snapshot_projects", "project_id"),
    ("snapshot_members", "member_id"),
    ("snapshot_issues", "issue_id"),
    ("snapshot_releases", "release_id"),
];

/// Inserts the snapshots and the records each lists as new (`links`, in the order of
/// `Resolved::snapshot_links`).
pub(in crate::store) fn insert_snapshots(
    conn: &Connection,
    records: &Records<Snapshot>,
    links: &[[Vec<i64>; 5]],
) -> Result<(), StoreError> {
    let mut st = prepare::<Snapshot>(conn, &["id"])?;
    let mut link_stmts = SNAPSHOT_LINK_TABLES
        .iter()
        .map(|(t, column)| insert_into(conn, t, &["snapshot_id", column]))
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
