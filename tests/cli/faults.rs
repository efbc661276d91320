//! Faults lose nothing: one writer at a time on a tree (two real `roost generate`
//! processes into one site), a live tree with missing or altered files is never taken
//! for unchanged (`roost site check`), nothing fails after the swap, and what earlier
//! runs left beside the tree never blocks the next one.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use crate::support::*;

/// `roost generate --db DB --out OUT --today TODAY --no-precompress --jobs 2 EXTRA`.
fn generate_cmd(db: &Path, out: &Path, extra: &[&str]) -> std::process::Command {
    let mut command = roost();
    command
        .args([
            "generate",
            "--no-precompress",
            "--jobs",
            "2",
            "--today",
            TODAY,
        ])
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(out)
        .args(extra);
    command
}

fn run_generate(db: &Path, out: &Path, extra: &[&str]) -> Output {
    generate_cmd(db, out, extra).output().unwrap()
}

fn spawn_generate(db: &Path, out: &Path, extra: &[&str]) -> Child {
    generate_cmd(db, out, extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `roost site check --site SITE`.
fn site_check(site: &Path) -> Output {
    roost()
        .args(["site", "check", "--site"])
        .arg(site)
        .output()
        .unwrap()
}

/// The sample (`a.db`) and the sample with a sponsor removed (`b.db`), in `dir`.
fn two_datasets(dir: &Path) -> (PathBuf, PathBuf) {
    let a = dir.join("a.db");
    roost::store::init_db(&a, false, roost::idx::build).unwrap();
    let jsonl = dir.join("b-jsonl");
    write_sample(&jsonl, "sponsors.jsonl", |lines| {
        lines.retain(|l| !l.contains("\"nakatomi\""))
    });
    let b = dir.join("b.db");
    roost::store::import_dir(&jsonl, &b, roost::idx::build).unwrap();
    (a, b)
}

/// The entries of the live manifest that are missing or of another size.
fn missing_from_manifest(site: &Path) -> Vec<String> {
    let manifest = roost::manifest::read_manifest(site).expect("a manifest");
    manifest
        .files
        .iter()
        .filter(|e| fs::metadata(site.join(&e.path)).map(|m| m.len()).ok() != Some(e.size))
        .map(|e| e.path.clone())
        .collect()
}

/// The live generation of `site` and the spare generation beside it (named on the
/// second line of `.site.spare-keys`), sorted.
fn live_and_spare(site: &Path) -> Vec<String> {
    let dir = site.parent().unwrap();
    let mut names = vec![fs::read_link(site).unwrap().to_string_lossy().into_owned()];
    if let Ok(keys) = fs::read(dir.join(".site.spare-keys")) {
        let name = keys.split(|&b| b == b'\n').nth(1).unwrap();
        names.push(String::from_utf8(name.to_vec()).unwrap());
    }
    names.sort();
    names
}

fn generations(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".site.g"))
        .collect();
    names.sort();
    names
}

#[test]
fn overlapping_generate_runs_take_turns_and_the_live_tree_stays_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_datasets(tmp.path());
    let site = tmp.path().join("site");
    assert!(run_generate(&a, &site, &[]).status.success());
    for round in 0..3 {
        // Two real processes into one site, the second started while the first runs.
        let (first, second) = if round % 2 == 0 { (&b, &a) } else { (&a, &b) };
        let one = spawn_generate(first, &site, &["--wait"]);
        std::thread::sleep(Duration::from_millis(50 + 100 * round));
        let two = spawn_generate(second, &site, &["--wait"]);
        for child in [one, two] {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        assert_eq!(
            missing_from_manifest(&site),
            Vec::<String>::new(),
            "round {round}"
        );
        let check = site_check(&site);
        assert!(
            check.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&check.stdout)
        );
        // Only the live generation is left, and the spare its keys name.
        assert_eq!(generations(tmp.path()), live_and_spare(&site));
    }
}

