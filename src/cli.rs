//! The `roost` command line (docs/architecture.md "Commands"): clap definitions, the
//! glue that calls the store, the generator and the shim, and the printing of the
//! credential commands (`roost keys`, `roost sessions`) over [`crate::credentials`].

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail};
use chrono::Utc;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};

use crate::config::{self, Env};
use crate::credentials::{self, CredentialError, Kind, Revoked};
use crate::shim::conn::ConnLimits;
use crate::shim::ShimConfig;
use crate::synth::Scale;
use crate::{generate, mirror, records, store};

#[derive(Debug, Parser)]
#[command(
    name = "roost",
    version,
    about = "roost: the public directory API (REST v0 tree, shim, GraphQL)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Manage the dataset (SQLite).
    #[command(subcommand)]
    Db(DbCommand),
    /// Render the whole REST v0 tree from the dataset.
    Generate(GenerateArgs),
    /// Serve the tree behind API keys and rate limits, plus /graphql/.
    Serve(ServeArgs),
    /// Manage REST API keys.
    #[command(subcommand)]
    Keys(CredentialCommand),
    /// Manage GraphQL sessions for the frontend.
    #[command(subcommand)]
    Sessions(CredentialCommand),
    /// Copy a published tree to a local folder, fetching only what changed.
    Mirror(MirrorArgs),
    /// Check a generated tree.
    #[command(subcommand)]
    Site(SiteCommand),
}

/// `roost site …`.
#[derive(Debug, Subcommand)]
pub enum SiteCommand {
    /// Check every file of the tree against its manifest (presence, size, SHA-256);
    /// exits non-zero naming the files that differ.
    Check {
        #[arg(long, env = "ROOST_SITE", default_value = "site")]
        site: PathBuf,
    },
}

/// `--wait`: of the commands that write one target at a time.
#[derive(Debug, Args, Clone)]
pub struct WaitArg {
    /// When another roost is writing the same target, wait for it to finish instead
    /// of exiting at once.
    #[arg(long)]
    pub wait: bool,
}

#[derive(Debug, Args, Clone)]
pub struct DbArg {
    /// The dataset file.
    #[arg(long, env = "ROOST_DB", default_value = "data/roost.db")]
    pub db: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Create the dataset from the sample shipped with roost (data/sample/).
    Init {
        #[command(flatten)]
        db: DbArg,
        /// Replace an existing dataset.
        #[arg(long)]
        force: bool,
    },
    /// Load a dataset from a folder of JSON Lines files, validated, all or nothing.
    Import {
        dir: PathBuf,
        #[command(flatten)]
        db: DbArg,
        #[command(flatten)]
        wait: WaitArg,
    },
    /// Write a deterministic synthetic dataset of realistic shape, for benchmarks.
    Synth {
        #[arg(long, value_parser = scale_parser())]
        scale: Scale,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        db: DbArg,
    },
    /// Integrity report; exits non-zero when there is a problem.
    Check {
        #[command(flatten)]
        db: DbArg,
    },
    /// Write the dataset out as JSON Lines files, the format `db import` reads.
    Export {
        dir: PathBuf,
        #[command(flatten)]
        db: DbArg,
        /// Replace what a non-empty DIR holds.
        #[arg(long)]
        force: bool,
        /// Only what the API shows (no inactive chapters, committees or projects,
        /// unpublished releases, snapshots not completed, hidden fields).
        #[arg(long)]
        public_only: bool,
        #[command(flatten)]
        wait: WaitArg,
    },
}

/// `--scale`: the names of [`Scale::ALL`], listed in `--help`.
fn scale_parser() -> impl TypedValueParser<Value = Scale> {
    PossibleValuesParser::new(Scale::ALL.map(Scale::as_str)).try_map(|s| s.parse::<Scale>())
}

