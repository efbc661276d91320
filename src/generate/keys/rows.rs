//! The digests of one table's rows ([`Rows`]): the rows of a base (held in memory, or
//! a section of a file that is read only where it is looked at) with the rows changed
//! since it, and a digest of them all that each change updates.

use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use xxhash_rust::xxh3::xxh3_128_with_seed;

use super::{Key, LOOKUPS_BEFORE_LOADING};

/// A file of row digests, open, by its name.
pub(crate) struct BaseFile {
    pub(crate) name: String,
    pub(crate) file: File,
}

/// One table's section of a [`BaseFile`]: `n` ids (8 bytes each, little-endian,
/// ascending) at offset `ids`, their keys (16 bytes each) at offset `keys`.
pub(crate) struct Section {
    pub(crate) base: Arc<BaseFile>,
    pub(crate) table: String,
    pub(crate) ids: u64,
    pub(crate) keys: u64,
    pub(crate) n: usize,
}

/// A section being read: row by row, or whole once looked up often.
struct Reading {
    section: Section,
    lookups: AtomicUsize,
    /// The section's ids and keys; `None` when it could not be read.
    whole: OnceLock<Option<(Vec<i64>, Vec<Key>)>>,
}

impl Reading {
    fn read_at<const N: usize>(&self, at: u64) -> Option<[u8; N]> {
        let mut bytes = [0u8; N];
        self.section.base.file.read_exact_at(&mut bytes, at).ok()?;
        Some(bytes)
    }

    fn id(&self, i: usize) -> Option<i64> {
        let at = self.section.ids + i as u64 * 8;
        self.read_at(at).map(i64::from_le_bytes)
    }

    fn key(&self, i: usize) -> Option<Key> {
        let at = self.section.keys + i as u64 * 16;
        self.read_at(at).map(Key::from_le_bytes)
    }

    fn whole(&self) -> Option<&(Vec<i64>, Vec<Key>)> {
        self.whole
            .get_or_init(|| {
                let n = self.section.n;
                let file = &self.section.base.file;
                let mut ids = vec![0u8; n * 8];
                let mut keys = vec![0u8; n * 16];
                file.read_exact_at(&mut ids, self.section.ids).ok()?;
                file.read_exact_at(&mut keys, self.section.keys).ok()?;
                let ids = ids
                    .chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect();
                let keys = keys
                    .chunks_exact(16)
                    .map(|c| Key::from_le_bytes(c.try_into().unwrap_or([0; 16])))
                    .collect();
                Some((ids, keys))
            })
            .as_ref()
    }

    /// The digest of row `id`, read from the file: at its place when the ids run
    /// without gaps from the first, else found by halving. A row that cannot be read
    /// has none (its files are rendered again).
    fn get(&self, id: i64) -> Option<Key> {
        if self.lookups.fetch_add(1, Ordering::Relaxed) >= LOOKUPS_BEFORE_LOADING
            || self.whole.get().is_some()
        {
            let (ids, keys) = self.whole()?;
            return get_in(ids, keys, id);
        }
        let n = self.section.n;
        if n == 0 {
            return None;
        }
        let at = usize::try_from(id.wrapping_sub(self.id(0)?)).ok();
        if let Some(i) = at.filter(|&i| i < n) {
            if self.id(i)? == id {
                return self.key(i);
            }
        }
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.id(mid)?.cmp(&id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return self.key(mid),
            }
        }
        None
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        tracing::debug!(
            base = %self.section.base.name,
            table = %self.section.table,
            rows = self.section.n,
            lookups = self.lookups.load(Ordering::Relaxed),
            whole = self.whole.get().is_some(),
            "a table's rows looked up in the digests base"
        );
    }
}

/// The digest of row `id` among `ids` (ascending) and their `keys`.
fn get_in(ids: &[i64], keys: &[Key], id: i64) -> Option<Key> {
    let first = *ids.first()?;
    let at = usize::try_from(id.wrapping_sub(first)).ok();
    if let Some(i) = at.filter(|&i| ids.get(i) == Some(&id)) {
        return Some(keys[i]);
    }
    ids.binary_search(&id).ok().map(|i| keys[i])
}

/// The rows a [`Rows`] is a change of.
#[derive(Clone)]
enum Stored {
    Owned { ids: Vec<i64>, keys: Vec<Key> },
    Read(Arc<Reading>),
}

impl Default for Stored {
    fn default() -> Stored {
        Stored::Owned {
            ids: Vec::new(),
            keys: Vec::new(),
        }
    }
}

impl Stored {
    fn len(&self) -> usize {
        match self {
            Stored::Owned { ids, .. } => ids.len(),
            Stored::Read(r) => r.section.n,
        }
    }

