//! Writing the records of the frontend's pages: pull requests (bodies apart, like
//! issues), posts, project health measurements, badges and member badges, the one
//! `community` row, and the channels, related URLs and repositories of chapters,
//! committees and projects.

use rusqlite::{params, Connection, Statement};

use super::{execute, id, n, prepare, Leaders, Resolved, StoreError};
use crate::records::{
    Badge, Board, Channel, Dataset, MemberSnapshot, Post, ProjectHealthMetrics, PullRequest,
};

/// The pull request statements: the row and its body.
pub(super) struct PullRequests<'c> {
    row: Statement<'c>,
    body: Statement<'c>,
}

impl<'c> PullRequests<'c> {
    pub(super) fn new(conn: &'c Connection) -> Result<PullRequests<'c>, StoreError> {
        Ok(PullRequests {
            row: prepare::<PullRequest>(
                conn,
                &["id", "repository_id", "organization_id", "author_id"],
            )?,
            body: conn.prepare(
                "INSERT INTO pull_request_bodies (pull_request_id, body) VALUES (?1, ?2)",
            )?,
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
        execute(&mut self.row, &[&id, &repo, &organization, &author], x)?;
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

    let mut st = prepare::<Post>(conn, &["id"])?;
    for (i, (_, x)) in ds.posts.iter().enumerate() {
        execute(&mut st, &[&id(i)], x)?;
    }

    let mut st = prepare::<ProjectHealthMetrics>(conn, &["id", "project_id"])?;
    for (i, (_, x)) in ds.project_health_metrics.iter().enumerate() {
        execute(&mut st, &[&id(i), &r.pages.health_project[i]], x)?;
    }

    let mut st = prepare::<Board>(conn, &["id"])?;
    let mut leaders = Leaders::new(conn)?;
    for (i, (_, x)) in ds.boards.iter().enumerate() {
        execute(&mut st, &[&id(i)], x)?;
        let members = &r.pages;
        leaders.insert(
            "board_candidate",
            id(i),
            &x.candidates,
            &members.board_candidates[i],
        )?;
        leaders.insert("board_member", id(i), &x.members, &members.board_members[i])?;
    }

    let mut st = prepare::<MemberSnapshot>(conn, &["id", "member_id"])?;
    for (i, (_, x)) in ds.member_snapshots.iter().enumerate() {
        execute(&mut st, &[&id(i), &r.pages.snapshot_member[i]], x)?;
    }

    let mut st = prepare::<Badge>(conn, &["id"])?;
    for (i, (_, x)) in ds.badges.iter().enumerate() {
        execute(&mut st, &[&id(i)], x)?;
    }
    let mut st = conn
        .prepare("INSERT INTO member_badges (member_id, badge_id, position) VALUES (?1, ?2, ?3)")?;
    for (i, badges) in r.pages.member_badges.iter().enumerate() {
        for (pos, badge) in badges.iter().enumerate() {
            st.execute(params![id(i), badge, pos as i64])?;
        }
    }

    conn.execute(
        "INSERT INTO community (slack_workspace_members) VALUES (?1)",
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
            channels: conn.prepare(
                "INSERT INTO channels (entity_kind, entity_id, position, platform, name, \
                 external_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            urls: conn.prepare(
                "INSERT INTO related_urls (entity_kind, entity_id, position, url) \
                 VALUES (?1, ?2, ?3, ?4)",
            )?,
            chapter_repos: conn.prepare(
                "INSERT INTO chapter_repositories (chapter_id, repository_id) VALUES (?1, ?2)",
            )?,
            committee_repos: conn.prepare(
                "INSERT INTO committee_repositories (committee_id, repository_id) \
                 VALUES (?1, ?2)",
            )?,
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
