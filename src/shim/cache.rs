//! Responses kept in memory, bounded by bytes and tied to one generation of what
//! they were made from.
//!
//! [`Responses`] is the store behind both of the shim's caches: tree files
//! ([`super::files`], one generation = the folder the `site` symlink names) and live
//! answers ([`super::live`], one generation = the identity of the dataset file). An
//! entry is one response as sent (bytes in the coding chosen, that coding, the strong
//! ETag) for one key and one list of codings the client accepts, so a hit costs a
//! hash look-up and a copy: nothing is read, queried, hashed or compressed again.
//!
//! A look-up with another generation than the one held empties the store first, so
//! no response of an older tree or dataset is ever answered once a newer one is seen.
//! When the budget is spent, entries are dropped (in no particular order) to make
//! room; a response over an eighth of the budget is not kept. A budget of 0 keeps
//! nothing.

use std::collections::HashMap;
use std::hash::Hash;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::respond::{Encoding, Negotiation, Outcome};

/// The bytes a key takes, counted against the budget.
pub trait Weight {
    fn weight(&self) -> usize;
}

impl Weight for PathBuf {
    fn weight(&self) -> usize {
        self.as_os_str().len()
    }
}

impl Weight for String {
    fn weight(&self) -> usize {
        self.len()
    }
}

/// One response as sent.
#[derive(Debug)]
struct Entry {
    bytes: Vec<u8>,
    content_type: &'static str,
    encoding: Encoding,
    etag: String,
}

impl Entry {
    fn weight<K: Weight>(&self, key: &K) -> usize {
        self.bytes.len() + self.etag.len() + key.weight()
    }
}

/// Responses of one generation `G`, by key `K` (see the module doc).
#[derive(Debug)]
pub struct Responses<G, K> {
    budget: usize,
    inner: Mutex<Inner<G, K>>,
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
    entries: HashMap<(K, Vec<Encoding>), Entry>,
}

impl<G: Eq + Clone, K: Eq + Hash + Clone + Weight> Responses<G, K> {
    /// A store keeping at most `budget` bytes of responses.
    pub fn new(budget: usize) -> Self {
        Responses {
            budget,
            inner: Mutex::new(Inner {
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
            bytes: self.lock().used,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<G, K>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The response kept for `key` in `generation` and this request's codings (a 304
    /// when its `If-None-Match` names the ETag). Seeing a new generation empties the
    /// store.
    pub fn lookup(&self, generation: &G, key: &K, neg: &Negotiation) -> Option<Outcome> {
        let found = self.find(generation, key, neg);
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    fn find(&self, generation: &G, key: &K, neg: &Negotiation) -> Option<Outcome> {
        if self.budget == 0 {
            return None;
        }
        let mut inner = self.lock();
        if inner.generation.as_ref() != Some(generation) {
            inner.entries.clear();
            inner.used = 0;
            inner.generation = Some(generation.clone());
            return None;
        }
        let entry = inner.entries.get(&(key.clone(), neg.accept.clone()))?;
        Some(neg.known(
            entry.bytes.clone(),
            entry.content_type,
            entry.encoding,
            entry.etag.clone(),
        ))
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
            bytes: bytes.clone(),
            content_type,
            encoding: *encoding,
            etag: etag.clone(),
        };
        let size = entry.weight(&key);
        if size > self.budget / 8 {
            return;
        }
        let mut inner = self.lock();
        if inner.generation.as_ref() != Some(generation) {
            return;
        }
        while inner.used + size > self.budget {
            let Some(old_key) = inner.entries.keys().next().cloned() else {
                break;
            };
            if let Some(old) = inner.entries.remove(&old_key) {
                inner.used -= old.weight(&old_key.0);
            }
        }
        if let Some(old) = inner
            .entries
            .insert((key.clone(), neg.accept.clone()), entry)
        {
            inner.used -= old.weight(&key);
        }
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

    fn body(outcome: Option<Outcome>) -> Vec<u8> {
        match outcome {
            Some(Outcome::Full { bytes, .. }) => bytes,
            other => panic!("{other:?}"),
        }
    }

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
            if_none_match: Some(etag.clone()),
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