    fn get(&self, id: i64) -> Option<Key> {
        match self {
            Stored::Owned { ids, keys } => get_in(ids, keys, id),
            Stored::Read(r) => r.get(id),
        }
    }

    /// The ids and keys, read whole if they are in a file; `None` when they cannot be
    /// read.
    fn all(&self) -> Option<(&[i64], &[Key])> {
        match self {
            Stored::Owned { ids, keys } => Some((ids, keys)),
            Stored::Read(r) => r.whole().map(|(ids, keys)| (&ids[..], &keys[..])),
        }
    }
}

/// The digest of a set of rows: the sum, lane by lane (wrapping), of two seeded
/// XXH3-128 of each row's id and digest. A sum is updated by a changed row alone, and
/// two sets of the same rows have the same sum in any order of making.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sum([u64; 4]);

impl Sum {
    fn row(id: i64, key: Key) -> [u64; 4] {
        let mut bytes = [0u8; 24];
        bytes[..8].copy_from_slice(&id.to_le_bytes());
        bytes[8..].copy_from_slice(&key.to_le_bytes());
        let (a, b) = (xxh3_128_with_seed(&bytes, 1), xxh3_128_with_seed(&bytes, 2));
        [a as u64, (a >> 64) as u64, b as u64, (b >> 64) as u64]
    }

    fn add(&mut self, id: i64, key: Key) {
        for (lane, h) in self.0.iter_mut().zip(Sum::row(id, key)) {
            *lane = lane.wrapping_add(h);
        }
    }

    fn sub(&mut self, id: i64, key: Key) {
        for (lane, h) in self.0.iter_mut().zip(Sum::row(id, key)) {
            *lane = lane.wrapping_sub(h);
        }
    }

    pub(crate) fn to_bytes(self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, lane) in out.chunks_exact_mut(8).zip(self.0) {
            chunk.copy_from_slice(&lane.to_le_bytes());
        }
        out
    }

    pub(crate) fn from_bytes(bytes: [u8; 32]) -> Sum {
        let mut lanes = [0u64; 4];
        for (lane, chunk) in lanes.iter_mut().zip(bytes.chunks_exact(8)) {
            *lane = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        }
        Sum(lanes)
    }
}

/// The digests of one table's rows, by `rowid`: those of a base with the rows changed
/// since (a patch), their count and their [`Sum`]. A table's rowids are mostly one run
/// from its first (every record table is numbered so by `db import`), so a lookup in
/// the base is mostly an index.
#[derive(Default, Clone)]
pub(crate) struct Rows {
    stored: Stored,
    /// Rows changed since `stored`, ascending ids, each once: the row's digest, or
    /// `None` for a row gone.
    patch: Vec<(i64, Option<Key>)>,
    len: usize,
    sum: Sum,
}

impl Rows {
    /// The rows `ids` (ascending) with their `keys`; `None` when the ids are not
    /// ascending or the lengths differ.
    pub(crate) fn new(ids: Vec<i64>, keys: Vec<Key>) -> Option<Rows> {
        if ids.len() != keys.len() || !ids.windows(2).all(|w| w[0] < w[1]) {
            return None;
        }
        let mut sum = Sum::default();
        for (&id, &key) in ids.iter().zip(&keys) {
            sum.add(id, key);
        }
        Some(Rows {
            len: ids.len(),
            stored: Stored::Owned { ids, keys },
            patch: Vec::new(),
            sum,
        })
    }

    /// The rows of a base's `section` with `patch` (ascending ids, each once), whose
    /// count and sum were recorded with the patch.
    pub(crate) fn of_base(
        section: Section,
        patch: Vec<(i64, Option<Key>)>,
        len: usize,
        sum: Sum,
    ) -> Option<Rows> {
        patch.windows(2).all(|w| w[0].0 < w[1].0).then_some(Rows {
            stored: Stored::Read(Arc::new(Reading {
                section,
                lookups: AtomicUsize::new(0),
                whole: OnceLock::new(),
            })),
            patch,
            len,
            sum,
        })
    }

