//! Answers: running a list page or a detail against SQLite, the list envelope and
//! pagination, and every record of a detail resource at once.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use crate::store::FileId;
use rusqlite::types::Value;
use rusqlite::Connection;

use super::query::{order_sql, ListQuery};
use super::spec::{DetailSpec, IdRule, ListSpec, PAGE_SIZE};

/// Why a list or detail has no 200 answer.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("Page {page} not found. Valid pages are 1 to {total_pages}.")]
    PageNotFound { page: u64, total_pages: u64 },
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error(transparent)]
    Db(#[from] rusqlite::Error),
}

pub fn total_pages(total: u64, page_size: u64) -> u64 {
    total.div_ceil(page_size).max(1)
}

/// Writes a list envelope around already-serialised items.
pub fn render_page<'a>(
    items: impl IntoIterator<Item = &'a [u8]>,
    page: u64,
    page_size: u64,
    total: u64,
) -> Vec<u8> {
    let pages = total_pages(total, page_size);
    let mut out = Vec::with_capacity(256);
    let _ = write!(
        VecWriter(&mut out),
        "{{\"current_page\":{page},\"has_next\":{},\"has_previous\":{},\"items\":[",
        page < pages,
        page > 1
    );
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    let _ = write!(
        VecWriter(&mut out),
        "],\"total_count\":{total},\"total_pages\":{pages}}}"
    );
    out
}

struct VecWriter<'a>(&'a mut Vec<u8>);
impl std::fmt::Write for VecWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// The id of a completed snapshot by canonical key.
pub fn snapshot_id(conn: &Connection, key: &str) -> rusqlite::Result<Option<i64>> {
    let mut st = conn.prepare_cached("SELECT t.id FROM api_snapshots t WHERE t.key_lc = ?1")?;
    let mut rows = st.query([key])?;
    Ok(match rows.next()? {
        Some(row) => Some(row.get(0)?),
        None => None,
    })
}

/// Canonical keys of completed snapshots (the scopes of the snapshot sub-lists).
pub fn snapshot_keys(conn: &Connection) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut st = conn.prepare("SELECT t.id, t.key_lc FROM api_snapshots t ORDER BY t.id")?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// The `WHERE` clause of a list's statement over `snapshot`'s members (a snapshot
/// sub-list) and `query`'s filters, with its arguments. A statement narrowed to a few
/// ids (`few`) asks each row whether the snapshot holds it (one index look-up) rather
/// than gathering the snapshot's members first (tens of thousands at `10x`).
pub(super) fn where_clause(
    spec: &ListSpec,
    snapshot: Option<i64>,
    query: &ListQuery,
    today: &str,
    few: bool,
) -> (String, Vec<Value>) {
    let mut sql = String::from("WHERE 1");
    let mut args = Vec::new();
    if let (Some(link), Some(id)) = (&spec.snapshot_link, snapshot) {
        let _ = if few {
            write!(
                sql,
                " AND EXISTS (SELECT 1 FROM {} s WHERE s.snapshot_id = ? AND s.{} = t.id)",
                link.table, link.column
            )
        } else {
            write!(
                sql,
                " AND t.id IN (SELECT {} FROM {} WHERE snapshot_id = ?)",
                link.column, link.table
            )
        };
        args.push(Value::Integer(id));
    }
    query.conditions(spec, today, &mut sql, &mut args);
    (sql, args)
}

