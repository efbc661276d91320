//! The fixtures every part of the suite shares: the embedded sample as a dataset in a
//! temporary folder, its tree rendered for one `TODAY` (built once per run where tests
//! only read it), the `roost` binary with a clean environment, and SQL and JSON helpers
//! that read expected values independently of roost. `http` drives routers in-process
//! (`tower::ServiceExt::oneshot`, no port) and over sockets; `graphql` serves the
//! GraphQL routes over a dataset.

pub mod graphql;
mod http;
pub mod postgres;
mod serving;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use roost::config::Env;
use roost::shim::App;
use roost::shim::{self, AppState, ShimConfig};
use rusqlite::Connection;
use serde_json::{json, Value};

pub use http::*;
pub use serving::Serving;

/// The day the tree's `is_upcoming` files are rendered for, and every answer's "today".
pub const TODAY: &str = "2026-11-22";

/// The embedded sample as a dataset (`roost.db`) in a temporary folder of its own.
pub struct Sample {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
}

impl Sample {
    pub fn new() -> Sample {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roost.db");
        roost::store::init_db(&db, false, roost::idx::build).unwrap();
        Sample { dir, db }
    }

    /// A read connection to the dataset, as roost opens it.
    pub fn conn(&self) -> Connection {
        roost::store::open_read(&self.db).unwrap()
    }
}

/// The sample's interchange records, for computing expectations independently.
pub fn dataset() -> roost::records::Dataset {
    roost::store::sample_dataset().unwrap()
}

/// Writes the embedded sample into `dir` as JSON Lines, applying `edit` to the lines
/// of `file`.
pub fn write_sample(dir: &Path, file: &str, edit: impl FnOnce(&mut Vec<String>)) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in roost::store::SAMPLE {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let path = dir.join(file);
    let mut lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    edit(&mut lines);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

/// Options of a generation of `db` into `out` for `TODAY`, two workers, no
/// precompressed siblings.
pub fn generate_options(db: &Path, out: &Path) -> roost::generate::Options {
    roost::generate::Options {
        db: db.to_path_buf(),
        out: out.to_path_buf(),
        jobs: Some(2),
        precompress: roost::generate::Precompress::NONE,
        today: TODAY.to_string(),
        progress: false,
        public_url: None,
        wait: false,
        manifest_json: true,
    }
}

/// Renders the tree of `db` into `site`, with `.gz` and `.br` siblings when
/// `precompress`.
pub fn generate(db: &Path, site: &Path, precompress: bool) {
    roost::generate::generate(&roost::generate::Options {
        precompress: if precompress {
            roost::generate::Precompress::ALL
        } else {
            roost::generate::Precompress::NONE
        },
        ..generate_options(db, site)
    })
    .unwrap();
}

/// The sample and its generated tree in a temporary folder, with the path of an
/// auth.db beside them: what the shim serves.
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub db: PathBuf,
    pub site: PathBuf,
    pub auth_db: PathBuf,
}

impl Fixture {
    /// A fresh dataset and tree in their own folder.
    pub fn new(precompress: bool) -> Fixture {
        let Sample { dir, db } = Sample::new();
        let site = dir.path().join("site");
        generate(&db, &site, precompress);
        Fixture {
            auth_db: dir.path().join("auth.db"),
            _dir: dir,
            db,
            site,
        }
    }

    /// An app over this fixture; `tweak` adjusts the config.
    pub fn app(&self, env: Env, tweak: impl FnOnce(&mut ShimConfig)) -> App {
        shim::app(self.state(env, tweak))
    }

    pub fn state(&self, env: Env, tweak: impl FnOnce(&mut ShimConfig)) -> AppState {
        shim_state(env, &self.db, &self.site, &self.auth_db, tweak)
    }

    /// A file of the live tree.
    pub fn file(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.site.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }
}

/// The shim's state over a dataset and its tree, answering for `TODAY`; `tweak`
/// adjusts the config.
pub fn shim_state(
    env: Env,
    db: &Path,
    site: &Path,
    auth_db: &Path,
    tweak: impl FnOnce(&mut ShimConfig),
) -> AppState {
    let mut config = ShimConfig::new(env, db, Some(site), auth_db);
    config.today = Some(TODAY.to_string());
    tweak(&mut config);
    AppState::new(config).unwrap()
}

/// Every file of a tree (read through its `site` symlink) by path relative to it.
pub fn tree_files(site: &Path) -> BTreeMap<String, Vec<u8>> {
    let root = std::fs::canonicalize(site).unwrap();
    walkdir::WalkDir::new(&root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(&root).unwrap();
            (
                rel.to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// One fixture for the whole run (read-only use only).
pub fn shared() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| Fixture::new(false))
}

/// An app over the shared fixture in the local environment.
pub fn local() -> App {
    shared().app(Env::Local, |_| {})
}

/// One precompressed fixture for the whole run (read-only use only).
pub fn shared_precompressed() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| Fixture::new(true))
}

/// The 401 body's text of a request without a valid API key.
pub const UNAUTHORIZED: &str = "Missing or invalid API key in 'X-API-Key' header";

/// The shared tree served with an auth.db of its own, for tests that write
/// credentials.
pub struct Keyed {
    _dir: tempfile::TempDir,
    pub auth_db: PathBuf,
}

impl Keyed {
    pub fn new() -> Keyed {
        let dir = tempfile::tempdir().unwrap();
        Keyed {
            auth_db: dir.path().join("auth.db"),
            _dir: dir,
        }
    }

