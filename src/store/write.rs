//! Writing a validated dataset to SQLite, all or nothing.
//!
//! The new dataset is built in a temporary file beside the target and renamed over it
//! ([`atomic`]: the temporary file, the stale ones of killed imports).
//!
//! Rows are inserted table by table in the order of their references; a record's row
//! id is its position in its file + 1. A streaming build ([`streamed`]) then inserts the
//! records handed over, each after the rows of its table so far, and the snapshots
//! last, once the issues and releases they list are all in.
//!
//! Each record's writer lives with its kin, grouped like `crate::schema`: [`code`]
//! (repositories, contributors, labels, milestones, releases), [`issues`] (issues,
//! pull requests), [`community`] (organizations, members, chapters, committees,
//! projects and their lists, events, sponsors, snapshots, posts, health measurements,
//! boards, member snapshots, badges, the community row), [`mentorship`]. [`insert`]
//! calls them in the order of the tables' references.

use rusqlite::{Connection, Statement, ToSql};

mod atomic;
pub mod changelog;
mod code;
mod community;
mod issues;
mod mentorship;
mod streamed;

pub(super) use atomic::write_atomically;
pub(super) use community::insert_snapshots;
pub(super) use streamed::insert_more;

use super::validate::Resolved;
use super::StoreError;
use crate::records::{Dataset, Records};
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

/// A count as SQLite keeps it (an `i64`, saturated).
pub(super) fn n(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

/// The row id of the record at `index` of its file.
pub(super) fn id(index: usize) -> i64 {
    index as i64 + 1
}

/// `INSERT INTO table (columns) VALUES (?1, …)`: a row of a side table (a link, a
/// list item, a body) or of a table without a record of its own.
pub(super) fn insert_into<'c>(
    conn: &'c Connection,
    table: &str,
    columns: &[&str],
) -> Result<Statement<'c>, StoreError> {
    let slots: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO {table} ({}) VALUES ({})",
        columns.join(", "),
        slots.join(", ")
    );
    Ok(conn.prepare(&sql)?)
}

/// A table of the items an entity lists (leaders, related URLs, channels): each row
/// the entity's kind and id, the item's position, then the item's own columns.
pub(super) struct Listed<'c>(Statement<'c>);

impl<'c> Listed<'c> {
    pub(super) fn new(
        conn: &'c Connection,
        table: &str,
        columns: &[&str],
    ) -> Result<Listed<'c>, StoreError> {
        let mut all = vec!["entity_kind", "entity_id", "position"];
        all.extend(columns);
        Ok(Listed(insert_into(conn, table, &all)?))
    }

    /// The item at `pos` of the list of entity `(kind, id)`.
    pub(super) fn insert(
        &mut self,
        (kind, id): (&str, i64),
        pos: usize,
        values: &[&dyn ToSql],
    ) -> Result<(), StoreError> {
        let pos = pos as i64;
        let head: [&dyn ToSql; 3] = [&kind, &id, &pos];
        self.0
            .execute(rusqlite::params_from_iter(head.iter().chain(values)))?;
        Ok(())
    }
}

/// Runs `write` on every record of `records` with its index, in order, up to the
/// first error.
pub(super) fn each<R>(
    records: &Records<R>,
    mut write: impl FnMut(usize, &R) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    records
        .iter()
        .enumerate()
        .try_for_each(|(i, (_, x))| write(i, x))
}

/// Inserts the records of `R` whose only column besides their own is their id.
pub(super) fn insert_plain<R: StoredRecord>(
    conn: &Connection,
    records: &Records<R>,
) -> Result<(), StoreError> {
    let mut st = prepare::<R>(conn, &["id"])?;
    each(records, |i, x| execute(&mut st, &[&id(i)], x))
}

/// Inserts every record of a validated dataset but its snapshots (see
/// [`insert_snapshots`]), with the ids `r` resolved: tables before the tables that
/// refer to them, and the tables added for the frontend's pages after the others
/// (the side tables' row order stays the order it always was).
pub(super) fn insert(conn: &Connection, ds: &Dataset, r: &Resolved) -> Result<(), StoreError> {
    community::insert_accounts(conn, &ds.organizations)?;
    community::insert_accounts(conn, &ds.members)?;
    code::insert_repositories(conn, &ds.repositories, r)?;
    code::insert_contributors(conn, &ds.repository_contributors, r)?;
    code::insert_labels(conn, &ds.labels, r)?;
    issues::insert_issues(conn, &ds.issues, r)?;
    code::insert_owned(conn, &ds.milestones, &r.milestones)?;
    code::insert_owned(conn, &ds.releases, &r.releases)?;
    community::insert_groups(conn, ds, &r.community)?;
    insert_plain(conn, &ds.events)?;
    insert_plain(conn, &ds.sponsors)?;
    issues::insert_pull_requests(conn, &ds.pull_requests, r)?;
    community::insert_activity(conn, ds, &r.community)?;
    mentorship::insert(conn, ds, &r.mentorship)?;
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
