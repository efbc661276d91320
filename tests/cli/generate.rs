//! `roost generate`: the file tree contract, incremental regeneration, stale files,
//! atomic swaps and precompressed siblings.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use roost::catalog;
use roost::generate;
use roost::tree::{self, Target};

use crate::support::*;

/// The sample and the path its tree is generated to.
fn fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let Sample { dir, db } = Sample::new();
    let out = dir.path().join("site");
    (dir, db, out)
}

fn read(out: &Path, rel: &str) -> serde_json::Value {
    let path = out.join(rel);
    serde_json::from_slice(&fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap()
}

#[test]
fn the_tree_holds_lists_details_and_fixed_documents_at_contract_paths() {
    let (_tmp, db, out) = fixture();
    let summary = generate::generate(&generate_options(&db, &out)).unwrap();
    assert!(summary.files > 1000, "{summary}");
    assert_eq!(
        read(&out, "api/v0/index.json")["message"],
        "Welcome to the API v0"
    );
    assert!(out.join("api/v0/openapi.json").is_file());
    assert!(out.join("api/v0/docs/index.html").is_file());
    // Lists: default query, other pages, orderings, filter combinations.
    assert_eq!(read(&out, "api/v0/issues/index.json")["total_pages"], 3);
    assert_eq!(
        read(&out, "api/v0/issues/index@page=3.json")["current_page"],
        3
    );
    assert!(!out.join("api/v0/issues/index@page=4.json").exists());
    assert!(out
        .join("api/v0/issues/index@ordering=-updated_at&page=2.json")
        .is_file());
    assert!(out
        .join("api/v0/issues/index@organization=juice-labs&repository=juice-shop&state=open.json")
        .is_file());
    assert!(out
        .join("api/v0/projects/index@type=code&type=tool.json")
        .is_file());
    assert!(out
        .join("api/v0/chapters/index@country=united%20kingdom.json")
        .is_file());
    assert!(out
        .join("api/v0/sponsors/index@is_member=false.json")
        .is_file());
    assert!(out
        .join("api/v0/events/index@is_upcoming=true.json")
        .is_file());
    assert!(out
        .join("api/v0/releases/index@tag_name=release%2F2.0.json")
        .is_file());
    // Details with canonical ids.
    assert_eq!(
        read(&out, "api/v0/chapters/london.json")["key"],
        "www-chapter-london"
    );
    assert_eq!(
        read(
            &out,
            "api/v0/releases/appsec-tools/zap-extensions/release%2F2.0.json"
        )["tag_name"],
        "release/2.0"
    );
    assert_eq!(
        read(&out, "api/v0/releases/juice-labs/juice-shop/V1.0.0.json")["tag_name"],
        "V1.0.0"
    );
    assert_eq!(
        read(&out, "api/v0/releases/juice-labs/juice-shop/v1.0.0.json")["tag_name"],
        "v1.0.0"
    );
    assert!(out
        .join("api/v0/organizations/secdocs-community.json")
        .is_file());
    assert!(!out.join("api/v0/chapters/montreal.json").exists());
    assert!(!out
        .join("api/v0/organizations/cryptoguard-dev.json")
        .exists());
    // Snapshot sub-lists, completed snapshots only.
    assert!(out
        .join("api/v0/snapshots/2026-05/issues/index.json")
        .is_file());
    assert!(out
        .join("api/v0/snapshots/2026-06/releases/index.json")
        .is_file());
    assert_eq!(
        read(&out, "api/v0/snapshots/2026-06/releases/index.json")["total_count"],
        0
    );
    // No file name starts with a dot or exceeds 255 bytes.
    for entry in walkdir::WalkDir::new(out.join("api")) {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy();
        assert!(!name.starts_with('.') && name.len() <= 255, "{name}");
    }
    // Pages-style static hosts: JSON by folder pattern, listed in the manifest.
    let headers = fs::read_to_string(out.join("_headers")).unwrap();
    assert!(headers.contains("/api/v0/issues/*\n  Content-Type: application/json\n"));
    assert!(headers.contains("/api/v0/snapshots/*\n"));
    assert!(!headers.contains("/api/v0/docs"));
    let manifest = generate::read_manifest(&out.canonicalize().unwrap()).unwrap();
    assert!(manifest.files.iter().any(|e| e.path == "_headers"));
}

/// Every list file maps back, through the URL the contract gives it, to the same
/// canonical query and file: the mapping is injective and round-trips.
#[test]
fn every_file_round_trips_through_its_url() {
    let (_tmp, db, out) = fixture();
    generate::generate(&generate_options(&db, &out)).unwrap();
    let manifest = generate::read_manifest(&out.canonicalize().unwrap()).unwrap();
    let mut seen = std::collections::HashSet::new();
    for entry in &manifest.files {
        assert!(seen.insert(entry.path.clone()), "duplicate {}", entry.path);
        if entry.path == generate::PAGES_HEADERS {
            continue;
        }
        let rel = entry.path.strip_prefix("api/v0/").unwrap();
        if !rel.ends_with(".json") || rel == "index.json" || rel == "openapi.json" {
            continue;
        }
        let stem = rel.strip_suffix(".json").unwrap();
        let (dir, name) = stem.rsplit_once('/').unwrap_or(("", stem));
        if name == "index" || name.starts_with("index@") {
            let query = name.strip_prefix("index@").unwrap_or("");
            let url = format!("/api/v0/{dir}/");
            let segs = tree::split_path(&url).unwrap();
            let Target::List { spec, snapshot } = tree::route(&segs) else {
                panic!("{url} is not a list");
            };
            let q = catalog::parse_query(spec, &pairs(query)).unwrap();
            let dir_segs: Vec<String> = match &snapshot {
                Some(key) => tree::snapshot_list_dir(key, spec),
                None => vec![spec.path.to_string()],
            };
            let back = tree::list_file(&dir_segs, &q.canonical(spec)).unwrap();
            assert_eq!(back, PathBuf::from(&entry.path));
        } else {
            let url = format!("/api/v0/{stem}");
            let segs = tree::split_path(&url).unwrap();
            let Target::Detail { spec, ids } = tree::route(&segs) else {
                panic!("{url} is not a detail");
            };
            assert_eq!(
                tree::detail_file(spec.path, &ids).unwrap(),
                PathBuf::from(&entry.path)
            );
        }
    }
}

#[test]
fn a_second_run_writes_nothing_and_keeps_mtimes() {
    let (_tmp, db, out) = fixture();
    let first = generate::generate(&generate_options(&db, &out)).unwrap();
    let probe = out.join("api/v0/issues/index.json");
    let before = fs::metadata(&probe).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = generate::generate(&generate_options(&db, &out)).unwrap();
    assert_eq!(second.written, 0, "{second}");
    assert_eq!(second.unchanged, first.written);
    assert_eq!(second.removed, 0);
    let after = fs::metadata(&probe).unwrap();
    assert_eq!(before.ino(), after.ino());
    assert_eq!(before.mtime_nsec(), after.mtime_nsec());
    // Only the live generation remains beside the tree.
    let gens: Vec<_> = fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".site.g"))
        .collect();
    assert_eq!(gens.len(), 1);
}

