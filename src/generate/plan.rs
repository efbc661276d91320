//! The plan of a generation: the independent units of work the tree is rendered in
//! ([`plan`]), and for a list the partition of its sorted rows into every combination
//! of filter values a request can name ([`partition`]), each of which gets its pages.

use rustc_hash::FxHashMap;

use crate::catalog::{self, FilterValue, ListSpec, OrderChoice, ParamKind};

/// One independent piece of the tree.
pub(super) enum Unit {
    List {
        spec: &'static ListSpec,
        snapshot: Option<(i64, String)>,
        upcoming: bool,
        ordering: Option<OrderChoice>,
    },
    Details {
        spec: &'static catalog::DetailSpec,
    },
    Fixed,
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unit::List {
                spec,
                snapshot,
                upcoming,
                ordering,
            } => {
                write!(f, "list {}", spec.operation_id)?;
                if let Some((_, key)) = snapshot {
                    write!(f, " of snapshot {key}")?;
                }
                if *upcoming {
                    write!(f, " (is_upcoming)")?;
                }
                match ordering {
                    Some(o) => write!(
                        f,
                        " ordering {}{}",
                        if o.desc { "-" } else { "" },
                        spec.orderings[o.field].name
                    ),
                    None => write!(f, " default ordering"),
                }
            }
            Unit::Details { spec } => write!(f, "details {}", spec.operation_id),
            Unit::Fixed => write!(f, "fixed documents"),
        }
    }
}

/// Every ordering of a list: the default (`None`), then each field ascending and
/// descending.
pub(super) fn orderings(spec: &ListSpec) -> Vec<Option<OrderChoice>> {
    let mut out = vec![None];
    for field in 0..spec.orderings.len() {
        out.push(Some(OrderChoice { field, desc: false }));
        out.push(Some(OrderChoice { field, desc: true }));
    }
    out
}

/// Whether an explicit `ordering` sorts a list's scope exactly as its default does
/// (the same `ORDER BY`): its pages are then the default's, byte for byte, and the
/// default ordering's unit places them ([`owned_orderings`]).
pub(super) fn sorts_as_default(spec: &ListSpec, ordering: OrderChoice, upcoming: bool) -> bool {
    catalog::order_sql(spec, Some(ordering), upcoming) == catalog::order_sql(spec, None, upcoming)
}

/// The orderings that have units of their own: every ordering but the explicit ones
/// that sort as the default does.
fn owned_orderings(spec: &ListSpec, upcoming: bool) -> Vec<Option<OrderChoice>> {
    orderings(spec)
        .into_iter()
        .filter(|o| !o.is_some_and(|o| sorts_as_default(spec, o, upcoming)))
        .collect()
}

/// Every unit of the tree: the fixed documents, each list × scope × ordering (the
/// snapshots' sub-lists once per snapshot; an explicit ordering that sorts as the
/// default has no unit: the default's places its files), each detail resource.
pub(super) fn plan(conn: &rusqlite::Connection) -> anyhow::Result<Vec<Unit>> {
    let mut units = vec![Unit::Fixed];
    for spec in catalog::LISTS {
        let scopes: &[bool] = if spec.upcoming.is_some() {
            &[false, true]
        } else {
            &[false]
        };
        for &upcoming in scopes {
            for ordering in owned_orderings(spec, upcoming) {
                units.push(Unit::List {
                    spec,
                    snapshot: None,
                    upcoming,
                    ordering,
                });
            }
        }
    }
    let snapshots = catalog::snapshot_keys(conn)?;
    for spec in catalog::SNAPSHOT_LISTS {
        for snapshot in &snapshots {
            for ordering in owned_orderings(spec, false) {
                units.push(Unit::List {
                    spec,
                    snapshot: Some(snapshot.clone()),
                    upcoming: false,
                    ordering,
                });
            }
        }
    }
    for spec in catalog::DETAILS {
        units.push(Unit::Details { spec });
    }
    Ok(units)
}

