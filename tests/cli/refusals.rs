//! Commands refuse instead of guessing: `serve` creates the sample only when asked
//! (`--sample`) or in the local environment at the default paths; `db import` refuses
//! file names it does not know and an import that would empty a kind of record;
//! `keys`/`sessions` never create a credential store but with `create`; `generate`'s
//! summary adds up. Each refusal exits with status 2 and changes nothing.

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::support::*;

/// The files and folders directly in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The stderr of a run that must have exited with status 2.
#[track_caller]
fn refused(output: &Output) -> String {
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}{err}",
        String::from_utf8_lossy(&output.stdout)
    );
    err
}

#[test]
fn serve_in_production_with_a_mistyped_path_refuses_and_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = roost()
        .current_dir(tmp.path())
        .args(["serve", "--env", "production", "--listen", "127.0.0.1:0"])
        .args(["--db", "nodir/roost.db"])
        .output()
        .unwrap();
    let err = refused(&out);
    assert!(
        err.contains("no dataset at nodir/roost.db")
            && err.contains("roost db import DIR --db nodir/roost.db"),
        "{err}"
    );
    assert!(
        err.contains("no tree at site") && err.contains("roost generate"),
        "{err}"
    );
    assert!(
        err.contains("no credential store at data/auth.db")
            && err.contains("roost keys create --name NAME --auth-db data/auth.db"),
        "{err}"
    );
    assert_eq!(entries(tmp.path()), Vec::<String>::new(), "nothing created");
}

#[test]
fn serve_needs_sample_for_anything_but_local_at_the_default_paths() {
    let tmp = tempfile::tempdir().unwrap();
    // Local, but a dataset path of its own: no sample there.
    let out = roost()
        .current_dir(tmp.path())
        .args(["serve", "--listen", "127.0.0.1:0", "--db", "mine.db"])
        .output()
        .unwrap();
    let err = refused(&out);
    assert!(err.contains("no dataset at mine.db"), "{err}");
    assert!(err.contains("roost serve --sample"), "{err}");
    // A real dataset and tree, a missing credential store: named, nothing created.
    let db = tmp.path().join("real.db");
    roost::store::init_db(&db, false, roost::idx::build).unwrap();
    let site = tmp.path().join("tree");
    generate(&db, &site, false);
    let auth_db = tmp.path().join("keys/auth.db");
    let out = roost()
        .args([
            "serve",
            "--env",
            "staging",
            "--listen",
            "127.0.0.1:0",
            "--db",
        ])
        .arg(&db)
        .arg("--site")
        .arg(&site)
        .arg("--auth-db")
        .arg(&auth_db)
        .output()
        .unwrap();
    let err = refused(&out);
    assert!(
        err.contains(&format!("no credential store at {}", auth_db.display())),
        "{err}"
    );
    assert!(
        !err.contains("no dataset") && !err.contains("no tree"),
        "{err}"
    );
    assert!(!tmp.path().join("keys").exists());
}

/// A sample dataset and its folder of interchange files.
fn imported() -> (Sample, std::path::PathBuf) {
    let sample = Sample::new();
    let dir = sample.dir.path().join("jsonl");
    write_sample(&dir, "members.jsonl", |_| {});
    (sample, dir)
}

