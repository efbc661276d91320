//! `roost generate` as a delta run: after a change, the units whose files the live
//! generation has hand nothing on and the manifest is the live one merged with what
//! changed. Whatever changed (a row, a unit gone from the plan, the dataset left
//! out), the tree is the tree a full run makes and the change lists name exactly
//! the paths whose entries differ; a run that cannot name a live unit's files
//! places every unit again, and one that kept nothing is a full run's.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::support::*;

/// `manifest.json`'s entries by path: size and hash.
fn manifest(out: &Path) -> BTreeMap<String, (u64, String)> {
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("manifest.json")).unwrap()).unwrap();
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                (
                    e["size"].as_u64().unwrap(),
                    e["sha256"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect()
}

/// The paths a change list names.
fn lines(out: &Path, name: &str) -> Vec<String> {
    fs::read_to_string(out.join("changes").join(name))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The paths a change list names, the manifest documents left out.
fn listed(out: &Path, name: &str) -> Vec<String> {
    let mut paths = lines(out, name);
    paths.retain(|p| !(p.starts_with("manifest/") || p == "manifest.json"));
    paths
}

/// `roost generate` of `db` into `out` with `.gz` siblings and the options `more`,
/// at the debug level; its standard error (the steps it took), once it succeeded.
fn generate(db: &Path, out: &Path, more: &[&str]) -> String {
    let output = roost()
        .env("RUST_LOG", "roost::generate=debug")
        .args(["generate", "--precompress", "gzip", "--db"])
        .arg(db)
        .arg("--out")
        .arg(out)
        .args(more)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    stderr
}

/// Runs `sql` on the dataset `db`.
fn change(db: &Path, sql: &str) {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

#[test]
fn a_delta_run_makes_the_tree_and_the_change_lists_a_full_run_makes() {
    let Sample { dir, db } = Sample::new();
    let out = dir.path().join("site");
    let full = dir.path().join("full");
    // The run's standard error at the debug level: the steps it took.
    let generate = |out: &Path, with_dataset: bool| -> String {
        let more: &[&str] = if with_dataset {
            &["--with-dataset"]
        } else {
            &[]
        };
        generate(&db, out, more)
    };
    let change = |sql: &str| change(&db, sql);
    let first = generate(&out, true);
    assert!(!first.contains("step=\"delta\""), "{first}");
    let snapshot = "(SELECT min(id) FROM snapshots)";
    let changes = [
        (
            "an issue retitled",
            "UPDATE issues SET title = title || ' (edited)' WHERE id = (SELECT min(id) FROM issues)"
                .to_string(),
            true,
        ),
        (
            "an issue deleted",
            "DELETE FROM issue_labels WHERE issue_id = (SELECT max(id) FROM issues); \
             DELETE FROM snapshot_issues WHERE issue_id = (SELECT max(id) FROM issues); \
             DELETE FROM issue_bodies WHERE issue_id = (SELECT max(id) FROM issues); \
             DELETE FROM issues WHERE id = (SELECT max(id) FROM issues)"
                .to_string(),
            true,
        ),
        (
            "a snapshot deleted (its units gone from the plan)",
            ["chapters", "projects", "members", "issues", "releases"]
                .iter()
                .map(|t| format!("DELETE FROM snapshot_{t} WHERE snapshot_id = {snapshot};"))
                .chain([format!("DELETE FROM snapshots WHERE id = {snapshot};")])
                .collect(),
            true,
        ),
        ("the dataset left out", String::new(), false),
        (
            "a sponsor renamed, the dataset back",
            "UPDATE sponsors SET name = name || ' Corp' WHERE key_lc = 'nakatomi'".to_string(),
            true,
        ),
    ];
    for (what, sql, with_dataset) in changes {
        let before = manifest(&out);
        if !sql.is_empty() {
            change(&sql);
        }
        let log = generate(&out, with_dataset);
        assert!(log.contains("step=\"delta\""), "{what}: {log}");
        assert!(!log.contains("every entry"), "{what}: {log}");
        let after = manifest(&out);
        // The tree a full run makes, file for file.
        let _ = fs::remove_dir_all(&full);
        generate(&full, with_dataset);
        assert_eq!(after, manifest(&full), "{what}");
        super::generate::assert_same_files(what, &out, &full);
        // The change lists: exactly the paths whose entries differ.
        let added: Vec<String> = after
            .keys()
            .filter(|p| !before.contains_key(*p))
            .cloned()
            .collect();
        let removed: Vec<String> = before
            .keys()
            .filter(|p| !after.contains_key(*p))
            .cloned()
            .collect();
        let changed: Vec<String> = after
            .iter()
            .filter(|(p, e)| before.get(*p).is_some_and(|b| b != *e))
            .map(|(p, _)| p.clone())
            .collect();
        assert!(
            !(added.is_empty() && removed.is_empty() && changed.is_empty()),
            "{what}"
        );
        assert_eq!(listed(&out, "added.txt"), added, "{what}");
        assert_eq!(listed(&out, "removed.txt"), removed, "{what}");
        assert_eq!(listed(&out, "changed.txt"), changed, "{what}");
    }

    let records = dir.path().join(".site.units");
    let tear = |path: &Path| {
        let bytes = fs::read(path).unwrap();
        fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
    };
    let full_again = |what: &str| {
        let _ = fs::remove_dir_all(&full);
        generate(&full, true);
        assert_eq!(manifest(&out), manifest(&full), "{what}");
        super::generate::assert_same_files(what, &out, &full);
    };
    // The loose files' records torn (those naming `_headers`: the live generation's,
    // and the replaced one's while its keys are the spare's): the run cannot name the
    // live loose files, so it places its units again handing on every entry.
    let loose: Vec<_> = fs::read_dir(&records)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let bytes = fs::read(p).unwrap();
            bytes.windows(8).any(|w| w == b"_headers")
        })
        .collect();
    assert!(!loose.is_empty() && loose.len() <= 2, "{loose:?}");
    for path in &loose {
        tear(path);
    }
    change("UPDATE issues SET title = title || ' (again)' WHERE id = (SELECT min(id) FROM issues)");
    let log = generate(&out, true);
    assert!(log.contains("step=\"units, every entry\""), "{log}");
    full_again("a torn record");
    // And the run after it is a delta run again.
    change("UPDATE issues SET title = title || ' (more)' WHERE id = (SELECT min(id) FROM issues)");
    let log = generate(&out, true);
    assert!(
        log.contains("step=\"delta\"") && !log.contains("every entry"),
        "{log}"
    );
    // Into the spare, the issue lists placed only the pages showing the issue.
    assert!(
        log.contains("kept scope: only the pages showing a changed row placed"),
        "{log}"
    );
    full_again("after a torn record");
    // Every record torn: no unit is skipped or kept in part, every entry is handed on,
    // and no record needs reading: the run is a full run's, no second pass.
    for entry in fs::read_dir(&records).unwrap().flatten() {
        tear(&entry.path());
    }
    change("UPDATE issues SET title = title || ' (last)' WHERE id = (SELECT min(id) FROM issues)");
    let log = generate(&out, true);
    assert!(!log.contains("every entry"), "{log}");
    full_again("every record torn");
}

/// The entries the chunks of the tree at `out` list, by path: size and hash.
fn chunk_entries(out: &Path) -> BTreeMap<String, (u64, String)> {
    let root =
        roost::manifest::Root::parse(&fs::read(out.join("manifest/root.json")).unwrap()).unwrap();
    let mut entries = BTreeMap::new();
    for chunk in &root.chunks {
        let bytes = fs::read(out.join(&chunk.path)).unwrap();
        for e in roost::manifest::split::parse_chunk(chunk, &bytes).unwrap() {
            entries.insert(e.path, (e.size, e.sha256));
        }
    }
    entries
}

#[test]
fn without_manifest_json_the_chunks_are_the_manifest_and_a_change_keeps_the_tree_a_full_run_makes()
{
    let Sample { dir, db } = Sample::new();
    let out = dir.path().join("site");
    let full = dir.path().join("full");
    let generate = |out: &Path, whole: bool| -> String {
        let more: &[&str] = if whole { &[] } else { &["--no-manifest-json"] };
        generate(&db, out, more)
    };
    let change = |sql: &str| change(&db, sql);
    let lines = |name: &str| lines(&out, name);
    let site_check = |out: &Path| {
        let output = roost()
            .args(["site", "check", "--site"])
            .arg(out)
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8(output.stdout).unwrap(),
        )
    };
    generate(&out, true);
    let listed = manifest(&out);
    assert_eq!(chunk_entries(&out), listed);

    // The same data without `manifest.json`: it is gone, the root names none, the
    // chunks list every file as it did, and the option is part of the input (the
    // live tree is not kept as it is).
    generate(&out, false);
    assert!(!out.join("manifest.json").exists());
    let root: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("manifest/root.json")).unwrap()).unwrap();
    assert_eq!(root.get("manifest"), None, "{root}");
    assert_eq!(chunk_entries(&out), listed);
    assert_eq!(lines("removed.txt"), ["manifest.json"]);
    assert_eq!(lines("added.txt"), Vec::<String>::new());
    assert_eq!(lines("changed.txt"), ["manifest/root.json"]);
    let (ok, said) = site_check(&out);
    assert!(
        ok && said.contains(&format!("all {} files", listed.len())),
        "{said}"
    );

    // A change, into the spare (the first generation, which holds `manifest.json`):
    // the tree a full run without it makes, file for file, `manifest.json` not among
    // them.
    for (what, sql) in [
        (
            "an issue retitled",
            "UPDATE issues SET title = title || ' (edited)' WHERE id = (SELECT min(id) FROM issues)",
        ),
        (
            "a sponsor renamed",
            "UPDATE sponsors SET name = name || ' Corp' WHERE key_lc = 'nakatomi'",
        ),
    ] {
        let before = chunk_entries(&out);
        change(sql);
        let log = generate(&out, false);
        assert!(log.contains("step=\"delta\""), "{what}: {log}");
        assert!(log.contains("only the pages showing a changed row"), "{what}: {log}");
        assert!(!out.join("manifest.json").exists(), "{what}");
        let _ = fs::remove_dir_all(&full);
        generate(&full, false);
        super::generate::assert_same_files(what, &out, &full);
        let after = chunk_entries(&out);
        let changed: Vec<String> = after
            .iter()
            .filter(|(p, e)| before.get(*p).is_some_and(|b| b != *e))
            .map(|(p, _)| p.clone())
            .collect();
        let named: Vec<String> = lines("changed.txt")
            .into_iter()
            .filter(|p| !p.starts_with("manifest/"))
            .collect();
        assert!(!changed.is_empty(), "{what}");
        assert_eq!(named, changed, "{what}");
        assert!(!lines("removed.txt").contains(&"manifest.json".to_string()));
    }
    // A file damaged by hand: `site check` reads the chunks and names it.
    let victim = out.join("api/v0/openapi.json");
    let bytes = fs::read(&victim).unwrap();
    fs::remove_file(&victim).unwrap();
    fs::write(&victim, [&bytes[..], b" "].concat()).unwrap();
    let (ok, said) = site_check(&out);
    assert!(!ok && said.contains("api/v0/openapi.json"), "{said}");
    fs::remove_file(&victim).unwrap();
    fs::write(&victim, &bytes).unwrap();

    // Back to the default: `manifest.json` is made again, as a full run makes it.
    generate(&out, true);
    assert_eq!(lines("added.txt"), ["manifest.json"]);
    let _ = fs::remove_dir_all(&full);
    generate(&full, true);
    super::generate::assert_same_files("manifest.json again", &out, &full);
    assert_eq!(manifest(&out), chunk_entries(&out));
}

