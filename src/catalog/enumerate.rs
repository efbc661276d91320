//! The generator's narrow reads, which render nothing: the rows of a list scope in
//! order ([`scope_rows`]) or of a detail resource ([`detail_rows`]), each with its id,
//! the ids of the rows it references (what its body is also made from) and the values
//! it is filed under; then the bodies of the rows whose files must be written
//! ([`bodies`]). A generation decides from the first which files changed, and renders
//! only those with the second.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use rusqlite::types::Type;
use rusqlite::Connection;

use super::answer::{needed_from, where_clause};
use super::query::{order_sql, FilterValue, ListQuery, OrderChoice};
use super::spec::{DetailSpec, ItemType, ListSpec, ParamKind};

/// The rows of one list scope in one ordering, unrendered. A scope can hold every
/// row of a large table, read again for each ordering: the values are kept flat and
/// each distinct filter value once.
#[derive(Debug, Default)]
pub struct ScopeRows {
    /// Each row's id, in the list's order.
    pub ids: Vec<i64>,
    /// Per row, the value of each link expression (the id of a row it references):
    /// row `r`'s are `links[r * n..(r + 1) * n]` for `n` link expressions.
    pub links: Vec<Option<i64>>,
    /// Per row, the canonical value of each enumerable parameter of `params`, as an
    /// index into that parameter's `values`: row `r`'s are
    /// `keys[r * params.len()..(r + 1) * params.len()]`.
    pub keys: Vec<u32>,
    /// Per enumerable parameter, the distinct values occurring, sorted.
    pub values: Vec<Vec<String>>,
    /// Indices (into `spec.params`) of the enumerable parameters.
    pub params: Vec<usize>,
}

/// Every record of a list scope in one ordering (`upcoming` applies
/// `is_upcoming=true`), with the values of the `links` SQL expressions over its row;
/// with `among`, only the records with those ids (in the same order, the values
/// numbered among them).
// Long because the one statement and the numbering of each row's filter values as it
// is read share the row loop (numbering afterwards would read the rows twice). Its
// arguments are the scope's coordinates, the links asked for and the ids it is
// narrowed to.
#[allow(clippy::too_many_arguments)]
pub fn scope_rows(
    conn: &Connection,
    spec: &ListSpec,
    snapshot: Option<i64>,
    upcoming: bool,
    ordering: Option<OrderChoice>,
    today: &str,
    links: &[&str],
    among: Option<&[i64]>,
) -> rusqlite::Result<ScopeRows> {
    let params = spec.enumerable_params();
    let mut query = ListQuery::default();
    if upcoming {
        if let Some(i) = spec
            .params
            .iter()
            .position(|p| p.kind == ParamKind::Upcoming)
        {
            query.filters.push((i, FilterValue::Bool(true)));
        }
    }
    let (mut cond, args) = where_clause(spec, snapshot, &query, today, among.is_some());
    if let Some(ids) = among {
        let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
        let _ = write!(cond, " AND t.id IN ({})", ids.join(", "));
    }
    let mut columns = "t.id".to_string();
    for link in links {
        let _ = write!(columns, ", {link}");
    }
    for &i in &params {
        let _ = write!(columns, ", {}", spec.params[i].expr);
    }
    let order = order_sql(spec, ordering, upcoming);
    let from = needed_from(spec.from, &format!("{columns} {cond} {order}"));
    let sql = format!("SELECT {columns} FROM {from} {cond} ORDER BY {order}");
    let mut st = conn.prepare(&sql)?;
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    let mut out = ScopeRows {
        values: vec![Vec::new(); params.len()],
        params,
        ..ScopeRows::default()
    };
    // Each parameter's values as they first occur, numbered in that order.
    let mut seen: Vec<HashMap<String, u32>> = vec![HashMap::new(); out.params.len()];
    while let Some(row) = rows.next()? {
        out.ids.push(row.get(0)?);
        for k in 0..links.len() {
            out.links.push(row.get(1 + k)?);
        }
        for (k, seen) in seen.iter_mut().enumerate() {
            let column = 1 + links.len() + k;
            let value = row.get_ref(column)?.as_str().map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(column, Type::Text, Box::new(e))
            })?;
            let next = seen.len() as u32;
            let number = match seen.get(value) {
                Some(&n) => n,
                None => {
                    seen.insert(value.to_string(), next);
                    next
                }
            };
            out.keys.push(number);
        }
    }
    // Renumbered in sorted order.
    let n = out.params.len();
    for (k, seen) in seen.into_iter().enumerate() {
        let mut sorted: Vec<(String, u32)> = seen.into_iter().collect();
        sorted.sort_unstable();
        let mut rank = vec![0u32; sorted.len()];
        for (i, (_, first)) in sorted.iter().enumerate() {
            rank[*first as usize] = i as u32;
        }
        for key in out.keys.iter_mut().skip(k).step_by(n.max(1)) {
            *key = rank[*key as usize];
        }
        out.values[k] = sorted.into_iter().map(|(value, _)| value).collect();
    }
    Ok(out)
}

