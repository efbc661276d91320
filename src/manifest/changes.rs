//! What changed between two generations of a tree, written beside the manifest in
//! `changes/` for a publishing job: upload what was added or changed, delete what was
//! removed, purge the URLs whose answers changed.
//!
//! - `changes/added.txt`, `changes/changed.txt`, `changes/removed.txt`: paths relative
//!   to the site root, one a line, sorted (tree files and the manifest documents;
//!   every file is "added" when there was no previous generation);
//! - `changes/urls.txt`: the API URLs (path and query, no host) of every answer that
//!   was added, changed or removed, one a line, sorted: the file → URL direction of the
//!   file tree contract (docs/architecture.md §4), with and without the trailing slash.
//!
//! A host whose clients ask for file names instead of API URLs (a bucket behind a CDN)
//! purges the files themselves: the paths of the three lists, with `%` written `%25`.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{Document, ManifestEntry};
use crate::tree::{API_DIR, API_PREFIX};

/// The folder of the change lists, at the root of the tree.
pub const CHANGES_DIR: &str = "changes";

/// Paths added, changed and removed, each sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
}

impl Changes {
    /// The changes from `previous` (path → size and hash) to `files` (sorted by path).
    pub fn between(files: &[ManifestEntry], previous: &HashMap<String, (u64, String)>) -> Changes {
        let mut out = Changes::default();
        let mut listed_again = 0;
        for entry in files {
            match previous.get(&entry.path) {
                None => out.added.push(entry.path.clone()),
                Some((size, sha256)) => {
                    listed_again += 1;
                    if *size != entry.size || *sha256 != entry.sha256 {
                        out.changed.push(entry.path.clone())
                    }
                }
            }
        }
        // Every previous path listed again: none removed, and no need to look for them.
        if listed_again < previous.len() {
            let listed: HashSet<&str> = files.iter().map(|e| e.path.as_str()).collect();
            out.removed = previous
                .keys()
                .filter(|k| !listed.contains(k.as_str()))
                .cloned()
                .collect();
            out.removed.sort();
        }
        out
    }

    /// Adds the changes of another, disjoint set of paths.
    pub fn merge(&mut self, other: Changes) {
        for (mine, theirs) in [
            (&mut self.added, other.added),
            (&mut self.changed, other.changed),
            (&mut self.removed, other.removed),
        ] {
            mine.extend(theirs);
            mine.sort();
            mine.dedup();
        }
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }

    /// The API URLs of every answer added, changed or removed, sorted, without repeats.
    pub fn urls(&self) -> Vec<String> {
        let urls: BTreeSet<String> = [&self.added, &self.changed, &self.removed]
            .into_iter()
            .flatten()
            .flat_map(|path| api_urls(path))
            .collect();
        urls.into_iter().collect()
    }

    /// The four `changes/` files.
    pub fn documents(&self) -> Vec<Document> {
        let lines = |items: &[String]| -> Vec<u8> {
            let mut text = String::new();
            for item in items {
                text.push_str(item);
                text.push('\n');
            }
            text.into_bytes()
        };
        vec![
            (format!("{CHANGES_DIR}/added.txt"), lines(&self.added)),
            (format!("{CHANGES_DIR}/changed.txt"), lines(&self.changed)),
            (format!("{CHANGES_DIR}/removed.txt"), lines(&self.removed)),
            (format!("{CHANGES_DIR}/urls.txt"), lines(&self.urls())),
        ]
    }
}

