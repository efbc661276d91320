//! Issues and pull requests, each declared once per face: as the interchange format
//! carries it and the dataset keeps it ([`interchange`]), as a REST body
//! ([`rest`]), and as a GraphQL object ([`graphql`]). A field added to an issue is
//! added here, in the faces that show it, and in `data/schema.sql`; the writer's
//! `INSERT`, the export, the REST select list and reader, the OpenAPI schema and the
//! GraphQL field all follow from these lines.

/// The records of `issues.jsonl` and `pull_requests.jsonl`.
pub mod interchange {
    use serde::Deserialize;

    use crate::numbered_stored;
    use crate::schema::Ts;

    numbered_stored! {
        body: elsewhere;
        /// `Default` only so that code building issues (the synthetic datasets) names
        /// the fields it sets and leaves a new optional one to its default.
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Issue in "issues" {
            #[serde(default)]
            pub labels: Vec<String> => elsewhere,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
            #[serde(default)]
            pub closed_at: Option<Ts> => column,
        }
    }

    numbered_stored! {
        body: elsewhere;
        /// `Default`: as [`Issue`].
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct PullRequest in "pull_requests" {
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
            #[serde(default)]
            pub closed_at: Option<Ts> => column,
            #[serde(default)]
            pub merged_at: Option<Ts> => column,
        }
    }
}

/// The REST bodies of the issue list, the issue detail and a snapshot's issues.
pub mod rest {
    use serde::Serialize;
    use utoipa::ToSchema;

    use crate::vocab::State;
    use crate::{field_group, selected};

    field_group! {
        /// The fields the list items of issues and milestones (`crate::schema::code`)
        /// share.
        pub(crate) numbered for selected {
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            pub number: i64 = get(),
            #[schema(value_type = State)]
            pub state: String = get(),
            pub title: String = get(),
            #[schema(format = DateTime)]
            pub updated_at: String = ts(),
            pub url: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Issue {
            ..numbered { created_at, state, title, updated_at, url },
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct IssueDetail: extends Issue {
            /// Markdown.
            pub body: String = get("b.body"),
        }
    }

    selected! {
        /// An issue in a snapshot sub-list: the issue list item plus where it lives.
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct SnapshotIssue: extends Issue {
            pub organization_login: Option<String> = get("o.login"),
            pub repository_name: Option<String> = get("r.name"),
        }
    }
}

/// The GraphQL objects `Issue` and `PullRequest` (their resolved fields are in
/// `crate::graphql::types`).
pub mod graphql {
    use async_graphql::SimpleObject;

    use crate::numbered_record;

    numbered_record! {
        body: "(SELECT b.body FROM issue_bodies b WHERE b.issue_id = t.id)";
        /// An issue.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct Issue: node, id {
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
        } => numbered("Issue")
    }

    numbered_record! {
        body: none;
        /// A pull request.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct PullRequest: node {
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
            /// Null while open.
            pub closed_at: Option<String> = opt_ts(),
            /// Null unless merged.
            pub merged_at: Option<String> = opt_ts(),
        } => numbered("PullRequest")
    }
}

/// Declares with [`selected!`](crate::selected) a GraphQL record numbered in its
/// repository (an issue, a pull request, a milestone). The fields they share come
/// first, in this order: number, title, state, the body when `body:` gives its SQL
/// (`none` for a record without one), url, author, and the organization's and
/// repository's names. The record's own fields follow.
#[macro_export]
macro_rules! numbered_record {
    (body: none; $($rest:tt)*) => {
        $crate::numbered_record!(@fields [] $($rest)*);
    };
    (body: $body:literal; $($rest:tt)*) => {
        $crate::numbered_record!(@fields [
            /// Markdown.
            pub body: String = get($body),
        ] $($rest)*);
    };
    (
        @fields [$($body:tt)*]
        $(#[$attr:meta])*
        pub struct $name:ident : node $(, $id:ident)? { $($own:tt)* }
        $($tail:tt)*
    ) => {
        $crate::selected! {
            $(#[$attr])*
            pub struct $name: node $(, $id)? {
                pub number: i64 = get(),
                pub title: String = get(),
                /// `open` or `closed`.
                pub state: String = get(),
                $($body)*
                pub url: String = get(),
                #[graphql(skip)]
                pub author_id: Option<i64> = get(),
                /// The login of the repository's organization.
                pub organization_name: String = get("o.login"),
                pub repository_name: String = get("r.name"),
                $($own)*
            }
            $($tail)*
        }
    };
}

/// Declares with [`stored!`](crate::stored) an interchange record numbered in its
/// repository (an issue, a pull request, a milestone). The fields they share come
/// first, in this order: the organization's and repository's names, number, title,
/// state, the body (kept as `body:` says: a `column` of the record's table, or
/// `elsewhere`), the author's login and the url. The record's own fields follow.
#[macro_export]
macro_rules! numbered_stored {
    (
        body: $body:ident;
        $(#[$attr:meta])*
        pub struct $name:ident in $table:literal { $($own:tt)* }
    ) => {
        $crate::stored! {
            $(#[$attr])*
            pub struct $name in $table {
                pub organization: String => elsewhere,
                pub repository: String => elsewhere,
                pub number: u64 => column,
                pub title: String => column,
                pub state: $crate::vocab::State => column,
                #[serde(default)]
                pub body: String => $body,
                #[serde(default)]
                pub author: Option<String> => elsewhere,
                pub url: String => column,
                $($own)*
            }
        }
    };
}

/// Where issues and pull requests come from in the original service's database
/// (`crate::schema::original`).
pub mod original {
    use crate::schema::original::{col, derived};

    crate::numbered_original! {
        // The labels of every issue in one pass, rather than one look-up per issue.
        ISSUES = "issues" from "github_issues" join
            "LEFT JOIN (SELECT il.issue_id, json_agg(l.name ORDER BY il.id) AS names \
             FROM github_issues_labels il JOIN github_labels l ON l.id = il.label_id \
             GROUP BY il.issue_id) lab ON lab.issue_id = i.id" {
            derived(
                "labels",
                "coalesce(lab.names, '[]'::json)",
                &[
                    "github_issues_labels.issue_id",
                    "github_issues_labels.label_id",
                    "github_labels.name",
                ],
                "github_labels.name of the issue's github_issues_labels, in their order",
            ),
            col("created_at", "i.created_at"),
            col("updated_at", "i.updated_at"),
            col("closed_at", "i.closed_at"),
        }
    }

    crate::numbered_original! {
        PULL_REQUESTS = "pull_requests" from "github_pull_requests" {
            col("created_at", "i.created_at"),
            col("updated_at", "i.updated_at"),
            col("closed_at", "i.closed_at"),
            col("merged_at", "i.merged_at"),
        }
    }
}
