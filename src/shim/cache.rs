//! Responses kept in memory, bounded by bytes and tied to one generation of what
//! they were made from.
//!
//! [`Responses`] is the store behind both of the shim's caches: tree files
//! ([`super::files`], one generation = the folder the `site` symlink names) and live
//! answers ([`super::live`], one generation = the identity of the dataset file). An
//! entry is one response as sent (bytes in the coding chosen, that coding, the strong
//! ETag) for one key and one list of codings the client accepts, so a hit costs a
//! hash look-up under a shared lock, and no copy of the body (responses share the
//! kept bytes): nothing is read, queried, hashed or compressed again.
//!
//! A look-up with another generation than the one held empties the store first, so
//! no response of an older tree or dataset is ever answered once a newer one is seen.
//! When the budget is spent, entries are dropped (in no particular order) to make
//! room; a response over an eighth of the budget is not kept. A budget of 0 keeps
//! nothing.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use bytes::Bytes;

use super::respond::{Encoding, Etag, Negotiation, Outcome};

/// The bytes a key takes, counted against the budget.
pub trait Weight {
    fn weight(&self) -> usize;
}

impl Weight for PathBuf {
    fn weight(&self) -> usize {
        self.as_os_str().len()
    }
}

impl Weight for std::ffi::OsString {
    fn weight(&self) -> usize {
        self.len()
    }
}

impl Weight for String {
    fn weight(&self) -> usize {
        self.len()
    }
}

/// One response as sent; its body is shared with every response made from it.
#[derive(Debug)]
struct Entry {
    accept: Vec<Encoding>,
    bytes: Bytes,
    content_type: &'static str,
    encoding: Encoding,
    etag: Etag,
}

impl Entry {
    fn weight(&self) -> usize {
        self.bytes.len() + self.etag.len()
    }
}

/// Responses of one generation `G`, by key `K` (see the module doc).
#[derive(Debug)]
pub struct Responses<G, K> {
    budget: usize,
    inner: RwLock<Inner<G, K>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// What a store has done since it was made, for the metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Look-ups answered from the store.
    pub hits: u64,
    /// Look-ups that found nothing (the answer was then made, and kept if it could).
    pub misses: u64,
    /// Bytes held now.
    pub bytes: usize,
}

#[derive(Debug)]
struct Inner<G, K> {
    generation: Option<G>,
    used: usize,
    /// Per key, one entry per list of codings accepted.
    entries: HashMap<K, Vec<Entry>>,
}

impl<G, K> Inner<G, K> {
    /// Forgets every entry and holds `generation` from now on.
    fn restart(&mut self, generation: G) {
        self.entries.clear();
        self.used = 0;
        self.generation = Some(generation);
    }
}

