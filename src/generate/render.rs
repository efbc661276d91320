//! Rendering one unit of the plan into files through the writer: the fixed documents
//! (`_headers`, the API root, `openapi.json`, the docs page), every page of every
//! filter combination of a list, every record of a detail resource.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use rayon::prelude::*;

use crate::catalog::{self, FilterValue, ListQuery, ListSpec, OrderChoice, ParamKind};
use crate::manifest::MANIFEST;
use crate::{store, tree};

use super::bodies::{self, Bodies};
use super::delta::Delta;
use super::entry::Entry;
use super::keys::{self, Key};
use super::plan::{self, partition, Group, Unit};
use super::runs::Sink;
use super::units;
use super::write::Writer;
use super::Options;
use rustc_hash::FxHashMap;

/// What a run knows to decide which files to render ([`super::keys`]): the salt, the
/// dataset's digests, the keys of the live generation's files.
pub(super) struct Keying<'a> {
    pub salt: &'a [u8],
    pub digests: &'a keys::Digests,
    pub files: &'a keys::FileKeys,
    /// The folder of the unit records ([`super::units`]).
    pub records: &'a Path,
    /// Whether a table's `id` is its `rowid`, asked once per table in a run
    /// ([`id_is_rowid`]): the units of one resource all ask about its table.
    pub rowid_tables: std::sync::Mutex<HashMap<String, bool>>,
    /// In a delta run ([`super::delta`]), what the units keep of the live generation
    /// without handing it on.
    pub delta: Option<&'a Delta>,
    /// The files placed outside any unit's record (the fixed documents), for the
    /// record of the generation's loose files.
    pub loose: std::sync::Mutex<Vec<Entry>>,
    /// Set when a unit's files were placed without a record (a file or the unit
    /// without a key): the generation's units then do not list all its files.
    pub partial: std::sync::atomic::AtomicBool,
}

/// Where a unit's files go as they are placed ([`Out::place`]), so that a unit never
/// holds all its entries: the entries to the worker's sink (the manifest's), the
/// file keys to the new generation's, and each page's or record's key and entries
/// to the unit's record ([`units::RecordWriter`]), written as they come.
pub(super) struct Out<'a> {
    sink: &'a mut Sink,
    files: Option<&'a keys::FileKeys>,
    /// The unit whose files these are, when it has a key: it goes with the new
    /// generation's keys once every file placed had one.
    unit: Option<Key>,
    /// The unit's record being written; none for a unit placed from its record.
    record: Option<units::RecordWriter>,
    /// Or the patch of another unit's record ([`Out::patch_from`]).
    patch: Option<units::PatchWriter>,
    whole: bool,
    keys: Vec<Key>,
    /// How many pages or records were placed.
    pub(super) groups: usize,
    /// Set when the unit's files were placed without a record.
    partial: Option<&'a std::sync::atomic::AtomicBool>,
    delta: Option<&'a Delta>,
    /// In a delta run, a unit rendered where its rows changed: its key in the live
    /// generation, the live files it replaced (with their keys), and how many of
    /// its files it kept from the live generation without handing them on.
    previous: Option<Key>,
    replaced: Vec<(Key, Vec<Entry>)>,
    carried: u64,
}

impl<'a> Out<'a> {
    /// Places into `sink`; with `keying`, the keys recorded, and with `unit` too, the
    /// unit's record written when `record` (a rendered unit), or not (placed from it).
    fn new(
        sink: &'a mut Sink,
        keying: Option<&'a Keying<'a>>,
        unit: Option<Key>,
        record: bool,
    ) -> anyhow::Result<Out<'a>> {
        let unit = keying.and(unit);
        let record = match (keying, unit) {
            (Some(k), Some(unit)) if record => Some(units::RecordWriter::create(k.records, unit)?),
            _ => None,
        };
        Ok(Out {
            sink,
            files: keying.map(|k| k.files),
            unit,
            record,
            patch: None,
            whole: true,
            keys: Vec::new(),
            groups: 0,
            partial: keying.map(|k| &k.partial),
            delta: keying.and_then(|k| k.delta),
            previous: None,
            replaced: Vec::new(),
            carried: 0,
        })
    }

    /// The files of one page or record the live generation has under `key`, from the
    /// unit's previous record: in a delta run kept where they are and not handed on
    /// (only the unit's new record lists them), else placed.
    fn place_kept(&mut self, key: Key, entries: Vec<Entry>) -> anyhow::Result<()> {
        if self.delta.is_none() {
            return self.place(Some(key), entries);
        }
        if let Some(record) = &mut self.record {
            record.group(key, &entries)?;
        }
        self.carried += entries.len() as u64;
        self.groups += 1;
        Ok(())
    }

    /// A page the live generation has under `key` and the spare holds, as the unit's
    /// previous record holds it (`bytes`: its key and `n` entries): kept where it is
    /// and not handed on, only copied to the unit's new record. Only in a delta run.
    fn place_kept_raw(&mut self, key: Key, bytes: &[u8], n: u32) -> anyhow::Result<()> {
        if self.delta.is_none() {
            return Err(anyhow!("a page kept as it is outside a delta run"));
        }
        debug_assert_eq!(bytes.get(..16), Some(&key.to_le_bytes()[..]));
        if let Some(record) = &mut self.record {
            record.raw_group(bytes)?;
        }
        self.carried += u64::from(n);
        self.groups += 1;
        Ok(())
    }

    /// The unit's record written as a patch of the record `from` rather than whole
    /// ([`units::Patched`]): its groups placed from here on are placed at their
    /// index ([`Out::place_at`]), the others kept ([`Out::keep_unpatched`]). False,
    /// with nothing changed, for a unit that writes no record.
    fn patch_from(&mut self, dir: &Path, from: &units::Patched) -> bool {
        let Some(unit) = self.unit.filter(|_| self.record.is_some()) else {
            return false;
        };
        self.record = None;
        self.patch = Some(units::PatchWriter::new(dir, unit, from));
        true
    }

    /// Whether the unit's record is being written (a rendered unit with a key), so
    /// that it can be written as a patch instead ([`Out::patch_from`]).
    fn writes_record(&self) -> bool {
        self.unit.is_some() && self.record.is_some()
    }

    /// The files of group `index` of a patched record ([`Out::patch_from`]), in place
    /// of a group of `old` entries (0 for a group added), with its key.
    fn place_at(
        &mut self,
        index: u64,
        old: u32,
        key: Key,
        entries: Vec<Entry>,
    ) -> anyhow::Result<()> {
        let patch = self
            .patch
            .as_mut()
            .ok_or_else(|| anyhow!("a group placed by its index in a record not patched"))?;
        patch.set(index, key, &entries, old)?;
        self.add_key(key);
        self.groups += 1;
        self.sink.extend(entries)
    }

    /// `groups` groups (of `entries` files) of a patched record kept from the record
    /// it patches: in a delta run kept where they are and not handed on.
    fn keep_unpatched(&mut self, groups: u64, entries: u64) {
        self.carried += entries;
        self.groups += usize::try_from(groups).unwrap_or(usize::MAX);
    }

    /// A unit rendered where its rows changed since the live unit `previous`, whose
    /// files under `replaced` (each with its key) it does not keep: in a delta run,
    /// they are taken out of the live generation once the unit is done.
    fn replacing(&mut self, previous: Key, replaced: Vec<(Key, Vec<Entry>)>) {
        if self.delta.is_some() {
            self.previous = Some(previous);
            self.replaced = replaced;
        }
    }

    /// The files of one page or record (the file and its siblings), with its key.
    fn place(&mut self, key: Option<Key>, entries: Vec<Entry>) -> anyhow::Result<()> {
        match key {
            Some(key) => {
                if self.patch.is_some() {
                    return Err(anyhow!(
                        "a group placed without its index in a patched record"
                    ));
                }
                if let Some(record) = &mut self.record {
                    record.group(key, &entries)?;
                }
                self.add_key(key);
            }
            None => {
                self.whole = false;
                self.record = None;
                self.patch = None;
            }
        }
        self.groups += 1;
        self.sink.extend(entries)
    }

    /// A placed file's key, for the new generation's.
    fn add_key(&mut self, key: Key) {
        /// Keys handed to the new generation's at a time.
        const KEYS: usize = 4096;
        if let Some(files) = self.files {
            self.keys.push(key);
            if self.keys.len() >= KEYS {
                files.add(std::mem::take(&mut self.keys));
            }
        }
    }

    /// The unit done: its last keys handed on and, when every file had a key, its
    /// record renamed into place and its key added to the new generation's.
    fn finish(mut self) -> anyhow::Result<()> {
        let Some(files) = self.files else {
            return Ok(());
        };
        files.add(std::mem::take(&mut self.keys));
        if let (Some(unit), true) = (self.unit, self.whole) {
            if let Some(record) = self.record.take() {
                record.finish()?;
            }
            if let Some(patch) = self.patch.take() {
                patch.finish()?;
            }
            files.add_unit(unit);
        } else if let Some(partial) = self.partial {
            partial.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if let (Some(delta), Some(previous)) = (self.delta, self.previous) {
            delta.carry_in_part(previous, std::mem::take(&mut self.replaced), self.carried);
        }
        Ok(())
    }
}

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

