//! How the GraphQL API reads the code-hosting activity: repositories and their
//! contributors, issues and their labels, pull requests, milestones and releases (the
//! records themselves declared in [`crate::schema`]), with the tables and joins they
//! are read from, and releases read with their authors.

use std::collections::HashMap;

use async_graphql::{SimpleObject, ID};

use super::cards::{read_card, AUTHOR_CARD, CARD_COLUMNS};
use super::{
    column_count, Issue, Milestone, PullRequest, Release, Repository, Table, User, AUTHOR_COLUMNS,
    REPO_JOINS,
};
use crate::catalog::short_key;
use crate::graphql::db::Cols;
use crate::schema::code::graphql::{release_id, PROJECT_NAME};
use crate::schema::{concatcp, scoped_lc_node_id, Selected};

// ----------------------------------------------------------------------------------
// Repositories and contributors

impl Table for Repository {
    const TABLE: &'static str = "repositories";
}

/// A member's contributions to one or several repositories.
#[derive(SimpleObject, Clone)]
pub struct Contributor {
    /// Opaque and stable: the member and the repositories the contributions are
    /// summed over.
    #[graphql(name = "id")]
    pub node_id: ID,
    pub login: String,
    pub name: String,
    pub avatar_url: String,
    pub contributions_count: i64,
    /// The key of the active project of the member's top repository: of the
    /// repositories that belong to an active project, the one with most of the
    /// member's contributions (over the whole dataset); without its `www-project-`
    /// prefix, as `Project.key`.
    pub project_key: Option<String>,
    /// The name of that project.
    pub project_name: Option<String>,
}

/// The active project of the repository a member (`$member`, an SQL expression)
/// contributed to most, among the repositories with an active project: its key and
/// name as a JSON array, in one walk of the member's contributions (the dataset's
/// `repository_contributors_member` index orders them by count, so the walk stops
/// at the first repository with an active project).
macro_rules! top_project {
    ($member:literal) => {
        concat!(
            "(SELECT json_array(p.key, p.name) FROM repository_contributors tp \
              JOIN project_repositories pr ON pr.repository_id = tp.repository_id \
              JOIN api_projects p ON p.id = pr.project_id \
              WHERE tp.member_id = ",
            $member,
            " ORDER BY tp.contributions_count DESC, tp.repository_id, p.id LIMIT 1)"
        )
    };
}

impl Selected for Contributor {
    /// Over a member `m` and a row `g` of the contributions with `g.n` the count and
    /// `g.scope` what it is summed over (the same text for the same selection).
    const COLUMNS: &'static str = concat!(
        "m.login, m.name, m.avatar_url, g.n, ",
        top_project!("m.id"),
        ", g.scope"
    );
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        Contributor::read_with(c, |c| {
            let Some(text) = c.get::<Option<String>>()? else {
                return Ok((None, None));
            };
            let project = serde_json::from_str(&text).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    4,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })?;
            Ok(project_fields(Some(&project)))
        })
    }
}

impl Contributor {
    /// The columns of [`Contributor::COLUMNS`] with the member's id in place of its
    /// top project, for [`Contributor::read_ranked`].
    pub const RANKED_COLUMNS: &'static str = "m.login, m.name, m.avatar_url, g.n, m.id, g.scope";

    /// A contributor from [`Contributor::RANKED_COLUMNS`], its top project found in
    /// `top` (each member's project key and name, as the contribution sums keep them:
    /// the project [`Contributor::COLUMNS`] finds).
    pub fn read_ranked(
        c: &mut Cols,
        top: &HashMap<i64, (String, String)>,
    ) -> rusqlite::Result<Self> {
        Contributor::read_with(c, |c| Ok(project_fields(top.get(&c.get::<i64>()?))))
    }

