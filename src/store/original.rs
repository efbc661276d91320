//! `roost db import postgresql://…`: the dataset read straight from the original
//! service's PostgreSQL database. Where each field comes from is declared beside the
//! records (`crate::schema::original`); this module runs those declarations:
//!
//! 1. connect (the URL, `PGPASSWORD`, `PGPASSFILE` and `~/.pgpass` as `psql` reads them)
//!    and open one `REPEATABLE READ, READ ONLY` transaction, so a database the original
//!    keeps writing to is read as one snapshot;
//! 2. check that every table and column the declarations read exists, refusing the
//!    database before reading any row, naming each one (`owasp_chapters.region: no
//!    such column`); tables the original's public dump leaves out (its badges) are
//!    optional, and their records left empty;
//! 3. count the rows each kind leaves out, by reason, and the links it cannot keep;
//! 4. read each kind's rows in order as interchange lines, parsed by the same strict
//!    deserialisers as a folder's files, errors naming the table, the row's primary key
//!    and the field with its column;
//! 5. hand the records to the same build as a folder import (the whole dataset
//!    checked, written all or nothing, the refusal to empty a kind).
//!
//! The password is never shown: the URL is printed without it ([`shown`]).

use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::Path;

use futures_util::TryStreamExt;
use serde::de::DeserializeOwned;
use sqlx::{Connection, PgConnection, Row};

use super::read::{describe_json_error, KEPT_PER_FILE};
use super::{import_dataset_keeping, AllowEmpty, Counts, Derive, ImportErrors, StoreError};
use crate::records::{Dataset, Origin, Records};
use crate::schema::original::Source;

/// Whether an import source is a PostgreSQL URL rather than a folder.
pub fn is_url(source: &str) -> bool {
    source.starts_with("postgres://") || source.starts_with("postgresql://")
}

/// The URL as it may be printed: without a password, in the user part or in a
/// `password=` parameter.
pub fn shown(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (authority_end, _) = rest
        .char_indices()
        .find(|(_, c)| matches!(c, '/' | '?'))
        .unwrap_or((rest.len(), '/'));
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(name, _)| name);
            format!("{user}@{host}")
        }
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => p.to_string(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// Rows or links an import left out, by reason: `skipped 3 releases: no tag name`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// What was left out: a kind (`releases`) or links (`project repository links`).
    pub what: String,
    pub count: u64,
    pub reason: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "skipped {} {}: {}",
            super::thousands(self.count),
            self.what.replace('_', " "),
            self.reason
        )
    }
}

/// What an import from the original's database did.
#[derive(Debug, Clone)]
pub struct Imported {
    pub counts: Counts,
    pub skipped: Vec<Skipped>,
    /// Optional tables the database does not have, whose records are left empty.
    pub absent: Vec<&'static str>,
}

/// Reads the original's database at `url` and builds the dataset `db` from it, as
/// [`super::import_dir_keeping`] does from a folder.
pub fn import_original(
    url: &str,
    db: &Path,
    allow_empty: &AllowEmpty,
    derive: Derive,
) -> Result<Imported, StoreError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (ds, skipped, absent) = runtime.block_on(read(url))?;
    let counts = import_dataset_keeping(&ds, db, allow_empty, derive)?;
    Ok(Imported {
        counts,
        skipped,
        absent,
    })
}

/// A failure talking to the database, with the URL as it may be shown.
fn db_error(url: &str) -> impl Fn(sqlx::Error) -> StoreError + '_ {
    move |e| StoreError::Original {
        url: shown(url),
        source: Box::new(e),
    }
}

type Read = (Dataset, Vec<Skipped>, Vec<&'static str>);

async fn read(url: &str) -> Result<Read, StoreError> {
    let fail = db_error(url);
    let options: sqlx::postgres::PgConnectOptions = url.parse().map_err(&fail)?;
    let mut conn = PgConnection::connect_with(&options).await.map_err(&fail)?;
    // Timestamps are rendered in the session's time zone: UTC, whatever the server's.
    sqlx::raw_sql("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL TIME ZONE 'UTC'")
        .execute(&mut conn)
        .await
        .map_err(&fail)?;
    let columns = columns(&mut conn).await.map_err(&fail)?;
    let present = |table: &str| columns.contains_key(table);
    let missing = missing(&columns);
    if !missing.is_empty() {
        return Err(ImportErrors(missing, 0).into());
    }
    let absent: Vec<&'static str> = SOURCES
        .iter()
        .flat_map(|s| {
            s.optional
                .into_iter()
                .chain(s.fields.iter().filter_map(|f| f.optional))
        })
        .filter(|t| !present(t))
        .fold(Vec::new(), |mut out, t| {
            if !out.contains(&t) {
                out.push(t);
            }
            out
        });
    let mut reader = Reader {
        conn: &mut conn,
        present: &present,
        errors: Vec::new(),
        omitted: 0,
        skipped: Vec::new(),
        bar: progress_bar(),
    };
    let ds = read_all(&mut reader).await.map_err(&fail)?;
    let Reader {
        errors,
        omitted,
        skipped,
        bar,
        ..
    } = reader;
    bar.finish_and_clear();
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut conn)
        .await
        .map_err(&fail)?;
    conn.close().await.map_err(&fail)?;
    if !errors.is_empty() || omitted > 0 {
        return Err(ImportErrors(errors, omitted).into());
    }
    Ok((ds, skipped, absent))
}