/// `--env`: the names of [`Env::ALL`], listed in `--help`.
fn env_parser() -> impl TypedValueParser<Value = Env> {
    PossibleValuesParser::new(Env::ALL.map(Env::as_str)).try_map(|s| s.parse::<Env>())
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The live tree (a symlink to the current generation).
    #[arg(long, env = "ROOST_SITE", default_value = "site")]
    pub out: PathBuf,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Precompressed siblings of every file of 1 KiB or more: gzip (the default:
    /// .gz), gzip,br (also .br; what a bare --precompress asks for), or none.
    #[arg(
        long,
        value_name = "CODECS",
        num_args = 0..=1,
        require_equals = false,
        default_value = "gzip",
        default_missing_value = "gzip,br",
        value_parser = generate::Precompress::parse
    )]
    pub precompress: generate::Precompress,
    /// Write no precompressed siblings (--precompress none).
    #[arg(long, conflicts_with = "precompress")]
    pub no_precompress: bool,
    /// Render the is_upcoming files as of this UTC date (default: today).
    #[arg(long, hide = true)]
    pub today: Option<String>,
    /// Public base URL (e.g. https://api.example.org) for absolute links in the tree
    /// (the root's docs_url); without it they are host-relative paths.
    #[arg(long, env = "ROOST_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Also publish the dataset, gzip-compressed, under dataset/ in the tree.
    #[arg(long)]
    pub with_dataset: bool,
    /// With --with-dataset: only what the API shows.
    #[arg(long, requires = "with_dataset")]
    pub public_only: bool,
    #[command(flatten)]
    pub wait: WaitArg,
}

#[derive(Debug, Args)]
pub struct MirrorArgs {
    /// The URL of the published site folder (where manifest.json is), http:// or
    /// https://.
    pub url: String,
    /// The mirror's folder: DIR/site is the copy (and DIR/roost.db the dataset).
    #[arg(long)]
    pub out: PathBuf,
    /// Also fetch the published dataset and import it into DIR/roost.db, so
    /// `roost serve --site DIR/site --db DIR/roost.db` answers everything.
    #[arg(long)]
    pub with_dataset: bool,
    /// Files fetched at a time.
    #[arg(long, default_value_t = 8, value_parser = at_least_one)]
    pub jobs: usize,
    #[command(flatten)]
    pub wait: WaitArg,
}

