//! Rendering one unit of the plan into files through the writer: the fixed documents
//! (`_headers`, the API root, `openapi.json`, the docs page), every page of every
//! filter combination of a list, every record of a detail resource.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use rayon::prelude::*;

use crate::catalog::{self, FilterValue, ListQuery, ListSpec, OrderChoice, ParamKind};
use crate::manifest::{ManifestEntry, MANIFEST};
use crate::{store, tree};

use super::keys::{self, Key};
use super::plan::{partition, Unit};
use super::units;
use super::write::Writer;
use super::Options;

/// What a run knows to decide which files to render ([`super::keys`]): the salt, the
/// dataset's digests, the keys of the live generation's files.
pub(super) struct Keying<'a> {
    pub salt: &'a [u8],
    pub digests: &'a keys::Digests,
    pub files: &'a keys::FileKeys,
    /// The folder of the unit records ([`super::units`]).
    pub records: &'a Path,
}

/// The files a unit placed, per file key (a page, a record: the file and its
/// siblings); no key for a resource without declared inputs.
type Placed = Vec<(Option<Key>, Vec<ManifestEntry>)>;

/// Read-only connections to the dataset, reused from unit to unit: opening one reads
/// and parses the schema, and one kept keeps its page cache.
pub(super) struct Connections {
    db: PathBuf,
    idle: std::sync::Mutex<Vec<rusqlite::Connection>>,
}

impl Connections {
    pub(super) fn new(db: &Path) -> Connections {
        Connections {
            db: db.to_path_buf(),
            idle: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Runs `f` on an idle connection (or a new one); the connection is kept for the
    /// next unit unless `f` failed.
    fn with<R>(
        &self,
        f: impl FnOnce(&mut rusqlite::Connection) -> anyhow::Result<R>,
    ) -> anyhow::Result<R> {
        let idle = || self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let taken = idle().pop();
        let mut conn = match taken {
            Some(conn) => conn,
            None => store::open_api(&self.db)?,
        };
        let result = f(&mut conn);
        if result.is_ok() {
            idle().push(conn);
        }
        result
    }
}

/// One page of a list: its file, where its records are among the scope's rows, and
/// its key.
struct Page<'g> {
    rel: PathBuf,
    page: u64,
    total: u64,
    members: &'g [u32],
    key: Option<Key>,
}

/// Every page of every filter combination of one list in one scope and ordering.
/// Pages whose key the live generation had are linked from it; the records of the
/// others are rendered once each and the pages written.
// Long because the unit runs in three steps over shared state (the scope's rows and
// keys, the pages): link what is unchanged, render the records the rest needs, write
// the rest; each is commented where it starts.
#[allow(clippy::too_many_arguments)]
fn render_list_unit(
    w: &Writer,
    conn: &mut rusqlite::Connection,
    spec: &'static ListSpec,
    snapshot: &Option<(i64, String)>,
    upcoming: bool,
    ordering: Option<OrderChoice>,
    today: &str,
    keying: Option<&Keying>,
    unit_tables: Option<&BTreeSet<&str>>,
) -> anyhow::Result<Placed> {
    let scope = list_scope(upcoming, today);
    let resource = keying
        .and_then(|k| keys::Resource::new(k.digests, k.salt, spec.operation_id, spec.from, &scope));
    let links = resource.as_ref().map(|r| r.link_sql()).unwrap_or_default();
    let rows = read_scope(conn, unit_tables, spec.operation_id, |conn| {
        catalog::scope_rows(
            conn,
            spec,
            snapshot.as_ref().map(|s| s.0),
            upcoming,
            ordering,
            today,
            &links,
        )
    })?;
    let records: Vec<Key> = match &resource {
        Some(r) => rows
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| r.record(*id, &rows.links[i * links.len()..(i + 1) * links.len()]))
            .collect(),
        None => Vec::new(),
    };
    let dir: Vec<String> = match snapshot {
        Some((_, key)) => tree::snapshot_list_dir(key, spec),
        None => vec![spec.path.to_string()],
    };
    let upcoming_param = spec
        .params
        .iter()
        .position(|p| p.kind == ParamKind::Upcoming);
    let groups = partition(spec, &rows.params, &rows.values, &rows.keys, rows.ids.len());

