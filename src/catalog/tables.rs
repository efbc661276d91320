//! The declarative tables: every REST v0 list ([`LISTS`], [`SNAPSHOT_LISTS`]) and
//! detail ([`DETAILS`]) as data: tables, what the API exposes of them, columns and
//! their response type, filters, orderings with tie-breakers, default order, and how
//! detail ids are looked up. Everything else (the generator, the shim, OpenAPI,
//! GraphQL's lookups) reads these.

use super::spec::{
    DetailSpec, IdRule, ItemType, ListSpec, OrderField, Param, ParamKind, SnapshotLink,
    UpcomingRules,
};
use crate::{model, vocab};

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
    param("state", ParamKind::Choice(&vocab::State::VOCAB), "t.state"),
];
/// Issues join their organization directly (`issues.organization_id`), so that an
/// organization filter reads one index range.
const IN_REPO: &str = "issues t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = t.organization_id";
const ISSUE_WITH_BODY: &str = "issues t JOIN issue_bodies b ON b.issue_id = t.id \
     JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = t.organization_id";
const MILESTONE_IN_REPO: &str = "milestones t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id";
const RELEASE_IN_REPO: &str = "api_releases t JOIN repositories r ON r.id = t.repository_id \
     JOIN organizations o ON o.id = r.organization_id";
const EVENT_TIE: &str = "t.end_date IS NULL, t.end_date DESC";

/// A list: `path` and its operation (`list_<path>`, or `list_snapshot_<path>` for a
/// snapshot sub-list, linked through `snapshot_<path>`), the tables, the item type,
/// filters, orderings and default order; then, where it has them, how the default
/// order is worded and the upcoming rules.
macro_rules! list {
    ($path:literal, $from:expr, $item:ty, $params:expr, $orderings:expr, $default:expr) => {
        list!($path, $from, $item, $params, $orderings, $default, "", None)
    };
    (
        $path:literal, $from:expr, $item:ty, $params:expr, $orderings:expr, $default:expr,
        $words:expr, $upcoming:expr
    ) => {
        list!(@spec $path, concat!("list_", $path), None, $from, $item, $params, $orderings,
            $default, $words, $upcoming)
    };
    (snapshot $path:literal, $column:literal, $from:expr, $item:ty) => {
        list!(snapshot $path, $column, $from, $item, CREATED_UPDATED, "t.created_at DESC")
    };
    (
        snapshot $path:literal, $column:literal, $from:expr, $item:ty, $orderings:expr,
        $default:expr
    ) => {
        list!(
            @spec $path,
            concat!("list_snapshot_", $path),
            Some(SnapshotLink {
                table: concat!("snapshot_", $path),
                column: $column,
            }),
            $from, $item, &[], $orderings, $default, "", None
        )
    };
    (
        @spec $path:expr, $operation_id:expr, $link:expr, $from:expr, $item:ty, $params:expr,
        $orderings:expr, $default:expr, $words:expr, $upcoming:expr
    ) => {
        ListSpec {
            path: $path,
            operation_id: $operation_id,
            snapshot_link: $link,
            from: $from,
            item: ItemType::of::<$item>(),
            params: $params,
            orderings: $orderings,
            default_order: $default,
            default_order_words: $words,
            upcoming: $upcoming,
        }
    };
}

