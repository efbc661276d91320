//! Field groups: the fields kin records declare alike (chapters, committees and
//! projects; programs and modules; the REST list items of issues and milestones, and
//! of members and organizations), declared once per face with [`field_group!`] and
//! included by name in each record's [`stored!`] or [`selected!`] declaration, where
//! the record has them.
//!
//! [`stored!`]: crate::stored
//! [`selected!`]: crate::selected

/// Declares a field group: a macro named after the group that writes the declaration
/// of each field it is asked for into a record declared with [`stored!`] (`NAME for
/// stored { ... }`, fields as `stored!` takes them) or [`selected!`] (`NAME for
/// selected { ... }`), attributes and documentation included. A record includes
/// fields of the group with `..NAME { field, field }` among its own: they stand
/// there, in the order the record lists them, so each record keeps its field order
/// (the interchange format's, the REST bodies' alphabetical one, GraphQL's) while
/// each field is declared once. A group is seen in its module after its declaration;
/// `pub(crate) NAME` also makes it a path another module can `use`
/// (`crate::schema::issues::rest::numbered`).
///
/// A name the group does not declare is refused where the record lists it.
///
/// [`stored!`]: crate::stored
/// [`selected!`]: crate::selected
#[macro_export]
macro_rules! field_group {
    (
        $(#[$doc:meta])*
        $vis:vis $group:ident for stored {
            $( $(#[$fattr:meta])* $fvis:vis $field:ident : $ty:ty => $keep:ident ),* $(,)?
        }
    ) => {
        $crate::field_group! { @define ($) $(#[$doc])* $vis $group {
            $( $field [$(#[$fattr])* $fvis $field: $ty => $keep,] )*
        } }
    };
    (
        $(#[$doc:meta])*
        $vis:vis $group:ident for selected {
            $(
                $(#[$fattr:meta])*
                $fvis:vis $field:ident : $ty:ty = $how:ident ( $($args:tt)* )
            ),* $(,)?
        }
    ) => {
        $crate::field_group! { @define ($) $(#[$doc])* $vis $group {
            $( $field [$(#[$fattr])* $fvis $field: $ty = $how($($args)*),] )*
        } }
    };
    // The group's macro takes the record macro to call back (`[$crate::stored]`),
    // what that call starts with, the fields declared so far, the names asked for and
    // the record's fields after them; it appends the named fields' declarations one
    // name at a time, then calls the record macro back. `$d` is a `$` for the
    // group's own matchers.
    (
        @define ($d:tt)
        $(#[$doc:meta])*
        $vis:vis $group:ident { $( $field:ident [$($decl:tt)*] )* }
    ) => {
        $(#[$doc])*
        macro_rules! $group {
            ([$d($d back:tt)*] [$d($d start:tt)*] $d done:tt {} $d($d rest:tt)*) => {
                $d($d back)*! { $d($d start)* $d done $d($d rest)* }
            };
            $(
                (
                    $d back:tt $d start:tt [$d($d done:tt)*]
                    { $field $d(, $d($d names:tt)*)? }
                    $d($d rest:tt)*
                ) => {
                    $group! {
                        $d back $d start [$d($d done)* $($decl)*]
                        { $d($d($d names)*)? }
                        $d($d rest)*
                    }
                };
            )*
        }
        #[allow(unused_imports)]
        $vis use $group;
    };
}

#[cfg(test)]
mod tests {
    use crate::schema::{Keep, Kind, Selected, StoredRecord};

    crate::field_group! {
        shared for stored {
            /// Documented once.
            #[allow(dead_code)]
            pub a: String => shadowed,
            pub b: i64 => column,
            pub c: Vec<String> => elsewhere,
        }
    }

    crate::stored! {
        #[derive(Default)]
        struct Record in "records" {
            ..shared { c, a },
            pub own: bool => column,
            ..shared { b },
        }
    }

    crate::field_group! {
        read for selected {
            pub x: i64 = get("t.x + 1"),
            pub y: String = ts(),
        }
    }

    crate::selected! {
        struct Read {
            ..read { y },
            pub z: i64 = get(),
            ..read { x },
        }
    }

    /// Included fields stand where the record lists them, in its order.
    #[test]
    fn a_record_includes_the_fields_it_names_in_its_order() {
        assert_eq!(
            Record::FIELDS,
            &[
                ("c", Keep::Elsewhere),
                ("a", Keep::Shadowed(Kind::Str)),
                ("own", Keep::Column(Kind::Bool)),
                ("b", Keep::Column(Kind::Int)),
            ]
        );
        assert_eq!(Record::COLUMNS, "a, a_lc, own, b");
        let record = Record::default();
        let _ = (record.a, record.b, record.c, record.own);
        assert_eq!(Read::COLUMNS, "t.y, t.z, t.x + 1");
        let read = Read {
            x: 1,
            y: String::new(),
            z: 2,
        };
        let _ = (read.x, read.y, read.z);
    }
}