/// One page of a list: where its records are among the scope's rows, and its key;
/// its file is named when asked ([`PageNames`]), not kept, so a unit of millions of
/// pages holds a few dozen bytes for each.
struct Page<'g> {
    members: &'g [u32],
    key: Option<Key>,
    ordering: Option<OrderChoice>,
    /// The filter group it is a page of (an index into the unit's groups), and its
    /// number.
    group: u32,
    page: u32,
    /// An earlier page of the unit (never itself a twin) showing the same records in
    /// the same order, so with the same bytes: this page's files are hard links to
    /// that page's, stored once.
    twin_of: Option<u32>,
}

/// How a list unit names its pages' files: from the page's filter group, number and
/// ordering.
struct PageNames<'g> {
    spec: &'static ListSpec,
    dir: Vec<String>,
    /// The `is_upcoming` filter, set on every page of the `is_upcoming` scope.
    upcoming: Option<usize>,
    groups: &'g [Group],
}

impl<'g> PageNames<'g> {
    fn new(unit: &ListUnit, groups: &'g [Group]) -> PageNames<'g> {
        let spec = unit.spec;
        PageNames {
            spec,
            dir: match unit.snapshot {
                Some((_, key)) => tree::snapshot_list_dir(key, spec),
                None => vec![spec.path.to_string()],
            },
            upcoming: spec
                .params
                .iter()
                .position(|p| p.kind == ParamKind::Upcoming)
                .filter(|_| unit.upcoming),
            groups,
        }
    }

    /// The file of page `page` of the group `group` under `ordering`; `None` when the
    /// tree has no file for it.
    fn file(&self, group: u32, page: u64, ordering: Option<OrderChoice>) -> Option<PathBuf> {
        let (filters, _) = self.groups.get(group as usize)?;
        let mut query = ListQuery {
            page,
            ordering,
            filters: filters.clone(),
            ..ListQuery::default()
        };
        if let Some(i) = self.upcoming {
            query.filters.push((i, FilterValue::Bool(true)));
            query.filters.sort_by_key(|(i, _)| *i);
        }
        tree::list_file(&self.dir, &query.canonical(self.spec))
    }

    /// The file of a planned page.
    fn of(&self, p: &Page) -> anyhow::Result<PathBuf> {
        self.file(p.group, u64::from(p.page), p.ordering)
            .ok_or_else(|| anyhow!("{}: a planned page without a file", self.spec.operation_id))
    }

    /// How many records the page's group shows.
    fn total(&self, p: &Page) -> u64 {
        self.groups
            .get(p.group as usize)
            .map_or(0, |g| g.1.len() as u64)
    }
}

/// A list unit's identity and key.
struct ListUnit<'a> {
    spec: &'static ListSpec,
    snapshot: &'a Option<(i64, String)>,
    upcoming: bool,
    ordering: Option<OrderChoice>,
    today: &'a str,
    /// How the unit's key spells it ([`keys::unit_key`]).
    identity: &'a str,
    key: Option<Key>,
}

impl ListUnit<'_> {
    /// Reads the unit's scope (only the rows `among` names, when given) through its
    /// statement, watching that it reads only `tables` ([`read_scope`]).
    fn read_rows(
        &self,
        conn: &mut rusqlite::Connection,
        tables: Option<&BTreeSet<&str>>,
        links: &[&str],
        among: Option<&[i64]>,
    ) -> anyhow::Result<catalog::ScopeRows> {
        read_scope(conn, tables, self.spec.operation_id, |conn| {
            catalog::scope_rows(
                conn,
                self.spec,
                self.snapshot.as_ref().map(|s| s.0),
                self.upcoming,
                self.ordering,
                self.today,
                links,
                among,
            )
        })
    }
}

/// Every page of every filter combination of one list in one scope and ordering.
/// Pages whose key the live generation had are linked from it; the records of the
/// others are rendered once each and the pages written. When only rows of the list's
/// own table changed since the previous run, and none of them in what the scope reads
/// (its order, filters, condition and links: [`kept_scope`]), the scope the previous
/// run recorded is partitioned instead of read, and its pages that hold no changed
/// row are placed from its record.
fn render_list_unit(
    w: &Writer,
    conn: &mut rusqlite::Connection,
    unit: &ListUnit,
    keying: Option<&Keying>,
    unit_tables: Option<&BTreeSet<&str>>,
    out: &mut Out,
) -> anyhow::Result<()> {
    let spec = unit.spec;
    let scope = list_scope(unit.upcoming, unit.today);
    let resource = keying
        .and_then(|k| keys::Resource::new(k.digests, k.salt, spec.operation_id, spec.from, &scope));
    let links = resource.as_ref().map(|r| r.link_sql()).unwrap_or_default();
    let records = keying.map(|k| k.records);
    if let (Some(k), Some(tables), Some(_)) = (keying, unit_tables, &resource) {
        if let Some(mut kept) = kept_scope(conn, unit, k, tables, &links)? {
            let rows = std::mem::take(&mut kept.rows);
            let mut list = ListPages {
                w,
                conn,
                unit,
                keying,
                resource: resource.as_ref(),
                rows: &rows,
            };
            // In a delta run into the spare, only the pages showing a changed row;
            // else every page, those holding none from the record.
            let mut replaced = match k.delta.is_some() && !w.must_link(true) {
                true => list.place_changed(&mut kept, out)?,
                false => None,
            };
            if replaced.is_none() {
                if let Some(record) = units::RecordReader::open(k.records, kept.previous) {
                    let previous = Some((record, &kept.changed[..]));
                    replaced = list.place(previous, out)?.map(|(replaced, _)| replaced);
                }
            }
            if let Some(replaced) = replaced {
                out.replacing(kept.previous, replaced);
                if let (Some(dir), Some(key)) = (records, unit.key) {
                    units::link_scope(dir, kept.previous, key);
                }
                return Ok(());
            }
        }
    }
    let rows = unit.read_rows(conn, unit_tables, &links, None)?;
    let mut list = ListPages {
        w,
        conn,
        unit,
        keying,
        resource: resource.as_ref(),
        rows: &rows,
    };
    let Some((_, planned)) = list.place(None, out)? else {
        return Err(anyhow!(
            "{}: pages without a previous record",
            spec.operation_id
        ));
    };
    if let (Some(dir), Some(key), Some(_)) = (records, unit.key, &resource) {
        if own_table_is_plain(spec.from) {
            // Best effort: without it the next run reads the scope.
            let _ = units::write_scope(dir, key, &rows, &planned);
        }
    }
    Ok(())
}

/// Whether a list's records come from its own table itself (not an exposure view):
/// the rows the change log names are then the rows the scope reads.
fn own_table_is_plain(from: &str) -> bool {
    from.split_whitespace().next() == Some(keys::own_table(from))
}

/// What a list unit keeps from the previous run: the scope it recorded, its record,
/// which of its rows changed, and its key.
struct KeptScope {
    rows: catalog::ScopeRows,
    /// Its pages as the previous run planned them, in its record's order.
    plan: Vec<units::PlannedPage>,
    /// Its record, opened for the groups a delta run asks for.
    record: units::Patched,
    changed: Vec<bool>,
    previous: Key,
}