#[test]
fn changed_data_rewrites_only_what_changed_and_removes_stale_files() {
    let (tmp, db, out) = fixture();
    generate::generate(&generate_options(&db, &out)).unwrap();
    let london_before = fs::metadata(out.join("api/v0/chapters/london.json"))
        .unwrap()
        .ino();
    assert!(out.join("api/v0/sponsors/nakatomi.json").is_file());
    // The same sample without one sponsor.
    let dir = tmp.path().join("jsonl");
    write_sample(&dir, "sponsors.jsonl", |lines| {
        lines.retain(|l| !l.contains("\"nakatomi\""))
    });
    roost::store::import_dir(&dir, &db, roost::idx::build).unwrap();
    let summary = generate::generate(&generate_options(&db, &out)).unwrap();
    assert!(summary.removed >= 1, "{summary}");
    assert!(summary.written >= 1 && summary.written < 100, "{summary}");
    assert!(!out.join("api/v0/sponsors/nakatomi.json").exists());
    assert_eq!(
        fs::metadata(out.join("api/v0/chapters/london.json"))
            .unwrap()
            .ino(),
        london_before
    );
}

#[test]
fn a_failed_generation_leaves_the_live_tree_untouched() {
    let (_tmp, db, out) = fixture();
    generate::generate(&generate_options(&db, &out)).unwrap();
    let target = fs::read_link(&out).unwrap();
    let manifest = fs::read(out.join("manifest.json")).unwrap();
    // Break the dataset so generation fails midway (after the plan, while rendering).
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("PRAGMA foreign_keys = OFF; DROP TABLE sponsors;")
            .unwrap();
    }
    let err = generate::generate(&generate_options(&db, &out)).unwrap_err();
    assert!(format!("{err:#}").contains("sponsors"), "{err:#}");
    assert_eq!(fs::read_link(&out).unwrap(), target);
    assert_eq!(fs::read(out.join("manifest.json")).unwrap(), manifest);
    assert!(out.join("api/v0/sponsors/index.json").is_file());
    let gens: Vec<_> = fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".site.g"))
        .collect();
    assert_eq!(
        gens.len(),
        1,
        "the failed generation's folder was left behind"
    );
}

#[test]
fn leftovers_of_a_killed_run_are_cleaned_and_a_plain_folder_is_replaced() {
    let (tmp, db, out) = fixture();
    fs::create_dir_all(out.join("api")).unwrap();
    fs::write(out.join("api/stale.json"), b"{}").unwrap();
    let killed = tmp.path().join(".site.g1-1");
    fs::create_dir_all(killed.join("api")).unwrap();
    generate::generate(&generate_options(&db, &out)).unwrap();
    generate::generate(&generate_options(&db, &out)).unwrap();
    assert!(!killed.exists());
    assert!(!out.join("api/stale.json").exists());
    assert!(fs::symlink_metadata(&out).unwrap().file_type().is_symlink());
}

#[test]
fn precompressed_siblings_decompress_to_the_same_bytes() {
    let (_tmp, db, out) = fixture();
    let mut opts = generate_options(&db, &out);
    opts.precompress = generate::Precompress::ALL;
    generate::generate(&opts).unwrap();
    let json = fs::read(out.join("api/v0/members/index.json")).unwrap();
    let gz = gunzip(&fs::read(out.join("api/v0/members/index.json.gz")).unwrap());
    assert_eq!(gz, json);
    let br = unbrotli(&fs::read(out.join("api/v0/members/index.json.br")).unwrap());
    assert_eq!(br, json);
    // Under 1 KiB, no siblings: every file of the tree has both or neither.
    let london = out.join("api/v0/chapters/london.json");
    assert!(fs::metadata(&london).unwrap().len() < 1024);
    assert!(!out.join("api/v0/chapters/london.json.gz").exists());
    assert!(!out.join("api/v0/chapters/london.json.br").exists());
    let again = generate::generate(&opts).unwrap();
    assert_eq!(again.written, 0, "{again}");
}