    /// The digest of row `id`.
    pub(crate) fn get(&self, id: i64) -> Option<Key> {
        match self.patch.binary_search_by_key(&id, |p| p.0) {
            Ok(i) => self.patch[i].1,
            Err(_) => self.stored.get(id),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The digest of all the rows (see [`Sum`]).
    pub(crate) fn sum(&self) -> Sum {
        self.sum
    }

    /// The rows changed since the base.
    pub(crate) fn patch(&self) -> &[(i64, Option<Key>)] {
        &self.patch
    }

    /// The name of the base file these rows are a patch of; `None` when they are
    /// held in memory.
    pub(crate) fn base_name(&self) -> Option<&str> {
        match &self.stored {
            Stored::Read(r) => Some(&r.section.base.name),
            Stored::Owned { .. } => None,
        }
    }

    /// The rows of the base these rows are a patch of.
    pub(crate) fn base_len(&self) -> usize {
        self.stored.len()
    }

    /// Every row, ascending ids; `None` when the base file cannot be read.
    pub(crate) fn iter(&self) -> Option<impl Iterator<Item = (i64, Key)> + '_> {
        let (ids, keys) = self.stored.all()?;
        let stored = ids.iter().zip(keys).map(|(&id, &key)| (id, Some(key)));
        let merged = merge(stored, self.patch.iter().copied());
        Some(merged.filter_map(|(id, key)| Some((id, key?))))
    }

    /// These rows with `changed` (ascending ids; `None`: the row is gone) applied: the
    /// same base, a patch of both changes (the later one kept for a row changed twice).
    pub(crate) fn updated(&self, changed: &[(i64, Option<Key>)]) -> Rows {
        let (mut len, mut sum) = (self.len, self.sum);
        for &(id, key) in changed {
            if let Some(old) = self.get(id) {
                sum.sub(id, old);
                len -= 1;
            }
            if let Some(key) = key {
                sum.add(id, key);
                len += 1;
            }
        }
        let patch = merge(self.patch.iter().copied(), changed.iter().copied()).collect();
        Rows {
            stored: self.stored.clone(),
            patch,
            len,
            sum,
        }
    }
}

/// `a` and `b` (each by ascending id, each id once) merged by id; where both hold an
/// id, `b`'s entry is kept.
fn merge(
    a: impl Iterator<Item = (i64, Option<Key>)>,
    b: impl Iterator<Item = (i64, Option<Key>)>,
) -> impl Iterator<Item = (i64, Option<Key>)> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y.0 <= x.0 => {
            if x.0 == y.0 {
                a.next();
            }
            b.next()
        }
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// Two sets of rows are equal when they hold the same rows with the same digests,
/// however they are stored.
impl PartialEq for Rows {
    fn eq(&self, other: &Rows) -> bool {
        self.len == other.len
            && self.sum == other.sum
            && match (self.iter(), other.iter()) {
                (Some(a), Some(b)) => a.eq(b),
                _ => false,
            }
    }
}

impl Eq for Rows {}

impl std::fmt::Debug for Rows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rows")
            .field("len", &self.len)
            .field("base", &self.base_name())
            .field("base_len", &self.stored.len())
            .field("patch", &self.patch.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_reads_as_its_rows_and_sums_as_them() {
        let base = Rows::new(vec![1, 2, 3, 5, 9], vec![10, 20, 30, 50, 90]).unwrap();
        assert_eq!(base.get(5), Some(50));
        assert_eq!(base.get(4), None);
        // Row 2 changed, row 5 gone, rows 4 and 12 new; then row 4 gone again and
        // row 3 changed.
        let once = base.updated(&[(2, Some(21)), (4, Some(40)), (5, None), (12, Some(120))]);
        let twice = once.updated(&[(3, Some(31)), (4, None), (7, None)]);
        let expected = [(1, 10), (2, 21), (3, 31), (9, 90), (12, 120)];
        assert_eq!(twice.iter().unwrap().collect::<Vec<_>>(), expected);
        assert_eq!(twice.len(), 5);
        assert_eq!(
            (twice.get(4), twice.get(5), twice.get(3)),
            (None, None, Some(31))
        );
        let (ids, keys) = expected.iter().copied().unzip();
        let whole = Rows::new(ids, keys).unwrap();
        assert_eq!(twice.sum(), whole.sum(), "the sum follows the changes");
        assert_eq!(twice, whole);
        assert_eq!(twice.patch().len(), 6);
        assert_ne!(once.sum(), whole.sum());
        // Back as they were: the sum is the base's again.
        let back = twice.updated(&[(2, Some(20)), (3, Some(30)), (5, Some(50)), (12, None)]);
        assert_eq!(back.sum(), base.sum());
        assert_eq!(back, base);
    }

    #[test]
    fn a_gap_in_the_ids_is_looked_up_by_halving() {
        let ids: Vec<i64> = (0..1000).map(|i| if i < 500 { i } else { i + 7 }).collect();
        let keys: Vec<Key> = ids.iter().map(|&i| i as Key * 3).collect();
        let rows = Rows::new(ids, keys).unwrap();
        assert_eq!(rows.get(499), Some(1497));
        assert_eq!(rows.get(600), Some(1800));
        assert_eq!(rows.get(502), None);
        assert_eq!(rows.get(-1), None);
        assert!(Rows::new(vec![2, 1], vec![0, 0]).is_none());
    }
}