/// The scope of this list unit as the previous run recorded it, when it is the scope
/// now: every table the unit reads but its own has the digest the previous run
/// recorded, the live generation has the unit as the previous run's digests key it
/// (so its record and scope are of the rows then), the change log names row by row
/// what changed in its own table since, and those rows, read again through the
/// scope's own statement with their neighbours in the recorded order, come back in
/// that order with the same links and filter values (a row whose order moved would
/// leave its neighbours; one that entered or left the scope would be one too many or
/// too few). `None` when any of it does not hold: the scope is read.
fn kept_scope(
    conn: &mut rusqlite::Connection,
    unit: &ListUnit,
    k: &Keying,
    tables: &BTreeSet<&str>,
    links: &[&str],
) -> anyhow::Result<Option<KeptScope>> {
    let spec = unit.spec;
    let Some((previous, changed_ids)) = previous_unit(conn, spec.from, unit.identity, k, tables)
    else {
        return Ok(None);
    };
    let Some((rows, plan)) = units::read_scope(k.records, previous) else {
        return Ok(None);
    };
    let n = rows.ids.len();
    // Past a quarter of the scope, reading it costs less than looking rows up.
    if changed_ids.len() > n / 4 || rows.links.len() != n * links.len() {
        return Ok(None);
    }
    let Some(record) = units::Patched::open(k.records, previous) else {
        return Ok(None);
    };
    let changed: Vec<bool> = rows
        .ids
        .iter()
        .map(|id| changed_ids.binary_search(id).is_ok())
        .collect();
    let near =
        |i: usize| changed[i] || (i > 0 && changed[i - 1]) || changed.get(i + 1) == Some(&true);
    let expected: Vec<usize> = (0..n).filter(|&i| near(i)).collect();
    let mut among: Vec<i64> = expected.iter().map(|&i| rows.ids[i]).collect();
    among.extend(changed_ids);
    among.sort_unstable();
    among.dedup();
    let now = unit.read_rows(conn, Some(tables), links, Some(&among))?;
    let (l, p) = (links.len(), rows.params.len());
    let same = now.ids.len() == expected.len()
        && now.params == rows.params
        && expected.iter().enumerate().all(|(j, &i)| {
            now.ids[j] == rows.ids[i]
                && now.links[j * l..(j + 1) * l] == rows.links[i * l..(i + 1) * l]
                && (0..p).all(|q| {
                    now.values[q][now.keys[j * p + q] as usize]
                        == rows.values[q][rows.keys[i * p + q] as usize]
                })
        });
    Ok(same.then_some(KeptScope {
        rows,
        plan,
        record,
        changed,
        previous,
    }))
}

/// The key the previous run gave the unit `identity` over `from` reading `tables`, and
/// the rows of its own table changed since (`rowid`s, ascending, as many as changed),
/// when that is all that changed: the run made its digests from the previous run's
/// ([`keys::Since`]), every other table the unit reads has the digest it had then,
/// the change log named the own table's changes row by row, the live generation has
/// the unit as those digests key it (so its record, and scope, are of the rows then),
/// and the own table is a plain table whose `id` is its `rowid`.
fn previous_unit<'k>(
    conn: &rusqlite::Connection,
    from: &str,
    identity: &str,
    k: &Keying<'k>,
    tables: &BTreeSet<&str>,
) -> Option<(Key, &'k [i64])> {
    let since = k.digests.since.as_ref()?;
    let own = keys::own_table(from);
    let others_same = tables
        .iter()
        .all(|t| *t == own || since.tables.get(*t) == k.digests.tables.get(*t));
    let changed = since.rows.get(own).filter(|ids| !ids.is_empty())?;
    if !(others_same && own_table_is_plain(from)) {
        return None;
    }
    let previous = keys::unit_key_of(&since.tables, k.salt, identity, tables)?;
    (k.files.had(previous) && id_is_rowid(conn, k, own)).then_some((previous, changed.as_slice()))
}

/// Whether the `id` of `table` is its `rowid` (the change log names rowids; the
/// scope's statement, ids), asked of the dataset once per table in a run.
fn id_is_rowid(conn: &rusqlite::Connection, k: &Keying, table: &str) -> bool {
    let known = |cache: &HashMap<String, bool>| cache.get(table).copied();
    let cache = || k.rowid_tables.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(answer) = known(&cache()) {
        return answer;
    }
    let answer = conn
        .query_row(
            "SELECT count(*) = 1 AND sum(name = 'id' AND pk = 1 AND upper(type) = 'INTEGER') = 1 \
         FROM pragma_table_info(?1) WHERE pk > 0",
            [table],
            |r| r.get::<_, bool>(0),
        )
        .unwrap_or(false);
    cache().insert(table.to_string(), answer);
    answer
}

/// A list unit's pages over its scope's `rows`, and what placing them reads from.
struct ListPages<'a, 'c, 'r> {
    w: &'a Writer,
    conn: &'c mut rusqlite::Connection,
    unit: &'a ListUnit<'a>,
    keying: Option<&'a Keying<'a>>,
    resource: Option<&'a keys::Resource<'a>>,
    rows: &'r catalog::ScopeRows,
}

/// Pages placed at a time: linked or written in parallel, then handed to the unit's
/// [`Out`], so a unit holds the entries of this many pages (and of the pages later
/// twins show), not of all its pages. A debug build (the test suite's) places a few
/// at a time, so every test's lists cross windows, twins of pages placed in earlier
/// windows among them.
const PAGES_AT_ONCE: usize = if cfg!(debug_assertions) { 5 } else { 8192 };