impl<G: Eq + Clone, K: Eq + Hash + Clone + Weight> Responses<G, K> {
    /// A store keeping at most `budget` bytes of responses.
    pub fn new(budget: usize) -> Self {
        Responses {
            budget,
            inner: RwLock::new(Inner {
                generation: None,
                used: 0,
                entries: HashMap::new(),
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Hits, misses and bytes held.
    pub fn stats(&self) -> Stats {
        Stats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bytes: self.read().used,
        }
    }

    /// Whether the store keeps nothing (a budget of 0).
    pub fn keeps_nothing(&self) -> bool {
        self.budget == 0
    }

    /// Counts a look-up answered without looking (the store keeps nothing).
    pub fn missed(&self) {
        self.misses.fetch_add(1, Ordering::Relaxed);
    }

    fn read(&self) -> RwLockReadGuard<'_, Inner<G, K>> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner<G, K>> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// The response kept for `key` in `generation` and this request's codings (a 304
    /// when its `If-None-Match` names the ETag). Seeing a new generation empties the
    /// store. A hit copies no body: the response shares the kept bytes.
    pub fn lookup<Q>(&self, generation: &G, key: &Q, neg: &Negotiation) -> Option<Outcome>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let found = self.find(generation, key, neg);
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Like [`Responses::lookup`], counting a hit only (a caller that goes on to a
    /// look-up of its own on a miss).
    pub fn hit<Q>(&self, generation: &G, key: &Q, neg: &Negotiation) -> Option<Outcome>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let found = self.find(generation, key, neg)?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(found)
    }

    fn find<Q>(&self, generation: &G, key: &Q, neg: &Negotiation) -> Option<Outcome>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        if self.budget == 0 {
            return None;
        }
        {
            let inner = self.read();
            if inner.generation.as_ref() == Some(generation) {
                let entry = inner
                    .entries
                    .get(key)?
                    .iter()
                    .find(|e| e.accept == neg.accept)?;
                return Some(neg.known(
                    entry.bytes.clone(),
                    entry.content_type,
                    entry.encoding,
                    entry.etag.clone(),
                ));
            }
        }
        let mut inner = self.write();
        if inner.generation.as_ref() != Some(generation) {
            inner.restart(generation.clone());
        }
        None
    }

    /// Keeps a full response made from `generation`; nothing when a newer generation
    /// has been seen meanwhile, or when the response is a 304 or too large.
    pub fn remember(&self, generation: &G, key: K, neg: &Negotiation, outcome: &Outcome) {
        let Outcome::Full {
            bytes,
            content_type,
            encoding,
            etag,
        } = outcome
        else {
            return;
        };
        let entry = Entry {
            accept: neg.accept.clone(),
            bytes: bytes.clone(),
            content_type,
            encoding: *encoding,
            etag: etag.clone(),
        };
        let size = entry.weight() + key.weight();
        if size > self.budget / 8 {
            return;
        }
        let mut inner = self.write();
        if inner.generation.as_ref() != Some(generation) {
            return;
        }
        let inner = &mut *inner;
        if let Some(kept) = inner.entries.get_mut(&key) {
            if let Some(i) = kept.iter().position(|e| e.accept == entry.accept) {
                inner.used -= kept.swap_remove(i).weight() + key.weight();
            }
        }
        while inner.used + size > self.budget {
            let Some(old_key) = inner.entries.keys().next().cloned() else {
                break;
            };
            if let Some(old) = inner.entries.remove(&old_key) {
                inner.used -= old
                    .iter()
                    .map(|e| e.weight() + old_key.weight())
                    .sum::<usize>();
            }
        }
        inner.entries.entry(key).or_default().push(entry);
        inner.used += size;
    }

    #[cfg(test)]
    fn used(&self) -> usize {
        self.stats().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(body: &[u8]) -> Outcome {
        Negotiation::default().encoded(body.to_vec(), "x", Encoding::Identity)
    }

    use crate::shim::respond::full_body as body;

    #[test]
    fn a_new_generation_empties_the_store() {
        let store: Responses<u32, String> = Responses::new(1 << 20);
        let neg = Negotiation::default();
        let key = "a".to_string();
        assert!(store.lookup(&1, &key, &neg).is_none());
        store.remember(&1, key.clone(), &neg, &full(b"one"));
        assert_eq!(body(store.lookup(&1, &key, &neg)), b"one");
        // An answer made from generation 1 after 2 was seen is not kept.
        assert!(store.lookup(&2, &key, &neg).is_none());
        store.remember(&1, key.clone(), &neg, &full(b"one"));
        assert!(store.lookup(&2, &key, &neg).is_none());
        assert_eq!(store.used(), 0);
        store.remember(&2, key.clone(), &neg, &full(b"two"));
        assert_eq!(body(store.lookup(&2, &key, &neg)), b"two");
    }

    #[test]
    fn hits_share_the_kept_body_and_need_no_owned_key() {
        let store: Responses<u32, PathBuf> = Responses::new(1 << 20);
        let neg = Negotiation::default();
        let key = std::path::Path::new("api/v0/issues/index.json");
        assert!(store.lookup(&1, key, &neg).is_none());
        store.remember(&1, key.to_path_buf(), &neg, &full(&[b'x'; 4096]));
        let hit = |store: &Responses<u32, PathBuf>| match store.lookup(&1, key, &neg) {
            Some(Outcome::Full { bytes, .. }) => bytes,
            other => panic!("{other:?}"),
        };
        let (first, second) = (hit(&store), hit(&store));
        assert_eq!(first.len(), 4096);
        assert_eq!(first.as_ptr(), second.as_ptr(), "each hit copied the body");
    }

    #[test]
    fn entries_are_per_list_of_codings_and_answer_304() {
        let store: Responses<u32, String> = Responses::new(1 << 20);
        let plain = Negotiation::default();
        let gzip = Negotiation {
            accept: vec![Encoding::Gzip],
            if_none_match: None,
        };
        let key = "a".to_string();
        store.lookup(&1, &key, &plain);
        let outcome = full(b"one");
        let Outcome::Full { etag, .. } = &outcome else {
            unreachable!()
        };
        let conditional = Negotiation {
            accept: Vec::new(),
            if_none_match: Some(etag.to_string()),
        };
        store.remember(&1, key.clone(), &plain, &outcome);
        assert!(store.lookup(&1, &key, &gzip).is_none());
        assert!(matches!(
            store.lookup(&1, &key, &conditional),
            Some(Outcome::NotModified { .. })
        ));
        let stats = store.stats();
        assert_eq!((stats.hits, stats.misses), (1, 2));
    }

    #[test]
    fn the_budget_bounds_the_bytes_kept() {
        let store: Responses<u32, String> = Responses::new(1000);
        let neg = Negotiation::default();
        store.lookup(&1, &String::new(), &neg);
        for i in 0..50 {
            store.remember(&1, format!("{i:02}"), &neg, &full(&[b'x'; 100]));
            assert!(store.used() <= 1000);
        }
        // Over an eighth of the budget: not kept.
        store.remember(&1, "big".into(), &neg, &full(&[b'x'; 200]));
        assert!(store.lookup(&1, &"big".to_string(), &neg).is_none());

        let off: Responses<u32, String> = Responses::new(0);
        off.lookup(&1, &String::new(), &neg);
        off.remember(&1, "a".into(), &neg, &full(b"1"));
        assert!(off.lookup(&1, &"a".to_string(), &neg).is_none());
    }
}
