//! `roost serve`: the shim (docs/architecture.md "The shim").
//!
//! It serves the pre-rendered tree behind API keys and rate limits and answers
//! live, from the catalog, whatever the tree does not hold; GraphQL routes are
//! merged in from [`crate::graphql`], over the same read pool ([`crate::pool`]) and
//! credential store ([`crate::credentials`]), both owned by [`AppState`]. The pieces:
//!
//! - [`api`]: the `/api/v0` handler (routing, auth, tree or catalog, ETag);
//! - [`respond`]: error shapes, ETag, encodings, HEAD;
//! - [`files`]: tree files read once per generation and answered from memory;
//! - [`live`]: live answers made once per dataset file and answered from memory;
//! - [`crate::guard`]: the request concerns REST shares with GraphQL and `/idx/`
//!   (client address, API key, rate limits, CSRF); [`crate::limits`]: the per-key
//!   rate limit and the per-address budget of requests without a valid key, in the
//!   process or in Redis (`--redis`);
//! - [`net`]: the listener (JSON for hyper's own error responses);
//! - [`warm`]: what `roost serve` builds before `/readyz` says ready.
//!
//! Around every answer, outermost first ([`front`]): access log (one line per request)
//! → `nosniff` on every response → JSON for any non-JSON error → the REST handler
//! for `/api/v0`, else the routes of the other endpoints (CORS on `/api/v0` only).

pub mod api;
pub mod cache;
pub mod conn;
pub mod files;
pub mod front;
pub mod graphiql;
pub mod health;
pub mod idx;
pub mod live;
pub mod logline;
pub mod logwriter;
pub mod metrics;
pub mod net;
pub mod proxy;
pub mod request_id;
pub mod respond;
pub mod warm;

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use axum::http::{header, HeaderName, HeaderValue, Method};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::config::{self, Env};
use crate::credentials::{self, Credentials, Kind};
use crate::error::InternalCause;
use crate::pool::ReadPool;

pub use self::front::App;
use self::respond::ApiError;
use crate::guard::{rate, CredentialCheck, RateCheck};
use crate::limits::{self, RedisLimits};

/// Requests without a valid key allowed per client address and second (burst as
/// large); past it they are 429 instead of 401.
pub const FAILED_AUTH_RATE: u32 = 10;
/// After SIGTERM/SIGINT, how long requests are still served (and `/readyz` answers
/// 503) before the listener closes (`--drain-seconds`).
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(5);
/// After the listener closes, how long requests in progress get before the process
/// exits (`--grace-seconds`).
pub const DEFAULT_GRACE: Duration = Duration::from_secs(30);

/// Everything the shim needs to answer (tests build it directly).
#[derive(Debug, Clone)]
pub struct ShimConfig {
    pub env: Env,
    pub db: PathBuf,
    /// The live tree (the `site` symlink); `None` answers everything from the catalog.
    pub site: Option<PathBuf>,
    pub auth_db: PathBuf,
    /// Requests per second (and burst) per API key in production/staging; 0 = off.
    pub rate_limit: u32,
    /// Requests without a valid key per client address and second (burst as large)
    /// in production/staging, answered 401; more are 429. 0 = off (all 401).
    pub failed_auth_rate: u32,
    pub public_url: Option<String>,
    pub cors_origins: Vec<String>,
    /// The date `is_upcoming` is answered for; `None` = the UTC date of each request.
    pub today: Option<String>,
    /// Concurrent blocking tasks (SQLite queries, file reads), REST and GraphQL together.
    pub workers: usize,
    /// `--read-cache-mb`: each read connection's page cache, in MiB (one connection
    /// per worker).
    pub read_cache_mb: u32,
    /// Timeouts and caps of client connections.
    pub conn: conn::ConnLimits,
    /// GraphQL's limits (width, depth, complexity, time, database time, pool share,
    /// requests per second).
    pub graphql: crate::graphql::Limits,
    /// `--redis`: where the rate limits are kept, shared with every shim using the
    /// same server; `None` keeps them in this process.
    pub redis: Option<String>,
    /// How long a limit check waits for Redis before answering from the process.
    pub redis_timeout: Duration,
    /// `--trusted-proxy`: peers whose `Forwarded`/`X-Forwarded-For` name the client.
    pub trusted_proxies: proxy::TrustedProxies,
    /// `--metrics-listen`: where Prometheus metrics are served; `None` = nowhere.
    pub metrics_listen: Option<SocketAddr>,
    /// `--live-cache-mb`, in bytes: live answers kept per dataset file; 0 = none.
    pub live_cache: usize,
    /// `--drain-seconds`: requests still served after SIGTERM, `/readyz` answering 503.
    pub drain: Duration,
    /// `--grace-seconds`: the time requests in progress get once the listener closed.
    pub grace: Duration,
}