/// Whether `sql` names a column of the table aliased `alias` (`alias.` not preceded
/// by a letter, digit or `_`).
fn mentions(sql: &str, alias: &str) -> bool {
    let pattern = format!("{alias}.");
    sql.match_indices(&pattern).any(|(at, _)| {
        sql[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
    })
}

/// The tables of a list's `from` that a statement over `used` (its conditions,
/// order and columns) needs: the record's own table, and each join whose alias `used`
/// mentions or that a needed join goes through. A list's joins are inner joins on the
/// joined table's `id` to a reference every row has (an issue's repository, a
/// repository's organization: the import refuses a dangling one), so a join that no
/// part of the statement reads neither filters nor repeats rows, and leaving it out
/// keeps the answer and spares the planner a path through the joined tables. Anything
/// else in `from` keeps it whole.
pub(super) fn needed_from(from: &str, used: &str) -> String {
    let mut parts = from.split(" JOIN ");
    let Some(base) = parts.next() else {
        return from.to_string();
    };
    let mut joins: Vec<(&str, &str)> = Vec::new();
    for join in parts {
        let mut words = join.split_whitespace();
        let (_table, alias, on) = (words.next(), words.next(), words.next());
        let prunable = on == Some("ON")
            && alias.is_some_and(|a| join.contains(&format!(" ON {a}.id = ")))
            && !base.contains(" LEFT")
            && !join.contains(" LEFT")
            && !join.contains(" CROSS");
        match alias {
            Some(alias) if prunable => joins.push((alias, join)),
            _ => return from.to_string(),
        }
    }
    let mut needed = vec![false; joins.len()];
    for k in (0..joins.len()).rev() {
        let alias = joins[k].0;
        needed[k] = mentions(used, alias)
            || (k + 1..joins.len()).any(|later| needed[later] && mentions(joins[later].1, alias));
    }
    let mut out = base.to_string();
    for (k, (_, join)) in joins.iter().enumerate() {
        if needed[k] {
            out.push_str(" JOIN ");
            out.push_str(join);
        }
    }
    out
}

/// Counts of list scopes already answered, per dataset file: a client paging through
/// a list asks for the same count on every page, and a count is the one part of a
/// page whose cost grows with the scope (an index range), not with the page.
/// Process-wide, bounded ([`COUNTS_KEPT`], emptied when full). Keyed by the dataset
/// file, the count's statement and its arguments ([`args_key`]).
type Counts = HashMap<(FileId, Arc<str>, String), u64>;
static COUNTS: Mutex<Option<Counts>> = Mutex::new(None);
const COUNTS_KEPT: usize = 4096;

/// The two statements of a list page of one shape: the count of its scope and the
/// page itself. Their text depends only on the list, the conditions' SQL, the
/// ordering and `is_upcoming`, not on the values bound, so it is made once per shape
/// ([`statements`]) rather than per request.
struct Statements {
    count: Arc<str>,
    page: String,
}

/// Statement texts by (list, ordering, upcoming, conditions' SQL); bounded like the
/// counts.
type ShapeKey = (usize, Option<(usize, bool)>, bool, String);
static SHAPES: Mutex<Option<HashMap<ShapeKey, Arc<Statements>>>> = Mutex::new(None);
const SHAPES_KEPT: usize = 1024;

/// The statements of a page of `spec` whose conditions are `cond`.
fn statements(spec: &ListSpec, query: &ListQuery, cond: String) -> Arc<Statements> {
    let upcoming = query.upcoming(spec);
    let key: ShapeKey = (
        spec as *const ListSpec as usize,
        query.ordering.map(|o| (o.field, o.desc)),
        upcoming,
        cond,
    );
    if let Some(found) = SHAPES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|shapes| shapes.get(&key))
    {
        return Arc::clone(found);
    }
    let cond = &key.3;
    let count = format!(
        "SELECT COUNT(*) FROM {} {cond}",
        needed_from(spec.from, cond)
    );
    // The page's ids first, from the tables the conditions and the order need (an
    // index walk, or a sort of keys and ids), then the columns of those rows only.
    let order = order_sql(spec, query.ordering, upcoming);
    let page_from = needed_from(spec.from, &format!("{cond} {order}"));
    let from = needed_from(spec.from, &format!("{} {order}", spec.item.columns));
    let page = format!(
        "SELECT {} FROM {from} WHERE t.id IN \
         (SELECT t.id FROM {page_from} {cond} ORDER BY {order} LIMIT ? OFFSET ?) \
         ORDER BY {order}",
        spec.item.columns
    );
    let made = Arc::new(Statements {
        count: count.into(),
        page,
    });
    let mut shapes = SHAPES.lock().unwrap_or_else(PoisonError::into_inner);
    let shapes = shapes.get_or_insert_with(HashMap::new);
    if shapes.len() >= SHAPES_KEPT {
        shapes.clear();
    }
    shapes.insert(key, Arc::clone(&made));
    made
}

