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

/// Exit statuses (docs/architecture.md §2): 0 done, 1 problems found (`db check`),
/// 2 a usage error or a command that could not run (clap's own usage errors exit 2).
pub const EXIT_PROBLEMS: u8 = 1;
pub const EXIT_CANNOT_RUN: u8 = 2;

/// The default paths; `serve` creates the sample dataset by itself only at these
/// (in the local environment).
pub const DEFAULT_DB: &str = "data/roost.db";
pub const DEFAULT_SITE: &str = "site";
pub const DEFAULT_AUTH_DB: &str = "data/auth.db";

#[derive(Debug, Parser)]
#[command(
    name = "roost",
    version = config::VERSION,
    about = "roost: the public directory API (REST v0 tree, shim, GraphQL)",
    after_help = "Exit status: 0 done; 1 problems found (db check); 2 a usage error or a \
                  command that could not run."
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
    Serve(Box<ServeArgs>),
    /// Manage REST API keys.
    #[command(subcommand)]
    Keys(CredentialCommand),
    /// Manage GraphQL sessions for the frontend.
    #[command(subcommand)]
    Sessions(CredentialCommand),
    /// Copy a published tree to a local folder, fetching only what changed.
    Mirror(MirrorArgs),
    /// Print a shell completion script, e.g. `roost completions bash >
    /// /etc/bash_completion.d/roost`.
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of roost, or with --out write one page per command.
    Man {
        /// Write roost.1, roost-serve.1, … into this folder instead.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
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
        /// The tree: the folder (or the symlink to its live generation) that holds
        /// manifest.json.
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
    #[arg(long, env = "ROOST_DB", default_value = DEFAULT_DB)]
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
    /// Load a dataset from a folder of JSON Lines files or from the original service's
    /// PostgreSQL database, validated, all or nothing; prints the records imported per
    /// kind (and, from a database, the rows left out by reason).
    Import {
        /// The folder of interchange files (KIND.jsonl and community.json; any other
        /// name is refused), or a `postgresql://user@host:port/db` URL of a database
        /// holding the original's schema (read in one read-only snapshot; the password
        /// from the URL, PGPASSWORD, PGPASSFILE or ~/.pgpass, and never printed).
        #[arg(value_name = "SOURCE")]
        dir: PathBuf,
        #[command(flatten)]
        db: DbArg,
        /// Let the import empty this kind of record although the dataset it replaces
        /// holds some (repeatable; `all` for every kind). Without it such an import
        /// is refused.
        #[arg(long, value_name = "KIND", value_parser = allow_empty_parser())]
        allow_empty: Vec<String>,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        wait: WaitArg,
    },
    /// Write a deterministic synthetic dataset of realistic shape, for benchmarks.
    Synth {
        /// The size of the dataset.
        #[arg(long, value_parser = scale_parser())]
        scale: Scale,
        /// The seed: the same scale and seed give the same dataset.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        db: DbArg,
    },
    /// Integrity report; exit status 1 when it finds problems, 2 when it cannot run.
    Check {
        #[command(flatten)]
        db: DbArg,
        /// Print the report as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write the dataset out as JSON Lines files, the format `db import` reads.
    Export {
        /// The folder to write (created; refused when not empty, unless --force).
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
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        wait: WaitArg,
    },
    /// Write the sample dataset shipped with roost (data/sample/) from its generator:
    /// deterministic, the same bytes every run. The folder is replaced whole, so one
    /// holding other files is refused.
    Sample {
        /// The folder to write (written beside it, then moved into place).
        #[arg(long, value_name = "DIR", default_value = "data/sample")]
        out: PathBuf,
    },
}

/// `--allow-empty`: a kind of record ([`store::KINDS`]) or `all`.
fn allow_empty_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(std::iter::once("all").chain(store::KINDS.iter().copied()))
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
    #[arg(long, env = "ROOST_SITE", default_value = DEFAULT_SITE)]
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
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
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
    #[arg(long, env = "ROOST_AUTH_DB", default_value = DEFAULT_AUTH_DB)]
    pub auth_db: PathBuf,
}

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The tree `roost generate` renders (its --out).
    #[arg(long, env = "ROOST_SITE", default_value = DEFAULT_SITE)]
    pub site: PathBuf,
    #[command(flatten)]
    pub auth: AuthDbArg,
    /// The address to listen on (HOST:PORT; port 0 for any free port).
    #[arg(long, env = "ROOST_LISTEN", default_value = "127.0.0.1:8000")]
    pub listen: String,
    /// The environment: production and staging need API keys and sessions; local and
    /// e2e need none and stay on loopback.
    #[arg(long, env = "ROOST_ENV", value_parser = env_parser(), default_value = "local")]
    pub env: Env,
    /// Create what is missing from the embedded sample: the dataset, its tree and
    /// (production, staging) the credential store. Without it only `--env local` at
    /// the default paths does; otherwise a missing one is an error.
    #[arg(long)]
    pub sample: bool,
    /// Requests per second per API key (production and staging).
    #[arg(long, env = "ROOST_RATE_LIMIT", default_value_t = 10)]
    pub rate_limit: u32,
    /// Requests without a valid API key per second per client address (production
    /// and staging; burst as large): they are 401, and 429 past this budget. A valid
    /// key is served whatever its address sends. 0 = no budget.
    #[arg(long, env = "ROOST_FAILED_AUTH_RATE", default_value_t = crate::shim::FAILED_AUTH_RATE)]
    pub failed_auth_rate: u32,
    /// GraphQL and /idx/ requests per second per client address of anonymous callers
    /// (every caller in local and e2e), after a burst of --graphql-burst; more are
    /// 429. 0 = no limit.
    #[arg(long, env = "ROOST_GRAPHQL_RATE_LIMIT", default_value_t = 20)]
    pub graphql_rate_limit: u32,
    /// GraphQL and /idx/ requests an anonymous address may send at once (refilled at
    /// --graphql-rate-limit a second): the frontend's heaviest page, twice. 0 = as
    /// large as the rate.
    #[arg(long, env = "ROOST_GRAPHQL_BURST", default_value_t = crate::graphql::DEFAULT_BURST)]
    pub graphql_burst: u32,
    /// GraphQL requests per second of one trusted caller (a session, or an address
    /// given with --graphql-trusted-client), burst as large. 0 = no limit.
    #[arg(long, env = "ROOST_GRAPHQL_TRUSTED_RATE_LIMIT", default_value_t = 500)]
    pub graphql_trusted_rate_limit: u32,
    /// An address or CIDR range whose GraphQL requests get the trusted budget instead
    /// of the anonymous one (repeatable), e.g. the frontend's server-side renderer,
    /// which sends every page's queries from one address without a session cookie.
    #[arg(
        long = "graphql-trusted-client",
        env = "ROOST_GRAPHQL_TRUSTED_CLIENTS",
        value_delimiter = ',',
        value_name = "CIDR"
    )]
    pub graphql_trusted_clients: Vec<String>,
    /// Production and staging: refuse GraphQL requests without a valid session (401),
    /// for a private deployment; by default anonymous visitors are served.
    #[arg(long, env = "ROOST_GRAPHQL_REQUIRE_SESSION")]
    pub graphql_require_session: bool,
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
    /// Seconds requests are still served after SIGTERM or SIGINT, while /readyz
    /// answers 503 so that load balancers take this shim out; then the listener
    /// closes and each kept-alive connection is closed after its next answer
    /// (`Connection: close`; HTTP/2: GOAWAY). 0 = close the listener at once.
    #[arg(long, env = "ROOST_DRAIN_SECONDS", default_value_t = 5.0, value_parser = seconds_or_zero)]
    pub drain_seconds: f64,
    /// Seconds requests in progress get once the listener has closed, before the
    /// process exits anyway.
    #[arg(long, env = "ROOST_GRACE_SECONDS", default_value_t = 30.0, value_parser = seconds)]
    pub grace_seconds: f64,
    /// The log on stderr, start-up lines included: `json` (one JSON object a line) or
    /// `text` (for people).
    #[arg(long, env = "ROOST_LOG_FORMAT", default_value = "json", value_parser = log_format_parser())]
    pub log_format: crate::shim::LogFormat,
}

