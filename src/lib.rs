//! roost: the public directory API of an open-source security community.
//!
//! Data flows one way: [`store`] (the SQLite dataset) → [`catalog`] (the semantics of
//! every list and detail) → [`generate`] (the pre-rendered tree) or the shim.

#![forbid(unsafe_code)]

pub mod atomic;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod crash;
pub mod credentials;
pub mod docs;
pub mod error;
pub mod generate;
pub mod graphql;
pub mod guard;
pub mod idx;
pub mod limits;
pub mod lock;
pub mod manifest;
pub mod mirror;
pub mod model;
pub mod openapi;
pub mod pool;
pub mod records;
pub mod rest_errors;
pub mod schema;
pub mod search;
pub mod shim;
pub mod store;
pub mod synth;
pub mod tree;
pub mod vocab;
