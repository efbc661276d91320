//! A generation's keys as they are kept beside the tree ([`super::FileKeys`]): a
//! *base* and a patch over it.
//!
//! A base holds the keys of one generation, sorted, after the table of where each
//! value of their top bits starts among them ([`SortedKeys`]), in the unit records'
//! folder as `<32 hex digits>.keys`, closed by its XXH3-128. A generation's keys file
//! ([`super::read_keys`]) names its base and holds the keys the generation has that
//! the base lacks and those of the base it lacks. So a run that changed little
//! writes a keys file of what changed over the live generation's base rather than
//! every key again, and the live and spare keys are not read whole: a key is looked
//! up in a base with two reads (its bucket's bounds, then the bucket's few keys). A
//! run that asks about many keys (a full run, a large change) reads the base whole
//! once, past [`LOOKUPS_BEFORE_LOADING`] lookups. A patch grown past a 32nd of its
//! base is folded into a new base.
//!
//! A base is written aside, synced and renamed into place before the keys file that
//! names it is written; the bases no keys file beside the tree names are removed with
//! the unit records no generation uses ([`super::super::units::collect_garbage`]).

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::os::unix::fs::FileExt as _;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use anyhow::Context as _;

use super::{Key, SortedKeys, LOOKUPS_BEFORE_LOADING, PATCH_SHARE};
use crate::generate::summed::{write_in_pieces, Summed};

const MAGIC: &[u8] = b"roost key base 1\n";

/// The magic line, the count of keys (8 bytes) and the table's bits (4 bytes).
const HEAD: u64 = MAGIC.len() as u64 + 12;

/// The suffix of a base's file name.
pub(crate) const SUFFIX: &str = ".keys";

/// The name of the base the run making `generation` writes.
pub(crate) fn base_name(generation: &str) -> String {
    format!(
        "{:032x}{SUFFIX}",
        xxhash_rust::xxh3::xxh3_128(generation.as_bytes())
    )
}

/// A base, open: asked by bucket, or read whole once asked often.
pub(crate) struct Base {
    name: String,
    file: File,
    count: usize,
    bits: u32,
    lookups: AtomicUsize,
    whole: OnceLock<Option<SortedKeys>>,
}

impl Base {
    /// The base `name` in `dir`; `None` when it is absent or its head does not match
    /// its length.
    pub(crate) fn open(dir: &Path, name: &str) -> Option<Base> {
        let file = File::open(dir.join(name)).ok()?;
        let mut head = [0; HEAD as usize];
        file.read_exact_at(&mut head, 0).ok()?;
        let rest = head.strip_prefix(MAGIC)?;
        let count = usize::try_from(u64::from_le_bytes(rest[..8].try_into().ok()?)).ok()?;
        let bits = u32::from_le_bytes(rest[8..12].try_into().ok()?);
        let base = Base {
            name: name.to_string(),
            file,
            count,
            bits,
            lookups: AtomicUsize::new(0),
            whole: OnceLock::new(),
        };
        let whole = (bits == SortedKeys::bits_for(count))
            && base.file.metadata().ok()?.len() == base.keys_at() + count as u64 * 16 + 16;
        whole.then_some(base)
    }

    fn keys_at(&self) -> u64 {
        HEAD + ((1u64 << self.bits) + 1) * 4
    }

    /// Whether the base holds `key`. A base that cannot be read, or whose bucket is
    /// not sorted within it, holds nothing: the file is then rendered, not linked.
    fn contains(&self, key: Key) -> bool {
        if let Some(whole) = self.whole.get() {
            return whole.as_ref().is_some_and(|w| w.contains(key));
        }
        if self.lookups.fetch_add(1, Ordering::Relaxed) >= LOOKUPS_BEFORE_LOADING {
            let whole = self.whole.get_or_init(|| self.read_whole());
            return whole.as_ref().is_some_and(|w| w.contains(key));
        }
        self.look_up(key).unwrap_or(false)
    }