/// `--log-format`: the names of [`crate::shim::LogFormat::ALL`], listed in `--help`.
fn log_format_parser() -> impl TypedValueParser<Value = crate::shim::LogFormat> {
    PossibleValuesParser::new(crate::shim::LogFormat::ALL.map(crate::shim::LogFormat::as_str))
        .try_map(|s| s.parse::<crate::shim::LogFormat>())
}

/// A count of at least 1.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{s}': expected a whole number of at least 1")),
    }
}

/// A number of seconds from 0 to an hour.
fn seconds_or_zero(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=3600.0).contains(&v) => Ok(v),
        Ok(_) => Err(format!("{s}: expected from 0 to 3600 seconds")),
        Err(_) => Err(format!("'{s}' is not a number of seconds")),
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
        /// A name saying whom it is for (shown by `list`).
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
        /// Print a JSON array, one object per credential.
        #[arg(long)]
        json: bool,
    },
    /// Revoke one by id; it is refused from the next request on.
    Revoke {
        /// Its id, as `list` shows it.
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

/// Runs the command line; the process exit code. An error is a command that could
/// not run: `main` prints it and exits with [`EXIT_CANNOT_RUN`].
// Long because it is one arm per command, each parsing its arguments and printing its
// summary; the work of each is in its own module.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Db(DbCommand::Init { db, force }) => {
            store::init_db(&db.db, force, crate::idx::build)?;
            println!("created {} from the embedded sample", db.db.display());
        }
        Command::Db(DbCommand::Import {
            dir,
            db,
            allow_empty,
            json,
            wait,
        }) => {
            let lock = crate::lock::beside_file(&db.db)?;
            let _lock = crate::lock::exclusive(&lock, "db import", &db.db, wait.wait)?;
            let allow_empty = if allow_empty.iter().any(|k| k == "all") {
                store::AllowEmpty::All
            } else {
                store::AllowEmpty::Kinds(allow_empty)
            };
            match dir.to_str().filter(|s| store::original::is_url(s)) {
                Some(url) => import_original(url, &db.db, &allow_empty, json)?,
                None => {
                    let counts =
                        store::import_dir_keeping(&dir, &db.db, &allow_empty, crate::idx::build)?;
                    if json {
                        let records = count_object(counts.0.iter().map(|(kind, n)| (*kind, *n)));
                        print_json(&serde_json::json!({
                            "dir": dir,
                            "db": db.db,
                            "records": records,
                            "total": counts.total(),
                        }));
                    } else {
                        println!(
                            "imported {counts} ({} records) from {} into {}",
                            store::thousands(counts.total()),
                            dir.display(),
                            db.db.display()
                        );
                    }
                }
            }
        }
        Command::Db(DbCommand::Synth { scale, seed, db }) => {
            crate::synth::synth(scale, seed, &db.db)?;
            println!(
                "wrote a synthetic {} dataset (seed {seed}) to {}",
                scale.as_str(),
                db.db.display()
            );
        }
        Command::Db(DbCommand::Sample { out }) => {
            let files = crate::synth::sample::write(&out)?;
            println!("wrote the sample ({files} files) to {}", out.display());
        }
        Command::Db(DbCommand::Check { db, json }) => {
            let problems = store::check(&db.db)?;
            if json {
                print_json(&serde_json::json!({
                    "db": db.db,
                    "ok": problems.is_empty(),
                    "problems": problems,
                }));
            } else if problems.is_empty() {
                println!("{}: no problems found", db.db.display());
            } else {
                for p in &problems {
                    println!("{p}");
                }
                eprintln!("{} problem(s) found in {}", problems.len(), db.db.display());
            }
            if !problems.is_empty() {
                return Ok(ExitCode::from(EXIT_PROBLEMS));
            }
        }
        Command::Db(DbCommand::Export {
            dir,
            db,
            force,
            public_only,
            json,
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
            if json {
                let files = count_object(counts.iter().map(|(file, n)| (*file, *n as u64)));
                print_json(&serde_json::json!({
                    "db": db.db,
                    "dir": dir,
                    "public_only": public_only,
                    "files": files,
                    "records": records,
                }));
            } else {
                println!(
                    "exported {records} records in {} files from {} to {}",
                    counts.len(),
                    db.db.display(),
                    dir.display()
                );
            }
        }
        Command::Generate(args) => {
            let opts = generate_options(&args)?;
            let dataset = match (args.with_dataset, args.public_only) {
                (false, _) => None,
                (true, false) => Some(generate::Dataset::Full),
                (true, true) => Some(generate::Dataset::PublicOnly),
            };
            let summary = generate::generate_with(&opts, dataset)?;
            if args.json {
                print_json(&summary);
            } else {
                println!("{summary}");
            }
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
                return Ok(ExitCode::from(EXIT_PROBLEMS));
            }
        }
        Command::Serve(args) => serve(*args)?,
        Command::Keys(cmd) => credential_command(Kind::Key, cmd)?,
        Command::Sessions(cmd) => credential_command(Kind::Session, cmd)?,
        Command::Completions { shell } => {
            use clap::CommandFactory as _;
            clap_complete::generate(shell, &mut Cli::command(), "roost", &mut std::io::stdout());
        }
        Command::Man { out } => man(out.as_deref())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `--graphql-trusted-client` values: CIDR ranges, or single addresses.
