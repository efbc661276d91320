//! Writing the records handed over after the dataset's own (a streaming build): each
//! is checked as it comes (`validate::More`) and inserted at once, so none is held.
//! An invalid one is not inserted; its errors stay with the checker, to fail the
//! build once every record is in.

use rusqlite::Connection;

use super::code::{ByRepo, Contributors};
use super::issues::{Issues, Rows};
use super::{Resolved, StoreError};
use crate::records::{Milestone, PullRequest, Release};
use crate::store::Streamed;

/// Checks and inserts every record `more` gives; the errors found are left in
/// `r.more.errors`.
pub(in crate::store) fn insert_more(
    conn: &Connection,
    r: &mut Resolved,
    more: impl Iterator<Item = Streamed>,
) -> Result<(), StoreError> {
    let mut contributors = Contributors::new(conn)?;
    let mut issues = Issues::new(conn)?;
    let mut milestones = ByRepo::<Milestone>::new(conn)?;
    let mut releases = ByRepo::<Release>::new(conn)?;
    let mut pull_requests = Rows::<PullRequest>::new(conn)?;
    let (repo_org, check) = (&r.repo_org, &mut r.more);
    for record in more {
        match record {
            Streamed::Contributor(x) => {
                if let Some(ids) = check.contributor(&x) {
                    contributors.insert(&x, ids)?;
                }
            }
            Streamed::Issue(x) => {
                if let Some(ids) = check.issue(&x) {
                    let owner = repo_org.owner(ids.repo);
                    issues.insert(ids.id, &x, owner, ids.author, &ids.labels)?;
                }
            }
            Streamed::Milestone(x) => {
                if let Some(ids) = check.milestone(&x) {
                    milestones.insert(ids.id, &x, ids.repo, ids.author)?;
                }
            }
            Streamed::Release(x) => {
                if let Some(ids) = check.release(&x) {
                    releases.insert(ids.id, &x, ids.repo, ids.author)?;
                }
            }
            Streamed::PullRequest(x) => {
                if let Some(ids) = check.pull_request(&x) {
                    pull_requests.insert(ids.id, &x, repo_org.owner(ids.repo), ids.author)?;
                }
            }
        }
    }
    Ok(())
}
