//! A throwaway PostgreSQL server for the tests that read the original service's
//! database (`roost db import postgresql://…`): Debian's server (the highest version
//! under `/usr/lib/postgresql/*/bin`), a cluster in a temporary folder, listening on
//! a free loopback port only (its Unix socket inside that folder), trust
//! authentication for the user `roost`, fsync off. `initdb` refuses to run as root,
//! so as root the cluster belongs to `nobody` and the server programs run through
//! `runuser -u nobody --`. Dropping it stops the server (`pg_ctl stop -m immediate`)
//! and removes the folder. `deploy/original-to-cdn.sh` starts its server the same way.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The unprivileged user the server runs as when the tests run as root.
const UNPRIVILEGED: &str = "nobody";

/// The cluster's superuser (trust authentication).
const USER: &str = "roost";

/// A role that must give a password ([`Postgres::password_role`]).
pub const PASSWORD_ROLE: &str = "reader";

pub struct Postgres {
    bin: PathBuf,
    port: u16,
    data: PathBuf,
    /// Runs as `nobody` (`runuser`) when the tests run as root.
    unprivileged: bool,
    server: Option<Child>,
    /// Removed on drop, after the server has stopped.
    dir: tempfile::TempDir,
}

impl Postgres {
    /// Starts a server in a temporary folder of its own and waits until it accepts
    /// connections; fails (never skips) when Debian's PostgreSQL is not installed.
    pub fn start() -> Postgres {
        let bin = server_bin();
        let dir = tempfile::Builder::new()
            .prefix("roost-pg")
            .tempdir()
            .unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(dir.path().join("socket")).unwrap();
        let unprivileged = running_as_root();
        if unprivileged {
            let status = Command::new("chown")
                .args(["-R", UNPRIVILEGED])
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(
                status.success(),
                "chown {UNPRIVILEGED} {}",
                dir.path().display()
            );
        }
        let mut pg = Postgres {
            bin,
            port: 0,
            data,
            unprivileged,
            server: None,
            dir,
        };
        pg.initdb();
        // A port found free may be taken before the server binds it: try another.
        for _ in 0..5 {
            pg.port = free_port();
            if pg.spawn_server() {
                return pg;
            }
        }
        panic!(
            "PostgreSQL did not start on a free port; its log:\n{}",
            pg.log()
        );
    }

    /// The connection URL of database `db` (no password: trust authentication).
    pub fn url(&self, db: &str) -> String {
        format!("postgresql://{USER}@127.0.0.1:{}/{db}", self.port)
    }

    /// The server's folder (cluster, socket, log), removed on drop.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Creates an empty database.
    pub fn create_db(&self, name: &str) {
        let output = self
            .client("createdb")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER])
            .arg(name)
            .output()
            .unwrap();
        check("createdb", &output);
    }

    /// Runs `sql` (any number of statements, stopping at the first error) in database
    /// `db` through psql; returns its output, unaligned, tuples only (`SELECT 1` gives
    /// `"1\n"`). Panics with psql's stderr when it fails.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let mut child = self
            .client("psql")
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d"])
            .arg(self.url(db))
            .args(["-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(sql.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        check(&format!("psql {db}: {sql}"), &output);
        String::from_utf8(output.stdout).unwrap()
    }

    /// A client program of the server's version, with no connection settings read
    /// from the environment (`PGHOST`, `PGPASSWORD`, …).
    fn client(&self, program: &str) -> Command {
        let mut command = Command::new(self.bin.join(program));
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("PG") {
                command.env_remove(name);
            }
        }
        command
    }

    /// A server program, run as `nobody` when the tests run as root, from the
    /// server's folder (which that user can read).
    fn server_program(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        let mut command = if self.unprivileged {
            let mut c = Command::new("runuser");
            c.args(["-u", UNPRIVILEGED, "--"]).arg(path);
            c
        } else {
            Command::new(path)
        };
        command.current_dir(self.dir.path());
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("PG") {
                command.env_remove(name);
            }
        }
        command
    }

    fn initdb(&self) {
        let output = self
            .server_program("initdb")
            .arg("-D")
            .arg(&self.data)
            .args(["-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C"])
            .arg("--no-sync")
            .output()
            .unwrap_or_else(|e| panic!("initdb could not be run ({e})"));
        check("initdb", &output);
        // The role `PASSWORD_ROLE` signs in with a password over TCP (the first rule
        // that matches wins); every other role is trusted.
        let hba = self.data.join("pg_hba.conf");
        let rules = std::fs::read_to_string(&hba).unwrap();
        std::fs::write(
            &hba,
            format!("host all {PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256\n{rules}"),
        )
        .unwrap();
    }

    /// Creates the role [`PASSWORD_ROLE`] with `password`, allowed to read every table
    /// of database `db`; returns the URL of `db` for it, without the password.
    pub fn password_role(&self, db: &str, password: &str) -> String {
        self.psql(
            db,
            &format!(
                "CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{password}'; \
                 GRANT SELECT ON ALL TABLES IN SCHEMA public TO {PASSWORD_ROLE};"
            ),
        );
        format!("postgresql://{PASSWORD_ROLE}@127.0.0.1:{}/{db}", self.port)
    }

    /// Starts the server on `self.port`; false when it exits before it accepts
    /// connections because the port was taken.
    fn spawn_server(&mut self) -> bool {
        let log = std::fs::File::create(self.log_path()).unwrap();
        let mut child = self
            .server_program("postgres")
            .arg("-D")
            .arg(&self.data)
            .args(["-p", &self.port.to_string()])
            .args(["-c", "listen_addresses=127.0.0.1"])
            .arg("-c")
            .arg(format!(
                "unix_socket_directories={}",
                self.dir.path().join("socket").display()
            ))
            .args(["-c", "fsync=off", "-c", "synchronous_commit=off"])
            .args(["-c", "full_page_writes=off"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if let Some(status) = child.try_wait().unwrap() {
                let log = self.log();
                if log.contains("could not bind") || log.contains("could not create any TCP") {
                    return false;
                }
                panic!(
                    "PostgreSQL exited ({status}) before it accepted connections; its log:\n{log}"
                );
            }
            let ready = self
                .client("pg_isready")
                .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string()])
                .args(["-U", USER, "-d", "postgres"])
                .status()
                .unwrap();
            if ready.success() {
                self.server = Some(child);
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "PostgreSQL did not accept connections on 127.0.0.1:{} within 60 s; its log:\n{}",
            self.port,
            self.log()
        );
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let Some(mut server) = self.server.take() else {
            return;
        };
        let stopped = self
            .server_program("pg_ctl")
            .args(["stop", "-m", "immediate", "-w", "-D"])
            .arg(&self.data)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !stopped {
            let _ = server.kill();
        }
        let _ = server.wait();
    }
}

/// The `bin` folder of the highest PostgreSQL version Debian installed.
fn server_bin() -> PathBuf {
    let root = Path::new("/usr/lib/postgresql");
    let version = |name: &str| -> Vec<u32> {
        name.split('.')
            .map(|part| part.parse().unwrap_or(0))
            .collect()
    };
    let found = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().join("bin/initdb").is_file())
        .max_by_key(|entry| version(&entry.file_name().to_string_lossy()));
    match found {
        Some(entry) => entry.path().join("bin"),
        None => panic!(
            "no PostgreSQL server in /usr/lib/postgresql/*/bin (initdb, postgres); \
             these tests need Debian's PostgreSQL: apt-get install postgresql"
        ),
    }
}

fn running_as_root() -> bool {
    let output = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&output.stdout).trim() == "0"
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[track_caller]
fn check(what: &str, output: &Output) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
