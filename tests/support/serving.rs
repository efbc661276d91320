//! `roost serve` as a process on a loopback port, over the shared tree, with its log
//! read from stderr as an operator reads it. Tests of the log use this rather than a
//! subscriber inside the test process: what they check is what the binary prints.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{roost, shared};

/// A running `roost serve`, killed and reaped when dropped.
pub struct Serving {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    _dir: tempfile::TempDir,
}

impl Serving {
    /// `roost serve --env local` over the shared fixture, with `extra` arguments,
    /// once it says where it listens.
    pub fn start(extra: &[&str]) -> Serving {
        let fixture = shared();
        Serving::start_on(&fixture.db, &fixture.site, extra)
    }

    /// [`Serving::start`] over the dataset `db` and the tree `site`.
    pub fn start_on(db: &std::path::Path, site: &std::path::Path, extra: &[&str]) -> Serving {
        let dir = tempfile::tempdir().unwrap();
        let mut child = roost()
            .current_dir(dir.path())
            .args(["serve", "--env", "local", "--listen", "127.0.0.1:0"])
            .arg("--db")
            .arg(db)
            .arg("--site")
            .arg(site)
            .arg("--auth-db")
            .arg(dir.path().join("auth.db"))
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut serving = Serving {
            child,
            lines,
            addr: String::new(),
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        serving.addr = loop {
            let line = serving.next_line(deadline);
            if let Some(url) = line["url"].as_str() {
                break url.strip_prefix("http://").unwrap().to_string();
            }
        };
        serving
    }

    /// The next JSON line on stderr, before `deadline`.
    fn next_line(&self, deadline: Instant) -> Value {
        let line = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("roost serve printed no further line in time");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The next access log line (`target` `roost::access`), waiting up to 10 s.
    pub fn access_line(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let line = self.next_line(deadline);
            if line["target"] == "roost::access" {
                return line;
            }
        }
    }

    /// The access log lines printed within `wait` (none, when every request so far
    /// has had its line read).
    pub fn further_access_lines(&self, wait: Duration) -> Vec<Value> {
        let deadline = Instant::now() + wait;
        let mut lines = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            let line: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if line["target"] == "roost::access" {
                lines.push(line);
            }
        }
        lines
    }

    /// The next line on stderr that `pred` accepts, waiting up to 30 s.
    pub fn line_where(&self, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let line = self.next_line(deadline);
            if pred(&line) {
                return line;
            }
        }
    }

    /// Sends the process a signal (`TERM`, `INT`).
    pub fn signal(&self, name: &str) {
        let status = std::process::Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{name} failed");
    }

    /// Waits up to `within` for the process to exit; its status, or `None`.
    pub fn exit_within(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every line printed on stderr until it closes (the process has exited), or
    /// until `within` has passed.
    pub fn remaining_lines(&self, within: Duration) -> Vec<Value> {
        let deadline = Instant::now() + within;
        let mut lines = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            lines.push(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")));
        }
        lines
    }

    /// The URL of `/metrics` (started with `--metrics-listen`), from its start-up line.
    pub fn metrics_url(&self) -> String {
        self.line_where(|l| {
            l["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("metrics on "))
        })["url"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
