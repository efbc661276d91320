//! Where each interchange record comes from in the original service's PostgreSQL
//! database: one [`Source`] per record kind, declared in the record's domain file
//! beside its interchange declaration (`code::original`, `community::original`,
//! `issues::original`), so a record's fields and their origin are read in one place.
//!
//! A source names the table a record is read from (with its joins), the rows it leaves
//! out and why ([`Skip`]), the links it cannot keep ([`Dropped`]) and, for every field
//! of the interchange record in the format's order, where the field comes from
//! ([`Origin`]): a column, an expression over the original's tables, or nothing (the
//! original does not hold it, and the record keeps the format's default). From these
//! lines `roost db import postgresql://…` makes one `SELECT` per kind that returns each
//! row as an interchange line (`json_build_object`), parsed by the same strict
//! deserialiser as a folder's files, and the list of columns it checks before reading
//! (`table.column: no such column`); `docs/data.md` shows the same lines as a table.

/// Where one field comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A column, as `alias.column` of the source's [`Source::aliases`].
    Column(&'static str),
    /// An SQL expression over the row (`sql`), reading the `table.column`s `reads`;
    /// `doc` says what it computes, for docs/data.md.
    Derived {
        sql: &'static str,
        reads: &'static [&'static str],
        doc: &'static str,
    },
    /// Not held by the original: the field keeps the interchange format's default;
    /// `doc` says what roost shows.
    NotHeld(&'static str),
}

/// One field of a record and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub origin: Origin,
    /// A table the field needs that the original's public dump may leave out: when it is
    /// absent the field keeps its default.
    pub optional: Option<&'static str>,
}

/// A row the source leaves out, and why (`skipped 3 releases: no tag name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skip {
    pub reason: &'static str,
    /// True for a row left out (an SQL condition over the source's `from`).
    pub when: &'static str,
}

/// Links of a record the import cannot keep (a project's repository owned by a user,
/// not an organization), counted by `count`, a query returning one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// What is dropped: `project repository links`.
    pub what: &'static str,
    pub reason: &'static str,
    pub count: &'static str,
}

/// Where the records of one kind come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// The interchange kind (`organizations`): its file, table and `Dataset` field.
    pub kind: &'static str,
    /// The original's table one record is one row of.
    pub table: &'static str,
    /// The `FROM` clause: the table, its alias and its joins.
    pub from: &'static str,
    /// Each alias of `from` with the table it names, for the column checks and the docs.
    pub aliases: &'static [(&'static str, &'static str)],
    /// The row's primary key, named in errors (`github_issues id 42`); the records
    /// come in its order (their stable ids).
    pub id: &'static str,
    pub skips: &'static [Skip],
    pub dropped: &'static [Dropped],
    pub fields: &'static [Field],
    /// A table the original's public dump may leave out: when it is absent the kind
    /// has no records.
    pub optional: Option<&'static str>,
}

/// A field read from `alias.column`. PostgreSQL's `json_build_object` renders every
/// value as the interchange format reads it: text, numbers, booleans and JSON as they
/// are, a `date` as `YYYY-MM-DD`, a `timestamptz` as ISO 8601 in the session's time zone
/// (the import sets UTC: `2024-03-01T12:00:00.25+00:00`, an RFC 3339 timestamp).
pub const fn col(name: &'static str, column: &'static str) -> Field {
    Field {
        name,
        origin: Origin::Column(column),
        optional: None,
    }
}

/// A field computed by `sql`, reading `reads`.
pub const fn derived(
    name: &'static str,
    sql: &'static str,
    reads: &'static [&'static str],
    doc: &'static str,
) -> Field {
    Field {
        name,
        origin: Origin::Derived { sql, reads, doc },
        optional: None,
    }
}

/// A field the original does not hold; `doc` says what roost shows.
pub const fn not_held(name: &'static str, doc: &'static str) -> Field {
    Field {
        name,
        origin: Origin::NotHeld(doc),
        optional: None,
    }
}

impl Field {
    /// The field, needing `table` (left at its default when the table is absent).
    pub const fn when_present(self, table: &'static str) -> Field {
        Field {
            optional: Some(table),
            ..self
        }
    }

    /// The SQL giving the field's JSON value, or none for a field not held.
    pub fn select(&self) -> Option<&'static str> {
        match self.origin {
            Origin::Column(c) => Some(c),
            Origin::Derived { sql, .. } => Some(sql),
            Origin::NotHeld(_) => None,
        }
    }
}