/// The order to start the units in (indices into `units`): the longest expected
/// first, so the units left at the end are short ones and no worker waits alone
/// while another renders a long list. A unit's expected length is the row count of
/// the first table it reads (from the statistics `ANALYZE` keeps, `sqlite_stat1`,
/// which `db import` makes; an exposure view `api_<t>` counts as its table `<t>`),
/// twice that for a detail unit (a file a row), and for a snapshot's sub-list the
/// rows of its link table per snapshot. Without statistics, the plan's order.
pub(super) fn longest_first(conn: &rusqlite::Connection, units: &[Unit]) -> Vec<usize> {
    let rows = table_rows(conn);
    let rows_of = |from: &str| -> u64 {
        let table = from.split_whitespace().next().unwrap_or("");
        let table = rows
            .get(table)
            .or_else(|| table.strip_prefix("api_").and_then(|t| rows.get(t)));
        table.copied().unwrap_or(0)
    };
    let snapshots = units
        .iter()
        .filter_map(|u| match u {
            Unit::List {
                snapshot: Some((id, _)),
                ..
            } => Some(*id),
            _ => None,
        })
        .collect::<std::collections::HashSet<_>>()
        .len()
        .max(1) as u64;
    let cost = |unit: &Unit| match unit {
        Unit::Fixed => 0,
        Unit::List {
            spec,
            snapshot: Some(_),
            ..
        } => spec
            .snapshot_link
            .as_ref()
            .map_or(0, |link| rows_of(link.table) / snapshots),
        Unit::List { spec, .. } => rows_of(spec.from),
        Unit::Details { spec } => 2 * rows_of(spec.from),
    };
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&units[i])));
    order
}

/// Each table's row count as `ANALYZE` recorded it (the first number of an index's
/// statistics); empty when the dataset has no statistics or they cannot be read.
fn table_rows(conn: &rusqlite::Connection) -> std::collections::HashMap<String, u64> {
    let read = || -> rusqlite::Result<std::collections::HashMap<String, u64>> {
        let mut stmt =
            conn.prepare("SELECT tbl, max(CAST(stat AS INTEGER)) FROM sqlite_stat1 GROUP BY tbl")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64))
        })?;
        rows.collect()
    };
    read().unwrap_or_default()
}

/// One combination of filter values (parameter index, value) and its rows in order.
pub(super) type Group = (Vec<(usize, FilterValue)>, Vec<u32>);

/// Groups sorted rows by every combination of enumerable filter values (each filter
/// absent or set to a value of the row; repeatable filters: every subset of the
/// values occurring in the scope that contains the row's value). Each group keeps
/// the sort order.
// Long because the grouping is one algorithm over shared state (the distinct values
// per filter, the subsets of the repeatable ones); its steps are commented inline.
pub(super) fn partition(
    spec: &ListSpec,
    params: &[usize],
    values: &[Vec<String>],
    keys: &[u32],
    count: usize,
) -> Vec<Group> {
    let (rows, multi, options) = choices_of_rows(spec, params, values, keys, count);
    // The buckets in order of first appearance, each with its rows in order. Rows
    // with the same filter values fall into the same buckets: the buckets of each
    // distinct combination of values are found once and kept.
    // Looked up once a row (the keys are short slices of small integers, not input
    // an attacker chooses): a fast hash rather than the default's SipHash.
    let mut index: FxHashMap<Vec<u64>, u32> = FxHashMap::default();
    let mut order: Vec<Vec<u64>> = Vec::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut known: FxHashMap<&[u32], Vec<u32>> = FxHashMap::default();
    let mut choices: Vec<&[u64]> = Vec::with_capacity(params.len());
    let mut key: Vec<u64> = Vec::with_capacity(params.len());
    for (row, keys) in rows.iter().enumerate() {
        if let Some(found) = known.get(keys) {
            for &b in found {
                members[b as usize].push(row as u32);
            }
            continue;
        }
        choices.clear();
        choices.extend(
            keys.iter()
                .enumerate()
                .map(|(k, &v)| options[k][v as usize].as_slice()),
        );
        let mut found: Vec<u32> = Vec::new();
        let mut combo = vec![0usize; choices.len()];
        loop {
            key.clear();
            key.extend(combo.iter().enumerate().map(|(k, &c)| choices[k][c]));
            let b = match index.get(key.as_slice()) {
                Some(&b) => b,
                None => {
                    let b = order.len() as u32;
                    order.push(key.clone());
                    members.push(Vec::new());
                    index.insert(key.clone(), b);
                    b
                }
            };
            members[b as usize].push(row as u32);
            found.push(b);
            if !next_combination(&mut combo, &choices) {
                break;
            }
        }
        known.insert(keys, found);
    }
    if rows.is_empty() {
        // An empty scope still has its (empty) default page.
        order.push(vec![0; params.len()]);
        members.push(Vec::new());
    }
    order
        .into_iter()
        .zip(members)
        .map(|(key, rows)| {
            let filters = filters_of(spec, params, values, &multi, &key);
            (filters, rows)
        })
        .collect()
}

