//! The catalog: the one place that knows the semantics of every REST v0 list and
//! detail (API.md section 3): which records exist for the API, each list's filters and
//! their validation, orderings with tie-breakers, default order, pagination and the
//! envelope, item and detail shapes, and how detail ids are looked up.
//!
//! Both the generator (which enumerates canonical queries and renders every page) and
//! the shim (which answers what the tree does not hold) call it, so a pre-rendered file
//! and a live answer for the same request are the same bytes.

use std::fmt::Write as _;

use rusqlite::types::Value;
use rusqlite::{Connection, Row};
use serde::Serialize;

use crate::model;
use crate::records::Ts;
use crate::search::{self, Cmp, Term};
use crate::store::lc;

/// Default and maximum page size.
pub const PAGE_SIZE: u64 = 100;

/// The largest `page` accepted: the largest signed 64-bit integer, so that the
/// `int64` of generated clients holds every valid page. A page above the last one is
/// a 404; a number above this bound is a 400 saying so.
pub const PAGE_MAX: u64 = i64::MAX as u64;

/// How a query parameter is read and applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// Whole-value equality, case-insensitive (the column holds the lower case).
    Text,
    /// Whole-value equality, case-sensitive.
    Exact,
    /// One value of a fixed set, exact.
    Choice(&'static [&'static str]),
    /// Repeatable: any of several values of a fixed set, exact.
    Choices(&'static [&'static str]),
    /// `true`/`false`/`1`/`0`, any case; filters on equality.
    Bool,
    /// A float lower bound (inclusive).
    Gte,
    /// A float upper bound (inclusive).
    Lte,
    /// `is_upcoming`: a boolean that depends on the day of the request.
    Upcoming,
    /// Structured search (`q`).
    Search,
}

impl ParamKind {
    /// Filters whose every value occurring in the data is pre-rendered.
    pub fn enumerable(self) -> bool {
        matches!(
            self,
            ParamKind::Text
                | ParamKind::Exact
                | ParamKind::Choice(_)
                | ParamKind::Choices(_)
                | ParamKind::Bool
        )
    }
}

/// A filter parameter of a list.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    /// SQL expression compared with the canonical value (for `Bool`, it yields
    /// `'true'`/`'false'`).
    pub expr: &'static str,
    pub description: &'static str,
}

/// An ordering field of a list.
#[derive(Debug)]
pub struct OrderField {
    pub name: &'static str,
    /// SQL expressions sorted in the requested direction, most significant first.
    pub keys: &'static [&'static str],
    /// Set when the field can be null: nulls come last in both directions.
    pub nullable: bool,
    /// Tie-breakers after the field (SQL, with their own direction), before the id.
    pub tie: &'static str,
}

/// Everything about one list operation.
#[derive(Debug)]
pub struct ListSpec {
    /// URL segment: `chapters` (for snapshot sub-lists, the segment after the snapshot).
    pub path: &'static str,
    pub operation_id: &'static str,
    /// Whether this is a snapshot sub-list (`/snapshots/{id}/<path>/`).
    pub snapshot_link: Option<SnapshotLink>,
    pub from: &'static str,
    pub base_where: &'static str,
    pub columns: &'static str,
    pub item: fn(&Row) -> rusqlite::Result<Vec<u8>>,
    pub params: &'static [Param],
    pub orderings: &'static [OrderField],
    pub default_order: &'static str,
    /// Events: with `is_upcoming=true` the tie-breaker and default order change.
    pub upcoming: Option<UpcomingRules>,
}

#[derive(Debug)]
pub struct SnapshotLink {
    pub table: &'static str,
    pub column: &'static str,
}

#[derive(Debug)]
pub struct UpcomingRules {
    pub column: &'static str,
    pub tie: &'static str,
    pub default_order: &'static str,
}

/// How one detail path segment is turned into its canonical value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IdRule {
    /// Case-insensitive key with an optional prefix (`london` or `www-chapter-london`).
    Prefixed(&'static str),
    /// Case-insensitive.
    Ci,
    /// Case-sensitive (release tags).
    Exact,
    /// An integer; anything else is an unknown path.
    Number,
}

/// Everything about one detail operation.
#[derive(Debug)]
pub struct DetailSpec {
    pub path: &'static str,
    pub operation_id: &'static str,
    /// Singular resource name for "<Name> not found".
    pub singular: &'static str,
    /// Path parameter names, one per segment.
    pub id_names: &'static [&'static str],
    pub ids: &'static [IdRule],
    pub from: &'static str,
    pub base_where: &'static str,
    pub columns: &'static str,
    /// SQL condition with `?1`, `?2`, ... bound to the canonical ids.
    pub lookup: &'static str,
    /// SQL expressions yielding the canonical ids of a record (for enumeration).
    pub id_exprs: &'static [&'static str],
    pub render: fn(&Connection, &Row) -> rusqlite::Result<Vec<u8>>,
}

// ----------------------------------------------------------------------------------
// Row helpers

fn ts(row: &Row, i: usize) -> rusqlite::Result<String> {
    Ok(Ts(row.get(i)?).format())
}

fn opt_ts(row: &Row, i: usize) -> rusqlite::Result<Option<String>> {
    Ok(row.get::<_, Option<i64>>(i)?.map(|t| Ts(t).format()))
}

fn json<T: Serialize>(value: &T) -> rusqlite::Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
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
// Items

const CHAPTER_COLS: &str = "t.created_at, t.key, t.latitude, t.longitude, t.name, t.updated_at";
fn chapter(row: &Row) -> rusqlite::Result<model::Chapter> {
    Ok(model::Chapter {
        created_at: ts(row, 0)?,
        key: row.get(1)?,
        latitude: row.get(2)?,
        longitude: row.get(3)?,
        name: row.get(4)?,
        updated_at: ts(row, 5)?,
    })
}
fn chapter_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&chapter(row)?)
}
fn chapter_detail(conn: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::ChapterDetail {
        base: chapter(row)?,
        country: row.get(6)?,
        leaders: leaders(conn, "chapter", row.get(8)?)?,
        region: row.get(7)?,
    })
}

const COMMITTEE_COLS: &str = "t.created_at, t.key, t.name, t.updated_at";
fn committee(row: &Row) -> rusqlite::Result<model::Committee> {
    Ok(model::Committee {
        created_at: ts(row, 0)?,
        key: row.get(1)?,
        name: row.get(2)?,
        updated_at: ts(row, 3)?,
    })
}
fn committee_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&committee(row)?)
}
fn committee_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::CommitteeDetail {
        base: committee(row)?,
        description: row.get(4)?,
    })
}

const EVENT_COLS: &str = "t.end_date, t.key, t.latitude, t.longitude, t.name, t.start_date, t.url";
fn event(row: &Row) -> rusqlite::Result<model::Event> {
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
fn event_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&event(row)?)
}
fn event_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::EventDetail {
        base: event(row)?,
        description: row.get(7)?,
    })
}

