//! `roost serve`: the tree, live answers and GraphQL, behind keys and rate limits.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::bail;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;

use super::common::{
    at_least_one, env_parser, AuthDbArg, DbArg, WaitArg, DEFAULT_AUTH_DB, DEFAULT_DB, DEFAULT_SITE,
};
use super::generate::{generate_options, GenerateArgs};
use crate::config::Env;
use crate::shim::conn::ConnLimits;
use crate::shim::ShimConfig;
use crate::{generate, store};

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
    /// Megabytes of the dataset's pages each read connection keeps (SQLite's page
    /// cache; one connection per worker, two per core). The system's file cache
    /// keeps the pages too, for every connection.
    #[arg(long, env = "ROOST_READ_CACHE_MB", default_value_t = crate::pool::DEFAULT_PAGE_CACHE_MB, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub read_cache_mb: u32,
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

/// `roost serve`: checks the address, prepares the data of a fresh checkout, serves.
pub fn exec(args: ServeArgs) -> anyhow::Result<ExitCode> {
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
        read_cache_mb: args.read_cache_mb,
        drain: Duration::from_secs_f64(args.drain_seconds),
        grace: Duration::from_secs_f64(args.grace_seconds),
        ..ShimConfig::new(args.env, &args.db.db, Some(&args.site), &args.auth.auth_db)
    };
    crate::shim::serve(config, addr)?;
    Ok(ExitCode::SUCCESS)
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
        if !crate::manifest::has_manifest(&args.site) {
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
            no_manifest_json: false,
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
