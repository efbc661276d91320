//! Files of the live tree as the shim sends them: read once, then answered from
//! memory.
//!
//! [`FileCache`] keeps the response of a tree file (its bytes in the coding sent, that
//! coding and the strong ETag) per file and per list of codings the client accepts,
//! so a file is read, hashed and, when the tree has no precompressed sibling,
//! compressed once, not per request. It is bounded by bytes ([`DEFAULT_BUDGET`]);
//! when full, entries are dropped to make room.
//!
//! Generations: the cache belongs to the generation the `site` symlink names. Every
//! look-up reads the link (one `readlink`); when it names another generation than the
//! one cached, the cache is emptied first, so a regeneration is seen by the next
//! request as before. A file is read through the generation the link named, so the
//! bytes cached are that generation's. A `site` that is not a symlink (a plain folder)
//! is read as before and nothing is cached: nothing tells when its files change.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock};

use super::cache::{Responses, Stats};
use super::respond::{ApiError, Negotiation, Outcome};

/// Bytes of responses kept, at most.
pub const DEFAULT_BUDGET: usize = 32 << 20;

/// Request targets whose tree file is remembered ([`FileCache::route`]), at most; the
/// list is emptied when full.
const ROUTES_KEPT: usize = 8192;
/// Longest request target remembered.
const ROUTE_MAX: usize = 1024;

/// Responses of tree files of one generation (see the module doc), and the tree file
/// of each request target (path and query as sent) answered from them, so that a
/// request seen before is neither split, decoded, validated nor canonicalised again.
/// A target names the same file in every generation (the file tree contract is a
/// function of the request alone), so routes are kept across generations.
#[derive(Debug)]
pub struct FileCache {
    responses: Responses<PathBuf, OsString>,
    routes: RwLock<HashMap<Box<str>, PathBuf>>,
}

impl Default for FileCache {
    fn default() -> Self {
        FileCache::new(DEFAULT_BUDGET)
    }
}

/// The generation `site` names: its symlink's target as written (the generations'
/// folders are never reused, so the target tells one from another).
fn generation(site: &Path) -> Option<PathBuf> {
    std::fs::read_link(site).ok()
}

/// The folder of the generation `link` (a target of the `site` symlink): relative to
/// the symlink's folder.
fn folder(site: &Path, link: &Path) -> PathBuf {
    match site.parent() {
        Some(parent) => parent.join(link),
        None => link.to_path_buf(),
    }
}

impl FileCache {
    /// A cache keeping at most `budget` bytes of responses.
    pub fn new(budget: usize) -> FileCache {
        FileCache {
            responses: Responses::new(budget),
            routes: RwLock::new(HashMap::new()),
        }
    }

    pub fn stats(&self) -> Stats {
        self.responses.stats()
    }

    /// The cached response of `rel` for this request, if any; no file is read (one
    /// `readlink`), so it can run on the async workers.
    pub fn lookup(&self, site: &Path, rel: &Path, neg: &Negotiation) -> Option<Outcome> {
        let generation = generation(site)?;
        self.responses.lookup(&generation, rel.as_os_str(), neg)
    }

    /// The cached response of the tree file remembered for the request target
    /// `target` (path and query as sent) by [`FileCache::remember_route`], a list or
    /// a detail, if any. Only a hit is counted: on a miss the request goes the whole
    /// way, whose look-up counts it.
    pub fn lookup_target(&self, site: &Path, target: &str, neg: &Negotiation) -> Option<Outcome> {
        let routes = self.routes.read().unwrap_or_else(PoisonError::into_inner);
        let rel = routes.get(target)?;
        let generation = generation(site)?;
        self.responses.hit(&generation, rel.as_os_str(), neg)
    }

    /// Remembers that the request target `target` names the tree file `rel` (a list
    /// or detail request, routed and canonicalised).
    pub fn remember_route(&self, target: &str, rel: &Path) {
        if target.len() > ROUTE_MAX || self.responses.keeps_nothing() {
            return;
        }
        let known = self.routes.read().unwrap_or_else(PoisonError::into_inner);
        if known.contains_key(target) {
            return;
        }
        drop(known);
        let mut routes = self.routes.write().unwrap_or_else(PoisonError::into_inner);
        if routes.len() >= ROUTES_KEPT {
            routes.clear();
        }
        routes.insert(target.into(), rel.to_path_buf());
    }

    /// One file of the live tree (a precompressed sibling when the client accepts its
    /// coding), read with a single open and remembered. `None` when the tree does not
    /// have it.
    pub fn read(
        &self,
        site: &Path,
        rel: &Path,
        content_type: &'static str,
        neg: &Negotiation,
    ) -> Result<Option<Outcome>, ApiError> {
        if let Some(outcome) = self.lookup(site, rel, neg) {
            return Ok(Some(outcome));
        }
        let generation = generation(site);
        let folder = generation.as_deref().map(|link| folder(site, link));
        let root = folder.as_deref().unwrap_or(site);
        let outcome = match read_file(root, rel, content_type, neg)? {
            Some(outcome) => outcome,
            // The generation was replaced and removed meanwhile: the current one.
            None if generation.is_some() => {
                return read_file(site, rel, content_type, neg);
            }
            None => return Ok(None),
        };
        if let Some(generation) = generation {
            self.responses
                .remember(&generation, rel.as_os_str().to_os_string(), neg, &outcome);
        }
        Ok(Some(outcome))
    }
}

