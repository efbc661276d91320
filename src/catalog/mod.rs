//! The catalog: the one place that knows the semantics of every REST v0 list and
//! detail (docs/api.md §3).

mod tables;

pub use tables::*;