/// The groups of [`partition`] that hold any of the rows `wanted` (indices into the
/// scope, ascending), each whole (its filters and every row it holds, in order), in
/// no set order: what the pages showing those rows are cut from, found without
/// grouping every row (each row is only asked whether it falls into these groups).
pub(super) fn groups_of_rows(
    spec: &ListSpec,
    params: &[usize],
    values: &[Vec<String>],
    keys: &[u32],
    count: usize,
    wanted: &[u32],
) -> Vec<Group> {
    let scope = (params, values, keys, count);
    groups_of_rows_by(spec, scope, wanted, 64 * MASK_WORDS)
}

/// A scope's filter parameters, their values, each row's value of each and how many
/// rows ([`groups_of_rows`]).
type Scope<'a> = (&'a [usize], &'a [Vec<String>], &'a [u32], usize);

/// [`groups_of_rows`], their members found by bit masks up to `masks_up_to` groups
/// and by hashing each row's filter keys past them (the tests ask both ways).
fn groups_of_rows_by(
    spec: &ListSpec,
    (params, values, keys, count): Scope,
    wanted: &[u32],
    masks_up_to: usize,
) -> Vec<Group> {
    let (rows, multi, options) = choices_of_rows(spec, params, values, keys, count);
    // The bucket keys of a row's filter keys: every combination of its choices.
    let buckets_of = |keys: &[u32], each: &mut dyn FnMut(&[u64])| {
        let choices: Vec<&[u64]> = keys
            .iter()
            .enumerate()
            .map(|(k, &v)| options[k][v as usize].as_slice())
            .collect();
        let mut combo = vec![0usize; choices.len()];
        let mut key: Vec<u64> = Vec::with_capacity(choices.len());
        loop {
            key.clear();
            key.extend(combo.iter().enumerate().map(|(k, &c)| choices[k][c]));
            each(&key);
            if !next_combination(&mut combo, &choices) {
                break;
            }
        }
    };
    let mut index: FxHashMap<Vec<u64>, u32> = FxHashMap::default();
    let mut order: Vec<Vec<u64>> = Vec::new();
    for &row in wanted {
        let Some(keys) = rows.get(row as usize) else {
            continue;
        };
        buckets_of(keys, &mut |key| {
            if !index.contains_key(key) {
                index.insert(key.to_vec(), order.len() as u32);
                order.push(key.to_vec());
            }
        });
    }
    let members = if order.len() <= masks_up_to {
        members_by_mask(&rows, &options, &order)
    } else {
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); order.len()];
        // Rows with the same filter keys fall into the same groups: found once.
        let mut known: FxHashMap<&[u32], Vec<u32>> = FxHashMap::default();
        for (row, keys) in rows.iter().enumerate() {
            let found = known.entry(keys).or_insert_with(|| {
                let mut found = Vec::new();
                buckets_of(keys, &mut |key| found.extend(index.get(key).copied()));
                found
            });
            for &b in found.iter() {
                members[b as usize].push(row as u32);
            }
        }
        members
    };
    order
        .into_iter()
        .zip(members)
        .map(|(key, rows)| (filters_of(spec, params, values, &multi, &key), rows))
        .collect()
}

/// Groups [`groups_of_rows`] finds members for by bit masks (64 a word): a few, as a
/// changed row's are unless a repeatable filter multiplies them.
const MASK_WORDS: usize = 4;