/// One file under `root`: the first precompressed sibling the client accepts, else
/// the file itself (compressed on the fly when accepted). `None` when there is none.
fn read_file(
    root: &Path,
    rel: &Path,
    content_type: &'static str,
    neg: &Negotiation,
) -> Result<Option<Outcome>, ApiError> {
    let path = root.join(rel);
    for &encoding in &neg.accept {
        let Some(suffix) = encoding.sibling_suffix() else {
            continue;
        };
        let mut sibling = path.clone().into_os_string();
        sibling.push(suffix);
        if let Ok(bytes) = std::fs::read(&sibling) {
            return Ok(Some(neg.encoded(bytes, content_type, encoding)));
        }
    }
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(
            neg.identity(bytes, content_type)
                .map_err(ApiError::Internal)?,
        )),
        Err(e) => {
            if !matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) {
                tracing::warn!(path = %path.display(), error = %e, "tree file unreadable; answering live");
            }
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dir: &Path, name: &str, body: &[u8]) {
        let g = dir.join(name);
        std::fs::create_dir_all(&g).unwrap();
        std::fs::write(g.join("a.json"), body).unwrap();
        let link = dir.join("site.tmp");
        std::os::unix::fs::symlink(name, &link).unwrap();
        std::fs::rename(&link, dir.join("site")).unwrap();
    }

    /// A folder for generations, the `site` path inside it, and an empty cache.
    fn fixture() -> (tempfile::TempDir, std::path::PathBuf, FileCache) {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        (dir, site, FileCache::new(1 << 20))
    }

    use crate::shim::respond::full_body as body;

    #[test]
    fn a_file_is_read_once_per_generation() {
        let (dir, site, cache) = fixture();
        let rel = Path::new("a.json");
        let neg = Negotiation::default();
        tree(dir.path(), "g1", b"one");
        assert!(cache.lookup(&site, rel, &neg).is_none());
        assert_eq!(body(cache.read(&site, rel, "x", &neg).unwrap()), b"one");
        // Changed behind the cache's back: the cached bytes are answered.
        std::fs::write(dir.path().join("g1/a.json"), b"uno").unwrap();
        assert_eq!(body(cache.lookup(&site, rel, &neg)), b"one");
        // A new generation swapped in is seen by the next request.
        tree(dir.path(), "g2", b"two");
        assert!(cache.lookup(&site, rel, &neg).is_none());
        assert_eq!(body(cache.read(&site, rel, "x", &neg).unwrap()), b"two");
        // An If-None-Match of the cached tag is a 304.
        let tag = match cache.lookup(&site, rel, &neg) {
            Some(Outcome::Full { etag, .. }) => etag.to_string(),
            other => panic!("{other:?}"),
        };
        let conditional = Negotiation {
            if_none_match: Some(tag),
            ..Negotiation::default()
        };
        assert!(matches!(
            cache.lookup(&site, rel, &conditional),
            Some(Outcome::NotModified { .. })
        ));
    }

    #[test]
    fn a_remembered_target_answers_its_file_of_the_current_generation() {
        let (dir, site, cache) = fixture();
        let rel = Path::new("a.json");
        let neg = Negotiation::default();
        let target = "/api/v0/a/?x=1";
        tree(dir.path(), "g1", b"one");
        assert!(cache.lookup_target(&site, target, &neg).is_none());
        assert_eq!(body(cache.read(&site, rel, "x", &neg).unwrap()), b"one");
        cache.remember_route(target, rel);
        assert_eq!(body(cache.lookup_target(&site, target, &neg)), b"one");
        assert!(cache.lookup_target(&site, "/api/v0/a/?x=2", &neg).is_none());
        // Another coding accepted: not kept yet, so the request goes the whole way.
        let gzip = Negotiation {
            accept: vec![super::super::respond::Encoding::Gzip],
            if_none_match: None,
        };
        assert!(cache.lookup_target(&site, target, &gzip).is_none());
        // A new generation: the target names the same file, read from the new tree.
        tree(dir.path(), "g2", b"two");
        assert!(cache.lookup_target(&site, target, &neg).is_none());
        assert_eq!(body(cache.read(&site, rel, "x", &neg).unwrap()), b"two");
        assert_eq!(body(cache.lookup_target(&site, target, &neg)), b"two");
        // Only hits are counted by a target's look-up.
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses), (2, 2));
    }

    #[test]
    fn the_budget_bounds_the_bytes_kept_and_plain_folders_are_not_cached() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        let g = dir.path().join("g1");
        std::fs::create_dir_all(&g).unwrap();
        for i in 0..20 {
            std::fs::write(g.join(format!("{i}.json")), vec![b'x'; 100]).unwrap();
        }
        std::os::unix::fs::symlink("g1", &site).unwrap();
        let cache = FileCache::new(1000);
        let neg = Negotiation::default();
        for i in 0..20 {
            let rel = PathBuf::from(format!("{i}.json"));
            assert_eq!(body(cache.read(&site, &rel, "x", &neg).unwrap()).len(), 100);
        }
        assert!(cache.stats().bytes <= 1000);
        assert!(cache
            .read(&site, Path::new("missing.json"), "x", &neg)
            .unwrap()
            .is_none());

        let plain = FileCache::new(1000);
        assert!(plain
            .read(&g, Path::new("0.json"), "x", &neg)
            .unwrap()
            .is_some());
        assert!(plain.lookup(&g, Path::new("0.json"), &neg).is_none());
    }
}
