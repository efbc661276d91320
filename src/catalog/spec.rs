//! The catalog's spec types: what one list or detail operation is (its tables, base
//! condition, columns, filters, orderings, ids) and how its rows become response
//! bodies ([`Item`], [`Body`]) that OpenAPI describes from the same types
//! ([`Component`]).

use std::borrow::Cow;

use rusqlite::{Connection, Row};
use serde::Serialize;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use crate::schema::{Cols, Selected};
use crate::vocab::Vocab;

/// Default and maximum page size.
pub const PAGE_SIZE: u64 = 100;

/// The largest `page` accepted: the largest signed 64-bit integer, so that the
/// `int64` of generated clients holds every valid page. A page above the last one is
/// a 404; a number above this bound is a 400 saying so.
pub const PAGE_MAX: u64 = i64::MAX as u64;

/// How a query parameter is read and applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// Whole-value equality, case-insensitive (the column holds the lower case).
    Text,
    /// Whole-value equality, case-sensitive.
    Exact,
    /// One value of a vocabulary, exact.
    Choice(&'static Vocab),
    /// Repeatable: any of several values of a vocabulary, exact.
    Choices(&'static Vocab),
    /// `true`/`false`/`1`/`0`, any case; filters on equality.
    Bool,
    /// A float lower bound (inclusive).
    Gte,
    /// A float upper bound (inclusive).
    Lte,
    /// `is_upcoming`: a boolean that depends on the day of the request.
    Upcoming,
    /// Structured search (`q`).
    Search,
}

impl ParamKind {
    /// Filters whose every value occurring in the data is pre-rendered.
    pub fn enumerable(self) -> bool {
        matches!(
            self,
            ParamKind::Text
                | ParamKind::Exact
                | ParamKind::Choice(_)
                | ParamKind::Choices(_)
                | ParamKind::Bool
        )
    }
}

/// A filter parameter of a list.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    /// SQL expression compared with the canonical value (for `Bool`, it yields
    /// `'true'`/`'false'`).
    pub expr: &'static str,
    pub description: &'static str,
}

/// An ordering field of a list.
#[derive(Debug)]
pub struct OrderField {
    pub name: &'static str,
    /// SQL expressions sorted in the requested direction, most significant first.
    pub keys: &'static [&'static str],
    /// Set when the field can be null: nulls come last in both directions.
    pub nullable: bool,
    /// Tie-breakers after the field (SQL, with their own direction), before the id.
    pub tie: &'static str,
}

/// Everything about one list operation.
#[derive(Debug)]
pub struct ListSpec {
    /// URL segment: `chapters` (for snapshot sub-lists, the segment after the snapshot).
    pub path: &'static str,
    pub operation_id: &'static str,
    /// Whether this is a snapshot sub-list (`/snapshots/{id}/<path>/`).
    pub snapshot_link: Option<SnapshotLink>,
    /// The tables, the record's aliased `t`: for a kind with an exposure rule, its
    /// view (`api_chapters`, …; `crate::schema::exposure`).
    pub from: &'static str,
    /// The select list and how a row of it becomes an item.
    pub item: ItemType,
    pub params: &'static [Param],
    pub orderings: &'static [OrderField],
    pub default_order: &'static str,
    /// How the documentation words `default_order` when it is none of the orderings;
    /// empty for the records' stable id order.
    pub default_order_words: &'static str,
    /// Events: with `is_upcoming=true` the tie-breaker and default order change.
    pub upcoming: Option<UpcomingRules>,
}

impl ListSpec {
    /// The positions in [`ListSpec::params`] of the filters whose values are
    /// pre-rendered ([`ParamKind::enumerable`]), in declared order: the filters a
    /// list's tree folders are named after.
    pub fn enumerable_params(&self) -> Vec<usize> {
        (self.params.iter().enumerate())
            .filter(|(_, p)| p.kind.enumerable())
            .map(|(i, _)| i)
            .collect()
    }
}

#[derive(Debug)]
pub struct SnapshotLink {
    pub table: &'static str,
    pub column: &'static str,
}

