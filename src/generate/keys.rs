//! Which files a generation must render: every file of the tree gets a key, a digest
//! of everything its bytes are made from, and a file whose key the live generation
//! also had is hard-linked from it without being rendered.
//!
//! What a file is made from:
//! - the run's salt: the roost version and executable, `--precompress`,
//!   `--public-url`, the dataset's schema (so an upgrade, another option or another
//!   schema renders everything again);
//! - the resource (its operation) and the file's path;
//! - for a list page: its page number, the scope's total, the date for the
//!   `is_upcoming` scope, and the ids of its records in their order;
//! - for every record on it, the digest of its row and of the rows it references
//!   ([`Inputs::links`]: an issue's repository and organization, its body);
//! - the digest of every whole table the resource reads otherwise
//!   ([`Inputs::tables`]: a snapshot's counts read the snapshot's link tables).
//!
//! The row digests come from the same pass over the dataset that fingerprints it
//! ([`super::input`]). The keys of a generation are kept beside the tree in
//! `<parent>/.<name>.keys`, tied to the generation they describe; a run that finds no
//! keys for the live generation renders every file (and still links the files whose
//! bytes come out the same).
//!
//! What each resource reads is declared here ([`inputs`]) and checked as it renders:
//! every table a body's statements read must be its own, a link or a declared table,
//! else the run fails naming both, rather than publish a file that would not follow
//! changes of that table.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::anyhow;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use sha2::{Digest, Sha256};

use crate::schema::exposure;

mod rows;
mod stored;

/// Lookups a base (of the file keys, or of the dataset's row digests) answers a few
/// reads at a time before it is read whole. A debug build (the test suite's) reads
/// whole sooner, so the tests' runs ask both ways.
const LOOKUPS_BEFORE_LOADING: usize = if cfg!(debug_assertions) {
    1 << 10
} else {
    1 << 14
};

/// A patch past this share of its base (the base's keys or rows divided by this) is
/// folded into a new base. A debug build (the test suite's) lets patches grow to half
/// their base, so the tests' small trees and datasets keep patches as large ones do.
pub(crate) const PATCH_SHARE: usize = if cfg!(debug_assertions) { 2 } else { 32 };
pub(crate) use rows::{BaseFile, Rows, Section, Sum};
pub(crate) use stored::{KeySet, SUFFIX as BASE_SUFFIX};

/// What the files of one resource are made from, besides the rows of its own table.
#[derive(Debug)]
pub(crate) struct Inputs {
    /// Tables read one row per record: (table, SQL expression over the record's row
    /// giving that row's `rowid`).
    pub links: &'static [(&'static str, &'static str)],
    /// Tables read as a whole: a change of any of their rows changes every file.
    pub tables: &'static [&'static str],
}

const OWN: Inputs = Inputs {
    links: &[],
    tables: &[],
};
const IN_REPO: Inputs = Inputs {
    links: &[
        ("repositories", "t.repository_id"),
        ("organizations", "t.organization_id"),
    ],
    tables: &[],
};
const IN_REPO_OF_ORG: Inputs = Inputs {
    links: &[
        ("repositories", "t.repository_id"),
        ("organizations", "r.organization_id"),
    ],
    tables: &[],
};
const WITH_LEADERS: Inputs = Inputs {
    links: &[],
    tables: &["leaders", "members"],
};

/// The inputs of the resource with `operation_id`; `None` for one this file does not
/// know (a new resource is rendered in full until it is declared here).
pub(crate) fn inputs(operation_id: &str) -> Option<&'static Inputs> {
    Some(match operation_id {
        "list_chapters"
        | "list_committees"
        | "list_events"
        | "list_labels"
        | "list_members"
        | "list_organizations"
        | "list_projects"
        | "list_snapshots"
        | "list_sponsors"
        | "list_snapshot_chapters"
        | "list_snapshot_members"
        | "list_snapshot_projects"
        | "get_committee"
        | "get_event"
        | "get_member"
        | "get_organization"
        | "get_sponsor" => &OWN,
        "list_issues" | "list_snapshot_issues" => &IN_REPO,
        "list_milestones"
        | "list_releases"
        | "list_snapshot_releases"
        | "get_milestone"
        | "get_release" => &IN_REPO_OF_ORG,
        "list_repositories" | "get_repository" => &Inputs {
            links: &[("organizations", "t.organization_id")],
            tables: &[],
        },
        "get_issue" => &Inputs {
            links: &[
                ("issue_bodies", "t.id"),
                ("repositories", "t.repository_id"),
                ("organizations", "t.organization_id"),
            ],
            tables: &[],
        },
        "get_chapter" | "get_project" => &WITH_LEADERS,
        "get_snapshot" => &Inputs {
            links: &[],
            tables: &[
                "snapshot_chapters",
                "snapshot_issues",
                "snapshot_members",
                "snapshot_projects",
                "snapshot_releases",
                "chapters",
                "issues",
                "members",
                "projects",
                "releases",
                "repositories",
                "organizations",
            ],
        },
        _ => return None,
    })
}