#[derive(Debug, Args, Clone)]
pub struct AuthDbArg {
    /// API keys and sessions (separate from the dataset).
    #[arg(long, env = "ROOST_AUTH_DB", default_value = "data/auth.db")]
    pub auth_db: PathBuf,
}

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long, env = "ROOST_SITE", default_value = "site")]
    pub site: PathBuf,
    #[command(flatten)]
    pub auth: AuthDbArg,
    #[arg(long, env = "ROOST_LISTEN", default_value = "127.0.0.1:8000")]
    pub listen: String,
    #[arg(long, env = "ROOST_ENV", value_parser = env_parser(), default_value = "local")]
    pub env: Env,
    /// Requests per second per API key (production and staging).
    #[arg(long, env = "ROOST_RATE_LIMIT", default_value_t = 10)]
    pub rate_limit: u32,
    /// Requests without a valid API key per second per client address (production
    /// and staging; burst as large): they are 401, and 429 past this budget. A valid
    /// key is served whatever its address sends. 0 = no budget.
    #[arg(long, env = "ROOST_FAILED_AUTH_RATE", default_value_t = crate::shim::FAILED_AUTH_RATE)]
    pub failed_auth_rate: u32,
    /// GraphQL requests per second per session (production and staging) or per client
    /// address (local and e2e), burst as large; more are 429. 0 = no limit.
    #[arg(long, env = "ROOST_GRAPHQL_RATE_LIMIT", default_value_t = 20)]
    pub graphql_rate_limit: u32,
    /// Serve local/e2e (no auth) on a non-loopback address anyway.
    #[arg(long)]
    pub allow_unauthenticated_public: bool,
    /// Public base URL of the API for openapi.json servers and the docs page.
    #[arg(long, env = "ROOST_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Origins allowed by CORS (repeatable; `*` for any).
    #[arg(
        long = "cors-origin",
        env = "ROOST_CORS_ORIGINS",
        value_delimiter = ','
    )]
    pub cors_origins: Vec<String>,
    /// Seconds a client has to send a whole request head (a new connection's or the
    /// next one on a kept-alive connection) before it is disconnected.
    #[arg(long, env = "ROOST_HEADER_TIMEOUT", default_value_t = 10.0, value_parser = seconds)]
    pub header_timeout: f64,
    /// Seconds a connection with no request in progress may stay silent.
    #[arg(long, env = "ROOST_IDLE_TIMEOUT", default_value_t = 60.0, value_parser = seconds)]
    pub idle_timeout: f64,
    /// Open connections at most (default: the file-descriptor limit less 64, at
    /// most 10,000); more are closed at once.
    #[arg(long, env = "ROOST_MAX_CONNECTIONS", value_parser = at_least_one)]
    pub max_connections: Option<usize>,
    /// Open connections at most from one client address; more are closed at once.
    #[arg(
        long,
        env = "ROOST_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 64,
        value_parser = at_least_one
    )]
    pub max_connections_per_address: usize,
    /// Keep the rate limits (per key, failed auth per address, GraphQL per session)
    /// in this Redis server, shared by every shim pointed at it
    /// (`redis://host:port/db`). While it does not answer, each shim limits on its own.
    #[arg(long, env = "ROOST_REDIS_URL")]
    pub redis: Option<String>,
    /// Milliseconds a limit check waits for Redis before answering from the process.
    #[arg(long, env = "ROOST_REDIS_TIMEOUT_MS", default_value_t = 250, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub redis_timeout_ms: u64,
    /// A proxy (CIDR or address) whose `Forwarded` / `X-Forwarded-For` headers name
    /// the client (repeatable); the rightmost address that is not a trusted proxy is
    /// the client. Headers from any other peer are ignored.
    #[arg(
        long = "trusted-proxy",
        env = "ROOST_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<String>,
    /// Serve Prometheus metrics at http://ADDR/metrics (a listener of its own; off by
    /// default, keep it private).
    #[arg(long, env = "ROOST_METRICS_LISTEN")]
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Megabytes of live answers (pages and records answered from the dataset, not
    /// the tree) kept in memory until the dataset file is replaced; 0 = off.
    #[arg(long, env = "ROOST_LIVE_CACHE_MB", default_value_t = 32, value_parser = clap::value_parser!(u64).range(0..=65_536))]
    pub live_cache_mb: u64,
}

/// A count of at least 1.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{s}': expected a whole number of at least 1")),
    }
}

/// A positive number of seconds, at most a day.
fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of seconds"))?;
    if !(v > 0.0 && v <= 86_400.0) {
        return Err(format!(
            "{s}: expected more than 0 and at most 86400 seconds"
        ));
    }
    Ok(v)
}

/// `roost keys …` and `roost sessions …`: the same commands over the two kinds of
/// credential (REST API keys, GraphQL sessions).
#[derive(Debug, Subcommand)]
pub enum CredentialCommand {
    /// Create one; its secret (the API key or the session token) is printed alone on
    /// the last line, once.
    Create {
        #[arg(long)]
        name: String,
        /// Days until it expires, 1 to 36500 (default: never).
        #[arg(long)]
        expires_in_days: Option<u32>,
        #[command(flatten)]
        auth: AuthDbArg,
    },
    /// List them (never the secret).
    List {
        #[command(flatten)]
        auth: AuthDbArg,
    },
    /// Revoke one by id; it is refused from the next request on.
    Revoke {
        id: i64,
        #[command(flatten)]
        auth: AuthDbArg,
    },
}

pub fn generate_options(args: &GenerateArgs) -> anyhow::Result<generate::Options> {
    let today = match &args.today {
        Some(d) => {
            records::Date::parse(d)
                .map_err(|e| anyhow!("--today: {e}"))?
                .0
        }
        None => config::today(),
    };
    if args.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    Ok(generate::Options {
        db: args.db.db.clone(),
        out: args.out.clone(),
        jobs: args.jobs,
        precompress: if args.no_precompress {
            generate::Precompress::NONE
        } else {
            args.precompress
        },
        today,
        progress: std::io::stderr().is_terminal(),
        public_url: args
            .public_url
            .as_ref()
            .map(|u| u.trim_end_matches('/').to_string()),
        wait: args.wait.wait,
    })
}

