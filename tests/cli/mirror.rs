//! The split manifest, the change lists and `roost mirror`: a tree served over HTTP (a
//! small static server in the test) is copied byte for byte, a later run fetches only
//! what changed, an interrupted run leaves the copy as it was, and a replica with the
//! dataset, mirrored into an empty folder, answers searches, other page sizes and
//! GraphQL (a frontend page's operation among them) with the original's bytes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use roost::config::Env;
use roost::generate::{self, Dataset};
use roost::manifest::{self, split, Root};
use roost::mirror;

use crate::support::{generate_options, get, oneshot, request, shim_state, tree_files, Reply};

fn generate_into(db: &Path, site: &Path, dataset: Option<Dataset>) -> generate::Summary {
    generate::generate_with(&generate_options(db, site), dataset).unwrap()
}

/// Every file of a tree (through its `site` symlink) but `changes/`, by path.
fn tree(site: &Path) -> BTreeMap<String, Vec<u8>> {
    tree_files(site)
        .into_iter()
        .filter(|(path, _)| !path.starts_with("changes/"))
        .collect()
}

fn assert_same_tree(a: &Path, b: &Path) {
    let (a, b) = (tree(a), tree(b));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "same files"
    );
    for (path, bytes) in &a {
        assert!(bytes == &b[path], "{path} differs");
    }
}

fn lines(site: &Path, list: &str) -> Vec<String> {
    fs::read_to_string(site.join("changes").join(list))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A dataset: the sample, with the London chapter renamed and one issue retitled when
/// `edited`.
fn dataset(dir: &Path, name: &str, edited: bool) -> PathBuf {
    let db = dir.join(format!("{name}.db"));
    if !edited {
        roost::store::init_db(&db, false, roost::idx::build).unwrap();
        return db;
    }
    let sample = dir.join("sample.db");
    if !sample.exists() {
        roost::store::init_db(&sample, false, roost::idx::build).unwrap();
    }
    let export = dir.join(format!("{name}-export"));
    let conn = roost::store::open_read(&sample).unwrap();
    roost::store::export::export_dir(&conn, &export, true).unwrap();
    for (file, from, to) in [
        (
            "chapters.jsonl",
            "\"name\":\"London\"",
            "\"name\":\"London Town\"",
        ),
        (
            "issues.jsonl",
            "\"number\":202,\"title\":\"",
            "\"number\":202,\"title\":\"Edited: ",
        ),
    ] {
        let path = export.join(file);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no {from}");
        fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
    roost::store::import_dir(&export, &db, roost::idx::build).unwrap();
    db
}

/// A static file server over the folder `root` points at (resolved per request, so
/// regenerating or repointing it switches what is served), logging each path
/// requested; after `fail_after` requests (when not negative) it answers 404.
struct Server {
    addr: SocketAddr,
    root: Arc<Mutex<PathBuf>>,
    requests: Arc<Mutex<Vec<String>>>,
    fail_after: Arc<AtomicI64>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let server = Server {
            addr: listener.local_addr().unwrap(),
            root: Arc::new(Mutex::new(root.to_path_buf())),
            requests: Arc::new(Mutex::new(Vec::new())),
            fail_after: Arc::new(AtomicI64::new(-1)),
        };
        let (root, requests, fail_after) = (
            server.root.clone(),
            server.requests.clone(),
            server.fail_after.clone(),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, requests, fail_after) =
                    (root.clone(), requests.clone(), fail_after.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &root, &requests, &fail_after);
                });
            }
        });
        server
    }

    fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    fn take_requests(&self) -> Vec<String> {
        std::mem::take(&mut *self.requests.lock().unwrap())
    }
}

fn serve(
    stream: TcpStream,
    root: &Mutex<PathBuf>,
    requests: &Mutex<Vec<String>>,
    fail_after: &AtomicI64,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/");
    let path = percent_encoding::percent_decode_str(target.trim_start_matches('/'))
        .decode_utf8_lossy()
        .into_owned();
    requests.lock().unwrap().push(path.clone());
    let failing = fail_after
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
            (n > 0).then_some(n - 1)
        })
        .is_err()
        && fail_after.load(Ordering::SeqCst) == 0;
    let root = root.lock().unwrap().clone();
    let body = if failing || path.split('/').any(|s| s == "..") {
        None
    } else {
        fs::read(root.join(&path)).ok()
    };
    let mut out = stream;
    match body {
        Some(body) => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            out.write_all(&body)?;
        }
        None => write!(
            out,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?,
    }
    out.flush()
}

