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

/// The 13 top-level lists, in URL order.
pub static LISTS: &[ListSpec] = &[
    ListSpec {
        path: "chapters",
        operation_id: "list_chapters",
        snapshot_link: None,
        from: "api_chapters t",
        item: ItemType::of::<model::Chapter>(),
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
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "committees",
        operation_id: "list_committees",
        snapshot_link: None,
        from: "api_committees t",
        item: ItemType::of::<model::Committee>(),
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "events",
        operation_id: "list_events",
        snapshot_link: None,
        from: "events t",
        item: ItemType::of::<model::Event>(),
        params: &[
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
        orderings: &[
            order_tie("start_date", &["t.start_date"], false, EVENT_TIE),
            order_tie("end_date", &["t.end_date"], true, EVENT_TIE),
            order_tie("latitude", &["t.latitude"], true, EVENT_TIE),
            order_tie("longitude", &["t.longitude"], true, EVENT_TIE),
        ],
        default_order: "t.start_date DESC, t.end_date IS NULL, t.end_date DESC",
        default_order_words: "",
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
        item: ItemType::of::<model::Issue>(),
        params: ORG_REPO_STATE,
        orderings: CREATED_UPDATED_TIE,
        default_order: "t.created_at DESC, t.updated_at DESC",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "labels",
        operation_id: "list_labels",
        snapshot_link: None,
        from: "labels t",
        item: ItemType::of::<model::Label>(),
        params: &[param("color", ParamKind::Text, "t.color_lc")],
        orderings: &[
            order("nest_created_at", &["t.created_at"]),
            order("nest_updated_at", &["t.updated_at"]),
        ],
        default_order: "",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "members",
        operation_id: "list_members",
        snapshot_link: None,
        from: "members t",
        item: ItemType::of::<model::Member>(),
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
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "milestones",
        operation_id: "list_milestones",
        snapshot_link: None,
        from: MILESTONE_IN_REPO,
        item: ItemType::of::<model::Milestone>(),
        params: ORG_REPO_STATE,
        orderings: CREATED_UPDATED_TIE,
        default_order: "t.created_at DESC, t.updated_at DESC",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "organizations",
        operation_id: "list_organizations",
        snapshot_link: None,
        from: "api_organizations t",
        item: ItemType::of::<model::Organization>(),
        params: &[param("location", ParamKind::Text, "t.location_lc")],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "projects",
        operation_id: "list_projects",
        snapshot_link: None,
        from: "api_projects t",
        item: ItemType::of::<model::Project>(),
        params: &[
            param("level", ParamKind::Choice(&vocab::Level::VOCAB), "t.level"),
            param("q", ParamKind::Search, "t.name_lc"),
            param(
                "type",
                ParamKind::Choices(&vocab::ProjectType::VOCAB),
                "t.type",
            ),
        ],
        orderings: CREATED_UPDATED,
        default_order: "t.level_rank DESC, t.stars DESC, t.forks DESC",
        default_order_words: "level rank descending (flagship, production, lab, incubator, demo), \
                              then stars descending, then forks descending",
        upcoming: None,
    },
    ListSpec {
        path: "releases",
        operation_id: "list_releases",
        snapshot_link: None,
        from: RELEASE_IN_REPO,
        item: ItemType::of::<model::Release>(),
        params: &[
            param("organization", ParamKind::Text, "o.login_lc"),
            param("repository", ParamKind::Text, "r.name_lc"),
            param("tag_name", ParamKind::Exact, "t.tag_name"),
        ],
        orderings: RELEASE_ORDERINGS,
        default_order: "t.published_at IS NULL, t.published_at DESC, t.created_at DESC",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "repositories",
        operation_id: "list_repositories",
        snapshot_link: None,
        from: "repositories t JOIN organizations o ON o.id = t.organization_id",
        item: ItemType::of::<model::Repository>(),
        params: &[param("organization_id", ParamKind::Text, "o.login_lc")],
        orderings: CREATED_UPDATED_TIE,
        default_order: "t.created_at DESC, t.updated_at DESC",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "snapshots",
        operation_id: "list_snapshots",
        snapshot_link: None,
        from: "api_snapshots t",
        item: ItemType::of::<model::Snapshot>(),
        params: &[],
        orderings: &[
            order("created_at", &["t.created_at"]),
            order("updated_at", &["t.updated_at"]),
            order("start_at", &["t.start_at"]),
        ],
        default_order: "t.created_at DESC",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "sponsors",
        operation_id: "list_sponsors",
        snapshot_link: None,
        from: "sponsors t",
        item: ItemType::of::<model::Sponsor>(),
        params: &[
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
        orderings: &[order("name", &["t.name_lc", "t.name"])],
        default_order: "t.name_lc, t.name",
        default_order_words: "",
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
        from: "api_chapters t",
        item: ItemType::of::<model::Chapter>(),
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        default_order_words: "",
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
        item: ItemType::of::<model::SnapshotIssue>(),
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        default_order_words: "",
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
        item: ItemType::of::<model::Member>(),
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        default_order_words: "",
        upcoming: None,
    },
    ListSpec {
        path: "projects",
        operation_id: "list_snapshot_projects",
        snapshot_link: Some(SnapshotLink {
            table: "snapshot_projects",
            column: "project_id",
        }),
        from: "api_projects t",
        item: ItemType::of::<model::Project>(),
        params: &[],
        orderings: CREATED_UPDATED,
        default_order: "t.created_at DESC",
        default_order_words: "",
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
        item: ItemType::of::<model::SnapshotRelease>(),
        params: &[],
        orderings: &[
            order("created_at", &["t.created_at"]),
            order("published_at", &["t.published_at"]),
        ],
        default_order: "t.published_at DESC",
        default_order_words: "",
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
        from: "api_chapters t",
        lookup: "t.key_lc = 'www-chapter-' || ?1",
        id_exprs: &["CAST(substr(CAST(t.key_lc AS BLOB), 13) AS TEXT)"],
        body: ItemType::of::<model::ChapterDetail>(),
    },
    DetailSpec {
        path: "committees",
        operation_id: "get_committee",
        singular: "Committee",
        id_names: &["committee_id"],
        ids: &[IdRule::Prefixed("www-committee-")],
        from: "api_committees t",
        lookup: "t.key_lc = 'www-committee-' || ?1",
        id_exprs: &["CAST(substr(CAST(t.key_lc AS BLOB), 15) AS TEXT)"],
        body: ItemType::of::<model::CommitteeDetail>(),
    },
    DetailSpec {
        path: "events",
        operation_id: "get_event",
        singular: "Event",
        id_names: &["event_id"],
        ids: &[IdRule::Ci],
        from: "events t",
        lookup: "t.key_lc = ?1",
        id_exprs: &["t.key_lc"],
        body: ItemType::of::<model::EventDetail>(),
    },
    DetailSpec {
        path: "issues",
        operation_id: "get_issue",
        singular: "Issue",
        id_names: &["organization_id", "repository_id", "issue_id"],
        ids: &[IdRule::Ci, IdRule::Ci, IdRule::Number],
        from: ISSUE_WITH_BODY,
        lookup: "o.login_lc = ?1 AND r.name_lc = ?2 AND t.number = ?3",
        id_exprs: &["o.login_lc", "r.name_lc", "CAST(t.number AS TEXT)"],
        body: ItemType::of::<model::IssueDetail>(),
    },
    DetailSpec {
        path: "members",
        operation_id: "get_member",
        singular: "Member",
        id_names: &["member_id"],
        ids: &[IdRule::Ci],
        from: "members t",
        lookup: "t.login_lc = ?1",
        id_exprs: &["t.login_lc"],
        body: ItemType::of::<model::MemberDetail>(),
    },
    DetailSpec {
        path: "milestones",
        operation_id: "get_milestone",
        singular: "Milestone",
        id_names: &["organization_id", "repository_id", "milestone_id"],
        ids: &[IdRule::Ci, IdRule::Ci, IdRule::Number],
        from: MILESTONE_IN_REPO,
        lookup: "o.login_lc = ?1 AND r.name_lc = ?2 AND t.number = ?3",
        id_exprs: &["o.login_lc", "r.name_lc", "CAST(t.number AS TEXT)"],
        body: ItemType::of::<model::MilestoneDetail>(),
    },
    DetailSpec {
        path: "organizations",
        operation_id: "get_organization",
        singular: "Organization",
        id_names: &["organization_id"],
        ids: &[IdRule::Ci],
        from: "api_organizations t",
        lookup: "t.login_lc = ?1",
        id_exprs: &["t.login_lc"],
        body: ItemType::of::<model::OrganizationDetail>(),
    },
    DetailSpec {
        path: "projects",
        operation_id: "get_project",
        singular: "Project",
        id_names: &["project_id"],
        ids: &[IdRule::Prefixed("www-project-")],
        from: "api_projects t",
        lookup: "t.key_lc = 'www-project-' || ?1",
        id_exprs: &["CAST(substr(CAST(t.key_lc AS BLOB), 13) AS TEXT)"],
        body: ItemType::of::<model::ProjectDetail>(),
    },
    DetailSpec {
        path: "releases",
        operation_id: "get_release",
        singular: "Release",
        id_names: &["organization_id", "repository_id", "release_id"],
        ids: &[IdRule::Ci, IdRule::Ci, IdRule::Exact],
        from: RELEASE_IN_REPO,
        lookup: "o.login_lc = ?1 AND r.name_lc = ?2 AND t.tag_name = ?3",
        id_exprs: &["o.login_lc", "r.name_lc", "t.tag_name"],
        body: ItemType::of::<model::ReleaseDetail>(),
    },
    DetailSpec {
        path: "repositories",
        operation_id: "get_repository",
        singular: "Repository",
        id_names: &["organization_id", "repository_id"],
        ids: &[IdRule::Ci, IdRule::Ci],
        from: "repositories t JOIN organizations o ON o.id = t.organization_id",
        lookup: "o.login_lc = ?1 AND t.name_lc = ?2",
        id_exprs: &["o.login_lc", "t.name_lc"],
        body: ItemType::of::<model::RepositoryDetail>(),
    },
    DetailSpec {
        path: "snapshots",
        operation_id: "get_snapshot",
        singular: "Snapshot",
        id_names: &["snapshot_id"],
        ids: &[IdRule::Ci],
        from: "api_snapshots t",
        lookup: "t.key_lc = ?1",
        id_exprs: &["t.key_lc"],
        body: ItemType::of::<model::SnapshotDetail>(),
    },
    DetailSpec {
        path: "sponsors",
        operation_id: "get_sponsor",
        singular: "Sponsor",
        id_names: &["sponsor_id"],
        ids: &[IdRule::Ci],
        from: "sponsors t",
        lookup: "t.key_lc = ?1",
        id_exprs: &["t.key_lc"],
        body: ItemType::of::<model::SponsorDetail>(),
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
