//! The related URLs, channels and own repositories of chapters, committees and
//! projects.

use rusqlite::{params, Connection, Statement, ToSql};

use super::super::{insert_into, Listed, StoreError};
use crate::records::Channel;

/// The statements of the links of chapters, committees and projects.
pub(super) struct Links<'c> {
    channels: Listed<'c>,
    urls: Listed<'c>,
    chapter_repos: Statement<'c>,
    committee_repos: Statement<'c>,
    project_repos: Statement<'c>,
}

impl<'c> Links<'c> {
    pub(super) fn new(conn: &'c Connection) -> Result<Links<'c>, StoreError> {
        let repos = |table: &str, owner: &str| insert_into(conn, table, &[owner, "repository_id"]);
        Ok(Links {
            channels: Listed::new(conn, "channels", &["platform", "name", "external_id"])?,
            urls: Listed::new(conn, "related_urls", &["url"])?,
            chapter_repos: repos("chapter_repositories", "chapter_id")?,
            committee_repos: repos("committee_repositories", "committee_id")?,
            project_repos: repos("project_repositories", "project_id")?,
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
            self.urls.insert((kind, id), pos, &[url])?;
        }
        for (pos, c) in channels.iter().enumerate() {
            let values: [&dyn ToSql; 3] = [&c.platform, &c.name, &c.external_id];
            self.channels.insert((kind, id), pos, &values)?;
        }
        Ok(())
    }

    /// The own repositories of chapter, committee or project `id`, in order.
    pub(super) fn repositories(
        &mut self,
        kind: &str,
        id: i64,
        repos: &[i64],
    ) -> Result<(), StoreError> {
        let st = match kind {
            "chapter" => &mut self.chapter_repos,
            "committee" => &mut self.committee_repos,
            _ => &mut self.project_repos,
        };
        for repo in repos {
            st.execute(params![id, repo])?;
        }
        Ok(())
    }
}