fn trusted_clients(values: &[String]) -> anyhow::Result<Vec<ipnet::IpNet>> {
    values
        .iter()
        .map(|raw| {
            let raw = raw.trim();
            raw.parse::<ipnet::IpNet>()
                .or_else(|_| raw.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    anyhow::anyhow!(
                        "--graphql-trusted-client {raw}: not an address or address range \
                         (expected e.g. 10.0.0.5 or 10.0.0.0/24)"
                    )
                })
        })
        .collect()
}

/// One JSON document on its own line of stdout (`--json`).
/// Counts by name as a JSON object, for `--json` summaries.
fn count_object<'a>(
    counts: impl Iterator<Item = (&'a str, u64)>,
) -> serde_json::Map<String, serde_json::Value> {
    counts
        .map(|(name, n)| (name.to_string(), n.into()))
        .collect()
}

fn print_json(value: &impl serde::Serialize) {
    match serde_json::to_string(value) {
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("roost: writing JSON: {e}"),
    }
}

/// `roost man`: the page of roost on stdout, or with `--out DIR` one page per command
/// (`roost.1`, `roost-serve.1`, `roost-db-import.1`, …).
fn man(out: Option<&Path>) -> anyhow::Result<()> {
    use clap::CommandFactory as _;
    let command = Cli::command();
    match out {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            use std::io::Write as _;
            std::io::stdout().write_all(&page)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| anyhow!("creating {}: {e}", dir.display()))?;
            clap_mangen::generate_to(command, dir)
                .map_err(|e| anyhow!("writing the manual pages into {}: {e}", dir.display()))?;
            println!("wrote the manual pages into {}", dir.display());
        }
    }
    Ok(())
}

