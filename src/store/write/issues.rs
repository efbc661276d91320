//! Writing issues and pull requests: each row narrow, its Markdown body in a table of
//! its own (`issue_bodies`, `pull_request_bodies`), its organization repeated from its
//! repository; an issue's labels in `issue_labels`, in the order listed.

use std::marker::PhantomData;

use rusqlite::{params, Connection, Statement};

use super::{each, execute, id, prepare, Resolved, StoreError};
use crate::records::{Issue, PullRequest, Records};
use crate::schema::StoredRecord;

/// A record numbered in its repository whose body is kept apart from its row.
pub(super) trait Numbered: StoredRecord {
    /// The `INSERT` of its body: the record's id, then the body.
    const BODY: &'static str;
    fn body(&self) -> &str;
}

impl Numbered for Issue {
    const BODY: &'static str = "INSERT INTO issue_bodies (issue_id, body) VALUES (?1, ?2)";
    fn body(&self) -> &str {
        &self.body
    }
}

impl Numbered for PullRequest {
    const BODY: &'static str =
        "INSERT INTO pull_request_bodies (pull_request_id, body) VALUES (?1, ?2)";
    fn body(&self) -> &str {
        &self.body
    }
}

/// The statements of a [`Numbered`] record: its row and its body.
pub(super) struct Rows<'c, R> {
    row: Statement<'c>,
    body: Statement<'c>,
    of: PhantomData<R>,
}

impl<'c, R: Numbered> Rows<'c, R> {
    pub(super) fn new(conn: &'c Connection) -> Result<Rows<'c, R>, StoreError> {
        Ok(Rows {
            row: prepare::<R>(
                conn,
                &["id", "repository_id", "organization_id", "author_id"],
            )?,
            body: conn.prepare(R::BODY)?,
            of: PhantomData,
        })
    }

    /// Record `id` of repository `repo` (of organization `org`).
    pub(super) fn insert(
        &mut self,
        id: i64,
        x: &R,
        (repo, org): (i64, i64),
        author: Option<i64>,
    ) -> Result<(), StoreError> {
        execute(&mut self.row, &[&id, &repo, &org, &author], x)?;
        self.body.execute(params![id, x.body()])?;
        Ok(())
    }
}

/// The statements of an issue: its row and body, and its labels.
pub(super) struct Issues<'c> {
    rows: Rows<'c, Issue>,
    labels: Statement<'c>,
}

impl<'c> Issues<'c> {
    pub(super) fn new(conn: &'c Connection) -> Result<Issues<'c>, StoreError> {
        Ok(Issues {
            rows: Rows::new(conn)?,
            labels: conn.prepare(
                "INSERT INTO issue_labels (issue_id, label_id, position) VALUES (?1, ?2, ?3)",
            )?,
        })
    }

    /// Issue `id` of repository `repo` (of organization `org`).
    pub(super) fn insert(
        &mut self,
        id: i64,
        x: &Issue,
        owner: (i64, i64),
        author: Option<i64>,
        labels: &[i64],
    ) -> Result<(), StoreError> {
        self.rows.insert(id, x, owner, author)?;
        for (pos, label) in labels.iter().enumerate() {
            self.labels.execute(params![id, label, pos as i64])?;
        }
        Ok(())
    }
}

pub(super) fn insert_issues(
    conn: &Connection,
    records: &Records<Issue>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = Issues::new(conn)?;
    each(records, |i, x| {
        let owner = r.repo_org.owner(r.issues.repo[i]);
        st.insert(id(i), x, owner, r.issues.author[i], &r.issue_labels[i])
    })
}

pub(super) fn insert_pull_requests(
    conn: &Connection,
    records: &Records<PullRequest>,
    r: &Resolved,
) -> Result<(), StoreError> {
    let mut st = Rows::<PullRequest>::new(conn)?;
    each(records, |i, x| {
        let owner = r.repo_org.owner(r.pull_requests.repo[i]);
        st.insert(id(i), x, owner, r.pull_requests.author[i])
    })
}
