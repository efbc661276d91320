//! A pre-rendered answer and a live one are the same bytes (docs/architecture.md §1):
//! for every list page and detail in the manifest of the sample tree, the URL is
//! rebuilt from the file's path, routed and canonicalised back to the same file, and
//! the shim's answer with tree lookups disabled (the catalog, for the same "today" as
//! the generator) is byte-identical to the file. Every file under `api/v0/` is one of
//! those or a fixed document (the root, `openapi.json`, the docs page: rendered for
//! every environment in the tree, for its own environment by the shim), and every
//! list, snapshot sub-list and detail operation has files compared.

use futures_like::join_chunks;
use roost::catalog;
use roost::config::Env;
use roost::tree::{self, Target};

use crate::support::*;

/// The request URL of a tree file (`api/v0/...`), or `None` for the fixed documents.
fn url_of(rel: &str) -> Option<String> {
    let rest = rel.strip_prefix("api/v0/")?;
    if rest == "index.json" || rest == "openapi.json" || rest.starts_with("docs/") {
        return None;
    }
    let (dir, name) = rest.rsplit_once('/').unwrap_or(("", rest));
    let name = name.strip_suffix(".json")?;
    let dir = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    Some(if name == "index" {
        format!("/api/v0/{dir}")
    } else if let Some(query) = name.strip_prefix("index@") {
        format!("/api/v0/{dir}?{query}")
    } else {
        format!("/api/v0/{dir}{name}")
    })
}

/// Whether a tree file is one of the fixed documents, which are not catalog answers.
fn is_fixed_document(rel: &str) -> bool {
    matches!(rel, "api/v0/index.json" | "api/v0/openapi.json") || rel.starts_with("api/v0/docs/")
}

/// The operation a URL is answered by, as `list:`, `snapshot:` or `detail:` and its
/// operation id.
fn operation_of(url: &str) -> Option<String> {
    let path = url.split_once('?').map_or(url, |(p, _)| p);
    match tree::route(&tree::split_path(path)?) {
        Target::List {
            spec,
            snapshot: None,
        } => Some(format!("list:{}", spec.operation_id)),
        Target::List { spec, .. } => Some(format!("snapshot:{}", spec.operation_id)),
        Target::Detail { spec, .. } => Some(format!("detail:{}", spec.operation_id)),
        _ => None,
    }
}

/// The tree file a URL maps to, by the same functions the shim uses.
fn file_of(url: &str) -> Option<std::path::PathBuf> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    match tree::route(&tree::split_path(path)?) {
        Target::List { spec, snapshot } => {
            // (`is_upcoming` files exist for CDN-only use; the shim answers them live.)
            let q = roost::shim::api::list_query(spec, Some(query)).ok()?;
            let dir = match &snapshot {
                Some(key) => tree::snapshot_list_dir(key, spec),
                None => vec![spec.path.to_string()],
            };
            tree::list_file(&dir, &q.canonical(spec))
        }
        Target::Detail { spec, ids } => tree::detail_file(spec.path, &ids),
        _ => None,
    }
}

mod futures_like {
    use std::future::Future;

    /// Runs `make(i)` for every index, `width` at a time on the current runtime.
    pub async fn join_chunks<F, Fut, T>(n: usize, width: usize, make: F) -> Vec<T>
    where
        F: Fn(usize) -> Fut,
        Fut: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let mut out = Vec::with_capacity(n);
        let mut start = 0;
        while start < n {
            let end = (start + width).min(n);
            let handles: Vec<_> = (start..end).map(|i| tokio::spawn(make(i))).collect();
            for h in handles {
                out.push(h.await.unwrap());
            }
            start = end;
        }
        out
    }
}