/// `roost db import DIR --db DB ARGS`.
fn import(dir: &Path, db: &Path, args: &[&str]) -> Output {
    roost()
        .args(["db", "import"])
        .arg(dir)
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn import_refuses_a_file_name_it_does_not_know_naming_the_closest() {
    let (sample, _) = imported();
    let before = fs::read(&sample.db).unwrap();
    let dir = sample.dir.path().join("wrong");
    fs::create_dir(&dir).unwrap();
    fs::write(
        dir.join("Members.jsonl"),
        roost::store::SAMPLE
            .iter()
            .find(|(f, _)| *f == "members.jsonl")
            .unwrap()
            .1,
    )
    .unwrap();
    fs::write(dir.join("chapter.jsonl"), "").unwrap();
    fs::write(dir.join(".hidden"), "").unwrap();
    let err = refused(&import(&dir, &sample.db, &[]));
    assert!(
        err.contains("Members.jsonl: not a file roost imports")
            && err.contains("did you mean members.jsonl?"),
        "{err}"
    );
    assert!(err.contains("did you mean chapters.jsonl?"), "{err}");
    assert!(!err.contains(".hidden"), "{err}");
    assert!(err.contains("the dataset was not changed"), "{err}");
    assert_eq!(fs::read(&sample.db).unwrap(), before);
}

#[test]
fn import_prints_the_records_of_every_kind() {
    let (sample, dir) = imported();
    let fresh = sample.dir.path().join("fresh.db");
    let text = stdout(&import(&dir, &fresh, &[]));
    let ds = dataset();
    let expected = format!(
        "imported {} organizations, {} members, {} repositories, {} repository contributors, ",
        ds.organizations.len(),
        ds.members.len(),
        ds.repositories.len(),
        ds.repository_contributors.len()
    );
    assert!(text.starts_with(&expected), "{text}");
    assert!(
        text.contains(&format!(
            ", {} chapters, {} committees, ",
            ds.chapters.len(),
            ds.committees.len()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            ", {} badges, {} boards, {} member snapshots, {} programs, {} modules, 1 community (",
            ds.badges.len(),
            ds.boards.len(),
            ds.member_snapshots.len(),
            ds.programs.len(),
            ds.modules.len()
        )),
        "{text}"
    );
    for (n, text) in [
        (0, "0"),
        (999, "999"),
        (1204, "1,204"),
        (1_000_000, "1,000,000"),
    ] {
        assert_eq!(roost::store::thousands(n), text);
    }
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&import(&dir, &fresh, &["--json"]))).unwrap();
    assert_eq!(json["records"]["issues"], ds.issues.len());
    assert_eq!(json["records"]["pull_requests"], ds.pull_requests.len());
    assert_eq!(json["records"].as_object().unwrap().len(), 23);
    let total: u64 = json["records"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(json["total"], total);
    // The export of what was imported holds as many records.
    let out = sample.dir.path().join("out");
    let exported: serde_json::Value = serde_json::from_str(&stdout(
        &roost()
            .args(["db", "export", "--json", "--db"])
            .arg(&fresh)
            .arg(&out)
            .output()
            .unwrap(),
    ))
    .unwrap();
    assert_eq!(exported["records"], total);
    assert_eq!(exported["files"]["issues.jsonl"], ds.issues.len());
}

#[test]
fn import_refuses_to_empty_a_kind_unless_allowed() {
    let (sample, dir) = imported();
    fs::remove_file(dir.join("sponsors.jsonl")).unwrap();
    fs::write(dir.join("events.jsonl"), "\n").unwrap();
    let before = fs::read(&sample.db).unwrap();
    let held = |kind: &str| int(&sample.conn(), &format!("SELECT count(*) FROM {kind}"), []);
    let (sponsors, events) = (held("sponsors"), held("events"));
    assert!(sponsors > 0 && events > 0);

    let err = refused(&import(&dir, &sample.db, &[]));
    assert!(
        err.contains(&format!(
            "holds {events} events, {sponsors} sponsors but the import has none"
        )),
        "{err}"
    );
    assert!(
        err.contains("--allow-empty events --allow-empty sponsors"),
        "{err}"
    );
    assert_eq!(fs::read(&sample.db).unwrap(), before);
    // One allowed is not enough.
    refused(&import(&dir, &sample.db, &["--allow-empty", "sponsors"]));
    assert_eq!(fs::read(&sample.db).unwrap(), before);
    // An unknown kind is a usage error.
    let err = refused(&import(&dir, &sample.db, &["--allow-empty", "sponsor"]));
    assert!(err.contains("invalid value 'sponsor'"), "{err}");
    // Both allowed: emptied.
    let text = stdout(&import(
        &dir,
        &sample.db,
        &["--allow-empty", "sponsors", "--allow-empty", "events"],
    ));
    assert!(text.contains(", 0 events, 0 sponsors, "), "{text}");
    assert_eq!(held("sponsors"), 0);
    // Nothing left to lose: the same import goes through without the flag, and
    // `all` allows every kind.
    stdout(&import(&dir, &sample.db, &[]));
    let full = sample.dir.path().join("full");
    write_sample(&full, "members.jsonl", |_| {});
    stdout(&import(&full, &sample.db, &[]));
    refused(&import(&dir, &sample.db, &[]));
    stdout(&import(&dir, &sample.db, &["--allow-empty", "all"]));
    assert_eq!(held("events"), 0);
}