    /// The bucket of `key` read alone.
    fn look_up(&self, key: Key) -> Option<bool> {
        let b = SortedKeys::bucket(key, self.bits);
        let mut bounds = [0; 8];
        self.file
            .read_exact_at(&mut bounds, HEAD + b as u64 * 4)
            .ok()?;
        let lo = u32::from_le_bytes(bounds[..4].try_into().ok()?) as usize;
        let hi = u32::from_le_bytes(bounds[4..].try_into().ok()?) as usize;
        if lo > hi || hi > self.count {
            return None;
        }
        let mut bytes = vec![0; (hi - lo) * 16];
        self.file
            .read_exact_at(&mut bytes, self.keys_at() + lo as u64 * 16)
            .ok()?;
        let keys = decode(&bytes);
        let sorted = keys.windows(2).all(|w| w[0] < w[1])
            && keys.iter().all(|k| SortedKeys::bucket(*k, self.bits) == b);
        sorted.then(|| keys.binary_search(&key).is_ok())
    }

    /// The key at `i` in order, read alone.
    fn key_at(&self, i: usize) -> Option<Key> {
        let mut bytes = [0; 16];
        self.file
            .read_exact_at(&mut bytes, self.keys_at() + i as u64 * 16)
            .ok()?;
        Some(Key::from_le_bytes(bytes))
    }

    /// Every key and the table, read whole and checked: its checksum, its keys
    /// sorted, the table theirs.
    fn read_whole(&self) -> Option<SortedKeys> {
        let keys_at = self.keys_at() as usize;
        let mut bytes = vec![0; keys_at + self.count * 16 + 16];
        self.file.read_exact_at(&mut bytes, 0).ok()?;
        let (body, sum) = bytes.split_at(bytes.len() - 16);
        if xxhash_rust::xxh3::xxh3_128(body).to_le_bytes() != sum {
            return None;
        }
        let starts: Vec<u32> = body[HEAD as usize..keys_at]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
            .collect();
        let keys = decode(&body[keys_at..]);
        drop(bytes);
        let sorted = SortedKeys::new(keys);
        let same = sorted.keys.windows(2).all(|w| w[0] < w[1])
            && sorted.bits == self.bits
            && sorted.starts == starts;
        same.then_some(sorted)
    }

    /// Every key, in order (`None` when the base cannot be read whole).
    fn keys(&self) -> Option<Vec<Key>> {
        match self.whole.get() {
            Some(whole) => whole.as_ref().map(|w| w.keys.clone()),
            None => self.read_whole().map(|w| w.keys),
        }
    }

    /// Writes the base `name` of `keys` (sorted, each once) into `dir`: aside,
    /// synced, then renamed into place.
    pub(crate) fn write(dir: &Path, name: &str, keys: &[Key]) -> anyhow::Result<()> {
        let path = dir.join(name);
        let temp = crate::atomic::with_suffix(&path, &format!(".tmp-{}", std::process::id()));
        let writing = || format!("writing {}", temp.display());
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        crate::atomic::replace_file(
            &temp,
            &path,
            |temp| {
                write_base(temp, keys).with_context(writing)?;
                crate::crash::point("generate::key_base");
                Ok(())
            },
            |e| anyhow::Error::new(e).context(writing()),
        )
    }
}

