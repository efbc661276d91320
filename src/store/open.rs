//! Opening a dataset for reading: read-only, `query_only`, and refused unless its
//! schema version is the one this roost reads; and what tells one dataset file from
//! the next ([`FileId`]).

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::{StoreError, SCHEMA_VERSION};

/// Opens the dataset read-only. Errors name the path and what to do.
pub fn open_read(db: &Path) -> Result<Connection, StoreError> {
    if !db.is_file() {
        return Err(StoreError::Missing(db.to_path_buf()));
    }
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|source| StoreError::Open {
        path: db.to_path_buf(),
        source,
    })?;
    conn.execute_batch("PRAGMA query_only = ON; PRAGMA cache_size = -16000;")?;
    let version: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |row| row.get(0),
        )
        .map_err(|source| StoreError::NotADataset {
            path: db.to_path_buf(),
            source,
        })?;
    if version != SCHEMA_VERSION {
        return Err(StoreError::SchemaVersion {
            path: db.to_path_buf(),
            found: version,
        });
    }
    Ok(conn)
}

/// Opens the dataset read-only for answering the API: [`open_read`], with the
/// exposure guard as the connection's authorizer, so that no statement it prepares
/// reads a ruled table except through its view (`crate::schema::exposure`).
pub fn open_api(db: &Path) -> Result<Connection, StoreError> {
    let mut conn = open_read(db)?;
    crate::schema::exposure::install_guard(&mut conn)?;
    Ok(conn)
}

/// What identifies one dataset file: device, inode, size and modification time. A
/// dataset is never changed in place (every roost command that writes one renames a
/// new file over it), so a replacement changes at least one field and the same
/// identity means the same rows. Everything kept per dataset (the read pool's
/// connections, live answers, list counts, GraphQL's contribution totals) is keyed
/// by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
}

impl FileId {
    /// The identity of the file at `path` now.
    pub fn of(path: &Path) -> std::io::Result<FileId> {
        use std::os::unix::fs::MetadataExt as _;
        let m = std::fs::metadata(path)?;
        Ok(FileId {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        })
    }

    /// The identity of the file `conn` was opened on, as it is now; `None` for an
    /// in-memory database or a file that cannot be read.
    pub fn of_connection(conn: &Connection) -> Option<FileId> {
        let path = conn.path().filter(|p| !p.is_empty())?;
        FileId::of(Path::new(path)).ok()
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::exposure::{install_guard, RULES};

    fn dataset() -> rusqlite::Connection {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        crate::store::create_schema(&conn).unwrap();
        conn
    }

    #[test]
    fn every_rule_has_its_view_and_reads_its_own_table() {
        let conn = dataset();
        for rule in RULES {
            let sql: String = conn
                .query_row(
                    "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?1",
                    [rule.view],
                    |r| r.get(0),
                )
                .unwrap_or_else(|e| panic!("{}: {e}", rule.view));
            assert!(sql.contains(&format!("FROM {} WHERE", rule.table)), "{sql}");
        }
    }

    #[test]
    fn a_guarded_reader_reads_the_views_and_is_refused_the_tables() {
        let mut conn = dataset();
        install_guard(&mut conn).unwrap();
        for rule in RULES {
            let view = format!("SELECT * FROM {} t", rule.view);
            conn.prepare(&view)
                .unwrap_or_else(|e| panic!("{view}: {e}"));
            let table = format!("SELECT t.id FROM {} t", rule.table);
            let prepared = conn.prepare(&table).map(drop);
            if rule.sole_reader {
                let error = prepared.expect_err(&table).to_string();
                assert!(error.contains("prohibited"), "{table}: {error}");
            } else {
                prepared.unwrap_or_else(|e| panic!("{table}: {e}"));
            }
        }
        // A table without a rule, and a ruled one reached through another view's
        // subquery, are read as before.
        conn.prepare("SELECT m.id FROM api_modules m JOIN issues i ON i.id = m.id")
            .unwrap();
        // Through a view of another table, a ruled table is refused all the same.
        let error = conn
            .prepare("SELECT (SELECT MAX(c.name) FROM chapters c) FROM api_projects")
            .map(drop)
            .expect_err("a subquery on chapters")
            .to_string();
        assert!(error.contains("prohibited"), "{error}");
    }
}