impl ListPages<'_, '_, '_> {
    /// The pages keyed, linked, rendered, written and handed to `out`. With
    /// `previous` (the unit's record in the previous run and which rows changed since,
    /// the scope being the same), a page holding no changed row has the key and files
    /// the record gives it and is placed from them ([`Out::place_kept`]); the
    /// record's other pages (key and files) are returned. `None` when the pages are
    /// not the record's, before anything is placed.
    ///
    /// The pages with their keys first ([`list_page_plan`]), then the records the
    /// pages the live generation lacks show, read once each ([`page_bodies`]); then,
    /// [`PAGES_AT_ONCE`] at a time, those it has linked ([`link_pages`]) and the others
    /// written ([`write_pages`]).
    fn place(
        &mut self,
        previous: Option<(units::RecordReader, &[bool])>,
        out: &mut Out,
    ) -> anyhow::Result<Option<(Replaced, Vec<units::PlannedPage>)>> {
        let (spec, rows) = (self.unit.spec, self.rows);
        let record_keys = RecordKeys::new(self.resource, rows, previous.is_none());
        let (mut recorded, changed) = match previous {
            Some((record, changed)) => (Some(record), changed),
            None => (None, &[][..]),
        };
        let groups = partition(spec, &rows.params, &rows.values, &rows.keys, rows.ids.len());
        let names = PageNames::new(self.unit, &groups);
        let Some((pages, kept, replaced)) =
            list_page_plan(self.unit, &names, &record_keys, recorded.as_mut(), changed)
        else {
            return Ok(None);
        };
        if let Some(record) = &mut recorded {
            record.rewind()?;
        }
        // The plan as the unit's scope keeps it (a kept scope's is the previous one's).
        let planned = match recorded {
            Some(_) => Vec::new(),
            None => planned_pages(&groups, &pages),
        };
        // The pages the live generation has (placed from the record, or by their key):
        // the records of the others are read.
        let has: Vec<bool> = pages
            .iter()
            .zip(&kept)
            .map(|(p, &from_record)| {
                from_record
                    || p.key
                        .zip(self.keying)
                        .is_some_and(|(key, k)| k.files.had(key))
            })
            .collect();
        let wanted = wanted_ids(rows, &pages, |i| has[i]);
        let mut bodies = Bodies::new(self.spill_dir(), wanted.len(), bodies::BUDGET);
        let table_rows = table_rows(self.keying, spec.from).unwrap_or(match self.unit.snapshot {
            None => rows.ids.len(),
            Some(_) => usize::MAX,
        });
        self.read_bodies(&wanted, table_rows, &mut bodies)?;
        // The last page that is a twin of each page with twins: the page's entries are
        // kept until it is placed.
        let mut last_twin: FxHashMap<usize, usize> = FxHashMap::default();
        for (i, p) in pages.iter().enumerate() {
            if let Some(o) = p.twin_of {
                last_twin.insert(o as usize, i);
            }
        }
        let mut originals: FxHashMap<usize, Vec<Entry>> = FxHashMap::default();
        let mut start = 0;
        while start < pages.len() {
            let window = start..(start + PAGES_AT_ONCE).min(pages.len());
            let from_record = recorded_files(recorded.as_mut(), &kept[window.clone()])?;
            let linked = link_pages(
                self.w,
                &names,
                &pages[window.clone()],
                from_record,
                self.keying,
            )?;
            // The pages placed from the record (not written after all).
            let placed_kept: Vec<bool> = window
                .clone()
                .zip(&linked)
                .map(|(i, l)| kept[i] && l.is_some())
                .collect();
            // A page the live generation has that could not be linked: its records read
            // now (looked up by id).
            let lacking = wanted_ids(rows, &pages[window.clone()], |j| {
                !has[start + j] || linked[j].is_some()
            });
            let lacking: Vec<i64> = lacking.into_iter().filter(|id| !bodies.has(*id)).collect();
            self.read_bodies(&lacking, usize::MAX, &mut bodies)?;
            let parts = write_pages(
                self,
                &names,
                &pages,
                window.clone(),
                linked,
                &bodies,
                &originals,
            )?;
            for ((i, files), from_record) in window.clone().zip(parts).zip(placed_kept) {
                if last_twin.get(&i).is_some_and(|&last| last >= window.end) {
                    originals.insert(i, files.clone());
                }
                match (from_record, pages[i].key) {
                    (true, Some(key)) => out.place_kept(key, files)?,
                    _ => out.place(pages[i].key, files)?,
                }
            }
            originals.retain(|o, _| last_twin.get(o).is_some_and(|&last| last >= window.end));
            start = window.end;
        }
        Ok(Some((replaced, planned)))
    }

    /// In a delta run into the spare, a kept scope's pages placed by what changed: the
    /// pages showing a changed row found in the unit's plan (`kept.plan`) from the
    /// groups holding those rows alone ([`plan::groups_of_rows`]), keyed, rendered and
    /// written; every other page of the previous record kept where it is (linked from
    /// the live generation when the spare lacks it, [`link_lacking`]). The unit's
    /// record is a patch of the previous one ([`units::Patched`]) when it stays small,
    /// else the previous record's other pages are copied to a whole one, undecoded.
    /// The previous record's pages replaced; `None`, with nothing placed, when the
    /// plan and record do not agree or a page cannot be linked (every page is then
    /// planned, [`ListPages::place`]).
    fn place_changed(
        &mut self,
        kept: &mut KeptScope,
        out: &mut Out,
    ) -> anyhow::Result<Option<Replaced>> {
        let (unit, rows) = (self.unit, self.rows);
        let Some(k) = self.keying else {
            return Ok(None);
        };
        if kept.plan.len() as u64 != kept.record.groups {
            return Ok(None);
        }
        let wanted: Vec<u32> = (0..rows.ids.len())
            .filter(|&i| kept.changed[i])
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        let (params, values, keys) = (&rows.params, &rows.values, &rows.keys);
        let groups = plan::groups_of_rows(unit.spec, params, values, keys, rows.ids.len(), &wanted);
        let names = PageNames::new(unit, &groups);
        let Some((pages, at)) = changed_pages(self, &names, &kept.plan, &kept.changed) else {
            return Ok(None);
        };
        let at: Vec<u64> = at.iter().map(|&i| i as u64).collect();
        let mut expected = Vec::with_capacity(pages.len());
        for p in &pages {
            expected.push(names.of(p)?);
        }
        let Some(replaced) = recorded_groups(&mut kept.record, &at, Some(&expected)) else {
            return Ok(None);
        };
        let patch = out.writes_record()
            && pages.iter().all(|p| p.key.is_some())
            && units::patch_fits(kept.record.items().len() + at.len(), kept.record.groups);
        // A whole record copies the previous one's other pages: it is read whole.
        let mut whole = match patch {
            true => None,
            false => match units::RecordReader::open(k.records, kept.previous) {
                Some(reader) => Some(reader),
                None => return Ok(None),
            },
        };
        if !link_lacking(self.w, k, &kept.record, &at) {
            return Ok(None);
        }
        let ids = wanted_ids(rows, &pages, |_| false);
        let mut bodies = Bodies::new(self.spill_dir(), ids.len(), bodies::BUDGET);
        self.read_bodies(&ids, usize::MAX, &mut bodies)?;
        let linked = link_pages(self.w, &names, &pages, vec![None; pages.len()], self.keying)?;
        let none = FxHashMap::default();
        let parts = write_pages(self, &names, &pages, 0..pages.len(), linked, &bodies, &none)?;
        let fresh = at
            .iter()
            .copied()
            .zip(parts.into_iter().zip(pages.iter().map(|p| p.key)));
        match &mut whole {
            Some(reader) => copy_around(self.w, reader, fresh, out)?,
            None => {
                let olds: Vec<u32> = replaced.iter().map(|(_, e)| e.len() as u32).collect();
                place_patched(self.w, k, &kept.record, fresh, &olds, out)?;
            }
        }
        tracing::debug!(
            target: "roost::generate",
            unit = unit.identity,
            pages = kept.record.groups,
            changed = at.len(),
            patched = whole.is_none(),
            "kept scope: only the pages showing a changed row placed"
        );
        Ok(Some(replaced))
    }

    /// Where the bodies past their budget are kept: beside the tree.
    fn spill_dir(&self) -> &Path {
        self.w.root.parent().unwrap_or(&self.w.root)
    }

    /// The item bodies of the records `wanted` (of a table of `table_rows` rows,
    /// [`catalog::bodies`]) added to `bodies`.
    fn read_bodies(
        &mut self,
        wanted: &[i64],
        table_rows: usize,
        bodies: &mut Bodies,
    ) -> anyhow::Result<()> {
        if wanted.is_empty() {
            return Ok(());
        }
        let spec = self.unit.spec;
        read_bodies(self.conn, self.resource, spec.operation_id, |conn| {
            catalog::bodies(
                conn,
                &spec.item,
                spec.from,
                wanted,
                table_rows,
                |id, body| bodies.insert(id, &body),
            )
        })
    }
}

/// The digests of a scope's records, for the keys of the pages that show them: all of
/// them computed at once when every page is keyed, else each when a page needs it.
struct RecordKeys<'a> {
    resource: Option<&'a keys::Resource<'a>>,
    rows: &'a catalog::ScopeRows,
    links: usize,
    all: Vec<Key>,
}

impl<'a> RecordKeys<'a> {
    fn new(
        resource: Option<&'a keys::Resource<'a>>,
        rows: &'a catalog::ScopeRows,
        every_page: bool,
    ) -> RecordKeys<'a> {
        let links = resource.map(|r| r.link_sql().len()).unwrap_or_default();
        let mut keys = RecordKeys {
            resource,
            rows,
            links,
            all: Vec::new(),
        };
        if every_page && resource.is_some() {
            keys.all = (0..rows.ids.len()).map(|i| keys.compute(i)).collect();
        }
        keys
    }

    fn compute(&self, i: usize) -> Key {
        let l = self.links;
        self.resource.map_or(0, |r| {
            r.record(self.rows.ids[i], &self.rows.links[i * l..(i + 1) * l])
        })
    }

    /// The digest of the scope's record `i`.
    fn of(&self, i: usize) -> Key {
        match self.all.get(i) {
            Some(key) => *key,
            None => self.compute(i),
        }
    }
}

