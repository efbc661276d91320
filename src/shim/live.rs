//! Live answers kept in memory: a list page or a record answered from the dataset is
//! made once per dataset file, then answered like a tree file.
//!
//! The tree holds the pages clients ask for most; what it cannot hold (other page
//! sizes, `q` searches, `is_upcoming`, pages past the tree's depth) is answered from
//! SQLite, which costs a query and a render (a few hundred microseconds of CPU, more
//! for deep pages). Integrations and the frontend repeat the same few of those, so
//! [`LiveCache`] keeps each answer (bytes as sent, coding, ETag; see
//! [`super::cache`]) under its canonical request:
//!
//! - the resource path, the snapshot of a sub-list, and the canonical query
//!   ([`ListQuery::canonical`]: parameters decoded, sorted, defaults dropped), so
//!   `?page_size=7&state=open` and `?state=open&page_size=7&page=1` are one entry;
//! - the date the answer was made for (`is_upcoming` depends on it), so answers are
//!   not carried past midnight UTC;
//! - the dataset file's identity (device, inode, size, modification time): replacing
//!   the dataset (`roost db import`, `synth`, `init` all swap the file) empties the
//!   cache at the next request, exactly as a regeneration empties the tree files'.
//!
//! Only 200 answers are kept; errors (400, 404) are answered each time. The budget is
//! `--live-cache-mb` (default [`DEFAULT_BUDGET`]; 0 turns the cache off).

use std::path::Path;

use bytes::Bytes;

use crate::catalog::{DetailSpec, ListQuery, ListSpec};
use crate::store::FileId;

use super::cache::{Responses, Stats};
use super::respond::{Encoding, Etag, Negotiation, Outcome};

/// Bytes of live answers kept, at most.
pub const DEFAULT_BUDGET: usize = 32 << 20;

/// Live answers of one dataset file (see the module doc).
#[derive(Debug)]
pub struct LiveCache(Responses<FileId, String>);

impl Default for LiveCache {
    fn default() -> Self {
        LiveCache::new(DEFAULT_BUDGET)
    }
}

impl LiveCache {
    /// A cache keeping at most `budget` bytes of answers.
    pub fn new(budget: usize) -> LiveCache {
        LiveCache(Responses::new(budget))
    }

    pub fn stats(&self) -> Stats {
        self.0.stats()
    }

    /// Whether no answer is kept (`--live-cache-mb 0`): then no key is needed.
    pub fn keeps_nothing(&self) -> bool {
        self.0.keeps_nothing()
    }

    /// The answer kept for `key`, made from the dataset file `db` is now.
    pub fn lookup(&self, db: &Path, key: &str, neg: &Negotiation) -> Option<Outcome> {
        if self.0.keeps_nothing() {
            // Nothing to look at: not even the dataset file.
            self.0.missed();
            return None;
        }
        let dataset = FileId::of(db).ok()?;
        self.0.lookup(&dataset, key, neg)
    }

    /// Keeps an answer made from `dataset`.
    pub fn remember(&self, dataset: &FileId, key: String, neg: &Negotiation, outcome: &Outcome) {
        self.0.remember(dataset, key, neg, outcome);
    }
}

/// GraphQL answers ([`crate::graphql::Answers`]) in a response store of their own,
/// bounded like the live answers.
#[derive(Debug)]
pub struct GraphqlAnswers(Responses<FileId, String>);

impl GraphqlAnswers {
    /// A store keeping at most `budget` bytes of answers; 0 keeps none.
    pub fn new(budget: usize) -> GraphqlAnswers {
        GraphqlAnswers(Responses::new(budget))
    }

    /// Hits, misses and bytes held.
    pub fn stats(&self) -> Stats {
        self.0.stats()
    }
}

impl crate::graphql::Answers for GraphqlAnswers {
    fn lookup(&self, dataset: &FileId, key: &str) -> Option<Bytes> {
        match self.0.lookup(dataset, key, &Negotiation::default())? {
            Outcome::Full { bytes, .. } => Some(bytes),
            Outcome::NotModified { .. } => None,
        }
    }

    fn remember(&self, dataset: &FileId, key: String, content_type: &'static str, body: Bytes) {
        let answer = Outcome::Full {
            bytes: body,
            content_type,
            encoding: Encoding::Identity,
            etag: Etag::none(),
        };
        self.0
            .remember(dataset, key, &Negotiation::default(), &answer);
    }
}

/// The key of a list page: path, snapshot, canonical query and date.
pub fn list_key(spec: &ListSpec, snapshot: Option<&str>, query: &ListQuery, today: &str) -> String {
    format!(
        "L\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{today}",
        spec.path,
        snapshot.unwrap_or(""),
        query.canonical(spec)
    )
}

/// The key of a record: its path and canonical ids.
pub fn detail_key(spec: &DetailSpec, ids: &[String]) -> String {
    let mut key = format!("D\u{1f}{}", spec.path);
    for id in ids {
        key.push('\u{1f}');
        key.push_str(id);
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use crate::tree;

    #[test]
    fn equal_requests_share_a_key_and_different_ones_do_not() {
        let spec = catalog::list_spec("issues").unwrap();
        let q = |raw| tree::list_query(spec, Some(raw)).unwrap();
        let key = |raw, today| list_key(spec, None, &q(raw), today);
        assert_eq!(
            key("page_size=7&state=open", "2026-01-01"),
            key("state=open&page=1&page_size=7", "2026-01-01")
        );
        assert_ne!(
            key("page_size=7&state=open", "2026-01-01"),
            key("page_size=7&state=open&page=2", "2026-01-01")
        );
        assert_ne!(
            key("page_size=7", "2026-01-01"),
            key("page_size=7", "2026-01-02")
        );
        assert_ne!(
            list_key(spec, Some("2025-01"), &q("page_size=7"), "2026-01-01"),
            key("page_size=7", "2026-01-01")
        );
    }
}