impl Source {
    /// The table `alias` names.
    pub fn table_of(&self, alias: &str) -> Option<&'static str> {
        self.aliases
            .iter()
            .find(|(a, _)| *a == alias)
            .map(|(_, table)| *table)
    }

    /// `table.column` of an `alias.column`.
    pub fn column(&self, qualified: &str) -> Option<(&'static str, String)> {
        let (alias, column) = qualified.split_once('.')?;
        Some((self.table_of(alias)?, column.trim_matches('"').to_string()))
    }

    /// Every `table.column` the source reads, and every table it reads whole (column
    /// `None`), for the check made before anything is read.
    pub fn reads(&self, present: impl Fn(&str) -> bool) -> Vec<(String, Option<String>)> {
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        let mut push = |table: &str, column: Option<String>| {
            let item = (table.to_string(), column);
            if !out.contains(&item) {
                out.push(item);
            }
        };
        for (_, table) in self.aliases {
            push(table, None);
        }
        let mut push_qualified = |q: &str| match q.split_once('.') {
            Some((table, column)) => push(table, Some(column.to_string())),
            None => push(q, None),
        };
        for field in self.fields {
            if field.optional.is_some_and(|t| !present(t)) {
                continue;
            }
            match field.origin {
                Origin::Column(c) => {
                    if let Some((table, column)) = self.column(c) {
                        push_qualified(&format!("{table}.{column}"));
                    }
                }
                Origin::Derived { reads, .. } => reads.iter().for_each(|r| push_qualified(r)),
                Origin::NotHeld(_) => {}
            }
        }
        out
    }

    /// What the field's value is made from, for error messages and the docs:
    /// `github_issues.title`, or the derived field's description.
    pub fn describe(&self, field: &Field) -> String {
        match field.origin {
            Origin::Column(c) => match self.column(c) {
                Some((table, column)) => format!("{table}.{column}"),
                None => c.to_string(),
            },
            Origin::Derived { doc, .. } => doc.to_string(),
            Origin::NotHeld(doc) => format!("not held by the original: {doc}"),
        }
    }

    /// `WHERE` conditions keeping the rows no skip leaves out.
    pub fn kept(&self) -> String {
        if self.skips.is_empty() {
            return "true".into();
        }
        self.skips
            .iter()
            .map(|s| format!("NOT coalesce(({}), false)", s.when))
            .collect::<Vec<_>>()
            .join(" AND ")
    }

    /// The query returning each kept row's id and its interchange line, in order;
    /// `present` tells whether an optional table exists.
    pub fn query(&self, present: impl Fn(&str) -> bool) -> String {
        let pairs: Vec<String> = self
            .fields
            .iter()
            .filter(|f| f.optional.is_none_or(&present))
            .filter_map(|f| f.select().map(|sql| format!("'{}', {sql}", f.name)))
            .collect();
        format!(
            "SELECT ({id})::bigint, json_build_object({})::text FROM {from} WHERE {kept} \
             ORDER BY {id}",
            pairs.join(", "),
            id = self.id,
            from = self.from,
            kept = self.kept(),
        )
    }

    /// The query counting the rows each skip leaves out (a row counted once, under
    /// the first skip that applies).
    pub fn skipped_query(&self) -> Option<String> {
        if self.skips.is_empty() {
            return None;
        }
        let mut before: Vec<String> = Vec::new();
        let mut counts = Vec::new();
        for skip in self.skips {
            let mut cond = before.clone();
            cond.push(format!("coalesce(({}), false)", skip.when));
            counts.push(format!("count(*) FILTER (WHERE {})", cond.join(" AND ")));
            before.push(format!("NOT coalesce(({}), false)", skip.when));
        }
        Some(format!(
            "SELECT {} FROM {}",
            counts
                .iter()
                .map(|c| format!("({c})::bigint"))
                .collect::<Vec<_>>()
                .join(", "),
            self.from
        ))
    }
}

/// The content type of one of the original's models, which its generic links
/// (entity members, entity channels) name by id.
#[macro_export]
macro_rules! content_type {
    ($app:literal, $model:literal) => {
        concat!(
            "(SELECT ct.id FROM django_content_type ct WHERE ct.app_label = '",
            $app,
            "' AND ct.model = '",
            $model,
            "')"
        )
    };
}

/// A row owned by a repository (alias `o` its organization) that is not in a
/// repository of an organization: roost's records live in organizations' repositories.
pub const NOT_IN_ORGANIZATION: Skip = Skip {
    reason: "not in a repository of an organization",
    when: "o.id IS NULL",
};

/// The aliases of [`owned_by_repository!`](crate::owned_by_repository)'s `FROM`.
#[macro_export]
macro_rules! owned_aliases {
    ($table:literal) => {
        &[
            ("i", $table),
            ("r", "github_repositories"),
            ("o", "github_organizations"),
            ("a", "github_users"),
        ]
    };
}

/// The source of a record numbered within its repository (an issue, a pull request,
/// a milestone), alias `i`: the fields they share (`crate::numbered_stored!`'s, in its
/// order) and the record's own.
#[macro_export]
macro_rules! numbered_original {
    ($name:ident = $kind:literal from $table:literal $(join $join:literal)? {
        $($field:expr),* $(,)?
    }) => {
        pub const $name: $crate::schema::original::Source = $crate::schema::original::Source {
            kind: $kind,
            table: $table,
            from: concat!($crate::owned_by_repository!($table, "author_id") $(, " ", $join)?),
            aliases: $crate::owned_aliases!($table),
            id: "i.id",
            skips: &[$crate::schema::original::NOT_IN_ORGANIZATION],
            dropped: &[],
            optional: None,
            fields: &[
                $crate::schema::original::col("organization", "o.login"),
                $crate::schema::original::col("repository", "r.name"),
                $crate::schema::original::col("number", "i.number"),
                $crate::schema::original::col("title", "i.title"),
                $crate::schema::original::col("state", "i.state"),
                $crate::schema::original::col("body", "i.body"),
                $crate::schema::original::col("author", "a.login"),
                $crate::schema::original::col("url", "i.url"),
                $($field),*
            ],
        };
    };
}