/// One record of a detail resource, unrendered.
#[derive(Debug)]
pub struct DetailRow {
    pub id: i64,
    /// The values of the link expressions.
    pub links: Vec<Option<i64>>,
    /// The canonical ids of its path.
    pub ids: Vec<String>,
}

/// Every record of a detail resource, in id order, with its `links` values.
pub fn detail_rows(
    conn: &Connection,
    spec: &DetailSpec,
    links: &[&str],
) -> rusqlite::Result<Vec<DetailRow>> {
    detail_rows_among(conn, spec, links, None)
}

/// [`detail_rows`]; with `among`, only the records with those ids.
pub fn detail_rows_among(
    conn: &Connection,
    spec: &DetailSpec,
    links: &[&str],
    among: Option<&[i64]>,
) -> rusqlite::Result<Vec<DetailRow>> {
    let mut columns = "t.id".to_string();
    for link in links {
        let _ = write!(columns, ", {link}");
    }
    let cond = match among {
        Some(ids) => {
            let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
            format!("WHERE t.id IN ({})", ids.join(", "))
        }
        None => String::new(),
    };
    let sql = format!(
        "SELECT {columns}, {} FROM {} {cond} ORDER BY t.id",
        spec.id_exprs.join(", "),
        spec.from,
    );
    let mut st = conn.prepare(&sql)?;
    let mut rows = st.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(DetailRow {
            id: row.get(0)?,
            links: (0..links.len())
                .map(|k| row.get(1 + k))
                .collect::<rusqlite::Result<_>>()?,
            ids: (0..spec.id_exprs.len())
                .map(|k| row.get(1 + links.len() + k))
                .collect::<rusqlite::Result<_>>()?,
        });
    }
    Ok(out)
}

/// Renders the bodies of the records `wanted` (ids of rows of `from`) as `item`, handing each to `each` with its id. `table_rows`
/// is how many rows the record's table holds: when a good part of them is wanted, one
/// pass over the table reads them in its order (rows outside `wanted` are skipped
/// unrendered); else each is looked up by id, in `wanted`'s order.
pub fn bodies(
    conn: &Connection,
    item: &ItemType,
    from: &str,
    wanted: &[i64],
    table_rows: usize,
    mut each: impl FnMut(i64, Vec<u8>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    /// Below this many, lookups by id cost less than any pass over a table.
    const LOOKUPS: usize = 2_000;
    if wanted.len() > LOOKUPS && wanted.len() * 4 >= table_rows {
        let wanted: HashSet<i64> = wanted.iter().copied().collect();
        let sql = format!("SELECT {}, t.id FROM {from}", item.columns);
        let mut st = conn.prepare(&sql)?;
        let id_column = st.column_count() - 1;
        let mut rows = st.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(id_column)?;
            if wanted.contains(&id) {
                each(id, (item.render)(conn, row)?)?;
            }
        }
    } else {
        let sql = format!("SELECT {} FROM {from} WHERE t.id = ?1", item.columns);
        let mut st = conn.prepare(&sql)?;
        for &id in wanted {
            let mut rows = st.query([id])?;
            if let Some(row) = rows.next()? {
                each(id, (item.render)(conn, row)?)?;
            }
        }
    }
    Ok(())
}
