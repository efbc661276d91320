//! Every column a list filters or orders on leads an index of the dataset, so no
//! answer scans a table.

use roost::catalog;

use crate::support::*;

/// `alias.column` references in an SQL expression of the catalog.
fn column_refs(expr: &str) -> Vec<(String, String)> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    expr.split(|c: char| !word(c))
        .filter_map(|token| token.split_once('.'))
        .filter(|(alias, column)| !alias.is_empty() && !column.is_empty())
        .map(|(alias, column)| (alias.to_string(), column.to_string()))
        .collect()
}

/// `issues t JOIN repositories r ON …` → alias → table (the table of an exposure
/// view: `api_chapters t` → `chapters`).
fn aliases(from: &str) -> std::collections::HashMap<String, String> {
    let words: Vec<&str> = from.split_whitespace().collect();
    let mut out = std::collections::HashMap::new();
    for (i, w) in words.iter().enumerate() {
        if i == 0 || words[i - 1] == "JOIN" {
            let table = roost::schema::exposure::table_of(w);
            out.insert(words[i + 1].to_string(), table.to_string());
        }
    }
    out
}

#[test]
fn every_filter_and_ordering_column_leads_an_index() {
    let sample = Sample::new();
    let conn = sample.conn();
    // (table, first column) of every index, the UNIQUE constraints' included.
    let mut leading = std::collections::HashSet::new();
    let tables = strings(
        &conn,
        "SELECT name FROM sqlite_master WHERE type = 'table'",
        [],
    );
    for table in &tables {
        let indexes: Vec<String> = conn
            .prepare(&format!("PRAGMA index_list('{table}')"))
            .unwrap()
            .query_map([], |r| r.get(1))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for index in indexes {
            // An index on an expression has no column name.
            let first: Option<String> = conn
                .query_row(&format!("PRAGMA index_info('{index}')"), [], |r| r.get(2))
                .unwrap();
            if let Some(first) = first {
                leading.insert((table.clone(), first));
            }
        }
    }
    let mut missing = Vec::new();
    for spec in catalog::LISTS.iter().chain(catalog::SNAPSHOT_LISTS) {
        let tables = aliases(spec.from);
        let mut exprs: Vec<&str> = spec
            .params
            .iter()
            .filter(|p| !matches!(p.kind, catalog::ParamKind::Search))
            .map(|p| p.expr)
            .collect();
        exprs.extend(spec.orderings.iter().map(|o| o.keys[0]));
        for (alias, column) in exprs.iter().flat_map(|e| column_refs(e)) {
            let table = &tables[&alias];
            if !leading.contains(&(table.clone(), column.clone())) {
                missing.push(format!("{}: {table}.{column}", spec.operation_id));
            }
        }
    }
    assert!(missing.is_empty(), "no index leads with: {missing:?}");
    // The check reads what it should: the issue list's organization filter goes
    // through the organizations table.
    assert_eq!(
        column_refs("(CASE WHEN t.is_member THEN 'true' END) = o.login_lc"),
        [
            ("t".into(), "is_member".into()),
            ("o".into(), "login_lc".into())
        ]
    );
    assert_eq!(
        aliases(catalog::list_spec("issues").unwrap().from)["o"],
        "organizations"
    );
}
