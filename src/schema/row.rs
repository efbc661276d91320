//! One way to read a row: a cursor over its columns ([`Cols`]), and the types read
//! from a select list declared beside their fields ([`Selected`], [`selected!`]).

use std::marker::PhantomData;

use rusqlite::{Connection, Row};

use super::values::Ts;

/// A type read from one row of its own select list, left to right.
pub trait Selected: Sized {
    /// The select list, comma-separated SQL expressions over the record aliased `t`
    /// (and whatever the query's `FROM` joins).
    const COLUMNS: &'static str;
    /// Reads the type from the columns at the cursor.
    fn read(c: &mut Cols) -> rusqlite::Result<Self>;
}

/// Reads the columns of a row left to right; the row's connection serves fields that
/// take a statement of their own (a detail's leaders).
pub struct Cols<'a, 'r> {
    conn: &'a Connection,
    row: &'a Row<'r>,
    next: usize,
}

impl<'a, 'r> Cols<'a, 'r> {
    /// A cursor at the first column of a row of a statement on `conn`.
    pub fn new(conn: &'a Connection, row: &'a Row<'r>) -> Cols<'a, 'r> {
        Cols { conn, row, next: 0 }
    }

    /// The connection the row was read on.
    pub fn conn(&self) -> &'a Connection {
        self.conn
    }

    pub fn get<T: rusqlite::types::FromSql>(&mut self) -> rusqlite::Result<T> {
        let value = self.row.get(self.next)?;
        self.next += 1;
        Ok(value)
    }

    /// A timestamp column (INTEGER microseconds) as ISO 8601 UTC text.
    pub fn ts(&mut self) -> rusqlite::Result<String> {
        Ok(Ts(self.get()?).format())
    }

    /// A nullable timestamp column.
    pub fn opt_ts(&mut self) -> rusqlite::Result<Option<String>> {
        Ok(self.get::<Option<i64>>()?.map(|t| Ts(t).format()))
    }

    /// A JSON array of strings stored as text (`languages`, `topics`). Text that is
    /// not one is an error, like any column of the wrong type, not an empty list.
    pub fn string_list(&mut self) -> rusqlite::Result<Vec<String>> {
        let index = self.next;
        let text: String = self.get()?;
        serde_json::from_str(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(
                index,
                rusqlite::types::Type::Text,
                Box::new(e),
            )
        })
    }

    /// Skips columns (window bookkeeping).
    pub fn skip(&mut self, n: usize) {
        self.next += n;
    }
}