impl ShimConfig {
    /// Defaults of `roost serve` for the given files.
    pub fn new(env: Env, db: &Path, site: Option<&Path>, auth_db: &Path) -> ShimConfig {
        ShimConfig {
            env,
            db: db.to_path_buf(),
            site: site.map(Path::to_path_buf),
            auth_db: auth_db.to_path_buf(),
            rate_limit: 10,
            failed_auth_rate: FAILED_AUTH_RATE,
            public_url: None,
            cors_origins: Vec::new(),
            today: None,
            workers: default_workers(),
            read_cache_mb: crate::pool::DEFAULT_PAGE_CACHE_MB,
            conn: conn::ConnLimits::default(),
            graphql: crate::graphql::Limits::default(),
            redis: None,
            redis_timeout: limits::redis::DEFAULT_TIMEOUT,
            trusted_proxies: proxy::TrustedProxies::default(),
            metrics_listen: None,
            live_cache: live::DEFAULT_BUDGET,
            drain: DEFAULT_DRAIN,
            grace: DEFAULT_GRACE,
        }
    }
}

/// Two blocking tasks per core: SQLite reads are short and mostly CPU.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * 2
}

/// The shared state of the app.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    config: ShimConfig,
    documents: Documents,
    /// The dataset, for the live REST answers and GraphQL; also the gate every
    /// blocking task of the shim goes through.
    pool: ReadPool,
    /// API keys and sessions (production and staging only).
    credentials: Option<Credentials>,
    /// The API key check of REST, over `credentials`, with the budget of requests
    /// without a valid key per client address (`--failed-auth-rate`): within it they
    /// are 401, past it 429. A valid key never spends it.
    credential: CredentialCheck,
    /// Requests per API key (`--rate-limit`).
    key_rate: Option<RateCheck>,
    /// The shared limits, when `--redis` is given.
    redis: Option<RedisLimits>,
    /// Responses of tree files, per generation of the tree.
    files: files::FileCache,
    /// Live answers, per dataset file.
    live: live::LiveCache,
    /// GraphQL answers, per dataset file (the same budget as `live`, held apart).
    graphql_answers: Arc<live::GraphqlAnswers>,
    /// Set on SIGTERM/SIGINT: `/readyz` answers 503 while requests are still served.
    draining: std::sync::atomic::AtomicBool,
    /// Set while `roost serve` warms up ([`warm`]): `/readyz` answers 503.
    warming: std::sync::atomic::AtomicBool,
}

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// Opens what the config names; in production and staging, creates auth.db
    /// when it does not exist yet.
    pub fn new(mut config: ShimConfig) -> anyhow::Result<AppState> {
        let protected = config.env.is_protected();
        let redis = match &config.redis {
            Some(url) => Some(RedisLimits::new(url, config.redis_timeout)?),
            None => None,
        };
        config.graphql.shared = redis.clone();
        let credentials = if protected {
            Some(Credentials::open(&config.auth_db)?)
        } else {
            None
        };
        let key_rate = RateCheck::per_second(limits::Kind::Key, config.rate_limit, redis.clone())
            .filter(|_| protected);
        let failed_auth = RateCheck::per_second(
            limits::Kind::FailedAuth,
            config.failed_auth_rate,
            redis.clone(),
        )
        .filter(|_| protected);
        let credential = CredentialCheck::new(credentials.clone(), failed_auth);
        let documents = Documents::render(
            config.env,
            config.public_url.as_deref(),
            config.site.as_deref(),
        )?;
        Ok(AppState(Arc::new(Shared {
            documents,
            pool: ReadPool::with_page_cache(&config.db, config.workers, config.read_cache_mb),
            credentials,
            credential,
            key_rate,
            redis,
            files: files::FileCache::default(),
            live: live::LiveCache::new(config.live_cache),
            graphql_answers: Arc::new(live::GraphqlAnswers::new(config.live_cache)),
            draining: std::sync::atomic::AtomicBool::new(false),
            warming: std::sync::atomic::AtomicBool::new(false),
            config,
        })))
    }

    pub fn config(&self) -> &ShimConfig {
        &self.config
    }

    /// Hits, misses and bytes of the in-memory responses: tree files, live answers,
    /// GraphQL answers.
    pub fn cache_stats(&self) -> [(&'static str, cache::Stats); 3] {
        [
            ("tree_file", self.files.stats()),
            ("live", self.live.stats()),
            ("graphql", self.graphql_answers.stats()),
        ]
    }

    fn today(&self) -> String {
        self.config.today.clone().unwrap_or_else(config::today)
    }

    /// Drops limiter state of keys and addresses that are idle again.
    pub fn housekeeping(&self) {
        if let Some(l) = &self.key_rate {
            l.retain_recent();
        }
        self.credential.retain_recent();
    }

    /// The shared limits, when `--redis` is given.
    pub fn redis(&self) -> Option<&RedisLimits> {
        self.redis.as_ref()
    }

    /// The shim is shutting down: from now on `/readyz` answers 503, so that load
    /// balancers stop sending requests, which are still answered meanwhile.
    pub fn begin_drain(&self) {
        self.draining
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether the credential store answers (production and staging; `None` where
    /// the environment has none).
    pub fn credential_store_available(&self) -> Option<bool> {
        self.credentials.as_ref().map(|c| c.status().is_ok())
    }

    /// Whether [`AppState::begin_drain`] was called.
    pub fn is_draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Sets whether the shim is warming up: `/readyz` answers 503 (`"warming up"`)
    /// while it is, every other request being answered meanwhile ([`warm`]).
    pub fn set_warming(&self, warming: bool) {
        self.warming
            .store(warming, std::sync::atomic::Ordering::Release);
    }

    /// What [`AppState::set_warming`] set last.
    pub fn is_warming(&self) -> bool {
        self.warming.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// `openapi.json` for this environment (its own `servers` entry: docs/api.md §1)
/// and the docs page rendered from it, once at start-up. The tree's copies list
/// every environment's server, for static hosting.
pub struct Documents {
    openapi: respond::KeptBody,
    docs: HashMap<String, respond::KeptBody>,
}

impl Documents {
    /// The docs page's examples are read from the tree at `site`, when given.
    fn render(
        env: Env,
        public_url: Option<&str>,
        site: Option<&Path>,
    ) -> anyhow::Result<Documents> {
        let openapi = crate::openapi::document_json_for(env, public_url)
            .context("serialising the OpenAPI document")?;
        // The first record of each folder the examples name, from the tree's split
        // manifest: reading the folders themselves took seconds of each start at
        // `10x` (millions of files in the issues' folder).
        let samples = match site.map(|site| (site, crate::generate::first_listed(site))) {
            Some((site, Some(first))) => crate::docs::listed_tree_samples(&openapi, site, &first)?,
            Some((site, None)) => crate::docs::tree_samples(&openapi, site)?,
            None => crate::docs::Samples::default(),
        };
        let docs = crate::docs::render_with(&openapi, &samples)?
            .into_iter()
            .map(|(name, bytes)| {
                let body = respond::KeptBody::new(bytes, api::content_type_of(&name));
                (name, body)
            })
            .collect();
        Ok(Documents {
            openapi: respond::KeptBody::new(openapi, respond::JSON),
            docs,
        })
    }
}

/// The whole HTTP app: REST v0, GraphQL, `/idx/`, health, and JSON 404 for everything
/// else, behind the access log, `nosniff` and JSON errors ([`front`]). GraphQL's facts
/// are computed before it returns.
pub fn app(state: AppState) -> App {
    let graphql =
        crate::graphql::Service::new(graphql_config(&state), state.config.graphql.clone());
    app_with(state, &graphql)
}

/// [`app`] with nothing built ahead, and the warm-up that builds it ([`warm`]):
/// what `roost serve` answers with while `/readyz` says it is warming up.
pub fn app_warming(state: AppState) -> (App, warm::Warmup) {
    let graphql =
        crate::graphql::Service::cold(graphql_config(&state), state.config.graphql.clone());
    let warmup = warm::Warmup::new(state.clone(), graphql.clone());
    (app_with(state, &graphql), warmup)
}

fn graphql_config(state: &AppState) -> crate::graphql::GraphqlConfig {
    crate::graphql::GraphqlConfig {
        pool: state.pool.clone(),
        credentials: state.credentials.clone(),
        env: state.config.env,
        answers: state.graphql_answers.clone(),
    }
}

fn app_with(state: AppState, graphql: &Arc<crate::graphql::Service>) -> App {
    let cors = cors_layer(&state.config.cors_origins);
    let direct_api = cors.is_none();
    let graphql = graphql.router();
    let health = Router::new()
        .route("/healthz", any(health::healthz))
        .route("/readyz", any(health::readyz))
        .with_state(state.clone());
    let mut router = Router::new().merge(graphql);
    if let Some(cors) = cors {
        let api = Router::new()
            .route("/api/v0", any(api::handle))
            .route("/api/v0/", any(api::handle))
            .route("/api/v0/{*rest}", any(api::handle))
            .with_state(state.clone())
            .layer(cors);
        router = router.merge(api);
    }
    if !state.config.env.is_protected() {
        router = router.merge(graphiql::routes());
    }
    let routes = router
        .merge(idx::routes(state.clone()))
        .merge(health)
        .fallback(|| async { ApiError::UnknownPath.into_response() });
    App::new(state, routes, direct_api)
}

/// The `--cors-origin` values as an allowed-origin rule: the listed origins (a trailing
/// `/` dropped), or `star` when one of them is `*`; `None` when none is given.
pub(crate) fn allowed_origins(origins: &[String], star: AllowOrigin) -> Option<AllowOrigin> {
    let origins: Vec<&str> = origins
        .iter()
        .map(|o| o.trim())
        .filter(|o| !o.is_empty())
        .collect();
    if origins.is_empty() {
        return None;
    }
    Some(if origins.contains(&"*") {
        star
    } else {
        AllowOrigin::list(
            origins
                .iter()
                .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok()),
        )
    })
}

/// CORS for browser clients of the REST API: the configured origins (`*` for any),
/// GET/HEAD/OPTIONS, the `X-API-Key` header; `ETag` and `Retry-After` readable.
fn cors_layer(origins: &[String]) -> Option<CorsLayer> {
    let allow = allowed_origins(origins, AllowOrigin::any())?;
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::HEAD, Method::OPTIONS])
            .allow_headers([
                HeaderName::from_static("x-api-key"),
                header::IF_NONE_MATCH,
                header::ACCEPT,
            ])
            .expose_headers([
                header::ETAG,
                header::RETRY_AFTER,
                rate::RATELIMIT_LIMIT,
                rate::RATELIMIT_REMAINING,
                rate::RATELIMIT_RESET,
                request_id::X_REQUEST_ID,
            ])
            .max_age(Duration::from_secs(600)),
    )
}

