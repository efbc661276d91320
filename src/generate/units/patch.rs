//! A unit record that patches another: the groups of its *base* (a whole record) with
//! some of them replaced, or added past its end. A unit rendered where a few of its
//! rows changed writes this instead of its whole record again, so its cost follows
//! what changed: the base stays as it is, and the patch holds the groups the unit
//! replaced, those of the record it was made from among them (a patch of a patch
//! holds both, over the same base).
//!
//! A patch also names the units it was made from since its base (the last
//! [`ANCESTORS`]). Where a generation holds one of them, or the base, its files are
//! this unit's but at the groups the patch holds: so the spare being updated lacks at
//! most those ([`Patched::made_from`]), and is brought up to date without reading
//! the rest of the record.
//!
//! Layout: the head (magic, key, the base's key), how many groups and entries the
//! patched record holds (8 bytes each), how many units it was made from (4 bytes) and
//! their keys, how many groups the patch holds (8 bytes), each group's index (8
//! bytes), length (4 bytes) and bytes, then the XXH3-128 of every byte before it. A
//! patch is small, and read and checked whole.

use std::fs;
use std::path::{Path, PathBuf};

use super::super::entry::Entry;
use super::super::keys::Key;
use super::{Reader, WholeReader, HEAD, MAGIC};

/// The units a patch names it was made from: the spare being updated is a
/// generation or two behind the live one.
const ANCESTORS: usize = 4;

/// A patch's file key and entry count of a group's bytes.
pub(in crate::generate) fn key_and_count(bytes: &[u8]) -> Option<(Key, u32)> {
    let mut r = Reader(bytes);
    Some((r.u128()?, r.u32()?))
}

/// Whether a patch of `items` groups over a record of `groups` is worth keeping
/// rather than the whole record written again: at most a thirty-second of its groups
/// (or four), so that reading a patch costs little beside the groups it replaces. A
/// debug build (the test suite's) keeps patches up to half the groups, so the small
/// lists of the tests are patched too, and written whole again past that.
pub(in crate::generate) fn patch_fits(items: usize, groups: u64) -> bool {
    let share = if cfg!(debug_assertions) { 2 } else { 32 };
    items as u64 <= (groups / share).max(4)
}

/// A patch record read and checked whole.
pub(super) struct Patch {
    pub base: Key,
    pub groups: u64,
    pub entries: u64,
    pub ancestors: Vec<Key>,
    /// Each group's index in the patched record and bytes, by index.
    pub items: Vec<(u64, Vec<u8>)>,
}

impl Patch {
    /// The patch of the unit `key` in `dir`; `None` when it is absent, torn,
    /// malformed, names another unit or is a whole record.
    pub(super) fn read(dir: &Path, key: Key) -> Option<Patch> {
        let bytes = fs::read(dir.join(super::file_name(key))).ok()?;
        let body = super::checked(&bytes)?;
        let mut r = Reader(body.strip_prefix(MAGIC)?);
        if r.u128()? != key {
            return None;
        }
        let base = r.u128()?;
        let (groups, entries) = (r.u64()?, r.u64()?);
        let ancestors = (0..r.u32()?)
            .map(|_| r.u128())
            .collect::<Option<Vec<Key>>>()?;
        let count = r.u64()?;
        let mut items = Vec::with_capacity(usize::try_from(count.min(1 << 20)).ok()?);
        for _ in 0..count {
            let i = r.u64()?;
            let len = r.u32()? as usize;
            let bytes = r.take(len)?;
            if super::group_len(bytes)? != len || items.last().is_some_and(|(at, _)| *at >= i) {
                return None;
            }
            items.push((i, bytes.to_vec()));
        }
        (base != 0 && r.0.is_empty() && items.last().is_none_or(|(i, _)| *i < groups)).then_some(
            Patch {
                base,
                groups,
                entries,
                ancestors,
                items,
            },
        )
    }

    /// Whether it patches `base` as it says: it holds at least the base's groups, and
    /// every group past them.
    pub(super) fn fits(&self, base: &WholeReader) -> bool {
        let past = self.items.iter().filter(|(i, _)| *i >= base.groups).count();
        self.groups >= base.groups && past as u64 == self.groups - base.groups
    }
}

/// A unit's record opened for a few of its groups, by their index: a patch read
/// whole over its base opened by its index, or a whole record opened by its index
/// (a base of its own, no group patched). Nothing but the head, index and trailer of
/// the base is read until a group is asked for.
pub(in crate::generate) struct Patched {
    pub key: Key,
    /// The whole record it patches (its own key for a whole record).
    pub base: Key,
    pub ancestors: Vec<Key>,
    pub groups: u64,
    pub entries: u64,
    items: Vec<(u64, Vec<u8>)>,
    reader: WholeReader,
}