/// `s` without its first two bytes: the `", "` that [`selected!`] puts before every
/// expression of a select list, the first one included (an empty list stays empty).
pub const fn after_separator(s: &'static str) -> &'static str {
    if s.len() < 2 {
        return "";
    }
    let (_, rest) = s.as_bytes().split_at(2);
    match std::str::from_utf8(rest) {
        Ok(rest) => rest,
        Err(_) => panic!("a select list starts with \", \""),
    }
}

/// The columns of a [`Selected`] type `T` by field: [`selected!`] gives
/// `ColumnsOf<T>` a constant named after each field, the position of the field's
/// first column in `T::COLUMNS`, so that a row can be read by position without a
/// position kept by hand (`ColumnsOf::<Release>::tag_name`).
pub struct ColumnsOf<T>(PhantomData<T>);

/// The columns of a select list: its expressions separated by commas outside
/// parentheses and quotes (`"t.a, f(t.b, t.c)"` is two); none for an empty list.
pub const fn select_width(sql: &str) -> usize {
    let bytes = sql.as_bytes();
    let (mut i, mut depth, mut quote) = (0, 0usize, 0u8);
    let (mut columns, mut blank) = (1, true);
    while i < bytes.len() {
        let b = bytes[i];
        if quote != 0 {
            if b == quote {
                quote = 0;
            }
        } else if b == b'\'' || b == b'"' {
            quote = b;
        } else if b == b'(' {
            depth += 1;
        } else if b == b')' {
            depth = depth.saturating_sub(1);
        } else if b == b',' && depth == 0 {
            columns += 1;
        }
        if !b.is_ascii_whitespace() {
            blank = false;
        }
        i += 1;
    }
    if blank {
        0
    } else {
        columns
    }
}

/// Declares a struct whose every field is read from one SQL expression, and its
/// [`Selected`] implementation (select list and reader, in field order). Each field
/// ends with `= HOW(ARGS)`:
///
/// - `get("o.login")`: the expression's value as the field's type (`FromSql`);
/// - `ts("p.created_at")` / `opt_ts(...)`: microseconds as ISO 8601 text;
/// - `list("r.topics")`: a JSON array of strings stored as text;
/// - `get()`, `ts()`, `opt_ts()`, `list()`: the same, of the record's own column named
///   like the field (`t.<field>`), so a column is named once;
/// - `flatten(Base)`: another [`Selected`] type's columns, read in place (with
///   `#[serde(flatten)]`, a detail that extends its list item);
/// - `with(read_fn, "t.id")`: `read_fn(cursor)` reads the expression and whatever it
///   needs besides (a detail's leaders);
/// - `later()`: no column; the field starts as its `Default` and is set by the
///   finishing function.
///
/// `struct Name: node { ... }` starts the struct with the GraphQL node id every record
/// object has (`id`, opaque and stable, set when the record is finished), and
/// `struct Name: node, id { ... }` with the record's row id as well (`t.id`, not shown).
///
/// `struct NameDetail: extends Name { ... }` starts a REST detail body with the fields
/// of its list item `Name`, flattened into it (`base`).
///
/// After the struct, `=> finish("extra", ...)` reads the extra expressions (appended
/// to the select list) with `finish(&mut record, cursor)`, which derives the `later`
/// fields (GraphQL's node ids) and may rewrite others. Two finishes are declared
/// instead: `=> keyed("Type", field)` sets the node id from `Type` and the field in
/// lower case, and `=> keyed("Type", key, "prefix-")` also takes the prefix off the
/// key afterwards; `=> numbered("Type")` sets it from the organization, repository and
/// number of a record numbered in its repository. Attributes on the struct and its
/// fields (derives, serde, utoipa, GraphQL) pass through unchanged.
///
/// Each field's first column is also a constant of [`ColumnsOf`]`<Name>`, named
/// after the field (a `later()` field's is where the next field starts).
///
/// `..group { field, ... }` among the fields includes fields of a
/// [`field_group!`](crate::field_group) there.
#[macro_export]
macro_rules! selected {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident : node $(, $id:ident)? { $($fields:tt)* }
        $($tail:tt)*
    ) => {
        $crate::selected! {
            $(#[$attr])*
            $vis struct $name {
                /// Opaque and stable: the same record has the same id in every regeneration.
                #[graphql(name = "id")]
                pub node_id: ::async_graphql::ID = later(),
                $(
                    #[graphql(skip)]
                    pub $id: i64 = get(),
                )?
                $($fields)*
            }
            $($tail)*
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident : extends $base:ty { $($fields:tt)* }
    ) => {
        $crate::selected! {
            $(#[$attr])*
            $vis struct $name {
                #[serde(flatten)]
                #[schema(inline)]
                pub base: $base = flatten($base),
                $($fields)*
            }
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident { $($fields:tt)* }
        $($tail:tt)*
    ) => {
        $crate::selected! {
            @fields [$(#[$attr])* $vis struct $name] [$($tail)*] [] $($fields)*
        }
    };
    // The fields, group inclusions expanded, one at a time.
    (
        @fields $head:tt $tail:tt [$($done:tt)*]
        ..$group:ident { $($names:tt)* } $(, $($rest:tt)*)?
    ) => {
        $group! {
            [$crate::selected] [@fields $head $tail] [$($done)*] { $($names)* } $($($rest)*)?
        }
    };
    (
        @fields $head:tt $tail:tt [$($done:tt)*]
        $(#[$fattr:meta])*
        $fvis:vis $field:ident : $ty:ty = $how:ident ( $($args:tt)* )
        $(, $($rest:tt)*)?
    ) => {
        $crate::selected! {
            @fields $head $tail
            [$($done)* $(#[$fattr])* $fvis $field: $ty = $how($($args)*),]
            $($($rest)*)?
        }
    };
    (@fields [$($head:tt)*] [$($tail:tt)*] [$($done:tt)*]) => {
        $crate::selected! { @record $($head)* { $($done)* } $($tail)* }
    };
    (
        @record
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$fattr:meta])*
                $fvis:vis $field:ident : $ty:ty = $how:ident ( $($args:tt)* )
            ),* $(,)?
        }
        $( => $($finish:tt)+ )?
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $( $(#[$fattr])* $fvis $field: $ty, )*
        }

        impl $crate::schema::Selected for $name {
            const COLUMNS: &'static str = $crate::schema::after_separator(
                $crate::schema::concatcp!(
                    $( $crate::selected!(@sql $field $how($($args)*)), )*
                    $( $crate::selected!(@extra $($finish)+), )?
                )
            );
            #[allow(unused_mut)]
            fn read(c: &mut $crate::schema::Cols) -> ::rusqlite::Result<Self> {
                let mut record = $name {
                    $( $field: $crate::selected!(@read c $how($($args)*)), )*
                };
                $( $crate::selected!(@finish record c $($finish)+); )?
                Ok(record)
            }
        }

        #[allow(dead_code, non_upper_case_globals)]
        impl $crate::schema::ColumnsOf<$name> {
            $crate::selected!(@offsets 0usize; $( $field $how($($args)*) )*);
        }
    };
    (@offsets $at:expr;) => {};
    (@offsets $at:expr; $field:ident $how:ident($($args:tt)*) $($rest:tt)*) => {
        pub const $field: usize = $at;
        $crate::selected!(@offsets $at + $crate::selected!(@width $how($($args)*)); $($rest)*);
    };
    (@width later()) => { 0 };
    (@width $how:ident()) => { 1 };
    (@width flatten($base:ty)) => {
        $crate::schema::select_width(<$base as $crate::schema::Selected>::COLUMNS)
    };
    (@width with($read:path, $sql:expr)) => { $crate::schema::select_width($sql) };
    (@width $how:ident($sql:expr)) => { $crate::schema::select_width($sql) };
    (@sql $field:ident later()) => { "" };
    (@sql $field:ident flatten($base:ty)) => {
        $crate::schema::concatcp!(", ", <$base as $crate::schema::Selected>::COLUMNS)
    };
    (@sql $field:ident with($read:path, $sql:expr)) => { $crate::schema::concatcp!(", ", $sql) };
    (@sql $field:ident $how:ident()) => { concat!(", t.", stringify!($field)) };
    (@sql $field:ident $how:ident($sql:expr)) => { $crate::schema::concatcp!(", ", $sql) };
    (@read $c:ident later()) => { ::std::default::Default::default() };
    (@read $c:ident get($($sql:expr)?)) => { $c.get()? };
    (@read $c:ident ts($($sql:expr)?)) => { $c.ts()? };
    (@read $c:ident opt_ts($($sql:expr)?)) => { $c.opt_ts()? };
    (@read $c:ident list($($sql:expr)?)) => { $c.string_list()? };
    (@read $c:ident flatten($base:ty)) => {
        <$base as $crate::schema::Selected>::read($c)?
    };
    (@read $c:ident with($read:path, $sql:expr)) => { $read($c)? };
    (@extra keyed($($args:tt)*)) => { "" };
    (@extra numbered($($args:tt)*)) => { "" };
    (@extra $finish:path $( [ $($extra:expr),* $(,)? ] )?) => {
        $crate::schema::concatcp!("" $( $( , ", ", $extra )* )?)
    };
    (@finish $rec:ident $c:ident keyed($node:literal, $field:ident $(, $prefix:literal)?)) => {
        $rec.node_id = $crate::schema::lc_node_id($node, &$rec.$field);
        $( $rec.$field = $crate::schema::short_key(&$rec.$field, $prefix).to_string(); )?
    };
    (@finish $rec:ident $c:ident numbered($node:literal)) => {
        $rec.node_id = $crate::schema::repo_node_id(
            $node,
            &$rec.organization_name,
            &$rec.repository_name,
            &["#", itoa::Buffer::new().format($rec.number)],
        );
    };
    (@finish $rec:ident $c:ident $finish:path $( [ $($extra:expr),* $(,)? ] )?) => {
        $finish(&mut $rec, $c)?
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_widths_count_the_expressions_outside_parentheses_and_quotes() {
        assert_eq!(select_width(""), 0);
        assert_eq!(select_width("  "), 0);
        assert_eq!(select_width("t.a"), 1);
        assert_eq!(select_width("t.a, t.b IS NOT NULL"), 2);
        assert_eq!(select_width("f(t.a, (t.b), t.c), 'x,y', \"a,b\", t.d"), 4);
    }

    crate::selected! {
        struct Inner {
            a: i64 = get(),
            b: Option<String> = get("(SELECT x FROM y WHERE y.p = t.p ORDER BY x, y LIMIT 1)"),
        }
    }

    crate::selected! {
        struct Outer {
            first: i64 = later(),
            inner: Inner = flatten(Inner),
            c: String = get(),
            d: bool = with(read_pair, "t.d, t.e"),
            f: i64 = get(),
        }
    }

    fn read_pair(c: &mut Cols) -> rusqlite::Result<bool> {
        let d: bool = c.get()?;
        c.skip(1);
        Ok(d)
    }

    /// The positions of the fields are the positions of their columns in the list.
    #[test]
    fn field_positions_follow_the_declaration() {
        type C = ColumnsOf<Outer>;
        assert_eq!([C::first, C::inner, C::c, C::d, C::f], [0, 0, 2, 3, 5]);
        assert_eq!([ColumnsOf::<Inner>::a, ColumnsOf::<Inner>::b], [0, 1]);
        assert_eq!(select_width(Outer::COLUMNS), 6);
        assert!(
            Outer::COLUMNS.ends_with(", t.c, t.d, t.e, t.f"),
            "{}",
            Outer::COLUMNS
        );
        let conn = Connection::open_in_memory().unwrap();
        let sql = "SELECT 1, 'b', 'c', 1, 0, 7";
        let outer = conn
            .query_row(sql, [], |row| Outer::read(&mut Cols::new(&conn, row)))
            .unwrap();
        assert_eq!(
            (outer.inner.a, outer.c.as_str(), outer.d, outer.f),
            (1, "c", true, 7)
        );
        assert_eq!(outer.first, 0);
        assert_eq!(outer.inner.b.as_deref(), Some("b"));
    }
}
