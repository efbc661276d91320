//! roost's integration tests: one test binary laid out like the API. `api` holds the
//! REST catalog's answers and the shim over HTTP (auth, limits, connections, the
//! OpenAPI document and the docs page), `graphql` the GraphQL endpoint, `cli` the
//! commands and the `roost` binary; `support` holds the fixtures they share.
//!
//! Run one part with a filter: `cargo test --test all api::http`, `cargo test --test
//! all graphql::`.

mod api;
mod cli;
mod graphql;
mod support;