const ISSUE_COLS: &str = "t.created_at, t.state, t.title, t.updated_at, t.url";
fn issue(row: &Row) -> rusqlite::Result<model::Issue> {
    Ok(model::Issue {
        created_at: ts(row, 0)?,
        state: row.get(1)?,
        title: row.get(2)?,
        updated_at: ts(row, 3)?,
        url: row.get(4)?,
    })
}
fn issue_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&issue(row)?)
}
fn issue_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::IssueDetail {
        base: issue(row)?,
        body: row.get(5)?,
    })
}
fn snapshot_issue_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::SnapshotIssue {
        base: issue(row)?,
        organization_login: row.get(5)?,
        repository_name: row.get(6)?,
    })
}

const LABEL_COLS: &str = "t.color, t.name";
fn label_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::Label {
        color: row.get(0)?,
        name: row.get(1)?,
    })
}

const MEMBER_COLS: &str = "t.avatar_url, t.created_at, t.login, t.name, t.updated_at, t.url";
fn member(row: &Row) -> rusqlite::Result<model::Member> {
    Ok(model::Member {
        avatar_url: row.get(0)?,
        created_at: ts(row, 1)?,
        login: row.get(2)?,
        name: row.get(3)?,
        updated_at: ts(row, 4)?,
        url: row.get(5)?,
    })
}
fn member_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&member(row)?)
}
fn member_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::MemberDetail {
        base: member(row)?,
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

const MILESTONE_COLS: &str = "t.created_at, t.number, t.state, t.title, t.updated_at, t.url";
fn milestone(row: &Row) -> rusqlite::Result<model::Milestone> {
    Ok(model::Milestone {
        created_at: ts(row, 0)?,
        number: row.get(1)?,
        state: row.get(2)?,
        title: row.get(3)?,
        updated_at: ts(row, 4)?,
        url: row.get(5)?,
    })
}
fn milestone_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&milestone(row)?)
}
fn milestone_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::MilestoneDetail {
        base: milestone(row)?,
        body: row.get(6)?,
        closed_issues_count: row.get(7)?,
        due_on: opt_ts(row, 8)?,
        open_issues_count: row.get(9)?,
    })
}

const ORGANIZATION_COLS: &str = "t.created_at, t.login, t.name, t.updated_at";
fn organization(row: &Row) -> rusqlite::Result<model::Organization> {
    Ok(model::Organization {
        created_at: ts(row, 0)?,
        login: row.get(1)?,
        name: row.get(2)?,
        updated_at: ts(row, 3)?,
    })
}
fn organization_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&organization(row)?)
}
fn organization_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::OrganizationDetail {
        base: organization(row)?,
        company: row.get(4)?,
        location: row.get(5)?,
    })
}

const PROJECT_COLS: &str = "t.created_at, t.key, t.level, t.name, t.type, t.updated_at";
fn project(row: &Row) -> rusqlite::Result<model::Project> {
    Ok(model::Project {
        created_at: ts(row, 0)?,
        key: row.get(1)?,
        level: row.get(2)?,
        name: row.get(3)?,
        kind: row.get(4)?,
        updated_at: ts(row, 5)?,
    })
}
fn project_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&project(row)?)
}
fn project_detail(conn: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::ProjectDetail {
        base: project(row)?,
        description: row.get(6)?,
        leaders: leaders(conn, "project", row.get(7)?)?,
    })
}

const RELEASE_COLS: &str = "t.created_at, t.name, t.published_at, t.tag_name";
fn release(row: &Row) -> rusqlite::Result<model::Release> {
    Ok(model::Release {
        created_at: ts(row, 0)?,
        name: row.get(1)?,
        published_at: opt_ts(row, 2)?,
        tag_name: row.get(3)?,
    })
}
fn release_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&release(row)?)
}
fn release_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::ReleaseDetail {
        base: release(row)?,
        description: row.get(4)?,
    })
}
fn snapshot_release_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::SnapshotRelease {
        base: release(row)?,
        organization_login: row.get(4)?,
        repository_name: row.get(5)?,
    })
}

const REPOSITORY_COLS: &str = "t.created_at, t.name, t.updated_at";
fn repository(row: &Row) -> rusqlite::Result<model::Repository> {
    Ok(model::Repository {
        created_at: ts(row, 0)?,
        name: row.get(1)?,
        updated_at: ts(row, 2)?,
    })
}
fn repository_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&repository(row)?)
}
fn repository_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::RepositoryDetail {
        base: repository(row)?,
        commits_count: row.get(3)?,
        contributors_count: row.get(4)?,
        description: row.get(5)?,
        forks_count: row.get(6)?,
        open_issues_count: row.get(7)?,
        stars_count: row.get(8)?,
    })
}

const SNAPSHOT_COLS: &str = "t.created_at, t.end_at, t.key, t.start_at, t.title, t.updated_at";
fn snapshot(row: &Row) -> rusqlite::Result<model::Snapshot> {
    Ok(model::Snapshot {
        created_at: ts(row, 0)?,
        end_at: ts(row, 1)?,
        key: row.get(2)?,
        start_at: ts(row, 3)?,
        title: row.get(4)?,
        updated_at: ts(row, 5)?,
    })
}
fn snapshot_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&snapshot(row)?)
}
fn snapshot_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::SnapshotDetail {
        base: snapshot(row)?,
        new_chapters_count: row.get(6)?,
        new_issues_count: row.get(7)?,
        new_projects_count: row.get(8)?,
        new_releases_count: row.get(9)?,
        new_users_count: row.get(10)?,
    })
}

const SPONSOR_COLS: &str = "t.image_url, t.key, t.name, t.sponsor_type, t.url";
fn sponsor(row: &Row) -> rusqlite::Result<model::Sponsor> {
    Ok(model::Sponsor {
        image_url: row.get(0)?,
        key: row.get(1)?,
        name: row.get(2)?,
        sponsor_type: row.get(3)?,
        url: row.get(4)?,
    })
}
fn sponsor_item(row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&sponsor(row)?)
}
fn sponsor_detail(_: &Connection, row: &Row) -> rusqlite::Result<Vec<u8>> {
    json(&model::SponsorDetail {
        base: sponsor(row)?,
        description: row.get(5)?,
        is_member: row.get(6)?,
        job_url: row.get(7)?,
        member_type: row.get(8)?,
    })
}

// ----------------------------------------------------------------------------------
// The lists

pub const PROJECT_LEVELS: &[&str] = &["flagship", "production", "incubator", "lab", "demo"];
pub const PROJECT_TYPES: &[&str] = &["code", "documentation", "tool", "other"];
pub const EVENT_CATEGORIES: &[&str] = &["appsec_days", "global", "partner", "other"];
pub const STATES: &[&str] = &["open", "closed"];
pub const MEMBER_TYPES: &[&str] = &["Platinum", "Gold", "Silver"];