#[test]
fn the_cli_generates_and_prints_a_summary() {
    let (_tmp, db, out) = fixture();
    // `roost generate FLAGS --db DB --out OUT`.
    let generate_with = |flags: &[&str]| {
        roost()
            .arg("generate")
            .args(flags)
            .arg("--db")
            .arg(&db)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap()
    };
    let succeeds = |flags: &[&str]| {
        let output = generate_with(flags);
        assert!(
            output.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    };
    let stdout = String::from_utf8(succeeds(&[]).stdout).unwrap();
    assert!(
        stdout.starts_with("generated ") && stdout.contains("MB/s"),
        "{stdout}"
    );
    // By default `.gz` siblings only; a bare --precompress adds `.br`; --no-precompress
    // and --precompress none write none (and remove those of the previous tree).
    let siblings = || {
        ["gz", "br"].map(|ext| {
            out.join(format!("api/v0/members/index.json.{ext}"))
                .exists()
        })
    };
    assert_eq!(siblings(), [true, false]);
    succeeds(&["--precompress"]);
    assert_eq!(siblings(), [true, true]);
    succeeds(&["--no-precompress"]);
    assert_eq!(siblings(), [false, false]);
    succeeds(&["--precompress", "br"]);
    assert_eq!(siblings(), [false, true]);
    succeeds(&["--precompress=none"]);
    assert_eq!(siblings(), [false, false]);
    succeeds(&["--precompress", "gzip,br"]);
    assert_eq!(siblings(), [true, true]);
    let wrong = generate_with(&["--precompress", "zstd"]);
    assert!(!wrong.status.success());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(stderr.contains("unknown codec \"zstd\""), "{stderr}");
    let missing = roost()
        .args(["generate", "--db", "/nonexistent/roost.db", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("roost db init"));
}

#[test]
fn a_run_logs_its_steps_and_units_on_standard_error_when_asked() {
    let (tmp, db, out) = fixture();
    let run = |log: Option<&str>, out: &Path| {
        let mut command = roost();
        command.env_remove("RUST_LOG");
        if let Some(filter) = log {
            command.env("RUST_LOG", filter);
        }
        let output = command
            .arg("generate")
            .arg("--db")
            .arg(&db)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert!(output.status.success());
        assert!(String::from_utf8_lossy(&output.stdout).starts_with("generated "));
        String::from_utf8(output.stderr).unwrap()
    };
    // Quiet by default.
    assert_eq!(run(None, &out), "");
    // Each step once, in the order the run takes them, with how long it took.
    let steps = run(Some("roost::generate=debug"), &tmp.path().join("other"));
    let named: Vec<&str> = steps
        .lines()
        .filter_map(|l| l.split("step=\"").nth(1)?.split('"').next())
        .collect();
    for step in [
        "fingerprint",
        "plan",
        "units",
        "manifest",
        "keys file",
        "swap",
    ] {
        assert_eq!(named.iter().filter(|s| **s == step).count(), 1, "{steps}");
    }
    let at = |step: &str| named.iter().position(|s| *s == step).unwrap();
    assert!(at("fingerprint") < at("units") && at("units") < at("manifest"));
    assert!(at("manifest") < at("swap"), "{steps}");
    assert!(steps.lines().all(|l| l.contains("seconds=")), "{steps}");
    assert!(!steps.contains("unit="), "{steps}");
    // At the trace level every unit too, with whether it was skipped: after a sponsor
    // changed, the sponsors' units are rendered and the issues' skipped.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE sponsors SET description = 'Renewed.' WHERE key_lc = 'nakatomi'",
            [],
        )
        .unwrap();
    let units = run(Some("roost::generate=trace"), &out);
    for unit in [
        "unit=details get_issue skipped=true",
        "unit=list list_issues default ordering skipped=true",
        "unit=list list_issues ordering -updated_at skipped=true",
        "unit=details get_sponsor skipped=false",
        "unit=list list_sponsors default ordering skipped=false",
    ] {
        assert_eq!(units.matches(unit).count(), 1, "{unit}: {units}");
    }
}

#[test]
fn the_same_input_keeps_the_live_generation_even_after_a_reimport() {
    let (tmp, db, out) = fixture();
    generate::generate(&generate_options(&db, &out)).unwrap();
    let first = fs::read_link(&out).unwrap();
    // The same records imported again: a new SQLite file with the same content.
    let dir = tmp.path().join("jsonl");
    write_sample(&dir, "sponsors.jsonl", |_| {});
    roost::store::import_dir(&dir, &db, roost::idx::build).unwrap();
    let second = generate::generate(&generate_options(&db, &out)).unwrap();
    assert_eq!(second.written, 0, "{second}");
    assert_eq!(fs::read_link(&out).unwrap(), first);
    assert_eq!(fs::read(out.join("changes/added.txt")).unwrap(), b"");
    assert_eq!(fs::read(out.join("changes/urls.txt")).unwrap(), b"");
    // A record that does not describe the live generation is not trusted: the tree is
    // rebuilt into a new generation, every file linked from the live one.
    fs::write(tmp.path().join(".site.input"), b"{}").unwrap();
    let third = generate::generate(&generate_options(&db, &out)).unwrap();
    assert_eq!(third.written, 0, "{third}");
    assert_eq!(third.unchanged, second.unchanged);
    assert_ne!(fs::read_link(&out).unwrap(), first);
    // Other data: rendered again.
    write_sample(&dir, "sponsors.jsonl", |lines| {
        lines.retain(|l| !l.contains("\"nakatomi\""))
    });
    roost::store::import_dir(&dir, &db, roost::idx::build).unwrap();
    let fourth = generate::generate(&generate_options(&db, &out)).unwrap();
    assert!(fourth.written >= 1 && fourth.removed >= 1, "{fourth}");
}

#[test]
fn the_same_input_renders_again_a_tree_damaged_by_hand() {
    let (_tmp, db, out) = fixture();
    generate::generate(&generate_options(&db, &out)).unwrap();
    let live = out.canonicalize().unwrap();
    let manifest = generate::read_manifest(&live).unwrap();
    let removed = &manifest.files[manifest.files.len() / 2];
    let cut = &manifest.files[manifest.files.len() / 3];
    let (removed_bytes, cut_bytes) = (
        fs::read(live.join(&removed.path)).unwrap(),
        fs::read(live.join(&cut.path)).unwrap(),
    );
    fs::remove_file(live.join(&removed.path)).unwrap();
    fs::write(live.join(&cut.path), &cut_bytes[..cut_bytes.len() / 2]).unwrap();
    let again = generate::generate(&generate_options(&db, &out)).unwrap();
    assert!(again.written >= 2, "{again}");
    assert_ne!(out.canonicalize().unwrap(), live);
    assert_eq!(fs::read(out.join(&removed.path)).unwrap(), removed_bytes);
    assert_eq!(fs::read(out.join(&cut.path)).unwrap(), cut_bytes);
}

#[test]
fn a_damaged_list_page_is_rendered_again_from_its_records_and_its_twins_follow() {
    let (_tmp, db, out) = fixture();
    generate::generate(&generate_options(&db, &out)).unwrap();
    let live = out.canonicalize().unwrap();
    // The first page of the issue list: the live generation has it by its key, so
    // its records are not read until it cannot be linked.
    let page = "api/v0/issues/index.json";
    let bytes = fs::read(live.join(page)).unwrap();
    let twins: Vec<String> = generate::read_manifest(&live)
        .unwrap()
        .files
        .iter()
        .filter(|f| f.path.starts_with("api/v0/issues/index@") && f.path.ends_with(".json"))
        .filter(|f| fs::read(live.join(&f.path)).unwrap() == bytes)
        .map(|f| f.path.clone())
        .collect();
    assert!(
        !twins.is_empty(),
        "the orderings that sort as the default show it"
    );
    // Replaced by another file (its twins, hard links to it, keep their bytes).
    fs::remove_file(live.join(page)).unwrap();
    fs::write(live.join(page), b"{}").unwrap();
    let again = generate::generate(&generate_options(&db, &out)).unwrap();
    assert!(again.written >= 1, "{again}");
    assert_eq!(fs::read(out.join(page)).unwrap(), bytes);
    for twin in &twins {
        assert_eq!(fs::read(out.join(twin)).unwrap(), bytes, "{twin}");
    }
}

/// The paths whose bytes differ between two trees (`tree_bytes`), or that one lacks.
fn differing<'a>(
    incremental: &'a std::collections::BTreeMap<String, Vec<u8>>,
    fresh: &'a std::collections::BTreeMap<String, Vec<u8>>,
) -> Vec<&'a String> {
    fresh
        .iter()
        .filter(|(rel, bytes)| incremental.get(*rel) != Some(bytes))
        .map(|(rel, _)| rel)
        .chain(incremental.keys().filter(|rel| !fresh.contains_key(*rel)))
        .collect()
}