    /// A contributor from the member's columns of [`Contributor::RANKED_COLUMNS`]
    /// (the login, name and avatar, then the member's id after the sum's place, not
    /// read): its sum `n` and what it is over, `scope`, as kept with its ranking; its
    /// top project found in `top` (as [`Contributor::read_ranked`]).
    pub fn read_kept(
        c: &mut Cols,
        n: i64,
        scope: &str,
        top: &HashMap<i64, (String, String)>,
    ) -> rusqlite::Result<Self> {
        let login: String = c.get()?;
        let name = c.get()?;
        let avatar_url = c.get()?;
        c.skip(1);
        let (project_key, project_name) = project_fields(top.get(&c.get::<i64>()?));
        Ok(Contributor {
            node_id: scoped_lc_node_id("Contributor", scope, &login),
            login,
            name,
            avatar_url,
            contributions_count: n,
            project_key,
            project_name,
        })
    }

    /// A contributor from its columns: the member's login, name and avatar, the
    /// count, then the column(s) `project` reads into its top project's key and name,
    /// then the scope of the sum.
    fn read_with(
        c: &mut Cols,
        project: impl FnOnce(&mut Cols) -> rusqlite::Result<(Option<String>, Option<String>)>,
    ) -> rusqlite::Result<Self> {
        let login: String = c.get()?;
        let name = c.get()?;
        let avatar_url = c.get()?;
        let contributions_count = c.get()?;
        let (project_key, project_name) = project(c)?;
        let scope: String = c.get()?;
        Ok(Contributor {
            node_id: scoped_lc_node_id("Contributor", &scope, &login),
            login,
            name,
            avatar_url,
            contributions_count,
            project_key,
            project_name,
        })
    }
}

/// `Contributor.projectKey` (without its `www-project-` prefix) and `projectName`
/// of a project's key and name.
fn project_fields(project: Option<&(String, String)>) -> (Option<String>, Option<String>) {
    (
        project.map(|(key, _)| short_key(key, "www-project-").to_string()),
        project.map(|(_, name)| name.clone()),
    )
}

// ----------------------------------------------------------------------------------
// Issues, pull requests, milestones, releases

impl Table for Issue {
    const TABLE: &'static str = "issues";
    /// The organization through the issue's own `organization_id`, so that the newest
    /// issues (and an organization's) are one walk of an `issues` index.
    const JOINS: &'static str = " JOIN repositories r ON r.id = t.repository_id \
         JOIN organizations o ON o.id = t.organization_id";
}

impl Table for PullRequest {
    const TABLE: &'static str = "pull_requests";
    /// The organization through the pull request's own `organization_id`, so that an
    /// organization's newest pull requests are one walk of an index.
    const JOINS: &'static str = " JOIN repositories r ON r.id = t.repository_id \
         JOIN organizations o ON o.id = t.organization_id";
}

text!(
    /// The name of a label on an issue.
    LabelName,
    /// Over `labels l`.
    "l.name"
);

impl Table for Milestone {
    const TABLE: &'static str = "milestones";
    const JOINS: &'static str = REPO_JOINS;
}

impl Table for Release {
    const TABLE: &'static str = "api_releases";
    const JOINS: &'static str = REPO_JOINS;
}

/// A release read with its author (the member joined as `a`), for lists long enough
/// that loading each author on its own would cost more than the releases (the
/// releases new in a snapshot: hundreds of them).
#[derive(Clone)]
pub struct AuthoredRelease(pub Release);

/// The join of a record's author `a`, after its repository's.
pub const AUTHOR_JOIN: &str = " LEFT JOIN members a ON a.id = t.author_id";

/// The columns of [`AUTHOR_COLUMNS`], skipped for a release without an author.
const AUTHOR_COLUMN_COUNT: usize = column_count(AUTHOR_COLUMNS);

impl Table for AuthoredRelease {
    const TABLE: &'static str = "api_releases";
    const JOINS: &'static str = concatcp!(REPO_JOINS, AUTHOR_JOIN);
}

