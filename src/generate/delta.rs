//! A run that hands on only what changed (a *delta run*): the units whose files the
//! live generation has hand nothing on, and the manifest's pass reads the live
//! manifest beside what was handed on, so its cost follows the change rather than
//! the tree (docs/architecture.md §5).
//!
//! Every file of a generation is listed in the record of one of its units
//! ([`super::units`]), its *loose* files (the fixed documents, the docs page, the
//! dataset) in a record of their own, and the keys file names those units
//! ([`super::keys::KeysFile`]). So the new generation is the live one with:
//! - the files of every live unit the run did not keep whole (its key is not the key
//!   of a skipped unit, nor the previous key of a unit rendered only where its rows
//!   changed) taken out: their paths read from their records, with their keys;
//! - the paths a unit rendered in part replaced (its changed pages and their
//!   siblings) taken out, with their keys;
//! - every entry handed on put in, over a live entry of the same path.
//!
//! [`Merged`] makes that stream in path order: a live chunk that no path of the delta
//! or of the paths taken out falls among is a [`Item::Kept`] token, not decoded
//! (the manifest's pass keeps it as it is when the chunk before it ends where it
//! starts, else decodes it, [`Merged::expand`]); the other chunks are decoded and
//! merged. A run that cannot name the files of a live unit it did not keep (its
//! record unreadable) renders its units again handing on every entry, as a run of
//! the live generation without a complete keys file does.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use anyhow::anyhow;
use rayon::prelude::*;

use crate::manifest::split;

use super::compare::Change;
use super::entry::Entry;
use super::keys::Key;
use super::previous::Previous;
use super::runs::{self, Sink, Sorted, Stream};
use super::units;

/// What the units of a delta run tell beside the entries they hand on.
#[derive(Default)]
pub(super) struct Delta {
    /// Live unit keys whose files the new generation keeps: the skipped units', and
    /// the previous keys of the units rendered where their rows changed.
    carried: Mutex<Vec<Key>>,
    /// Keys of the live generation the new one does not have: a unit's previous key
    /// and the keys of the pages or records it replaced.
    removed_keys: Mutex<Vec<Key>>,
    /// The entries of the live files such a unit replaced (their paths are taken
    /// out of the live generation unless handed on again).
    removed_paths: Mutex<Vec<Entry>>,
    /// Files of such units kept from the live generation without being handed on,
    /// counted already as placed by key.
    counted: AtomicU64,
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Delta {
    /// The live unit `key` is the new generation's, its files where they are.
    pub(super) fn carry(&self, key: Key) {
        locked(&self.carried).push(key);
    }

    /// A unit rendered where its rows changed, the live unit `previous` before: its
    /// files are the new generation's but the `replaced` ones (each with its key),
    /// and `counted` of them were counted as placed by key.
    pub(super) fn carry_in_part(
        &self,
        previous: Key,
        replaced: Vec<(Key, Vec<Entry>)>,
        counted: u64,
    ) {
        self.carry(previous);
        self.counted.fetch_add(counted, Ordering::Relaxed);
        let mut keys = locked(&self.removed_keys);
        keys.push(previous);
        let mut paths = locked(&self.removed_paths);
        for (key, entries) in replaced {
            keys.push(key);
            paths.extend(entries);
        }
    }

    /// Files kept from the live generation, not handed on, counted as placed by key.
    pub(super) fn counted(&self) -> u64 {
        self.counted.load(Ordering::Relaxed)
    }
}

/// What a delta run takes out of the live generation: paths (in a [`Sorted`], each
/// entry's path) and keys (sorted, each once).
pub(super) struct Removed {
    pub paths: Sorted,
    pub keys: Vec<Key>,
}

/// What a delta run's units leave the manifest's pass to do.
pub(super) enum Resolved {
    /// Nothing of the live generation was kept without being handed on (every unit
    /// rendered: a new executable, other options): the entries handed on are every
    /// entry, as in a run that is not a delta run.
    Whole,
    /// The live generation less `Removed`, merged with the entries handed on.
    Delta(Removed),
    /// A live unit's files cannot be named: the units are to be placed again, every
    /// entry handed on.
    Unknown,
}

/// The paths and keys the new generation does not keep of the live one, whose unit
/// keys are `live_units` (its loose files' record among them): every live unit not
/// carried, read from its record in `records`, and what the units replaced.
pub(super) fn resolve(
    delta: &Delta,
    live_units: &[Key],
    records: &Path,
    spill: &Path,
) -> anyhow::Result<Resolved> {
    let mut carried = std::mem::take(&mut *locked(&delta.carried));
    if carried.is_empty() {
        return Ok(Resolved::Whole);
    }
    carried.sort_unstable();
    let gone: Vec<Key> = live_units
        .iter()
        .copied()
        .filter(|u| carried.binary_search(u).is_err())
        .collect();
    let parts = gone
        .par_iter()
        .try_fold(
            || Some((Sink::new(spill, runs::BUDGET), Vec::new())),
            |part, &unit| -> anyhow::Result<_> {
                let Some((mut sink, mut keys)) = part else {
                    return Ok(None);
                };
                let Some(mut record) = units::RecordReader::open(records, unit) else {
                    let unit = format!("{unit:032x}");
                    tracing::debug!(target: "roost::generate", unit, "a live record is unreadable");
                    return Ok(None);
                };
                keys.push(unit);
                loop {
                    match record.next_group() {
                        Ok(Some((key, entries))) => {
                            keys.push(key);
                            sink.extend(entries)?;
                        }
                        Ok(None) => return Ok(Some((sink, keys))),
                        Err(_) => return Ok(None),
                    }
                }
            },
        )
        .collect::<anyhow::Result<Vec<_>>>()?;
    let Some(parts) = parts.into_iter().collect::<Option<Vec<_>>>() else {
        return Ok(Resolved::Unknown);
    };
    let mut keys = std::mem::take(&mut *locked(&delta.removed_keys));
    let mut sinks = Vec::with_capacity(parts.len());
    for (sink, part) in parts {
        sinks.push(sink);
        keys.extend(part);
    }
    let mut paths = Sorted::of(sinks)?;
    paths.add(std::mem::take(&mut *locked(&delta.removed_paths)))?;
    keys.sort_unstable();
    keys.dedup();
    // The loose files' record names its unkeyed files by 0, no file's key.
    keys.retain(|&k| k != units::NO_KEY);
    Ok(Resolved::Delta(Removed { paths, keys }))
}

/// One item of the new generation's entries in path order: an entry with what it is
/// to the live generation (when known), or a live chunk kept whole.
pub(super) enum Item {
    Entry(Entry, Option<Change>),
    Kept(usize),
}

/// The next entry of a stream, kept to look at before it is taken.
struct Head<'a> {
    stream: Stream<'a>,
    next: Option<Entry>,
}