/// Asserts that the tree at `out` holds exactly the files of the tree at `full`, byte
/// for byte; returns the files of `out`.
#[track_caller]
pub(super) fn assert_same_files(
    what: &str,
    out: &Path,
    full: &Path,
) -> std::collections::BTreeMap<String, Vec<u8>> {
    let (incremental, fresh) = (tree_bytes(out), tree_bytes(full));
    let differ = differing(&incremental, &fresh);
    assert!(
        differ.is_empty(),
        "{what}: {} files differ, first {:?}",
        differ.len(),
        &differ[..differ.len().min(5)]
    );
    incremental
}

/// Asserts that the change lists of the tree at `out` name exactly the files added,
/// changed and removed between the trees `before` and `after` (manifest documents
/// included).
#[track_caller]
fn assert_change_lists(
    what: &str,
    out: &Path,
    before: &std::collections::BTreeMap<String, (u64, Vec<u8>)>,
    after: &std::collections::BTreeMap<String, (u64, Vec<u8>)>,
) {
    let listed = |name: &str| -> Vec<String> {
        fs::read_to_string(out.join("changes").join(name))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    };
    let added: Vec<String> = after
        .keys()
        .filter(|rel| !before.contains_key(*rel))
        .cloned()
        .collect();
    let changed: Vec<String> = after
        .iter()
        .filter(|(rel, (_, bytes))| before.get(*rel).is_some_and(|(_, old)| old != bytes))
        .map(|(rel, _)| rel.clone())
        .collect();
    let removed: Vec<String> = before
        .keys()
        .filter(|rel| !after.contains_key(*rel))
        .cloned()
        .collect();
    assert_eq!(listed("added.txt"), added, "{what}: added");
    assert_eq!(listed("changed.txt"), changed, "{what}: changed");
    assert_eq!(listed("removed.txt"), removed, "{what}: removed");
}

/// The generation folders beside a tree in `dir`, sorted.
fn generations(dir: &Path) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| PathBuf::from(e.file_name()))
        .filter(|n| n.to_string_lossy().starts_with(".site.g"))
        .collect();
    names.sort();
    names
}