/// `roost serve`: checks the address, prepares the data of a fresh checkout, serves.
fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let addr = crate::shim::listen_addr(&args.listen, args.env, args.allow_unauthenticated_public)?;
    // Set before the data is prepared, so its lines are log lines too.
    let _log = crate::shim::init_logging_as(args.log_format);
    prepare_data(&args)?;
    let config = ShimConfig {
        rate_limit: args.rate_limit,
        failed_auth_rate: args.failed_auth_rate,
        graphql: crate::graphql::Limits {
            rate_limit: args.graphql_rate_limit,
            burst: args.graphql_burst,
            trusted_rate_limit: args.graphql_trusted_rate_limit,
            trusted_clients: trusted_clients(&args.graphql_trusted_clients)?,
            require_session: args.graphql_require_session,
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
        drain: Duration::from_secs_f64(args.drain_seconds),
        grace: Duration::from_secs_f64(args.grace_seconds),
        ..ShimConfig::new(args.env, &args.db.db, Some(&args.site), &args.auth.auth_db)
    };
    crate::shim::serve(config, addr)
}

/// What `serve` needs before it listens. With `--sample`, or in the local
/// environment at the default paths (a fresh checkout), a missing dataset is created
/// from the embedded sample and a missing tree generated (and, in production and
/// staging, the credential store created when the shim opens it). Otherwise each
/// missing one is an error naming its path and the command that makes it, and
/// nothing is created. A tree older than its dataset is regenerated either way.
// Long because each of the three inputs (dataset, tree, credential store) is checked
// in turn with its own message and remedy.
fn prepare_data(args: &ServeArgs) -> anyhow::Result<()> {
    let db = &args.db.db;
    let sample = args.sample
        || (args.env == Env::Local
            && db == Path::new(DEFAULT_DB)
            && args.site == Path::new(DEFAULT_SITE)
            && args.auth.auth_db == Path::new(DEFAULT_AUTH_DB));
    if !sample {
        let mut missing = Vec::new();
        if !db.is_file() {
            missing.push(format!(
                "no dataset at {}: import one with `roost db import DIR --db {}` (or \
                 `roost db init --db {}` for the sample)",
                db.display(),
                db.display(),
                db.display()
            ));
        }
        if !args.site.join(generate::MANIFEST).is_file() {
            missing.push(format!(
                "no tree at {}: render it with `roost generate --db {} --out {}`",
                args.site.display(),
                db.display(),
                args.site.display()
            ));
        }
        let auth_db = &args.auth.auth_db;
        if args.env.is_protected() && !auth_db.is_file() {
            missing.push(format!(
                "no credential store at {}: create it with its first key, `roost keys create \
                 --name NAME --auth-db {}`",
                auth_db.display(),
                auth_db.display()
            ));
        }
        if !missing.is_empty() {
            bail!(
                "{}\n(`roost serve --sample` creates what is missing from the embedded sample)",
                missing.join("\n")
            );
        }
    }
    if !db.exists() {
        tracing::info!(
            target: "roost::start",
            db = %db.display(),
            "no dataset at {}: creating it from the embedded sample",
            db.display()
        );
        store::init_db(db, false, crate::idx::build)?;
    }
    if generate::tree_is_stale(&args.site, db) {
        tracing::info!(
            target: "roost::start",
            site = %args.site.display(),
            db = %db.display(),
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
            json: false,
            wait: WaitArg { wait: true },
        })?;
        let summary = generate::generate(&opts)?;
        tracing::info!(
            target: "roost::start",
            files = summary.files,
            documents = summary.documents,
            written = summary.written,
            unchanged = summary.unchanged,
            removed = summary.removed,
            bytes = summary.bytes,
            millis = summary.millis,
            "{summary}"
        );
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
            json,
        } => {
            let conn = open_existing_store(kind, &auth_db)?;
            let listed = credentials::list(&conn, kind)?;
            let now = Utc::now();
            if json {
                let rows: Vec<serde_json::Value> = listed
                    .iter()
                    .map(|c| {
                        serde_json::json!({
                            "id": c.id,
                            "name": c.name,
                            "created_at": c.created_at,
                            "expires_at": c.expires_at,
                            "revoked_at": c.revoked_at,
                            "last_used_at": c.last_used_at,
                            "status": c.status(now).as_str(),
                        })
                    })
                    .collect();
                print_json(&rows);
            } else {
                print!("{}", credential_table(kind, &listed, now));
            }
        }
        CredentialCommand::Revoke {
            id,
            auth: AuthDbArg { auth_db },
        } => {
            let conn = open_existing_store(kind, &auth_db)?;
            let revoked = credentials::revoke(&conn, kind, id, Utc::now())?;
            println!("{}", revoked_line(kind, id, &revoked));
        }
    }
    Ok(())
}

