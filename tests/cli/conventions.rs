//! The conventions of the command line: `--version` names the commit, shell
//! completions and manual pages, `--json` where scripts read the output, every
//! argument described in `--help`, and the exit statuses (0 done, 1 problems found,
//! 2 usage error or could not run).

use std::process::Command;

use clap::CommandFactory as _;

use crate::support::*;

/// The build script, for its commit look-up.
#[allow(dead_code)]
#[path = "../../build.rs"]
mod build_script;

#[test]
fn the_build_knows_its_commit_or_says_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    // A source tree without git (a tarball): unknown, and no failure.
    let tarball = tmp.path().join("roost-0.1.0");
    std::fs::create_dir(&tarball).unwrap();
    assert_eq!(build_script::commit_of(&tarball), "unknown");
    // Unpacked inside some other repository: still unknown, not that repository's.
    let git = |dir: &std::path::Path, args: &[&str]| {
        Command::new("git").arg("-C").arg(dir).args(args).output()
    };
    if git(tmp.path(), &["init", "-q"]).is_ok_and(|o| o.status.success()) {
        assert_eq!(build_script::commit_of(&tarball), "unknown");
    }
    // This checkout: its HEAD, when it is a git checkout.
    let head = git(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        &["rev-parse", "--short=12", "HEAD"],
    )
    .ok()
    .filter(|o| o.status.success())
    .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string())
    .unwrap_or_else(|| "unknown".into());
    assert_eq!(
        build_script::commit_of(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))),
        head
    );
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let text = stdout(&roost().arg("--version").output().unwrap());
    let git = Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "rev-parse",
            "--short=12",
            "HEAD",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string());
    let commit = std::env::var("ROOST_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or(git)
        .unwrap_or_else(|| "unknown".into());
    assert_eq!(
        text,
        format!("roost {} (commit {commit})\n", env!("CARGO_PKG_VERSION"))
    );
}

/// Every argument of every command, with the path of commands it belongs to.
fn every_argument(command: &clap::Command, path: &str, out: &mut Vec<(String, clap::Arg)>) {
    for arg in command.get_arguments() {
        out.push((path.to_string(), arg.clone()));
    }
    for sub in command.get_subcommands() {
        every_argument(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

#[test]
fn every_command_and_argument_is_described_in_help() {
    let root = roost::cli::Cli::command();
    let mut undescribed = Vec::new();
    let mut args = Vec::new();
    every_argument(&root, "roost", &mut args);
    for (path, arg) in &args {
        if arg.is_hide_set() {
            continue;
        }
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        if help.trim().is_empty() {
            undescribed.push(format!("{path} {}", arg.get_id()));
        }
    }
    fn commands(command: &clap::Command, path: &str, undescribed: &mut Vec<String>) {
        for sub in command.get_subcommands() {
            let path = format!("{path} {}", sub.get_name());
            if sub
                .get_about()
                .is_none_or(|a| a.to_string().trim().is_empty())
            {
                undescribed.push(path.clone());
            }
            commands(sub, &path, undescribed);
        }
    }
    commands(&root, "roost", &mut undescribed);
    assert!(undescribed.is_empty(), "no help text: {undescribed:#?}");
    assert!(args.len() > 60, "{}", args.len());
    // And `--help` shows them, with the exit statuses.
    let help = stdout(&roost().args(["serve", "--help"]).output().unwrap());
    assert!(
        help.contains("--site <SITE>") && help.contains("The tree"),
        "{help}"
    );
    let help = stdout(&roost().arg("--help").output().unwrap());
    assert!(
        help.contains("Exit status: 0 done; 1 problems found"),
        "{help}"
    );
}

#[test]
fn completions_are_valid_shell_scripts() {
    let bash = stdout(&roost().args(["completions", "bash"]).output().unwrap());
    assert!(bash.contains("complete -F _roost"), "{bash}");
    for command in ["serve", "keys", "generate", "--allow-empty"] {
        assert!(bash.contains(command), "{command}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("roost.bash");
    std::fs::write(&script, &bash).unwrap();
    let checked = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let zsh = stdout(&roost().args(["completions", "zsh"]).output().unwrap());
    assert!(zsh.starts_with("#compdef roost"), "{zsh}");
    let fish = stdout(&roost().args(["completions", "fish"]).output().unwrap());
    assert!(fish.contains("complete -c roost"), "{fish}");
    let out = roost().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn manual_pages() {
    let page = stdout(&roost().arg("man").output().unwrap());
    assert!(page.contains(".TH roost 1"), "{page}");
    assert!(
        page.contains("completions") && page.contains("serve"),
        "{page}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man1");
    stdout(&roost().args(["man", "--out"]).arg(&dir).output().unwrap());
    for name in [
        "roost.1",
        "roost-serve.1",
        "roost-db-import.1",
        "roost-keys-list.1",
    ] {
        let text =
            std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{name}");
    }
    let serve = std::fs::read_to_string(dir.join("roost-serve.1")).unwrap();
    assert!(serve.contains("sample"), "{serve}");
}

#[test]
fn credentials_list_as_json() {
    let tmp = tempfile::tempdir().unwrap();
    let auth_db = tmp.path().join("auth.db");
    let created = stdout(&roost_auth(&auth_db, &["keys", "create", "--name", "ci"]));
    let secret = created.lines().last().unwrap();
    stdout(&roost_auth(
        &auth_db,
        &["keys", "create", "--name", "old", "--expires-in-days", "3"],
    ));
    stdout(&roost_auth(&auth_db, &["keys", "revoke", "2"]));
    let text = stdout(&roost_auth(&auth_db, &["keys", "list", "--json"]));
    assert!(!text.contains(secret));
    let keys: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys = keys.as_array().unwrap();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0]["id"], 1);
    assert_eq!(keys[0]["name"], "ci");
    assert_eq!(keys[0]["status"], "active");
    assert_eq!(keys[0]["expires_at"], serde_json::Value::Null);
    assert_eq!(keys[1]["status"], "revoked");
    assert!(keys[1]["revoked_at"].is_string() && keys[1]["expires_at"].is_string());
    let sessions = stdout(&roost_auth(&auth_db, &["sessions", "list", "--json"]));
    assert_eq!(sessions, "[]\n");
}

#[test]
fn db_check_exits_1_for_problems_and_2_when_it_cannot_run() {
    let Sample { dir: tmp, db } = Sample::new();
    let check = |db: &std::path::Path, json: bool| {
        let mut command = roost();
        command.args(["db", "check", "--db"]).arg(db);
        if json {
            command.arg("--json");
        }
        command.output().unwrap()
    };
    let clean: serde_json::Value = serde_json::from_str(&stdout(&check(&db, true))).unwrap();
    assert_eq!(clean["ok"], true);
    assert_eq!(clean["problems"], serde_json::json!([]));
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "PRAGMA ignore_check_constraints = ON;
             UPDATE projects SET level = 'legendary' WHERE id = 1;",
        )
        .unwrap();
    let out = check(&db, true);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert!(
        report["problems"][0]
            .as_str()
            .unwrap()
            .contains("bad enum value: projects level"),
        "{report}"
    );
    assert_eq!(check(&db, false).status.code(), Some(1));
    // Could not run: no dataset, or not a dataset.
    let missing = check(&tmp.path().join("missing.db"), false);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("missing.db"));
    let junk = tmp.path().join("junk.db");
    std::fs::write(&junk, "not a database").unwrap();
    assert_eq!(check(&junk, true).status.code(), Some(2));
    // A usage error.
    let usage = roost()
        .args(["db", "check", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}
