//! Writing the code-hosting records: repositories (with their default URL), their
//! contributors, labels, milestones and releases (a release with its default URL).

use std::marker::PhantomData;

use rusqlite::{Connection, Statement, ToSql};

use super::{each, execute, id, prepare, Resolved, StoreError};
use crate::records::{Label, Milestone, Records, Release, Repository, RepositoryContributor};
use crate::schema::StoredRecord;

pub(super) fn insert_repositories(
    conn: &Connection,
    records: &Records<Repository>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = prepare::<Repository>(conn, &["id", "organization_id", "url"])?;
    each(records, |i, x| {
        let url = if x.url.is_empty() {
            format!("https://github.com/{}/{}", x.organization, x.name)
        } else {
            x.url.clone()
        };
        execute(&mut st, &[&id(i), &r.repo_org.0[i], &url], x)
    })
}

/// The statement of `repository_contributors`.
pub(super) struct Contributors<'c>(Statement<'c>);

impl<'c> Contributors<'c> {
    pub(super) fn new(conn: &'c Connection) -> Result<Contributors<'c>, StoreError> {
        Ok(Contributors(prepare::<RepositoryContributor>(
            conn,
            &["repository_id", "member_id"],
        )?))
    }

    pub(super) fn insert(
        &mut self,
        c: &RepositoryContributor,
        (repo, member): (i64, i64),
    ) -> Result<(), StoreError> {
        execute(&mut self.0, &[&repo, &member], c)
    }
}

pub(super) fn insert_contributors(
    conn: &Connection,
    records: &Records<RepositoryContributor>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = Contributors::new(conn)?;
    each(records, |i, c| st.insert(c, r.contributors[i]))
}

pub(super) fn insert_labels(
    conn: &Connection,
    records: &Records<Label>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = prepare::<Label>(conn, &["id", "repository_id"])?;
    each(records, |i, l| {
        execute(&mut st, &[&id(i), &r.label_repo[i]], l)
    })
}

/// A record a repository owns, with an author (a milestone, a release), and the
/// columns it derives from more than one field.
pub(super) trait Owned: StoredRecord {
    /// The derived columns, written after the id, the repository and the author.
    const DERIVED: &'static [&'static str];
    /// The values of [`Owned::DERIVED`].
    fn derived(&self) -> Vec<String>;
}

impl Owned for Milestone {
    const DERIVED: &'static [&'static str] = &[];
    fn derived(&self) -> Vec<String> {
        Vec::new()
    }
}

impl Owned for Release {
    const DERIVED: &'static [&'static str] = &["url"];
    /// The release's URL, or its page on GitHub when it gives none.
    fn derived(&self) -> Vec<String> {
        let url = if self.url.is_empty() {
            format!(
                "https://github.com/{}/{}/releases/tag/{}",
                self.organization, self.repository, self.tag_name
            )
        } else {
            self.url.clone()
        };
        vec![url]
    }
}

/// The statement of the records of an [`Owned`] type.
pub(super) struct ByRepo<'c, R> {
    st: Statement<'c>,
    of: PhantomData<R>,
}

impl<'c, R: Owned> ByRepo<'c, R> {
    pub(super) fn new(conn: &'c Connection) -> Result<ByRepo<'c, R>, StoreError> {
        let mut first = vec!["id", "repository_id", "author_id"];
        first.extend(R::DERIVED);
        Ok(ByRepo {
            st: prepare::<R>(conn, &first)?,
            of: PhantomData,
        })
    }

    /// Record `id` of repository `repo`.
    pub(super) fn insert(
        &mut self,
        id: i64,
        x: &R,
        repo: i64,
        author: Option<i64>,
    ) -> Result<(), StoreError> {
        let derived = x.derived();
        let mut first: Vec<&dyn ToSql> = vec![&id, &repo, &author];
        first.extend(derived.iter().map(|v| v as &dyn ToSql));
        execute(&mut self.st, &first, x)
    }
}

/// Inserts the milestones or the releases, with the repositories and authors `ids`.
pub(super) fn insert_owned<R: Owned>(
    conn: &Connection,
    records: &Records<R>,
    ids: &crate::store::validate::RepoAndAuthor,
) -> Result<(), StoreError> {
    let mut st = ByRepo::<R>::new(conn)?;
    each(records, |i, x| {
        st.insert(id(i), x, ids.repo[i], ids.author[i])
    })
}
