//! The search index behind `/idx/` (docs/api.md §8): the list pages and the search
//! box of the community's web frontend ask it for records by index name, text, page and
//! facet filters, and it answers `{"hits": [...], "nbPages": N}`.
//!
//! - [`build`]: the index tables, written into the dataset file by the same
//!   transaction as the records they are made from (the store calls it through
//!   [`crate::store::Derive`]), so a dataset and its index are swapped together. One
//!   SQLite FTS5 table per index (`search_fts_<name>`, `unicode61 remove_diacritics 2`,
//!   prefix indexes of 1 to 3 characters, contentless), its vocabulary
//!   (`search_vocab_<name>`), the hits as JSON (`search_docs`), facet values
//!   (`search_facets`) and the order of every sort variant (`search_sorts`).
//! - [`search`]: a request against those tables: validation, typo tolerance, ranking,
//!   paging.
//! - `text`: the folding and edit distance the typo tolerance needs.
//!
//! Only what the API exposes is indexed: active chapters, committees and projects,
//! affiliated organizations and published mentorship programs (the catalog's exposure
//! fragments), every member, every event, and the open issues of the active projects'
//! repositories.

pub mod build;
pub mod search;
mod text;

pub use build::build;
pub use search::{search, Answer, Request, SearchError};

/// The most hits a search reaches: pages past it are not served (the hosted search
/// service the frontend was written for has the same default).
pub const MAX_REACHABLE_HITS: u32 = 1000;
/// The largest `hitsPerPage` (the original endpoint's own cap).
pub const MAX_HITS_PER_PAGE: u32 = 1000;
/// `hitsPerPage` when the request gives none.
pub const DEFAULT_HITS_PER_PAGE: u32 = 25;
/// The longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 512;
/// Top contributors kept on a chapter, committee or project hit.
pub const TOP_CONTRIBUTORS: i64 = 15;

/// One index the frontend asks for.
#[derive(Debug)]
pub struct Index {
    /// `chapters`, `projects`, ...
    pub name: &'static str,
    /// The attributes a facet filter may name (`idx_country:India`).
    pub facets: &'static [&'static str],
    /// The fields of its sort variants, `<name>_<field>_asc` and `<name>_<field>_desc`.
    pub sorts: &'static [&'static str],
}

/// Every index, by name.
pub const INDEXES: &[Index] = &[
    Index {
        name: "chapters",
        facets: &["idx_country", "idx_is_active", "idx_key", "idx_name"],
        sorts: &["created_at", "updated_at"],
    },
    Index {
        name: "committees",
        facets: &["idx_key", "idx_name"],
        sorts: &[],
    },
    Index {
        name: "events",
        facets: &["idx_category", "idx_key"],
        sorts: &[],
    },
    Index {
        name: "issues",
        facets: &[
            "idx_project_name",
            "idx_repository_name",
            "idx_repository_topics",
            "idx_title",
        ],
        sorts: &[],
    },
    Index {
        name: "organizations",
        facets: &[],
        sorts: &[],
    },
    Index {
        name: "programs",
        facets: &["idx_experience_levels", "idx_status"],
        sorts: &[],
    },
    Index {
        name: "projects",
        facets: &[
            "idx_is_active",
            "idx_key",
            "idx_name",
            "idx_repositories.name",
        ],
        sorts: &[
            "contributors_count",
            "forks_count",
            "level_raw",
            "name",
            "stars_count",
            "updated_at",
        ],
    },
    Index {
        name: "users",
        facets: &["idx_key", "idx_name", "idx_title"],
        sorts: &[],
    },
];

/// An index and, for a sort variant, its field and direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub index: &'static Index,
    /// `(field, descending)`.
    pub sort: Option<(&'static str, bool)>,
}

impl Target {
    /// `chapters` or `projects_stars_count_desc`; `None` for any other name.
    pub fn parse(name: &str) -> Option<Target> {
        INDEXES.iter().find_map(|index| {
            if name == index.name {
                return Some(Target { index, sort: None });
            }
            let rest = name.strip_prefix(index.name)?.strip_prefix('_')?;
            let (field, desc) = match rest.rsplit_once('_')? {
                (field, "asc") => (field, false),
                (field, "desc") => (field, true),
                _ => return None,
            };
            let field = index.sorts.iter().find(|f| **f == field)?;
            Some(Target {
                index,
                sort: Some((field, desc)),
            })
        })
    }

    /// The name of the variant's order in `search_sorts`.
    fn sort_name(&self) -> Option<String> {
        self.sort.map(|(field, desc)| {
            format!(
                "{}_{field}_{}",
                self.index.name,
                if desc { "desc" } else { "asc" }
            )
        })
    }
}

impl PartialEq for Index {
    fn eq(&self, other: &Index) -> bool {
        self.name == other.name
    }
}

impl Eq for Index {}

/// Every index name a request may give, sort variants included, for error messages
/// and the docs.
pub fn names() -> Vec<String> {
    let mut out = Vec::new();
    for index in INDEXES {
        out.push(index.name.to_string());
        for field in index.sorts {
            out.push(format!("{}_{field}_asc", index.name));
            out.push(format!("{}_{field}_desc", index.name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sort_variants_parse() {
        let t = Target::parse("projects_stars_count_desc").unwrap();
        assert_eq!(t.index.name, "projects");
        assert_eq!(t.sort, Some(("stars_count", true)));
        assert_eq!(t.sort_name().as_deref(), Some("projects_stars_count_desc"));
        assert_eq!(
            Target::parse("chapters_created_at_asc").unwrap().sort,
            Some(("created_at", false))
        );
        assert_eq!(Target::parse("users").unwrap().sort, None);
        for bad in [
            "",
            "project",
            "projects_",
            "projects_stars_count",
            "projects_stars_count_up",
            "users_name_asc",
            "chapters_name_desc",
        ] {
            assert!(Target::parse(bad).is_none(), "{bad}");
        }
        for name in names() {
            assert!(Target::parse(&name).is_some(), "{name}");
        }
    }
}