fn mirror_options(url: &str, out: &Path, with_dataset: bool) -> mirror::Options {
    mirror::Options {
        url: url.to_string(),
        out: out.to_path_buf(),
        with_dataset,
        jobs: 4,
        progress: false,
        wait: false,
    }
}

/// The entries of a tree's `manifest.json` as path → hash.
fn hashes(site: &Path) -> HashMap<String, String> {
    manifest::read_manifest(&fs::canonicalize(site).unwrap())
        .unwrap()
        .files
        .into_iter()
        .map(|e| (e.path, e.sha256))
        .collect()
}

#[test]
fn the_split_manifest_lists_every_file_and_rebuilds_manifest_json() {
    let tmp = tempfile::tempdir().unwrap();
    let db = dataset(tmp.path(), "a", false);
    let site = tmp.path().join("site");
    generate_into(&db, &site, None);
    let full = fs::read(site.join("manifest.json")).unwrap();
    let root_bytes = fs::read(site.join(split::ROOT)).unwrap();
    let root = Root::parse(&root_bytes).unwrap();
    assert!(root.chunks.len() >= 2, "{} chunks", root.chunks.len());
    assert!(root_bytes.len() < 8_000, "root {} bytes", root_bytes.len());
    assert_eq!(
        root.manifest.as_ref().unwrap().sha256,
        manifest::sha256_hex(&full)
    );
    let mut all = Vec::new();
    for chunk in &root.chunks {
        let bytes = fs::read(site.join(&chunk.path)).unwrap();
        assert_eq!(
            chunk.path,
            format!("manifest/{}.json", manifest::sha256_hex(&bytes))
        );
        all.extend(split::parse_chunk(chunk, &bytes).unwrap());
    }
    assert_eq!(manifest::full_manifest(&all).unwrap(), full);
    assert_eq!(root.files, all.len() as u64);
    // The manifest documents and change lists are not listed in the manifest.
    assert!(all.iter().all(|e| split::is_safe_path(&e.path)));
}

#[test]
fn change_lists_name_the_files_that_changed_and_the_urls_to_purge() {
    let tmp = tempfile::tempdir().unwrap();
    let a = dataset(tmp.path(), "a", false);
    let b = dataset(tmp.path(), "b", true);
    let site = tmp.path().join("site");
    generate_into(&a, &site, None);
    // A first generation: everything is added.
    let before = hashes(&site);
    assert!(lines(&site, "added.txt").len() > before.len());
    assert!(lines(&site, "changed.txt").is_empty() && lines(&site, "removed.txt").is_empty());

    generate_into(&b, &site, None);
    let after = hashes(&site);
    let (added, changed, removed) = (
        lines(&site, "added.txt"),
        lines(&site, "changed.txt"),
        lines(&site, "removed.txt"),
    );
    // Tree files: exactly the manifest difference.
    let tree_only = |list: &[String]| -> BTreeSet<String> {
        list.iter()
            .filter(|p| split::is_safe_path(p))
            .cloned()
            .collect()
    };
    let expect_changed: BTreeSet<String> = after
        .iter()
        .filter(|(p, h)| before.get(*p).is_some_and(|old| old != *h))
        .map(|(p, _)| p.clone())
        .collect();
    let expect_added: BTreeSet<String> = after
        .keys()
        .filter(|p| !before.contains_key(*p))
        .cloned()
        .collect();
    let expect_removed: BTreeSet<String> = before
        .keys()
        .filter(|p| !after.contains_key(*p))
        .cloned()
        .collect();
    assert_eq!(tree_only(&changed), expect_changed);
    assert_eq!(tree_only(&added), expect_added);
    assert_eq!(tree_only(&removed), expect_removed);
    assert!(changed.contains(&"api/v0/chapters/london.json".to_string()));
    assert!(changed.contains(&"manifest.json".to_string()));
    assert!(changed.contains(&"manifest/root.json".to_string()));
    assert!(added.iter().any(|p| p.starts_with("manifest/")));
    assert!(removed.iter().any(|p| p.starts_with("manifest/")));

    let urls = lines(&site, "urls.txt");
    for url in [
        "/api/v0/chapters/london",
        "/api/v0/chapters/london/",
        "/api/v0/chapters/",
        "/api/v0/chapters",
        "/api/v0/issues/juice-labs/juice-shop/202",
    ] {
        assert!(urls.contains(&url.to_string()), "{url} not in urls.txt");
    }
    assert!(urls.iter().any(|u| u.starts_with("/api/v0/chapters/?")));
    assert!(!urls.iter().any(|u| u.starts_with("/api/v0/sponsors")));
    // Every URL names an answer that changed.
    for url in &urls {
        let (path, query) = url
            .split_once('?')
            .map_or((url.as_str(), None), |(p, q)| (p, Some(q)));
        if let Some(file) = roost::tree::file_for_request(path, query) {
            assert!(
                expect_changed.contains(&file) || expect_added.contains(&file),
                "{url} → {file}"
            );
        }
    }

    // Nothing changed: empty lists, nothing written.
    let summary = generate_into(&b, &site, None);
    assert_eq!(summary.written, 0, "{summary}");
    for list in ["added.txt", "changed.txt", "removed.txt", "urls.txt"] {
        assert!(lines(&site, list).is_empty(), "{list}");
    }
}