/// Every column of every table on the search path, by table.
async fn columns(conn: &mut PgConnection) -> sqlx::Result<HashMap<String, HashSet<String>>> {
    let rows = sqlx::query(
        "SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c \
         WHERE c.table_schema = ANY (current_schemas(false))",
    )
    .fetch_all(conn)
    .await?;
    let mut out: HashMap<String, HashSet<String>> = HashMap::new();
    for row in rows {
        out.entry(row.try_get(0)?)
            .or_default()
            .insert(row.try_get(1)?);
    }
    Ok(out)
}

/// The tables and columns the sources read that the database lacks, in the order the
/// sources name them (optional tables aside).
fn missing(columns: &HashMap<String, HashSet<String>>) -> Vec<String> {
    let present = |t: &str| columns.contains_key(t);
    let mut out: Vec<String> = Vec::new();
    for source in SOURCES.iter().chain([&COMMUNITY]) {
        if source.optional.is_some_and(|t| !present(t)) {
            continue;
        }
        for (table, column) in source.reads(present) {
            let problem = match (columns.get(&table), column) {
                (None, _) => format!("{table}: no such table"),
                (Some(have), Some(column)) if !have.contains(&column) => {
                    format!("{table}.{column}: no such column")
                }
                _ => continue,
            };
            if !out.contains(&problem) {
                out.push(problem);
            }
        }
    }
    out
}

fn progress_bar() -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// The reading of the sources, with what it found wrong and left out.
struct Reader<'a> {
    conn: &'a mut PgConnection,
    present: &'a dyn Fn(&str) -> bool,
    errors: Vec<String>,
    omitted: usize,
    skipped: Vec<Skipped>,
    bar: indicatif::ProgressBar,
}

impl Reader<'_> {
    /// The records of `source`, in order; rows that do not parse are errors.
    async fn read<T: DeserializeOwned>(&mut self, source: &Source) -> sqlx::Result<Records<T>> {
        if source.optional.is_some_and(|t| !(self.present)(t)) {
            return Ok(Vec::new());
        }
        self.count_left_out(source).await?;
        let sql = source.query(self.present);
        let mut rows = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch(&mut *self.conn);
        let mut out = Vec::new();
        let (mut seen, mut seen_errors) = (0usize, 0);
        while let Some(row) = rows.try_next().await? {
            seen += 1;
            let id: i64 = row.try_get(0)?;
            let text: &str = row.try_get(1)?;
            let origin = Origin {
                file: source.table,
                line: usize::try_from(id).unwrap_or(0),
            };
            match serde_json::from_str::<T>(text) {
                Ok(record) => out.push((origin, record)),
                Err(e) => {
                    seen_errors += 1;
                    if seen_errors <= KEPT_PER_FILE {
                        self.errors.push(field_error(source, &origin, text, &e));
                    } else {
                        self.omitted += 1;
                    }
                }
            }
            if seen % 4096 == 0 {
                self.bar
                    .set_message(format!("{}: {seen} rows", source.table));
            }
        }
        Ok(out)
    }

    /// The rows `source` skips and the links it drops, by reason.
    async fn count_left_out(&mut self, source: &Source) -> sqlx::Result<()> {
        if let Some(sql) = source.skipped_query() {
            let row = sqlx::query(sqlx::AssertSqlSafe(sql))
                .fetch_one(&mut *self.conn)
                .await?;
            for (i, skip) in source.skips.iter().enumerate() {
                let count: i64 = row.try_get(i)?;
                self.note(source.kind, count, skip.reason);
            }
        }
        for dropped in source.dropped {
            let count: i64 = sqlx::query_scalar(dropped.count)
                .fetch_one(&mut *self.conn)
                .await?;
            self.note(dropped.what, count, dropped.reason);
        }
        Ok(())
    }

    fn note(&mut self, what: &str, count: i64, reason: &str) {
        if count > 0 {
            self.skipped.push(Skipped {
                what: what.to_string(),
                count: count as u64,
                reason: reason.to_string(),
            });
        }
    }
}

