//! The row mappers: how a row of a list's or detail's `columns` becomes its
//! [`crate::model`] body. Each list's column list is declared here, beside the mapper
//! that reads it by position.

use rusqlite::{Connection, Row};

use super::exposure::snapshot_counts;
use super::spec::{Body, Item};
use crate::model;
use crate::records::Ts;

fn ts(row: &Row, i: usize) -> rusqlite::Result<String> {
    Ok(Ts(row.get(i)?).format())
}

fn opt_ts(row: &Row, i: usize) -> rusqlite::Result<Option<String>> {
    Ok(row.get::<_, Option<i64>>(i)?.map(|t| Ts(t).format()))
}

fn leaders(conn: &Connection, kind: &str, id: i64) -> rusqlite::Result<Vec<model::Leader>> {
    let mut st = conn.prepare_cached(
        "SELECT m.login, l.name FROM leaders l LEFT JOIN members m ON m.id = l.member_id \
         WHERE l.entity_kind = ?1 AND l.entity_id = ?2 ORDER BY l.position",
    )?;
    let rows = st.query_map(rusqlite::params![kind, id], |r| {
        Ok(model::Leader {
            key: r.get(0)?,
            name: r.get(1)?,
        })
    })?;
    rows.collect()
}

// ----------------------------------------------------------------------------------
// Items and details

pub(super) const CHAPTER_COLS: &str =
    "t.created_at, t.key, t.latitude, t.longitude, t.name, t.updated_at";

impl Item for model::Chapter {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Chapter {
            created_at: ts(row, 0)?,
            key: row.get(1)?,
            latitude: row.get(2)?,
            longitude: row.get(3)?,
            name: row.get(4)?,
            updated_at: ts(row, 5)?,
        })
    }
}

pub(super) const CHAPTER_DETAIL_COLS: &str =
    "t.created_at, t.key, t.latitude, t.longitude, t.name, t.updated_at, \
     t.country, t.region, t.id";

impl Body for model::ChapterDetail {
    fn read(conn: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::ChapterDetail {
            base: model::Chapter::read(row)?,
            country: row.get(6)?,
            leaders: leaders(conn, "chapter", row.get(8)?)?,
            region: row.get(7)?,
        })
    }
}

pub(super) const COMMITTEE_COLS: &str = "t.created_at, t.key, t.name, t.updated_at";

impl Item for model::Committee {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Committee {
            created_at: ts(row, 0)?,
            key: row.get(1)?,
            name: row.get(2)?,
            updated_at: ts(row, 3)?,
        })
    }
}

pub(super) const COMMITTEE_DETAIL_COLS: &str =
    "t.created_at, t.key, t.name, t.updated_at, t.description";

impl Body for model::CommitteeDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::CommitteeDetail {
            base: model::Committee::read(row)?,
            description: row.get(4)?,
        })
    }
}

pub(super) const EVENT_COLS: &str =
    "t.end_date, t.key, t.latitude, t.longitude, t.name, t.start_date, t.url";

impl Item for model::Event {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Event {
            end_date: row.get(0)?,
            key: row.get(1)?,
            latitude: row.get(2)?,
            longitude: row.get(3)?,
            name: row.get(4)?,
            start_date: row.get(5)?,
            url: row.get(6)?,
        })
    }
}

pub(super) const EVENT_DETAIL_COLS: &str =
    "t.end_date, t.key, t.latitude, t.longitude, t.name, t.start_date, t.url, \
     t.description";

impl Body for model::EventDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::EventDetail {
            base: model::Event::read(row)?,
            description: row.get(7)?,
        })
    }
}

pub(super) const ISSUE_COLS: &str = "t.created_at, t.state, t.title, t.updated_at, t.url";

impl Item for model::Issue {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Issue {
            created_at: ts(row, 0)?,
            state: row.get(1)?,
            title: row.get(2)?,
            updated_at: ts(row, 3)?,
            url: row.get(4)?,
        })
    }
}

/// Over the detail's `from`, which joins the body as `b` (`issue_bodies`).
pub(super) const ISSUE_DETAIL_COLS: &str =
    "t.created_at, t.state, t.title, t.updated_at, t.url, b.body";