#[test]
fn a_mirror_copies_the_tree_then_fetches_only_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let a = dataset(tmp.path(), "a", false);
    let b = dataset(tmp.path(), "b", true);
    let site = tmp.path().join("published/site");
    generate_into(&a, &site, None);
    let server = Server::start(&site);
    let out = tmp.path().join("mirror");

    let first = mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert_same_tree(&site, &out.join("site"));
    // Identical files are fetched once and stored once, as the published tree
    // stores them.
    let all = hashes(&site);
    let contents: BTreeSet<&String> = all.values().collect();
    assert_eq!(first.fetched as usize, contents.len(), "{first}");
    assert_eq!(first.fetched + first.identical, first.files, "{first}");
    assert!(first.identical > 0, "{first}");
    assert_eq!(first.files as usize, all.len());
    let requests = server.take_requests();
    let fetched_twice = requests.len() - requests.iter().collect::<BTreeSet<_>>().len();
    assert_eq!(fetched_twice, 0, "a file was fetched twice");
    let inodes = |root: &Path| -> BTreeSet<u64> {
        all.keys()
            .map(|p| fs::metadata(root.join(p)).unwrap().ino())
            .collect()
    };
    assert_eq!(inodes(&out.join("site")).len(), contents.len());
    assert!(inodes(&site).len() >= contents.len());

    let again = mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert!(again.up_to_date, "{again}");
    assert_eq!(server.take_requests(), ["manifest/root.json"]);

    let before = hashes(&site);
    generate_into(&b, &site, None);
    let after = hashes(&site);
    let synced = mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert_same_tree(&site, &out.join("site"));
    let fetched: BTreeSet<String> = server
        .take_requests()
        .into_iter()
        .filter(|p| split::is_safe_path(p))
        .collect();
    let changed: BTreeSet<String> = after
        .iter()
        .filter(|(p, h)| before.get(*p) != Some(*h))
        .map(|(p, _)| p.clone())
        .collect();
    // Each changed file's bytes fetched once, unless an unchanged file has them.
    let kept: BTreeSet<&String> = after
        .iter()
        .filter(|(p, _)| !changed.contains(*p))
        .map(|(_, h)| h)
        .collect();
    let new_contents: BTreeSet<&String> = changed
        .iter()
        .map(|p| &after[p])
        .filter(|h| !kept.contains(h))
        .collect();
    assert!(fetched.is_subset(&changed), "{fetched:?}");
    let fetched_contents: Vec<&String> = fetched.iter().map(|p| &after[p]).collect();
    assert_eq!(
        fetched_contents.iter().copied().collect::<BTreeSet<_>>(),
        new_contents
    );
    assert_eq!(fetched_contents.len(), new_contents.len(), "fetched twice");
    assert_eq!(synced.fetched as usize, fetched.len(), "{synced}");
    assert_eq!(
        (synced.fetched + synced.identical) as usize,
        changed.len(),
        "{synced}"
    );
    assert_eq!(synced.unchanged as usize, after.len() - changed.len());
    // The copy's own change lists say what this run changed.
    let copy = out.join("site");
    assert!(lines(&copy, "changed.txt").contains(&"api/v0/chapters/london.json".to_string()));
}