const fn order(name: &'static str, keys: &'static [&'static str]) -> OrderField {
    OrderField {
        name,
        keys,
        nullable: false,
        tie: "",
    }
}
const fn order_tie(
    name: &'static str,
    keys: &'static [&'static str],
    nullable: bool,
    tie: &'static str,
) -> OrderField {
    OrderField {
        name,
        keys,
        nullable,
        tie,
    }
}
const fn param(name: &'static str, kind: ParamKind, expr: &'static str) -> Param {
    Param {
        name,
        kind,
        expr,
        description: "",
    }
}

const CREATED_UPDATED: &[OrderField] = &[
    order("created_at", &["t.created_at"]),
    order("updated_at", &["t.updated_at"]),
];
const CREATED_UPDATED_TIE: &[OrderField] = &[
    order_tie("created_at", &["t.created_at"], false, "t.updated_at DESC"),
    order("updated_at", &["t.updated_at"]),
];
const RELEASE_ORDERINGS: &[OrderField] = &[
    order("created_at", &["t.created_at"]),
    order_tie(
        "published_at",
        &["t.published_at"],
        true,
        "t.created_at DESC",
    ),
];
const COORDS: [Param; 4] = [
    param("latitude_gte", ParamKind::Gte, "t.latitude"),
    param("latitude_lte", ParamKind::Lte, "t.latitude"),
    param("longitude_gte", ParamKind::Gte, "t.longitude"),
    param("longitude_lte", ParamKind::Lte, "t.longitude"),
];
const ORG_REPO_STATE: &[Param] = &[
    param("organization", ParamKind::Text, "o.login_lc"),
    param("repository", ParamKind::Text, "r.name_lc"),
    param("state", ParamKind::Choice(STATES), "t.state"),
];
const IN_REPO: &str = "issues t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id";
const MILESTONE_IN_REPO: &str = "milestones t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id";
const RELEASE_IN_REPO: &str = "releases t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id";
const EVENT_TIE: &str = "t.end_date IS NULL, t.end_date DESC";

/// The 13 top-level lists, in URL order.
pub static LISTS: &[ListSpec] = &[
    ListSpec {
        path: "chapters",
        operation_id: "list_chapters",
        snapshot_link: None,
        from: "chapters t",
        base_where: "t.is_active = 1",
        columns: CHAPTER_COLS,
        item: chapter_item,
        params: &[
            param("country", ParamKind::Text, "t.country_lc"),
            COORDS[0],
            COORDS[1],
            COORDS[2],
            COORDS[3],
        ],
        orderings: &[
            order("created_at", &["t.created_at"]),
            order("updated_at", &["t.updated_at"]),
            order_tie("latitude", &["t.latitude"], true, ""),
            order_tie("longitude", &["t.longitude"], true, ""),
        ],
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "committees",
        operation_id: "list_committees",
        snapshot_link: None,
        from: "committees t",
        base_where: "t.is_active = 1",
        columns: COMMITTEE_COLS,
        item: committee_item,
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "events",
        operation_id: "list_events",
        snapshot_link: None,
        from: "events t",
        base_where: "1",
        columns: EVENT_COLS,
        item: event_item,
        params: &[
            param(
                "category",
                ParamKind::Choices(EVENT_CATEGORIES),
                "t.category",
            ),
            param("is_upcoming", ParamKind::Upcoming, "t.start_date"),
            COORDS[0],
            COORDS[1],
            COORDS[2],
            COORDS[3],
        ],
        orderings: &[
            order_tie("start_date", &["t.start_date"], false, EVENT_TIE),
            order_tie("end_date", &["t.end_date"], true, EVENT_TIE),
            order_tie("latitude", &["t.latitude"], true, EVENT_TIE),
            order_tie("longitude", &["t.longitude"], true, EVENT_TIE),
        ],
        default_order: "t.start_date DESC, t.end_date IS NULL, t.end_date DESC",
        upcoming: Some(UpcomingRules {
            column: "t.start_date",
            tie: "t.end_date IS NULL, t.end_date ASC",
            default_order: "t.start_date ASC, t.end_date IS NULL, t.end_date ASC",
        }),
    },
    ListSpec {
        path: "issues",
        operation_id: "list_issues",
        snapshot_link: None,
        from: IN_REPO,
        base_where: "1",
        columns: ISSUE_COLS,
        item: issue_item,
        params: ORG_REPO_STATE,
        orderings: CREATED_UPDATED_TIE,
        default_order: "t.created_at DESC, t.updated_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "labels",
        operation_id: "list_labels",
        snapshot_link: None,
        from: "labels t",
        base_where: "1",
        columns: LABEL_COLS,
        item: label_item,
        params: &[param("color", ParamKind::Text, "t.color_lc")],
        orderings: &[
            order("nest_created_at", &["t.created_at"]),
            order("nest_updated_at", &["t.updated_at"]),
        ],
        default_order: "",
        upcoming: None,
    },
    ListSpec {
        path: "members",
        operation_id: "list_members",
        snapshot_link: None,
        from: "members t",
        base_where: "1",
        columns: MEMBER_COLS,
        item: member_item,
        params: &[
            param("company", ParamKind::Text, "t.company_lc"),
            param("location", ParamKind::Text, "t.location_lc"),
        ],
        orderings: &[
            order("created_at", &["t.created_at"]),
            order("updated_at", &["t.updated_at"]),
            order("name", &["t.name_lc", "t.name"]),
            order("login", &["t.login_lc", "t.login"]),
        ],
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "milestones",
        operation_id: "list_milestones",
        snapshot_link: None,
        from: MILESTONE_IN_REPO,
        base_where: "1",
        columns: MILESTONE_COLS,
        item: milestone_item,
        params: ORG_REPO_STATE,
        orderings: CREATED_UPDATED_TIE,
        default_order: "t.created_at DESC, t.updated_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "organizations",
        operation_id: "list_organizations",
        snapshot_link: None,
        from: "organizations t",
        base_where: "t.is_affiliated = 1",
        columns: ORGANIZATION_COLS,
        item: organization_item,
        params: &[param("location", ParamKind::Text, "t.location_lc")],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "projects",
        operation_id: "list_projects",
        snapshot_link: None,
        from: "projects t",
        base_where: "t.is_active = 1",
        columns: PROJECT_COLS,
        item: project_item,
        params: &[
            param("level", ParamKind::Choice(PROJECT_LEVELS), "t.level"),
            param("q", ParamKind::Search, "t.name_lc"),
            param("type", ParamKind::Choices(PROJECT_TYPES), "t.type"),
        ],
        orderings: CREATED_UPDATED,
        default_order: "t.level_rank DESC, t.stars DESC, t.forks DESC",
        upcoming: None,
    },
    ListSpec {
        path: "releases",
        operation_id: "list_releases",
        snapshot_link: None,
        from: RELEASE_IN_REPO,
        base_where: "t.published_at IS NOT NULL",
        columns: RELEASE_COLS,
        item: release_item,
        params: &[
            param("organization", ParamKind::Text, "o.login_lc"),
            param("repository", ParamKind::Text, "r.name_lc"),
            param("tag_name", ParamKind::Exact, "t.tag_name"),
        ],
        orderings: RELEASE_ORDERINGS,
        default_order: "t.published_at IS NULL, t.published_at DESC, t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "repositories",
        operation_id: "list_repositories",
        snapshot_link: None,
        from: "repositories t JOIN organizations o ON o.id = t.organization_id",
        base_where: "1",
        columns: REPOSITORY_COLS,
        item: repository_item,
        params: &[param("organization_id", ParamKind::Text, "o.login_lc")],
        orderings: CREATED_UPDATED_TIE,
        default_order: "t.created_at DESC, t.updated_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "snapshots",
        operation_id: "list_snapshots",
        snapshot_link: None,
        from: "snapshots t",
        base_where: "t.status = 'completed'",
        columns: SNAPSHOT_COLS,
        item: snapshot_item,
        params: &[],
        orderings: &[
            order("created_at", &["t.created_at"]),
            order("updated_at", &["t.updated_at"]),
            order("start_at", &["t.start_at"]),
        ],
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "sponsors",
        operation_id: "list_sponsors",
        snapshot_link: None,
        from: "sponsors t",
        base_where: "1",
        columns: SPONSOR_COLS,
        item: sponsor_item,
        params: &[
            param(
                "is_member",
                ParamKind::Bool,
                "(CASE WHEN t.is_member THEN 'true' ELSE 'false' END)",
            ),
            param(
                "member_type",
                ParamKind::Choice(MEMBER_TYPES),
                "t.member_type",
            ),
            param("sponsor_type", ParamKind::Text, "t.sponsor_type_lc"),
        ],
        orderings: &[order("name", &["t.name_lc", "t.name"])],
        default_order: "t.name_lc, t.name",
        upcoming: None,
    },
];