impl<'a> Head<'a> {
    fn new(sorted: &'a Sorted) -> anyhow::Result<Head<'a>> {
        let mut stream = sorted.stream()?;
        let next = stream.next().transpose()?;
        Ok(Head { stream, next })
    }

    /// Whether the next entry's path sorts before `end` (any, without one).
    fn before(&self, end: Option<&str>) -> bool {
        self.next
            .as_ref()
            .is_some_and(|e| end.is_none_or(|end| e.path.as_str() < end))
    }

    fn is(&self, path: &str) -> bool {
        self.next.as_ref().is_some_and(|e| e.path == path)
    }

    fn take(&mut self) -> anyhow::Result<Option<Entry>> {
        let next = self.stream.next().transpose()?;
        Ok(std::mem::replace(&mut self.next, next))
    }
}

/// The new generation's entries of a delta run, in path order ([`Item`]), and the
/// live paths it does not have.
pub(super) struct Merged<'a> {
    previous: &'a Previous,
    delta: Head<'a>,
    removed: Head<'a>,
    /// Paths the folder being written may hold beyond the live generation's (sorted):
    /// a chunk among whose paths one falls is looked at entry by entry, so the pass
    /// tells whether it is listed.
    own: std::iter::Peekable<std::slice::Iter<'a, String>>,
    /// The next range of paths: 0 before the live manifest's first chunk, `i + 1`
    /// the paths of chunk `i`.
    range: usize,
    pending: VecDeque<(Entry, Change)>,
    /// The live paths the new generation does not have, in path order.
    pub(super) gone: Vec<String>,
}

