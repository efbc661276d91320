//! The REST API (docs/api.md §2–§5, §7): the catalog's answers per resource, the
//! shim over HTTP in-process and over sockets, keys and limits, the tree against live
//! answers, the OpenAPI document and the docs page.

mod access_log;
mod auth;
mod catalog;
mod compression;
mod connections;
mod credential_store;
mod docs;
mod failed_auth;
mod health;
mod http;
mod identity;
mod idx;
mod key_cache;
mod live_cache;
mod metrics;
mod openapi;
mod proxies;
mod rate_headers;
mod redis_limits;
mod rejection_log;
mod socket;