/// The key id of an authenticated request, for the access log.
#[derive(Debug, Clone, Copy)]
pub struct KeyId(pub i64);

/// What the access log learns of an answer beside the response itself: the key id
/// and the part of the shim that answered, when the handler says. The REST handler
/// hands them back with its response; a routed endpoint puts them in the response's
/// extensions ([`KeyId`], [`metrics::RouteClass`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Answered {
    pub key_id: Option<i64>,
    pub class: Option<metrics::RouteClass>,
}

impl Answered {
    /// What a routed endpoint put in the response's extensions.
    pub fn of(response: &Response) -> Answered {
        Answered {
            key_id: response.extensions().get::<KeyId>().map(|k| k.0),
            class: response.extensions().get::<metrics::RouteClass>().copied(),
        }
    }

    /// Puts these in the response's extensions (what [`Answered::of`] reads).
    pub fn mark(self, response: &mut Response) {
        if let Some(id) = self.key_id {
            response.extensions_mut().insert(KeyId(id));
        }
        if let Some(class) = self.class {
            response.extensions_mut().insert(class);
        }
    }
}

/// One line per request: method, path, query string, status, response bytes,
/// duration, client address (behind trusted proxies, the forwarded one: [`proxy`]),
/// user agent, key id (never the key: keys and session tokens travel only in
/// headers and cookies, which are not logged) and request id ([`request_id`], also
/// sent back in `X-Request-Id`); and the request's metrics. `peer` is the TCP peer;
/// `inner` is given the client address found from it, to hand to the REST handler or
/// put in the request's extensions ([`proxy::ClientAddr`]) for a routed endpoint's
/// [`crate::guard::Client`].
async fn access_log<B, F, Fut>(
    state: &AppState,
    req: axum::http::Request<B>,
    peer: Option<IpAddr>,
    inner: F,
) -> Response
where
    F: FnOnce(axum::http::Request<B>, Option<IpAddr>) -> Fut,
    Fut: Future<Output = (Response, Answered)>,
{
    let started = Instant::now();
    let method = req.method().clone();
    // The URI and the header share the request's bytes (no copy).
    let uri = req.uri().clone();
    let path = first_chars(uri.path(), 512);
    let query = uri.query().map(|q| first_chars(q, 1024));
    let user_agent_value = req.headers().get(header::USER_AGENT).cloned();
    let user_agent =
        user_agent_value
            .as_ref()
            .map(|v| match String::from_utf8_lossy(v.as_bytes()) {
                Cow::Borrowed(text) => Cow::Borrowed(first_chars(text, 256)),
                Cow::Owned(text) => Cow::Owned(first_chars(&text, 256).to_string()),
            });
    let id = request_id::RequestId::of(
        req.headers(),
        peer.is_some_and(|ip| state.config.trusted_proxies.contains(ip)),
    );
    let client = peer.map(|ip| state.config.trusted_proxies.client(ip, req.headers()));
    let (mut response, answered) = inner(req, client).await;
    if let Some(value) = id.clone().header() {
        response
            .headers_mut()
            .insert(request_id::X_REQUEST_ID, value);
    }
    let bytes = axum::body::HttpBody::size_hint(response.body()).exact();
    let key_id = answered.key_id;
    let elapsed = started.elapsed();
    let duration_ms = (elapsed.as_secs_f64() * 1e6).round() / 1e3;
    let status = response.status().as_u16();
    let class = answered
        .class
        .unwrap_or_else(|| metrics::RouteClass::of_path(path));
    metrics::record_request(class, status, elapsed);
    let cause = response.extensions().get::<InternalCause>();
    let line = logline::Access {
        method: method.as_str(),
        path,
        query,
        status,
        bytes,
        duration_ms,
        client,
        user_agent: user_agent.as_deref(),
        key_id,
        request_id: id.as_str(),
    };
    // The usual line (at `info`, JSON): its bytes written straight into the log's
    // writer, without tracing's per-event work.
    if let (None, Some(writer)) = (cause, logwriter::direct()) {
        if tracing::enabled!(target: "roost::access", tracing::Level::INFO) {
            thread_local! {
                static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
            }
            LINE.with_borrow_mut(|buffer| {
                buffer.clear();
                line.write_info(buffer);
                writer.push(buffer);
            });
        }
        return response;
    }
    line.trace(cause.map(|c| c as &dyn std::fmt::Display));
    response
}