#[test]
fn credential_commands_never_create_a_store_but_create() {
    let tmp = tempfile::tempdir().unwrap();
    let auth_db = tmp.path().join("nodir/a.db");
    for (args, command) in [
        (&["keys", "list"][..], "roost keys create"),
        (&["keys", "list", "--json"], "roost keys create"),
        (&["keys", "revoke", "1"], "roost keys create"),
        (&["sessions", "list"], "roost sessions create"),
        (&["sessions", "revoke", "1"], "roost sessions create"),
    ] {
        let err = refused(&roost_auth(&auth_db, args));
        assert!(
            err.contains(&format!("no credential store at {}", auth_db.display())),
            "{args:?}: {err}"
        );
        assert!(err.contains(command), "{args:?}: {err}");
        assert!(!tmp.path().join("nodir").exists(), "{args:?}");
    }
    stdout(&roost_auth(
        &auth_db,
        &["keys", "create", "--name", "first"],
    ));
    assert!(auth_db.is_file());
    let table = stdout(&roost_auth(&auth_db, &["keys", "list"]));
    assert!(table.contains("first"), "{table}");
}

/// `generated F tree files + D manifest documents: W written, U unchanged; R removed;
/// …` → (F, D, W, U, R).
fn summary_numbers(line: &str) -> [u64; 5] {
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(5)
        .map(|w| w.parse().unwrap())
        .collect();
    numbers.try_into().unwrap()
}

#[test]
fn the_generate_summary_adds_up() {
    let Sample { dir: tmp, db } = Sample::new();
    let site = tmp.path().join("site");
    let run = |args: &[&str]| {
        stdout(
            &roost()
                .args(["generate", "--db"])
                .arg(&db)
                .arg("--out")
                .arg(&site)
                .args(["--today", TODAY])
                .args(args)
                .output()
                .unwrap(),
        )
    };
    let line = run(&[]);
    assert!(
        line.starts_with("generated ") && line.contains(" tree files + "),
        "{line}"
    );
    let [files, documents, written, unchanged, removed] = summary_numbers(&line);
    let manifest = roost::generate::read_manifest(&site).unwrap();
    assert_eq!(files, manifest.files.len() as u64, "{line}");
    assert!(documents >= 1, "{line}");
    assert_eq!(written + unchanged, files + documents, "{line}");
    assert_eq!((unchanged, removed), (0, 0), "{line}");

    // The same counts as JSON; a second run of the same input changes nothing.
    let json: serde_json::Value = serde_json::from_str(&run(&["--json"])).unwrap();
    assert_eq!(json["files"], files);
    assert_eq!(json["documents"], documents);
    assert_eq!(json["written"], 0);
    assert_eq!(json["unchanged"], files + documents);
    assert_eq!(
        json["bytes"],
        manifest.files.iter().map(|e| e.size).sum::<u64>()
    );

    // A changed dataset: every file counted once, written or linked.
    let changed = tmp.path().join("changed");
    write_sample(&changed, "chapters.jsonl", |lines| {
        let london = lines
            .iter_mut()
            .find(|l| l.contains("\"name\": \"London\""))
            .unwrap();
        *london = london.replacen("\"name\": \"London\"", "\"name\": \"Londinium\"", 1);
    });
    stdout(
        &roost()
            .args(["db", "import", "--db"])
            .arg(&db)
            .arg(&changed)
            .output()
            .unwrap(),
    );
    let line = run(&[]);
    let [files, documents, written, unchanged, _] = summary_numbers(&line);
    assert_eq!(written + unchanged, files + documents, "{line}");
    assert!(written >= 1 && unchanged >= 1, "{line}");
    assert_eq!(
        files,
        roost::generate::read_manifest(&site).unwrap().files.len() as u64
    );
}
