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

pub use public::{restrict_to, Exposure, HIDDEN_FIELDS};

/// How a column becomes a JSON value.
#[derive(Clone, Copy)]
enum Kind {
    /// Text (or NULL → `null`).
    Str,
    /// Integer (or NULL → `null`).
    Int,
    /// Integer 0/1.
    Bool,
    /// Real (or NULL → `null`).
    Real,
    /// Microseconds since the epoch (or NULL → `null`) → RFC 3339.
    Ts,
    /// JSON text (arrays of strings or objects built by the query).
    Json,
}

use Kind::*;

/// One interchange file: its name, the query giving one row per record in stable-id
/// order, and each column's field name and kind.
struct FileSpec {
    file: &'static str,
    sql: &'static str,
    fields: &'static [(&'static str, Kind)],
}

static FILES: &[FileSpec] = &[
    FileSpec {
        file: "organizations.jsonl",
        sql: "SELECT login, name, company, location, description, avatar_url, url, \
              followers_count, is_affiliated, created_at, updated_at \
              FROM organizations ORDER BY id",
        fields: &[
            ("login", Str),
            ("name", Str),
            ("company", Str),
            ("location", Str),
            ("description", Str),
            ("avatar_url", Str),
            ("url", Str),
            ("followers_count", Int),
            ("is_affiliated", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "members.jsonl",
        sql: "SELECT login, name, avatar_url, url, bio, company, location, title, \
              twitter_username, followers_count, following_count, \
              public_repositories_count, created_at, updated_at FROM members ORDER BY id",
        fields: &[
            ("login", Str),
            ("name", Str),
            ("avatar_url", Str),
            ("url", Str),
            ("bio", Str),
            ("company", Str),
            ("location", Str),
            ("title", Str),
            ("twitter_username", Str),
            ("followers_count", Int),
            ("following_count", Int),
            ("public_repositories_count", Int),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "repositories.jsonl",
        sql: "SELECT o.login, r.name, r.description, r.url, r.commits_count, \
              r.contributors_count, r.forks_count, r.open_issues_count, r.stars_count, \
              r.subscribers_count, r.is_archived, r.license, r.topics, r.languages, \
              r.pushed_at, r.created_at, r.updated_at \
              FROM repositories r JOIN organizations o ON o.id = r.organization_id \
              ORDER BY r.id",
        fields: &[
            ("organization", Str),
            ("name", Str),
            ("description", Str),
            ("url", Str),
            ("commits_count", Int),
            ("contributors_count", Int),
            ("forks_count", Int),
            ("open_issues_count", Int),
            ("stars_count", Int),
            ("subscribers_count", Int),
            ("is_archived", Bool),
            ("license", Str),
            ("topics", Json),
            ("languages", Json),
            ("pushed_at", Ts),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "repository_contributors.jsonl",
        sql: "SELECT o.login, r.name, m.login, c.contributions_count \
              FROM repository_contributors c \
              JOIN repositories r ON r.id = c.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              JOIN members m ON m.id = c.member_id ORDER BY c.rowid",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("member", Str),
            ("contributions_count", Int),
        ],
    },
    FileSpec {
        file: "labels.jsonl",
        sql: "SELECT name, color, description, created_at, updated_at FROM labels ORDER BY id",
        fields: &[
            ("name", Str),
            ("color", Str),
            ("description", Str),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "issues.jsonl",
        sql: "SELECT o.login, r.name, t.number, t.title, t.state, b.body, a.login, t.url, \
              (SELECT json_group_array(name) FROM (SELECT l.name AS name FROM issue_labels il \
                 JOIN labels l ON l.id = il.label_id WHERE il.issue_id = t.id \
                 ORDER BY il.position)), \
              t.created_at, t.updated_at, t.closed_at \
              FROM issues t JOIN issue_bodies b ON b.issue_id = t.id \
              JOIN repositories r ON r.id = t.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              LEFT JOIN members a ON a.id = t.author_id ORDER BY t.id",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("number", Int),
            ("title", Str),
            ("state", Str),
            ("body", Str),
            ("author", Str),
            ("url", Str),
            ("labels", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("closed_at", Ts),
        ],
    },
    FileSpec {
        file: "milestones.jsonl",
        sql: "SELECT o.login, r.name, t.number, t.title, t.state, t.body, a.login, t.url, \
              t.open_issues_count, t.closed_issues_count, t.due_on, t.created_at, \
              t.updated_at \
              FROM milestones t JOIN repositories r ON r.id = t.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              LEFT JOIN members a ON a.id = t.author_id ORDER BY t.id",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("number", Int),
            ("title", Str),
            ("state", Str),
            ("body", Str),
            ("author", Str),
            ("url", Str),
            ("open_issues_count", Int),
            ("closed_issues_count", Int),
            ("due_on", Ts),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "releases.jsonl",
        sql: "SELECT o.login, r.name, t.tag_name, t.name, t.description, a.login, t.url, \
              t.is_draft, t.is_pre_release, t.published_at, t.created_at \
              FROM releases t JOIN repositories r ON r.id = t.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              LEFT JOIN members a ON a.id = t.author_id ORDER BY t.id",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("tag_name", Str),
            ("name", Str),
            ("description", Str),
            ("author", Str),
            ("url", Str),
            ("is_draft", Bool),
            ("is_pre_release", Bool),
            ("published_at", Ts),
            ("created_at", Ts),
        ],
    },
    FileSpec {
        file: "chapters.jsonl",
        sql: "SELECT t.key, t.name, t.is_active, t.country, t.region, t.latitude, \
              t.longitude, t.summary, t.url, \
              (SELECT json_group_array(json_object('name', name, 'login', login)) FROM \
                 (SELECT l.name AS name, m.login AS login FROM leaders l \
                  LEFT JOIN members m ON m.id = l.member_id \
                  WHERE l.entity_kind = 'chapter' AND l.entity_id = t.id ORDER BY l.position)), \
              t.created_at, t.updated_at FROM chapters t ORDER BY t.id",
        fields: &[
            ("key", Str),
            ("name", Str),
            ("is_active", Bool),
            ("country", Str),
            ("region", Str),
            ("latitude", Real),
            ("longitude", Real),
            ("summary", Str),
            ("url", Str),
            ("leaders", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "committees.jsonl",
        sql: "SELECT t.key, t.name, t.is_active, t.description, t.summary, t.url, \
              (SELECT json_group_array(json_object('name', name, 'login', login)) FROM \
                 (SELECT l.name AS name, m.login AS login FROM leaders l \
                  LEFT JOIN members m ON m.id = l.member_id \
                  WHERE l.entity_kind = 'committee' AND l.entity_id = t.id \
                  ORDER BY l.position)), \
              t.created_at, t.updated_at FROM committees t ORDER BY t.id",
        fields: &[
            ("key", Str),
            ("name", Str),
            ("is_active", Bool),
            ("description", Str),
            ("summary", Str),
            ("url", Str),
            ("leaders", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "projects.jsonl",
        sql: "SELECT t.key, t.name, t.is_active, t.level, t.type, t.description, t.summary, \
              t.url, \
              (SELECT json_group_array(json_object('name', name, 'login', login)) FROM \
                 (SELECT l.name AS name, m.login AS login FROM leaders l \
                  LEFT JOIN members m ON m.id = l.member_id \
                  WHERE l.entity_kind = 'project' AND l.entity_id = t.id ORDER BY l.position)), \
              (SELECT json_group_array(json_object('organization', org, 'name', name)) FROM \
                 (SELECT o.login AS org, r.name AS name FROM project_repositories pr \
                  JOIN repositories r ON r.id = pr.repository_id \
                  JOIN organizations o ON o.id = r.organization_id \
                  WHERE pr.project_id = t.id ORDER BY pr.rowid)), \
              t.created_at, t.updated_at FROM projects t ORDER BY t.id",
        fields: &[
            ("key", Str),
            ("name", Str),
            ("is_active", Bool),
            ("level", Str),
            ("type", Str),
            ("description", Str),
            ("summary", Str),
            ("url", Str),
            ("leaders", Json),
            ("repositories", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "events.jsonl",
        sql: "SELECT key, name, category, start_date, end_date, latitude, longitude, url, \
              description, summary, suggested_location FROM events ORDER BY id",
        fields: &[
            ("key", Str),
            ("name", Str),
            ("category", Str),
            ("start_date", Str),
            ("end_date", Str),
            ("latitude", Real),
            ("longitude", Real),
            ("url", Str),
            ("description", Str),
            ("summary", Str),
            ("suggested_location", Str),
        ],
    },
    FileSpec {
        file: "sponsors.jsonl",
        sql: "SELECT key, name, sponsor_type, is_member, member_type, image_url, url, \
              job_url, description FROM sponsors ORDER BY id",
        fields: &[
            ("key", Str),
            ("name", Str),
            ("sponsor_type", Str),
            ("is_member", Bool),
            ("member_type", Str),
            ("image_url", Str),
            ("url", Str),
            ("job_url", Str),
            ("description", Str),
        ],
    },
    FileSpec {
        file: "snapshots.jsonl",
        sql: "SELECT t.key, t.title, t.status, t.start_at, t.end_at, t.created_at, \
              t.updated_at, \
              (SELECT json_group_array(key) FROM (SELECT c.key AS key FROM snapshot_chapters s \
                 JOIN chapters c ON c.id = s.chapter_id WHERE s.snapshot_id = t.id \
                 ORDER BY s.rowid)), \
              (SELECT json_group_array(key) FROM (SELECT p.key AS key FROM snapshot_projects s \
                 JOIN projects p ON p.id = s.project_id WHERE s.snapshot_id = t.id \
                 ORDER BY s.rowid)), \
              (SELECT json_group_array(login) FROM (SELECT m.login AS login \
                 FROM snapshot_members s JOIN members m ON m.id = s.member_id \
                 WHERE s.snapshot_id = t.id ORDER BY s.rowid)), \
              (SELECT json_group_array(json_object('organization', org, 'repository', repo, \
                 'number', number)) FROM (SELECT o.login AS org, r.name AS repo, \
                 i.number AS number FROM snapshot_issues s JOIN issues i ON i.id = s.issue_id \
                 JOIN repositories r ON r.id = i.repository_id \
                 JOIN organizations o ON o.id = r.organization_id \
                 WHERE s.snapshot_id = t.id ORDER BY s.rowid)), \
              (SELECT json_group_array(json_object('organization', org, 'repository', repo, \
                 'tag_name', tag)) FROM (SELECT o.login AS org, r.name AS repo, \
                 x.tag_name AS tag FROM snapshot_releases s \
                 JOIN releases x ON x.id = s.release_id \
                 JOIN repositories r ON r.id = x.repository_id \
                 JOIN organizations o ON o.id = r.organization_id \
                 WHERE s.snapshot_id = t.id ORDER BY s.rowid)) \
              FROM snapshots t ORDER BY t.id",
        fields: &[
            ("key", Str),
            ("title", Str),
            ("status", Str),
            ("start_at", Ts),
            ("end_at", Ts),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("new_chapters", Json),
            ("new_projects", Json),
            ("new_members", Json),
            ("new_issues", Json),
            ("new_releases", Json),
        ],
    },
];

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
    for spec in FILES {
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
    let mut stmt = conn.prepare(spec.sql).map_err(sql_err)?;
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
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".to_string());
    fs::create_dir_all(&parent).map_err(io_err(&parent))?;
    let pid = std::process::id();
    let tmp = parent.join(format!(".{name}.tmp-{pid}"));
    remove_stale(&parent, &name);
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir(&tmp).map_err(io_err(&tmp))?;
    let written = (|| {
        let counts = export_with(
            conn,
            |file| fs::File::create(tmp.join(file)).map(BufWriter::new),
            |_, mut w| {
                w.flush()?;
                w.get_ref().sync_all()
            },
        )?;
        if occupied {
            let old = parent.join(format!(".{name}.old-{pid}"));
            fs::rename(dir, &old).map_err(io_err(dir))?;
            fs::rename(&tmp, dir).map_err(io_err(dir))?;
            let _ = fs::remove_dir_all(&old);
        } else {
            if dir.exists() {
                fs::remove_dir(dir).map_err(io_err(dir))?;
            }
            fs::rename(&tmp, dir).map_err(io_err(dir))?;
        }
        Ok(counts)
    })();
    if written.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    written
}

/// Removes the temporary folders of exports to `name` whose process is gone.
fn remove_stale(parent: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let pid = [".tmp-", ".old-"].iter().find_map(|marker| {
            file.strip_prefix(&format!(".{name}{marker}"))
                .and_then(|p| p.parse::<u32>().ok())
        });
        if let Some(pid) = pid {
            if !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
}