/// The 13 top-level lists, in URL order.
pub static LISTS: &[ListSpec] = &[
    list!(
        "chapters",
        "api_chapters t",
        model::Chapter,
        &[
            param("country", ParamKind::Text, "t.country_lc"),
            COORDS[0],
            COORDS[1],
            COORDS[2],
            COORDS[3],
        ],
        &[
            order("created_at", &["t.created_at"]),
            order("updated_at", &["t.updated_at"]),
            order_tie("latitude", &["t.latitude"], true, ""),
            order_tie("longitude", &["t.longitude"], true, ""),
        ],
        "t.created_at DESC"
    ),
    list!(
        "committees",
        "api_committees t",
        model::Committee,
        &[],
        CREATED_UPDATED,
        "t.created_at DESC"
    ),
    list!(
        "events",
        "events t",
        model::Event,
        &[
            param(
                "category",
                ParamKind::Choices(&vocab::Category::VOCAB),
                "t.category",
            ),
            param("is_upcoming", ParamKind::Upcoming, "t.start_date"),
            COORDS[0],
            COORDS[1],
            COORDS[2],
            COORDS[3],
        ],
        &[
            order_tie("start_date", &["t.start_date"], false, EVENT_TIE),
            order_tie("end_date", &["t.end_date"], true, EVENT_TIE),
            order_tie("latitude", &["t.latitude"], true, EVENT_TIE),
            order_tie("longitude", &["t.longitude"], true, EVENT_TIE),
        ],
        "t.start_date DESC, t.end_date IS NULL, t.end_date DESC",
        "",
        Some(UpcomingRules {
            column: "t.start_date",
            tie: "t.end_date IS NULL, t.end_date ASC",
            default_order: "t.start_date ASC, t.end_date IS NULL, t.end_date ASC",
        })
    ),
    list!(
        "issues",
        IN_REPO,
        model::Issue,
        ORG_REPO_STATE,
        CREATED_UPDATED_TIE,
        "t.created_at DESC, t.updated_at DESC"
    ),
    list!(
        "labels",
        "labels t",
        model::Label,
        &[param("color", ParamKind::Text, "t.color_lc")],
        &[
            order("nest_created_at", &["t.created_at"]),
            order("nest_updated_at", &["t.updated_at"]),
        ],
        ""
    ),
    list!(
        "members",
        "members t",
        model::Member,
        &[
            param("company", ParamKind::Text, "t.company_lc"),
            param("location", ParamKind::Text, "t.location_lc"),
        ],
        &[
            order("created_at", &["t.created_at"]),
            order("updated_at", &["t.updated_at"]),
            order("name", &["t.name_lc", "t.name"]),
            order("login", &["t.login_lc", "t.login"]),
        ],
        "t.created_at DESC"
    ),
    list!(
        "milestones",
        MILESTONE_IN_REPO,
        model::Milestone,
        ORG_REPO_STATE,
        CREATED_UPDATED_TIE,
        "t.created_at DESC, t.updated_at DESC"
    ),
    list!(
        "organizations",
        "api_organizations t",
        model::Organization,
        &[param("location", ParamKind::Text, "t.location_lc")],
        CREATED_UPDATED,
        "t.created_at DESC"
    ),
    list!(
        "projects",
        "api_projects t",
        model::Project,
        &[
            param("level", ParamKind::Choice(&vocab::Level::VOCAB), "t.level"),
            param("q", ParamKind::Search, "t.name_lc"),
            param(
                "type",
                ParamKind::Choices(&vocab::ProjectType::VOCAB),
                "t.type",
            ),
        ],
        CREATED_UPDATED,
        "t.level_rank DESC, t.stars DESC, t.forks DESC",
        "level rank descending (flagship, production, lab, incubator, demo), \
         then stars descending, then forks descending",
        None
    ),
    list!(
        "releases",
        RELEASE_IN_REPO,
        model::Release,
        &[
            param("organization", ParamKind::Text, "o.login_lc"),
            param("repository", ParamKind::Text, "r.name_lc"),
            param("tag_name", ParamKind::Exact, "t.tag_name"),
        ],
        RELEASE_ORDERINGS,
        "t.published_at IS NULL, t.published_at DESC, t.created_at DESC"
    ),
    list!(
        "repositories",
        "repositories t JOIN organizations o ON o.id = t.organization_id",
        model::Repository,
        &[param("organization_id", ParamKind::Text, "o.login_lc")],
        CREATED_UPDATED_TIE,
        "t.created_at DESC, t.updated_at DESC"
    ),
    list!(
        "snapshots",
        "api_snapshots t",
        model::Snapshot,
        &[],
        &[
            order("created_at", &["t.created_at"]),
            order("updated_at", &["t.updated_at"]),
            order("start_at", &["t.start_at"]),
        ],
        "t.created_at DESC"
    ),
    list!(
        "sponsors",
        "sponsors t",
        model::Sponsor,
        &[
            param(
                "is_member",
                ParamKind::Bool,
                "(CASE WHEN t.is_member THEN 'true' ELSE 'false' END)",
            ),
            param(
                "member_type",
                ParamKind::Choice(&vocab::MemberType::VOCAB),
                "t.member_type",
            ),
            param("sponsor_type", ParamKind::Text, "t.sponsor_type_lc"),
        ],
        &[order("name", &["t.name_lc", "t.name"])],
        "t.name_lc, t.name"
    ),
];

/// The 5 snapshot sub-lists (`/snapshots/{snapshot_id}/<path>/`).
pub static SNAPSHOT_LISTS: &[ListSpec] = &[
    list!(snapshot "chapters", "chapter_id", "api_chapters t", model::Chapter),
    list!(snapshot "issues", "issue_id", IN_REPO, model::SnapshotIssue),
    list!(snapshot "members", "member_id", "members t", model::Member),
    list!(snapshot "projects", "project_id", "api_projects t", model::Project),
    list!(
        snapshot "releases",
        "release_id",
        RELEASE_IN_REPO,
        model::SnapshotRelease,
        &[
            order("created_at", &["t.created_at"]),
            order("published_at", &["t.published_at"]),
        ],
        "t.published_at DESC"
    ),
];