#[test]
fn records_patched_run_after_run_keep_the_tree_a_full_run_makes() {
    let Sample { dir, db } = Sample::new();
    let out = dir.path().join("site");
    let full = dir.path().join("full");
    let change = |sql: &str| change(&db, sql);
    let retitle = |which: &str, how: &str| {
        format!(
            "UPDATE issues SET title = title || ' ({how})' WHERE id = (SELECT {which} FROM issues)"
        )
    };
    generate(&db, &out, &[]);
    let added = "INSERT INTO issues (id, repository_id, organization_id, number, title, state, \
         author_id, url, created_at, updated_at, closed_at) \
         SELECT (SELECT max(id) + 1 FROM issues), repository_id, organization_id, \
         (SELECT max(number) + 1 FROM issues), 'A new issue', state, author_id, url || '-new', \
         created_at, updated_at, closed_at FROM issues WHERE id = (SELECT min(id) FROM issues)";
    // The first change is written into a fresh folder, the others into the spare:
    // the issue details patched from the second on (whether they are patched, and
    // whether the spare was brought up to date from the patches alone: from the
    // third on, when the spare holds the unit the live record was patched from). A
    // sponsor renamed leaves the issue units as they are, their patches kept.
    let changes = [
        (
            "the first issue retitled",
            retitle("min(id)", "one"),
            false,
            false,
        ),
        (
            "the last issue retitled",
            retitle("max(id)", "two"),
            true,
            false,
        ),
        ("an issue added", added.to_string(), true, true),
        (
            "the first issue retitled again",
            retitle("min(id)", "three"),
            true,
            true,
        ),
        (
            "a sponsor renamed",
            "UPDATE sponsors SET name = name || ' Corp' WHERE key_lc = 'nakatomi'".to_string(),
            false,
            true,
        ),
        (
            "the first issue retitled once more",
            retitle("min(id)", "four"),
            true,
            true,
        ),
    ];
    let mut patched_lists = 0;
    for (what, sql, patched, from_patch) in changes {
        change(&sql);
        let log = generate(&db, &out, &[]);
        assert!(
            log.contains("step=\"delta\"") && !log.contains("every entry"),
            "{what}: {log}"
        );
        let details =
            "kept details: only the changed records placed, as a patch unit=\"get_issue\"";
        assert_eq!(log.contains(details), patched, "{what}: {log}");
        let from_patches = "only the patch's groups asked about";
        assert_eq!(log.contains(from_patches), from_patch, "{what}: {log}");
        patched_lists += log.matches("patched=true").count();
        let _ = fs::remove_dir_all(&full);
        generate(&db, &full, &[]);
        assert_eq!(manifest(&out), manifest(&full), "{what}");
        super::generate::assert_same_files(what, &out, &full);
    }
    assert!(patched_lists > 0, "no kept scope wrote a patch");
    // Patches whose base is torn (every whole record cut in half; a record's head is
    // its magic line, its key and its base's, zero for a whole record): the units
    // are rendered, the tree still a full run's.
    let records = dir.path().join(".site.units");
    let magic = b"roost unit record 4\n".len();
    let (mut patches, mut torn) = (0, 0);
    for entry in fs::read_dir(&records).unwrap().flatten() {
        let path = entry.path();
        let bytes = fs::read(&path).unwrap();
        if path.extension().is_some() || bytes.len() < magic + 32 {
            continue;
        }
        if bytes[magic + 16..magic + 32].iter().all(|&b| b == 0) {
            fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
            torn += 1;
        } else {
            patches += 1;
        }
    }
    assert!(
        patches > 0 && torn > 0,
        "{patches} patches, {torn} whole records"
    );
    change(&retitle("min(id)", "five"));
    generate(&db, &out, &[]);
    let _ = fs::remove_dir_all(&full);
    generate(&db, &full, &[]);
    assert_eq!(manifest(&out), manifest(&full), "torn bases");
    super::generate::assert_same_files("torn bases", &out, &full);
}
