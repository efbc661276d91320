//! One `/idx/` request: the body checked as the original endpoint checks it, then
//! answered from the index tables of the dataset (module doc of [`super`]).
//!
//! Matching: every word of the query must match (the last one as a prefix), case and
//! diacritics folded. When no record matches as spelled, words of 5 letters or more
//! may carry one typo (a letter inserted, deleted, replaced, or two swapped; never the
//! first letter): the spelled matches, when there are any, are the only ones (the
//! original's `typoTolerance: min`).
//!
//! Ranking: the records whose first searchable attributes (a name, a title, a login)
//! hold every word come first, then the others; each group in the index's custom
//! ranking, which is also the order of an empty query. A sort variant orders every
//! match by its field alone (its ties in the custom ranking), as the original's
//! replicas do.

use rusqlite::types::Value as Sql;
use rusqlite::Connection;
use serde_json::Value;

use super::text::{fold, prefix_within_one, within_one, words};
use super::{
    Target, DEFAULT_HITS_PER_PAGE, INDEXES, MAX_HITS_PER_PAGE, MAX_QUERY_CHARS, MAX_REACHABLE_HITS,
};

/// Words shorter than this tolerate no typo.
const TYPO_MIN_CHARS: usize = 5;
/// Spellings of one word tried at most, the most frequent first.
const MAX_TYPO_TERMS: usize = 30;

/// A request refused or not answerable.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// 400: what was wrong with the request.
    #[error("{0}")]
    BadRequest(String),
    /// 503: the dataset was built by a roost without the search index.
    #[error(
        "the dataset has no search index (it was built by an older roost): rebuild it with \
         `roost db import`, `roost db synth` or `roost db init --force`"
    )]
    NotBuilt,
    /// 500.
    #[error("reading the search index")]
    Sql(#[from] rusqlite::Error),
}

fn bad(message: impl Into<String>) -> SearchError {
    SearchError::BadRequest(message.into())
}

/// One facet filter: `attribute:value`, or `attribute:-value` for "not".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facet {
    pub attribute: String,
    pub value: String,
    pub negated: bool,
}

/// A checked request.
#[derive(Debug, Clone)]
pub struct Request {
    pub target: Target,
    pub query: String,
    /// 1-based.
    pub page: u32,
    pub hits_per_page: u32,
    /// Groups joined by AND, the facets of a group by OR.
    pub facets: Vec<Vec<Facet>>,
}

impl Request {
    /// The body `{"facetFilters", "hitsPerPage", "indexName", "page", "query"}`:
    /// `indexName` required, the others optional (`[]`, 25, 1, `""`).
    // Each of the body's five fields is checked here with its own message, in the order
    // the frontend sends them.
    pub fn from_json(body: &[u8]) -> Result<Request, SearchError> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| bad(format!("The body is not valid JSON: {e}")))?;
        let Value::Object(body) = value else {
            return Err(bad("The body must be a JSON object"));
        };
        let field = |name: &str| body.get(name).filter(|v| !v.is_null());
        let facet_values = match field("facetFilters") {
            None => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            Some(_) => return Err(bad("facetFilters must be a list.")),
        };
        let name = match field("indexName") {
            Some(Value::String(s)) if !s.is_empty() => s.as_str(),
            _ => return Err(bad("indexName is required and must be a string.")),
        };
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(bad(
                "Invalid indexName value provided. Only alphanumeric characters hyphens and \
                 underscores are allowed.",
            ));
        }
        let hits_per_page = match field("hitsPerPage") {
            None => DEFAULT_HITS_PER_PAGE,
            Some(v) => match v.as_i64() {
                Some(n) if (1..=i64::from(MAX_HITS_PER_PAGE)).contains(&n) => n as u32,
                Some(_) => {
                    return Err(bad(format!(
                        "hitsPerPage value must be between 1 and {MAX_HITS_PER_PAGE}."
                    )))
                }
                None => return Err(bad("hitsPerPage must be an integer.")),
            },
        };
        let page = match field("page") {
            None => 1,
            Some(v) => match v.as_i64() {
                Some(n) if n >= 1 => u32::try_from(n).unwrap_or(u32::MAX),
                Some(_) => return Err(bad("page value must be a positive integer.")),
                None => return Err(bad("page value must be an integer.")),
            },
        };
        let query = match field("query") {
            None => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(bad("query must be a string.")),
        };
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(bad(format!(
                "query is longer than {MAX_QUERY_CHARS} characters."
            )));
        }
        if !query.chars().all(|c| {
            c.is_alphanumeric()
                || unicode_normalization::char::is_combining_mark(c)
                || matches!(c, '_' | ' ' | '.' | '-')
        }) {
            return Err(bad(
                "Invalid query value provided. Only alphanumeric characters, hyphens, spaces, \
                 and underscores are allowed.",
            ));
        }
        let target = Target::parse(name).ok_or_else(|| {
            let names: Vec<&str> = INDEXES.iter().map(|i| i.name).collect();
            bad(format!(
                "Unknown indexName '{name}': expected one of {}, or a sort variant \
                 <index>_<field>_<asc|desc> such as projects_stars_count_desc.",
                names.join(", ")
            ))
        })?;
        let facets = facet_values
            .iter()
            .map(|item| match item {
                Value::Array(group) => group.iter().map(|f| facet(&target, f)).collect(),
                one => Ok(vec![facet(&target, one)?]),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Request {
            target,
            query,
            page,
            hits_per_page,
            facets,
        })
    }
}

