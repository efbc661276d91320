//! The catalog: the one place that knows the semantics of every REST v0 list and
//! detail (docs/api.md §3): which records exist for the API, each list's filters and
//! their validation, orderings with tie-breakers, default order, pagination and the
//! envelope, item and detail shapes, and how detail ids are looked up.
//!
//! Both the generator (which enumerates canonical queries and renders every page) and
//! the shim (which answers what the tree does not hold) call it, so a pre-rendered file
//! and a live answer for the same request are the same bytes. GraphQL reuses its
//! lookups; both read what the API exposes from [`crate::schema::exposure`].
//!
//! Its parts (re-exported here, so callers name `catalog::X`):
//! - `spec`: the spec types and the response-type links ([`Item`], [`Body`]; the
//!   bodies declare their select lists in [`crate::model`]);
//! - `tables`: the lists and details as declarative tables;
//! - `query`: query parsing and validation, the canonical form, SQL conditions;
//! - `answer`: running a list or detail against SQLite, envelopes, pagination;
//! - `enumerate`: the generator's unrendered reads of whole scopes, and chosen bodies;

mod answer;
mod enumerate;
mod query;
mod spec;
mod tables;

pub use answer::{
    detail, list_page, list_page_of, render_page, root, snapshot_id, snapshot_keys, total_pages,
    AnswerError,
};
pub use enumerate::{bodies, detail_rows, detail_rows_among, scope_rows, DetailRow, ScopeRows};
pub use query::{
    canonical_ids, encode, order_sql, ordering_values, parse_query, FieldError, FilterValue,
    ListQuery, OrderChoice, COMPONENT,
};
pub use spec::short_key;
pub use spec::{
    Body, BodyType, Component, DetailSpec, IdRule, Item, ItemType, ListSpec, OrderField, Param,
    ParamKind, SnapshotLink, UpcomingRules, PAGE_MAX, PAGE_SIZE,
};
pub use tables::{detail_spec, list_spec, snapshot_list_spec, DETAILS, LISTS, SNAPSHOT_LISTS};