/// The 5 snapshot sub-lists (`/snapshots/{snapshot_id}/<path>/`).
pub static SNAPSHOT_LISTS: &[ListSpec] = &[
    ListSpec {
        path: "chapters",
        operation_id: "list_snapshot_chapters",
        snapshot_link: Some(SnapshotLink {
            table: "snapshot_chapters",
            column: "chapter_id",
        }),
        from: "chapters t",
        base_where: "t.is_active = 1",
        columns: CHAPTER_COLS,
        item: chapter_item,
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "issues",
        operation_id: "list_snapshot_issues",
        snapshot_link: Some(SnapshotLink {
            table: "snapshot_issues",
            column: "issue_id",
        }),
        from: IN_REPO,
        base_where: "1",
        columns: "t.created_at, t.state, t.title, t.updated_at, t.url, o.login, r.name",
        item: snapshot_issue_item,
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "members",
        operation_id: "list_snapshot_members",
        snapshot_link: Some(SnapshotLink {
            table: "snapshot_members",
            column: "member_id",
        }),
        from: "members t",
        base_where: "1",
        columns: MEMBER_COLS,
        item: member_item,
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "projects",
        operation_id: "list_snapshot_projects",
        snapshot_link: Some(SnapshotLink {
            table: "snapshot_projects",
            column: "project_id",
        }),
        from: "projects t",
        base_where: "t.is_active = 1",
        columns: PROJECT_COLS,
        item: project_item,
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        upcoming: None,
    },
    ListSpec {
        path: "releases",
        operation_id: "list_snapshot_releases",
        snapshot_link: Some(SnapshotLink {
            table: "snapshot_releases",
            column: "release_id",
        }),
        from: RELEASE_IN_REPO,
        base_where: "t.published_at IS NOT NULL",
        columns: "t.created_at, t.name, t.published_at, t.tag_name, o.login, r.name",
        item: snapshot_release_item,
        params: &[],
        orderings: &[
            order("created_at", &["t.created_at"]),
            order("published_at", &["t.published_at"]),
        ],
        default_order: "t.published_at DESC",
        upcoming: None,
    },
];