#[test]
fn a_tree_published_without_manifest_json_is_copied_without_one_and_served() {
    let tmp = tempfile::tempdir().unwrap();
    let a = dataset(tmp.path(), "a", false);
    let b = dataset(tmp.path(), "b", true);
    let site = tmp.path().join("published/site");
    let without = |db: &Path| generate::Options {
        manifest_json: false,
        ..generate_options(db, &site)
    };
    generate::generate_with(&without(&a), None).unwrap();
    let root = Root::parse(&fs::read(site.join(split::ROOT)).unwrap()).unwrap();
    assert_eq!(root.manifest, None);
    assert!(!site.join("manifest.json").exists());
    let server = Server::start(&site);
    let out = tmp.path().join("mirror");
    mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert_same_tree(&site, &out.join("site"));
    assert!(!out.join("site/manifest.json").exists());
    // A change, and a published tree that gains `manifest.json` again.
    generate::generate_with(&without(&b), None).unwrap();
    mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert_same_tree(&site, &out.join("site"));
    generate_into(&b, &site, None);
    server.take_requests();
    mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert_same_tree(&site, &out.join("site"));
    assert!(out.join("site/manifest.json").is_file());
    // Only the manifest documents changed: no tree file fetched.
    let fetched: Vec<String> = server
        .take_requests()
        .into_iter()
        .filter(|p| split::is_safe_path(p))
        .collect();
    assert_eq!(fetched, Vec::<String>::new());
    assert_eq!(lines(&out.join("site"), "added.txt"), ["manifest.json"]);
    // Without it again: the copy's served, and ready.
    generate::generate_with(&without(&b), None).unwrap();
    mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert_same_tree(&site, &out.join("site"));
    assert_eq!(lines(&out.join("site"), "removed.txt"), ["manifest.json"]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let replica = app(&b, &out.join("site"), &tmp.path().join("auth.db"));
        let r = get(&replica, "/readyz").await;
        assert_eq!(r.status, 200, "{}", r.text());
        let r = get(&replica, "/api/v0/chapters/").await;
        assert_eq!(r.status, 200, "{}", r.text());
    });
}

#[test]
fn an_interrupted_mirror_leaves_the_copy_intact_and_the_next_run_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let a = dataset(tmp.path(), "a", false);
    let b = dataset(tmp.path(), "b", true);
    let site = tmp.path().join("published/site");
    generate_into(&a, &site, None);
    let server = Server::start(&site);
    let out = tmp.path().join("mirror");
    mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    let copy_before = tree(&out.join("site"));
    let link_before = fs::read_link(out.join("site")).unwrap();

    // A new tree; the server stops answering part way through the changed files.
    generate_into(&b, &site, None);
    server.fail_after.store(30, Ordering::SeqCst);
    let err = mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap_err();
    assert!(format!("{err:#}").contains("not found"), "{err:#}");
    assert_eq!(fs::read_link(out.join("site")).unwrap(), link_before);
    assert!(tree(&out.join("site")) == copy_before, "the copy changed");
    let leftovers = || {
        fs::read_dir(&out)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".site.g"))
            .count()
    };
    assert!(
        leftovers() >= 2,
        "the interrupted run's folder is kept for reuse"
    );

    server.fail_after.store(-1, Ordering::SeqCst);
    let done = mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert_same_tree(&site, &out.join("site"));
    assert!(
        done.reused > 0,
        "files fetched before the interruption are reused: {done}"
    );
    assert_eq!(leftovers(), 1, "only the live generation is left");
}

#[test]
fn a_replica_with_the_dataset_answers_like_the_original() {
    let tmp = tempfile::tempdir().unwrap();
    let db = dataset(tmp.path(), "a", false);
    let site = tmp.path().join("published/site");
    generate_into(&db, &site, Some(Dataset::Full));
    assert!(site.join("dataset/issues.jsonl.gz").is_file());
    let server = Server::start(&site);

    // Into an empty folder: the tree, the dataset, and the dataset imported.
    let out = tmp.path().join("replica");
    let full = mirror::mirror(&mirror_options(&server.url(), &out, true)).unwrap();
    assert!(full.imported, "{full}");
    assert_same_tree(&site, &out.join("site"));
    assert!(out.join("roost.db").is_file());
    let again = mirror::mirror(&mirror_options(&server.url(), &out, true)).unwrap();
    assert!(again.up_to_date && !again.imported, "{again}");

    // Without --with-dataset the dataset is left out; asked for later, only its files
    // are fetched.
    let plain_out = tmp.path().join("plain");
    let plain = mirror::mirror(&mirror_options(&server.url(), &plain_out, false)).unwrap();
    assert!(!plain_out.join("site/dataset").exists() && !plain.imported);
    assert!(!plain_out.join("roost.db").exists());
    let completed = mirror::mirror(&mirror_options(&server.url(), &plain_out, true)).unwrap();
    assert!(completed.imported, "{completed}");
    assert_eq!(
        completed.fetched,
        roost::store::export::file_names().count() as u64,
        "only the dataset files were missing: {completed}"
    );

    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let original = app(&db, &site, &tmp.path().join("auth-a.db"));
        let replica = app(&out.join("roost.db"), &out.join("site"), &tmp.path().join("auth-b.db"));
        for uri in [
            "/api/v0/projects/?q=juice",
            "/api/v0/issues/?q=state:open%20login&page_size=7",
            "/api/v0/issues/?page_size=7&page=3",
            "/api/v0/members/?page_size=13&ordering=-login",
            "/api/v0/chapters/?latitude_gte=0&page_size=5",
            "/api/v0/events/?is_upcoming=true",
            "/api/v0/releases/?organization=juice-labs",
            "/api/v0/chapters/london",
        ] {
            let (a, b) = (get(&original, uri).await, get(&replica, uri).await);
            assert_eq!((a.status.as_u16(), b.status.as_u16()), (200, 200), "{uri}");
            assert_eq!(a.body, b.body, "{uri}");
        }
        // GraphQL: the frontend's project page and home page operations, and a query
        // through dataloaders; the same bytes (fields come in the order selected).
        let page = |document: &str, variables: serde_json::Value| {
            serde_json::json!({"query": document, "variables": variables}).to_string()
        };
        for body in [
            page(
                include_str!("../graphql/pages/project.graphql"),
                serde_json::json!({"key": "juice-shop"}),
            ),
            page(
                include_str!("../graphql/pages/home.graphql"),
                serde_json::json!({"distinct": true}),
            ),
            r#"{"query": "{ recentProjects(limit: 3) { name key leaders entityLeaders { memberName } } recentIssues(limit: 5) { title author { login } } snapshots(limit: 2) { key newIssuesCount } }"}"#.to_string(),
        ] {
            let (a, b) = (graphql(&original, &body).await, graphql(&replica, &body).await);
            assert_eq!((a.status.as_u16(), b.status.as_u16()), (200, 200));
            let answer = a.json();
            assert!(
                answer.get("errors").is_none() && answer["data"].is_object(),
                "{answer}"
            );
            assert!(
                a.body == b.body,
                "{body}:\n{}\n{}",
                a.text(),
                b.text()
            );
        }
    });
}

