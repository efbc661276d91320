//! The change log of a dataset file: which rows changed since the file was built, so
//! a reader that remembers what it derived from the rows (`roost generate`'s digests
//! of every table and row, `crate::generate::input`) reads again only the rows that
//! changed instead of every row of every table.
//!
//! A build ([`super::write_atomically`]) ends by installing it: the table
//! [`LOG`], empty, and on every ordinary table three triggers that append the `rowid`
//! of each row inserted, updated (old and new `rowid`) or deleted, with a random
//! nonce (a table without rowids logs `NULL`: the table as a whole). Triggers are part
//! of the file, so an edit made with any SQLite client (the `sqlite3` shell included)
//! is logged like one made by roost. The file's `user_version` is set to a random
//! number at the build: with the log's last entry and its nonce it tells a reader
//! whether the file is still the one it read (a file rebuilt, replaced by a copy or
//! restored from an older copy and edited again has another identity or another
//! history).
//!
//! What is not logged: the tables of virtual tables (the full-text indexes' shadow
//! tables, written by SQLite itself, take no triggers), and a table whose triggers
//! were dropped or changed; [`state`] names only the tables whose triggers are intact,
//! and a reader reads the others whole. A schema change (a trigger dropped, a table
//! altered, `VACUUM`) moves `PRAGMA schema_version`, which a reader keys on too.

use rusqlite::{Connection, OptionalExtension};

/// The log's table.
pub const LOG: &str = "change_log";

const LOG_DDL: &str = "CREATE TABLE change_log (\n    \
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,\n    \
    tbl   TEXT NOT NULL,\n    \
    row   INTEGER,\n    \
    nonce BLOB NOT NULL\n)";

/// An ordinary table of the dataset: its name and whether it has rowids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub name: String,
    pub rowid: bool,
}

/// The ordinary tables of `conn`, by name: not SQLite's own, not virtual or shadow
/// tables, not the log.
pub fn tables(conn: &Connection) -> rusqlite::Result<Vec<Table>> {
    conn.prepare(
        "SELECT name, wr FROM pragma_table_list WHERE schema = 'main' AND type = 'table' \
         AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'change_log' ORDER BY name",
    )?
    .query_map([], |r| {
        Ok(Table {
            name: r.get(0)?,
            rowid: r.get::<_, i64>(1)? == 0,
        })
    })?
    .collect()
}

/// The three triggers of `table` (name, SQL as `sqlite_master` keeps it).
fn triggers(table: &Table) -> [(String, String); 3] {
    let ident = table.name.replace('"', "\"\"");
    let literal = table.name.replace('\'', "''");
    let row = |which: &str| {
        if table.rowid {
            format!("{which}.rowid")
        } else {
            "NULL".to_string()
        }
    };
    let log = |row: &str| {
        format!(
            "INSERT INTO change_log (tbl, row, nonce) VALUES ('{literal}', {row}, randomblob(8));"
        )
    };
    let make = |event: &str, body: String| {
        let name = format!("change_log_{}_{}", table.name, event.to_ascii_lowercase());
        let sql = format!(
            "CREATE TRIGGER \"{}\" AFTER {event} ON \"{ident}\" BEGIN {body} END",
            name.replace('"', "\"\"")
        );
        (name, sql)
    };
    let update = if table.rowid {
        format!(
            "{} INSERT INTO change_log (tbl, row, nonce) SELECT '{literal}', NEW.rowid, \
             randomblob(8) WHERE NEW.rowid IS NOT OLD.rowid;",
            log(&row("OLD"))
        )
    } else {
        log("NULL")
    };
    [
        make("INSERT", log(&row("NEW"))),
        make("UPDATE", update),
        make("DELETE", log(&row("OLD"))),
    ]
}

/// Installs the log on the dataset being built on `conn` (every ordinary table it
/// holds now), and gives the file a new random identity.
pub fn install(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(LOG_DDL)?;
    for table in tables(conn)? {
        for (_, sql) in triggers(&table) {
            conn.execute_batch(&sql)?;
        }
    }
    let identity: i64 = conn.query_row("SELECT random()", [], |r| r.get(0))?;
    // A 32-bit header field; zero is every file's default.
    let identity = (identity as i32).max(1);
    conn.execute_batch(&format!("PRAGMA user_version = {identity}"))
}