/// The table of a resource's records: the first word of its `from`, or the table of
/// the exposure view it names.
pub(crate) fn own_table(from: &str) -> &str {
    exposure::table_of(from.split_whitespace().next().unwrap_or(from))
}

/// The tables whose rows get digests: every resource's own table and links.
pub(crate) fn row_tables() -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    let lists = crate::catalog::LISTS
        .iter()
        .chain(crate::catalog::SNAPSHOT_LISTS)
        .map(|s| (s.operation_id, s.from));
    let details = crate::catalog::DETAILS
        .iter()
        .map(|s| (s.operation_id, s.from));
    for (operation, from) in lists.chain(details) {
        out.insert(own_table(from));
        if let Some(inputs) = inputs(operation) {
            out.extend(inputs.links.iter().map(|(table, _)| *table));
        }
    }
    out
}

/// 128 bits of a digest.
pub(crate) type Key = u128;

/// The tables a whole unit of `operation_id` over `from` reads: its own table, its
/// links' and the tables it reads whole, and for a snapshot's sub-list the table of
/// the snapshot's members (`snapshot_link`); `None` for an undeclared resource.
/// Every statement a unit runs (its scope, its bodies) is checked against it as it
/// renders ([`check_unit_reads`]).
pub(crate) fn unit_tables<'a>(
    operation_id: &str,
    from: &'a str,
    snapshot_link: Option<&'a str>,
) -> Option<BTreeSet<&'a str>> {
    let inputs = inputs(operation_id)?;
    let mut out = BTreeSet::from([own_table(from)]);
    out.extend(inputs.links.iter().map(|(table, _)| *table));
    out.extend(inputs.tables.iter().copied());
    out.extend(snapshot_link);
    Some(out)
}

/// The key of a whole unit ([`super::units`]): the run's salt, the unit's identity
/// (its resource, scope, snapshot and ordering, as `identity` spells them) and the
/// digest of every table in `tables`. Two runs with equal unit keys make the same
/// files, with the same keys. `None` when a table has no digest.
pub(crate) fn unit_key(
    digests: &Digests,
    salt: &[u8],
    identity: &str,
    tables: &BTreeSet<&str>,
) -> Option<Key> {
    unit_key_of(&digests.tables, salt, identity, tables)
}

/// [`unit_key`] with the table digests `tables_now`.
pub(crate) fn unit_key_of(
    tables_now: &HashMap<String, [u8; 32]>,
    salt: &[u8],
    identity: &str,
    tables: &BTreeSet<&str>,
) -> Option<Key> {
    let mut h = Sha256::new();
    field(&mut h, b"unit");
    field(&mut h, salt);
    field(&mut h, identity.as_bytes());
    for t in tables {
        field(&mut h, t.as_bytes());
        field(&mut h, tables_now.get(*t)?);
    }
    Some(key_of(h))
}

/// Fails when a statement of the unit `operation_id` read a table outside its
/// [`unit_tables`]: the unit would be skipped while that table changed.
pub(crate) fn check_unit_reads(
    operation_id: &str,
    read: &BTreeSet<String>,
    tables: &BTreeSet<&str>,
) -> anyhow::Result<()> {
    match read.iter().find(|t| !tables.contains(t.as_str())) {
        None => Ok(()),
        Some(t) => Err(anyhow!(
            "the {operation_id} files are listed from table {t}, which the generator does \
             not list among their inputs (src/generate/keys.rs): they would not follow \
             changes of {t}"
        )),
    }
}

fn key_of(hasher: Sha256) -> Key {
    let digest = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    u128::from_le_bytes(bytes)
}

/// The digest of one row's bytes (as [`super::input`] reads them).
pub(crate) fn row_key(bytes: &[u8]) -> Key {
    let mut h = Sha256::new();
    h.update(bytes);
    key_of(h)
}

/// The dataset's digests: every table's, and every row's of [`row_tables`].
#[derive(Debug, Default)]
pub(crate) struct Digests {
    pub tables: HashMap<String, [u8; 32]>,
    pub rows: HashMap<String, Rows>,
    /// The digests the previous run recorded and what changed since, when this run
    /// made its digests from them.
    pub since: Option<Since>,
}

/// The dataset as the previous run recorded it ([`super::input`]): every logged
/// table's digest then, and for the tables read row by row whose changes the log
/// named row by row, the `rowid`s it named since (ascending; a table absent here
/// changed in ways the log does not say row by row, or was read whole).
#[derive(Debug, Default)]
pub(crate) struct Since {
    pub tables: HashMap<String, [u8; 32]>,
    pub rows: HashMap<String, Vec<i64>>,
}

/// A length-prefixed field into a hasher.
fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// The keys of one resource's files in one run.
pub(crate) struct Resource<'a> {
    /// Salt, resource and whole tables, hashed once.
    base: Sha256,
    own: Option<&'a Rows>,
    links: Vec<Option<&'a Rows>>,
    inputs: &'static Inputs,
    table: &'a str,
}

