//! Writing the records of the frontend's pages: pull requests (bodies apart, like
//! issues), posts, project health measurements, badges and member badges, the one
//! `community` row, and the channels, related URLs and repositories of chapters,
//! committees and projects.

use rusqlite::{params, Connection, Statement};

use super::{id, n, Resolved, StoreError};
use crate::records::{Channel, Dataset, PullRequest};

/// The pull request statements: the row and its body.
pub(super) struct PullRequests<'c> {
    row: Statement<'c>,
    body: Statement<'c>,
}

impl<'c> PullRequests<'c> {
    pub(super) fn new(conn: &'c Connection) -> Result<PullRequests<'c>, StoreError> {
        Ok(PullRequests {
            row: conn.prepare(
                "INSERT INTO pull_requests VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)",
            )?,
            body: conn.prepare("INSERT INTO pull_request_bodies VALUES (?1,?2)")?,
        })
    }

    pub(super) fn insert(
        &mut self,
        id: i64,
        x: &PullRequest,
        repo: i64,
        organization: i64,
        author: Option<i64>,
    ) -> Result<(), StoreError> {
        self.row.execute(params![
            id,
            repo,
            organization,
            n(x.number),
            x.title,
            x.state.as_str(),
            author,
            x.url,
            x.created_at.0,
            x.updated_at.0,
            x.closed_at.map(|t| t.0),
            x.merged_at.map(|t| t.0)
        ])?;
        self.body.execute(params![id, x.body])?;
        Ok(())
    }
}

/// Inserts the records of the frontend's pages (after every table they refer to).
pub(super) fn insert(conn: &Connection, ds: &Dataset, r: &Resolved) -> Result<(), StoreError> {
    let mut st = PullRequests::new(conn)?;
    let prs = &r.pages.pull_requests;
    for (i, (_, x)) in ds.pull_requests.iter().enumerate() {
        let repo = prs.repo[i];
        st.insert(
            id(i),
            x,
            repo,
            r.repo_org[(repo - 1) as usize],
            prs.author[i],
        )?;
    }

    let mut st = conn.prepare("INSERT INTO posts VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)")?;
    for (i, (_, x)) in ds.posts.iter().enumerate() {
        st.execute(params![
            id(i),
            x.title,
            x.url,
            super::lc(&x.url),
            x.author_name,
            x.author_image_url,
            x.published_at.0,
            x.created_at.0,
            x.updated_at.0
        ])?;
    }

    let mut st = conn.prepare(
        "INSERT INTO project_health_metrics VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
    )?;
    for (i, (_, x)) in ds.project_health_metrics.iter().enumerate() {
        st.execute(params![
            id(i),
            r.pages.health_project[i],
            x.created_at.0,
            x.score,
            n(x.stars_count),
            n(x.forks_count),
            n(x.open_issues_count),
            n(x.open_pull_requests_count),
            n(x.unanswered_issues_count),
            n(x.unassigned_issues_count),
            n(x.last_commit_days),
            n(x.last_commit_days_requirement),
            n(x.last_release_days),
            n(x.last_release_days_requirement)
        ])?;
    }

    let mut st = conn.prepare("INSERT INTO badges VALUES (?1,?2,?3,?4,?5,?6)")?;
    for (i, (_, x)) in ds.badges.iter().enumerate() {
        st.execute(params![
            id(i),
            x.name,
            super::lc(&x.name),
            x.description,
            x.css_class,
            x.weight
        ])?;
    }
    let mut st = conn.prepare("INSERT INTO member_badges VALUES (?1,?2,?3)")?;
    for (i, badges) in r.pages.member_badges.iter().enumerate() {
        for (pos, badge) in badges.iter().enumerate() {
            st.execute(params![id(i), badge, pos as i64])?;
        }
    }

    conn.execute(
        "INSERT INTO community VALUES (?1)",
        [n(ds.community.slack_workspace_members)],
    )?;
    Ok(())
}

/// The channels, related URLs and own repositories of chapters, committees and
/// projects.
pub(super) struct Links<'c> {
    channels: Statement<'c>,
    urls: Statement<'c>,
    chapter_repos: Statement<'c>,
    committee_repos: Statement<'c>,
}

impl<'c> Links<'c> {
    pub(super) fn new(conn: &'c Connection) -> Result<Links<'c>, StoreError> {
        Ok(Links {
            channels: conn.prepare("INSERT INTO channels VALUES (?1,?2,?3,?4,?5,?6)")?,
            urls: conn.prepare("INSERT INTO related_urls VALUES (?1,?2,?3,?4)")?,
            chapter_repos: conn.prepare("INSERT INTO chapter_repositories VALUES (?1,?2)")?,
            committee_repos: conn.prepare("INSERT INTO committee_repositories VALUES (?1,?2)")?,
        })
    }

    /// The related URLs and channels of entity `id` of `kind`, in order.
    pub(super) fn insert(
        &mut self,
        kind: &str,
        id: i64,
        urls: &[String],
        channels: &[Channel],
    ) -> Result<(), StoreError> {
        for (pos, url) in urls.iter().enumerate() {
            self.urls.execute(params![kind, id, pos as i64, url])?;
        }
        for (pos, c) in channels.iter().enumerate() {
            self.channels.execute(params![
                kind,
                id,
                pos as i64,
                c.platform,
                c.name,
                c.external_id
            ])?;
        }
        Ok(())
    }

    /// The own repositories of chapter or committee `id`, in order.
    pub(super) fn repositories(
        &mut self,
        kind: &str,
        id: i64,
        repos: &[i64],
    ) -> Result<(), StoreError> {
        let st = match kind {
            "chapter" => &mut self.chapter_repos,
            _ => &mut self.committee_repos,
        };
        for repo in repos {
            st.execute(params![id, repo])?;
        }
        Ok(())
    }
}