impl<'a> Merged<'a> {
    pub(super) fn new(
        previous: &'a Previous,
        delta: &'a Sorted,
        removed: &'a Sorted,
        own: &'a [String],
    ) -> anyhow::Result<Merged<'a>> {
        Ok(Merged {
            previous,
            delta: Head::new(delta)?,
            removed: Head::new(removed)?,
            own: own.iter().peekable(),
            range: 0,
            pending: VecDeque::new(),
            gone: Vec::new(),
        })
    }

    /// The next item; `None` after the last.
    pub(super) fn next_item(&mut self) -> anyhow::Result<Option<Item>> {
        loop {
            if let Some((e, change)) = self.pending.pop_front() {
                return Ok(Some(Item::Entry(e, Some(change))));
            }
            let chunks = self.previous.chunks();
            if self.range > chunks.len() {
                return Ok(None);
            }
            let r = self.range;
            self.range += 1;
            let end = chunks.get(r).map(|c| c.first.as_str());
            let Some(i) = r.checked_sub(1) else {
                // Before the live generation's first path: only added paths.
                self.merge(&[], end)?;
                continue;
            };
            let c = &chunks[i];
            while self
                .own
                .next_if(|p| p.as_str() < c.first.as_str())
                .is_some()
            {}
            let own = self
                .own
                .peek()
                .is_some_and(|p| end.is_none_or(|end| p.as_str() < end));
            let touched = self.delta.before(end) || self.removed.before(end) || own;
            if !touched && c.files > 0 && c.files <= split::MAX_ENTRIES as u64 {
                return Ok(Some(Item::Kept(i)));
            }
            let live = self.previous.entries_once(i);
            self.merge(&live, end)?;
        }
    }

    /// The live `entries` of a range ending before `end` merged with the delta's and
    /// the removed paths among it, into `pending`.
    fn merge(
        &mut self,
        entries: &[crate::manifest::ManifestEntry],
        end: Option<&str>,
    ) -> anyhow::Result<()> {
        for live in entries {
            self.added_before(Some(&live.path))?;
            let removed = self.removed.is(&live.path);
            if removed {
                self.removed.take()?;
            }
            if self.delta.is(&live.path) {
                let e = self
                    .delta
                    .take()?
                    .ok_or_else(|| anyhow!("a delta entry vanished"))?;
                let change = match e.same_file(live) {
                    true => Change::Same,
                    false => Change::Changed,
                };
                self.pending.push_back((e, change));
            } else if removed {
                self.gone.push(live.path.clone());
            } else {
                let e = Entry::of(live)
                    .ok_or_else(|| anyhow!("the live manifest lists {} malformed", live.path))?;
                self.pending.push_back((e, Change::Same));
            }
        }
        self.added_before(end)
    }

    /// The delta's entries before `end` (no live entry has their paths) as added; the
    /// removed paths before it, which no live entry has either, passed.
    fn added_before(&mut self, end: Option<&str>) -> anyhow::Result<()> {
        while self.delta.before(end) {
            if let Some(e) = self.delta.take()? {
                self.pending.push_back((e, Change::Added));
            }
        }
        while self.removed.before(end) {
            self.removed.take()?;
        }
        Ok(())
    }

    /// The entries of the live chunk `i` a [`Item::Kept`] token stood for, when it
    /// is not kept whole after all (the chunk before it runs into it).
    pub(super) fn expand(&self, i: usize) -> anyhow::Result<Vec<Entry>> {
        live_entries(self.previous, i)
    }
}

/// The entries of the live manifest's chunk `i`, as the run carries them.
pub(super) fn live_entries(previous: &Previous, i: usize) -> anyhow::Result<Vec<Entry>> {
    previous
        .entries_once(i)
        .iter()
        .map(|e| {
            Entry::of(e).ok_or_else(|| anyhow!("the live manifest lists {} malformed", e.path))
        })
        .collect()
}

/// The first path at or after `path` among a delta run's entries: the delta's, or the
/// live generation's that is not taken out.
pub(super) fn first_from(
    previous: &Previous,
    delta: &Sorted,
    removed: &Sorted,
    path: &str,
) -> anyhow::Result<Option<String>> {
    let handed = delta.first_from(path)?;
    let mut from = path.to_string();
    let live = loop {
        let Some(found) = previous.first_from(&from) else {
            break None;
        };
        let taken_out = removed.first_from(&found)?.as_deref() == Some(found.as_str())
            && delta.first_from(&found)?.as_deref() != Some(found.as_str());
        if !taken_out {
            break Some(found);
        }
        // The next path after it (no path holds a NUL).
        from = format!("{found}\0");
    };
    Ok(match (handed, live) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}