/// The 12 details.
pub static DETAILS: &[DetailSpec] = &[
    DetailSpec {
        path: "chapters",
        operation_id: "get_chapter",
        singular: "Chapter",
        id_names: &["chapter_id"],
        ids: &[IdRule::Prefixed("www-chapter-")],
        from: "chapters t",
        base_where: "t.is_active = 1",
        columns: "t.created_at, t.key, t.latitude, t.longitude, t.name, t.updated_at, \
                  t.country, t.region, t.id",
        lookup: "t.key_lc = 'www-chapter-' || ?1",
        id_exprs: &["substr(t.key_lc, 13)"],
        render: chapter_detail,
    },
    DetailSpec {
        path: "committees",
        operation_id: "get_committee",
        singular: "Committee",
        id_names: &["committee_id"],
        ids: &[IdRule::Prefixed("www-committee-")],
        from: "committees t",
        base_where: "t.is_active = 1",
        columns: "t.created_at, t.key, t.name, t.updated_at, t.description",
        lookup: "t.key_lc = 'www-committee-' || ?1",
        id_exprs: &["substr(t.key_lc, 15)"],
        render: committee_detail,
    },
    DetailSpec {
        path: "events",
        operation_id: "get_event",
        singular: "Event",
        id_names: &["event_id"],
        ids: &[IdRule::Ci],
        from: "events t",
        base_where: "1",
        columns: "t.end_date, t.key, t.latitude, t.longitude, t.name, t.start_date, t.url, \
                  t.description",
        lookup: "t.key_lc = ?1",
        id_exprs: &["t.key_lc"],
        render: event_detail,
    },
    DetailSpec {
        path: "issues",
        operation_id: "get_issue",
        singular: "Issue",
        id_names: &["organization_id", "repository_id", "issue_id"],
        ids: &[IdRule::Ci, IdRule::Ci, IdRule::Number],
        from: IN_REPO,
        base_where: "1",
        columns: "t.created_at, t.state, t.title, t.updated_at, t.url, t.body",
        lookup: "o.login_lc = ?1 AND r.name_lc = ?2 AND t.number = ?3",
        id_exprs: &["o.login_lc", "r.name_lc", "CAST(t.number AS TEXT)"],
        render: issue_detail,
    },
    DetailSpec {
        path: "members",
        operation_id: "get_member",
        singular: "Member",
        id_names: &["member_id"],
        ids: &[IdRule::Ci],
        from: "members t",
        base_where: "1",
        columns: "t.avatar_url, t.created_at, t.login, t.name, t.updated_at, t.url, t.bio, \
                  t.company, t.followers_count, t.following_count, t.location, \
                  t.public_repositories_count, t.title, t.twitter_username",
        lookup: "t.login_lc = ?1",
        id_exprs: &["t.login_lc"],
        render: member_detail,
    },
    DetailSpec {
        path: "milestones",
        operation_id: "get_milestone",
        singular: "Milestone",
        id_names: &["organization_id", "repository_id", "milestone_id"],
        ids: &[IdRule::Ci, IdRule::Ci, IdRule::Number],
        from: MILESTONE_IN_REPO,
        base_where: "1",
        columns: "t.created_at, t.number, t.state, t.title, t.updated_at, t.url, t.body, \
                  t.closed_issues_count, t.due_on, t.open_issues_count",
        lookup: "o.login_lc = ?1 AND r.name_lc = ?2 AND t.number = ?3",
        id_exprs: &["o.login_lc", "r.name_lc", "CAST(t.number AS TEXT)"],
        render: milestone_detail,
    },
    DetailSpec {
        path: "organizations",
        operation_id: "get_organization",
        singular: "Organization",
        id_names: &["organization_id"],
        ids: &[IdRule::Ci],
        from: "organizations t",
        base_where: "t.is_affiliated = 1",
        columns: "t.created_at, t.login, t.name, t.updated_at, t.company, t.location",
        lookup: "t.login_lc = ?1",
        id_exprs: &["t.login_lc"],
        render: organization_detail,
    },
    DetailSpec {
        path: "projects",
        operation_id: "get_project",
        singular: "Project",
        id_names: &["project_id"],
        ids: &[IdRule::Prefixed("www-project-")],
        from: "projects t",
        base_where: "t.is_active = 1",
        columns: "t.created_at, t.key, t.level, t.name, t.type, t.updated_at, t.description, \
                  t.id",
        lookup: "t.key_lc = 'www-project-' || ?1",
        id_exprs: &["substr(t.key_lc, 13)"],
        render: project_detail,
    },
    DetailSpec {
        path: "releases",
        operation_id: "get_release",
        singular: "Release",
        id_names: &["organization_id", "repository_id", "release_id"],
        ids: &[IdRule::Ci, IdRule::Ci, IdRule::Exact],
        from: RELEASE_IN_REPO,
        base_where: "t.published_at IS NOT NULL",
        columns: "t.created_at, t.name, t.published_at, t.tag_name, t.description",
        lookup: "o.login_lc = ?1 AND r.name_lc = ?2 AND t.tag_name = ?3",
        id_exprs: &["o.login_lc", "r.name_lc", "t.tag_name"],
        render: release_detail,
    },
    DetailSpec {
        path: "repositories",
        operation_id: "get_repository",
        singular: "Repository",
        id_names: &["organization_id", "repository_id"],
        ids: &[IdRule::Ci, IdRule::Ci],
        from: "repositories t JOIN organizations o ON o.id = t.organization_id",
        base_where: "1",
        columns: "t.created_at, t.name, t.updated_at, t.commits_count, t.contributors_count, \
                  t.description, t.forks_count, t.open_issues_count, t.stars_count",
        lookup: "o.login_lc = ?1 AND t.name_lc = ?2",
        id_exprs: &["o.login_lc", "t.name_lc"],
        render: repository_detail,
    },
    DetailSpec {
        path: "snapshots",
        operation_id: "get_snapshot",
        singular: "Snapshot",
        id_names: &["snapshot_id"],
        ids: &[IdRule::Ci],
        from: "snapshots t",
        base_where: "t.status = 'completed'",
        columns: "t.created_at, t.end_at, t.key, t.start_at, t.title, t.updated_at, \
            (SELECT COUNT(*) FROM snapshot_chapters s JOIN chapters c ON c.id = s.chapter_id \
              WHERE s.snapshot_id = t.id AND c.is_active = 1), \
            (SELECT COUNT(*) FROM snapshot_issues s WHERE s.snapshot_id = t.id), \
            (SELECT COUNT(*) FROM snapshot_projects s JOIN projects p ON p.id = s.project_id \
              WHERE s.snapshot_id = t.id AND p.is_active = 1), \
            (SELECT COUNT(*) FROM snapshot_releases s JOIN releases r ON r.id = s.release_id \
              WHERE s.snapshot_id = t.id AND r.published_at IS NOT NULL), \
            (SELECT COUNT(*) FROM snapshot_members s WHERE s.snapshot_id = t.id)",
        lookup: "t.key_lc = ?1",
        id_exprs: &["t.key_lc"],
        render: snapshot_detail,
    },
    DetailSpec {
        path: "sponsors",
        operation_id: "get_sponsor",
        singular: "Sponsor",
        id_names: &["sponsor_id"],
        ids: &[IdRule::Ci],
        from: "sponsors t",
        base_where: "1",
        columns: "t.image_url, t.key, t.name, t.sponsor_type, t.url, t.description, \
                  t.is_member, t.job_url, t.member_type",
        lookup: "t.key_lc = ?1",
        id_exprs: &["t.key_lc"],
        render: sponsor_detail,
    },
];

pub fn list_spec(path: &str) -> Option<&'static ListSpec> {
    LISTS.iter().find(|s| s.path == path)
}

pub fn snapshot_list_spec(path: &str) -> Option<&'static ListSpec> {
    SNAPSHOT_LISTS.iter().find(|s| s.path == path)
}

pub fn detail_spec(path: &str) -> Option<&'static DetailSpec> {
    DETAILS.iter().find(|s| s.path == path)
}

// ----------------------------------------------------------------------------------
// Queries: parsing and validation

/// A validation error of one query parameter (one entry of a 400 body's `errors`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldError {
    pub param: String,
    pub msg: String,
    pub kind: &'static str,
}

/// The value of one filter, canonicalised.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterValue {
    /// Text (lower-cased for case-insensitive filters), exact text or a choice.
    One(String),
    /// Repeatable choice: sorted, de-duplicated.
    Many(Vec<String>),
    Bool(bool),
    Float(f64),
    Search {
        raw: String,
        terms: Vec<Term>,
    },
}

/// The chosen ordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderChoice {
    pub field: usize,
    pub desc: bool,
}

/// A validated list query.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    pub page: u64,
    pub page_size: u64,
    pub ordering: Option<OrderChoice>,
    /// (index into the spec's params, value), in the spec's parameter order.
    pub filters: Vec<(usize, FilterValue)>,
}