impl Body for model::IssueDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::IssueDetail {
            base: model::Issue::read(row)?,
            body: row.get(5)?,
        })
    }
}

pub(super) const SNAPSHOT_ISSUE_COLS: &str =
    "t.created_at, t.state, t.title, t.updated_at, t.url, o.login, r.name";

impl Item for model::SnapshotIssue {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::SnapshotIssue {
            base: model::Issue::read(row)?,
            organization_login: row.get(5)?,
            repository_name: row.get(6)?,
        })
    }
}

pub(super) const LABEL_COLS: &str = "t.color, t.name";

impl Item for model::Label {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Label {
            color: row.get(0)?,
            name: row.get(1)?,
        })
    }
}

pub(super) const MEMBER_COLS: &str =
    "t.avatar_url, t.created_at, t.login, t.name, t.updated_at, t.url";

impl Item for model::Member {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Member {
            avatar_url: row.get(0)?,
            created_at: ts(row, 1)?,
            login: row.get(2)?,
            name: row.get(3)?,
            updated_at: ts(row, 4)?,
            url: row.get(5)?,
        })
    }
}

pub(super) const MEMBER_DETAIL_COLS: &str =
    "t.avatar_url, t.created_at, t.login, t.name, t.updated_at, t.url, t.bio, \
     t.company, t.followers_count, t.following_count, t.location, \
     t.public_repositories_count, t.title, t.twitter_username";

impl Body for model::MemberDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::MemberDetail {
            base: model::Member::read(row)?,
            bio: row.get(6)?,
            company: row.get(7)?,
            followers_count: row.get(8)?,
            following_count: row.get(9)?,
            location: row.get(10)?,
            public_repositories_count: row.get(11)?,
            title: row.get(12)?,
            twitter_username: row.get(13)?,
        })
    }
}

pub(super) const MILESTONE_COLS: &str =
    "t.created_at, t.number, t.state, t.title, t.updated_at, t.url";

impl Item for model::Milestone {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Milestone {
            created_at: ts(row, 0)?,
            number: row.get(1)?,
            state: row.get(2)?,
            title: row.get(3)?,
            updated_at: ts(row, 4)?,
            url: row.get(5)?,
        })
    }
}

pub(super) const MILESTONE_DETAIL_COLS: &str =
    "t.created_at, t.number, t.state, t.title, t.updated_at, t.url, t.body, \
     t.closed_issues_count, t.due_on, t.open_issues_count";

impl Body for model::MilestoneDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::MilestoneDetail {
            base: model::Milestone::read(row)?,
            body: row.get(6)?,
            closed_issues_count: row.get(7)?,
            due_on: opt_ts(row, 8)?,
            open_issues_count: row.get(9)?,
        })
    }
}

pub(super) const ORGANIZATION_COLS: &str = "t.created_at, t.login, t.name, t.updated_at";

impl Item for model::Organization {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Organization {
            created_at: ts(row, 0)?,
            login: row.get(1)?,
            name: row.get(2)?,
            updated_at: ts(row, 3)?,
        })
    }
}

pub(super) const ORGANIZATION_DETAIL_COLS: &str =
    "t.created_at, t.login, t.name, t.updated_at, t.company, t.location";

impl Body for model::OrganizationDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::OrganizationDetail {
            base: model::Organization::read(row)?,
            company: row.get(4)?,
            location: row.get(5)?,
        })
    }
}

pub(super) const PROJECT_COLS: &str = "t.created_at, t.key, t.level, t.name, t.type, t.updated_at";

impl Item for model::Project {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Project {
            created_at: ts(row, 0)?,
            key: row.get(1)?,
            level: row.get(2)?,
            name: row.get(3)?,
            kind: row.get(4)?,
            updated_at: ts(row, 5)?,
        })
    }
}

pub(super) const PROJECT_DETAIL_COLS: &str =
    "t.created_at, t.key, t.level, t.name, t.type, t.updated_at, t.description, \
     t.id";