/// The rows (their filter keys) of each of the groups `order` (one choice per filter,
/// as [`choices_of_rows`]'s `options` name them), in row order: per filter and value,
/// a mask of the groups whose choice for that filter the value falls into; a row is a
/// member of the groups every one of its values' masks holds. One look-up a filter a
/// row, no hashing: a kept list asks this of every row of its scope.
fn members_by_mask(
    rows: &[&[u32]],
    options: &[Vec<Vec<u64>>],
    order: &[Vec<u64>],
) -> Vec<Vec<u32>> {
    let words = order.len().div_ceil(64).max(1);
    let mut all = vec![0u64; words];
    for b in 0..order.len() {
        all[b / 64] |= 1 << (b % 64);
    }
    // masks[k][v * words..]: the groups value `v` of filter `k` falls into.
    let masks: Vec<Vec<u64>> = options
        .iter()
        .enumerate()
        .map(|(k, values)| {
            let mut mask = vec![0u64; values.len() * words];
            for (v, choices) in values.iter().enumerate() {
                for (b, key) in order.iter().enumerate() {
                    if choices.binary_search(&key[k]).is_ok() {
                        mask[v * words + b / 64] |= 1 << (b % 64);
                    }
                }
            }
            mask
        })
        .collect();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); order.len()];
    let mut held = vec![0u64; words];
    for (row, keys) in rows.iter().enumerate() {
        held.copy_from_slice(&all);
        for (k, &v) in keys.iter().enumerate() {
            let at = v as usize * words;
            match masks[k].get(at..at + words) {
                Some(mask) => held.iter_mut().zip(mask).for_each(|(h, m)| *h &= m),
                None => held.fill(0),
            }
        }
        for (w, &word) in held.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let b = w * 64 + word.trailing_zeros() as usize;
                members[b].push(row as u32);
                word &= word - 1;
            }
        }
    }
    members
}

/// A digest of a group's filters that names the group from one run to the next (its
/// rows aside): the parameters and their values.
pub(super) fn group_id(filters: &[(usize, FilterValue)]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let text = |h: &mut xxhash_rust::xxh3::Xxh3, s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    for (param, value) in filters {
        h.update(&(*param as u64).to_le_bytes());
        match value {
            FilterValue::One(v) => {
                h.update(b"1");
                text(&mut h, v);
            }
            FilterValue::Many(vs) => {
                h.update(b"m");
                h.update(&(vs.len() as u64).to_le_bytes());
                for v in vs {
                    text(&mut h, v);
                }
            }
            FilterValue::Bool(b) => h.update(if *b { b"t" } else { b"f" }),
            FilterValue::Float(f) => {
                h.update(b"x");
                h.update(&f.to_bits().to_le_bytes());
            }
            FilterValue::Search { raw, .. } => {
                h.update(b"s");
                text(&mut h, raw);
            }
        }
    }
    h.digest()
}

/// The filters of a bucket key: per parameter 0 = absent, else value index + 1
/// (single) or a bit mask of value indices (repeatable).
fn filters_of(
    spec: &ListSpec,
    params: &[usize],
    values: &[Vec<String>],
    multi: &[bool],
    key: &[u64],
) -> Vec<(usize, FilterValue)> {
    key.iter()
        .enumerate()
        .filter(|(_, &c)| c != 0)
        .map(|(k, &c)| {
            let param = params[k];
            let value = if multi[k] {
                FilterValue::Many(
                    (0..values[k].len())
                        .filter(|bit| c & (1 << bit) != 0)
                        .map(|bit| values[k][bit].to_string())
                        .collect(),
                )
            } else {
                let v = &values[k][(c - 1) as usize];
                match spec.params[param].kind {
                    ParamKind::Bool => FilterValue::Bool(v == "true"),
                    _ => FilterValue::One(v.to_string()),
                }
            };
            (param, value)
        })
        .collect()
}

/// What [`choices_of_rows`] reads from the rows: each row's filter keys, which
/// filters are repeatable, and each filter value's bucket choices.
type Choices<'a> = (Vec<&'a [u32]>, Vec<bool>, Vec<Vec<Vec<u64>>>);

/// The rows' filter keys (one slice per row), which filters are repeatable, and, per
/// filter and value, the bucket choices the value falls into (ascending: absent, and
/// the value itself or every subset holding it when a request can name it).
fn choices_of_rows<'a>(
    spec: &ListSpec,
    params: &[usize],
    values: &[Vec<String>],
    keys: &'a [u32],
    count: usize,
) -> Choices<'a> {
    let rows: Vec<&[u32]> = if params.is_empty() {
        vec![&[][..]; count]
    } else {
        keys.chunks(params.len()).collect()
    };
    let multi: Vec<bool> = params
        .iter()
        .map(|&i| matches!(spec.params[i].kind, ParamKind::Choices(_)))
        .collect();
    // Bucket key: per parameter 0 = absent, else value index + 1 (single) or a
    // non-empty bit mask of value indices (repeatable). The choices of each value,
    // once: absent, and the value itself (or every subset holding it) when a request
    // can name it.
    let options: Vec<Vec<Vec<u64>>> = values
        .iter()
        .enumerate()
        .map(|(k, values)| {
            let n = values.len().min(20);
            values
                .iter()
                .enumerate()
                .map(|(index, v)| {
                    let mut options = vec![0u64];
                    if !requestable(spec.params[params[k]].kind, v) {
                        // A value no request can name (an empty string, a choice
                        // outside the allowed set) only appears with the filter absent.
                    } else if multi[k] {
                        let bit = 1u64 << index;
                        options.extend((1u64..(1 << n)).filter(|mask| mask & bit != 0));
                    } else {
                        options.push(index as u64 + 1);
                    }
                    options
                })
                .collect()
        })
        .collect();
    (rows, multi, options)
}