fn facet(target: &Target, value: &Value) -> Result<Facet, SearchError> {
    let Value::String(text) = value else {
        return Err(bad(format!(
            "facetFilters: {value} is not a string 'attribute:value'."
        )));
    };
    let Some((attribute, value)) = text.split_once(':') else {
        return Err(bad(format!(
            "facetFilters: '{text}' is not 'attribute:value'."
        )));
    };
    let index = target.index;
    if !index.facets.contains(&attribute) {
        let known = if index.facets.is_empty() {
            "it has none".to_string()
        } else {
            format!("its facets: {}", index.facets.join(", "))
        };
        return Err(bad(format!(
            "facetFilters: '{attribute}' is not a facet of the index '{}' ({known}).",
            index.name
        )));
    }
    // `-value` negates; `\-value` is a value starting with `-`.
    let (value, negated) = match (value.strip_prefix("\\-"), value.strip_prefix('-')) {
        (Some(_), _) => (&value[1..], false),
        (None, Some(rest)) => (rest, true),
        (None, None) => (value, false),
    };
    Ok(Facet {
        attribute: attribute.to_string(),
        value: value.to_lowercase(),
        negated,
    })
}

/// An answer: the body `/idx/` sends.
#[derive(Debug, Clone)]
pub struct Answer {
    /// `{"hits": [...], "nbPages": N}`.
    pub body: String,
    pub hits: usize,
    pub nb_pages: u32,
}

/// A record id of an FTS table in a facet condition: the unary `+` keeps the `IN`
/// from being handed to FTS5 as a row id constraint, which would run the whole match
/// once per value of the list (250 times for `idx_is_active:true` on projects).
const ROWID: &str = "+rowid";

/// The SQL condition the facets put on a record id `id`, and its values.
fn facet_condition(req: &Request, id: &str) -> (String, Vec<Sql>) {
    let mut sql = String::new();
    let mut values = Vec::new();
    for group in &req.facets {
        let parts: Vec<String> = group
            .iter()
            .map(|f| {
                values.push(Sql::Text(format!(
                    "{}.{}",
                    req.target.index.name, f.attribute
                )));
                values.push(Sql::Text(f.value.clone()));
                format!(
                    "{id} {}IN (SELECT doc FROM search_facets WHERE name = ? AND value = ?)",
                    if f.negated { "NOT " } else { "" }
                )
            })
            .collect();
        if !parts.is_empty() {
            sql.push_str(&format!(" AND ({})", parts.join(" OR ")));
        }
    }
    (sql, values)
}