#[derive(Debug)]
pub struct UpcomingRules {
    pub column: &'static str,
    pub tie: &'static str,
    pub default_order: &'static str,
}

pub use crate::schema::short_key;

/// How one detail path segment is turned into its canonical value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IdRule {
    /// Case-insensitive key with an optional prefix (`london` or `www-chapter-london`).
    Prefixed(&'static str),
    /// Case-insensitive.
    Ci,
    /// Case-sensitive (release tags).
    Exact,
    /// An integer; anything else is an unknown path.
    Number,
}

/// Everything about one detail operation.
#[derive(Debug)]
pub struct DetailSpec {
    pub path: &'static str,
    pub operation_id: &'static str,
    /// Singular resource name for "<Name> not found".
    pub singular: &'static str,
    /// Path parameter names, one per segment.
    pub id_names: &'static [&'static str],
    pub ids: &'static [IdRule],
    /// The tables, the record's aliased `t`: for a kind with an exposure rule, its
    /// view (`api_chapters`, …; `crate::schema::exposure`).
    pub from: &'static str,
    /// SQL condition with `?1`, `?2`, ... bound to the canonical ids.
    pub lookup: &'static str,
    /// SQL expressions yielding the canonical ids of a record (for enumeration).
    pub id_exprs: &'static [&'static str],
    /// The select list and how a row of it becomes the body.
    pub body: BodyType,
}

// ----------------------------------------------------------------------------------
// Response types

/// A list item: a [`Selected`] type (its select list and reader declared with its
/// fields), serialised as the item and described to OpenAPI by its `ToSchema`.
pub trait Item: Selected + Serialize + ToSchema {}
impl<T: Selected + Serialize + ToSchema> Item for T {}

/// A detail body, like an [`Item`] (leaders take one more statement on the same
/// connection).
pub trait Body: Item {}
impl<T: Item> Body for T {}

/// The OpenAPI component of a response type.
#[derive(Debug, Clone, Copy)]
pub struct Component {
    /// The component's name.
    pub name: fn() -> Cow<'static, str>,
    /// Adds the component and those it references to a list of (name, schema).
    pub add: fn(&mut Vec<(String, RefOr<Schema>)>),
}

impl Component {
    pub const fn of<T: ToSchema>() -> Component {
        Component {
            name: T::name,
            add: add_component::<T>,
        }
    }
}

fn add_component<T: ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) {
    out.push((T::name().into_owned(), T::schema()));
    T::schemas(out);
}

/// The item type of a list: its select list, how a row of it is serialised and the
/// component describing it, all from one [`Item`] type, so neither the SQL nor the
/// document can drift from the bytes.
#[derive(Debug, Clone, Copy)]
pub struct ItemType {
    pub columns: &'static str,
    pub render: fn(&Connection, &Row) -> rusqlite::Result<Vec<u8>>,
    /// `render`, appended to a buffer (a live page writes its items straight into
    /// the response body): the same bytes, without a buffer per item.
    pub render_into: fn(&Connection, &Row, &mut Vec<u8>) -> rusqlite::Result<()>,
    pub schema: Component,
}

impl ItemType {
    pub const fn of<T: Item>() -> ItemType {
        ItemType {
            columns: T::COLUMNS,
            render: render::<T>,
            render_into: render_into::<T>,
            schema: Component::of::<T>(),
        }
    }
}

/// The body type of a detail: an [`ItemType`] of a [`Body`].
pub type BodyType = ItemType;

fn render<T: Item>(conn: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&T::read(&mut Cols::new(conn, row))?)
}

fn render_into<T: Item>(conn: &Connection, row: &Row, out: &mut Vec<u8>) -> rusqlite::Result<()> {
    let value = T::read(&mut Cols::new(conn, row))?;
    serde_json::to_writer(out, &value)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

/// A body as JSON; a serialisation failure is an error of the row, not an empty body.
fn json<T: Serialize>(value: &T) -> rusqlite::Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}