#[test]
fn a_second_writer_exits_naming_the_holder_or_waits_with_wait() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = two_datasets(tmp.path());
    let site = tmp.path().join("site");
    let held =
        roost::lock::exclusive(&tmp.path().join(".site.lock"), "generate", &site, false).unwrap();
    let refused = run_generate(&a, &site, &[]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(&format!("pid {}: roost generate", std::process::id()))
            && stderr.contains("--wait"),
        "{stderr}"
    );
    assert!(fs::symlink_metadata(&site).is_err(), "nothing was written");

    let mut waiting = spawn_generate(&a, &site, &["--wait"]);
    std::thread::sleep(Duration::from_millis(700));
    assert!(waiting.try_wait().unwrap().is_none(), "it waits");
    drop(held);
    let output = waiting.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("waiting for pid"));
    assert!(site_check(&site).status.success());

    // `db import` and `db export` lock their targets the same way.
    let db_lock = roost::lock::exclusive(
        &tmp.path().join("a.db.lock"),
        "db import",
        &tmp.path().join("a.db"),
        false,
    )
    .unwrap();
    let import = roost()
        .args(["db", "import"])
        .arg(tmp.path().join("b-jsonl"))
        .arg("--db")
        .arg(&a)
        .output()
        .unwrap();
    assert!(!import.status.success());
    assert!(String::from_utf8_lossy(&import.stderr).contains("pid "));
    drop(db_lock);
    let export_dir = tmp.path().join("export");
    let export_lock = roost::lock::exclusive(
        &tmp.path().join(".export.lock"),
        "db export",
        &export_dir,
        false,
    )
    .unwrap();
    let export = || {
        roost()
            .args(["db", "export"])
            .arg(&export_dir)
            .arg("--db")
            .arg(&a)
            .output()
            .unwrap()
    };
    assert!(!export().status.success());
    assert!(!export_dir.exists());
    drop(export_lock);
    assert!(export().status.success());
}

#[test]
fn a_live_tree_with_missing_or_altered_files_is_never_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = two_datasets(tmp.path());
    let site = tmp.path().join("site");
    assert!(run_generate(&a, &site, &[]).status.success());
    let check = site_check(&site);
    assert!(check.status.success());
    assert!(String::from_utf8_lossy(&check.stdout).contains("present and intact"));

    let index = site.join("api/v0/issues/index.json");
    let london = site.join("api/v0/chapters/london.json");
    let london_bytes = fs::read(&london).unwrap();
    fs::remove_file(&index).unwrap();
    // Same size, other bytes: only the full check sees it.
    let mut altered = london_bytes.clone();
    altered[1] ^= 0x20;
    fs::remove_file(&london).unwrap();
    fs::write(&london, &altered).unwrap();
    let check = site_check(&site);
    assert_eq!(check.status.code(), Some(1));
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(
        report.contains("api/v0/issues/index.json: missing"),
        "{report}"
    );
    assert!(
        report.contains("api/v0/chapters/london.json: content differs"),
        "{report}"
    );

    // The same input: the missing file is seen and the tree rendered again.
    let rerun = run_generate(&a, &site, &[]);
    assert!(rerun.status.success());
    let stdout = String::from_utf8_lossy(&rerun.stdout);
    assert!(!stdout.contains("(0 written"), "{stdout}");
    assert!(
        String::from_utf8_lossy(&rerun.stderr).contains("api/v0/issues/index.json: missing"),
        "{}",
        String::from_utf8_lossy(&rerun.stderr)
    );
    assert!(index.is_file());
    assert_eq!(missing_from_manifest(&site), Vec::<String>::new());

    // A tree without a manifest cannot be checked.
    let no_tree = site_check(&tmp.path().join("nothing"));
    assert!(!no_tree.status.success());
    assert!(String::from_utf8_lossy(&no_tree.stderr).contains("manifest.json"));
}