impl<'a> Resource<'a> {
    /// The key maker of the resource `operation_id` over `from`; `None` when it has
    /// no declared inputs.
    pub(crate) fn new(
        digests: &'a Digests,
        salt: &[u8],
        operation_id: &str,
        from: &'a str,
        scope: &str,
    ) -> Option<Resource<'a>> {
        let inputs = inputs(operation_id)?;
        let table = own_table(from);
        let mut base = Sha256::new();
        field(&mut base, salt);
        field(&mut base, operation_id.as_bytes());
        field(&mut base, scope.as_bytes());
        for t in inputs.tables {
            field(&mut base, t.as_bytes());
            field(&mut base, digests.tables.get(*t)?);
        }
        Some(Resource {
            base,
            own: digests.rows.get(table),
            links: inputs
                .links
                .iter()
                .map(|(t, _)| digests.rows.get(*t))
                .collect(),
            inputs,
            table,
        })
        .filter(|r| r.own.is_some() && r.links.iter().all(Option::is_some))
    }

    /// The link expressions, in [`Inputs::links`] order.
    pub(crate) fn link_sql(&self) -> Vec<&'static str> {
        self.inputs.links.iter().map(|(_, sql)| *sql).collect()
    }

    /// The digest of one record: its row and the rows it links to (absent rows
    /// count as zero).
    pub(crate) fn record(&self, id: i64, links: &[Option<i64>]) -> Key {
        let row = |map: Option<&Rows>, id: Option<i64>| -> Key {
            id.and_then(|id| map.and_then(|m| m.get(id))).unwrap_or(0)
        };
        let mut h = Sha256::new();
        h.update(id.to_le_bytes());
        h.update(row(self.own, Some(id)).to_le_bytes());
        for (map, value) in self.links.iter().zip(links) {
            h.update(value.unwrap_or(-1).to_le_bytes());
            h.update(row(*map, *value).to_le_bytes());
        }
        key_of(h)
    }

    /// The key of a file at `path` made of `records` (their [`Self::record`]
    /// digests) with the list envelope's `page` and `total` (zero for a detail).
    pub(crate) fn file(&self, path: &Path, page: u64, total: u64, records: &[Key]) -> Key {
        let mut h = self.base.clone();
        field(&mut h, path.as_os_str().as_encoded_bytes());
        h.update(page.to_le_bytes());
        h.update(total.to_le_bytes());
        for r in records {
            h.update(r.to_le_bytes());
        }
        key_of(h)
    }

    /// Fails when a body of this resource read a table its inputs do not name.
    pub(crate) fn check_reads(
        &self,
        operation_id: &str,
        read: &BTreeSet<String>,
    ) -> anyhow::Result<()> {
        let known = |t: &str| {
            t == self.table
                || self.inputs.links.iter().any(|(l, _)| *l == t)
                || self.inputs.tables.contains(&t)
        };
        match read.iter().find(|t| !known(t)) {
            None => Ok(()),
            Some(t) => Err(anyhow!(
                "{operation_id} is rendered from table {t}, which the generator does not \
                 list among its inputs (src/generate/keys.rs): its files would not follow \
                 changes of {t}"
            )),
        }
    }
}

/// Records the tables that statements prepared on `conn` read, until [`stop_watch`].
/// On a `guarded` connection (one that answers the API) the exposure guard goes on
/// refusing what it refuses (`crate::schema::exposure::guard`).
pub(crate) fn watch(
    conn: &mut rusqlite::Connection,
    guarded: bool,
) -> rusqlite::Result<Arc<Mutex<BTreeSet<String>>>> {
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let sink = Arc::clone(&seen);
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        if let AuthAction::Read { table_name, .. } = ctx.action {
            // A read of an exposure view is one of its table (SQLite reports both).
            let table = exposure::table_of(table_name);
            let mut seen = sink.lock().unwrap_or_else(PoisonError::into_inner);
            if !seen.contains(table) {
                seen.insert(table.to_string());
            }
        }
        if guarded {
            exposure::guard(&ctx)
        } else {
            Authorization::Allow
        }
    }))?;
    Ok(seen)
}