/// The values bound to a statement as one unambiguous text (each value tagged with
/// its type, text with its length).
fn args_key(args: &[Value]) -> String {
    let mut key = String::with_capacity(32);
    for arg in args {
        let _ = match arg {
            Value::Null => write!(key, "n;"),
            Value::Integer(i) => write!(key, "i{i};"),
            Value::Real(f) => write!(key, "r{:x};", f.to_bits()),
            Value::Text(t) => write!(key, "t{}:{t};", t.len()),
            Value::Blob(b) => write!(key, "b{}:{};", b.len(), hex::encode(b)),
        };
    }
    key
}

/// `SELECT COUNT(*)` of `statements` with `args`, remembered per dataset file.
fn count(
    conn: &Connection,
    dataset: Option<FileId>,
    statements: &Statements,
    args: &[Value],
) -> rusqlite::Result<u64> {
    let key = dataset.map(|file| (file, Arc::clone(&statements.count), args_key(args)));
    if let Some(key) = &key {
        let counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(total) = counts.as_ref().and_then(|c| c.get(key)) {
            return Ok(*total);
        }
    }
    let total: i64 = conn
        .prepare_cached(&statements.count)?
        .query_row(rusqlite::params_from_iter(args.iter()), |r| r.get(0))?;
    let total = total as u64;
    if let Some(key) = key {
        let mut counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
        let counts = counts.get_or_insert_with(HashMap::new);
        if counts.len() >= COUNTS_KEPT {
            counts.clear();
        }
        counts.insert(key, total);
    }
    Ok(total)
}

/// Answers one list page live. `snapshot` is the canonical snapshot key of a
/// sub-list; `today` is the request's UTC date (`YYYY-MM-DD`).
pub fn list_page(
    conn: &Connection,
    spec: &ListSpec,
    snapshot: Option<&str>,
    query: &ListQuery,
    today: &str,
) -> Result<Vec<u8>, AnswerError> {
    list_page_of(
        conn,
        FileId::of_connection(conn),
        spec,
        snapshot,
        query,
        today,
    )
}

/// [`list_page`] on a connection to the dataset file `dataset` (known to the caller:
/// the counts it remembers are that file's).
pub fn list_page_of(
    conn: &Connection,
    dataset: Option<FileId>,
    spec: &ListSpec,
    snapshot: Option<&str>,
    query: &ListQuery,
    today: &str,
) -> Result<Vec<u8>, AnswerError> {
    let snapshot_id = match snapshot {
        Some(key) => Some(snapshot_id(conn, key)?.ok_or(AnswerError::NotFound("Snapshot"))?),
        None => None,
    };
    let (cond, mut args) = where_clause(spec, snapshot_id, query, today, false);
    let statements = statements(spec, query, cond);
    let total = count(conn, dataset, &statements, &args)?;
    let pages = total_pages(total, query.page_size);
    if query.page > pages {
        return Err(AnswerError::PageNotFound {
            page: query.page,
            total_pages: pages,
        });
    }
    args.push(Value::Integer(query.page_size as i64));
    args.push(Value::Integer(((query.page - 1) * query.page_size) as i64));
    let mut st = conn.prepare_cached(&statements.page)?;
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    // The envelope as [`render_page`] writes it, the items straight into it.
    let mut out = Vec::with_capacity(256 + 512 * query.page_size.min(PAGE_SIZE) as usize);
    page_head(&mut out, query.page, pages);
    let mut first = true;
    while let Some(row) = rows.next()? {
        if !first {
            out.push(b',');
        }
        first = false;
        (spec.item.render_into)(conn, row, &mut out)?;
    }
    page_tail(&mut out, total, pages);
    Ok(out)
}