#[test]
fn nothing_fails_after_the_swap_and_stale_names_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_datasets(tmp.path());
    let site = tmp.path().join("site");
    assert!(run_generate(&a, &site, &[]).status.success());
    let live_before = fs::read_link(&site).unwrap();
    // The input record cannot be replaced (a folder in its place): the run fails
    // before its swap, leaving the live tree as it was and nothing behind.
    let record = tmp.path().join(".site.input");
    fs::remove_file(&record).unwrap();
    fs::create_dir(&record).unwrap();
    let failed = run_generate(&b, &site, &[]);
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains(".site.input"), "{stderr}");
    assert_eq!(fs::read_link(&site).unwrap(), live_before);
    assert_eq!(
        generations(tmp.path()),
        [live_before.to_string_lossy().into_owned()]
    );
    assert_eq!(temporary_names(tmp.path()), Vec::<String>::new());
    fs::remove_dir(&record).unwrap();

    // The temporary file of a dead process, and a generation and a swap symlink left
    // by killed runs: removed by the next run.
    let stale = tmp.path().join(".site.input.tmp-99999999");
    fs::write(&stale, b"{}").unwrap();
    fs::create_dir_all(tmp.path().join(".site.g1-99999999/api")).unwrap();
    std::os::unix::fs::symlink(
        ".site.g1-99999999",
        tmp.path().join(".site.g1-99999999.link"),
    )
    .unwrap();
    let output = run_generate(&b, &site, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!stale.exists());
    let live = fs::read_link(&site).unwrap();
    // The replaced generation is kept as the spare; the killed runs' folder is gone.
    let kept = live_and_spare(&site);
    assert_eq!(kept.len(), 2);
    assert_eq!(generations(tmp.path()), kept);
    let recorded: serde_json::Value = serde_json::from_slice(&fs::read(&record).unwrap()).unwrap();
    assert_eq!(recorded["generation"], live.to_string_lossy().as_ref());
    let again = run_generate(&b, &site, &[]);
    assert!(
        String::from_utf8_lossy(&again.stdout).contains(": 0 written"),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    assert_eq!(fs::read_link(&site).unwrap(), live);
    assert_eq!(temporary_names(tmp.path()), Vec::<String>::new());
}

/// Temporary names in `dir`: `*.tmp-<pid>` files and swap symlinks `*.link`.
fn temporary_names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-") || n.ends_with(".link"))
        .collect()
}

