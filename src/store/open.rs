//! Opening a dataset for reading: read-only, `query_only`, and refused unless its
//! schema version is the one this roost reads.

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
