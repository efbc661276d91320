//! The GraphQL API for the web frontend (`/graphql/`, `/csrf/`): docs/api.md §1, §5
//! and §6.
//!
//! - [`query`] and [`types`]: the schema, over the same dataset and lookup rules as the
//!   REST API; [`loaders`]: batched relations (no N+1); [`db`]: the resolvers' view of
//!   the read pool the shim hands over ([`crate::pool`]), with a time limit per call and
//!   a statement count.
//! - [`totals`]: contributions summed per member, over every repository and per
//!   organization, computed once per dataset file (`topContributors` and the counts of
//!   contributors read them instead of grouping the table on every request).
//! - [`limits`]: width, depth, complexity, body size, time and rate limits, checked
//!   before any data is read; the database-time budget and the pool share of a request
//!   are kept by [`db`].
//! - [`run`]: a request is checked on a schema with the limits and executed on one
//!   without extensions; [`order`] puts the response's keys in query order.
//! - [`answers`]: executed answers kept per dataset file, so a repeated page query is
//!   answered from memory.
//! - [`http`]: GraphQL over HTTP (POST JSON and GET), sessions (checked in the shim's
//!   credential store, [`crate::credentials`]) and CSRF in production and staging, the
//!   explorer page in local and e2e.
//!
//! The schema's SDL is committed as `schema.graphql` at the repository root (see
//! [`sdl`]); a test fails when it drifts (`UPDATE_SNAPSHOTS=1` rewrites it).

mod answers;
mod db;
mod escape;
mod explorer;
mod first_visit;
mod http;
mod limits;
mod loaders;
mod mentorship;
mod order;
mod plain;
mod query;
mod records;
mod root;
mod rows;
mod run;
mod totals;
mod types;
mod warm;

use std::sync::Arc;

use async_graphql::{EmptyMutation, EmptySubscription, Schema};

use crate::config::Env;
use crate::credentials::Credentials;
use crate::guard::CredentialCheck;
use crate::pool::ReadPool;

pub use crate::guard::credential::SESSION_COOKIE;
pub use answers::{Answers, NoAnswers};
pub use limits::{Limits, DEFAULT_BURST};
pub use totals::FACTS_BUILDS;
pub use warm::Operation;

/// What the GraphQL routes need from the shim.
#[derive(Debug, Clone)]
pub struct GraphqlConfig {
    /// The dataset, shared with the REST answers.
    pub pool: ReadPool,
    /// Where sessions are checked in production and staging (every request is refused
    /// with a 500 there without one); unused in local and e2e.
    pub credentials: Option<Credentials>,
    pub env: Env,
    /// Where executed answers are kept ([`answers`]); [`NoAnswers`] keeps none.
    pub answers: Arc<dyn Answers>,
}

/// The schema type.
pub type RoostSchema = Schema<root::Query, EmptyMutation, EmptySubscription>;

/// The routes `/graphql/` (and `/graphql`) and `/csrf/` (and `/csrf`), merged into the
/// shim's app; in local and e2e also the explorer's assets under `/graphql/`.
pub fn routes(config: GraphqlConfig, limits: Limits) -> axum::Router {
    Service::new(config, limits).router()
}

/// The schema in GraphQL SDL, as committed in `schema.graphql`.
pub fn sdl() -> String {
    Schema::build(root::Query::default(), EmptyMutation, EmptySubscription)
        .finish()
        .sdl()
}

/// One set of GraphQL routes: the schema, the dataset, the sessions and the limits.
pub struct Service {
    /// The checking and the executing schema ([`run`]).
    schemas: run::Schemas,
    /// Executed answers, per dataset file.
    answers: Arc<dyn Answers>,
    db: Arc<db::Db>,
    /// Sessions, checked in the credential store (production and staging).
    credential: CredentialCheck,
    env: Env,
    limits: Limits,
    /// Calls of one request holding a read-pool permit at once.
    pool_share: usize,
    /// Requests per second per anonymous client address and per trusted caller.
    rate: limits::ClientLimiter,
    /// The CSRF tokens of callers without the cookie, handed out again for a moment.
    first_visits: first_visit::FirstVisits,
}

impl Service {
    /// The routes' service, with the contribution sums and the other facts kept per
    /// dataset file computed before it answers anything: the first requests would
    /// otherwise all wait for them (bench/history/2026-11.md, "GraphQL: the home
    /// page's stall at 16 connections").
    pub fn new(config: GraphqlConfig, limits: Limits) -> Arc<Service> {
        let service = Service::cold(config, limits);
        service.db.compute_totals();
        service
    }

    /// [`Service::new`] without the facts: for a caller that builds them, and what
    /// else the first requests would pay for, with [`Service::warm`] before it sends
    /// requests this way (`roost serve`, whose listener answers `/healthz` meanwhile).
    pub fn cold(config: GraphqlConfig, limits: Limits) -> Arc<Service> {
        let db = db::Db::new(config.pool);
        let pool_share = limits.pool_share.unwrap_or(db.permits() / 2).max(1);
        let introspection = !config.env.is_protected();
        if config.env.is_protected() && config.credentials.is_none() {
            tracing::warn!("graphql: no credential store; requests with a session are refused");
        }
        Arc::new(Service {
            schemas: run::Schemas::new(limits::Guard::new(&limits, introspection), introspection),
            db,
            answers: config.answers,
            credential: CredentialCheck::new(config.credentials, None),
            env: config.env,
            rate: limits::ClientLimiter::new(&limits),
            limits,
            pool_share,
            first_visits: Default::default(),
        })
    }

    /// The axum routes of this service.
    pub fn router(self: &Arc<Self>) -> axum::Router {
        http::router(Arc::clone(self))
    }

    /// SQL statements run so far by GraphQL requests (for the N+1 tests).
    pub fn sql_statements(&self) -> u64 {
        self.db.statements()
    }

    /// Whether sessions, CSRF and the closed schema apply (production, staging).
    fn protected(&self) -> bool {
        self.env.is_protected()
    }
}