#[test]
fn import_refuses_keys_that_cannot_go_into_a_url() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("jsonl");
    write_sample(&dir, "chapters.jsonl", |lines| {
        let mut record: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
        record["key"] = "www-chapter-nul\u{0}byte".into();
        lines[1] = record.to_string();
    });
    write_sample(&dir.join("../jsonl2"), "members.jsonl", |lines| {
        let mut record: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        record["login"] = "a/b".into();
        lines[0] = record.to_string();
    });
    let refused = roost()
        .args(["db", "import"])
        .arg(&dir)
        .arg("--db")
        .arg(tmp.path().join("x.db"))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(
            "chapters.jsonl:2: key 'www-chapter-nul\\0byte' holds the control character U+0000"
        ),
        "{stderr}"
    );
    assert!(!tmp.path().join("x.db").exists());
    let refused = roost()
        .args(["db", "import"])
        .arg(tmp.path().join("jsonl2"))
        .arg("--db")
        .arg(tmp.path().join("x.db"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("members.jsonl:1: login 'a/b' holds a slash (/)"),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_key_with_a_nul_in_an_old_dataset_answers_for_no_other_key() {
    let sample = Sample::new();
    // An old dataset: imported before import refused such keys.
    {
        let conn = rusqlite::Connection::open(&sample.db).unwrap();
        let changed = conn
            .execute(
                "UPDATE chapters SET key = 'www-chapter-nul' || char(0) || 'byte', \
                 key_lc = 'www-chapter-nul' || char(0) || 'byte' \
                 WHERE key_lc = 'www-chapter-london'",
                [],
            )
            .unwrap();
        assert_eq!(changed, 1);
    }
    let check = roost()
        .args(["db", "check", "--db"])
        .arg(&sample.db)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(
        report.contains(
            "chapters record 1: key 'www-chapter-nul\\0byte' holds the control character U+0000"
        ),
        "{report}"
    );

    let site = sample.dir.path().join("site");
    roost::generate::generate(&generate_options(&sample.db, &site)).unwrap();
    assert!(!site.join("api/v0/chapters/nul.json").exists());
    assert!(!site.join("api/v0/chapters/nul%00byte.json").exists());
    let app = roost::shim::app(shim_state(
        roost::config::Env::Local,
        &sample.db,
        &site,
        &sample.dir.path().join("auth.db"),
        |_| {},
    ));
    for uri in [
        "/api/v0/chapters/nul",
        "/api/v0/chapters/www-chapter-nul",
        "/api/v0/chapters/nul%00byte",
        "/api/v0/chapters/london",
    ] {
        let reply = get(&app, uri).await;
        assert_eq!(
            reply.status,
            404,
            "{uri}: {}",
            String::from_utf8_lossy(&reply.body)
        );
    }
    assert_eq!(get(&app, "/api/v0/chapters/manchester").await.status, 200);
}

#[test]
fn import_counts_errors_past_the_first_thousand_and_reads_regular_files_only() {
    let tmp = tempfile::tempdir().unwrap();
    // 200,000 bad lines: all counted, the first 1,000 kept.
    let dir = tmp.path().join("bad");
    write_sample(&dir, "members.jsonl", |lines| {
        lines.clear();
        lines.extend(std::iter::repeat_n("{}".to_string(), 200_000));
    });
    match roost::store::read_dir(&dir) {
        Err(roost::store::ImportErrors(kept, omitted)) => {
            assert_eq!(kept.len(), roost::store::KEPT_PER_FILE);
            assert_eq!(kept.len() + omitted, 200_000);
            assert!(
                kept[0].starts_with("members.jsonl:1: missing field"),
                "{}",
                kept[0]
            );
            let text = roost::store::ImportErrors(kept, omitted).to_string();
            assert!(
                text.ends_with("200000 error(s); the dataset was not changed"),
                "{text}"
            );
            assert!(text.contains("... and 199950 more"), "{text}");
        }
        Ok(_) => panic!("200,000 empty records were read"),
    }

    // A FIFO, a device behind a symbolic link, a link out of the folder: refused by
    // name, at once. A link to a file inside the folder is read.
    let dir = tmp.path().join("odd");
    write_sample(&dir, "sponsors.jsonl", |_| {});
    fs::remove_file(dir.join("members.jsonl")).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(dir.join("members.jsonl"))
        .status()
        .unwrap()
        .success());
    fs::remove_file(dir.join("posts.jsonl")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("posts.jsonl")).unwrap();
    let outside = tmp.path().join("badges-outside.jsonl");
    fs::rename(dir.join("badges.jsonl"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("badges.jsonl")).unwrap();
    let inside = dir.join(".real-sponsors");
    fs::rename(dir.join("sponsors.jsonl"), &inside).unwrap();
    std::os::unix::fs::symlink(".real-sponsors", dir.join("sponsors.jsonl")).unwrap();
    let mut child = roost()
        .args(["db", "import"])
        .arg(&dir)
        .arg("--db")
        .arg(tmp.path().join("odd.db"))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the import blocked");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("members.jsonl: ")
            && stderr.contains("is a FIFO; only regular files are read"),
        "{stderr}"
    );
    assert!(
        stderr.contains("posts.jsonl: a symbolic link to /dev/zero, outside the folder"),
        "{stderr}"
    );
    assert!(
        stderr.contains("badges.jsonl: a symbolic link to ")
            && stderr.contains("outside the folder"),
        "{stderr}"
    );
    assert!(!stderr.contains("sponsors.jsonl"), "{stderr}");
    assert!(stderr.contains("3 error(s)"), "{stderr}");
}

#[test]
fn db_check_reports_a_damaged_dataset_naming_it() {
    let sample = Sample::new();
    let mut bytes = fs::read(&sample.db).unwrap();
    let end = bytes.len().min(4096 * 23);
    bytes[4096 * 3..end].fill(0xff);
    fs::write(&sample.db, &bytes).unwrap();
    let check = roost()
        .args(["db", "check", "--db"])
        .arg(&sample.db)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(
        report.contains(&format!(
            "{}: SQLite cannot read the dataset through: ",
            sample.db.display()
        )),
        "{report}{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