impl Default for ListQuery {
    fn default() -> Self {
        ListQuery {
            page: 1,
            page_size: PAGE_SIZE,
            ordering: None,
            filters: Vec::new(),
        }
    }
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// Allowed `ordering` values of a list, as clients write them.
pub fn ordering_values(spec: &ListSpec) -> Vec<String> {
    spec.orderings
        .iter()
        .flat_map(|o| [o.name.to_string(), format!("-{}", o.name)])
        .collect()
}

/// Parses and validates the query string pairs of a list request. Unknown parameters
/// are ignored, an empty value counts as absent, and a repeated single-valued
/// parameter takes its last value.
pub fn parse_query(
    spec: &ListSpec,
    pairs: &[(String, String)],
) -> Result<ListQuery, Vec<FieldError>> {
    let mut errors = Vec::new();
    let mut q = ListQuery::default();
    let last = |name: &str| -> Option<&str> {
        pairs
            .iter()
            .rev()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    };
    let err = |param: &str, msg: String, kind: &'static str| FieldError {
        param: param.to_string(),
        msg,
        kind,
    };
    if let Some(v) = last("page") {
        let unsigned = v.strip_prefix('+').unwrap_or(v);
        let digits = !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit());
        match v.parse::<u64>() {
            Ok(p) if (1..=PAGE_MAX).contains(&p) => q.page = p,
            Ok(0) => errors.push(err(
                "page",
                format!("page must be an integer of at least 1; got '{v}'"),
                "greater_than_equal",
            )),
            // Above the bound, whether or not it fits in 64 bits.
            _ if digits => errors.push(err(
                "page",
                format!("page must be an integer from 1 to {PAGE_MAX}; got '{v}'"),
                "less_than_equal",
            )),
            _ => errors.push(err(
                "page",
                format!("page must be an integer of at least 1; got '{v}'"),
                "int_parsing",
            )),
        }
    }
    if let Some(v) = last("page_size") {
        match v.parse::<u64>() {
            Ok(p) if (1..=PAGE_SIZE).contains(&p) => q.page_size = p,
            Ok(p) => errors.push(err(
                "page_size",
                format!("page_size must be an integer from 1 to {PAGE_SIZE}; got '{v}'"),
                if p < 1 {
                    "greater_than_equal"
                } else {
                    "less_than_equal"
                },
            )),
            Err(_) => errors.push(err(
                "page_size",
                format!("page_size must be an integer from 1 to {PAGE_SIZE}; got '{v}'"),
                "int_parsing",
            )),
        }
    }
    if let Some(v) = last("ordering") {
        let (desc, name) = match v.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, v),
        };
        match spec.orderings.iter().position(|o| o.name == name) {
            Some(field) => q.ordering = Some(OrderChoice { field, desc }),
            None => errors.push(err(
                "ordering",
                format!(
                    "ordering must be one of {}; got '{v}'",
                    ordering_values(spec).join(", ")
                ),
                "enum",
            )),
        }
    }
    for (index, p) in spec.params.iter().enumerate() {
        let value = match p.kind {
            ParamKind::Choices(allowed) => {
                let mut values: Vec<String> = Vec::new();
                for (_, v) in pairs.iter().filter(|(k, v)| k == p.name && !v.is_empty()) {
                    if allowed.contains(&v.as_str()) {
                        values.push(v.clone());
                    } else {
                        errors.push(err(
                            p.name,
                            format!(
                                "{} must be one of {}; got '{v}'",
                                p.name,
                                allowed.join(", ")
                            ),
                            "enum",
                        ));
                    }
                }
                values.sort();
                values.dedup();
                if values.is_empty() {
                    continue;
                }
                FilterValue::Many(values)
            }
            _ => {
                let Some(v) = last(p.name) else { continue };
                match p.kind {
                    ParamKind::Text => FilterValue::One(lc(v)),
                    ParamKind::Exact => FilterValue::One(v.to_string()),
                    ParamKind::Choice(allowed) => {
                        if !allowed.contains(&v) {
                            errors.push(err(
                                p.name,
                                format!(
                                    "{} must be one of {}; got '{v}'",
                                    p.name,
                                    allowed.join(", ")
                                ),
                                "enum",
                            ));
                            continue;
                        }
                        FilterValue::One(v.to_string())
                    }
                    ParamKind::Bool | ParamKind::Upcoming => match parse_bool(v) {
                        Some(b) => {
                            if p.kind == ParamKind::Upcoming && !b {
                                continue;
                            }
                            FilterValue::Bool(b)
                        }
                        None => {
                            errors.push(err(
                                p.name,
                                format!(
                                    "{} must be a boolean (true, false, 1 or 0); got '{v}'",
                                    p.name
                                ),
                                "bool_parsing",
                            ));
                            continue;
                        }
                    },
                    ParamKind::Gte | ParamKind::Lte => match v.parse::<f64>() {
                        Ok(f) if f.is_finite() => FilterValue::Float(f),
                        _ => {
                            errors.push(err(
                                p.name,
                                format!("{} must be a number; got '{v}'", p.name),
                                "float_parsing",
                            ));
                            continue;
                        }
                    },
                    ParamKind::Search => match search::parse(v) {
                        Ok(terms) if terms.is_empty() => continue,
                        Ok(terms) => FilterValue::Search {
                            raw: v.to_string(),
                            terms,
                        },
                        Err(e) => {
                            errors.push(err(p.name, format!("q: {}", e.message), "value_error"));
                            continue;
                        }
                    },
                    ParamKind::Choices(_) => unreachable!("handled above"),
                }
            }
        };
        q.filters.push((index, value));
    }
    if errors.is_empty() {
        Ok(q)
    } else {
        Err(errors)
    }
}

/// Percent-encoding of canonical names and values: only `A-Z a-z 0-9 - . _ ~` stay.
pub const COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

pub fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, COMPONENT).to_string()
}

fn format_float(f: f64) -> String {
    let text = format!("{f}");
    if text == "-0" {
        "0".to_string()
    } else {
        text
    }
}

impl ListQuery {
    /// Whether the tree may hold this query's answer (the generator renders only
    /// page size 100, no search, no coordinate range and no time-dependent filter).
    pub fn prerenderable(&self, spec: &ListSpec) -> bool {
        self.page_size == PAGE_SIZE
            && self.filters.iter().all(|(i, _)| {
                !matches!(
                    spec.params[*i].kind,
                    ParamKind::Search | ParamKind::Gte | ParamKind::Lte | ParamKind::Upcoming
                )
            })
    }

    fn upcoming(&self, spec: &ListSpec) -> bool {
        self.filters.iter().any(|(i, v)| {
            spec.params[*i].kind == ParamKind::Upcoming && *v == FilterValue::Bool(true)
        })
    }