impl Body for model::ProjectDetail {
    fn read(conn: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::ProjectDetail {
            base: model::Project::read(row)?,
            description: row.get(6)?,
            leaders: leaders(conn, "project", row.get(7)?)?,
        })
    }
}

pub(super) const RELEASE_COLS: &str = "t.created_at, t.name, t.published_at, t.tag_name";

impl Item for model::Release {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Release {
            created_at: ts(row, 0)?,
            name: row.get(1)?,
            published_at: opt_ts(row, 2)?,
            tag_name: row.get(3)?,
        })
    }
}

pub(super) const RELEASE_DETAIL_COLS: &str =
    "t.created_at, t.name, t.published_at, t.tag_name, t.description";

impl Body for model::ReleaseDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::ReleaseDetail {
            base: model::Release::read(row)?,
            description: row.get(4)?,
        })
    }
}

pub(super) const SNAPSHOT_RELEASE_COLS: &str =
    "t.created_at, t.name, t.published_at, t.tag_name, o.login, r.name";

impl Item for model::SnapshotRelease {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::SnapshotRelease {
            base: model::Release::read(row)?,
            organization_login: row.get(4)?,
            repository_name: row.get(5)?,
        })
    }
}

pub(super) const REPOSITORY_COLS: &str = "t.created_at, t.name, t.updated_at";

impl Item for model::Repository {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Repository {
            created_at: ts(row, 0)?,
            name: row.get(1)?,
            updated_at: ts(row, 2)?,
        })
    }
}

pub(super) const REPOSITORY_DETAIL_COLS: &str =
    "t.created_at, t.name, t.updated_at, t.commits_count, t.contributors_count, \
     t.description, t.forks_count, t.open_issues_count, t.stars_count";

impl Body for model::RepositoryDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::RepositoryDetail {
            base: model::Repository::read(row)?,
            commits_count: row.get(3)?,
            contributors_count: row.get(4)?,
            description: row.get(5)?,
            forks_count: row.get(6)?,
            open_issues_count: row.get(7)?,
            stars_count: row.get(8)?,
        })
    }
}

pub(super) const SNAPSHOT_COLS: &str =
    "t.created_at, t.end_at, t.key, t.start_at, t.title, t.updated_at";

impl Item for model::Snapshot {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Snapshot {
            created_at: ts(row, 0)?,
            end_at: ts(row, 1)?,
            key: row.get(2)?,
            start_at: ts(row, 3)?,
            title: row.get(4)?,
            updated_at: ts(row, 5)?,
        })
    }
}

pub(super) const SNAPSHOT_DETAIL_COLS: &str = concat!(
    "t.created_at, t.end_at, t.key, t.start_at, t.title, t.updated_at, ",
    snapshot_counts!()
);

impl Body for model::SnapshotDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::SnapshotDetail {
            base: model::Snapshot::read(row)?,
            new_chapters_count: row.get(6)?,
            new_issues_count: row.get(7)?,
            new_projects_count: row.get(8)?,
            new_releases_count: row.get(9)?,
            new_users_count: row.get(10)?,
        })
    }
}

pub(super) const SPONSOR_COLS: &str = "t.image_url, t.key, t.name, t.sponsor_type, t.url";

impl Item for model::Sponsor {
    fn read(row: &Row) -> rusqlite::Result<Self> {
        Ok(model::Sponsor {
            image_url: row.get(0)?,
            key: row.get(1)?,
            name: row.get(2)?,
            sponsor_type: row.get(3)?,
            url: row.get(4)?,
        })
    }
}

pub(super) const SPONSOR_DETAIL_COLS: &str =
    "t.image_url, t.key, t.name, t.sponsor_type, t.url, t.description, \
     t.is_member, t.job_url, t.member_type";

impl Body for model::SponsorDetail {
    fn read(_: &Connection, row: &Row) -> rusqlite::Result<Self> {
        Ok(model::SponsorDetail {
            base: model::Sponsor::read(row)?,
            description: row.get(5)?,
            is_member: row.get(6)?,
            job_url: row.get(7)?,
            member_type: row.get(8)?,
        })
    }
}