/// Answers `req` from the index tables on `conn`.
pub fn search(conn: &Connection, req: &Request) -> Result<Answer, SearchError> {
    let name = req.target.index.name;
    let (first, count): (i64, i64) = match conn.query_row(
        "SELECT first, count FROM search_indexes WHERE name = ?1",
        [name],
        |r| Ok((r.get(0)?, r.get(1)?)),
    ) {
        Ok(range) => range,
        Err(rusqlite::Error::QueryReturnedNoRows) => return Err(SearchError::NotBuilt),
        Err(e) if e.to_string().contains("no such table") => return Err(SearchError::NotBuilt),
        Err(e) => return Err(e.into()),
    };
    let words = words(&req.query);
    let mut plan = if words.is_empty() {
        Plan::Browse { first, count }
    } else {
        Plan::Match {
            expr: expression(conn, name, &words, false)?,
        }
    };
    let mut total = plan.total(conn, req)?;
    if total == 0 && words.iter().any(|w| long_enough(w)) {
        plan = Plan::Match {
            expr: expression(conn, name, &words, true)?,
        };
        total = plan.total(conn, req)?;
    }
    let per_page = u64::from(req.hits_per_page);
    let nb_pages = (total as u64).div_ceil(per_page) as u32;
    if req.page > nb_pages.max(1) {
        return Err(bad(format!(
            "page {} is past the end: this search has {nb_pages} page(s) of {} hits \
             (at most {MAX_REACHABLE_HITS} hits are reachable).",
            req.page, req.hits_per_page
        )));
    }
    let offset = u64::from(req.page - 1) * per_page;
    let limit = per_page.min(u64::from(total).saturating_sub(offset));
    let ids = plan.ids(conn, req, offset as i64, limit as i64)?;
    let mut body = String::from("{\"hits\":[");
    let mut stmt = conn.prepare_cached("SELECT hit FROM search_docs WHERE id = ?1")?;
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        let hit: String = stmt.query_row([id], |r| r.get(0))?;
        body.push_str(&hit);
    }
    body.push_str(&format!("],\"nbPages\":{nb_pages}}}"));
    Ok(Answer {
        body,
        hits: ids.len(),
        nb_pages,
    })
}

fn long_enough(word: &str) -> bool {
    fold(word).chars().count() >= TYPO_MIN_CHARS
}

/// The FTS5 expression of the query's words: each must match (the last one as a
/// prefix), with `typos`, in one of its spellings within one typo.
fn expression(
    conn: &Connection,
    index: &str,
    words: &[String],
    typos: bool,
) -> Result<String, SearchError> {
    let mut parts = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let last = i + 1 == words.len();
        let folded = fold(word);
        let quoted = format!("\"{}\"", folded.replace('"', "\"\""));
        let mut alternatives = vec![if last { format!("{quoted}*") } else { quoted }];
        if typos && folded.chars().count() >= TYPO_MIN_CHARS {
            for term in typo_terms(conn, index, &folded, last)? {
                alternatives.push(format!("\"{}\"", term.replace('"', "\"\"")));
            }
        }
        parts.push(format!("({})", alternatives.join(" OR ")));
    }
    Ok(parts.join(" AND "))
}