/// The API URLs (path and query) that answer with the tree file `path` (relative to the
/// site root), the file → URL direction of the contract; empty for files that are not
/// answers (precompressed siblings, the manifest, `_headers`, the dataset).
///
/// - `api/v0/issues/index.json` → `/api/v0/issues/`, `/api/v0/issues`;
/// - `api/v0/issues/index@page=2&state=open.json` → `/api/v0/issues/?page=2&state=open`,
///   `/api/v0/issues?page=2&state=open`;
/// - `api/v0/chapters/london.json` → `/api/v0/chapters/london`, `/api/v0/chapters/london/`;
/// - `api/v0/openapi.json` → `/api/v0/openapi.json`;
/// - `api/v0/docs/index.html` → `/api/v0/docs/`, `/api/v0/docs/index.html`; other docs
///   files at their own name.
pub fn api_urls(path: &str) -> Vec<String> {
    let Some(rest) = path.strip_prefix(API_DIR).and_then(|r| r.strip_prefix('/')) else {
        return Vec::new();
    };
    if rest == "openapi.json" {
        return vec![format!("{API_PREFIX}/openapi.json")];
    }
    if let Some(doc) = rest.strip_prefix("docs/") {
        let mut urls = vec![format!("{API_PREFIX}/docs/{doc}")];
        if doc == "index.html" {
            urls.push(format!("{API_PREFIX}/docs/"));
        }
        return urls;
    }
    let Some(stem) = rest.strip_suffix(".json") else {
        return Vec::new();
    };
    let (dir, name) = match stem.rsplit_once('/') {
        Some((dir, name)) => (format!("{API_PREFIX}/{dir}"), name),
        None => (API_PREFIX.to_string(), stem),
    };
    if name == "index" {
        vec![format!("{dir}/"), dir]
    } else if let Some(query) = name.strip_prefix("index@") {
        vec![format!("{dir}/?{query}"), format!("{dir}?{query}")]
    } else {
        vec![format!("{dir}/{name}"), format!("{dir}/{name}/")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_map_to_the_urls_that_answer_with_them() {
        assert_eq!(
            api_urls("api/v0/issues/index.json"),
            ["/api/v0/issues/", "/api/v0/issues"]
        );
        assert_eq!(
            api_urls("api/v0/issues/index@page=2&state=open.json"),
            [
                "/api/v0/issues/?page=2&state=open",
                "/api/v0/issues?page=2&state=open"
            ]
        );
        assert_eq!(api_urls("api/v0/index.json"), ["/api/v0/", "/api/v0"]);
        assert_eq!(
            api_urls("api/v0/snapshots/2026-05/issues/index@page=2.json"),
            [
                "/api/v0/snapshots/2026-05/issues/?page=2",
                "/api/v0/snapshots/2026-05/issues?page=2"
            ]
        );
        assert_eq!(
            api_urls("api/v0/releases/appsec-tools/zap-extensions/release%2F2.0.json"),
            [
                "/api/v0/releases/appsec-tools/zap-extensions/release%2F2.0",
                "/api/v0/releases/appsec-tools/zap-extensions/release%2F2.0/"
            ]
        );
        assert_eq!(
            api_urls("api/v0/members/%69ndex.json"),
            ["/api/v0/members/%69ndex", "/api/v0/members/%69ndex/"]
        );
        assert_eq!(api_urls("api/v0/openapi.json"), ["/api/v0/openapi.json"]);
        assert_eq!(
            api_urls("api/v0/docs/index.html"),
            ["/api/v0/docs/index.html", "/api/v0/docs/"]
        );
        for none in [
            "api/v0/issues/index.json.gz",
            "api/v0/issues/index.json.br",
            "manifest.json",
            "_headers",
            "dataset/issues.jsonl.gz",
        ] {
            assert!(api_urls(none).is_empty(), "{none}");
        }
    }

    #[test]
    fn changes_list_added_changed_and_removed_paths() {
        let entry = |path: &str, sha: &str| ManifestEntry {
            path: path.to_string(),
            size: 1,
            sha256: sha.to_string(),
        };
        let previous: HashMap<String, (u64, String)> = [("a", "1"), ("b", "1"), ("c", "1")]
            .into_iter()
            .map(|(p, s)| (p.to_string(), (1, s.to_string())))
            .collect();
        let now = [entry("a", "1"), entry("b", "2"), entry("d", "1")];
        let changes = Changes::between(&now, &previous);
        assert_eq!(changes.added, ["d"]);
        assert_eq!(changes.changed, ["b"]);
        assert_eq!(changes.removed, ["c"]);
        let docs = changes.documents();
        assert_eq!(docs[0], ("changes/added.txt".to_string(), b"d\n".to_vec()));
        assert_eq!(docs[3], ("changes/urls.txt".to_string(), Vec::new()));
    }
}