/// The pages of a kept scope's `plan` that show a changed row (`changed`, by row),
/// cut from the groups holding those rows (`names.groups`), each keyed and, when an
/// earlier one shows the same records as the same page of as many, its twin; beside
/// them their indices in the plan. `None` when a page is not where the plan has it.
fn changed_pages<'g>(
    list: &ListPages,
    names: &PageNames<'g>,
    plan: &[units::PlannedPage],
    changed: &[bool],
) -> Option<(Vec<Page<'g>>, Vec<usize>)> {
    let size = catalog::PAGE_SIZE as usize;
    let groups = names.groups;
    // The pages showing a changed row, by their group's id and number.
    let mut showing: FxHashMap<(u64, u32), u32> = FxHashMap::default();
    for (g, (filters, members)) in groups.iter().enumerate() {
        let id = plan::group_id(filters);
        for (at, &m) in members.iter().enumerate() {
            if changed.get(m as usize) == Some(&true) {
                let page = u32::try_from(at / size + 1).ok()?;
                showing.insert((id, page), u32::try_from(g).ok()?);
            }
        }
    }
    let record_keys = RecordKeys::new(list.resource, list.rows, false);
    let mut pages: Vec<Page<'g>> = Vec::new();
    let mut at = Vec::new();
    let mut firsts: FxHashMap<(&'g [u32], u32, usize), u32> = FxHashMap::default();
    for (i, planned) in plan.iter().enumerate() {
        let Some(&g) = showing.get(&(planned.group, planned.page)) else {
            continue;
        };
        let all = groups[g as usize].1.as_slice();
        let start = (planned.page as usize).checked_sub(1)? * size;
        let members = all.get(start..(start + size).min(all.len()))?;
        let ordering = ordering_of(names.spec, planned.ordering)?;
        let rel = names.file(g, u64::from(planned.page), ordering)?;
        let key = list.resource.map(|r| {
            let on_page: Vec<Key> = members
                .iter()
                .map(|&m| record_keys.of(m as usize))
                .collect();
            r.file(&rel, u64::from(planned.page), all.len() as u64, &on_page)
        });
        let same = (members, planned.page, all.len());
        let twin_of = firsts.get(&same).copied();
        if twin_of.is_none() {
            firsts.insert(same, u32::try_from(pages.len()).ok()?);
        }
        pages.push(Page {
            members,
            key,
            ordering,
            group: g,
            page: planned.page,
            twin_of,
        });
        at.push(i);
    }
    Some((pages, at))
}

/// A group placed fresh in a unit's record: its index, its files and its key.
type Fresh = (u64, (Vec<Entry>, Option<Key>));

/// The groups of a unit's `record` at the indices `at` (ascending), each decoded
/// with its key; with `expected`, each group's first file must be the path beside
/// it. `None` when one cannot be read or is not the one expected.
fn recorded_groups(
    record: &mut units::Patched,
    at: &[u64],
    expected: Option<&[PathBuf]>,
) -> Option<Replaced> {
    let mut groups = Vec::with_capacity(at.len());
    for (j, &i) in at.iter().enumerate() {
        let (key, entries) = units::decode_group(&record.group_at(i)?).ok()?;
        if let Some(expected) = expected {
            let first = entries.first().map(|e| Path::new(&e.path));
            if first != expected.get(j).map(PathBuf::as_path) {
                return None;
            }
        }
        groups.push((key, entries));
    }
    Some(groups)
}

/// Links from the live generation the files of `record`'s groups (but those at
/// `skip`, ascending: being replaced) the spare being updated lacks. When the spare
/// holds the unit, nothing; when it holds its base or a unit it was made from
/// ([`units::Patched::made_from`]), only the patch's groups are asked about; else
/// every group, the record read whole. False when a file is damaged or cannot be
/// linked, or the record cannot be read.
fn link_lacking(w: &Writer, k: &Keying, record: &units::Patched, skip: &[u64]) -> bool {
    let in_spare = k.files.kept(record.key);
    let checked = w.found_damaged() || w.must_link(true);
    if !checked && in_spare {
        return true;
    }
    if checked || !record.made_from().any(|u| k.files.spare_has(u)) {
        let Some(mut reader) = units::RecordReader::open(k.records, record.key) else {
            return false;
        };
        let keep = |i: usize, _| skip.binary_search(&(i as u64)).is_err();
        return w.link_recorded(&mut reader, in_spare, keep, |key| k.files.kept(key));
    }
    tracing::debug!(
        target: "roost::generate",
        unit = format!("{:032x}", record.key),
        groups = record.items().len(),
        "the spare holds a unit this record was patched from: only the patch's groups asked about"
    );
    record.items().iter().all(|(i, bytes)| {
        if skip.binary_search(i).is_ok() {
            return true;
        }
        match units::decode_group(bytes) {
            Ok((key, _)) if k.files.kept(key) => true,
            Ok((_, entries)) => w.place_group(&entries, true),
            Err(_) => false,
        }
    })
}

/// A unit's groups placed from its previous `record` read whole, the `fresh` ones
/// (by index, ascending: their files and key) in their places, the others' bytes
/// copied to the new record undecoded and kept where they are (a delta run).
fn copy_around(
    w: &Writer,
    record: &mut units::RecordReader,
    fresh: impl Iterator<Item = Fresh>,
    out: &mut Out,
) -> anyhow::Result<()> {
    let mut fresh = fresh.peekable();
    let mut buf = Vec::new();
    let mut i = 0;
    while let Some((key, n)) = record.next_group_raw(&mut buf)? {
        match fresh.next_if(|(j, _)| *j == i) {
            Some((_, (files, key))) => out.place(key, files)?,
            None => {
                out.place_kept_raw(key, &buf, n)?;
                w.count_by_key(u64::from(n));
            }
        }
        i += 1;
    }
    Ok(())
}

/// A unit's `fresh` groups (by index, ascending: their files and key; each in place
/// of a group of `olds` entries, 0 for one added) placed as a patch of its previous
/// `record`, every other group kept where it is (a delta run).
fn place_patched(
    w: &Writer,
    k: &Keying,
    record: &units::Patched,
    fresh: impl Iterator<Item = Fresh>,
    olds: &[u32],
    out: &mut Out,
) -> anyhow::Result<()> {
    if !out.patch_from(k.records, record) {
        return Err(anyhow!("a unit without a record patched"));
    }
    let mut placed = 0u64;
    for ((i, (files, key)), &old) in fresh.zip(olds) {
        let key = key.ok_or_else(|| anyhow!("a group without a key in a patched record"))?;
        out.place_at(i, old, key, files)?;
        placed += u64::from(i < record.groups);
    }
    let replaced: u64 = olds.iter().map(|&n| u64::from(n)).sum();
    let entries = record.entries.saturating_sub(replaced);
    out.keep_unpatched(record.groups - placed, entries);
    w.count_by_key(entries);
    Ok(())
}

/// The plan of a list unit's `pages` over its filter `groups`, as its scope keeps it.
fn planned_pages(groups: &[Group], pages: &[Page]) -> Vec<units::PlannedPage> {
    let ids: Vec<u64> = groups.iter().map(|(f, _)| plan::group_id(f)).collect();
    pages
        .iter()
        .map(|p| units::PlannedPage {
            group: ids[p.group as usize],
            page: p.page,
            ordering: ordering_code(p.ordering),
        })
        .collect()
}

/// An ordering as a [`units::PlannedPage`] spells it: 0 for none, else 1 + the
/// field's index × 2 + 1 when descending.
fn ordering_code(ordering: Option<OrderChoice>) -> u16 {
    ordering.map_or(0, |o| {
        u16::try_from(1 + o.field * 2 + usize::from(o.desc)).unwrap_or(u16::MAX)
    })
}

/// The ordering [`ordering_code`] spelled as `code`, when `spec` has it.
fn ordering_of(spec: &ListSpec, code: u16) -> Option<Option<OrderChoice>> {
    let Some(code) = code.checked_sub(1) else {
        return Some(None);
    };
    let field = usize::from(code / 2);
    (field < spec.orderings.len()).then_some(Some(OrderChoice {
        field,
        desc: code % 2 == 1,
    }))
}

/// The pages or records of a unit's previous record it does not keep: each one's key
/// and files.
type Replaced = Vec<(Key, Vec<Entry>)>;

/// A list unit's pages, beside each whether its files are those its unit record
/// gives it (it holds no changed row), and the record's pages that are not.
type PagePlan<'g> = (Vec<Page<'g>>, Vec<bool>, Replaced);