/// A detail: `path`, its operation (`get_<one>`), the singular name of its "not
/// found", its tables and body type, and how its ids are looked up: by one
/// case-insensitive column (`key_lc`, `login_lc`), by a key with its prefix (the id
/// is the key without it), or in a repository (organization, repository, then the
/// record's own rule and column within it).
macro_rules! detail {
    ($path:literal, $one:literal, $singular:literal, $from:expr, $body:ty, ci $column:literal) => {
        detail!(
            @spec $path, $one, $singular, $from, $body,
            [concat!($one, "_id")],
            [IdRule::Ci],
            concat!("t.", $column, " = ?1"),
            [concat!("t.", $column)]
        )
    };
    ($path:literal, $one:literal, $singular:literal, $from:expr, $body:ty, prefixed $prefix:literal) => {
        detail!(
            @spec $path, $one, $singular, $from, $body,
            [concat!($one, "_id")],
            [IdRule::Prefixed($prefix)],
            concat!("t.key_lc = '", $prefix, "' || ?1"),
            [const_format::concatcp!(
                "CAST(substr(CAST(t.key_lc AS BLOB), ",
                ($prefix.len() + 1),
                ") AS TEXT)"
            )]
        )
    };
    (
        $path:literal, $one:literal, $singular:literal, $from:expr, $body:ty,
        in_repo $rule:expr, $column:literal, $id_expr:literal
    ) => {
        detail!(
            @spec $path, $one, $singular, $from, $body,
            ["organization_id", "repository_id", concat!($one, "_id")],
            [IdRule::Ci, IdRule::Ci, $rule],
            concat!("o.login_lc = ?1 AND r.name_lc = ?2 AND t.", $column, " = ?3"),
            ["o.login_lc", "r.name_lc", $id_expr]
        )
    };
    (
        @spec $path:literal, $one:literal, $singular:literal, $from:expr, $body:ty,
        [$($id_name:expr),*], [$($rule:expr),*], $lookup:expr, [$($id_expr:expr),*]
    ) => {
        DetailSpec {
            path: $path,
            operation_id: concat!("get_", $one),
            singular: $singular,
            id_names: &[$($id_name),*],
            ids: &[$($rule),*],
            from: $from,
            lookup: $lookup,
            id_exprs: &[$($id_expr),*],
            body: ItemType::of::<$body>(),
        }
    };
}

/// The 12 details.
pub static DETAILS: &[DetailSpec] = &[
    detail!("chapters", "chapter", "Chapter", "api_chapters t", model::ChapterDetail,
        prefixed "www-chapter-"),
    detail!("committees", "committee", "Committee", "api_committees t",
        model::CommitteeDetail, prefixed "www-committee-"),
    detail!("events", "event", "Event", "events t", model::EventDetail, ci "key_lc"),
    detail!("issues", "issue", "Issue", ISSUE_WITH_BODY, model::IssueDetail,
        in_repo IdRule::Number, "number", "CAST(t.number AS TEXT)"),
    detail!("members", "member", "Member", "members t", model::MemberDetail, ci "login_lc"),
    detail!("milestones", "milestone", "Milestone", MILESTONE_IN_REPO, model::MilestoneDetail,
        in_repo IdRule::Number, "number", "CAST(t.number AS TEXT)"),
    detail!("organizations", "organization", "Organization", "api_organizations t",
        model::OrganizationDetail, ci "login_lc"),
    detail!("projects", "project", "Project", "api_projects t", model::ProjectDetail,
        prefixed "www-project-"),
    detail!("releases", "release", "Release", RELEASE_IN_REPO, model::ReleaseDetail,
        in_repo IdRule::Exact, "tag_name", "t.tag_name"),
    detail!(
        @spec "repositories", "repository", "Repository",
        "repositories t JOIN organizations o ON o.id = t.organization_id",
        model::RepositoryDetail,
        ["organization_id", "repository_id"],
        [IdRule::Ci, IdRule::Ci],
        "o.login_lc = ?1 AND t.name_lc = ?2",
        ["o.login_lc", "t.name_lc"]
    ),
    detail!("snapshots", "snapshot", "Snapshot", "api_snapshots t", model::SnapshotDetail,
        ci "key_lc"),
    detail!("sponsors", "sponsor", "Sponsor", "sponsors t", model::SponsorDetail, ci "key_lc"),
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