/// The first `n` characters of `text` (all of it when shorter).
fn first_chars(text: &str, n: usize) -> &str {
    // No more bytes than `n`: no more characters either (nearly every path and user
    // agent), without walking them.
    if text.len() <= n {
        return text;
    }
    match text.char_indices().nth(n) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// The metrics' `status` label: the usual statuses without making a string.
pub(crate) fn status_label(status: u16) -> Cow<'static, str> {
    let known = match status {
        200 => "200",
        304 => "304",
        308 => "308",
        400 => "400",
        401 => "401",
        403 => "403",
        404 => "404",
        405 => "405",
        413 => "413",
        429 => "429",
        500 => "500",
        503 => "503",
        _ => return Cow::Owned(status.to_string()),
    };
    Cow::Borrowed(known)
}

/// JSON log lines on stderr ([`logline`]; `RUST_LOG` filters; default `info`), written in batches
/// by a thread of their own so that a request never waits for stderr
/// ([`logwriter`]): within 50 ms, and all of them when the returned guard is
/// dropped; when 32 MiB wait, further lines are dropped (and counted) rather than
/// holding up a request.
pub fn init_logging() -> Option<logwriter::Guard> {
    init_logging_as(LogFormat::Json)
}

/// How `roost serve` writes its log lines on stderr (`--log-format`): JSON lines
/// ([`logline`]) for machines, the default; or tracing's text lines for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Json,
    Text,
}