/// A list unit's pages over the filter `groups` of its scope, each with its file and
/// key; with a previous record (`recorded`, and which rows `changed`), the files of
/// those that hold no changed row. `None` when the pages are not the record's.
///
/// Identical pages are planned as twins of one page ([`Page::twin_of`]), so their
/// bytes are stored once: a group with the same records as an earlier group (a
/// `repository` filter with and without its `organization`) has the earlier group's
/// pages; the default ordering's unit also places the pages of the explicit
/// orderings that sort as the default ([`plan::sorts_as_default`]), and, for a group
/// of at most one record (the same in any order), those of every ordering, which the
/// other orderings' units leave out.
fn list_page_plan<'g>(
    unit: &ListUnit,
    names: &PageNames<'g>,
    record_keys: &RecordKeys,
    recorded: Option<&mut units::RecordReader>,
    changed: &[bool],
) -> Option<PagePlan<'g>> {
    let spec = unit.spec;
    let explicit: Vec<OrderChoice> = match unit.ordering {
        Some(_) => Vec::new(),
        None => plan::orderings(spec).into_iter().flatten().collect(),
    };
    let as_default: Vec<OrderChoice> = explicit
        .iter()
        .copied()
        .filter(|&o| plan::sorts_as_default(spec, o, unit.upcoming))
        .collect();
    let mut planner = Planner {
        pages: Vec::new(),
        kept: Vec::new(),
        replaced: Vec::new(),
        recorded,
        changed,
        record_keys,
    };
    // The pages of each group of records planned so far, by its records: a later
    // group with the same records has the same pages (their indices, `None` for a
    // page with no file).
    let mut firsts: FxHashMap<&[u32], Vec<Option<u32>>> = FxHashMap::default();
    for group in planning_order(names, unit.ordering)? {
        let members = &names.groups.get(group as usize)?.1;
        let few = members.len() <= 1;
        if unit.ordering.is_some() && few {
            continue;
        }
        let total = members.len() as u64;
        let first = firsts.get(members.as_slice()).cloned();
        let mut own: Vec<Option<u32>> = Vec::new();
        for page in 1..=catalog::total_pages(total, catalog::PAGE_SIZE) {
            let Some(rel) = names.file(group, page, unit.ordering) else {
                own.push(None);
                continue;
            };
            let start = ((page - 1) * catalog::PAGE_SIZE) as usize;
            let end = (start + catalog::PAGE_SIZE as usize).min(members.len());
            let at = PageAt {
                group,
                page: u32::try_from(page).ok()?,
                total,
                members: &members[start..end],
            };
            let twin_of = first
                .as_ref()
                .and_then(|f| f.get(own.len()).copied().flatten());
            let index = planner.push(&rel, &at, unit.ordering, twin_of)?;
            let original = twin_of.unwrap_or(index);
            own.push(Some(original));
            for &o in if few { &explicit } else { &as_default } {
                if let Some(rel) = names.file(group, page, Some(o)) {
                    planner.push(&rel, &at, Some(o), Some(original))?;
                }
            }
        }
        if first.is_none() {
            firsts.insert(members.as_slice(), own);
        }
    }
    if let Some(recorded) = planner.recorded {
        // The record has no page more.
        if !matches!(recorded.next_group(), Ok(None)) {
            return None;
        }
    }
    Some((planner.pages, planner.kept, planner.replaced))
}

/// The order the groups' pages are planned, then placed in: first each group whose
/// records no group before it (in the groups' own order) shows, the original of its
/// pages, then the others, their twins ([`Writer::put_twin`]); each part in the order
/// of the groups' first pages' paths under `ordering`. Each file placed is looked up
/// among the live generation's manifest entries, which are read by chunks of
/// consecutive paths and only so many kept at once ([`super::previous`]): in the
/// groups' own order (their filters' values as the rows give them) a unit that asks
/// about every file (a new executable's first run) read a chunk again for nearly
/// every file.
fn planning_order(names: &PageNames, ordering: Option<OrderChoice>) -> Option<Vec<u32>> {
    let mut first_of: FxHashMap<&[u32], u32> = FxHashMap::default();
    let mut order: Vec<(bool, Option<PathBuf>, u32)> = Vec::with_capacity(names.groups.len());
    for (group, (_, members)) in names.groups.iter().enumerate() {
        let group = u32::try_from(group).ok()?;
        let twin = *first_of.entry(members.as_slice()).or_insert(group) != group;
        order.push((twin, names.file(group, 1, ordering), group));
    }
    order.sort_unstable();
    Some(order.into_iter().map(|(_, _, group)| group).collect())
}

/// A page of a filter group: the group, the page's number, how many records the group
/// shows and those on the page.
struct PageAt<'g> {
    group: u32,
    page: u32,
    total: u64,
    members: &'g [u32],
}

/// The pages of a list unit as [`list_page_plan`] plans them, in order.
struct Planner<'g, 'r> {
    pages: Vec<Page<'g>>,
    kept: Vec<bool>,
    replaced: Replaced,
    recorded: Option<&'r mut units::RecordReader>,
    changed: &'r [bool],
    record_keys: &'r RecordKeys<'r>,
}

impl<'g> Planner<'g, '_> {
    /// Plans the page `at` as the file `rel` under `ordering` (the `twin_of` an
    /// earlier page with the same records): its key, and whether its files are the
    /// previous record's (it holds no changed row). Its index; `None` when the
    /// record's page there is another.
    fn push(
        &mut self,
        rel: &Path,
        at: &PageAt<'g>,
        ordering: Option<OrderChoice>,
        twin_of: Option<u32>,
    ) -> Option<u32> {
        let (members, total) = (at.members, at.total);
        let mut key = None;
        let mut from_record = false;
        if let Some(recorded) = &mut self.recorded {
            let (recorded_key, entries) = recorded.next_group().ok()??;
            if entries.first().map(|e| Path::new(&e.path)) != Some(rel) {
                return None;
            }
            if !members.iter().any(|&m| self.changed[m as usize]) {
                key = Some(recorded_key);
                from_record = true;
            } else {
                self.replaced.push((recorded_key, entries));
            }
        }
        if !from_record {
            key = self.record_keys.resource.map(|r| {
                let on_page: Vec<Key> = members
                    .iter()
                    .map(|&m| self.record_keys.of(m as usize))
                    .collect();
                r.file(rel, u64::from(at.page), total, &on_page)
            });
        }
        self.pages.push(Page {
            members,
            key,
            ordering,
            group: at.group,
            page: at.page,
            twin_of,
        });
        self.kept.push(from_record);
        u32::try_from(self.pages.len() - 1).ok()
    }
}

/// The files the unit's previous record gives the next pages, read from it in order,
/// for those `from_record` says; `None` for the others, and for all without a record.
fn recorded_files(
    recorded: Option<&mut units::RecordReader>,
    from_record: &[bool],
) -> anyhow::Result<Vec<Option<Vec<Entry>>>> {
    let Some(record) = recorded else {
        return Ok(vec![None; from_record.len()]);
    };
    from_record
        .iter()
        .map(|&kept| match record.next_group() {
            Ok(Some((_, entries))) => Ok(kept.then_some(entries)),
            _ => Err(anyhow!("a unit record could not be read again")),
        })
        .collect()
}

/// The pages the live generation has: placed from the unit's record (`kept`), or
/// linked by their key; `None` for a page to write.
fn link_pages(
    w: &Writer,
    names: &PageNames,
    pages: &[Page],
    kept: Vec<Option<Vec<Entry>>>,
    keying: Option<&Keying>,
) -> anyhow::Result<Vec<Option<Vec<Entry>>>> {
    pages
        .par_iter()
        .zip(kept)
        .map(|(p, files)| -> anyhow::Result<Option<Vec<Entry>>> {
            let (Some(key), Some(k)) = (p.key, keying) else {
                return Ok(None);
            };
            if let Some(entries) = files {
                if !w.place_group(&entries, w.must_link(k.files.kept(key))) {
                    return Ok(None);
                }
                w.count_by_key(entries.len() as u64);
                return Ok(Some(entries));
            }
            if !k.files.had(key) {
                return Ok(None);
            }
            let mut out = Vec::new();
            Ok(
                w.link_unchanged(&names.of(p)?, true, k.files.kept(key), &mut out)?
                    .then_some(out),
            )
        })
        .collect()
}

/// The ids of the records the pages to write show (those the live generation does not
/// have, `has` by their index, and not twins), each once, in the scope's order.
fn wanted_ids(rows: &catalog::ScopeRows, pages: &[Page], has: impl Fn(usize) -> bool) -> Vec<i64> {
    let mut wanted = vec![false; rows.ids.len()];
    for (i, p) in pages.iter().enumerate() {
        if !has(i) && p.twin_of.is_none() {
            for &m in p.members {
                wanted[m as usize] = true;
            }
        }
    }
    rows.ids
        .iter()
        .zip(&wanted)
        .filter(|(_, w)| **w)
        .map(|(id, _)| *id)
        .collect()
}