#[test]
fn urls_are_rebuilt_from_file_names() {
    assert_eq!(
        url_of("api/v0/chapters/index.json").unwrap(),
        "/api/v0/chapters/"
    );
    assert_eq!(
        url_of("api/v0/issues/index@page=2&state=open.json").unwrap(),
        "/api/v0/issues/?page=2&state=open"
    );
    assert_eq!(
        url_of("api/v0/releases/o/r/release%2F2.0.json").unwrap(),
        "/api/v0/releases/o/r/release%2F2.0"
    );
    assert_eq!(
        url_of("api/v0/snapshots/2026-03/issues/index.json").unwrap(),
        "/api/v0/snapshots/2026-03/issues/"
    );
    assert_eq!(
        url_of("api/v0/members/%69ndex.json").unwrap(),
        "/api/v0/members/%69ndex"
    );
    assert!(url_of("api/v0/index.json").is_none());
    assert!(url_of("api/v0/docs/index.html").is_none());
    assert!(url_of("manifest.json").is_none());
    assert!(is_fixed_document("api/v0/docs/docs.css"));
    assert!(!is_fixed_document("api/v0/chapters/index.json"));
    assert_eq!(
        operation_of("/api/v0/snapshots/2026-03/issues/?page=2").as_deref(),
        Some("snapshot:list_snapshot_issues")
    );
    assert_eq!(
        operation_of("/api/v0/chapters/london").as_deref(),
        Some("detail:get_chapter")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_file_of_the_tree_equals_the_live_answer() {
    let fx = shared();
    let manifest = roost::generate::read_manifest(&fx.site).expect("manifest");
    let live = fx.app(Env::Local, |c| c.site = None);
    let mut cases = Vec::new();
    let (mut lists, mut details, mut upcoming) = (0, 0, 0);
    let mut operations = std::collections::BTreeSet::new();
    for entry in &manifest.files {
        let Some(url) = url_of(&entry.path) else {
            assert!(
                !entry.path.starts_with("api/") || is_fixed_document(&entry.path),
                "{} is an API file the comparison leaves out",
                entry.path
            );
            continue;
        };
        operations
            .insert(operation_of(&url).unwrap_or_else(|| panic!("{url} routes to no operation")));
        let mapped = file_of(&url).unwrap_or_else(|| panic!("{url} maps to no file"));
        assert_eq!(
            mapped.to_str().unwrap(),
            entry.path,
            "{url} does not map back to its file"
        );
        if entry.path.contains("/index") {
            lists += 1;
        } else {
            details += 1;
        }
        if entry.path.contains("is_upcoming=true") {
            upcoming += 1;
        }
        cases.push((url, entry.path.clone(), entry.size));
    }
    assert!(
        lists > 1000 && details > 300,
        "{lists} lists, {details} details"
    );
    assert!(upcoming > 0, "the is_upcoming files are compared too");
    // Every list, snapshot sub-list and detail operation is covered.
    let expected: std::collections::BTreeSet<String> = (catalog::LISTS.iter())
        .map(|s| format!("list:{}", s.operation_id))
        .chain(
            catalog::SNAPSHOT_LISTS
                .iter()
                .map(|s| format!("snapshot:{}", s.operation_id)),
        )
        .chain(
            catalog::DETAILS
                .iter()
                .map(|s| format!("detail:{}", s.operation_id)),
        )
        .collect();
    let missing: Vec<&String> = expected.difference(&operations).collect();
    assert!(
        missing.is_empty(),
        "operations without a compared file: {missing:?}"
    );
    // The manifest lists the tree's files: none under api/ is left out of it.
    let on_disk: Vec<String> = tree_files(&fx.site)
        .into_keys()
        .filter(|p| p.starts_with("api/"))
        .collect();
    let listed: std::collections::BTreeSet<&str> =
        manifest.files.iter().map(|e| e.path.as_str()).collect();
    let unlisted: Vec<&String> = on_disk
        .iter()
        .filter(|p| !listed.contains(p.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "tree files missing from the manifest: {unlisted:?}"
    );
    eprintln!("comparing {lists} list pages ({upcoming} is_upcoming) and {details} details");
    let cases = std::sync::Arc::new(cases);
    let n = cases.len();
    let results = join_chunks(n, 32, |i| {
        let cases = cases.clone();
        let live = live.clone();
        async move {
            let (url, rel, size) = &cases[i];
            let r = get(&live, url).await;
            let file = shared().file(rel);
            assert_eq!(file.len() as u64, *size);
            if r.status != 200 || r.body != file {
                Some(format!(
                    "{url} ({rel}): {} {}",
                    r.status,
                    String::from_utf8_lossy(&r.body)
                        .chars()
                        .take(300)
                        .collect::<String>()
                ))
            } else {
                None
            }
        }
    })
    .await;
    let mismatches: Vec<String> = results.into_iter().flatten().collect();
    assert!(
        mismatches.is_empty(),
        "{} of {n} files differ from the live answer, e.g.:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