impl LogFormat {
    pub const ALL: [LogFormat; 2] = [LogFormat::Json, LogFormat::Text];

    pub fn as_str(self) -> &'static str {
        match self {
            LogFormat::Json => "json",
            LogFormat::Text => "text",
        }
    }
}

impl std::str::FromStr for LogFormat {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<LogFormat> {
        LogFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| anyhow!("unknown log format '{s}' (json or text)"))
    }
}

/// [`init_logging`] in `format`; the first call in a process sets the log, later
/// ones change nothing (and return `None`).
pub fn init_logging_as(format: LogFormat) -> Option<logwriter::Guard> {
    if tracing::dispatcher::has_been_set() {
        return None;
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let (writer, guard) = logwriter::batched(std::io::stderr());
    let direct = writer.clone();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    let set = match format {
        LogFormat::Json => builder.event_format(logline::JsonLine).try_init(),
        LogFormat::Text => builder.with_ansi(false).try_init(),
    };
    set.ok().map(|()| {
        if format == LogFormat::Json {
            // The access lines' bytes are JsonLine's (logline::Access); written
            // straight into the same writer, in order with every other line.
            logwriter::set_direct(direct);
        }
        guard
    })
}

/// Serves `state` on `listener` until `shutdown` completes, then lets in-flight
/// requests finish.
pub async fn run(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = app(state.clone());
    run_app(listener, state, app, shutdown).await
}

/// [`run`] with the app made already.
async fn run_app(
    listener: tokio::net::TcpListener,
    state: AppState,
    app: App,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let housekeeping = {
        let state = state.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                state.housekeeping();
            }
        })
    };
    let limits = state.config.conn;
    let result = conn::serve(listener, app, limits, shutdown).await;
    housekeeping.abort();
    result
}

