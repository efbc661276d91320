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

    use crate::schema::issues::rest::numbered;
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
            ..numbered { created_at, number, state, title, updated_at, url },
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
        } => finish_repository [ORGANIZATION_LOGIN]
    }

    /// The login of a repository's organization (for the repository's node id).
    pub const ORGANIZATION_LOGIN: &str =
        "(SELECT ro.login FROM organizations ro WHERE ro.id = t.organization_id)";

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

/// Where repositories and what lives in them come from in the original service's
/// database (`crate::schema::original`).
pub mod original {
    use crate::schema::original::{col, derived, not_held, Skip, Source, NOT_IN_ORGANIZATION};

    /// `FROM` a table of rows owned by a repository (alias `i`), with the repository
    /// (`r`), its organization (`o`) and the row's author (`a`).
    #[macro_export]
    macro_rules! owned_by_repository {
        ($table:literal, $author:literal) => {
            concat!(
                $table,
                " i LEFT JOIN github_repositories r ON r.id = i.repository_id \
                 LEFT JOIN github_organizations o ON o.id = r.organization_id \
                 LEFT JOIN github_users a ON a.id = i.",
                $author
            )
        };
    }

    pub const REPOSITORIES: Source = Source {
        kind: "repositories",
        table: "github_repositories",
        from: "github_repositories r LEFT JOIN github_organizations o ON o.id = r.organization_id",
        aliases: &[("r", "github_repositories"), ("o", "github_organizations")],
        id: "r.id",
        skips: &[Skip {
            reason: "owned by a user, not an organization",
            when: "o.id IS NULL",
        }],
        dropped: &[],
        optional: None,
        fields: &[
            col("organization", "o.login"),
            col("name", "r.name"),
            derived(
                "description",
                "NULLIF(r.description, '')",
                &["github_repositories.description"],
                "github_repositories.description; empty: null",
            ),
            not_held("url", "https://github.com/<organization>/<name>"),
            col("commits_count", "r.commits_count"),
            col("contributors_count", "r.contributors_count"),
            col("forks_count", "r.forks_count"),
            col("open_issues_count", "r.open_issues_count"),
            col("stars_count", "r.stars_count"),
            col("subscribers_count", "r.subscribers_count"),
            col("is_archived", "r.is_archived"),
            col("license", "r.license"),
            derived(
                "topics",
                "coalesce(r.topics, '[]'::jsonb)",
                &["github_repositories.topics"],
                "github_repositories.topics (a JSON list)",
            ),
            derived(
                "languages",
                "(SELECT coalesce(json_agg(lang.k ORDER BY lang.v DESC, lang.k), '[]'::json) \
                 FROM jsonb_each(coalesce(r.languages, '{}'::jsonb)) AS lang(k, v))",
                &["github_repositories.languages"],
                "the keys of github_repositories.languages (bytes per language), most bytes first",
            ),
            col("pushed_at", "r.pushed_at"),
            col("created_at", "r.created_at"),
            col("updated_at", "r.updated_at"),
            col("size", "r.size"),
        ],
    };

    pub const REPOSITORY_CONTRIBUTORS: Source = Source {
        kind: "repository_contributors",
        table: "github_repository_contributors",
        from: owned_by_repository!("github_repository_contributors", "user_id"),
        aliases: crate::owned_aliases!("github_repository_contributors"),
        id: "i.id",
        skips: &[NOT_IN_ORGANIZATION],
        dropped: &[],
        optional: None,
        fields: &[
            col("organization", "o.login"),
            col("repository", "r.name"),
            col("member", "a.login"),
            col("contributions_count", "i.contributions_count"),
        ],
    };

    /// Labels: the original keeps a label without its repository, so a label carried
    /// (by issues, pull requests or milestones) in exactly one repository of an
    /// organization is that repository's, and any other is shared.
    pub const LABELS: Source = Source {
        kind: "labels",
        table: "github_labels",
        from: "(SELECT l.*, o.login AS organization_login, r.name AS repository_name, \
                row_number() OVER (PARTITION BY o.id, lower(l.name) ORDER BY l.id) AS rank \
                FROM github_labels l \
                LEFT JOIN (SELECT c.label_id, min(c.repository_id) AS repository_id FROM ( \
                  SELECT il.label_id, i.repository_id FROM github_issues_labels il \
                    JOIN github_issues i ON i.id = il.issue_id \
                  UNION SELECT pl.label_id, p.repository_id FROM github_pull_requests_labels pl \
                    JOIN github_pull_requests p ON p.id = pl.pullrequest_id \
                  UNION SELECT ml.label_id, m.repository_id FROM github_milestones_labels ml \
                    JOIN github_milestones m ON m.id = ml.milestone_id) c \
                  WHERE c.repository_id IS NOT NULL GROUP BY c.label_id \
                  HAVING count(DISTINCT c.repository_id) = 1) lr ON lr.label_id = l.id \
                LEFT JOIN github_repositories r ON r.id = lr.repository_id \
                LEFT JOIN github_organizations o ON o.id = r.organization_id) l",
        aliases: &[("l", "github_labels")],
        id: "l.id",
        skips: &[Skip {
            reason:
                "a label of the same name comes first in its repository or among the shared labels",
            when: "l.rank > 1",
        }],
        dropped: &[],
        optional: None,
        fields: &[
            derived(
                "organization",
                "l.organization_login",
                CARRIERS,
                "github_organizations.login of the one repository whose issues, pull requests \
                 and milestones carry the label; none (shared) otherwise",
            ),
            derived(
                "repository",
                "l.repository_name",
                CARRIERS,
                "github_repositories.name of that repository",
            ),
            col("name", "l.name"),
            col("color", "l.color"),
            col("description", "l.description"),
            col("created_at", "l.nest_created_at"),
            col("updated_at", "l.nest_updated_at"),
        ],
    };

    /// What a label's repository is found from.
    const CARRIERS: &[&str] = &[
        "github_issues_labels.label_id",
        "github_issues_labels.issue_id",
        "github_pull_requests_labels.label_id",
        "github_pull_requests_labels.pullrequest_id",
        "github_milestones_labels.label_id",
        "github_milestones_labels.milestone_id",
        "github_issues.repository_id",
        "github_pull_requests.repository_id",
        "github_milestones.repository_id",
        "github_repositories.organization_id",
    ];

    crate::numbered_original! {
        MILESTONES = "milestones" from "github_milestones" {
            col("open_issues_count", "i.open_issues_count"),
            col("closed_issues_count", "i.closed_issues_count"),
            col("due_on", "i.due_on"),
            col("created_at", "i.created_at"),
            col("updated_at", "i.updated_at"),
        }
    }

    pub const RELEASES: Source = Source {
        kind: "releases",
        table: "github_releases",
        from: owned_by_repository!("github_releases", "author_id"),
        aliases: crate::owned_aliases!("github_releases"),
        id: "i.id",
        skips: &[
            NOT_IN_ORGANIZATION,
            Skip {
                reason: "no tag name",
                when: "i.tag_name = ''",
            },
        ],
        dropped: &[],
        optional: None,
        fields: &[
            col("organization", "o.login"),
            col("repository", "r.name"),
            col("tag_name", "i.tag_name"),
            col("name", "i.name"),
            col("description", "i.description"),
            col("author", "a.login"),
            not_held(
                "url",
                "https://github.com/<organization>/<repository>/releases/tag/<tag_name>",
            ),
            col("is_draft", "i.is_draft"),
            col("is_pre_release", "i.is_pre_release"),
            col("published_at", "i.published_at"),
            col("created_at", "i.created_at"),
        ],
    };
}
