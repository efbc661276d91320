//! Interchange records as the dataset keeps them: each field of a record declared
//! with [`stored!`] says once whether it is a column of the record's table (with a
//! lower-case search shadow or not) or kept elsewhere (a reference resolved to an id,
//! a row of a side table), and from that the writer's named `INSERT` and the
//! export's select list are made.

use rusqlite::types::{ToSqlOutput, Value};

use super::values::{Color, Counts, Date, Ts};

/// How a column becomes a JSON value when a record is exported.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// Text (or NULL → `null`).
    Str,
    /// Integer (or NULL → `null`).
    Int,
    /// Integer 0/1.
    Bool,
    /// Real (or NULL → `null`).
    Real,
    /// Microseconds since the epoch (or NULL → `null`) → RFC 3339.
    Ts,
    /// JSON text (arrays of strings or objects built by the query).
    Json,
}

/// Where one field of an interchange record is kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keep {
    /// A column of the record's table named like the field.
    Column(Kind),
    /// A column named like the field, and its lower-case shadow `<field>_lc` that
    /// case-insensitive filters and search read.
    Shadowed(Kind),
    /// Elsewhere: a reference kept as an id, a side table; the writer and the export
    /// name it themselves.
    Elsewhere,
}

/// A value that is one column of the dataset.
pub trait Stored {
    const KIND: Kind;
    fn column(&self) -> rusqlite::Result<ToSqlOutput<'_>>;
}

/// Declares how each plain value becomes its column: `Type => Kind, |value| column`.
macro_rules! plain_stored {
    ($( $(#[$doc:meta])* $ty:ty => $kind:ident, |$v:ident| $column:expr; )*) => {
        $(
            $(#[$doc])*
            impl Stored for $ty {
                const KIND: Kind = Kind::$kind;
                fn column(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                    let $v = self;
                    Ok($column)
                }
            }
        )*
    };
}

plain_stored! {
    String => Str, |v| ToSqlOutput::from(v.as_str());
    /// Counts: a count past the largest signed 64-bit integer is kept as that integer.
    u64 => Int, |v| ToSqlOutput::Owned(Value::Integer((*v).min(i64::MAX as u64) as i64));
    i64 => Int, |v| ToSqlOutput::Owned(Value::Integer(*v));
    bool => Bool, |v| ToSqlOutput::Owned(Value::Integer(i64::from(*v)));
    f64 => Real, |v| ToSqlOutput::Owned(Value::Real(*v));
    Ts => Ts, |v| ToSqlOutput::Owned(Value::Integer(v.0));
    Date => Str, |v| ToSqlOutput::from(v.0.as_str());
    Color => Str, |v| ToSqlOutput::from(v.0.as_str());
}

/// A list of names, kept as its JSON array text.
impl Stored for Vec<String> {
    const KIND: Kind = Kind::Json;
    fn column(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        json_column(self)
    }
}

/// Counts by name, kept as their JSON object text.
impl Stored for Counts {
    const KIND: Kind = Kind::Json;
    fn column(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        json_column(&self.0)
    }
}

/// `value` as its JSON text, the column of a [`Kind::Json`] field.
pub fn json_column<T: serde::Serialize + ?Sized>(
    value: &T,
) -> rusqlite::Result<ToSqlOutput<'static>> {
    let text = serde_json::to_string(value)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    Ok(ToSqlOutput::Owned(Value::Text(text)))
}

impl<T: Stored> Stored for Option<T> {
    const KIND: Kind = T::KIND;
    fn column(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            Some(value) => value.column(),
            None => Ok(ToSqlOutput::Owned(Value::Null)),
        }
    }
}

/// The lower-case shadow of a text column.
pub trait Shadow {
    fn shadow(&self) -> ToSqlOutput<'_>;
}

impl Shadow for String {
    fn shadow(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Text(self.to_lowercase()))
    }
}

impl Shadow for Color {
    fn shadow(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Text(self.0.to_lowercase()))
    }
}

impl<T: Shadow> Shadow for Option<T> {
    fn shadow(&self) -> ToSqlOutput<'_> {
        match self {
            Some(value) => value.shadow(),
            None => ToSqlOutput::Owned(Value::Null),
        }
    }
}

/// An interchange record and where the dataset keeps each of its fields.
pub trait StoredRecord {
    /// The record's table.
    const TABLE: &'static str;
    /// Every field, in the order of the interchange format (docs/data.md).
    const FIELDS: &'static [(&'static str, Keep)];
    /// The columns the record's own fields fill, comma-separated, in field order
    /// (a shadowed field's column, then its shadow).
    const COLUMNS: &'static str;
    /// How many columns [`StoredRecord::COLUMNS`] names.
    const COUNT: usize;
    /// The values of [`StoredRecord::COLUMNS`], in their order.
    fn columns(&self) -> rusqlite::Result<Vec<ToSqlOutput<'_>>>;
}

