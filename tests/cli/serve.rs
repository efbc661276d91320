//! `roost serve` as a process: on a fresh folder in production with `--sample`
//! (dataset and tree created, keys, a replaced dataset and a regenerated tree picked
//! up without a restart, one log line per request, SIGTERM), and refused on a public
//! address when the environment needs no authentication.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::*;

/// `roost` in `dir`.
fn roost_in(dir: &Path) -> Command {
    let mut command = roost();
    command.current_dir(dir);
    command
}

/// The standard output of `roost ARGS` in `dir`, which must succeed.
fn run_in(dir: &Path, args: &[&str]) -> String {
    stdout(&roost_in(dir).args(args).output().unwrap())
}

/// A child process, killed and reaped when dropped.
struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roost_serve_on_a_fresh_folder_in_production() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut child = roost_in(dir)
        .args([
            "serve",
            "--env",
            "production",
            "--sample",
            "--listen",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let child_out = child.stdout.take().unwrap();
    let child_err = child.stderr.take().unwrap();
    let pid = child.id();
    let child = Killed(child);
    // Every line on stderr (start-up lines included) is a JSON log line; stdout
    // stays empty.
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(child_err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let stdout = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(child_out).read_to_string(&mut text);
        text
    });
    let mut printed: Vec<serde_json::Value> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(180);
    let next_line = |printed: &mut Vec<serde_json::Value>, until: Instant| {
        let line = rx
            .recv_timeout(until.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("no more lines; got {printed:?}"));
        let value: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        printed.push(value.clone());
        value
    };
    let addr = loop {
        let line = next_line(&mut printed, deadline);
        if let Some(url) = line["url"]
            .as_str()
            .filter(|_| line["environment"].is_string())
        {
            assert_eq!(line["target"], "roost::start");
            assert!(line["message"]
                .as_str()
                .unwrap()
                .starts_with("listening on http://"));
            assert!(line["version"].as_str().unwrap().contains("(commit "));
            break url.strip_prefix("http://").unwrap().to_string();
        }
    };
    next_line(&mut printed, Instant::now() + Duration::from_secs(5));
    let messages: Vec<&str> = printed
        .iter()
        .filter(|v| v["target"] == "roost::start")
        .map(|v| v["message"].as_str().unwrap())
        .collect();
    let all = messages.join("\n");
    assert!(
        all.contains("creating it from the embedded sample"),
        "{all}"
    );
    assert!(all.contains("generating the tree"), "{all}");
    assert!(all.contains("roost keys create --name NAME"), "{all}");
    let generated = printed
        .iter()
        .find(|v| v["message"].as_str().unwrap().starts_with("generated "))
        .unwrap();
    assert_eq!(
        generated["written"].as_u64().unwrap() + generated["unchanged"].as_u64().unwrap(),
        generated["files"].as_u64().unwrap() + generated["documents"].as_u64().unwrap()
    );
    assert!(dir.join("data/roost.db").is_file());
    assert!(dir.join("site/manifest.json").is_file());
    assert!(
        dir.join("data/auth.db").is_file(),
        "auth.db is created on start"
    );

    let base = format!("http://{addr}");
    let client = reqwest::Client::new();
    let r = client
        .get(format!("{base}/api/v0/chapters/"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["detail"], UNAUTHORIZED);
    assert_eq!(
        client
            .get(format!("{base}/api/v0/openapi.json"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );

    let out = run_in(dir, &["keys", "create", "--name", "e2e"]);
    let key = out.lines().last().unwrap().to_string();
    let get = |path: &str| {
        client
            .get(format!("{base}{path}"))
            .header("x-api-key", &key)
            .send()
    };
    let r = get("/api/v0/chapters/").await.unwrap();
    assert_eq!(r.status(), 200);
    let name = |v: serde_json::Value| v["name"].as_str().unwrap().to_string();
    let london = get("/api/v0/chapters/london")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(name(london), "London");

    // A replaced dataset is answered from at once (live answers) ...
    write_sample(&dir.join("changed"), "chapters.jsonl", |lines| {
        let london = lines
            .iter_mut()
            .find(|l| l.contains("\"name\": \"London\""))
            .unwrap();
        *london = london.replacen("\"name\": \"London\"", "\"name\": \"Londinium\"", 1);
    });
    run_in(dir, &["db", "import", "changed"]);
    let live: serde_json::Value = get("/api/v0/chapters/?page_size=50")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(live.to_string().contains("Londinium"), "{live}");
    // ... and a regenerated tree from the next request, without a restart.
    run_in(dir, &["generate"]);
    let london = get("/api/v0/chapters/london")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(name(london), "Londinium");

    // Revocation applies to the running server.
    run_in(dir, &["keys", "revoke", "1"]);
    assert_eq!(get("/api/v0/chapters/").await.unwrap().status(), 401);

    // SIGTERM: a clean exit.
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut child = child;
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(s) = child.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "roost serve did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
    assert_eq!(stdout.join().unwrap(), "", "the log is on stderr");
    let log: String = rx.iter().map(|l| l + "\n").collect();
    for line in log.lines() {
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "{line}"
        );
    }
    assert!(!log.contains(&key), "the key never reaches the log");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v["path"].is_string())
        .collect();
    assert_eq!(lines.len(), 7, "one line per request: {log}");
    let keyed = lines
        .iter()
        .find(|v| v["path"] == "/api/v0/chapters/london" && v["status"] == 200)
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(keyed["method"], "GET");
    assert_eq!(keyed["key_id"], 1);
    assert!(keyed["duration_ms"].is_number());
    let anonymous = lines.iter().find(|v| v["status"] == 401).unwrap();
    assert!(anonymous.get("key_id").is_none());
}

#[test]
fn an_unauthenticated_environment_is_refused_on_a_public_address() {
    let tmp = tempfile::tempdir().unwrap();
    for env in ["local", "e2e"] {
        let out = roost_in(tmp.path())
            .args(["serve", "--env", env, "--listen", "0.0.0.0:0"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--allow-unauthenticated-public"), "{err}");
        assert!(
            !tmp.path().join("data").exists(),
            "refused before creating anything"
        );
    }
}

#[test]
fn a_read_cache_out_of_range_is_refused_naming_the_flag() {
    let tmp = tempfile::tempdir().unwrap();
    for size in ["0", "4097", "lots"] {
        let out = roost_in(tmp.path())
            .args(["serve", "--read-cache-mb", size, "--listen", "127.0.0.1:0"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{size}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--read-cache-mb"), "{err}");
        assert!(
            !tmp.path().join("data").exists(),
            "refused before creating anything"
        );
    }
}

#[test]
fn the_log_is_text_for_people_when_asked() {
    let Sample { dir: tmp, db } = Sample::new();
    let site = tmp.path().join("site");
    generate(&db, &site, false);
    let mut child = roost()
        .args(["serve", "--env", "e2e", "--listen", "127.0.0.1:0"])
        .args(["--log-format", "text", "--db"])
        .arg(&db)
        .arg("--site")
        .arg(&site)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = BufReader::new(child.stderr.take().unwrap());
    let _child = Killed(child);
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in log.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(
        line.contains(" INFO roost::start: listening on http://127.0.0.1:"),
        "{line}"
    );
    assert!(serde_json::from_str::<serde_json::Value>(&line).is_err());

    let out = roost()
        .args(["serve", "--log-format", "xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("[possible values: json, text]"));
}