impl Selected for AuthoredRelease {
    const COLUMNS: &'static str =
        concatcp!(Release::COLUMNS, ", a.id IS NOT NULL, ", AUTHOR_COLUMNS);
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut release = Release::read(c)?;
        let author = if c.get::<bool>()? {
            Some(User::read(c)?)
        } else {
            c.skip(AUTHOR_COLUMN_COUNT);
            None
        };
        release.author = Some(author);
        Ok(AuthoredRelease(release))
    }
}

/// A release read with its author's card only (id, login, name and avatar: what the
/// frontend's lists show of an author), in place of an [`AuthoredRelease`] when the
/// selection asks no more of the authors ([`crate::graphql::plain::authors_as_cards`]):
/// twelve fewer columns a release. The author's other fields are left empty, and
/// nothing asks for them.
#[derive(Clone)]
pub struct CardRelease(pub Release);

impl Table for CardRelease {
    const TABLE: &'static str = AuthoredRelease::TABLE;
    const JOINS: &'static str = AuthoredRelease::JOINS;
}

impl Selected for CardRelease {
    const COLUMNS: &'static str = concatcp!(Release::COLUMNS, CARD_COLUMNS);
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let mut release = Release::read(c)?;
        release.author = Some(read_card(c)?);
        Ok(CardRelease(release))
    }
}

/// A release read without its description, url and creation time, with its author's
/// card: in place of a [`CardRelease`] when the selection asks for none of those
/// ([`crate::graphql::plain::releases_as_summaries`]), as a list of a month's new
/// releases does. The fields left out are empty, and nothing asks for them.
#[derive(Clone)]
pub struct SummaryRelease(pub Release);

impl Table for SummaryRelease {
    const TABLE: &'static str = AuthoredRelease::TABLE;
    const JOINS: &'static str = AuthoredRelease::JOINS;
}

crate::selected! {
    /// The columns of a release that [`crate::graphql::rows`] writes it from (by
    /// their positions, [`crate::schema::ColumnsOf`]): the release's own. Its
    /// repository's name, organization and project and its author's card come from
    /// the dataset file's kept facts ([`crate::graphql::totals::Totals::repositories`],
    /// [`crate::graphql::totals::Totals::authors`]), by the ids here, in place of three
    /// joins and a subquery per release.
    #[derive(Clone)]
    pub struct ReleaseRow {
        pub tag_name: String = get(),
        pub name: String = get(),
        pub is_pre_release: bool = get(),
        pub repository_id: i64 = get(),
        pub published_at: Option<String> = opt_ts(),
        pub author_id: Option<i64> = get(),
    }
}

/// Without joins: what the inner joins of [`REPO_JOINS`] would leave out (a release
/// whose repository or organization row is missing), the rows path leaves out
/// itself, and a release whose author's row is missing has no author, as with
/// [`AUTHOR_JOIN`].
impl Table for ReleaseRow {
    const TABLE: &'static str = AuthoredRelease::TABLE;
}

crate::selected! {
    /// The columns of a [`SummaryRelease`]: a [`ReleaseRow`]'s, then its author's
    /// card, its repository's organization and name, and its project's name.
    pub struct SummaryRow {
        pub row: ReleaseRow = flatten(ReleaseRow),
        pub author: Option<User> = with(read_card, AUTHOR_CARD),
        pub organization_name: String = get("o.login"),
        pub repository_name: String = get("r.name"),
        pub project_name: Option<String> = get(PROJECT_NAME),
    }
}

impl Selected for SummaryRelease {
    const COLUMNS: &'static str = SummaryRow::COLUMNS;
    fn read(c: &mut Cols) -> rusqlite::Result<Self> {
        let SummaryRow {
            row,
            author,
            organization_name,
            repository_name,
            project_name,
        } = SummaryRow::read(c)?;
        let mut release = Release {
            tag_name: row.tag_name,
            name: row.name,
            is_pre_release: row.is_pre_release,
            author_id: row.author_id,
            author: Some(author),
            organization_name,
            repository_name,
            project_name,
            published_at: row.published_at,
            ..Default::default()
        };
        release_id(&mut release, c)?;
        Ok(SummaryRelease(release))
    }
}