/// `INSERT INTO R::TABLE (first..., R::COLUMNS) VALUES (?1, …)`: the statement of a
/// record whose table has columns the record does not fill itself (its id, resolved
/// references), named first.
pub fn insert_sql<R: StoredRecord>(first: &[&str]) -> String {
    let mut names: Vec<&str> = first.to_vec();
    if !R::COLUMNS.is_empty() {
        names.push(R::COLUMNS);
    }
    let count = first.len() + R::COUNT;
    let slots: Vec<String> = (1..=count).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT INTO {} ({}) VALUES ({})",
        R::TABLE,
        names.join(", "),
        slots.join(",")
    )
}

/// Declares an interchange record (a strict serde struct), its table (`struct Name in
/// "table"`) and where the dataset keeps each field ([`StoredRecord`]). Each field ends
/// with `=> KEEP`:
///
/// - `column`: a column named like the field, of the field's [`Stored`] kind;
/// - `shadowed`: the same, and a lower-case `<field>_lc` column beside it;
/// - `elsewhere`: not a column of the record's table (a reference, a side table).
///
/// `..group { field, ... }` among the fields includes fields of a
/// [`field_group!`](crate::field_group) there.
#[macro_export]
macro_rules! stored {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident in $table:literal { $($fields:tt)* }
    ) => {
        $crate::stored! { @fields [$(#[$attr])* $vis struct $name in $table] [] $($fields)* }
    };
    // The fields, group inclusions expanded, one at a time.
    (@fields $head:tt [$($done:tt)*] ..$group:ident { $($names:tt)* } $(, $($rest:tt)*)?) => {
        $group! { [$crate::stored] [@fields $head] [$($done)*] { $($names)* } $($($rest)*)? }
    };
    (
        @fields $head:tt [$($done:tt)*]
        $(#[$fattr:meta])* $fvis:vis $field:ident : $ty:ty => $keep:ident $(, $($rest:tt)*)?
    ) => {
        $crate::stored! {
            @fields $head [$($done)* $(#[$fattr])* $fvis $field: $ty => $keep,] $($($rest)*)?
        }
    };
    (@fields [$($head:tt)*] [$($done:tt)*]) => {
        $crate::stored! { @record $($head)* { $($done)* } }
    };
    (
        @record
        $(#[$attr:meta])*
        $vis:vis struct $name:ident in $table:literal {
            $(
                $(#[$fattr:meta])*
                $fvis:vis $field:ident : $ty:ty => $keep:ident
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $( $(#[$fattr])* $fvis $field: $ty, )*
        }

        impl $crate::schema::StoredRecord for $name {
            const TABLE: &'static str = $table;
            const FIELDS: &'static [(&'static str, $crate::schema::Keep)] = &[
                $( (stringify!($field), $crate::stored!(@keep $ty, $keep)), )*
            ];
            const COLUMNS: &'static str = $crate::schema::after_separator(
                $crate::schema::concatcp!($( $crate::stored!(@names $field $keep), )*)
            );
            const COUNT: usize = 0 $( + $crate::stored!(@count $keep) )*;
            fn columns(&self) -> ::rusqlite::Result<::std::vec::Vec<::rusqlite::types::ToSqlOutput<'_>>> {
                let mut values = ::std::vec::Vec::with_capacity(Self::COUNT);
                $( $crate::stored!(@push values self.$field, $keep); )*
                Ok(values)
            }
        }
    };
    (@keep $ty:ty, column) => {
        $crate::schema::Keep::Column(<$ty as $crate::schema::Stored>::KIND)
    };
    (@keep $ty:ty, shadowed) => {
        $crate::schema::Keep::Shadowed(<$ty as $crate::schema::Stored>::KIND)
    };
    (@keep $ty:ty, elsewhere) => { $crate::schema::Keep::Elsewhere };
    (@names $field:ident column) => { concat!(", ", stringify!($field)) };
    (@names $field:ident shadowed) => {
        concat!(", ", stringify!($field), ", ", stringify!($field), "_lc")
    };
    (@names $field:ident elsewhere) => { "" };
    (@count column) => { 1 };
    (@count shadowed) => { 2 };
    (@count elsewhere) => { 0 };
    (@push $values:ident $value:expr, column) => {
        $values.push($crate::schema::Stored::column(&$value)?)
    };
    (@push $values:ident $value:expr, shadowed) => {{
        $values.push($crate::schema::Stored::column(&$value)?);
        $values.push($crate::schema::Shadow::shadow(&$value));
    }};
    (@push $values:ident $value:expr, elsewhere) => {};
}

/// The vocabularies, kept as their text.
macro_rules! vocabulary_stored {
    ($($name:ident),*) => {
        $(
            impl Stored for crate::vocab::$name {
                const KIND: Kind = Kind::Str;
                fn column(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                    Ok(ToSqlOutput::from(self.as_str()))
                }
            }

            impl Shadow for crate::vocab::$name {
                fn shadow(&self) -> ToSqlOutput<'_> {
                    ToSqlOutput::Owned(Value::Text(self.as_str().to_lowercase()))
                }
            }
        )*
    };
}

vocabulary_stored!(
    Level,
    ProjectType,
    Category,
    State,
    MemberType,
    SponsorType,
    SnapshotStatus,
    ProgramStatus,
    ExperienceLevel
);