/// Removes the [`watch`] of `conn`, leaving the exposure guard on a `guarded` one.
pub(crate) fn stop_watch(conn: &mut rusqlite::Connection, guarded: bool) -> rusqlite::Result<()> {
    if guarded {
        exposure::install_guard(conn)
    } else {
        conn.authorizer(None::<fn(AuthContext<'_>) -> Authorization>)
    }
}

/// The tables the statement `sql` reads (prepared on `conn`, not run).
pub(crate) fn tables_read(
    conn: &mut rusqlite::Connection,
    sql: &str,
) -> anyhow::Result<BTreeSet<String>> {
    let seen = watch(conn, false)?;
    let prepared = conn.prepare(sql).map(drop);
    stop_watch(conn, false)?;
    prepared?;
    let tables = seen.lock().unwrap_or_else(PoisonError::into_inner).clone();
    Ok(tables)
}

/// The key of the published dataset file `name` of `which` records, read by a
/// statement over `tables`.
pub(crate) fn dataset_key(
    salt: &[u8],
    digests: &Digests,
    which: super::Dataset,
    name: &str,
    tables: &BTreeSet<String>,
) -> Key {
    let mut h = Sha256::new();
    field(&mut h, salt);
    field(&mut h, b"dataset");
    field(&mut h, format!("{which:?}").as_bytes());
    field(&mut h, name.as_bytes());
    for t in tables {
        field(&mut h, t.as_bytes());
        field(&mut h, digests.tables.get(t).map_or(&[][..], |d| &d[..]));
    }
    key_of(h)
}

/// The file keys of the live generation, of the spare one ([`super::spare`]) and of
/// the one being made.
#[derive(Default)]
pub(crate) struct FileKeys {
    /// Shared with the thread that makes the new keys file of a delta run.
    previous: std::sync::Arc<KeySet>,
    /// The live generation's unit keys, sorted, and whether its units list all its
    /// files ([`KeysFile::complete`]).
    previous_units: Vec<Key>,
    previous_complete: bool,
    /// Empty without a spare generation.
    spare: KeySet,
    new: Mutex<Vec<Key>>,
    /// The unit keys of the new generation ([`super::units`]), also in `new`.
    units: Mutex<Vec<Key>>,
}

/// Sorted keys with where each value of their top bits starts among them: keys are
/// digests, spread evenly, so with a table of about one bucket for every four keys a
/// lookup reads the bucket's start and a few neighbouring keys (one or two cache
/// lines) rather than the whole list (a miss at every step of a binary search over
/// millions of keys), and a unit placed from its record asks for each of its files.
/// (With a fixed 65,536 buckets, the 11.8 million keys of `10x` made some 180 a
/// bucket, and the lookups of a one-record run 9 % of its CPU.)
#[derive(Default)]
struct SortedKeys {
    keys: Vec<Key>,
    /// `starts[b]..starts[b + 1]` holds the keys whose top `bits` bits are `b`.
    starts: Vec<u32>,
    bits: u32,
}

impl SortedKeys {
    /// The table's bits: at least 8, at most 24 (64 MB of starts), about four keys a
    /// bucket in between.
    fn bits_for(len: usize) -> u32 {
        (usize::BITS - (len / 4).leading_zeros()).clamp(8, 24)
    }

    fn new(keys: Vec<Key>) -> SortedKeys {
        if u32::try_from(keys.len()).is_err() {
            return SortedKeys {
                keys,
                starts: Vec::new(),
                bits: 0,
            };
        }
        let bits = Self::bits_for(keys.len());
        let starts = Self::starts(&keys, bits);
        SortedKeys { keys, starts, bits }
    }

    /// Where each bucket of `bits` bits starts among `keys` (sorted, fewer than
    /// 2^32), and their end.
    fn starts(keys: &[Key], bits: u32) -> Vec<u32> {
        let buckets = 1usize << bits;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut at = 0;
        for b in 0..buckets {
            while at < keys.len() && Self::bucket(keys[at], bits) < b {
                at += 1;
            }
            starts.push(at as u32);
        }
        starts.push(keys.len() as u32);
        starts
    }

    fn bucket(key: Key, bits: u32) -> usize {
        (key >> (Key::BITS - bits)) as usize
    }

    fn contains(&self, key: Key) -> bool {
        // No table (no keys, or more than it can index): the keys searched whole.
        if self.starts.is_empty() {
            return self.keys.binary_search(&key).is_ok();
        }
        let b = Self::bucket(key, self.bits);
        let (lo, hi) = (self.starts[b] as usize, self.starts[b + 1] as usize);
        self.keys[lo..hi].binary_search(&key).is_ok()
    }
}

const MAGIC: &[u8] = b"roost file keys 3\n";

/// Where the keys of the tree at `out` live: `<parent>/.<name>.keys`.
pub(crate) fn keys_path(out: &Path) -> anyhow::Result<PathBuf> {
    beside(out, "keys")
}

/// Where the keys of the spare generation live: `<parent>/.<name>.spare-keys`.
pub(crate) fn spare_keys_path(out: &Path) -> anyhow::Result<PathBuf> {
    beside(out, "spare-keys")
}

/// Where a run writes the keys of the generation it makes, before its swap:
/// `<parent>/.<name>.next-keys`; renamed to [`keys_path`] once it is live.
pub(crate) fn next_keys_path(out: &Path) -> anyhow::Result<PathBuf> {
    beside(out, "next-keys")
}

fn beside(out: &Path, what: &str) -> anyhow::Result<PathBuf> {
    let (parent, prefix) = super::generation_prefix(out)?;
    let name = prefix.trim_end_matches('g');
    Ok(parent.join(format!("{name}{what}")))
}

/// A keys file: the generation it names, its keys (of its files and units) and its
/// units' keys.
pub(crate) struct KeysFile {
    pub generation: String,
    pub keys: KeySet,
    /// The unit keys among `keys` (the records of [`super::units`]), sorted.
    pub units: Vec<Key>,
    /// Whether every file of the generation is listed in the record of one of
    /// `units`: then a run can tell the generation's files apart by unit (a delta
    /// run, [`super::delta`]).
    pub complete: bool,
}

/// A keys file read, its base opened in `bases` (the unit records' folder); `None`
/// when it is absent, unreadable, torn, malformed or its base is missing.
///
/// The file is the magic line, the generation's name and a newline, its base's name
/// ([`stored`]) and a newline, how many unit keys (8 bytes), whether the units list
/// every file (1 byte), how many keys the generation adds to its base and how many
/// of the base's it lacks (8 bytes each), then the unit keys, the keys added and the
/// keys taken out, and the XXH3-128 of all before it. Keys are 16 bytes,
/// little-endian; each list sorted, each key once.
pub(crate) fn read_keys(path: &Path, bases: &Path) -> Option<KeysFile> {
    let bytes = fs::read(path).ok()?;
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(16)?)?;
    if xxhash_rust::xxh3::xxh3_128(body).to_le_bytes() != sum {
        return None;
    }
    let rest = body.strip_prefix(MAGIC)?;
    let mut lines = rest.splitn(3, |&b| b == b'\n');
    let generation = std::str::from_utf8(lines.next()?).ok()?.to_string();
    let base = std::str::from_utf8(lines.next()?).ok()?.to_string();
    fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (taken, left) = rest.split_at_checked(n)?;
        *rest = left;
        Some(taken)
    }
    fn count(rest: &mut &[u8]) -> Option<usize> {
        usize::try_from(u64::from_le_bytes(take(rest, 8)?.try_into().ok()?)).ok()
    }
    let mut rest = lines.next()?;
    let units = count(&mut rest)?;
    let complete = match take(&mut rest, 1)?[0] {
        0 => false,
        1 => true,
        _ => return None,
    };
    let (added, removed) = (count(&mut rest)?, count(&mut rest)?);
    let mut list = |n: usize| -> Option<Vec<Key>> {
        let keys: Vec<Key> = take(&mut rest, n.checked_mul(16)?)?
            .chunks_exact(16)
            .map(|c| u128::from_le_bytes(c.try_into().unwrap_or([0; 16])))
            .collect();
        keys.windows(2).all(|w| w[0] < w[1]).then_some(keys)
    };
    let (units, added, removed) = (list(units)?, list(added)?, list(removed)?);
    if !rest.is_empty() {
        return None;
    }
    let base = match base.as_str() {
        "" => None,
        name => Some(stored::Base::open(bases, name)?),
    };
    let keys = KeySet::patched(base, added, removed);
    units.iter().all(|u| keys.contains(*u)).then_some(KeysFile {
        generation,
        keys,
        units,
        complete,
    })
}

