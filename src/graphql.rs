//! The GraphQL API for the web frontend (`/graphql/`, `/csrf/`).

use std::path::PathBuf;

use crate::cli::Env;

/// What the GraphQL routes need from the shim.
#[derive(Debug, Clone)]
pub struct GraphqlConfig {
    pub db: PathBuf,
    pub auth_db: PathBuf,
    pub env: Env,
}

/// The routes `/graphql/` (and `/graphql`) and `/csrf/`, merged into the shim's app.
pub fn routes(_config: GraphqlConfig) -> axum::Router {
    axum::Router::new()
}