/// The credential store at `auth_db` for `list` and `revoke`, which never create one
/// (a mistyped --auth-db is an error, not a new empty store); read-only when it cannot
/// be written (`revoke` then says so, naming the file).
fn open_existing_store(kind: Kind, auth_db: &Path) -> anyhow::Result<rusqlite::Connection> {
    if !auth_db.is_file() {
        bail!(
            "no credential store at {}: `roost {} create --name NAME --auth-db {}` creates it",
            auth_db.display(),
            kind.command(),
            auth_db.display()
        );
    }
    Ok(credentials::open_existing(auth_db)?.0)
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

/// `roost db import postgresql://…`: the dataset from the original service's database,
/// with the rows it left out by reason (printed to stderr, or in the JSON summary).
fn import_original(
    url: &str,
    db: &std::path::Path,
    allow_empty: &store::AllowEmpty,
    json: bool,
) -> anyhow::Result<()> {
    let done = store::original::import_original(url, db, allow_empty, crate::idx::build)?;
    let source = store::original::shown(url);
    if json {
        let records = count_object(done.counts.0.iter().map(|(kind, n)| (*kind, *n)));
        print_json(&serde_json::json!({
            "source": source,
            "db": db,
            "records": records,
            "total": done.counts.total(),
            "skipped": done.skipped,
            "absent_tables": done.absent,
        }));
        return Ok(());
    }
    for table in &done.absent {
        eprintln!(
            "roost: {table}: not in this database (the original's public dump leaves it \
             out); its records are left empty"
        );
    }
    for skipped in &done.skipped {
        eprintln!("roost: {skipped}");
    }
    println!(
        "imported {} ({} records) from {source} into {}",
        done.counts,
        store::thousands(done.counts.total()),
        db.display()
    );
    Ok(())
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