fn app(db: &Path, site: &Path, auth_db: &Path) -> roost::shim::App {
    roost::shim::app(shim_state(Env::Local, db, site, auth_db, |_| {}))
}

/// A GraphQL POST (a JSON body) from the test client's address.
async fn graphql(app: &roost::shim::App, body: &str) -> Reply {
    let req = request(axum::http::Method::POST, "/graphql/")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    oneshot(app, req).await
}

#[test]
fn leftovers_never_block_a_mirror_and_a_second_run_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let a = dataset(tmp.path(), "a", false);
    let b = dataset(tmp.path(), "b", true);
    let site = tmp.path().join("published/site");
    generate_into(&a, &site, None);
    let server = Server::start(&site);
    let out = tmp.path().join("mirror");
    mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    let generations = || {
        let mut names: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".site.g"))
            .collect();
        names.sort();
        names
    };
    let live = || fs::read_link(out.join("site")).unwrap();
    // Folders and a swap symlink left by earlier runs (failed or killed), and the
    // temporary folder of a dead import.
    for old in [".site.g1-99999999", ".site.g2-99999998"] {
        fs::create_dir_all(out.join(old).join("api")).unwrap();
        fs::write(out.join(old).join("api/x.json"), vec![b'x'; 4096]).unwrap();
    }
    std::os::unix::fs::symlink(".site.g1-99999999", out.join(".site.g1-99999999.link")).unwrap();
    fs::create_dir_all(out.join(".dataset.tmp-99999999")).unwrap();
    // Nothing changed: the run removes them all the same.
    let again = mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert!(again.up_to_date, "{again}");
    assert_eq!(generations(), [live().to_string_lossy().into_owned()]);
    assert!(!out.join(".dataset.tmp-99999999").exists());

    // A run that fails keeps only the newest leftover (its own, for its files).
    for old in [".site.g1-99999999", ".site.g2-99999998"] {
        fs::create_dir_all(out.join(old)).unwrap();
    }
    generate_into(&b, &site, None);
    server.fail_after.store(30, Ordering::SeqCst);
    mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap_err();
    let after_failure = generations();
    assert_eq!(after_failure.len(), 2, "{after_failure:?}");
    assert!(!after_failure.iter().any(|n| n.contains("99999")));

    // A second writer of the same copy is refused, naming the holder.
    let lock = roost::lock::exclusive(&out.join(".site.lock"), "mirror", &out, false).unwrap();
    server.fail_after.store(-1, Ordering::SeqCst);
    let err = mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap_err();
    assert!(
        format!("{err:#}").contains(&format!("pid {}: roost mirror", std::process::id())),
        "{err:#}"
    );
    drop(lock);
    mirror::mirror(&mirror_options(&server.url(), &out, false)).unwrap();
    assert_same_tree(&site, &out.join("site"));
    assert_eq!(generations(), [live().to_string_lossy().into_owned()]);
}