/// The terms of the index's vocabulary one typo away from `word` (from a prefix of
/// them when `prefix`), the first letter kept, the most frequent first.
fn typo_terms(
    conn: &Connection,
    index: &str,
    word: &str,
    prefix: bool,
) -> Result<Vec<String>, SearchError> {
    let Some(head) = word.chars().next() else {
        return Ok(Vec::new());
    };
    let upper = char::from_u32(head as u32 + 1)
        .map(String::from)
        .unwrap_or_else(|| char::MAX.to_string());
    let word_chars: Vec<char> = word.chars().collect();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT term, doc FROM search_vocab_{index} WHERE term >= ?1 AND term < ?2"
    ))?;
    let mut rows = stmt.query([head.to_string(), upper])?;
    let mut found: Vec<(i64, String)> = Vec::new();
    while let Some(row) = rows.next()? {
        let term: String = row.get(0)?;
        if term == word {
            continue;
        }
        let chars: Vec<char> = term.chars().collect();
        let close = if prefix {
            prefix_within_one(&word_chars, &chars)
        } else {
            within_one(&word_chars, &chars)
        };
        if close {
            found.push((row.get(1)?, term));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.truncate(MAX_TYPO_TERMS);
    Ok(found.into_iter().map(|(_, t)| t).collect())
}

/// How the ids of a request are found.
enum Plan {
    /// No words: every record of the index (the range `first..first + count`).
    Browse { first: i64, count: i64 },
    /// The records matching an FTS5 expression.
    Match { expr: String },
}

impl Plan {
    /// The matches reachable, at most [`MAX_REACHABLE_HITS`].
    fn total(&self, conn: &Connection, req: &Request) -> Result<u32, SearchError> {
        let cap = i64::from(MAX_REACHABLE_HITS);
        let n: i64 = match self {
            Plan::Browse { first, count } => {
                let (cond, mut values) = facet_condition(req, "id");
                if cond.is_empty() {
                    (*count).min(cap)
                } else {
                    let sql = format!(
                        "SELECT COUNT(*) FROM (SELECT id FROM search_docs \
                         WHERE id >= ? AND id < ?{cond} LIMIT ?)"
                    );
                    let mut all = vec![Sql::Integer(*first), Sql::Integer(first + count)];
                    all.append(&mut values);
                    all.push(Sql::Integer(cap));
                    conn.prepare_cached(&sql)?
                        .query_row(rusqlite::params_from_iter(all), |r| r.get(0))?
                }
            }
            Plan::Match { expr } => {
                let name = req.target.index.name;
                let (cond, values) = facet_condition(req, ROWID);
                let sql = format!(
                    "SELECT COUNT(*) FROM (SELECT rowid FROM search_fts_{name} \
                     WHERE search_fts_{name} MATCH ?{cond} LIMIT ?)"
                );
                let mut all = vec![Sql::Text(expr.clone())];
                all.extend(values);
                all.push(Sql::Integer(cap));
                conn.prepare_cached(&sql)?
                    .query_row(rusqlite::params_from_iter(all), |r| r.get(0))?
            }
        };
        Ok(n.clamp(0, cap) as u32)
    }

    /// `limit` ids from `offset`, in the request's order.
    // Two plans (browse, match) over two orders (a sort variant, the index's own
    // ranking), each one statement: the four statements are built here side by side.
    fn ids(
        &self,
        conn: &Connection,
        req: &Request,
        offset: i64,
        limit: i64,
    ) -> Result<Vec<i64>, SearchError> {
        if limit <= 0 {
            return Ok(Vec::new());
        }
        let name = req.target.index.name;
        if let Some(sort) = req.target.sort_name() {
            let (cond, values) = facet_condition(req, "s.doc");
            let mut all = vec![Sql::Text(sort)];
            let matching = match self {
                Plan::Browse { .. } => String::new(),
                Plan::Match { expr } => {
                    all.push(Sql::Text(expr.clone()));
                    format!(
                        " AND s.doc IN (SELECT rowid FROM search_fts_{name} \
                         WHERE search_fts_{name} MATCH ?)"
                    )
                }
            };
            all.extend(values);
            all.push(Sql::Integer(limit));
            all.push(Sql::Integer(offset));
            let sql = format!(
                "SELECT s.doc FROM search_sorts s WHERE s.sort = ?{matching}{cond} \
                 ORDER BY s.pos LIMIT ? OFFSET ?"
            );
            return collect(conn, &sql, all);
        }
        match self {
            Plan::Browse { first, count } => {
                let (cond, values) = facet_condition(req, "id");
                let mut all = vec![Sql::Integer(*first), Sql::Integer(first + count)];
                all.extend(values);
                all.push(Sql::Integer(limit));
                all.push(Sql::Integer(offset));
                let sql = format!(
                    "SELECT id FROM search_docs WHERE id >= ? AND id < ?{cond} \
                     ORDER BY id LIMIT ? OFFSET ?"
                );
                collect(conn, &sql, all)
            }
            Plan::Match { expr } => {
                // The records holding every word in their first attributes, then the
                // others, each in ranking order (the row ids).
                let head = format!("head : ({expr})");
                let rest = format!("({expr}) NOT (head : ({expr}))");
                let (cond, values) = facet_condition(req, ROWID);
                let page = |expr: &str, limit: i64, offset: i64| {
                    let mut all = vec![Sql::Text(expr.to_string())];
                    all.extend(values.iter().cloned());
                    all.push(Sql::Integer(limit));
                    all.push(Sql::Integer(offset));
                    let sql = format!(
                        "SELECT rowid FROM search_fts_{name} WHERE search_fts_{name} MATCH ?\
                         {cond} ORDER BY rowid LIMIT ? OFFSET ?"
                    );
                    collect(conn, &sql, all)
                };
                let mut ids = page(&head, limit, offset)?;
                if (ids.len() as i64) < limit {
                    let skipped = if ids.is_empty() {
                        // How many head matches come before this page.
                        let mut all = vec![Sql::Text(head.clone())];
                        all.extend(values.iter().cloned());
                        all.push(Sql::Integer(offset));
                        let sql = format!(
                            "SELECT COUNT(*) FROM (SELECT rowid FROM search_fts_{name} \
                             WHERE search_fts_{name} MATCH ?{cond} LIMIT ?)"
                        );
                        let n: i64 = conn
                            .prepare_cached(&sql)?
                            .query_row(rusqlite::params_from_iter(all), |r| r.get(0))?;
                        offset - n
                    } else {
                        0
                    };
                    let more = page(&rest, limit - ids.len() as i64, skipped)?;
                    ids.extend(more);
                }
                Ok(ids)
            }
        }
    }
}

fn collect(conn: &Connection, sql: &str, values: Vec<Sql>) -> Result<Vec<i64>, SearchError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(values), |r| r.get(0))?;
    Ok(rows.collect::<Result<Vec<i64>, _>>()?)
}