/// The pages of `window` not `linked` (by their index in it) rendered from the
/// records' `bodies` and written, then their twins linked to the pages they twin
/// (in the window, or among the `originals` kept from earlier windows); the entries
/// of every page of the window, in order.
fn write_pages(
    list: &ListPages,
    names: &PageNames,
    pages: &[Page],
    window: std::ops::Range<usize>,
    linked: Vec<Option<Vec<Entry>>>,
    bodies: &Bodies,
    originals: &FxHashMap<usize, Vec<Entry>>,
) -> anyhow::Result<Vec<Vec<Entry>>> {
    let (w, rows) = (list.w, list.rows);
    let (start, spec) = (window.start, names.spec);
    let mut parts: Vec<Option<Vec<Entry>>> = pages[window.clone()]
        .par_iter()
        .zip(linked)
        .map(|(p, done)| -> anyhow::Result<Option<Vec<Entry>>> {
            if done.is_some() || p.twin_of.is_some() {
                return Ok(done);
            }
            let mut buf = Vec::new();
            let ids = p.members.iter().map(|&m| rows.ids[m as usize]);
            let items = bodies.get_all(ids, &mut buf)?.map_err(|id| {
                anyhow!("{} record {id} vanished while rendering", spec.operation_id)
            })?;
            let (page, total) = (u64::from(p.page), names.total(p));
            let body = catalog::render_page(items, page, catalog::PAGE_SIZE, total);
            let mut out = Vec::new();
            w.put(&names.of(p)?, &body, &mut out)?;
            Ok(Some(out))
        })
        .collect::<anyhow::Result<_>>()?;
    let twins: Vec<(usize, Vec<Entry>)> = pages[window]
        .par_iter()
        .enumerate()
        .filter(|(j, _)| parts[*j].is_none())
        .map(|(j, p)| -> anyhow::Result<(usize, Vec<Entry>)> {
            let (o, files) = p
                .twin_of
                .and_then(|o| {
                    let o = o as usize;
                    let files = match o.checked_sub(start) {
                        Some(at) => parts.get(at)?.as_deref()?,
                        None => originals.get(&o)?.as_slice(),
                    };
                    Some((o, files))
                })
                .ok_or_else(|| anyhow!("{}: a page without its twin", spec.operation_id))?;
            let mut out = Vec::new();
            w.put_twin(&names.of(&pages[o])?, files, &names.of(p)?, &mut out)?;
            Ok((j, out))
        })
        .collect::<anyhow::Result<_>>()?;
    for (j, out) in twins {
        parts[j] = Some(out);
    }
    Ok(parts.into_iter().map(Option::unwrap_or_default).collect())
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
/// linked from it; the others are rendered and written. When only rows of its own
/// table changed since the previous run ([`previous_unit`]), the records of the
/// others keep the keys and files of the previous run's record (the unit's scope
/// says which record each is), and only the changed rows are read.
// Long because its two paths (records kept from the previous run, records read and
// rendered) share the unit's keys and entries and must place them in one order.
fn render_details_unit(
    w: &Writer,
    conn: &mut rusqlite::Connection,
    spec: &'static catalog::DetailSpec,
    identity: &str,
    keying: Option<&Keying>,
    unit_tables: Option<&BTreeSet<&str>>,
    out: &mut Out,
) -> anyhow::Result<()> {
    let resource = keying
        .and_then(|k| keys::Resource::new(k.digests, k.salt, spec.operation_id, spec.from, ""));
    let links = resource.as_ref().map(|r| r.link_sql()).unwrap_or_default();
    // The id of each record placed, in the order placed, when every one has a key.
    let mut ids: Vec<i64> = Vec::new();
    let mut among = None;
    if let (Some(k), Some(tables), Some(r)) = (keying, unit_tables, &resource) {
        if let Some((previous, changed)) = previous_unit(conn, spec.from, identity, k, tables) {
            let d = DetailUnit {
                spec,
                resource: r,
                links: &links,
                tables,
            };
            if patched_details(w, conn, &d, k, previous, changed, out)? {
                return Ok(());
            }
            if let Some(kept) = kept_details(w, k, previous, changed, out)? {
                ids = kept;
                among = Some(changed);
            }
        }
    }
    let rows = read_scope(conn, unit_tables, spec.operation_id, |conn| {
        catalog::detail_rows_among(conn, spec, &links, among)
    })?;
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
                let mut files = Vec::new();
                if w.link_unchanged(&rel, true, k.files.kept(key), &mut files)? {
                    out.place(Some(key), files)?;
                    ids.push(row.id);
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
                    let mut files = Vec::new();
                    w.put(rel, &body, &mut files)?;
                    out.place(*key, files)?;
                    ids.push(id);
                    Ok(())
                }
                None => Ok(()),
            },
        )
    })?;
    if let (Some(k), Some(key), Some(_)) = (keying, out.unit, &resource) {
        if own_table_is_plain(spec.from) && ids.len() == out.groups {
            let scope = catalog::ScopeRows {
                ids,
                ..catalog::ScopeRows::default()
            };
            // Best effort: without it the next run reads every row.
            let _ = units::write_scope(k.records, key, &scope, &[]);
        }
    }
    Ok(())
}

/// A detail unit's spec with what keys and reads its records.
struct DetailUnit<'a> {
    spec: &'static catalog::DetailSpec,
    resource: &'a keys::Resource<'a>,
    links: &'a [&'static str],
    tables: &'a BTreeSet<&'a str>,
}

/// In a delta run into the spare, a detail unit the previous run placed
/// ([`previous_unit`]) whose `changed` rows were changed in place or added, none
/// removed: those rows read, rendered and placed as a patch of the previous record
/// ([`units::Patched`]) at their places in its scope (an added row past its end),
/// every other record kept where it is (linked when the spare lacks it,
/// [`link_lacking`]). False, with nothing placed, when that does not hold or the
/// patch would not stay small: the unit is then placed as [`kept_details`] does.
fn patched_details(
    w: &Writer,
    conn: &mut rusqlite::Connection,
    d: &DetailUnit,
    k: &Keying,
    previous: Key,
    changed: &[i64],
    out: &mut Out,
) -> anyhow::Result<bool> {
    if k.delta.is_none() || w.must_link(true) || !out.writes_record() {
        return Ok(false);
    }
    let (Some((scope, _)), Some(mut record)) = (
        units::read_scope(k.records, previous),
        units::Patched::open(k.records, previous),
    ) else {
        return Ok(false);
    };
    let n = scope.ids.len();
    if n as u64 != record.groups || changed.len() > n / 4 {
        return Ok(false);
    }
    // Each changed row's place in the scope; an added row's past its end.
    let mut index: HashMap<i64, u64> = HashMap::with_capacity(changed.len());
    for (i, id) in scope.ids.iter().enumerate() {
        if changed.binary_search(id).is_ok() {
            index.insert(*id, i as u64);
        }
    }
    let mut at: Vec<u64> = index.values().copied().collect();
    at.sort_unstable();
    let rows = read_scope(conn, Some(d.tables), d.spec.operation_id, |conn| {
        catalog::detail_rows_among(conn, d.spec, d.links, Some(changed))
    })?;
    let mut added = Vec::new();
    let mut todo: Vec<(i64, u64, PathBuf, Key)> = Vec::with_capacity(rows.len());
    for row in &rows {
        let i = match index.get(&row.id) {
            Some(&i) => i,
            None => {
                added.push(row.id);
                (n + added.len() - 1) as u64
            }
        };
        let Some(rel) = tree::detail_file_for(d.spec, &row.ids) else {
            return Ok(false);
        };
        let key = d
            .resource
            .file(&rel, 0, 0, &[d.resource.record(row.id, &row.links)]);
        todo.push((row.id, i, rel, key));
    }
    let placed = at.len() + added.len();
    if todo.len() != placed || !units::patch_fits(record.items().len() + placed, n as u64) {
        return Ok(false);
    }
    let Some(replaced) = recorded_groups(&mut record, &at, None) else {
        return Ok(false);
    };
    if !link_lacking(w, k, &record, &at) {
        return Ok(false);
    }
    let old: HashMap<u64, u32> = at
        .iter()
        .zip(&replaced)
        .map(|(&i, (_, entries))| (i, entries.len() as u32))
        .collect();
    let mut fresh: Vec<Fresh> = Vec::with_capacity(placed);
    let mut wanted = Vec::new();
    let mut pending: HashMap<i64, (u64, PathBuf, Key)> = HashMap::new();
    for (id, i, rel, key) in todo {
        let mut files = Vec::new();
        if k.files.had(key) && w.link_unchanged(&rel, true, k.files.kept(key), &mut files)? {
            fresh.push((i, (files, Some(key))));
        } else {
            wanted.push(id);
            pending.insert(id, (i, rel, key));
        }
    }
    wanted.sort_unstable();
    read_bodies(conn, Some(d.resource), d.spec.operation_id, |conn| {
        let table = table_rows(Some(k), d.spec.from).unwrap_or(usize::MAX);
        catalog::bodies(
            conn,
            &d.spec.body,
            d.spec.from,
            &wanted,
            table,
            |id, body| {
                if let Some((i, rel, key)) = pending.remove(&id) {
                    let mut files = Vec::new();
                    w.put(&rel, &body, &mut files)?;
                    fresh.push((i, (files, Some(key))));
                }
                Ok(())
            },
        )
    })?;
    if fresh.len() != placed {
        return Err(anyhow!(
            "{}: a changed record was not rendered",
            d.spec.operation_id
        ));
    }
    fresh.sort_unstable_by_key(|(i, _)| *i);
    let olds: Vec<u32> = fresh
        .iter()
        .map(|(i, _)| old.get(i).copied().unwrap_or(0))
        .collect();
    place_patched(w, k, &record, fresh.into_iter(), &olds, out)?;
    out.replacing(previous, replaced);
    if let Some(key) = out.unit {
        if added.is_empty() {
            units::link_scope(k.records, previous, key);
        } else {
            let mut ids = scope.ids;
            ids.extend(added);
            let scope = catalog::ScopeRows {
                ids,
                ..catalog::ScopeRows::default()
            };
            // Best effort: without it the next run reads every row.
            let _ = units::write_scope(k.records, key, &scope, &[]);
        }
    }
    tracing::debug!(
        target: "roost::generate",
        unit = d.spec.operation_id,
        records = n,
        changed = placed,
        "kept details: only the changed records placed, as a patch"
    );
    Ok(true)
}