    // The pages, each with its file and key.
    let mut pages: Vec<Page> = Vec::new();
    for (filters, members) in &groups {
        let mut query = ListQuery {
            ordering,
            filters: filters.clone(),
            ..ListQuery::default()
        };
        if upcoming {
            if let Some(i) = upcoming_param {
                query.filters.push((i, FilterValue::Bool(true)));
                query.filters.sort_by_key(|(i, _)| *i);
            }
        }
        let total = members.len() as u64;
        for page in 1..=catalog::total_pages(total, catalog::PAGE_SIZE) {
            query.page = page;
            let Some(rel) = tree::list_file(&dir, &query.canonical(spec)) else {
                continue;
            };
            let start = ((page - 1) * catalog::PAGE_SIZE) as usize;
            let end = (start + catalog::PAGE_SIZE as usize).min(members.len());
            let members = &members[start..end];
            let key = resource.as_ref().map(|r| {
                let on_page: Vec<Key> = members.iter().map(|&m| records[m as usize]).collect();
                r.file(&rel, page, total, &on_page)
            });
            pages.push(Page {
                rel,
                page,
                total,
                members,
                key,
            });
        }
    }

    // Pages the live generation has: linked.
    let linked = pages
        .par_iter()
        .map(|p| -> anyhow::Result<Option<Vec<ManifestEntry>>> {
            let (Some(key), Some(k)) = (p.key, keying) else {
                return Ok(None);
            };
            if !k.files.had(key) {
                return Ok(None);
            }
            let mut out = Vec::new();
            Ok(w.link_unchanged(&p.rel, true, k.files.kept(key), &mut out)?
                .then_some(out))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;

    // The records the other pages show, rendered once each.
    let mut wanted = vec![false; rows.ids.len()];
    for (p, done) in pages.iter().zip(&linked) {
        if done.is_none() {
            for &m in p.members {
                wanted[m as usize] = true;
            }
        }
    }
    let wanted_ids: Vec<i64> = rows
        .ids
        .iter()
        .zip(&wanted)
        .filter(|(_, w)| **w)
        .map(|(id, _)| *id)
        .collect();
    let mut bodies: HashMap<i64, Vec<u8>> = HashMap::with_capacity(wanted_ids.len());
    let table_rows = table_rows(keying, spec.from).unwrap_or(match snapshot {
        None => rows.ids.len(),
        Some(_) => usize::MAX,
    });
    read_bodies(conn, resource.as_ref(), spec.operation_id, |conn| {
        catalog::bodies(
            conn,
            &spec.item,
            spec.from,
            &wanted_ids,
            table_rows,
            |id, body| {
                bodies.insert(id, body);
                Ok(())
            },
        )
    })?;

    // The other pages: written.
    let parts = pages
        .par_iter()
        .zip(linked)
        .map(|(p, done)| -> anyhow::Result<Vec<ManifestEntry>> {
            if let Some(out) = done {
                return Ok(out);
            }
            let items = p
                .members
                .iter()
                .map(|&m| {
                    let id = rows.ids[m as usize];
                    bodies.get(&id).map(Vec::as_slice).ok_or_else(|| {
                        anyhow!("{} record {id} vanished while rendering", spec.operation_id)
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let body = catalog::render_page(items, p.page, catalog::PAGE_SIZE, p.total);
            let mut out = Vec::new();
            w.put(&p.rel, &body, &mut out)?;
            Ok(out)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(pages.iter().map(|p| p.key).zip(parts).collect())
}

/// The scope part of a list unit's keys: the date, for the `is_upcoming` scope.
fn list_scope(upcoming: bool, today: &str) -> String {
    if upcoming {
        format!("upcoming {today}")
    } else {
        String::new()
    }
}

/// Runs `read` (a unit's narrow read of its rows) on `conn`, watching the tables its
/// statement reads when the unit's are known: one outside them fails the run.
fn read_scope<R>(
    conn: &mut rusqlite::Connection,
    unit_tables: Option<&BTreeSet<&str>>,
    operation_id: &str,
    read: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<R>,
) -> anyhow::Result<R> {
    let context = || format!("reading {operation_id}");
    let Some(tables) = unit_tables else {
        return read(conn).with_context(context);
    };
    let seen = keys::watch(conn, true)?;
    let result = read(conn).with_context(context);
    keys::stop_watch(conn, true)?;
    let rows = result?;
    let seen = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    keys::check_unit_reads(operation_id, &seen, tables)?;
    Ok(rows)
}

/// How many rows the table of a resource over `from` holds, from the digests.
fn table_rows(keying: Option<&Keying>, from: &str) -> Option<usize> {
    keying
        .and_then(|k| k.digests.rows.get(keys::own_table(from)))
        .map(keys::Rows::len)
}

/// Runs `read` (which renders bodies on `conn`) watching the tables its statements
/// read, when the resource has keys: a table outside its inputs fails the run.
fn read_bodies(
    conn: &mut rusqlite::Connection,
    resource: Option<&keys::Resource>,
    operation_id: &str,
    read: impl FnOnce(&rusqlite::Connection) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let Some(resource) = resource else {
        return read(conn).with_context(|| format!("rendering {operation_id}"));
    };
    let seen = keys::watch(conn, true)?;
    let result = read(conn).with_context(|| format!("rendering {operation_id}"));
    keys::stop_watch(conn, true)?;
    result?;
    let seen = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    resource.check_reads(operation_id, &seen)
}

/// Every record of a detail resource. Records whose key the live generation had are
/// linked from it; the others are rendered and written.
fn render_details_unit(
    w: &Writer,
    conn: &mut rusqlite::Connection,
    spec: &'static catalog::DetailSpec,
    keying: Option<&Keying>,
    unit_tables: Option<&BTreeSet<&str>>,
) -> anyhow::Result<Placed> {
    let resource = keying
        .and_then(|k| keys::Resource::new(k.digests, k.salt, spec.operation_id, spec.from, ""));
    let links = resource.as_ref().map(|r| r.link_sql()).unwrap_or_default();
    let rows = read_scope(conn, unit_tables, spec.operation_id, |conn| {
        catalog::detail_rows(conn, spec, &links)
    })?;
    let mut placed: Placed = Vec::new();
    let mut todo: HashMap<i64, (PathBuf, Option<Key>)> = HashMap::new();
    let mut wanted = Vec::new();
    for row in rows {
        let Some(rel) = tree::detail_file_for(spec, &row.ids) else {
            continue;
        };
        let key = resource
            .as_ref()
            .map(|r| r.file(&rel, 0, 0, &[r.record(row.id, &row.links)]));
        if let (Some(key), Some(k)) = (key, keying) {
            if k.files.had(key) {
                let mut out = Vec::new();
                if w.link_unchanged(&rel, true, k.files.kept(key), &mut out)? {
                    placed.push((Some(key), out));
                    continue;
                }
            }
        }
        wanted.push(row.id);
        todo.insert(row.id, (rel, key));
    }
    let table_rows = table_rows(keying, spec.from).unwrap_or(wanted.len());
    read_bodies(conn, resource.as_ref(), spec.operation_id, |conn| {
        catalog::bodies(
            conn,
            &spec.body,
            spec.from,
            &wanted,
            table_rows,
            |id, body| match todo.get(&id) {
                Some((rel, key)) => {
                    let mut out = Vec::new();
                    w.put(rel, &body, &mut out)?;
                    placed.push((*key, out));
                    Ok(())
                }
                None => Ok(()),
            },
        )
    })?;
    Ok(placed)
}

/// The docs page, rendered once every unit is written: its examples are files of the
/// new generation (`crate::docs::samples`).
pub(super) fn render_docs(w: &Writer) -> anyhow::Result<Vec<ManifestEntry>> {
    let openapi = crate::openapi::document_json().context("serialising the OpenAPI document")?;
    let samples = crate::docs::tree_samples(&openapi, &w.root)?;
    let mut out = Vec::new();
    for (rel, bytes) in crate::docs::render_with(&openapi, &samples)? {
        w.put(
            &PathBuf::from(tree::API_DIR).join("docs").join(rel),
            &bytes,
            &mut out,
        )?;
    }
    Ok(out)
}

/// Renders one unit of the plan through the writer, or places its files from its
/// record when its inputs did not change ([`super::units`]); the files it placed, and
/// whether it was skipped so.
pub(super) fn render_unit(
    w: &Writer,
    opts: &Options,
    unit: &Unit,
    keying: Option<&Keying>,
    conns: &Connections,
) -> anyhow::Result<(Vec<ManifestEntry>, bool)> {
    let mut out = Vec::new();
    match unit {
        Unit::Fixed => {
            w.put_one(Path::new(PAGES_HEADERS), &pages_headers(), &mut out)?;
            w.put(
                &PathBuf::from(tree::API_DIR).join("index.json"),
                &catalog::root(&format!(
                    "{}{}/docs",
                    opts.public_url.as_deref().unwrap_or(""),
                    tree::API_PREFIX
                )),
                &mut out,
            )?;
            let openapi =
                crate::openapi::document_json().context("serialising the OpenAPI document")?;
            w.put(
                &PathBuf::from(tree::API_DIR).join("openapi.json"),
                &openapi,
                &mut out,
            )?;
        }
        Unit::List {
            spec,
            snapshot,
            upcoming,
            ordering,
        } => {
            let identity = format!(
                "list {} snapshot {snapshot:?} scope {:?} ordering {ordering:?}",
                spec.operation_id,
                list_scope(*upcoming, &opts.today)
            );
            let link = spec.snapshot_link.as_ref().map(|l| l.table);
            let tables = keying.and_then(|_| keys::unit_tables(spec.operation_id, spec.from, link));
            let unit_key = unit_key(keying, &identity, tables.as_ref());
            if let Some(files) = skip_unit(w, keying, unit_key) {
                return Ok((files, true));
            }
            let placed = conns.with(|conn| {
                render_list_unit(
                    w,
                    conn,
                    spec,
                    snapshot,
                    *upcoming,
                    *ordering,
                    &opts.today,
                    keying,
                    tables.as_ref(),
                )
            })?;
            out = record_unit(keying, unit_key, placed)?;
        }
        Unit::Details { spec } => {
            let identity = format!("details {}", spec.operation_id);
            let tables = keying.and_then(|_| keys::unit_tables(spec.operation_id, spec.from, None));
            let unit_key = unit_key(keying, &identity, tables.as_ref());
            if let Some(files) = skip_unit(w, keying, unit_key) {
                return Ok((files, true));
            }
            let placed =
                conns.with(|conn| render_details_unit(w, conn, spec, keying, tables.as_ref()))?;
            out = record_unit(keying, unit_key, placed)?;
        }
    }
    Ok((out, false))
}

/// The key of a unit ([`keys::unit_key`]) when the run keys its files and the unit's
/// tables are declared.
fn unit_key(
    keying: Option<&Keying>,
    identity: &str,
    tables: Option<&BTreeSet<&str>>,
) -> Option<Key> {
    let k = keying?;
    keys::unit_key(k.digests, k.salt, identity, tables?)
}

/// The files of the unit `unit_key`, placed from its record without reading the
/// dataset, when the live generation has that unit and its record is whole; `None`
/// (nothing placed) when the unit is to be rendered.
fn skip_unit(
    w: &Writer,
    keying: Option<&Keying>,
    unit_key: Option<Key>,
) -> Option<Vec<ManifestEntry>> {
    let (k, unit) = (keying?, unit_key?);
    if !k.files.had(unit) {
        return None;
    }
    let record = units::read(k.records, unit)?;
    let file_keys: Vec<Key> = record.groups.iter().map(|(key, _)| *key).collect();
    let files = w.place_recorded(record, k.files.kept(unit), |key| k.files.kept(key))?;
    k.files.add(file_keys);
    k.files.add_unit(unit);
    Some(files)
}

/// Records the keys of a rendered unit's files and, when every file has one, the
/// unit's record and key; the files' manifest entries.
fn record_unit(
    keying: Option<&Keying>,
    unit_key: Option<Key>,
    placed: Placed,
) -> anyhow::Result<Vec<ManifestEntry>> {
    let Some(k) = keying else {
        return Ok(placed.into_iter().flat_map(|(_, files)| files).collect());
    };
    k.files
        .add(placed.iter().filter_map(|(key, _)| *key).collect());
    let whole = placed.iter().all(|(key, _)| key.is_some());
    let mut record = units::Record::default();
    for (key, files) in placed {
        record
            .groups
            .push((key.unwrap_or(0), u32::try_from(files.len())?));
        record.entries.extend(files);
    }
    if let (Some(unit), true) = (unit_key, whole) {
        units::write(k.records, unit, &record)?;
        k.files.add_unit(unit);
    }
    Ok(record.entries)
}

/// The headers file of Pages-style static hosts (Netlify, Cloudflare Pages), at the
/// root of the tree.
pub const PAGES_HEADERS: &str = "_headers";

/// `_headers`: the lists and details (one pattern per resource folder), the root
/// documents and the manifest are JSON, kept by shared caches for five minutes (the
/// policy of the nginx configuration and the edge function too).
fn pages_headers() -> Vec<u8> {
    let mut patterns = vec![
        format!("/{MANIFEST}"),
        format!("{}/index.json", tree::API_PREFIX),
        format!("{}/openapi.json", tree::API_PREFIX),
    ];
    patterns.extend(
        catalog::LISTS
            .iter()
            .map(|spec| format!("{}/{}/*", tree::API_PREFIX, spec.path)),
    );
    let mut text = String::from(
        "# Response headers for Pages-style static hosts, written by roost generate.\n",
    );
    for pattern in patterns {
        text.push_str(&pattern);
        text.push_str("\n  Content-Type: application/json\n  Cache-Control: public, max-age=300\n");
    }
    text.into_bytes()
}
