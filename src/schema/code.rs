//! Repositories and what lives in them beside issues (`issues.rs`): their
//! contributors, labels, milestones and releases, each declared once per face: as the
//! interchange format carries it and the dataset keeps it ([`interchange`]), as a
//! REST body ([`rest`]), and as a GraphQL object ([`graphql`]; `Release` and the
//! contributors are read there, by `crate::graphql::records`, in several shapes).

/// The records of `repositories.jsonl`, `repository_contributors.jsonl`,
/// `labels.jsonl`, `milestones.jsonl` and `releases.jsonl`.
pub mod interchange {
    use serde::Deserialize;

    use crate::schema::{Color, Ts};
    use crate::{numbered_stored, stored};

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Repository in "repositories" {
            pub organization: String => elsewhere,
            pub name: String => shadowed,
            #[serde(default)]
            pub description: Option<String> => column,
            #[serde(default)]
            pub url: String => elsewhere,
            #[serde(default)]
            pub commits_count: u64 => column,
            #[serde(default)]
            pub contributors_count: u64 => column,
            #[serde(default)]
            pub forks_count: u64 => column,
            #[serde(default)]
            pub open_issues_count: u64 => column,
            #[serde(default)]
            pub stars_count: u64 => column,
            #[serde(default)]
            pub subscribers_count: u64 => column,
            #[serde(default)]
            pub is_archived: bool => column,
            #[serde(default)]
            pub license: String => column,
            #[serde(default)]
            pub topics: Vec<String> => column,
            #[serde(default)]
            pub languages: Vec<String> => column,
            #[serde(default)]
            pub pushed_at: Option<Ts> => column,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
            /// The repository's size in kilobytes, as the code host reports it; none when
            /// unknown.
            #[serde(default)]
            pub size: Option<u64> => column,
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct RepositoryContributor in "repository_contributors" {
            pub organization: String => elsewhere,
            pub repository: String => elsewhere,
            pub member: String => elsewhere,
            pub contributions_count: u64 => column,
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Label in "labels" {
            /// The organization and repository the label belongs to; neither: a label shared
            /// by every repository.
            #[serde(default)]
            pub organization: Option<String> => elsewhere,
            #[serde(default)]
            pub repository: Option<String> => elsewhere,
            pub name: String => shadowed,
            pub color: Color => shadowed,
            #[serde(default)]
            pub description: String => column,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
        }
    }

    numbered_stored! {
        body: column;
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Milestone in "milestones" {
            #[serde(default)]
            pub open_issues_count: u64 => column,
            #[serde(default)]
            pub closed_issues_count: u64 => column,
            #[serde(default)]
            pub due_on: Option<Ts> => column,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Release in "releases" {
            pub organization: String => elsewhere,
            pub repository: String => elsewhere,
            pub tag_name: String => column,
            #[serde(default)]
            pub name: String => column,
            #[serde(default)]
            pub description: String => column,
            #[serde(default)]
            pub author: Option<String> => elsewhere,
            #[serde(default)]
            pub url: String => elsewhere,
            #[serde(default)]
            pub is_draft: bool => column,
            #[serde(default)]
            pub is_pre_release: bool => column,
            #[serde(default)]
            pub published_at: Option<Ts> => column,
            pub created_at: Ts => column,
        }
    }
}

/// The REST bodies of labels, milestones, releases and repositories.
pub mod rest {
    use serde::Serialize;
    use utoipa::ToSchema;

    use crate::selected;
    use crate::vocab::State;

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Label {
            pub color: String = get(),
            pub name: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Milestone {
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
        pub struct MilestoneDetail: extends Milestone {
            pub body: String = get(),
            pub closed_issues_count: i64 = get(),
            #[schema(format = DateTime)]
            pub due_on: Option<String> = opt_ts(),
            pub open_issues_count: i64 = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Release {
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            pub name: String = get(),
            #[schema(format = DateTime)]
            pub published_at: Option<String> = opt_ts(),
            pub tag_name: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct ReleaseDetail: extends Release {
            pub description: String = get(),
        }
    }

    selected! {
        /// A release in a snapshot sub-list: the release list item plus where it lives.
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct SnapshotRelease: extends Release {
            pub organization_login: Option<String> = get("o.login"),
            pub repository_name: Option<String> = get("r.name"),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Repository {
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            pub name: String = get(),
            #[schema(format = DateTime)]
            pub updated_at: String = ts(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct RepositoryDetail: extends Repository {
            pub commits_count: i64 = get(),
            pub contributors_count: i64 = get(),
            pub description: Option<String> = get(),
            pub forks_count: i64 = get(),
            pub open_issues_count: i64 = get(),
            pub stars_count: i64 = get(),
        }
    }
}

/// The GraphQL objects `Repository` and `Milestone` (their resolved fields are in
/// `crate::graphql::types`).
pub mod graphql {
    use async_graphql::SimpleObject;

    use crate::schema::community::graphql::User;
    use crate::schema::{repo_node_id, Cols};
    use crate::{numbered_record, selected};

    selected! {
        /// A code repository (of any organization).
        #[derive(SimpleObject, Clone, Default)]
        #[graphql(complex)]
        pub struct Repository: node, id {
            #[graphql(skip)]
            pub organization_id: i64 = get(),
            /// The repository name in lower case, as used by `repository(repositoryKey:)`.
            pub key: String = get("t.name_lc"),
            pub name: String = get(),
            pub description: Option<String> = get(),
            pub url: String = get(),
            pub commits_count: i64 = get(),
            pub contributors_count: i64 = get(),
            pub forks_count: i64 = get(),
            pub open_issues_count: i64 = get(),
            pub stars_count: i64 = get(),
            pub subscribers_count: i64 = get(),
            pub is_archived: bool = get(),
            /// An SPDX identifier, or empty.
            pub license: String = get(),
            pub languages: Vec<String> = list(),
            pub topics: Vec<String> = list(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
            /// Kilobytes; resolved by `size` in `types.rs`.
            #[graphql(skip)]
            pub size: Option<i64> = get(),
        } => finish_repository ["(SELECT ro.login FROM organizations ro WHERE ro.id = t.organization_id)"]
    }

    /// Derives what [`Repository`] does not read as it is.
    fn finish_repository(rec: &mut Repository, c: &mut Cols) -> rusqlite::Result<()> {
        let organization: String = c.get()?;
        rec.node_id = repo_node_id("Repository", &organization, &rec.name, &[]);
        Ok(())
    }

    numbered_record! {
        body: "t.body";
        /// A milestone.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct Milestone: node {
            pub open_issues_count: i64 = get(),
            pub closed_issues_count: i64 = get(),
            pub due_on: Option<String> = opt_ts(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
        } => numbered("Milestone")
    }

    /// The name of the active project a release's repository belongs to, if any.
    pub const PROJECT_NAME: &str = "(SELECT p.name FROM project_repositories pr \
         JOIN api_projects p ON p.id = pr.project_id \
         WHERE pr.repository_id = t.repository_id ORDER BY pr.project_id LIMIT 1)";

    selected! {
        /// A published release.
        #[derive(SimpleObject, Clone, Default)]
        #[graphql(complex)]
        pub struct Release: node {
            /// Case-sensitive; may contain `/`.
            pub tag_name: String = get(),
            pub name: String = get(),
            /// Markdown.
            pub description: String = get(),
            pub url: String = get(),
            pub is_pre_release: bool = get(),
            #[graphql(skip)]
            pub author_id: Option<i64> = get(),
            /// The author when it was read with the release ([`AuthoredRelease`]): `None`
            /// when it was not, `Some(None)` for a release without an author.
            #[graphql(skip)]
            pub author: Option<Option<User>> = later(),
            /// The login of the repository's organization.
            pub organization_name: String = get("o.login"),
            pub repository_name: String = get("r.name"),
            /// The name of the active project the repository belongs to, if any.
            pub project_name: Option<String> = get(PROJECT_NAME),
            pub published_at: Option<String> = opt_ts(),
            pub created_at: String = ts(),
        } => release_id
    }

    /// A release's node id, from its organization, repository and tag (kept as it is:
    /// tags are case-sensitive).
    pub fn release_id(rec: &mut Release, _: &mut Cols) -> rusqlite::Result<()> {
        rec.node_id = repo_node_id(
            "Release",
            &rec.organization_name,
            &rec.repository_name,
            &["@", &rec.tag_name],
        );
        Ok(())
    }
}
