//! Answers: running a list page or a detail against SQLite, the list envelope and
//! pagination, and every record of a detail resource at once.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};

use crate::store::FileId;
use rusqlite::types::Value;
use rusqlite::Connection;

use super::query::{order_sql, ListQuery};
use super::spec::{DetailSpec, IdRule, ListSpec};
use crate::schema::exposure::completed;

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
    let mut st = conn.prepare_cached(concat!(
        "SELECT t.id FROM snapshots t WHERE t.key_lc = ?1 AND ",
        completed!("t")
    ))?;
    let mut rows = st.query([key])?;
    Ok(match rows.next()? {
        Some(row) => Some(row.get(0)?),
        None => None,
    })
}

/// Canonical keys of completed snapshots (the scopes of the snapshot sub-lists).
pub fn snapshot_keys(conn: &Connection) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut st = conn.prepare(concat!(
        "SELECT t.id, t.key_lc FROM snapshots t WHERE ",
        completed!("t"),
        " ORDER BY t.id"
    ))?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

pub(super) fn where_clause(
    spec: &ListSpec,
    snapshot: Option<i64>,
    query: &ListQuery,
    today: &str,
) -> (String, Vec<Value>) {
    let mut sql = format!("WHERE {}", spec.base_where);
    let mut args = Vec::new();
    if let (Some(link), Some(id)) = (&spec.snapshot_link, snapshot) {
        let _ = write!(
            sql,
            " AND t.id IN (SELECT {} FROM {} WHERE snapshot_id = ?)",
            link.column, link.table
        );
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
/// Process-wide, bounded ([`COUNTS_KEPT`], emptied when full).
type Counts = HashMap<(FileId, String), u64>;
static COUNTS: Mutex<Option<Counts>> = Mutex::new(None);
const COUNTS_KEPT: usize = 4096;

/// `SELECT COUNT(*)` of `sql` with `args`, remembered per dataset file.
fn count(conn: &Connection, sql: &str, args: &[Value]) -> rusqlite::Result<u64> {
    let key = FileId::of_connection(conn).map(|file| (file, format!("{sql}\u{1f}{args:?}")));
    if let Some(key) = &key {
        let counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(total) = counts.as_ref().and_then(|c| c.get(key)) {
            return Ok(*total);
        }
    }
    let total: i64 = conn
        .prepare_cached(sql)?
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
    let snapshot_id = match snapshot {
        Some(key) => Some(snapshot_id(conn, key)?.ok_or(AnswerError::NotFound("Snapshot"))?),
        None => None,
    };
    let (cond, mut args) = where_clause(spec, snapshot_id, query, today);
    let count_sql = format!(
        "SELECT COUNT(*) FROM {} {cond}",
        needed_from(spec.from, &cond)
    );
    let total = count(conn, &count_sql, &args)?;
    let pages = total_pages(total, query.page_size);
    if query.page > pages {
        return Err(AnswerError::PageNotFound {
            page: query.page,
            total_pages: pages,
        });
    }
    // The page's ids first, from the tables the conditions and the order need (an
    // index walk, or a sort of keys and ids), then the columns of those rows only.
    let order = order_sql(spec, query.ordering, query.upcoming(spec));
    let page_from = needed_from(spec.from, &format!("{cond} {order}"));
    let from = needed_from(spec.from, &format!("{} {order}", spec.item.columns));
    let sql = format!(
        "SELECT {} FROM {from} WHERE t.id IN \
         (SELECT t.id FROM {page_from} {cond} ORDER BY {order} LIMIT ? OFFSET ?) \
         ORDER BY {order}",
        spec.item.columns
    );
    args.push(Value::Integer(query.page_size as i64));
    args.push(Value::Integer(((query.page - 1) * query.page_size) as i64));
    let mut st = conn.prepare_cached(&sql)?;
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    let mut items = Vec::new();
    while let Some(row) = rows.next()? {
        items.push((spec.item.render)(conn, row)?);
    }
    Ok(render_page(
        items.iter().map(|i| i.as_slice()),
        query.page,
        query.page_size,
        total,
    ))
}

/// Answers one detail live from canonical ids.
pub fn detail(
    conn: &Connection,
    spec: &DetailSpec,
    ids: &[String],
) -> Result<Vec<u8>, AnswerError> {
    let sql = format!(
        "SELECT {} FROM {} WHERE {} AND {}",
        spec.body.columns, spec.from, spec.base_where, spec.lookup
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

/// Every record of a detail, as (canonical ids, body): what a full generation writes.
pub fn all_details(
    conn: &Connection,
    spec: &DetailSpec,
    mut each: impl FnMut(Vec<String>, Vec<u8>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let sql = format!(
        "SELECT {}, {} FROM {} WHERE {} ORDER BY t.id",
        spec.body.columns,
        spec.id_exprs.join(", "),
        spec.from,
        spec.base_where
    );
    let mut st = conn.prepare(&sql)?;
    let first_id = st.column_count() - spec.id_exprs.len();
    let mut rows = st.query([])?;
    while let Some(row) = rows.next()? {
        let ids = (0..spec.id_exprs.len())
            .map(|k| row.get::<_, String>(first_id + k))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let body = (spec.body.render)(conn, row)?;
        each(ids, body)?;
    }
    Ok(())
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