/// Moves `combo` to the next combination of one choice per position (an odometer over
/// `choices`); false once every combination has been seen.
fn next_combination(combo: &mut [usize], choices: &[&[u64]]) -> bool {
    for (digit, options) in combo.iter_mut().zip(choices) {
        *digit += 1;
        if *digit < options.len() {
            return true;
        }
        *digit = 0;
    }
    false
}

/// Whether a filter value can be written in a request (and so needs files).
fn requestable(kind: ParamKind, value: &str) -> bool {
    match kind {
        ParamKind::Choice(allowed) | ParamKind::Choices(allowed) => allowed.contains(value),
        _ => !value.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grouping as it was first written: every row's buckets looked up one by one
    /// (from the same choices as [`partition`]).
    fn reference(
        spec: &ListSpec,
        params: &[usize],
        values: &[Vec<String>],
        (rows, multi, options): Choices<'_>,
    ) -> Vec<Group> {
        let mut buckets: std::collections::HashMap<Vec<u64>, Vec<u32>> = Default::default();
        let mut order: Vec<Vec<u64>> = Vec::new();
        let mut choices: Vec<&[u64]> = Vec::with_capacity(params.len());
        let mut key: Vec<u64> = Vec::with_capacity(params.len());
        for (row, keys) in rows.iter().enumerate() {
            choices.clear();
            choices.extend(
                keys.iter()
                    .enumerate()
                    .map(|(k, &v)| options[k][v as usize].as_slice()),
            );
            let mut combo = vec![0usize; choices.len()];
            loop {
                key.clear();
                key.extend(combo.iter().enumerate().map(|(k, &c)| choices[k][c]));
                match buckets.get_mut(key.as_slice()) {
                    Some(list) => list.push(row as u32),
                    None => {
                        order.push(key.clone());
                        buckets.insert(key.clone(), vec![row as u32]);
                    }
                }
                if !next_combination(&mut combo, &choices) {
                    break;
                }
            }
        }
        if rows.is_empty() {
            // An empty scope still has its (empty) default page.
            order.push(vec![0; params.len()]);
            buckets.insert(vec![0; params.len()], Vec::new());
        }
        order
            .into_iter()
            .map(|key| {
                let filters = filters_of(spec, params, values, &multi, &key);
                let rows = buckets.remove(&key).unwrap_or_default();
                (filters, rows)
            })
            .collect()
    }

    #[test]
    fn units_of_the_largest_tables_start_first() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("nest.db");
        crate::store::init_db(&db, false, crate::idx::build).unwrap();
        let conn = crate::store::open_api(&db).unwrap();
        let units = plan(&conn).unwrap();
        let order = longest_first(&conn, &units);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (0..units.len()).collect::<Vec<_>>(),
            "each unit once"
        );
        let rows = table_rows(&conn);
        assert!(rows.get("issues").is_some_and(|&n| n > 0), "{rows:?}");
        let name = |i: usize| match &units[i] {
            Unit::List {
                spec,
                snapshot: None,
                ..
            } => format!("list {}", spec.path),
            Unit::List { spec, .. } => format!("snapshot list {}", spec.path),
            Unit::Details { spec } => format!("details {}", spec.path),
            Unit::Fixed => "fixed".to_string(),
        };
        // The detail resource with the most records (counted, not from the
        // statistics): its details first, then its lists, before every unit of the
        // resource with the fewest; the fixed documents (nothing to read) last.
        let count = |path: &str| -> i64 {
            let spec = catalog::DETAILS.iter().find(|d| d.path == path).unwrap();
            conn.query_row(&format!("SELECT count(*) FROM {}", spec.from), [], |r| {
                r.get(0)
            })
            .unwrap()
        };
        let mut by_count: Vec<(i64, &str)> = catalog::DETAILS
            .iter()
            .map(|d| (count(d.path), d.path))
            .collect();
        by_count.sort();
        let (most, least) = (by_count.last().unwrap().1, by_count[0].1);
        assert!(by_count.last().unwrap().0 > by_count[0].0, "{by_count:?}");
        let names: Vec<String> = order.iter().map(|&i| name(i)).collect();
        assert_eq!(names[0], format!("details {most}"), "{names:?}");
        let last_of_most = names
            .iter()
            .rposition(|n| *n == format!("list {most}"))
            .unwrap();
        let first_of_least = names
            .iter()
            .position(|n| n.ends_with(&format!(" {least}")))
            .unwrap();
        assert!(last_of_most < first_of_least, "{names:?}");
        assert_eq!(names.last().unwrap(), "fixed");
        // Without statistics: the plan's order.
        let bare = rusqlite::Connection::open_in_memory().unwrap();
        assert_eq!(
            longest_first(&bare, &units),
            (0..units.len()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn rows_with_the_same_values_fall_into_the_same_groups_in_order() {
        // A small deterministic generator, so the test needs no seed.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n.max(1) as u64) as usize
        };
        let (mut checked, mut past_masks) = (0, false);
        for spec in crate::catalog::LISTS
            .iter()
            .chain(crate::catalog::SNAPSHOT_LISTS)
        {
            let params = spec.enumerable_params();
            let values: Vec<Vec<String>> = params
                .iter()
                .map(|&i| {
                    let mut v: Vec<String> = match spec.params[i].kind {
                        ParamKind::Choice(allowed) | ParamKind::Choices(allowed) => allowed
                            .values
                            .iter()
                            .take(4)
                            .map(|s| s.to_string())
                            .chain(["not allowed".to_string()])
                            .collect(),
                        ParamKind::Bool => vec!["false".into(), "true".into()],
                        _ => (0..5).map(|k| format!("v{k}")).collect(),
                    };
                    v.push(String::new());
                    v.sort();
                    v
                })
                .collect();
            for count in [0, 1, 7, 300] {
                let keys: Vec<u32> = (0..count * params.len())
                    .map(|i| next(values[i % params.len()].len()) as u32)
                    .collect();
                let now = partition(spec, &params, &values, &keys, count);
                let choices = choices_of_rows(spec, &params, &values, &keys, count);
                assert_eq!(
                    now,
                    reference(spec, &params, &values, choices),
                    "{} with {count} rows",
                    spec.operation_id
                );
                checked += now.len();
                // The groups holding a few rows, found without grouping every row, are
                // the partition's groups that hold any of them; no two groups share
                // an id.
                let ids: std::collections::HashSet<u64> =
                    now.iter().map(|(f, _)| group_id(f)).collect();
                assert_eq!(ids.len(), now.len(), "{}", spec.operation_id);
                // Every row wanted too: past 256 groups where a repeatable filter
                // multiplies them, which the masks leave to hashing.
                for wanted in [
                    vec![0u32],
                    vec![1, 5],
                    vec![(count as u32).saturating_sub(1)],
                    (0..count as u32).collect(),
                ] {
                    let wanted: Vec<u32> = wanted
                        .into_iter()
                        .filter(|&r| (r as usize) < count)
                        .collect();
                    let mut holding: Vec<Group> = now
                        .iter()
                        .filter(|(_, rows)| rows.iter().any(|r| wanted.contains(r)))
                        .cloned()
                        .collect();
                    holding.sort_by_key(|(f, _)| group_id(f));
                    let scope = (&params[..], &values[..], &keys[..], count);
                    // As a run finds them, then always by masks, then always hashed.
                    for masks_up_to in [64 * MASK_WORDS, usize::MAX, 0] {
                        let mut found = groups_of_rows_by(spec, scope, &wanted, masks_up_to);
                        found.sort_by_key(|(f, _)| group_id(f));
                        assert_eq!(
                            found, holding,
                            "{} rows {wanted:?} of {count}, masks up to {masks_up_to}",
                            spec.operation_id
                        );
                    }
                    past_masks |= holding.len() > 64 * MASK_WORDS;
                }
            }
        }
        assert!(checked > 100, "{checked} groups compared");
        assert!(past_masks, "no list had more groups than the masks take");
    }
}