/// The start of a list envelope, up to its first item.
fn page_head(out: &mut Vec<u8>, page: u64, pages: u64) {
    let _ = write!(
        VecWriter(out),
        "{{\"current_page\":{page},\"has_next\":{},\"has_previous\":{},\"items\":[",
        page < pages,
        page > 1
    );
}

/// The end of a list envelope, after its last item.
fn page_tail(out: &mut Vec<u8>, total: u64, pages: u64) {
    let _ = write!(
        VecWriter(out),
        "],\"total_count\":{total},\"total_pages\":{pages}}}"
    );
}

/// Answers one detail live from canonical ids.
pub fn detail(
    conn: &Connection,
    spec: &DetailSpec,
    ids: &[String],
) -> Result<Vec<u8>, AnswerError> {
    let sql = format!(
        "SELECT {} FROM {} WHERE {}",
        spec.body.columns, spec.from, spec.lookup
    );
    let args: Vec<Value> = spec
        .ids
        .iter()
        .zip(ids)
        .map(|(rule, id)| match rule {
            IdRule::Number => Value::Integer(id.parse().unwrap_or(-1)),
            _ => Value::Text(id.clone()),
        })
        .collect();
    let mut st = conn.prepare_cached(&sql)?;
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    match rows.next()? {
        Some(row) => Ok((spec.body.render)(conn, row)?),
        None => Err(AnswerError::NotFound(spec.singular)),
    }
}

/// The API root body.
pub fn root(docs_url: &str) -> Vec<u8> {
    // A `Value` prints as compact JSON; printing it cannot fail.
    serde_json::json!({
        "message": "Welcome to the API v0",
        "docs_url": docs_url,
    })
    .to_string()
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FROM: &str = "issues t JOIN repositories r ON r.id = t.repository_id \
         JOIN organizations o ON o.id = r.organization_id";

    #[test]
    fn a_page_written_in_place_is_the_envelope_render_page_writes() {
        for (page, page_size, total) in
            [(1, 7, 0), (1, 7, 7), (2, 7, 20), (3, 7, 20), (1, 100, 250)]
        {
            let items: Vec<Vec<u8>> = (0..page_size.min(total))
                .map(|i| format!("{{\"n\":{i}}}").into_bytes())
                .collect();
            let pages = total_pages(total, page_size);
            let mut out = Vec::new();
            page_head(&mut out, page, pages);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(item);
            }
            page_tail(&mut out, total, pages);
            let expected = render_page(items.iter().map(|i| i.as_slice()), page, page_size, total);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                String::from_utf8(expected).unwrap()
            );
        }
    }

    #[test]
    fn bound_values_of_different_types_or_lengths_never_share_a_key() {
        let keys = [
            args_key(&[Value::Text("1".into())]),
            args_key(&[Value::Integer(1)]),
            args_key(&[Value::Real(1.0)]),
            args_key(&[Value::Text("a;t1:b".into())]),
            args_key(&[Value::Text("a".into()), Value::Text("b".into())]),
            args_key(&[]),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn joins_nothing_reads_are_left_out() {
        assert_eq!(needed_from(FROM, "WHERE 1 AND t.state = ?"), "issues t");
        assert_eq!(
            needed_from(FROM, "WHERE 1 AND r.name_lc = ?"),
            "issues t JOIN repositories r ON r.id = t.repository_id"
        );
        // The organization is reached through the repository.
        assert_eq!(needed_from(FROM, "WHERE o.login_lc = ?"), FROM);
        assert_eq!(needed_from(FROM, "t.title, o.login WHERE 1"), FROM);
        // `o.` inside another word is not the alias.
        assert_eq!(
            needed_from(FROM, "WHERE t.info.x = 1 AND foo.x"),
            "issues t"
        );
        // Anything but a plain join on the joined table's id stays whole.
        let left = "issues t LEFT JOIN members m ON m.id = t.author_id";
        assert_eq!(needed_from(left, "WHERE 1"), left);
        let other = "a t JOIN b x ON x.a_id = t.id";
        assert_eq!(needed_from(other, "WHERE 1"), other);
    }
}
