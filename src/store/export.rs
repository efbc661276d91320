//! `roost db export`: the dataset back out in the interchange format
//! (docs/data.md), one JSON Lines file per record type, records in stable-id order, so
//! `import(export(db))` renders the same tree byte for byte.
//!
//! What is normalised (an import of the export reads the same records): every field
//! is written, optional ones with their stored value (`""`, `0`, `false`, `[]` or
//! `null`) instead of being omitted; fields come in the order of docs/data.md;
//! timestamps are written in UTC (`Z`) with six fraction digits only when the
//! fraction is not zero; an omitted `url` that import filled in is written as filled
//! in. Values computed at import (lower-case shadows, project stars and forks, level
//! ranks) are not written: import computes them again.
//!
//! `public` narrows an export to what the API exposes (`--public-only`).

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::Connection;
use serde_json::Value;

mod public;

pub use public::{restrict_to, HIDDEN_FIELDS, PERSONAL_FIELDS};

mod files;

use files::Kind::*;
use files::{FileSpec, Kind, FILES};

/// What went wrong while exporting.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("reading the dataset for {file}: {source}")]
    Sql {
        file: &'static str,
        source: rusqlite::Error,
    },
    #[error("{file}: column {field} holds {found}, not a {expected}")]
    Type {
        file: &'static str,
        field: &'static str,
        found: &'static str,
        expected: &'static str,
    },
    #[error("{file}: field {field}: {source}")]
    Json {
        file: &'static str,
        field: &'static str,
        source: serde_json::Error,
    },
    #[error("writing {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{0} is not empty; pass --force to replace what it holds")]
    NotEmpty(PathBuf),
}

/// The names of the files an export writes, in the order it writes them.
pub fn file_names() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|f| f.file)
}

/// Writes every interchange file of the dataset open on `conn`, each through the
/// writer `open(file name)` gives; returns the number of records per file.
pub fn export_with<W: Write>(
    conn: &Connection,
    mut open: impl FnMut(&'static str) -> io::Result<W>,
    mut finish: impl FnMut(&'static str, W) -> io::Result<()>,
) -> Result<Vec<(&'static str, usize)>, ExportError> {
    let mut counts = Vec::new();
    for spec in FILES.iter() {
        let io_err = |source| ExportError::Io {
            path: PathBuf::from(spec.file),
            source,
        };
        let mut out = open(spec.file).map_err(io_err)?;
        let n = write_file(conn, spec, &mut out)?;
        finish(spec.file, out).map_err(io_err)?;
        counts.push((spec.file, n));
    }
    Ok(counts)
}

/// The one statement that reads the interchange file `file` (one of [`file_names`]).
pub fn file_sql(file: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|f| f.file == file)
        .map(|f| f.sql.as_str())
}

/// Writes one interchange file (one of [`file_names`]) of the dataset open on `conn`
/// to `out`; returns the number of records. `None` for a name that is not one.
pub fn export_file(
    conn: &Connection,
    file: &str,
    out: &mut impl Write,
) -> Option<Result<usize, ExportError>> {
    let spec = FILES.iter().find(|f| f.file == file)?;
    Some(write_file(conn, spec, out))
}

fn write_file(
    conn: &Connection,
    spec: &FileSpec,
    out: &mut impl Write,
) -> Result<usize, ExportError> {
    let sql_err = |source| ExportError::Sql {
        file: spec.file,
        source,
    };
    let io_err = |source| ExportError::Io {
        path: PathBuf::from(spec.file),
        source,
    };
    let mut stmt = conn.prepare(&spec.sql).map_err(sql_err)?;
    let mut rows = stmt.query([]).map_err(sql_err)?;
    let mut n = 0;
    let mut line = Vec::with_capacity(4096);
    while let Some(row) = rows.next().map_err(sql_err)? {
        // Written field by field, in the documented order (a JSON map would sort).
        line.clear();
        line.push(b'{');
        for (i, (field, kind)) in spec.fields.iter().enumerate() {
            let value = to_json(spec.file, field, *kind, row.get_ref(i).map_err(sql_err)?)?;
            if i > 0 {
                line.push(b',');
            }
            serde_json::to_writer(&mut line, field)
                .and_then(|()| {
                    line.push(b':');
                    serde_json::to_writer(&mut line, &value)
                })
                .map_err(|source| ExportError::Json {
                    file: spec.file,
                    field,
                    source,
                })?;
        }
        line.push(b'}');
        line.push(b'\n');
        out.write_all(&line).map_err(io_err)?;
        n += 1;
    }
    Ok(n)
}

fn to_json(
    file: &'static str,
    field: &'static str,
    kind: Kind,
    value: ValueRef<'_>,
) -> Result<Value, ExportError> {
    let mismatch = |expected: &'static str| ExportError::Type {
        file,
        field,
        found: match value {
            ValueRef::Null => "NULL",
            ValueRef::Integer(_) => "an integer",
            ValueRef::Real(_) => "a real",
            ValueRef::Text(_) => "text",
            ValueRef::Blob(_) => "a blob",
        },
        expected,
    };
    Ok(match (kind, value) {
        (_, ValueRef::Null) => Value::Null,
        (Str, ValueRef::Text(t)) => Value::String(String::from_utf8_lossy(t).into_owned()),
        (Str, _) => return Err(mismatch("text")),
        (Int, ValueRef::Integer(i)) => Value::from(i),
        (Int, _) => return Err(mismatch("integer")),
        (Bool, ValueRef::Integer(i)) => Value::Bool(i != 0),
        (Bool, _) => return Err(mismatch("0/1 boolean")),
        (Real, ValueRef::Real(f)) => Value::from(f),
        (Real, ValueRef::Integer(i)) => Value::from(i as f64),
        (Real, _) => return Err(mismatch("real")),
        (Ts, ValueRef::Integer(us)) => Value::String(crate::records::Ts(us).format()),
        (Ts, _) => return Err(mismatch("timestamp")),
        (Json, ValueRef::Text(t)) => {
            serde_json::from_slice(t).map_err(|source| ExportError::Json {
                file,
                field,
                source,
            })?
        }
        (Json, _) => return Err(mismatch("JSON text")),
    })
}

/// `roost db export DIR`: the interchange files of the dataset on `conn` in `dir`,
/// written in a temporary folder beside it and moved into place when complete, so a
/// failed or killed export leaves `dir` as it was. A non-empty `dir` is replaced only
/// with `force`.
pub fn export_dir(
    conn: &Connection,
    dir: &Path,
    force: bool,
) -> Result<Vec<(&'static str, usize)>, ExportError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Io { path, source }
    };
    let occupied = match fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(io_err(dir)(e)),
    };
    if occupied && !force {
        return Err(ExportError::NotEmpty(dir.to_path_buf()));
    }
    let written = crate::atomic::replace_dir(
        dir,
        "export",
        Some("export::swapped"),
        |tmp| {
            let counts = export_with(
                conn,
                |file| {
                    crate::crash::point("export::file");
                    fs::File::create(tmp.join(file)).map(BufWriter::new)
                },
                |_, mut w| {
                    w.flush()?;
                    w.get_ref().sync_all()
                },
            )?;
            crate::crash::point("export::swap");
            Ok(counts)
        },
        |path, source| io_err(path)(source),
    );
    // An interchange file's error names it where it was going.
    written.map_err(|e| match e {
        ExportError::Io { path, source } if FILES.iter().any(|f| Path::new(f.file) == path) => {
            ExportError::Io {
                path: dir.join(path),
                source,
            }
        }
        other => other,
    })
}