/// Every folder under `root`, relative.
fn tree_folders(root: &Path) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_dir())
        .map(|e| {
            e.path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Every file under `root` with its inode and bytes, the change lists left out.
fn tree_inodes(root: &Path) -> std::collections::BTreeMap<String, (u64, Vec<u8>)> {
    tree_bytes(root)
        .into_iter()
        .map(|(rel, bytes)| (fs::metadata(root.join(&rel)).unwrap().ino(), rel, bytes))
        .map(|(ino, rel, bytes)| (rel, (ino, bytes)))
        .collect()
}

/// Every file under `root` (relative path → bytes), the change lists left out: they
/// describe a run, not the tree.
fn tree_bytes(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap();
            (
                rel.to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .filter(|(rel, _)| !rel.starts_with("changes/"))
        .collect()
}

/// The docs page of the tree at `out` is the one made from the examples found by
/// reading its folders (as the shim makes it for a tree of another tool): the run,
/// which takes them from its list of files, picked the same records.
fn docs_examples_are_the_trees(out: &Path, what: &str) {
    let openapi = fs::read(out.join("api/v0/openapi.json")).unwrap();
    let samples = roost::docs::tree_samples(&openapi, out).unwrap();
    assert!(!samples.is_empty(), "{what}");
    let page = roost::docs::render_with(&openapi, &samples)
        .unwrap()
        .into_iter()
        .find(|(name, _)| name == "index.html")
        .unwrap()
        .1;
    assert!(
        fs::read(out.join("api/v0/docs/index.html")).unwrap() == page,
        "{what}: the docs page's examples are not the tree's"
    );
}

#[test]
fn a_run_after_a_change_makes_the_tree_a_full_run_makes() {
    let (tmp, db, out) = fixture();
    let options = |out: &Path| generate::Options {
        precompress: generate::Precompress::GZIP,
        ..generate_options(&db, out)
    };
    let first = generate::generate(&options(&out)).unwrap();
    assert_eq!(first.rendered, first.files, "{first}");
    docs_examples_are_the_trees(&out, "a full run");
    // Each change in turn, on the dataset as the previous ones left it; after each, the
    // incremental run's tree is compared byte for byte with a full run into an empty
    // folder.
    // Two kinds of change a round (four rounds rather than eight full runs).
    let changes: &[(&str, &str)] = &[
        (
            "a field of one record edited, another moved in one ordering, and an issue's body",
            "UPDATE issues SET title = title || ' (edited)' \
             WHERE id = (SELECT min(id) FROM issues); \
             UPDATE issues SET updated_at = updated_at + 86400 * 400 \
             WHERE id = (SELECT min(id) + 1 FROM issues); \
             UPDATE issue_bodies SET body = body || ' More.' \
             WHERE issue_id = (SELECT max(issue_id) FROM issue_bodies)",
        ),
        (
            "a record moving between filters and orderings, and a leader renamed",
            "UPDATE issues SET state = CASE state WHEN 'open' THEN 'closed' ELSE 'open' END, \
             updated_at = updated_at + 86400 * 400 WHERE id = (SELECT max(id) FROM issues); \
             UPDATE leaders SET name = name || ' Jr.' \
             WHERE rowid = (SELECT min(rowid) FROM leaders WHERE entity_kind = 'chapter')",
        ),
        (
            "a record added, and a referenced record edited (an issue's repository)",
            "CREATE TEMP TABLE copy AS SELECT * FROM labels WHERE id = (SELECT min(id) FROM labels); \
             UPDATE copy SET id = id + 1000000, name = name || '-copy', name_lc = name_lc || '-copy'; \
             INSERT INTO labels SELECT * FROM copy; DROP TABLE copy; \
             UPDATE repositories SET name = name || '-renamed', name_lc = name_lc || '-renamed' \
             WHERE id = (SELECT repository_id FROM issues ORDER BY id LIMIT 1)",
        ),
        (
            "a record removed, and a record leaving a snapshot",
            "DELETE FROM sponsors WHERE id = (SELECT max(id) FROM sponsors); \
             DELETE FROM snapshot_issues WHERE rowid = (SELECT min(rowid) FROM snapshot_issues)",
        ),
    ];
    let mut updated_in_place = 0;
    for (n, (what, sql)) in changes.iter().enumerate() {
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let live_before = fs::read_link(&out).unwrap();
        let spare_before = generations(tmp.path())
            .into_iter()
            .find(|g| *g != live_before)
            .map(|g| fs::metadata(tmp.path().join(g)).unwrap().ino());
        // From the second change on, the generation the previous run replaced is kept
        // beside the tree, to be updated in place.
        assert_eq!(spare_before.is_some(), n > 0, "{what}");
        // The spare's own manifest.json (one link) is updated in place.
        let spare_manifest = generations(tmp.path())
            .into_iter()
            .find(|g| *g != live_before)
            .and_then(|g| fs::metadata(tmp.path().join(g).join("manifest.json")).ok())
            .filter(|m| m.nlink() == 1)
            .map(|m| m.ino());
        let inodes_before = tree_inodes(&out);
        let run = generate::generate(&options(&out)).unwrap();
        docs_examples_are_the_trees(&out, what);
        let live = fs::read_link(&out).unwrap();
        assert_eq!(generations(tmp.path()), {
            let mut both = vec![live.clone(), live_before.clone()];
            both.sort();
            both
        });
        if let Some(spare) = spare_before {
            assert_eq!(
                fs::metadata(&out).unwrap().ino(),
                spare,
                "{what}: not in place"
            );
        }
        if let Some(ino) = spare_manifest {
            assert_eq!(
                fs::metadata(out.join("manifest.json")).unwrap().ino(),
                ino,
                "{what}: manifest.json not updated in place"
            );
            updated_in_place += 1;
        }
        // A file with the bytes it had keeps its inode.
        let inodes = tree_inodes(&out);
        assert_change_lists(what, &out, &inodes_before, &inodes);
        let full_out = tmp.path().join(format!("full-{n}"));
        let full = generate::generate(&options(&full_out)).unwrap();
        assert_eq!(full.rendered, full.files, "{what}: {full}");
        assert!(run.rendered < run.files / 4, "{what}: {run}");
        assert_eq!(run.files, full.files, "{what}: {run} / {full}");
        assert_same_files(what, &out, &full_out);
        assert_eq!(tree_folders(&out), tree_folders(&full_out), "{what}");
        let moved: Vec<&String> = inodes
            .iter()
            .filter(|(rel, (ino, bytes))| {
                inodes_before
                    .get(*rel)
                    .is_some_and(|(before, old)| old == bytes && before != ino)
            })
            .map(|(rel, _)| rel)
            .collect();
        assert!(
            moved.is_empty(),
            "{what}: unchanged files with new inodes: {moved:?}"
        );
        fs::remove_dir_all(&full_out).unwrap();
    }
    assert!(
        updated_in_place > 0,
        "the spare's manifest.json was never updated in place"
    );
}

#[test]
fn a_run_after_a_change_publishes_the_dataset_a_full_run_publishes() {
    let (tmp, db, out) = fixture();
    let dataset = Some(generate::Dataset::Full);
    let options = |out: &Path| generate::Options {
        precompress: generate::Precompress::GZIP,
        ..generate_options(&db, out)
    };
    generate::generate_with(&options(&out), dataset).unwrap();
    // The second change updates the spare generation in place.
    let changes = [
        "UPDATE issues SET title = title || ' (edited)' WHERE id = (SELECT min(id) FROM issues)",
        "UPDATE sponsors SET description = 'Renewed.' WHERE key_lc = 'nakatomi'",
    ];
    for (n, sql) in changes.iter().enumerate() {
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        let run = generate::generate_with(&options(&out), dataset).unwrap();
        let full_out = tmp.path().join(format!("full-{n}"));
        let full = generate::generate_with(&options(&full_out), dataset).unwrap();
        assert!(run.rendered < run.files / 4, "{sql}: {run}");
        let incremental = assert_same_files(&format!("{sql}: {run} / {full}"), &out, &full_out);
        assert!(incremental.keys().any(|rel| rel.starts_with("dataset/")));
        fs::remove_dir_all(&full_out).unwrap();
    }
}

#[test]
fn one_changed_record_renders_only_the_files_that_show_it() {
    let (_tmp, db, out) = fixture();
    generate::generate(&generate_options(&db, &out)).unwrap();
    let sponsor = out.join("api/v0/sponsors/nakatomi.json");
    let chapter = out.join("api/v0/chapters/london.json");
    let (sponsor_before, chapter_before) = (
        fs::metadata(&sponsor).unwrap().ino(),
        fs::metadata(&chapter).unwrap().ino(),
    );
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE sponsors SET description = 'Renewed.' WHERE key_lc = 'nakatomi'",
            [],
        )
        .unwrap();
    let run = generate::generate(&generate_options(&db, &out)).unwrap();
    // The sponsor's detail and the sponsor list pages holding it (each ordering and
    // filter combination), nothing else.
    assert!(run.rendered >= 2 && run.rendered < 60, "{run}");
    assert_eq!(
        read(&out, "api/v0/sponsors/nakatomi.json")["description"],
        "Renewed."
    );
    assert_ne!(fs::metadata(&sponsor).unwrap().ino(), sponsor_before);
    assert_eq!(fs::metadata(&chapter).unwrap().ino(), chapter_before);
}

/// The units of one list (each scope and ordering; a snapshot's sub-list once per
/// completed snapshot).
fn list_units(db: &Path, spec: &catalog::ListSpec) -> u64 {
    let scopes: &[bool] = if spec.upcoming.is_some() {
        &[false, true]
    } else {
        &[false]
    };
    // The default ordering, and each explicit one that does not sort as it does (that
    // one's files are the default unit's).
    let per_scope: u64 = scopes
        .iter()
        .map(|&upcoming| {
            let default = catalog::order_sql(spec, None, upcoming);
            1 + (0..spec.orderings.len())
                .flat_map(|field| [false, true].map(|desc| catalog::OrderChoice { field, desc }))
                .filter(|&o| catalog::order_sql(spec, Some(o), upcoming) != default)
                .count() as u64
        })
        .sum();
    match spec.snapshot_link {
        None => per_scope,
        Some(_) => {
            let conn = roost::store::open_api(db).unwrap();
            per_scope * catalog::snapshot_keys(&conn).unwrap().len() as u64
        }
    }
}

/// The scopes of list units beside the tree at `dir` that a later unit kept (linked
/// to its key: more than one name).
fn kept_scopes(dir: &Path) -> u64 {
    fs::read_dir(dir.join(".site.units"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".scope"))
        .filter(|e| e.metadata().unwrap().nlink() > 1)
        .count() as u64
}

#[test]
fn units_whose_tables_did_not_change_are_skipped() {
    let (tmp, db, out) = fixture();
    let options = |out: &Path| generate::Options {
        precompress: generate::Precompress::GZIP,
        ..generate_options(&db, out)
    };
    let change = |sql: &str| {
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    };
    // The incremental tree is the tree a full run makes, byte for byte.
    let same_as_full = |what: &str, run: &generate::Summary| {
        let full_out = tmp.path().join("full");
        let full = generate::generate(&options(&full_out)).unwrap();
        assert_eq!(full.units_skipped, 0, "{what}: {full}");
        assert_eq!(run.files, full.files, "{what}: {run} / {full}");
        assert_same_files(what, &out, &full_out);
        fs::remove_dir_all(&full_out).unwrap();
    };
    let retitle = "UPDATE issues SET title = title || ' (edited)' \
                   WHERE id = (SELECT min(id) FROM issues)";
    // The units that read the issues table: the issue lists, the snapshots' issue
    // lists, the issue and snapshot details; and the fixed documents, never skipped.
    let reading_issues = list_units(&db, catalog::list_spec("issues").unwrap())
        + list_units(&db, catalog::snapshot_list_spec("issues").unwrap())
        + 2
        + 1;

    let first = generate::generate(&options(&out)).unwrap();
    assert_eq!(first.units_skipped, 0, "{first}");
    assert!(first.units > reading_issues, "{first}");

    // One issue retitled: every unit that does not read issues is skipped, in a fresh
    // folder (no spare yet) and then in the spare updated in place.
    for round in ["fresh folder", "spare"] {
        change(retitle);
        let run = generate::generate(&options(&out)).unwrap();
        assert_eq!(
            run.units - run.units_skipped,
            reading_issues,
            "{round}: {run}"
        );
        assert!(run.rendered < run.files / 10, "{round}: {run}");
        same_as_full(round, &run);
        // The issue lists kept the scope of the previous run: only the edited row was
        // read again (its scope recorded again is the previous one, linked).
        assert!(
            kept_scopes(tmp.path())
                >= list_units(&db, catalog::list_spec("issues").unwrap())
                    + list_units(&db, catalog::snapshot_list_spec("issues").unwrap()),
            "{round}: {} kept scopes",
            kept_scopes(tmp.path())
        );
    }

    // A row the issues link to (their repository): the issue units are rendered
    // again, with every other unit that reads repositories.
    change(
        "UPDATE repositories SET description = 'Moved.' \
         WHERE id = (SELECT repository_id FROM issues ORDER BY id LIMIT 1)",
    );
    let run = generate::generate(&options(&out)).unwrap();
    assert!(
        run.units_skipped > 0 && run.units - run.units_skipped > reading_issues,
        "{run}"
    );
    same_as_full("a repository", &run);

    // A table read whole (a chapter's leaders): the chapter and project details are
    // rendered again (with the fixed documents), no other unit.
    change(
        "UPDATE leaders SET name = name || ' Jr.' \
         WHERE rowid = (SELECT min(rowid) FROM leaders WHERE entity_kind = 'chapter')",
    );
    let run = generate::generate(&options(&out)).unwrap();
    assert_eq!(run.units - run.units_skipped, 3, "{run}");
    same_as_full("a leader", &run);

    // A run that fails after rendering (its keys cannot be written) loses nothing:
    // the next run skips what the live generation has.
    let next_keys = tmp.path().join(".site.next-keys");
    fs::create_dir(&next_keys).unwrap();
    change(retitle);
    assert!(generate::generate(&options(&out)).is_err());
    fs::remove_dir(&next_keys).unwrap();
    let run = generate::generate(&options(&out)).unwrap();
    assert_eq!(run.units - run.units_skipped, reading_issues, "{run}");
    same_as_full("after a failed run", &run);

    // Unit records that are unreadable are not trusted: every unit is rendered (its
    // files still linked by their keys), and recorded again for the next run. (The
    // bases of the file keys in the same folder are left whole here; a torn one is
    // below.)
    let records = tmp.path().join(".site.units");
    let mut torn = 0;
    for entry in fs::read_dir(&records).unwrap().flatten() {
        if entry.file_name().to_string_lossy().ends_with(".keys") {
            continue;
        }
        let bytes = fs::read(entry.path()).unwrap();
        fs::write(entry.path(), &bytes[..bytes.len() / 2]).unwrap();
        torn += 1;
    }
    assert!(torn as u64 >= first.units - 1, "{torn} records");
    change(retitle);
    let run = generate::generate(&options(&out)).unwrap();
    assert_eq!(run.units_skipped, 0, "{run}");
    assert!(run.rendered < run.files / 10, "{run}");
    same_as_full("torn records", &run);
    change(retitle);
    let run = generate::generate(&options(&out)).unwrap();
    assert_eq!(run.units - run.units_skipped, reading_issues, "{run}");
    // Only the records some generation beside the tree can use are kept.
    let kept = fs::read_dir(&records)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().len() == 32)
        .count() as u64;
    assert!(kept < 2 * first.units, "{kept} records");

    // A torn base of the live keys: the live generation's keys are unknown, so every
    // file is rendered (and linked where its bytes come out the same), and the next
    // run has keys again.
    let bases: Vec<_> = fs::read_dir(&records)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".keys"))
        .collect();
    assert!(
        !bases.is_empty() && bases.len() <= 2,
        "{} bases",
        bases.len()
    );
    for base in &bases {
        let bytes = fs::read(base.path()).unwrap();
        fs::write(base.path(), &bytes[..bytes.len() - 1]).unwrap();
    }
    change(retitle);
    let run = generate::generate(&options(&out)).unwrap();
    assert_eq!((run.units_skipped, run.rendered), (0, run.files), "{run}");
    same_as_full("a torn base of the keys", &run);
    change(retitle);
    let run = generate::generate(&options(&out)).unwrap();
    assert!(run.rendered < run.files / 10, "{run}");

    // Other options (another public URL): nothing is skipped.
    let other = generate::Options {
        public_url: Some("https://example.org".into()),
        ..options(&out)
    };
    let run = generate::generate(&other).unwrap();
    assert_eq!(run.units_skipped, 0, "{run}");
    assert_eq!(run.rendered, run.files, "{run}");
}