/// `roost serve` on `addr` (checked by [`listen_addr`]) until SIGTERM or SIGINT.
// Long because start-up is a sequence (logging, state, runtime, listener, metrics,
// housekeeping, signals, drain) whose order matters and reads best in one place.
pub fn serve(config: ShimConfig, addr: SocketAddr) -> anyhow::Result<()> {
    let _log = init_logging();
    let env = config.env;
    let auth_db = config.auth_db.clone();
    let metrics_addr = config.metrics_listen;
    let (config_drain, config_grace) = (config.drain, config.grace);
    let state = AppState::new(config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("roost-serve")
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("listening on {addr}"))?;
        let local = listener.local_addr()?;
        // Start-up lines go to the log like every other (target `roost::start`).
        let url = format!("http://{local}");
        tracing::info!(
            target: "roost::start",
            url = %url,
            environment = env.as_str(),
            version = config::VERSION,
            "listening on {url} (environment {})",
            env.as_str()
        );
        if let Some(addr) = metrics_addr {
            metrics::handle();
            let metrics_listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("--metrics-listen {addr}"))?;
            let url = format!("http://{}/metrics", metrics_listener.local_addr()?);
            tracing::info!(target: "roost::start", url = %url, "metrics on {url}");
            tokio::spawn(run_metrics(metrics_listener, state.clone()));
        }
        if env.is_protected() {
            let active = credentials::open_existing(&auth_db)
                .and_then(|(conn, _)| credentials::list(&conn, Kind::Key))
                .map(|keys| keys.iter().filter(|k| k.revoked_at.is_none()).count())
                .unwrap_or(0);
            tracing::info!(
                target: "roost::start",
                unrevoked_keys = active,
                auth_db = %auth_db.display(),
                "REST requests need an X-API-Key header ({active} unrevoked key(s) in {}); \
                 create a key with: roost keys create --name NAME --auth-db {}",
                auth_db.display(),
                auth_db.display()
            );
        } else {
            tracing::info!(
                target: "roost::start",
                "no API key needed in the {} environment; try: curl {url}/api/v0/chapters/",
                env.as_str()
            );
        }

        // Listening from here on (`/healthz` answers), ready once warm: `/readyz`
        // answers 503 until the warm-up is over.
        let (app, warmup) = app_warming(state.clone());
        state.set_warming(true);
        tokio::spawn(warmup.run());

        let drain = config_drain;
        let grace = config_grace;
        let (tx, mut rx) = tokio::sync::watch::channel(false);
        {
            let state = state.clone();
            tokio::spawn(async move {
                shutdown_signal().await;
                state.begin_drain();
                tracing::info!(
                    target: "roost::shutdown",
                    drain_seconds = drain.as_secs_f64(),
                    "shutting down: /readyz answers 503; requests are served for {} s more \
                     (a second signal closes the listener at once)",
                    drain.as_secs_f64()
                );
                tokio::select! {
                    _ = tokio::time::sleep(drain) => {}
                    _ = shutdown_signal() => {}
                }
                tracing::info!(
                    target: "roost::shutdown",
                    grace_seconds = grace.as_secs_f64(),
                    "closing the listener: each connection closes after its next answer; \
                     requests in progress have {} s",
                    grace.as_secs_f64()
                );
                let _ = tx.send(true);
            });
        }
        let mut rx_grace = rx.clone();
        let server = run_app(listener, state, app, async move {
            let _ = rx.wait_for(|stop| *stop).await;
        });
        tokio::select! {
            result = server => {
                result.context("serving")?;
                tracing::info!(target: "roost::shutdown", "stopped: every connection is closed");
            }
            _ = async {
                let _ = rx_grace.wait_for(|stop| *stop).await;
                tokio::time::sleep(grace).await;
            } => {
                tracing::warn!(
                    target: "roost::shutdown",
                    "requests still open {} s after the listener closed; exiting",
                    grace.as_secs_f64()
                );
            }
        }
        Ok(())
    })
}