/// The records of a detail unit the previous run placed ([`previous_unit`]) whose
/// rows did not change, placed into `out` from its record (nothing read or keyed);
/// their ids, in order. `None`, with nothing placed, when its record or scope is
/// missing or torn, or a file cannot be linked.
fn kept_details(
    w: &Writer,
    k: &Keying,
    previous: Key,
    changed: &[i64],
    out: &mut Out,
) -> anyhow::Result<Option<Vec<i64>>> {
    let Some((scope, _)) = units::read_scope(k.records, previous) else {
        return Ok(None);
    };
    let Some(mut record) = units::RecordReader::open(k.records, previous) else {
        return Ok(None);
    };
    if scope.ids.len() as u64 != record.groups() || changed.len() > scope.ids.len() / 4 {
        return Ok(None);
    }
    let keep = |i: usize, _| {
        scope
            .ids
            .get(i)
            .is_some_and(|id| changed.binary_search(id).is_err())
    };
    if !w.link_recorded(&mut record, false, keep, |key| k.files.kept(key)) {
        return Ok(None);
    }
    let mut ids = Vec::with_capacity(scope.ids.len());
    let replaced = place_recorded(w, &mut record, keep, out, |i| ids.extend(scope.ids.get(i)))?;
    out.replacing(previous, replaced);
    Ok(Some(ids))
}

/// The docs page, rendered once every unit is written: its examples are files of the
/// new generation (`crate::docs::samples`).
pub(super) fn render_docs(
    w: &Writer,
    entries: &dyn Fn(&str) -> anyhow::Result<Option<String>>,
) -> anyhow::Result<Vec<Entry>> {
    let openapi = crate::openapi::document_json().context("serialising the OpenAPI document")?;
    // The folders the examples come from are the API's, whose files are the new
    // generation's: a folder's first record is looked up among them (`entries`
    // gives the first path at or after a path; a few lookups a folder,
    // `super::listed`) rather than read from folders of hundreds of thousands of
    // files.
    let failed = std::cell::RefCell::new(None);
    let first_from = |path: &str| match entries(path) {
        Ok(first) => first,
        Err(e) => {
            failed.borrow_mut().get_or_insert(e);
            None
        }
    };
    let samples = crate::docs::listed_tree_samples(&openapi, &w.root, &|dir, file| {
        super::listed::first_record(&first_from, dir.to_str()?, file)
    })?;
    if let Some(e) = failed.into_inner() {
        return Err(e.context("finding the docs page's examples"));
    }
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
/// record when its inputs did not change ([`super::units`]), the files' entries
/// handed to `sink` as they are placed; whether it was skipped so.
pub(super) fn render_unit(
    w: &Writer,
    opts: &Options,
    unit: &Unit,
    keying: Option<&Keying>,
    conns: &Connections,
    sink: &mut Sink,
) -> anyhow::Result<bool> {
    match unit {
        Unit::Fixed => {
            let mut out = Vec::new();
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
            if let Some(k) = keying {
                k.loose
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .extend(out.iter().cloned());
            }
            sink.extend(out)?;
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
            if skip_unit(w, keying, unit_key, sink)? {
                return Ok(true);
            }
            let list = ListUnit {
                spec,
                snapshot,
                upcoming: *upcoming,
                ordering: *ordering,
                today: &opts.today,
                identity: &identity,
                key: unit_key,
            };
            let mut out = Out::new(sink, keying, unit_key, true)?;
            conns
                .with(|conn| render_list_unit(w, conn, &list, keying, tables.as_ref(), &mut out))?;
            out.finish()?;
        }
        Unit::Details { spec } => {
            let identity = format!("details {}", spec.operation_id);
            let tables = keying.and_then(|_| keys::unit_tables(spec.operation_id, spec.from, None));
            let unit_key = unit_key(keying, &identity, tables.as_ref());
            if skip_unit(w, keying, unit_key, sink)? {
                return Ok(true);
            }
            let mut out = Out::new(sink, keying, unit_key, true)?;
            conns.with(|conn| {
                render_details_unit(w, conn, spec, &identity, keying, tables.as_ref(), &mut out)
            })?;
            out.finish()?;
        }
    }
    Ok(false)
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

/// Places the files of the unit `unit_key` from its record without reading the
/// dataset, when the live generation has that unit and its record is whole; false
/// (nothing placed) when the unit is to be rendered.
fn skip_unit(
    w: &Writer,
    keying: Option<&Keying>,
    unit_key: Option<Key>,
    sink: &mut Sink,
) -> anyhow::Result<bool> {
    let (Some(k), Some(unit)) = (keying, unit_key) else {
        return Ok(false);
    };
    if !k.files.had(unit) {
        return Ok(false);
    }
    if let (Some(delta), false) = (k.delta, w.must_link(true)) {
        // Into the spare: what it lacks is linked, asking only about a patch's groups
        // when it holds a unit the record was made from ([`link_lacking`]).
        let kept = units::Patched::open(k.records, unit)
            .is_some_and(|record| link_lacking(w, k, &record, &[]));
        if kept {
            delta.carry(unit);
        }
        return Ok(kept);
    }
    let Some(mut record) = units::RecordReader::open(k.records, unit) else {
        return Ok(false);
    };
    let in_spare = |key| k.files.kept(key);
    if !w.link_recorded(&mut record, k.files.kept(unit), |_, _| true, in_spare) {
        return Ok(false);
    }
    if let Some(delta) = k.delta {
        // Its files, entries and keys are the live generation's, kept as they are.
        delta.carry(unit);
        return Ok(true);
    }
    let mut out = Out::new(sink, keying, Some(unit), false)?;
    place_recorded(w, &mut record, |_, _| true, &mut out, |_| ())?;
    out.finish()?;
    Ok(true)
}

/// The groups of a record `keep` accepts, linked already ([`Writer::link_recorded`]),
/// placed into `out` ([`Out::place_kept`]; `each` told the index of each), counted as
/// placed by key; the others returned.
fn place_recorded(
    w: &Writer,
    record: &mut units::RecordReader,
    keep: impl Fn(usize, Key) -> bool,
    out: &mut Out,
    mut each: impl FnMut(usize),
) -> anyhow::Result<Replaced> {
    let torn = || anyhow!("a unit record could not be read again");
    record.rewind().map_err(|_| torn())?;
    let mut i = 0usize;
    let mut others = Vec::new();
    let mut buf = Vec::new();
    while let Some((key, n)) = record.next_group_raw(&mut buf).map_err(|_| torn())? {
        if keep(i, key) {
            w.count_by_key(u64::from(n));
            match out.delta {
                // Kept where it is: its bytes copied to the new record, not decoded.
                Some(_) => out.place_kept_raw(key, &buf, n)?,
                None => {
                    let (key, entries) = units::decode_group(&buf).map_err(|_| torn())?;
                    out.place_kept(key, entries)?;
                }
            }
            each(i);
        } else {
            others.push(units::decode_group(&buf).map_err(|_| torn())?);
        }
        i += 1;
    }
    Ok(others)
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
