//! The README's shell examples as a reader pastes them: URLs with a query string
//! quoted, `cargo test`'s needs stated, and the GraphQL example run as written
//! against `roost serve --env production` (its `$TOKEN` and `$CSRF` set by the
//! example itself).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The lines of the README's ```sh blocks.
fn shell_lines(text: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let fence = line.trim_start();
        if fence.starts_with("```") {
            inside = !inside && fence.trim_start_matches('`').trim() == "sh";
            continue;
        }
        if inside {
            out.push(line.to_string());
        }
    }
    out
}

#[test]
fn urls_with_a_query_string_are_quoted() {
    let lines = shell_lines(&readme());
    assert!(lines.len() > 20, "{}", lines.len());
    for line in &lines {
        let code = line.split(" # ").next().unwrap();
        for word in code.split_whitespace() {
            if word.contains("://") && word.contains('?') {
                assert!(
                    word.starts_with(['\'', '"']) || word.starts_with("\"$"),
                    "unquoted URL with a query string: {line}"
                );
            }
        }
    }
    let text = readme();
    let tests = text
        .find("cargo test` needs")
        .expect("what cargo test needs");
    assert!(text[tests..tests + 300].contains("redis-server"));
}

/// A child process, killed and reaped when dropped.
struct Killed(std::process::Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_graphql_example_runs_as_pasted() {
    let text = readme();
    let start = text
        .find("# with `roost serve --env production` running")
        .expect("the GraphQL example");
    let example = &text[start..start + text[start..].find("```").unwrap()];
    for var in ["TOKEN", "CSRF"] {
        let set = example
            .find(&format!("{var}=$("))
            .unwrap_or_else(|| panic!("{var} set"));
        let used = example.find(&format!("${var}")).unwrap();
        assert!(set < used, "{var} is set before it is used");
    }

    let tmp = tempfile::tempdir().unwrap();
    let mut child = roost()
        .current_dir(tmp.path())
        .args([
            "serve",
            "--env",
            "production",
            "--sample",
            "--listen",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = BufReader::new(child.stderr.take().unwrap());
    let _server = Killed(child);
    // Read on, so the server never writes into a closed pipe.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in log.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut addr = None;
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        let line: serde_json::Value = serde_json::from_str(&line).unwrap();
        if line["environment"].is_string() {
            addr = line["url"]
                .as_str()
                .and_then(|u| u.strip_prefix("http://"))
                .map(str::to_string);
            break;
        }
    }
    let addr = addr.expect("a 'listening on' line");

    // `roost` on PATH, in the folder `serve` runs in (its data/auth.db).
    let bin = Path::new(env!("CARGO_BIN_EXE_roost")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = Command::new("bash")
        .arg("-euo")
        .arg("pipefail")
        .arg("-c")
        .arg(example.replace("127.0.0.1:8000", &addr))
        .current_dir(tmp.path())
        .env("PATH", path)
        .output()
        .unwrap();
    let body = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{body}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let answer: serde_json::Value =
        serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert!(answer["errors"].is_null(), "{answer}");
    assert!(
        answer["data"]["statsOverview"]["activeChaptersStats"]
            .as_u64()
            .unwrap()
            > 0
    );
}