/// Serves `/metrics` on its own listener (never on the public one).
pub async fn run_metrics(listener: tokio::net::TcpListener, state: AppState) {
    tokio::spawn(metrics::upkeep(Duration::from_secs(5)));
    if let Err(e) = axum::serve(listener, metrics::router(state)).await {
        tracing::error!(error = %e, "the metrics listener stopped");
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

/// The address to bind; refuses an unauthenticated environment on a public one.
pub fn listen_addr(listen: &str, env: Env, allow_public: bool) -> anyhow::Result<SocketAddr> {
    let addrs: Vec<SocketAddr> = listen
        .to_socket_addrs()
        .with_context(|| format!("--listen {listen}: not an address (e.g. 127.0.0.1:8000)"))?
        .collect();
    let first = *addrs
        .first()
        .ok_or_else(|| anyhow!("--listen {listen} resolves to no address"))?;
    if !env.is_protected() && !allow_public && addrs.iter().any(|a| !a.ip().is_loopback()) {
        bail!(
            "refusing to serve the {} environment, where REST needs no API key, on {listen}, \
             which is not a loopback address; listen on 127.0.0.1, use --env production or \
             staging, or pass --allow-unauthenticated-public",
            env.as_str()
        );
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_chars_counts_characters_not_bytes() {
        assert_eq!(first_chars("abc", 5), "abc");
        assert_eq!(first_chars("abcdef", 3), "abc");
        assert_eq!(first_chars("éé", 4), "éé");
        assert_eq!(first_chars("ééé", 2), "éé");
        assert_eq!(first_chars("ééééé", 4), "éééé");
        assert_eq!(first_chars("", 0), "");
    }

    #[test]
    fn unauthenticated_environments_stay_on_loopback() {
        assert!(listen_addr("127.0.0.1:0", Env::Local, false).is_ok());
        assert!(listen_addr("[::1]:0", Env::E2e, false).is_ok());
        let err = listen_addr("0.0.0.0:8000", Env::Local, false).unwrap_err();
        assert!(err.to_string().contains("--allow-unauthenticated-public"));
        assert!(listen_addr("0.0.0.0:8000", Env::E2e, false).is_err());
        assert!(listen_addr("0.0.0.0:8000", Env::Local, true).is_ok());
        assert!(listen_addr("0.0.0.0:8000", Env::Production, false).is_ok());
        assert!(listen_addr("0.0.0.0:8000", Env::Staging, false).is_ok());
        assert!(listen_addr("nonsense", Env::Local, false).is_err());
    }
}