/// A row that does not make a valid record: `github_issues id 42: state
/// (github_issues.state): unknown variant …`, naming the field the parser stopped in.
fn field_error(source: &Source, origin: &Origin, text: &str, e: &serde_json::Error) -> String {
    let message = describe_json_error(e);
    let message = match message.rfind(" (column ") {
        Some(at) => &message[..at],
        None => &message,
    };
    let field =
        key_at(text, e.column()).and_then(|key| source.fields.iter().find(|f| f.name == key));
    match field {
        Some(field) => format!(
            "{origin}: {} ({}): {message}",
            field.name,
            source.describe(field)
        ),
        None => format!("{origin}: {message}"),
    }
}

/// The top-level key of the JSON object `text` whose value holds byte `column`
/// (1-based), as the parser reports an error's position.
fn key_at(text: &str, column: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let end = column.min(bytes.len());
    let (mut depth, mut i, mut last) = (0usize, 0usize, None);
    while i < end {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let close = i.min(bytes.len());
                if depth == 1 && text.get(close + 1..)?.trim_start().starts_with(':') {
                    last = text.get(start..close);
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    last
}

/// The source of one kind, if the original holds it.
fn source_of(kind: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|s| s.kind == kind)
}

macro_rules! read_kinds {
    ($($field:ident: $ty:ty),* $(,)?) => {
        async fn read_all(r: &mut Reader<'_>) -> sqlx::Result<Dataset> {
            use crate::records::*;
            let mut ds = Dataset::default();
            $(
                if let Some(source) = source_of(stringify!($field)) {
                    ds.$field = r.read::<$ty>(source).await?;
                }
            )*
            ds.community = r
                .read::<Community>(&COMMUNITY)
                .await?
                .into_iter()
                .next()
                .map(|(_, c)| c)
                .unwrap_or_default();
            Ok(ds)
        }
    };
}
crate::with_kinds!(read_kinds);

/// Every kind the original holds, in the order of `crate::records::KINDS` (mentorship
/// programs and modules are kept in tables the original's public dump leaves out, and
/// are not read).
pub const SOURCES: &[Source] = &[
    crate::schema::community::original::ORGANIZATIONS,
    crate::schema::community::original::MEMBERS,
    crate::schema::code::original::REPOSITORIES,
    crate::schema::code::original::REPOSITORY_CONTRIBUTORS,
    crate::schema::code::original::LABELS,
    crate::schema::issues::original::ISSUES,
    crate::schema::code::original::MILESTONES,
    crate::schema::code::original::RELEASES,
    crate::schema::community::original::CHAPTERS,
    crate::schema::community::original::COMMITTEES,
    crate::schema::community::original::PROJECTS,
    crate::schema::community::original::EVENTS,
    crate::schema::community::original::SPONSORS,
    crate::schema::community::original::SNAPSHOTS,
    crate::schema::issues::original::PULL_REQUESTS,
    crate::schema::community::original::POSTS,
    crate::schema::community::original::PROJECT_HEALTH_METRICS,
    crate::schema::community::original::BADGES,
    crate::schema::community::original::BOARDS,
    crate::schema::community::original::MEMBER_SNAPSHOTS,
];

/// `community.json`'s one record.
pub use crate::schema::community::original::COMMUNITY;

/// The map as docs/data.md shows it: per kind, its table, the rows it leaves out,
/// and each field with where it comes from (a test keeps the document equal to this).
pub fn markdown() -> String {
    let mut out = String::new();
    use crate::schema::original::Origin;
    for source in SOURCES.iter().chain([&COMMUNITY]) {
        let file = if source.kind == "community" {
            "community.json".to_string()
        } else {
            format!("{}.jsonl", source.kind)
        };
        out.push_str(&format!("#### {file} ← `{}`\n\n", source.table));
        if let Some(table) = source.optional {
            out.push_str(&format!(
                "Read only when the database has `{table}` (the public dump leaves it out).\n\n"
            ));
        }
        for skip in source.skips {
            out.push_str(&format!("- rows left out, counted: {}\n", skip.reason));
        }
        for dropped in source.dropped {
            out.push_str(&format!(
                "- {} left out, counted: {}\n",
                dropped.what, dropped.reason
            ));
        }
        if !source.skips.is_empty() || !source.dropped.is_empty() {
            out.push('\n');
        }
        out.push_str("| field | from |\n|---|---|\n");
        for field in source.fields {
            let from = match field.origin {
                Origin::Column(_) => format!("`{}`", source.describe(field)),
                Origin::Derived { doc, .. } => doc.to_string(),
                Origin::NotHeld(doc) => format!("— (not held; roost shows {doc})"),
            };
            let from = match field.optional {
                Some(table) => format!("{from} (when `{table}` exists, else `[]`)"),
                None => from,
            };
            out.push_str(&format!(
                "| `{}` | {} |\n",
                field.name,
                from.replace('|', "\\|")
            ));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod map_tests {
    use super::*;
    use crate::schema::original::Origin;
    use crate::schema::StoredRecord;

    /// Each source declares every field of its record, in the format's order, once.
    #[test]
    fn every_field_of_every_record_has_an_origin_in_order() {
        macro_rules! fields_of {
            ($($field:ident: $ty:ty),* $(,)?) => {
                fn fields_of(kind: &str) -> Option<Vec<&'static str>> {
                    use crate::records::*;
                    $(
                        if kind == stringify!($field) {
                            return Some(
                                <$ty as StoredRecord>::FIELDS
                                    .iter()
                                    .map(|(name, _)| if *name == "kind" { "type" } else { *name })
                                    .collect(),
                            );
                        }
                    )*
                    None
                }
            };
        }
        crate::with_kinds!(fields_of);
        for source in SOURCES {
            let declared: Vec<&str> = source.fields.iter().map(|f| f.name).collect();
            assert_eq!(
                Some(declared),
                fields_of(source.kind),
                "{}: fields and their order",
                source.kind
            );
        }
        let kinds: Vec<&str> = SOURCES.iter().map(|s| s.kind).collect();
        let expected: Vec<&str> = crate::records::KINDS
            .iter()
            .copied()
            .filter(|k| !matches!(*k, "programs" | "modules"))
            .collect();
        assert_eq!(kinds, expected);
    }

    /// Every column a source names is of a table its aliases declare.
    #[test]
    fn every_column_names_a_declared_alias() {
        for source in SOURCES.iter().chain([&COMMUNITY]) {
            for field in source.fields {
                if let Origin::Column(c) = field.origin {
                    assert!(
                        source.column(c).is_some(),
                        "{}.{}: {c} names no alias of the source",
                        source.kind,
                        field.name
                    );
                }
            }
        }
    }

    #[test]
    fn docs_data_md_shows_the_map_as_declared() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/data.md"))
            .expect("docs/data.md");
        let begin = "<!-- original map: begin -->\n";
        let end = "<!-- original map: end -->";
        let start = doc
            .find(begin)
            .expect("docs/data.md has the original map's markers");
        let stop = doc.find(end).expect("the map's end marker");
        if std::env::var_os("ROOST_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/data.md");
            let text = format!(
                "{}{}{}",
                &doc[..start + begin.len()],
                markdown(),
                &doc[stop..]
            );
            std::fs::write(path, text).expect("writing docs/data.md");
            return;
        }
        assert_eq!(
            &doc[start + begin.len()..stop],
            markdown(),
            "docs/data.md's map differs from the declarations; paste \
             `roost::store::original::markdown()` between the markers (ROOST_BLESS=1 \
             cargo test --lib docs_data_md does)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_never_shown() {
        assert_eq!(
            shown("postgresql://nest:s3cret@db.example:5432/nest?sslmode=require"),
            "postgresql://nest@db.example:5432/nest?sslmode=require"
        );
        assert_eq!(
            shown("postgres://127.0.0.1/nest?user=nest&password=s3cret"),
            "postgres://127.0.0.1/nest?user=nest&password=***"
        );
        assert_eq!(
            shown("postgresql://nest@127.0.0.1:5432/nest"),
            "postgresql://nest@127.0.0.1:5432/nest"
        );
        assert_eq!(shown("postgresql://a:b@h"), "postgresql://a@h");
    }

    #[test]
    fn an_error_names_the_key_it_stopped_in() {
        let text = r#"{"login" : "a", "state" : "reopened", "labels" : ["x", "y"]}"#;
        let at = text.find("reopened").unwrap() + 9;
        assert_eq!(key_at(text, at), Some("state"));
        let at = text.find("\"y\"").unwrap() + 2;
        assert_eq!(key_at(text, at), Some("labels"));
        assert_eq!(key_at(text, 1), None);
    }

    #[test]
    fn only_postgres_urls_are_urls() {
        assert!(is_url("postgresql://u@127.0.0.1:5432/nest"));
        assert!(is_url("postgres://u@h/db"));
        assert!(!is_url("data/sample"));
        assert!(!is_url("./postgresql:"));
    }
}
