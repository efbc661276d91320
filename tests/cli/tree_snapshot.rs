//! The generated tree, byte for byte: the files `roost generate` writes for the sample
//! and for `db synth --scale small` (seed 1), summarised per folder in
//! `tests/snapshots/tree-*.txt`. A change to what roost publishes shows here as the
//! folders whose files changed; a refactoring that must not change behaviour keeps
//! both files identical. `UPDATE_SNAPSHOTS=1 cargo test --test all cli::tree_snapshot`
//! rewrites them (review the diff like any API change).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use roost::generate;
use sha2::{Digest, Sha256};

use crate::support::*;

/// The folder a file is summarised under: its first three path components
/// (`api/v0/issues`), or its name for a file nearer the root.
fn bucket(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() > 3 {
        parts[..3].join("/")
    } else {
        path.to_string()
    }
}

/// One line per folder: its name, its file count and the SHA-256 of its files' paths
/// and contents, in path order; then the same over every file.
fn summary(site: &Path) -> String {
    let manifest = generate::read_manifest(&site.canonicalize().unwrap()).unwrap();
    let mut folders: BTreeMap<String, (usize, Sha256)> = BTreeMap::new();
    let mut all = (0usize, Sha256::new());
    let mut files: Vec<_> = manifest.files.iter().collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    for entry in files {
        // The manifest's hash is checked against the file itself, so the summary
        // stands for the bytes on disk, not for what the manifest claims.
        let bytes = std::fs::read(site.join(&entry.path)).unwrap();
        let digest = hex::encode(Sha256::digest(&bytes));
        assert_eq!(digest, entry.sha256, "{}", entry.path);
        let line = format!("{}\t{digest}\n", entry.path);
        let folder = folders
            .entry(bucket(&entry.path))
            .or_insert_with(|| (0, Sha256::new()));
        folder.0 += 1;
        folder.1.update(line.as_bytes());
        all.0 += 1;
        all.1.update(line.as_bytes());
    }
    let mut out = String::new();
    for (name, (count, hash)) in folders {
        writeln!(out, "{name} {count} {}", hex::encode(hash.finalize())).unwrap();
    }
    writeln!(out, "* {} {}", all.0, hex::encode(all.1.finalize())).unwrap();
    out
}

fn check(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let old: BTreeMap<&str, &str> =
            expected.lines().filter_map(|l| l.split_once(' ')).collect();
        let new: BTreeMap<&str, &str> = actual.lines().filter_map(|l| l.split_once(' ')).collect();
        let changed: Vec<&str> = old
            .keys()
            .chain(new.keys())
            .filter(|k| old.get(*k) != new.get(*k))
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        panic!(
            "the generated tree differs from {}: changed folders {changed:?}; if the change \
             is intended, run `UPDATE_SNAPSHOTS=1 cargo test --test all cli::tree_snapshot`",
            path.display()
        );
    }
}

#[test]
fn the_sample_tree_is_unchanged() {
    let Sample { dir, db } = Sample::new();
    let site = dir.path().join("site");
    generate(&db, &site, false);
    check("tree-sample.txt", &summary(&site));
}

#[test]
fn the_small_tree_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("small.db");
    roost::synth::synth(roost::synth::Scale::Small, 1, &db).expect("synth small");
    let site = dir.path().join("site");
    generate(&db, &site, false);
    check("tree-small.txt", &summary(&site));
}