    /// The canonical query string (ARCHITECTURE.md, the file tree contract): defaults
    /// dropped, values canonical, parameters sorted by name (then value), names and
    /// values percent-encoded, joined with `&`. Empty for the default query.
    pub fn canonical(&self, spec: &ListSpec) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        for (i, value) in &self.filters {
            let name = spec.params[*i].name;
            match value {
                FilterValue::One(v) => pairs.push((name, v.clone())),
                FilterValue::Many(vs) => pairs.extend(vs.iter().map(|v| (name, v.clone()))),
                FilterValue::Bool(b) => pairs.push((name, b.to_string())),
                FilterValue::Float(f) => pairs.push((name, format_float(*f))),
                FilterValue::Search { raw, .. } => pairs.push((name, raw.clone())),
            }
        }
        if let Some(o) = self.ordering {
            let name = spec.orderings[o.field].name;
            pairs.push((
                "ordering",
                if o.desc {
                    format!("-{name}")
                } else {
                    name.to_string()
                },
            ));
        }
        if self.page != 1 {
            pairs.push(("page", self.page.to_string()));
        }
        if self.page_size != PAGE_SIZE {
            pairs.push(("page_size", self.page_size.to_string()));
        }
        pairs.sort();
        let mut out = String::new();
        for (name, value) in pairs {
            if !out.is_empty() {
                out.push('&');
            }
            let _ = write!(out, "{}={}", encode(name), encode(&value));
        }
        out
    }

    /// SQL `WHERE` (without the base condition) and its parameters.
    fn conditions(&self, spec: &ListSpec, today: &str, sql: &mut String, args: &mut Vec<Value>) {
        for (i, value) in &self.filters {
            let p = &spec.params[*i];
            match (p.kind, value) {
                (ParamKind::Upcoming, FilterValue::Bool(true)) => {
                    let _ = write!(sql, " AND {} >= ?", p.expr);
                    args.push(Value::Text(today.to_string()));
                }
                (ParamKind::Upcoming, _) => {}
                (ParamKind::Gte, FilterValue::Float(f)) => {
                    let _ = write!(sql, " AND {} >= ?", p.expr);
                    args.push(Value::Real(*f));
                }
                (ParamKind::Lte, FilterValue::Float(f)) => {
                    let _ = write!(sql, " AND {} <= ?", p.expr);
                    args.push(Value::Real(*f));
                }
                (_, FilterValue::Many(values)) => {
                    let marks = vec!["?"; values.len()].join(", ");
                    let _ = write!(sql, " AND {} IN ({marks})", p.expr);
                    args.extend(values.iter().map(|v| Value::Text(v.clone())));
                }
                (_, FilterValue::Search { terms, .. }) => {
                    for term in terms {
                        match term {
                            Term::NameContains(text) => {
                                let _ = write!(sql, " AND instr({}, ?) > 0", p.expr);
                                args.push(Value::Text(text.clone()));
                            }
                            Term::Stars(cmp, n) => {
                                let op = match cmp {
                                    Cmp::Eq => "=",
                                    Cmp::Gt => ">",
                                    Cmp::Lt => "<",
                                    Cmp::Ge => ">=",
                                    Cmp::Le => "<=",
                                };
                                let _ = write!(sql, " AND t.stars {op} ?");
                                args.push(Value::Integer(*n));
                            }
                        }
                    }
                }
                (_, FilterValue::One(v)) => {
                    let _ = write!(sql, " AND {} = ?", p.expr);
                    args.push(Value::Text(v.clone()));
                }
                (_, FilterValue::Bool(b)) => {
                    let _ = write!(sql, " AND {} = ?", p.expr);
                    args.push(Value::Text(b.to_string()));
                }
                (_, FilterValue::Float(_)) => {}
            }
        }
    }
}

/// `ORDER BY` of a list for an ordering choice (or the default), ending with the id.
pub fn order_sql(spec: &ListSpec, ordering: Option<OrderChoice>, upcoming: bool) -> String {
    let rules = spec.upcoming.as_ref().filter(|_| upcoming);
    let mut parts: Vec<String> = Vec::new();
    match ordering {
        None => {
            let default = rules.map_or(spec.default_order, |r| r.default_order);
            if !default.is_empty() {
                parts.push(default.to_string());
            }
        }
        Some(choice) => {
            let field = &spec.orderings[choice.field];
            let dir = if choice.desc { "DESC" } else { "ASC" };
            if field.nullable {
                parts.push(format!("{} IS NULL", field.keys[0]));
            }
            for key in field.keys {
                parts.push(format!("{key} {dir}"));
            }
            let tie = rules.map_or(field.tie, |r| r.tie);
            if !tie.is_empty() {
                parts.push(tie.to_string());
            }
        }
    }
    parts.push("t.id".to_string());
    parts.join(", ")
}

// ----------------------------------------------------------------------------------
// Answers

/// Why a list or detail has no 200 answer.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("Page {page} not found. Valid pages are 1 to {total_pages}.")]
    PageNotFound { page: u64, total_pages: u64 },
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error(transparent)]
    Db(#[from] rusqlite::Error),
}

pub fn total_pages(total: u64, page_size: u64) -> u64 {
    total.div_ceil(page_size).max(1)
}

/// Writes a list envelope around already-serialised items.
pub fn render_page<'a>(
    items: impl IntoIterator<Item = &'a [u8]>,
    page: u64,
    page_size: u64,
    total: u64,
) -> Vec<u8> {
    let pages = total_pages(total, page_size);
    let mut out = Vec::with_capacity(256);
    let _ = write!(
        VecWriter(&mut out),
        "{{\"current_page\":{page},\"has_next\":{},\"has_previous\":{},\"items\":[",
        page < pages,
        page > 1
    );
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    let _ = write!(
        VecWriter(&mut out),
        "],\"total_count\":{total},\"total_pages\":{pages}}}"
    );
    out
}

struct VecWriter<'a>(&'a mut Vec<u8>);
impl std::fmt::Write for VecWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// The id of a completed snapshot by canonical key.
pub fn snapshot_id(conn: &Connection, key: &str) -> rusqlite::Result<Option<i64>> {
    let mut st =
        conn.prepare_cached("SELECT id FROM snapshots WHERE key_lc = ?1 AND status = 'completed'")?;
    let mut rows = st.query([key])?;
    Ok(match rows.next()? {
        Some(row) => Some(row.get(0)?),
        None => None,
    })
}

/// Canonical keys of completed snapshots (the scopes of the snapshot sub-lists).
pub fn snapshot_keys(conn: &Connection) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut st =
        conn.prepare("SELECT id, key_lc FROM snapshots WHERE status = 'completed' ORDER BY id")?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

fn where_clause(
    spec: &ListSpec,
    snapshot: Option<i64>,
    query: &ListQuery,
    today: &str,
) -> (String, Vec<Value>) {
    let mut sql = format!("WHERE {}", spec.base_where);
    let mut args = Vec::new();
    if let (Some(link), Some(id)) = (&spec.snapshot_link, snapshot) {
        let _ = write!(
            sql,
            " AND t.id IN (SELECT {} FROM {} WHERE snapshot_id = ?)",
            link.column, link.table
        );
        args.push(Value::Integer(id));
    }
    query.conditions(spec, today, &mut sql, &mut args);
    (sql, args)
}