/// The base of `keys` written to `path` and synced.
fn write_base(path: &Path, keys: &[Key]) -> std::io::Result<()> {
    let bits = SortedKeys::bits_for(keys.len());
    let mut w = Summed::new(BufWriter::with_capacity(1 << 20, File::create(path)?));
    w.write_all(MAGIC)?;
    w.write_all(&(keys.len() as u64).to_le_bytes())?;
    w.write_all(&bits.to_le_bytes())?;
    let starts = SortedKeys::starts(keys, bits);
    write_in_pieces(&mut w, starts.iter().map(|s| s.to_le_bytes()))?;
    write_in_pieces(&mut w, keys.iter().map(|k| k.to_le_bytes()))?;
    let file = w.finish()?.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

fn decode(bytes: &[u8]) -> Vec<Key> {
    bytes
        .chunks_exact(16)
        .map(|c| Key::from_le_bytes(c.try_into().unwrap_or([0; 16])))
        .collect()
}

/// A generation's keys: its base's, but those `removed`, and those `added`.
#[derive(Default)]
pub(crate) struct KeySet {
    base: Option<Base>,
    /// Sorted, each once, none in the base.
    added: Vec<Key>,
    /// Sorted, each once, each in the base.
    removed: Vec<Key>,
}

impl KeySet {
    /// The keys of `base` with `added` and without `removed` (each sorted, each once).
    pub(crate) fn patched(base: Option<Base>, added: Vec<Key>, removed: Vec<Key>) -> KeySet {
        KeySet {
            base,
            added,
            removed,
        }
    }

    pub(crate) fn contains(&self, key: Key) -> bool {
        self.added.binary_search(&key).is_ok()
            || (self.base.as_ref().is_some_and(|b| b.contains(key))
                && self.removed.binary_search(&key).is_err())
    }

    pub(crate) fn len(&self) -> usize {
        let base = self.base.as_ref().map_or(0, |b| b.count);
        (base + self.added.len()).saturating_sub(self.removed.len())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of its base, if it has one.
    pub(crate) fn base_name(&self) -> Option<&str> {
        self.base.as_ref().map(|b| b.name.as_str())
    }

    /// Every key, in order; `None` when its base cannot be read whole.
    pub(crate) fn keys(&self) -> Option<Vec<Key>> {
        let base = match &self.base {
            Some(b) => b.keys()?,
            None => Vec::new(),
        };
        let kept = base
            .into_iter()
            .filter(|k| self.removed.binary_search(k).is_err());
        Some(super::union(kept, &self.added))
    }

    /// How many of these keys `other` has too: exactly when both are patches of one
    /// base or these have none, else estimated from up to 4,096 keys of the base
    /// spread evenly (what it is asked for: whether a spare shares most of the live
    /// generation's files).
    pub(crate) fn shared_with(&self, other: &KeySet) -> usize {
        let added = self.added.iter().filter(|k| other.contains(**k)).count();
        let Some(base) = &self.base else {
            return added;
        };
        if other.base_name() == Some(base.name.as_str()) {
            let removed = super::union(self.removed.iter().copied(), &other.removed).len();
            return (base.count + added).saturating_sub(removed);
        }
        let n = base.count.min(4096);
        let (mut asked, mut shared) = (0usize, 0usize);
        for i in 0..n {
            let Some(key) = base.key_at(i * base.count / n) else {
                continue;
            };
            if self.removed.binary_search(&key).is_ok() {
                continue;
            }
            asked += 1;
            shared += usize::from(other.contains(key));
        }
        let in_base = base.count.saturating_sub(self.removed.len());
        added + (in_base * shared).checked_div(asked).unwrap_or(0)
    }

    /// These keys but `removed` (sorted), with `new` (sorted, each once), as a keys
    /// set to record for the generation `generation` in `dir`: a patch of the same
    /// base while it stays small beside it, else a new base of every key (written
    /// now). Keys without a base (none recorded) give a new base too.
    pub(crate) fn then(
        &self,
        removed: &[Key],
        new: &[Key],
        dir: &Path,
        generation: &str,
    ) -> anyhow::Result<KeySet> {
        if let Some(base) = &self.base {
            let outside: Vec<Key> = new.iter().copied().filter(|k| !base.contains(*k)).collect();
            let kept = self
                .added
                .iter()
                .copied()
                .filter(|k| removed.binary_search(k).is_err());
            let added = super::union(kept, &outside);
            let in_base: Vec<Key> = removed
                .iter()
                .copied()
                .filter(|k| base.contains(*k))
                .collect();
            let taken = super::union(self.removed.iter().copied(), &in_base);
            let taken: Vec<Key> = taken
                .into_iter()
                .filter(|k| new.binary_search(k).is_err())
                .collect();
            if (added.len() + taken.len()) * PATCH_SHARE <= base.count {
                let base = Base::open(dir, &base.name)
                    .with_context(|| format!("reopening the keys base {}", base.name))?;
                return Ok(KeySet::patched(Some(base), added, taken));
            }
        }
        let all = self
            .keys()
            .with_context(|| "reading the live generation's keys whole")?;
        let kept = all
            .into_iter()
            .filter(|k| removed.binary_search(k).is_err());
        KeySet::whole(super::union(kept, new), dir, generation)
    }

    /// `keys` (sorted, each once) as a new base for `generation` in `dir`.
    pub(crate) fn whole(keys: Vec<Key>, dir: &Path, generation: &str) -> anyhow::Result<KeySet> {
        let name = base_name(generation);
        Base::write(dir, &name, &keys)?;
        let base =
            Base::open(dir, &name).with_context(|| format!("reopening the keys base {name}"))?;
        Ok(KeySet::patched(Some(base), Vec::new(), Vec::new()))
    }

    /// The patch's keys: added, then removed.
    pub(crate) fn patch(&self) -> (&[Key], &[Key]) {
        (&self.added, &self.removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spread(n: u32, salt: u32) -> Vec<Key> {
        let mut keys: Vec<Key> = (0..n)
            .map(|i| super::super::row_key(&[i.to_le_bytes(), salt.to_le_bytes()].concat()))
            .collect();
        keys.sort_unstable();
        keys
    }

    #[test]
    fn a_base_answers_by_bucket_and_whole_alike_and_a_damaged_one_holds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let keys = spread(3_000, 1);
        let set = KeySet::whole(keys.clone(), dir.path(), "g1").unwrap();
        let name = set.base_name().unwrap().to_string();
        let probes: Vec<Key> = keys
            .iter()
            .flat_map(|k| [*k, k.wrapping_add(1)])
            .chain(spread(500, 2))
            .collect();
        // Bucket by bucket first, then whole once past the lookups it allows.
        let base = Base::open(dir.path(), &name).unwrap();
        for _ in 0..2 {
            for p in &probes {
                assert_eq!(base.contains(*p), keys.binary_search(p).is_ok(), "{p:x}");
            }
        }
        assert!(base.whole.get().is_some_and(Option::is_some), "read whole");
        assert_eq!(set.keys().unwrap(), keys);
        // A flipped byte among the keys: the bucket read alone is out of order or
        // misses, the whole read fails its checksum.
        let path = dir.path().join(&name);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 16 - 8 * 16;
        bytes[at] ^= 0x80;
        std::fs::write(&path, &bytes).unwrap();
        let damaged = Base::open(dir.path(), &name).unwrap();
        assert_ne!(damaged.look_up(keys[keys.len() - 8]), Some(true));
        assert!(damaged.read_whole().is_none());
        // A torn base is not opened.
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(Base::open(dir.path(), &name).is_none());
    }

    #[test]
    fn a_patch_keeps_its_base_until_it_grows_then_folds_into_a_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let keys = spread(4_000, 1);
        let live = KeySet::whole(keys.clone(), dir.path(), "g1").unwrap();
        let base = live.base_name().unwrap().to_string();
        // Two keys out, one of them made again, and two new ones.
        let removed = vec![keys[10], keys[20]];
        let new = {
            let mut new = vec![keys[20], 5, Key::MAX];
            new.sort_unstable();
            new
        };
        let next = live.then(&removed, &new, dir.path(), "g2").unwrap();
        assert_eq!(
            next.base_name(),
            Some(base.as_str()),
            "a patch of the same base"
        );
        assert_eq!(next.patch(), (&[5, Key::MAX][..], &[keys[10]][..]));
        let expected: Vec<Key> = super::super::union(
            keys.iter().copied().filter(|k| *k != keys[10]),
            &[5, Key::MAX],
        );
        assert_eq!(next.keys().unwrap(), expected);
        assert_eq!(next.len(), expected.len());
        assert!(!next.contains(keys[10]) && next.contains(keys[20]) && next.contains(5));
        // The live and next generations share all but one key, exactly.
        assert_eq!(live.shared_with(&next), keys.len() - 1);
        // Past its share of the base, a new base of every key.
        let many: Vec<Key> = keys[..keys.len() / PATCH_SHARE + 1].to_vec();
        let folded = next.then(&many, &[], dir.path(), "g3").unwrap();
        assert_eq!(folded.base_name(), Some(base_name("g3").as_str()));
        assert_eq!(folded.patch(), (&[][..], &[][..]));
        let expected: Vec<Key> = expected.into_iter().filter(|k| !many.contains(k)).collect();
        assert_eq!(folded.keys().unwrap(), expected);
        // Between sets of two bases the share is estimated from the base's keys.
        let estimate = next.shared_with(&folded);
        let exact = expected.len();
        assert!(estimate.abs_diff(exact) < 100, "{estimate} against {exact}");
    }
}