/// Runs the command line; the process exit code.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Db(DbCommand::Init { db, force }) => {
            store::init_db(&db.db, force)?;
            println!("created {} from the embedded sample", db.db.display());
        }
        Command::Db(DbCommand::Import { dir, db, wait }) => {
            let lock = crate::lock::beside_file(&db.db)?;
            let _lock = crate::lock::exclusive(&lock, "db import", &db.db, wait.wait)?;
            store::import_dir(&dir, &db.db)?;
            println!("imported {} into {}", dir.display(), db.db.display());
        }
        Command::Db(DbCommand::Synth { scale, seed, db }) => {
            crate::synth::synth(scale, seed, &db.db)?;
            println!(
                "wrote a synthetic {} dataset (seed {seed}) to {}",
                scale.as_str(),
                db.db.display()
            );
        }
        Command::Db(DbCommand::Check { db }) => {
            let problems = store::check(&db.db)?;
            if problems.is_empty() {
                println!("{}: no problems found", db.db.display());
            } else {
                for p in &problems {
                    println!("{p}");
                }
                eprintln!("{} problem(s) found in {}", problems.len(), db.db.display());
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::Db(DbCommand::Export {
            dir,
            db,
            force,
            public_only,
            wait,
        }) => {
            let lock = crate::lock::beside_folder(&dir)?;
            let _lock = crate::lock::exclusive(&lock, "db export", &dir, wait.wait)?;
            let which = if public_only {
                generate::Dataset::PublicOnly
            } else {
                generate::Dataset::Full
            };
            let conn = generate::dataset::open_for_export(&db.db, which)?;
            let counts = store::export::export_dir(&conn, &dir, force)?;
            let records: usize = counts.iter().map(|(_, n)| n).sum();
            println!(
                "exported {records} records in {} files from {} to {}",
                counts.len(),
                db.db.display(),
                dir.display()
            );
        }
        Command::Generate(args) => {
            let opts = generate_options(&args)?;
            let dataset = match (args.with_dataset, args.public_only) {
                (false, _) => None,
                (true, false) => Some(generate::Dataset::Full),
                (true, true) => Some(generate::Dataset::PublicOnly),
            };
            let summary = generate::generate_with(&opts, dataset)?;
            println!("{summary}");
        }
        Command::Mirror(args) => {
            let summary = mirror::mirror(&mirror::Options {
                url: args.url.clone(),
                out: args.out.clone(),
                with_dataset: args.with_dataset,
                jobs: args.jobs,
                progress: std::io::stderr().is_terminal(),
                wait: args.wait.wait,
            })?;
            println!("{} from {}: {summary}", args.out.display(), args.url);
        }
        Command::Site(SiteCommand::Check { site }) => {
            let (files, problems) = generate::verify::full(&site)?;
            if problems.is_empty() {
                println!(
                    "{}: all {files} files of the manifest present and intact",
                    site.display()
                );
            } else {
                for p in &problems {
                    println!("{p}");
                }
                eprintln!(
                    "{} of {files} files of {} do not match its manifest",
                    problems.len(),
                    site.display()
                );
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::Serve(args) => serve(args)?,
        Command::Keys(cmd) => credential_command(Kind::Key, cmd)?,
        Command::Sessions(cmd) => credential_command(Kind::Session, cmd)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `roost serve`: checks the address, prepares the data of a fresh checkout, serves.
fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let addr = crate::shim::listen_addr(&args.listen, args.env, args.allow_unauthenticated_public)?;
    prepare_data(&args)?;
    let config = ShimConfig {
        rate_limit: args.rate_limit,
        failed_auth_rate: args.failed_auth_rate,
        graphql: crate::graphql::Limits {
            rate_limit: args.graphql_rate_limit,
            ..crate::graphql::Limits::default()
        },
        public_url: args.public_url.clone(),
        cors_origins: args.cors_origins.clone(),
        conn: ConnLimits {
            header_timeout: Duration::from_secs_f64(args.header_timeout),
            idle_timeout: Duration::from_secs_f64(args.idle_timeout),
            max_connections: args
                .max_connections
                .unwrap_or_else(crate::shim::conn::default_max_connections),
            max_connections_per_address: args.max_connections_per_address,
        },
        redis: args.redis.clone(),
        trusted_proxies: crate::shim::proxy::TrustedProxies::parse(&args.trusted_proxies)?,
        metrics_listen: args.metrics_listen,
        redis_timeout: Duration::from_millis(args.redis_timeout_ms),
        live_cache: (args.live_cache_mb as usize) << 20,
        ..ShimConfig::new(args.env, &args.db.db, Some(&args.site), &args.auth.auth_db)
    };
    crate::shim::serve(config, addr)
}

/// A fresh checkout: creates the sample dataset when there is none, and generates
/// the tree when it is missing or older than the dataset.
fn prepare_data(args: &ServeArgs) -> anyhow::Result<()> {
    let db = &args.db.db;
    if !db.exists() {
        println!(
            "no dataset at {}: creating it from the embedded sample",
            db.display()
        );
        store::init_db(db, false)?;
    }
    if generate::tree_is_stale(&args.site, db) {
        println!(
            "generating the tree into {} from {}",
            args.site.display(),
            db.display()
        );
        let opts = generate_options(&GenerateArgs {
            db: DbArg { db: db.clone() },
            out: args.site.clone(),
            jobs: None,
            precompress: generate::Precompress::default(),
            no_precompress: false,
            today: None,
            public_url: args.public_url.clone(),
            with_dataset: false,
            public_only: false,
            wait: WaitArg { wait: true },
        })?;
        let summary = generate::generate(&opts)?;
        println!("{summary}");
    }
    Ok(())
}

/// `roost keys|sessions create|list|revoke`. A new secret is printed alone on the
/// last line, once.
fn credential_command(kind: Kind, cmd: CredentialCommand) -> anyhow::Result<()> {
    match cmd {
        CredentialCommand::Create {
            name,
            expires_in_days,
            auth: AuthDbArg { auth_db },
        } => {
            let conn = credentials::open(&auth_db)?;
            let issued = credentials::create(&conn, kind, &name, expires_in_days, Utc::now())
                .map_err(naming_the_option)?;
            println!("{}", created_line(kind, &issued, expires_in_days, &auth_db));
            if kind == Kind::Key {
                println!(
                    "Send it in the X-API-Key header. It is shown only this once: roost keeps only its hash."
                );
            }
            println!("{}", issued.secret);
        }
        CredentialCommand::List {
            auth: AuthDbArg { auth_db },
        } => {
            let conn = credentials::open(&auth_db)?;
            let listed = credentials::list(&conn, kind)?;
            print!("{}", credential_table(kind, &listed, Utc::now()));
        }
        CredentialCommand::Revoke {
            id,
            auth: AuthDbArg { auth_db },
        } => {
            let conn = credentials::open(&auth_db)?;
            let revoked = credentials::revoke(&conn, kind, id, Utc::now())?;
            println!("{}", revoked_line(kind, id, &revoked));
        }
    }
    Ok(())
}

/// A refused argument, prefixed with the option that carried it.
fn naming_the_option(e: CredentialError) -> anyhow::Error {
    match e {
        CredentialError::EmptyName | CredentialError::LongName => anyhow!("--name: {e}"),
        CredentialError::ExpiryTooShort | CredentialError::ExpiryTooLong(_) => {
            anyhow!("--expires-in-days: {e}")
        }
        other => other.into(),
    }
}

fn created_line(
    kind: Kind,
    issued: &credentials::Issued,
    expires_in_days: Option<u32>,
    auth_db: &Path,
) -> String {
    let (id, name, file) = (issued.id, &issued.name, auth_db.display());
    match kind {
        Kind::Key => {
            let expiry = match expires_in_days {
                Some(days) => format!("expires in {days} day(s)"),
                None => "does not expire".to_string(),
            };
            format!("created API key {id} '{name}' in {file} ({expiry})")
        }
        Kind::Session => format!(
            "created session {id} '{name}' in {file} (expires: {}); send the token below as the \
             '{}' cookie. It is shown only this once:",
            issued.expires_at.as_deref().unwrap_or("never"),
            crate::graphql::SESSION_COOKIE,
        ),
    }
}

fn revoked_line(kind: Kind, id: i64, revoked: &Revoked) -> String {
    match (kind, revoked) {
        (Kind::Key, Revoked::Now(at)) => format!("revoked API key {id} at {at}"),
        (Kind::Key, Revoked::Already(at)) => format!("API key {id} was already revoked at {at}"),
        (Kind::Session, Revoked::Now(_)) => {
            format!("revoked session {id}; it is refused from the next request on")
        }
        (Kind::Session, Revoked::Already(_)) => format!("session {id} was already revoked"),
    }
}

/// The table `keys list` and `sessions list` print: a header, then one row per
/// credential (id, name, created, expires, revoked, last used, status), columns
/// aligned; a hint when there are none. Never a secret nor a hash.
fn credential_table(
    kind: Kind,
    listed: &[credentials::Credential],
    now: chrono::DateTime<Utc>,
) -> String {
    let header = [
        "ID",
        "NAME",
        "CREATED",
        "EXPIRES",
        "REVOKED",
        "LAST USED",
        "STATUS",
    ]
    .map(String::from);
    let rows: Vec<[String; 7]> = std::iter::once(header)
        .chain(listed.iter().map(|c| {
            [
                c.id.to_string(),
                c.name.clone(),
                c.created_at.clone(),
                c.expires_at.clone().unwrap_or_else(|| "never".into()),
                c.revoked_at.clone().unwrap_or_else(|| "-".into()),
                c.last_used_at.clone().unwrap_or_else(|| "never".into()),
                c.status(now).as_str().to_string(),
            ]
        }))
        .collect();
    let mut widths = [0usize; 7];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if i + 1 < row.len() {
                line.extend(std::iter::repeat_n(' ', widths[i] - cell.chars().count()));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if listed.is_empty() {
        out.push_str(&format!(
            "(no {} yet: roost {} create --name NAME)\n",
            kind.command(),
            kind.command()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_column_and_never_a_secret() {
        let dir = tempfile::tempdir().unwrap();
        let conn = credentials::open(&dir.path().join("auth.db")).unwrap();
        let now = Utc::now();
        assert_eq!(
            credential_table(Kind::Key, &[], now),
            "ID  NAME  CREATED  EXPIRES  REVOKED  LAST USED  STATUS\n\
             (no keys yet: roost keys create --name NAME)\n"
        );
        let first = credentials::create(&conn, Kind::Key, "first", None, now).unwrap();
        let second = credentials::create(&conn, Kind::Key, "second", Some(3), now).unwrap();
        credentials::revoke(&conn, Kind::Key, second.id, now).unwrap();
        let listed = credentials::list(&conn, Kind::Key).unwrap();
        let table = credential_table(Kind::Key, &listed, now);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("ID  NAME"));
        assert!(lines[0].contains("LAST USED"));
        assert!(lines[1].contains("first") && lines[1].contains("never"));
        assert!(lines[1].ends_with("active"));
        assert!(lines[2].contains("second") && lines[2].ends_with("revoked"));
        for issued in [first, second] {
            assert!(!table.contains(&issued.secret));
            assert!(!table.contains(&credentials::hash_secret(&issued.secret)));
        }
        let sessions = credential_table(Kind::Session, &[], now);
        assert!(sessions.ends_with("(no sessions yet: roost sessions create --name NAME)\n"));
    }
}
