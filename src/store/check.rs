//! `roost db check`: the integrity report of a dataset file (SQLite's own check,
//! dangling references, enum values outside their vocabulary, duplicate natural keys,
//! project totals that differ from their repositories, identifiers that cannot go into a
//! URL).

use std::path::Path;

use rusqlite::Connection;

use super::validate::{url_text_problem, IdText};
use super::{open_read, StoreError};

/// `roost db check`: every integrity problem found, as sentences. Empty means healthy.
/// A dataset SQLite cannot read through (a damaged file: SQLite says it is corrupt) is
/// reported as a problem naming the file, after what was found before the damage; a
/// file that is no dataset at all (missing, not SQLite) is an error: the check could
/// not run.
pub fn check(db: &Path) -> Result<Vec<String>, StoreError> {
    let unreadable = |e: rusqlite::Error| {
        format!(
            "{}: SQLite cannot read the dataset through: {e}",
            db.display()
        )
    };
    let conn = match open_read(db) {
        Ok(conn) => conn,
        Err(StoreError::Sqlite(e))
            if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) =>
        {
            return Ok(vec![unreadable(e)]);
        }
        Err(e) => return Err(e),
    };
    let mut problems = Vec::new();
    if let Err(e) = check_on(&conn, &mut problems) {
        problems.push(unreadable(e));
    }
    Ok(problems)
}

// One check after another, in the order `db check` reports them; they share only
// the connection and the list of problems.
fn check_on(conn: &Connection, problems: &mut Vec<String>) -> rusqlite::Result<()> {
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
    for (table, what) in [
        ("leaders", "leader"),
        ("channels", "channel"),
        ("related_urls", "related URL"),
    ] {
        let refs = format!(
            "SELECT '{what} of ' || entity_kind || ' ' || entity_id FROM {table} \
             WHERE (entity_kind = 'chapter' AND entity_id NOT IN (SELECT id FROM chapters)) \
                OR (entity_kind = 'committee' AND entity_id NOT IN (SELECT id FROM committees)) \
                OR (entity_kind = 'project' AND entity_id NOT IN (SELECT id FROM projects))"
        );
        for what in strings(conn, &refs)? {
            problems.push(format!("dangling reference: {what} does not exist"));
        }
    }
    let community: i64 = conn.query_row("SELECT COUNT(*) FROM community", [], |r| r.get(0))?;
    if community != 1 {
        problems.push(format!(
            "the community table holds {community} rows instead of one"
        ));
    }
    for &(table, column, values) in crate::vocab::COLUMNS {
        let allowed = sql_list(values);
        let sql = format!(
            "SELECT id || ': ' || quote({column}) FROM {table} WHERE {column} NOT IN {allowed}"
        );
        for what in strings(conn, &sql)? {
            problems.push(format!("bad enum value: {table} {column} of record {what}"));
        }
    }
    let keys = [
        ("organizations", "login_lc"),
        ("members", "login_lc"),
        // Label names are unique per repository (0: the shared labels).
        ("labels", "coalesce(repository_id, 0) || ' ' || name_lc"),
        ("posts", "url_lc"),
        ("badges", "name_lc"),
        ("chapters", "key_lc"),
        ("committees", "key_lc"),
        ("projects", "key_lc"),
        ("events", "key_lc"),
        ("sponsors", "key_lc"),
        ("snapshots", "key_lc"),
        ("programs", "key_lc"),
        // Module keys are unique within their program.
        ("modules", "program_id || ' ' || key_lc"),
    ];
    for (table, column) in keys {
        let sql = format!("SELECT {column} FROM {table} GROUP BY 1 HAVING COUNT(*) > 1");
        for key in strings(conn, &sql)? {
            problems.push(format!("duplicate key in {table}: '{key}'"));
        }
    }
    problems.extend(identifier_problems(conn)?);
    let sums = "SELECT p.key FROM projects p WHERE p.stars != \
        (SELECT COALESCE(SUM(r.stars_count), 0) FROM project_repositories pr \
         JOIN repositories r ON r.id = pr.repository_id WHERE pr.project_id = p.id) \
        OR p.forks != (SELECT COALESCE(SUM(r.forks_count), 0) FROM project_repositories pr \
         JOIN repositories r ON r.id = pr.repository_id WHERE pr.project_id = p.id)";
    for key in strings(conn, sums)? {
        problems.push(format!(
            "project {key}: stored stars/forks differ from the sums over its repositories"
        ));
    }
    Ok(())
}

/// Keys, logins, repository names and tags that cannot go into a URL or a file name
/// faithfully (imported before `db import` refused them).
fn identifier_problems(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let columns = [
        ("organizations", "login", IdText::Segment),
        ("members", "login", IdText::Segment),
        ("repositories", "name", IdText::Segment),
        ("releases", "tag_name", IdText::Tag),
        ("chapters", "key", IdText::Segment),
        ("committees", "key", IdText::Segment),
        ("projects", "key", IdText::Segment),
        ("events", "key", IdText::Segment),
        ("sponsors", "key", IdText::Segment),
        ("programs", "key", IdText::Segment),
        ("modules", "key", IdText::Segment),
    ];
    let mut problems = Vec::new();
    for (table, column, kind) in columns {
        // Read as bytes: text with a NUL is cut short by SQLite's text functions.
        let mut st = conn.prepare(&format!(
            "SELECT id, CAST({column} AS BLOB) FROM {table} ORDER BY id"
        ))?;
        let mut rows = st.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let bytes: Vec<u8> = row.get::<_, Option<Vec<u8>>>(1)?.unwrap_or_default();
            let value = String::from_utf8_lossy(&bytes);
            if let Some(problem) = url_text_problem(&value, kind) {
                problems.push(format!(
                    "{table} record {id}: {column} '{}' {problem}; it cannot be requested by \
                     URL (docs/data.md)",
                    value.escape_debug()
                ));
            }
        }
    }
    Ok(problems)
}

fn strings(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare(sql)?;
    let rows = st.query_map([], |r| r.get::<_, String>(0))?;
    rows.collect()
}

/// `('a','b')`: `values` as an SQL list of string literals.
pub fn sql_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values
        .iter()
        .map(|v| format!("'{}'", v.replace('\'', "''")))
        .collect();
    format!("({})", quoted.join(","))
}
