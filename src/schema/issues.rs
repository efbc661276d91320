//! Issues and pull requests, each declared once per face: as the interchange format
//! carries it and the dataset keeps it ([`interchange`]), as a REST body
//! ([`rest`]), and as a GraphQL object ([`graphql`]). A field added to an issue is
//! added here, in the faces that show it, and in `data/schema.sql`; the writer's
//! `INSERT`, the export, the REST select list and reader, the OpenAPI schema and the
//! GraphQL field all follow from these lines.

/// The records of `issues.jsonl` and `pull_requests.jsonl`.
pub mod interchange {
    use serde::Deserialize;

    use crate::schema::Ts;
    use crate::stored;
    use crate::vocab::State;

    stored! {
        /// `Default` only so that code building issues (the synthetic datasets) names
        /// the fields it sets and leaves a new optional one to its default.
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Issue in "issues" {
            pub organization: String => elsewhere,
            pub repository: String => elsewhere,
            pub number: u64 => column,
            pub title: String => column,
            pub state: State => column,
            #[serde(default)]
            pub body: String => elsewhere,
            #[serde(default)]
            pub author: Option<String> => elsewhere,
            pub url: String => column,
            #[serde(default)]
            pub labels: Vec<String> => elsewhere,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
            #[serde(default)]
            pub closed_at: Option<Ts> => column,
        }
    }

    stored! {
        /// `Default`: as [`Issue`].
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct PullRequest in "pull_requests" {
            pub organization: String => elsewhere,
            pub repository: String => elsewhere,
            pub number: u64 => column,
            pub title: String => column,
            pub state: State => column,
            #[serde(default)]
            pub body: String => elsewhere,
            #[serde(default)]
            pub author: Option<String> => elsewhere,
            pub url: String => column,
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

    use crate::selected;
    use crate::vocab::State;

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Issue {
            #[schema(format = DateTime)]
            pub created_at: String = ts("t.created_at"),
            #[schema(value_type = State)]
            pub state: String = get("t.state"),
            pub title: String = get("t.title"),
            #[schema(format = DateTime)]
            pub updated_at: String = ts("t.updated_at"),
            pub url: String = get("t.url"),
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

    use crate::selected;

    selected! {
        /// An issue.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct Issue: node, id {
            pub number: i64 = get("t.number"),
            pub title: String = get("t.title"),
            /// `open` or `closed`.
            pub state: String = get("t.state"),
            /// Markdown.
            pub body: String = get("(SELECT b.body FROM issue_bodies b WHERE b.issue_id = t.id)"),
            pub url: String = get("t.url"),
            #[graphql(skip)]
            pub author_id: Option<i64> = get("t.author_id"),
            /// The login of the repository's organization.
            pub organization_name: String = get("o.login"),
            pub repository_name: String = get("r.name"),
            pub created_at: String = ts("t.created_at"),
            pub updated_at: String = ts("t.updated_at"),
        } => numbered("Issue")
    }

    selected! {
        /// A pull request.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct PullRequest: node {
            pub number: i64 = get("t.number"),
            pub title: String = get("t.title"),
            /// `open` or `closed`.
            pub state: String = get("t.state"),
            pub url: String = get("t.url"),
            #[graphql(skip)]
            pub author_id: Option<i64> = get("t.author_id"),
            /// The login of the repository's organization.
            pub organization_name: String = get("o.login"),
            pub repository_name: String = get("r.name"),
            pub created_at: String = ts("t.created_at"),
            pub updated_at: String = ts("t.updated_at"),
            /// Null while open.
            pub closed_at: Option<String> = opt_ts("t.closed_at"),
            /// Null unless merged.
            pub merged_at: Option<String> = opt_ts("t.merged_at"),
        } => numbered("PullRequest")
    }
}