/// The names of the bases the keys files beside `out` name (the live, spare and next
/// generations'): those the unit records' folder keeps.
pub(crate) fn bases_in_use(out: &Path) -> Vec<String> {
    [keys_path(out), spare_keys_path(out), next_keys_path(out)]
        .into_iter()
        .flatten()
        .filter_map(|path| {
            use std::io::Read as _;
            let mut head = vec![0; 512];
            let n = fs::File::open(path)
                .and_then(|mut f| f.read(&mut head))
                .ok()?;
            let mut lines = head[..n].strip_prefix(MAGIC)?.split(|&b| b == b'\n');
            let name = lines.nth(1)?;
            let name = std::str::from_utf8(name).ok()?;
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

impl FileKeys {
    /// The keys recorded for `generation` beside `out` (their bases in `bases`); none
    /// when the file is absent,
    /// unreadable or describes another generation. Keys a run wrote for the
    /// generation it made but had not yet moved into place when it stopped are moved
    /// now.
    pub(crate) fn load(out: &Path, bases: &Path, generation: Option<&str>) -> FileKeys {
        let named = |path: &Path| {
            let file = read_keys(path, bases)?;
            (Some(file.generation.as_str()) == generation).then_some(file)
        };
        let previous = (|| {
            let (live, next) = (keys_path(out).ok()?, next_keys_path(out).ok()?);
            named(&live).or_else(|| {
                let keys = named(&next)?;
                fs::rename(&next, &live).ok()?;
                Some(keys)
            })
        })()
        .unwrap_or(KeysFile {
            generation: String::new(),
            keys: KeySet::default(),
            units: Vec::new(),
            complete: false,
        });
        FileKeys {
            previous: std::sync::Arc::new(previous.keys),
            previous_units: previous.units,
            previous_complete: previous.complete,
            spare: KeySet::default(),
            new: Mutex::new(Vec::new()),
            units: Mutex::new(Vec::new()),
        }
    }

    /// Whether keys were recorded for the live generation.
    pub(crate) fn has_previous(&self) -> bool {
        !self.previous.is_empty()
    }

    /// The keys of the spare generation this run updates in place.
    pub(crate) fn set_spare(&mut self, keys: KeySet) {
        self.spare = keys;
    }

    /// How many keys the live generation has.
    pub(crate) fn previous_len(&self) -> usize {
        self.previous.len()
    }

    /// How many of the live generation's keys `other` has too
    /// ([`KeySet::shared_with`]).
    pub(crate) fn shared_with(&self, other: &KeySet) -> usize {
        self.previous.shared_with(other)
    }

    /// Whether the live generation has a file with this key.
    pub(crate) fn had(&self, key: Key) -> bool {
        self.previous.contains(key)
    }

    /// Whether both the live and the spare generation have a file with this key: the
    /// spare's file is already the one this run would link.
    pub(crate) fn kept(&self, key: Key) -> bool {
        self.had(key) && self.spare.contains(key)
    }

    /// Whether the spare generation this run updates in place has this key (a
    /// unit's: it holds that unit's files as its record lists them).
    pub(crate) fn spare_has(&self, key: Key) -> bool {
        self.spare.contains(key)
    }

    /// Records the keys of files of the new generation.
    pub(crate) fn add(&self, keys: Vec<Key>) {
        self.new
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(keys);
    }

    /// Records the key of a whole unit of the new generation, whose record
    /// ([`super::units`]) is written: it goes with the file keys, so the next run
    /// knows the live generation holds that unit's files.
    pub(crate) fn add_unit(&self, key: Key) {
        self.units
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(key);
        self.add(vec![key]);
    }

    /// Whether `key` is a unit key of the new generation or any key of the live one:
    /// the unit records the next run can use.
    pub(crate) fn unit_in_use(&self, key: Key) -> bool {
        self.had(key)
            || self
                .units
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&key)
    }

    /// The live generation's unit keys, sorted, when its units list every one of its
    /// files ([`KeysFile::complete`]); else none.
    pub(crate) fn previous_units(&self) -> Option<&[Key]> {
        self.previous_complete
            .then_some(self.previous_units.as_slice())
    }

    /// Takes the new generation's keys, once every unit has given its own, with
    /// whether its units list all its files (`complete`). With `carried` (a delta run,
    /// [`super::delta`]), the live generation's keys but the `removed` ones (sorted)
    /// are the new generation's too. Encoding them ([`NewKeys::encode`]) sorts them,
    /// a share of a run that changed little, so the caller can do it on a thread of
    /// its own while the manifest is made.
    pub(crate) fn take_new(&self, complete: bool, removed: Option<Vec<Key>>) -> NewKeys {
        // Kept: the records in use after the swap are those of the new units too.
        let units = self
            .units
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let carried = removed.map(|removed| Carried {
            live: std::sync::Arc::clone(&self.previous),
            units: self.previous_units.clone(),
            removed,
        });
        NewKeys {
            keys: std::mem::take(&mut *self.new.lock().unwrap_or_else(PoisonError::into_inner)),
            units,
            complete,
            carried,
        }
    }
}

/// What a delta run's new generation keeps of the live one's keys: all of them but
/// those `removed` (sorted).
struct Carried {
    live: std::sync::Arc<KeySet>,
    units: Vec<Key>,
    removed: Vec<Key>,
}

/// The keys of a new generation's files and units, in the order they were made.
pub(crate) struct NewKeys {
    keys: Vec<Key>,
    units: Vec<Key>,
    complete: bool,
    carried: Option<Carried>,
}

/// `a` and `b` (each sorted, each key once) as one sorted list, each key once.
fn union(a: impl Iterator<Item = Key>, b: &[Key]) -> Vec<Key> {
    let mut out = Vec::with_capacity(b.len());
    let mut b = b.iter().copied().peekable();
    for k in a {
        while let Some(x) = b.next_if(|x| *x < k) {
            out.push(x);
        }
        b.next_if_eq(&k);
        out.push(k);
    }
    out.extend(b);
    out
}

impl NewKeys {
    /// The keys file of `generation` ([`read_keys`]), its base in `bases`: with the
    /// live generation's keys carried (a delta run), a patch of their base while it
    /// stays small ([`KeySet::then`]); else a new base of its keys, written now.
    pub(crate) fn encode(mut self, generation: &str, bases: &Path) -> anyhow::Result<Vec<u8>> {
        for keys in [&mut self.keys, &mut self.units] {
            keys.sort_unstable();
            keys.dedup();
        }
        let (keys, units) = match &self.carried {
            None => (KeySet::whole(self.keys, bases, generation)?, self.units),
            Some(c) => {
                let kept = c
                    .units
                    .iter()
                    .copied()
                    .filter(|k| c.removed.binary_search(k).is_err());
                (
                    c.live.then(&c.removed, &self.keys, bases, generation)?,
                    union(kept, &self.units),
                )
            }
        };
        let (added, removed) = keys.patch();
        let mut bytes = Vec::with_capacity(
            MAGIC.len() + generation.len() + 80 + (units.len() + added.len() + removed.len()) * 16,
        );
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(generation.as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(keys.base_name().unwrap_or_default().as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(&(units.len() as u64).to_le_bytes());
        bytes.push(u8::from(self.complete));
        bytes.extend_from_slice(&(added.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&(removed.len() as u64).to_le_bytes());
        for k in units.iter().chain(added).chain(removed) {
            bytes.extend_from_slice(&k.to_le_bytes());
        }
        let sum = xxhash_rust::xxh3::xxh3_128(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        Ok(bytes)
    }
}

/// Writes a new generation's keys file (`bytes`, [`NewKeys::encode`]) beside `out` as
/// [`next_keys_path`] (synced, then renamed into place; the temporary file is removed
/// when a step fails), for [`promote`] to move once the generation is live.
pub(crate) fn write_next(out: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    super::generations::replace_file(&next_keys_path(out)?, bytes, "generate::record_keys")
}

/// Once the generation whose keys a run wrote is live: the replaced generation's keys
/// become the spare's when `keep` (false when they cannot: the replaced generation is
/// then to be removed), and the new keys take their place. Best effort, as everything
/// after the swap: keys left at [`next_keys_path`] are moved by the next run's
/// [`FileKeys::load`]. Whether the replaced generation is the spare now.
pub(crate) fn promote(out: &Path, keep: bool) -> bool {
    let (Ok(live), Ok(next), Ok(spare)) =
        (keys_path(out), next_keys_path(out), spare_keys_path(out))
    else {
        return false;
    };
    let kept = keep && fs::rename(&live, &spare).is_ok();
    if !kept {
        let _ = fs::remove_file(&spare);
    }
    crate::crash::point("generate::promote_keys");
    let _ = fs::rename(&next, &live);
    kept
}

/// A run that keeps the live generation `generation` (nothing rendered, so no
/// [`FileKeys::load`]) moves that generation's keys into place when the run that made
/// it was stopped between its swap and [`promote`]: they are at [`next_keys_path`]
/// while [`keys_path`] names the generation it replaced. Only the files' first line is
/// read.
pub(crate) fn promote_pending(out: &Path, generation: &str) {
    let (Ok(live), Ok(next)) = (keys_path(out), next_keys_path(out)) else {
        return;
    };
    let names = |path: &Path| {
        use std::io::Read as _;
        let header = [MAGIC, generation.as_bytes(), b"\n"].concat();
        let mut found = vec![0; header.len()];
        fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut found))
            .is_ok_and(|()| found == header)
    };
    if !names(&live) && names(&next) {
        let _ = fs::rename(&next, &live);
    }
}

/// Removes the keys beside `out` (before a generation that records none).
pub(crate) fn remove(out: &Path) {
    for path in [keys_path(out), spare_keys_path(out), next_keys_path(out)]
        .into_iter()
        .flatten()
    {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names as a set of tables read.
    fn read(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|t| t.to_string()).collect()
    }

    /// A refused read's message names the operation and the table read outside.
    fn assert_refused(checked: anyhow::Result<()>, operation_id: &str, table: &str) {
        let err = checked.unwrap_err().to_string();
        assert!(err.contains(operation_id) && err.contains(table), "{err}");
    }

    #[test]
    fn a_table_read_outside_the_declared_inputs_fails_the_run() {
        let digests = Digests {
            tables: HashMap::new(),
            rows: HashMap::from([("sponsors".to_string(), Rows::default())]),
            since: None,
        };
        let resource = Resource::new(&digests, b"salt", "get_sponsor", "sponsors t", "").unwrap();
        assert!(resource
            .check_reads("get_sponsor", &read(&["sponsors"]))
            .is_ok());
        let checked = resource.check_reads("get_sponsor", &read(&["sponsors", "leaders"]));
        assert_refused(checked, "get_sponsor", "leaders");
    }

    #[test]
    fn a_unit_key_follows_every_table_the_unit_reads() {
        let tables =
            unit_tables("list_snapshot_issues", "issues t", Some("snapshot_issues")).unwrap();
        assert_eq!(
            tables.iter().copied().collect::<Vec<_>>(),
            ["issues", "organizations", "repositories", "snapshot_issues"]
        );
        assert!(unit_tables("list_wombats", "wombats t", None).is_none());
        let mut digests = Digests::default();
        for t in &tables {
            digests.tables.insert(t.to_string(), [1; 32]);
        }
        let key = |digests: &Digests, identity: &str| unit_key(digests, b"salt", identity, &tables);
        let before = key(&digests, "list_snapshot_issues 1").unwrap();
        assert_eq!(key(&digests, "list_snapshot_issues 1"), Some(before));
        assert_ne!(key(&digests, "list_snapshot_issues 2"), Some(before));
        assert_ne!(
            unit_key(&digests, b"other salt", "list_snapshot_issues 1", &tables),
            Some(before)
        );
        digests.tables.insert("snapshot_issues".into(), [2; 32]);
        assert_ne!(key(&digests, "list_snapshot_issues 1"), Some(before));
        digests.tables.remove("organizations");
        assert_eq!(key(&digests, "list_snapshot_issues 1"), None);
        assert!(check_unit_reads("list_snapshot_issues", &read(&["issues"]), &tables).is_ok());
        let checked = check_unit_reads(
            "list_snapshot_issues",
            &read(&["issues", "labels"]),
            &tables,
        );
        assert_refused(checked, "list_snapshot_issues", "labels");
    }

    #[test]
    fn a_keys_file_reads_back_with_its_units_and_a_delta_keeps_the_live_keys_not_removed() {
        let dir = tempfile::tempdir().unwrap();
        let (path, bases) = (dir.path().join("keys"), dir.path().join("units"));
        let live = FileKeys {
            previous: Arc::new(KeySet::whole(vec![1, 2, 3, 4, 5], &bases, "g0").unwrap()),
            previous_units: vec![2, 4],
            previous_complete: true,
            ..FileKeys::default()
        };
        assert_eq!(live.previous_units(), Some(&[2, 4][..]));
        live.add(vec![9, 3]);
        live.add_unit(7);
        // 2 and 3 taken out, 3 made again: the live keys but 2, and the new ones.
        let encode = |keys: NewKeys, generation: &str| keys.encode(generation, &bases).unwrap();
        fs::write(&path, encode(live.take_new(true, Some(vec![2, 3])), "g1")).unwrap();
        let file = read_keys(&path, &bases).unwrap();
        assert_eq!(file.generation, "g1");
        assert_eq!(file.keys.keys().unwrap(), [1, 3, 4, 5, 7, 9]);
        assert_eq!(file.units, [4, 7]);
        assert!(file.complete);
        // Not a delta, and not complete: only the new keys, and no units to trust.
        let whole = FileKeys::default();
        whole.add(vec![5, 1]);
        whole.add_unit(3);
        fs::write(&path, encode(whole.take_new(false, None), "g2")).unwrap();
        let file = read_keys(&path, &bases).unwrap();
        assert_eq!(
            (
                &file.keys.keys().unwrap()[..],
                &file.units[..],
                file.complete
            ),
            (&[1, 3, 5][..], &[3][..], false)
        );
        let loaded = FileKeys {
            previous_units: file.units,
            previous_complete: file.complete,
            ..FileKeys::default()
        };
        assert_eq!(loaded.previous_units(), None);
        // Torn, damaged, or without its base: not read.
        let bytes = fs::read(&path).unwrap();
        for cut in [MAGIC.len(), bytes.len() - 8, bytes.len() - 1] {
            fs::write(&path, &bytes[..cut]).unwrap();
            assert!(read_keys(&path, &bases).is_none(), "torn at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[MAGIC.len() + 1] ^= 1;
        fs::write(&path, &flipped).unwrap();
        assert!(read_keys(&path, &bases).is_none(), "damaged");
        fs::write(&path, &bytes).unwrap();
        assert!(read_keys(&path, &bases).is_some());
        fs::remove_file(bases.join(stored::base_name("g2"))).unwrap();
        assert!(read_keys(&path, &bases).is_none(), "without its base");
        // A unit key that is not among the keys.
        let stray = NewKeys {
            keys: vec![1],
            units: vec![8],
            complete: false,
            carried: None,
        };
        fs::write(&path, encode(stray, "g3")).unwrap();
        assert!(
            read_keys(&path, &bases).is_none(),
            "a unit key among no keys"
        );
    }

    #[test]
    fn sorted_keys_find_exactly_their_keys() {
        let mut keys: Vec<Key> = (0u32..5_000)
            .map(|i| row_key(&i.to_le_bytes()))
            .chain([0, 1, Key::MAX, Key::MAX - 1, 1 << 112, (1 << 112) - 1])
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let probes: Vec<Key> = keys
            .iter()
            .flat_map(|k| [*k, k.wrapping_add(1), k.wrapping_sub(1)])
            .chain((5_000u32..6_000).map(|i| row_key(&i.to_le_bytes())))
            .collect();
        let sorted = SortedKeys::new(keys.clone());
        for probe in probes {
            assert_eq!(
                sorted.contains(probe),
                keys.binary_search(&probe).is_ok(),
                "{probe:x}"
            );
        }
        assert!(!SortedKeys::new(Vec::new()).contains(0));
        assert!(!SortedKeys::default().contains(0));
        // The table grows with the keys: about four a bucket, within its bounds.
        assert_eq!(SortedKeys::new(keys.clone()).bits, 11);
        assert_eq!(SortedKeys::bits_for(0), 8);
        assert_eq!(SortedKeys::bits_for(11_800_000), 22);
        assert_eq!(SortedKeys::bits_for(usize::MAX), 24);
    }

    #[test]
    fn a_file_key_follows_its_records_and_their_links() {
        let rows = |pairs: &[(i64, Key)]| {
            Rows::new(
                pairs.iter().map(|p| p.0).collect(),
                pairs.iter().map(|p| p.1).collect(),
            )
            .unwrap()
        };
        let mut digests = Digests::default();
        digests
            .rows
            .insert("issues".into(), rows(&[(1, 10), (2, 20)]));
        digests.rows.insert("repositories".into(), rows(&[(7, 70)]));
        digests
            .rows
            .insert("organizations".into(), rows(&[(9, 90)]));
        let key = |digests: &Digests, page: u64| {
            let r = Resource::new(digests, b"salt", "list_issues", "issues t", "").unwrap();
            let records = [
                r.record(1, &[Some(7), Some(9)]),
                r.record(2, &[Some(7), Some(9)]),
            ];
            r.file(Path::new("api/v0/issues/index.json"), page, 2, &records)
        };
        let before = key(&digests, 1);
        assert_eq!(key(&digests, 1), before);
        assert_ne!(key(&digests, 2), before);
        digests.rows.insert("repositories".into(), rows(&[(7, 71)]));
        assert_ne!(key(&digests, 1), before);
    }
}