    /// An app over the shared tree and this auth.db; `tweak` adjusts the config.
    pub fn app(&self, env: Env, tweak: impl FnOnce(&mut ShimConfig)) -> App {
        shared().app(env, |c| {
            c.auth_db = self.auth_db.clone();
            tweak(c)
        })
    }

    /// A new API key made now: (id, key).
    pub fn key(&self, name: &str, expires_in_days: Option<u32>) -> (i64, String) {
        credential(
            &self.auth_db,
            roost::credentials::Kind::Key,
            name,
            expires_in_days,
            chrono::Utc::now(),
        )
    }
}

/// A new credential of `kind` in `auth_db`, made at `now`: (id, secret).
pub fn credential(
    auth_db: &Path,
    kind: roost::credentials::Kind,
    name: &str,
    expires_in_days: Option<u32>,
    now: chrono::DateTime<chrono::Utc>,
) -> (i64, String) {
    use roost::credentials;
    let conn = credentials::open(auth_db).unwrap();
    let issued = credentials::create(&conn, kind, name, expires_in_days, now).unwrap();
    (issued.id, issued.secret)
}

/// The `roost` binary with none of its settings inherited from the environment
/// (`ROOST_*`, `RUST_LOG`): what a test passes is all it reads.
pub fn roost() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_roost"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("ROOST_") || name == "RUST_LOG" {
            command.env_remove(name);
        }
    }
    command
}

/// Runs `roost ARGS --auth-db AUTH_DB` (the `keys` and `sessions` commands).
pub fn roost_auth(auth_db: &Path, args: &[&str]) -> Output {
    roost()
        .args(args)
        .arg("--auth-db")
        .arg(auth_db)
        .output()
        .unwrap()
}

/// The standard output of a run that must have succeeded.
#[track_caller]
pub fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// `a=1&b=x+y` → pairs, decoded like a query string.
pub fn pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let dec = |s: &str| {
                percent_encoding::percent_decode_str(&s.replace('+', " "))
                    .decode_utf8()
                    .unwrap()
                    .into_owned()
            };
            (dec(k), dec(v))
        })
        .collect()
}

/// A timestamp column as the API formats it.
pub fn ts(micros: i64) -> String {
    roost::records::Ts(micros).format()
}

/// Every row of a query, each row's columns as JSON values.
pub fn rows(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> Vec<Vec<Value>> {
    let mut st = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let n = st.column_count();
    let rows = st
        .query_map(params, |r| {
            (0..n)
                .map(|i| {
                    Ok(match r.get_ref(i)? {
                        rusqlite::types::ValueRef::Null => Value::Null,
                        rusqlite::types::ValueRef::Integer(v) => json!(v),
                        rusqlite::types::ValueRef::Real(v) => json!(v),
                        rusqlite::types::ValueRef::Text(t) => {
                            json!(String::from_utf8_lossy(t).into_owned())
                        }
                        rusqlite::types::ValueRef::Blob(_) => Value::Null,
                    })
                })
                .collect()
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// The first column of every row, as strings.
pub fn strings(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> Vec<String> {
    rows(conn, sql, params)
        .into_iter()
        .map(|r| text(&r[0]))
        .collect()
}

/// A single integer.
pub fn int(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> i64 {
    conn.query_row(sql, params, |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// A list of JSON values: a JSON array, or values collected in a slice.
pub trait List {
    fn values(&self) -> &[Value];
}

impl List for Value {
    fn values(&self) -> &[Value] {
        self.as_array()
            .unwrap_or_else(|| panic!("not a list: {self}"))
    }
}

impl List for Vec<Value> {
    fn values(&self) -> &[Value] {
        self
    }
}

/// The values of `field` in a list of objects: strings as they are, other values as
/// JSON.
pub fn pluck(list: &impl List, field: &str) -> Vec<String> {
    list.values()
        .iter()
        .map(|item| text(&item[field]))
        .collect()
}

/// A string as it is, any other value as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn gunzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

pub fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    brotli::Decompressor::new(bytes, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Row count and content hash of every table (rows in a total order: by every column),
/// so two datasets compare by content rather than by file bytes.
pub fn table_digests(db: &Path) -> Vec<(String, usize, String)> {
    use sha2::{Digest, Sha256};
    let conn = Connection::open(db).unwrap();
    let tables: Vec<String> = {
        let mut st = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite_%' ORDER BY name",
            )
            .unwrap();
        let rows = st.query_map([], |r| r.get(0)).unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    };
    tables
        .into_iter()
        .map(|table| {
            let columns: i64 = conn
                .query_row(
                    &format!("SELECT COUNT(*) FROM pragma_table_info('{table}')"),
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            let columns = columns as usize;
            let order: Vec<String> = (1..=columns).map(|i| i.to_string()).collect();
            let sql = format!("SELECT * FROM {table} ORDER BY {}", order.join(", "));
            let mut st = conn.prepare(&sql).unwrap();
            let mut rows = st.query([]).unwrap();
            let mut hash = Sha256::new();
            let mut count = 0;
            while let Some(row) = rows.next().unwrap() {
                count += 1;
                for i in 0..columns {
                    let v: rusqlite::types::Value = row.get(i).unwrap();
                    hash.update(format!("{v:?}\u{1f}").as_bytes());
                }
                hash.update(b"\x1e");
            }
            (table, count, hex::encode(hash.finalize()))
        })
        .collect()
}