impl Patched {
    /// The record of the unit `key` in `dir`; `None` when it or its base is absent,
    /// torn where read, malformed or names another unit.
    pub(in crate::generate) fn open(dir: &Path, key: Key) -> Option<Patched> {
        let (_, base) = super::read_head(dir, key)?;
        if base == 0 {
            let reader = WholeReader::open_indexed(dir, key)?;
            return Some(Patched {
                key,
                base: key,
                ancestors: Vec::new(),
                groups: reader.groups,
                entries: reader.entries,
                items: Vec::new(),
                reader,
            });
        }
        let patch = Patch::read(dir, key)?;
        let reader = WholeReader::open_indexed(dir, patch.base)?;
        patch.fits(&reader).then_some(Patched {
            key,
            base: patch.base,
            ancestors: patch.ancestors,
            groups: patch.groups,
            entries: patch.entries,
            items: patch.items,
            reader,
        })
    }

    /// The bytes of group `i`: the patch's, else the base's; `None` past the last
    /// group or when the base's block is torn.
    pub(in crate::generate) fn group_at(&mut self, i: u64) -> Option<Vec<u8>> {
        match self.items.binary_search_by_key(&i, |(at, _)| *at) {
            Ok(at) => Some(self.items[at].1.clone()),
            Err(_) => self.reader.group_at(i),
        }
    }

    /// The groups the patch holds (none for a whole record), each with its index.
    pub(in crate::generate) fn items(&self) -> &[(u64, Vec<u8>)] {
        &self.items
    }

    /// The units whose files are this one's but at the groups its patch holds: its
    /// base and the units it was made from (none for a whole record).
    pub(in crate::generate) fn made_from(&self) -> impl Iterator<Item = Key> + '_ {
        let patched = self.base != self.key;
        patched
            .then_some(self.base)
            .into_iter()
            .chain(self.ancestors.iter().copied())
    }
}

/// The patch of a unit made from another's record ([`Patched`]): that record's patch
/// with the groups the unit replaced or added, over the same base (or over that
/// record, when it is whole). Written aside and renamed into place, like a record.
pub(in crate::generate) struct PatchWriter {
    dir: PathBuf,
    key: Key,
    base: Key,
    ancestors: Vec<Key>,
    groups: u64,
    entries: u64,
    items: std::collections::BTreeMap<u64, Vec<u8>>,
}

impl PatchWriter {
    /// The record of the unit `key` in `dir`, made from `from`.
    pub(in crate::generate) fn new(dir: &Path, key: Key, from: &Patched) -> PatchWriter {
        let mut ancestors = from.ancestors.clone();
        if from.base != from.key {
            ancestors.push(from.key);
        }
        let drop = ancestors.len().saturating_sub(ANCESTORS);
        ancestors.drain(..drop);
        PatchWriter {
            dir: dir.to_path_buf(),
            key,
            base: from.base,
            ancestors,
            groups: from.groups,
            entries: from.entries,
            items: from.items.iter().cloned().collect(),
        }
    }

    /// Group `index` (one past the last to add one) is now `key` with `entries`, in
    /// place of a group of `old` entries (0 when added).
    pub(in crate::generate) fn set(
        &mut self,
        index: u64,
        key: Key,
        entries: &[Entry],
        old: u32,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(
            index <= self.groups,
            "a patched unit record's group {index} past its {} groups",
            self.groups
        );
        if index == self.groups {
            self.groups += 1;
        }
        let mut bytes = Vec::new();
        super::encode_group(&mut bytes, key, entries)?;
        self.entries = (self.entries + entries.len() as u64)
            .checked_sub(u64::from(old))
            .ok_or_else(|| anyhow::anyhow!("a patched unit record's entries miscounted"))?;
        self.items.insert(index, bytes);
        Ok(())
    }

    /// The patch written aside and renamed into place (not synced, like a record).
    pub(in crate::generate) fn finish(self) -> anyhow::Result<()> {
        let mut out = Vec::with_capacity(HEAD + 64);
        out.extend_from_slice(MAGIC);
        for key in [self.key, self.base] {
            out.extend_from_slice(&key.to_le_bytes());
        }
        out.extend_from_slice(&self.groups.to_le_bytes());
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&u32::try_from(self.ancestors.len())?.to_le_bytes());
        for key in &self.ancestors {
            out.extend_from_slice(&key.to_le_bytes());
        }
        out.extend_from_slice(&(self.items.len() as u64).to_le_bytes());
        for (i, bytes) in &self.items {
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&u32::try_from(bytes.len())?.to_le_bytes());
            out.extend_from_slice(bytes);
        }
        let sum = super::checksum(&out);
        out.extend_from_slice(&sum);
        super::put(&self.dir, &super::file_name(self.key), &out)
    }
}

/// The base of the record of the unit `key` in `dir`, when it is a patch: a record
/// kept while a patch in use names it ([`super::collect_garbage`]).
pub(super) fn base_of(dir: &Path, key: Key) -> Option<Key> {
    super::read_head(dir, key)
        .map(|(_, base)| base)
        .filter(|&base| base != 0)
}