/// What a reader needs to know about the log of a dataset file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    /// The file's identity (`user_version`, set by the build).
    pub identity: i64,
    /// `PRAGMA schema_version`: moves with every schema change.
    pub schema_version: i64,
    /// The tables whose changes are logged (their triggers intact), by name.
    pub logged: Vec<String>,
    /// The log's last entry (its `seq` and nonce); `None` while it is empty.
    pub last: Option<(i64, Vec<u8>)>,
}

/// The state of the log of `conn`'s dataset; `None` when it has none (a file built
/// before the log, or with its log changed).
pub fn state(conn: &Connection) -> rusqlite::Result<Option<State>> {
    let log_sql: Option<String> = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'change_log'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if log_sql.as_deref() != Some(LOG_DDL) {
        return Ok(None);
    }
    let identity: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if identity == 0 {
        return Ok(None);
    }
    let schema_version: i64 = conn.query_row("PRAGMA schema_version", [], |r| r.get(0))?;
    let installed: std::collections::HashMap<String, String> = conn
        .prepare("SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'trigger'")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let logged = tables(conn)?
        .into_iter()
        .filter(|t| {
            triggers(t)
                .iter()
                .all(|(name, sql)| installed.get(name) == Some(sql))
        })
        .map(|t| t.name)
        .collect();
    let last = conn
        .query_row(
            "SELECT seq, nonce FROM change_log ORDER BY seq DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(Some(State {
        identity,
        schema_version,
        logged,
        last,
    }))
}

/// The nonce of the log's entry `seq`, if it has one.
pub fn nonce_at(conn: &Connection, seq: i64) -> rusqlite::Result<Option<Vec<u8>>> {
    conn.query_row("SELECT nonce FROM change_log WHERE seq = ?1", [seq], |r| {
        r.get(0)
    })
    .optional()
}

/// The entries after `seq` up to `last` included: the table and `rowid` of each
/// change (`None`: the table as a whole).
pub fn since(
    conn: &Connection,
    seq: i64,
    last: i64,
) -> rusqlite::Result<Vec<(String, Option<i64>)>> {
    conn.prepare("SELECT tbl, row FROM change_log WHERE seq > ?1 AND seq <= ?2 ORDER BY seq")?
        .query_map([seq, last], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dataset() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT);
             CREATE TABLE b (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
             INSERT INTO a VALUES (1, 'x'), (2, 'y');
             INSERT INTO b VALUES ('k', 'v');",
        )
        .unwrap();
        install(&conn).unwrap();
        conn
    }

    #[test]
    fn every_edit_is_logged_with_its_rows() {
        let conn = dataset();
        let first = state(&conn).unwrap().unwrap();
        assert_eq!(first.logged, ["a", "b"]);
        assert_eq!(first.last, None, "the build itself is not logged");
        assert_ne!(first.identity, 0);
        conn.execute_batch(
            "UPDATE a SET v = 'z' WHERE id = 2;
             UPDATE a SET id = 5 WHERE id = 1;
             INSERT INTO a VALUES (3, 'w');
             DELETE FROM a WHERE id = 3;
             UPDATE b SET v = 'w';",
        )
        .unwrap();
        let now = state(&conn).unwrap().unwrap();
        let (last, nonce) = now.last.clone().unwrap();
        assert_eq!(nonce_at(&conn, last).unwrap(), Some(nonce));
        let rows = |t: &str, r: Option<i64>| (t.to_string(), r);
        assert_eq!(
            since(&conn, 0, last).unwrap(),
            [
                rows("a", Some(2)),
                rows("a", Some(1)),
                rows("a", Some(5)),
                rows("a", Some(3)),
                rows("a", Some(3)),
                rows("b", None),
            ]
        );
        assert_eq!(since(&conn, last, last).unwrap(), []);
    }

    #[test]
    fn a_table_whose_triggers_changed_is_not_logged_and_the_schema_version_moves() {
        let conn = dataset();
        let before = state(&conn).unwrap().unwrap();
        conn.execute_batch("DROP TRIGGER change_log_a_update")
            .unwrap();
        let after = state(&conn).unwrap().unwrap();
        assert_eq!(after.logged, ["b"]);
        assert_ne!(after.schema_version, before.schema_version);
        conn.execute_batch("DROP TABLE change_log").unwrap();
        assert_eq!(state(&conn).unwrap(), None);
    }
}