/// Answers one list page live. `snapshot` is the canonical snapshot key of a
/// sub-list; `today` is the request's UTC date (`YYYY-MM-DD`).
pub fn list_page(
    conn: &Connection,
    spec: &ListSpec,
    snapshot: Option<&str>,
    query: &ListQuery,
    today: &str,
) -> Result<Vec<u8>, AnswerError> {
    let snapshot_id = match snapshot {
        Some(key) => Some(snapshot_id(conn, key)?.ok_or(AnswerError::NotFound("Snapshot"))?),
        None => None,
    };
    let (cond, mut args) = where_clause(spec, snapshot_id, query, today);
    let count_sql = format!("SELECT COUNT(*) FROM {} {cond}", spec.from);
    let total: i64 = conn
        .prepare_cached(&count_sql)?
        .query_row(rusqlite::params_from_iter(args.iter()), |r| r.get(0))?;
    let total = total as u64;
    let pages = total_pages(total, query.page_size);
    if query.page > pages {
        return Err(AnswerError::PageNotFound {
            page: query.page,
            total_pages: pages,
        });
    }
    let sql = format!(
        "SELECT {} FROM {} {cond} ORDER BY {} LIMIT ? OFFSET ?",
        spec.columns,
        spec.from,
        order_sql(spec, query.ordering, query.upcoming(spec))
    );
    args.push(Value::Integer(query.page_size as i64));
    args.push(Value::Integer(((query.page - 1) * query.page_size) as i64));
    let mut st = conn.prepare_cached(&sql)?;
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    let mut items = Vec::new();
    while let Some(row) = rows.next()? {
        items.push((spec.item)(row)?);
    }
    Ok(render_page(
        items.iter().map(|i| i.as_slice()),
        query.page,
        query.page_size,
        total,
    ))
}

/// Every record of a list scope in one ordering, with the values of its enumerable
/// filters (in the spec's parameter order): what the generator partitions into pages.
pub struct SortedRows {
    pub items: Vec<Vec<u8>>,
    /// One row of keys per item; `keys[i][k]` is the canonical value of the k-th
    /// enumerable parameter.
    pub keys: Vec<Vec<String>>,
    /// Indices (into `spec.params`) of the enumerable parameters.
    pub params: Vec<usize>,
}

/// All records of a list scope, sorted. `upcoming` applies `is_upcoming=true`.
pub fn sorted_rows(
    conn: &Connection,
    spec: &ListSpec,
    snapshot: Option<i64>,
    upcoming: bool,
    ordering: Option<OrderChoice>,
    today: &str,
) -> rusqlite::Result<SortedRows> {
    let params: Vec<usize> = spec
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind.enumerable())
        .map(|(i, _)| i)
        .collect();
    let mut query = ListQuery::default();
    if upcoming {
        if let Some(i) = spec
            .params
            .iter()
            .position(|p| p.kind == ParamKind::Upcoming)
        {
            query.filters.push((i, FilterValue::Bool(true)));
        }
    }
    let (cond, args) = where_clause(spec, snapshot, &query, today);
    let mut columns = spec.columns.to_string();
    for &i in &params {
        let _ = write!(columns, ", {}", spec.params[i].expr);
    }
    let sql = format!(
        "SELECT {columns} FROM {} {cond} ORDER BY {}",
        spec.from,
        order_sql(spec, ordering, upcoming)
    );
    let mut st = conn.prepare(&sql)?;
    let first_key = st.column_count() - params.len();
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    let mut out = SortedRows {
        items: Vec::new(),
        keys: Vec::new(),
        params,
    };
    while let Some(row) = rows.next()? {
        out.items.push((spec.item)(row)?);
        let mut keys = Vec::with_capacity(out.params.len());
        for k in 0..out.params.len() {
            keys.push(row.get::<_, String>(first_key + k)?);
        }
        out.keys.push(keys);
    }
    Ok(out)
}

/// Canonical ids of a detail request from its decoded path segments; `None` when a
/// segment cannot be an id (a non-integer number): an unknown path.
pub fn canonical_ids(spec: &DetailSpec, segments: &[String]) -> Option<Vec<String>> {
    if segments.len() != spec.ids.len() {
        return None;
    }
    spec.ids
        .iter()
        .zip(segments)
        .map(|(rule, seg)| match rule {
            IdRule::Prefixed(prefix) => {
                let lower = lc(seg);
                let part = lower.strip_prefix(prefix).unwrap_or(&lower).to_string();
                (!part.is_empty()).then_some(part)
            }
            IdRule::Ci => Some(lc(seg)),
            IdRule::Exact => Some(seg.clone()),
            IdRule::Number => seg
                .parse::<u64>()
                .ok()
                .filter(|n| *n <= i64::MAX as u64)
                .map(|n| n.to_string()),
        })
        .collect()
}

/// Answers one detail live from canonical ids.
pub fn detail(
    conn: &Connection,
    spec: &DetailSpec,
    ids: &[String],
) -> Result<Vec<u8>, AnswerError> {
    let sql = format!(
        "SELECT {} FROM {} WHERE {} AND {}",
        spec.columns, spec.from, spec.base_where, spec.lookup
    );
    let args: Vec<Value> = spec
        .ids
        .iter()
        .zip(ids)
        .map(|(rule, id)| match rule {
            IdRule::Number => Value::Integer(id.parse().unwrap_or(-1)),
            _ => Value::Text(id.clone()),
        })
        .collect();
    let mut st = conn.prepare_cached(&sql)?;
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    match rows.next()? {
        Some(row) => Ok((spec.render)(conn, row)?),
        None => Err(AnswerError::NotFound(spec.singular)),
    }
}

/// Every record of a detail, as (canonical ids, body), for the generator.
pub fn all_details(
    conn: &Connection,
    spec: &DetailSpec,
    mut each: impl FnMut(Vec<String>, Vec<u8>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let sql = format!(
        "SELECT {}, {} FROM {} WHERE {} ORDER BY t.id",
        spec.columns,
        spec.id_exprs.join(", "),
        spec.from,
        spec.base_where
    );
    let mut st = conn.prepare(&sql)?;
    let first_id = st.column_count() - spec.id_exprs.len();
    let mut rows = st.query([])?;
    while let Some(row) = rows.next()? {
        let ids = (0..spec.id_exprs.len())
            .map(|k| row.get::<_, String>(first_id + k))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let body = (spec.render)(conn, row)?;
        each(ids, body)?;
    }
    Ok(())
}

/// The API root body.
pub fn root(docs_url: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "message": "Welcome to the API v0",
        "docs_url": docs_url,
    }))
    .unwrap_or_default()
}