#[test]
fn a_change_rewrites_only_the_manifest_chunks_holding_changed_paths() {
    use roost::manifest::split;
    let (tmp, db, out) = fixture();
    let options = |out: &Path| generate::Options {
        precompress: generate::Precompress::GZIP,
        ..generate_options(&db, out)
    };
    let root_of =
        |out: &Path| split::Root::parse(&fs::read(out.join(split::ROOT)).unwrap()).unwrap();
    let change = |sql: &str| {
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    };
    let changed_paths = |out: &Path| -> std::collections::BTreeSet<String> {
        ["added.txt", "changed.txt", "removed.txt"]
            .iter()
            .flat_map(|name| {
                fs::read_to_string(out.join("changes").join(name))
                    .unwrap()
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let same_as_full = |what: &str| {
        let full_out = tmp.path().join("full");
        generate::generate(&options(&full_out)).unwrap();
        assert_same_files(what, &out, &full_out);
        fs::remove_dir_all(&full_out).unwrap();
    };
    generate::generate(&options(&out)).unwrap();
    let before = root_of(&out);
    assert!(before.chunks.len() >= 3, "{} chunks", before.chunks.len());

    // One sponsor edited: its detail and the sponsor list pages change, in one part
    // of the path order; the chunks elsewhere keep their names and files.
    change("UPDATE sponsors SET description = 'Renewed.' WHERE key_lc = 'nakatomi'");
    generate::generate(&options(&out)).unwrap();
    same_as_full("one sponsor edited");
    let after = root_of(&out);
    let old: std::collections::HashSet<&str> =
        before.chunks.iter().map(|c| c.sha256.as_str()).collect();
    let changed = changed_paths(&out);
    let new: Vec<&split::Chunk> = after
        .chunks
        .iter()
        .filter(|c| !old.contains(c.sha256.as_str()))
        .collect();
    assert!(!new.is_empty() && new.len() < after.chunks.len(), "{new:?}");
    for chunk in new {
        let entries = split::parse_chunk(chunk, &fs::read(out.join(&chunk.path)).unwrap()).unwrap();
        assert!(
            entries.iter().any(|e| changed.contains(&e.path)),
            "chunk {} holds no changed path",
            chunk.path
        );
    }

    // A chunk of the live tree torn, another missing: the run reads those entries
    // from manifest.json, writes the chunks again and makes the tree a full run makes.
    let live = fs::read_link(&out).unwrap();
    let live = tmp.path().join(live);
    let torn = live.join(&after.chunks[0].path);
    let bytes = fs::read(&torn).unwrap();
    fs::remove_file(&torn).unwrap();
    fs::write(&torn, &bytes[..bytes.len() / 2]).unwrap();
    fs::remove_file(live.join(&after.chunks[after.chunks.len() - 1].path)).unwrap();
    change("UPDATE sponsors SET description = 'Renewed again.' WHERE key_lc = 'nakatomi'");
    generate::generate(&options(&out)).unwrap();
    same_as_full("a torn chunk and a missing one");
    // Every chunk of the new tree reads back whole.
    for chunk in root_of(&out).chunks {
        let bytes = fs::read(out.join(&chunk.path)).unwrap();
        split::parse_chunk(&chunk, &bytes).unwrap();
    }
}

/// Identical list pages are stored once: the explicit ordering that sorts as the
/// default is the default's file, a filter combination with the same records as
/// another (a repository, with and without its organization) has that one's files,
/// and a page of at most one record is one file in every ordering. The manifest
/// still lists every path with its own entry.
#[test]
fn identical_pages_are_one_file_under_every_name() {
    let (_tmp, db, out) = fixture();
    generate::generate(&generate::Options {
        precompress: generate::Precompress::ALL,
        ..generate_options(&db, &out)
    })
    .unwrap();
    let files = tree_inodes(&out);
    let manifest = roost::manifest::read_manifest(&out).unwrap();
    let listed: std::collections::BTreeSet<&str> =
        manifest.files.iter().map(|e| e.path.as_str()).collect();
    let ordering = |rel: &str| {
        rel.split(['@', '&'])
            .find_map(|p| p.strip_prefix("ordering="))
            .map(|o| o.trim_end_matches(".json").to_string())
    };
    // Per list folder and bytes: the inodes holding them, by ordering.
    type Copies = std::collections::BTreeMap<Option<String>, std::collections::BTreeSet<u64>>;
    let mut copies: std::collections::BTreeMap<(String, &[u8]), Copies> = Default::default();
    for (rel, (ino, bytes)) in &files {
        let name = rel.rsplit('/').next().unwrap();
        if !(name.starts_with("index") && name.ends_with(".json")) || rel == "api/v0/index.json" {
            continue;
        }
        assert!(
            listed.contains(rel.as_str()),
            "{rel} is not in the manifest"
        );
        let folder = rel[..rel.len() - name.len()].to_string();
        copies
            .entry((folder, bytes.as_slice()))
            .or_default()
            .entry(ordering(rel))
            .or_default()
            .insert(*ino);
    }
    let (mut twins, mut shared) = (0, 0);
    for ((folder, bytes), by_ordering) in &copies {
        let page: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        let count = page["total_count"].as_u64().unwrap();
        for (o, inodes) in by_ordering {
            assert_eq!(
                inodes.len(),
                1,
                "{folder}: one page's bytes in {o:?} stored {inodes:?}"
            );
        }
        let all: std::collections::BTreeSet<u64> =
            by_ordering.values().flatten().copied().collect();
        if count <= 1 {
            assert_eq!(
                all.len(),
                1,
                "{folder}: a page of {count} in {by_ordering:?}"
            );
        }
        twins += by_ordering.len() - 1;
        shared += usize::from(all.len() < by_ordering.len());
    }
    assert!(
        shared > 0 && twins > 0,
        "the sample has identical pages ({twins})"
    );
    // The default ordering and the explicit one that sorts the same: one file.
    for spec in catalog::LISTS {
        let default = files[&format!("api/v0/{}/index.json", spec.path)].0;
        let same: Vec<&String> = files
            .iter()
            .filter(|(rel, (ino, _))| {
                *ino == default
                    && rel.starts_with(&format!("api/v0/{}/index@ordering=", spec.path))
                    && !rel.contains('&')
            })
            .map(|(rel, _)| rel)
            .collect();
        let default_sql = catalog::order_sql(spec, None, false);
        let sorting_so = (0..spec.orderings.len())
            .flat_map(|field| [false, true].map(|desc| catalog::OrderChoice { field, desc }))
            .filter(|&o| catalog::order_sql(spec, Some(o), false) == default_sql)
            .count();
        assert_eq!(same.len(), sorting_so, "{}: {same:?}", spec.path);
        let index = format!("api/v0/{}/index.json", spec.path);
        for rel in same.iter().filter(|_| files[&index].1.len() >= 1024) {
            for sibling in [".gz", ".br"] {
                let ino = |rel: &str| files[&format!("{rel}{sibling}")].0;
                assert_eq!(ino(rel), ino(&index), "{rel}{sibling}");
            }
        }
    }
}
