//! The community and its people: organizations, members and their badges, chapters,
//! committees and projects (with their leaders, channels, related URLs, repositories
//! and health measurements), events, sponsors, snapshots, the blog's posts and the
//! community-wide values, each declared once per face: as the interchange format
//! carries it and the dataset keeps it ([`interchange`]), as a REST body ([`rest`]),
//! and as a GraphQL object ([`graphql`]; members, leaders and the totals are read
//! there, by `crate::graphql::records`, in several shapes).

/// The records of the community's interchange files.
pub mod interchange {
    use serde::Deserialize;

    use crate::schema::{Counts, Date, Ts};
    use crate::vocab::{Category, Level, MemberType, ProjectType, SnapshotStatus, SponsorType};
    use crate::{field_group, stored};

    fn default_true() -> bool {
        true
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Organization in "organizations" {
            pub login: String => shadowed,
            #[serde(default)]
            pub name: String => column,
            #[serde(default)]
            pub company: String => column,
            #[serde(default)]
            pub location: String => shadowed,
            #[serde(default)]
            pub description: String => column,
            #[serde(default)]
            pub avatar_url: String => column,
            #[serde(default)]
            pub url: String => elsewhere,
            #[serde(default)]
            pub followers_count: u64 => column,
            #[serde(default)]
            pub is_affiliated: bool => column,
            #[serde(default)]
            pub collaborators_count: u64 => column,
            #[serde(default)]
            pub email: String => column,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Member in "members" {
            pub login: String => shadowed,
            #[serde(default)]
            pub name: String => shadowed,
            #[serde(default)]
            pub avatar_url: String => column,
            #[serde(default)]
            pub url: String => elsewhere,
            #[serde(default)]
            pub bio: String => column,
            #[serde(default)]
            pub company: String => shadowed,
            #[serde(default)]
            pub location: String => shadowed,
            #[serde(default)]
            pub title: String => column,
            #[serde(default)]
            pub twitter_username: String => column,
            #[serde(default)]
            pub followers_count: u64 => column,
            #[serde(default)]
            pub following_count: u64 => column,
            #[serde(default)]
            pub public_repositories_count: u64 => column,
            #[serde(default)]
            pub email: String => column,
            #[serde(default)]
            pub is_owasp_board_member: bool => column,
            #[serde(default)]
            pub is_former_owasp_staff: bool => column,
            #[serde(default)]
            pub is_gsoc_mentor: bool => column,
            #[serde(default)]
            pub linkedin_page_id: String => column,
            #[serde(default)]
            pub first_owasp_contribution_at: Option<Ts> => column,
            /// Badge names, as listed.
            #[serde(default)]
            pub badges: Vec<String> => elsewhere,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
        }
    }

    field_group! {
        /// The fields chapters, committees and projects share, each record listing
        /// those it has in its own order.
        entity for stored {
            pub key: String => shadowed,
            pub name: String => column,
            #[serde(default = "default_true")]
            pub is_active: bool => column,
            #[serde(default)]
            pub description: String => column,
            #[serde(default)]
            pub summary: String => column,
            #[serde(default)]
            pub url: String => column,
            #[serde(default)]
            pub leaders: Vec<Leader> => elsewhere,
            #[serde(default)]
            pub related_urls: Vec<String> => elsewhere,
            #[serde(default)]
            pub channels: Vec<Channel> => elsewhere,
            #[serde(default)]
            pub repositories: Vec<RepositoryRef> => elsewhere,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Chapter in "chapters" {
            ..entity { key, name, is_active },
            #[serde(default)]
            pub country: String => shadowed,
            #[serde(default)]
            pub region: String => column,
            #[serde(default)]
            pub latitude: Option<f64> => column,
            #[serde(default)]
            pub longitude: Option<f64> => column,
            ..entity { summary, url, leaders },
            #[serde(default)]
            pub suggested_location: Option<String> => column,
            ..entity { related_urls, channels, repositories, created_at, updated_at },
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Committee in "committees" {
            ..entity {
                key, name, is_active, description, summary, url, leaders, related_urls,
                channels, repositories, created_at, updated_at,
            },
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Project in "projects" {
            ..entity { key },
            // With its lower-case shadow, unlike a chapter's or committee's name.
            pub name: String => shadowed,
            ..entity { is_active },
            pub level: Level => column,
            #[serde(rename = "type")]
            pub kind: ProjectType => elsewhere,
            ..entity {
                description, summary, url, leaders, repositories, related_urls, channels,
                created_at, updated_at,
            },
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Event in "events" {
            pub key: String => shadowed,
            pub name: String => column,
            pub category: Category => column,
            pub start_date: Date => column,
            #[serde(default)]
            pub end_date: Option<Date> => column,
            #[serde(default)]
            pub latitude: Option<f64> => column,
            #[serde(default)]
            pub longitude: Option<f64> => column,
            #[serde(default)]
            pub url: Option<String> => column,
            #[serde(default)]
            pub description: Option<String> => column,
            #[serde(default)]
            pub summary: String => column,
            #[serde(default)]
            pub suggested_location: String => column,
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Sponsor in "sponsors" {
            pub key: String => shadowed,
            pub name: String => shadowed,
            pub sponsor_type: SponsorType => shadowed,
            #[serde(default)]
            pub is_member: bool => column,
            #[serde(default)]
            pub member_type: MemberType => column,
            #[serde(default)]
            pub image_url: String => column,
            #[serde(default)]
            pub url: String => column,
            #[serde(default)]
            pub job_url: String => column,
            #[serde(default)]
            pub description: String => column,
        }
    }

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Snapshot in "snapshots" {
            pub key: String => shadowed,
            pub title: String => column,
            pub status: SnapshotStatus => column,
            pub start_at: Ts => column,
            pub end_at: Ts => column,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
            #[serde(default)]
            pub new_chapters: Vec<String> => elsewhere,
            #[serde(default)]
            pub new_projects: Vec<String> => elsewhere,
            #[serde(default)]
            pub new_members: Vec<String> => elsewhere,
            #[serde(default)]
            pub new_issues: Vec<IssueRef> => elsewhere,
            #[serde(default)]
            pub new_releases: Vec<ReleaseRef> => elsewhere,
        }
    }

    stored! {
        /// A post of the community's blog.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Post in "posts" {
            pub title: String => column,
            pub url: String => shadowed,
            pub author_name: String => column,
            #[serde(default)]
            pub author_image_url: String => column,
            pub published_at: Ts => column,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
        }
    }

    stored! {
        /// One measurement of a project's health.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct ProjectHealthMetrics in "project_health_metrics" {
            pub project: String => elsewhere,
            pub created_at: Ts => column,
            #[serde(default)]
            pub score: Option<f64> => column,
            #[serde(default)]
            pub stars_count: u64 => column,
            #[serde(default)]
            pub forks_count: u64 => column,
            #[serde(default)]
            pub open_issues_count: u64 => column,
            #[serde(default)]
            pub open_pull_requests_count: u64 => column,
            #[serde(default)]
            pub unanswered_issues_count: u64 => column,
            #[serde(default)]
            pub unassigned_issues_count: u64 => column,
            #[serde(default)]
            pub last_commit_days: u64 => column,
            #[serde(default)]
            pub last_commit_days_requirement: u64 => column,
            #[serde(default)]
            pub last_release_days: u64 => column,
            #[serde(default)]
            pub last_release_days_requirement: u64 => column,
            #[serde(default)]
            pub contributors_count: u64 => column,
            #[serde(default)]
            pub recent_releases_count: u64 => column,
            #[serde(default)]
            pub total_issues_count: u64 => column,
            #[serde(default)]
            pub total_releases_count: u64 => column,
            #[serde(default)]
            pub is_funding_requirements_compliant: bool => column,
            #[serde(default)]
            pub is_leader_requirements_compliant: bool => column,
            #[serde(default)]
            pub age_days: u64 => column,
            #[serde(default)]
            pub age_days_requirement: u64 => column,
            #[serde(default)]
            pub last_pull_request_days: u64 => column,
            #[serde(default)]
            pub last_pull_request_days_requirement: u64 => column,
            #[serde(default)]
            pub owasp_page_last_update_days: u64 => column,
            #[serde(default)]
            pub owasp_page_last_update_days_requirement: u64 => column,
        }
    }

    stored! {
        /// A badge members can hold.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Badge in "badges" {
            pub name: String => shadowed,
            #[serde(default)]
            pub description: String => column,
            #[serde(default)]
            pub css_class: String => column,
            #[serde(default)]
            pub weight: i64 => column,
        }
    }

    /// A leader of a chapter, committee or project, or a candidate or member of a board
    /// of directors.
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Leader {
        pub name: String,
        #[serde(default)]
        pub login: Option<String>,
        /// The leader's role (a candidate's statement).
        #[serde(default)]
        pub description: String,
        /// A contact address the entry lists; empty when none.
        #[serde(default)]
        pub email: String,
    }

    stored! {
        /// The board of directors of one year: its election's candidates and its members.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Board in "boards" {
            pub year: u64 => column,
            #[serde(default)]
            pub url: String => column,
            #[serde(default)]
            pub candidates: Vec<Leader> => elsewhere,
            #[serde(default)]
            pub members: Vec<Leader> => elsewhere,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
        }
    }

    stored! {
        /// A member's activity over one period.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct MemberSnapshot in "member_snapshots" {
            pub member: String => elsewhere,
            pub start_at: Ts => column,
            pub end_at: Ts => column,
            #[serde(default)]
            pub commits_count: u64 => column,
            #[serde(default)]
            pub pull_requests_count: u64 => column,
            #[serde(default)]
            pub issues_count: u64 => column,
            #[serde(default)]
            pub messages_count: u64 => column,
            #[serde(default)]
            pub contribution_heatmap_data: Counts => column,
            #[serde(default)]
            pub communication_heatmap_data: Counts => column,
            #[serde(default)]
            pub chapter_contributions: Counts => column,
            #[serde(default)]
            pub project_contributions: Counts => column,
            #[serde(default)]
            pub repository_contributions: Counts => column,
            #[serde(default)]
            pub channel_communications: Counts => column,
        }
    }

    /// A link to one repository (of a project, chapter or committee).
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RepositoryRef {
        pub organization: String,
        pub name: String,
    }

    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct IssueRef {
        pub organization: String,
        pub repository: String,
        pub number: u64,
    }

    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ReleaseRef {
        pub organization: String,
        pub repository: String,
        pub tag_name: String,
    }

    /// `community.json`: values of the community as a whole (one JSON object).
    #[derive(Debug, Clone, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Community {
        /// Members of the community's chat workspace.
        #[serde(default)]
        pub slack_workspace_members: u64,
    }

    /// A chat channel of a chapter, committee or project.
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Channel {
        pub platform: String,
        #[serde(default)]
        pub name: String,
        #[serde(default)]
        pub external_id: String,
    }
}

/// The REST bodies of chapters, committees, events, members, organizations,
/// projects, snapshots and sponsors.
pub mod rest {
    use serde::Serialize;
    use utoipa::ToSchema;

    use crate::schema::exposure::new_in_snapshot;
    use crate::schema::Cols;
    use crate::vocab::{Level, ProjectType};
    use crate::{field_group, selected};

    /// A leader of a chapter, committee or project.
    #[derive(Debug, Clone, Serialize, ToSchema)]
    pub struct Leader {
        /// The leader's member login; null when the leader has no linked account.
        pub key: Option<String>,
        pub name: String,
    }

    /// The leaders of the record of `kind` whose id is the next column, in their order.
    fn leaders(kind: &str, c: &mut Cols) -> rusqlite::Result<Vec<Leader>> {
        let id: i64 = c.get()?;
        let mut st = c.conn().prepare_cached(
            "SELECT m.login, l.name FROM leaders l LEFT JOIN members m ON m.id = l.member_id \
             WHERE l.entity_kind = ?1 AND l.entity_id = ?2 ORDER BY l.position",
        )?;
        let rows = st.query_map(rusqlite::params![kind, id], |r| {
            Ok(Leader {
                key: r.get(0)?,
                name: r.get(1)?,
            })
        })?;
        rows.collect()
    }

    fn chapter_leaders(c: &mut Cols) -> rusqlite::Result<Vec<Leader>> {
        leaders("chapter", c)
    }

    fn project_leaders(c: &mut Cols) -> rusqlite::Result<Vec<Leader>> {
        leaders("project", c)
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Chapter {
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            /// Full key: `www-chapter-` then the name part.
            pub key: String = get(),
            pub latitude: Option<f64> = get(),
            pub longitude: Option<f64> = get(),
            pub name: String = get(),
            #[schema(format = DateTime)]
            pub updated_at: String = ts(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct ChapterDetail: extends Chapter {
            pub country: String = get(),
            pub leaders: Vec<Leader> = with(chapter_leaders, "t.id"),
            pub region: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Committee {
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            /// Full key: `www-committee-` then the name part.
            pub key: String = get(),
            pub name: String = get(),
            #[schema(format = DateTime)]
            pub updated_at: String = ts(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct CommitteeDetail: extends Committee {
            pub description: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Event {
            #[schema(format = Date)]
            pub end_date: Option<String> = get(),
            pub key: String = get(),
            pub latitude: Option<f64> = get(),
            pub longitude: Option<f64> = get(),
            pub name: String = get(),
            #[schema(format = Date)]
            pub start_date: String = get(),
            pub url: Option<String> = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct EventDetail: extends Event {
            pub description: Option<String> = get(),
        }
    }

    field_group! {
        /// The fields the list items of members and organizations (accounts of the
        /// code host) share.
        account for selected {
            pub avatar_url: String = get(),
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            pub login: String = get(),
            pub name: String = get(),
            #[schema(format = DateTime)]
            pub updated_at: String = ts(),
            pub url: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Member {
            ..account { avatar_url, created_at, login, name, updated_at, url },
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct MemberDetail: extends Member {
            pub bio: String = get(),
            pub company: String = get(),
            pub followers_count: i64 = get(),
            pub following_count: i64 = get(),
            pub location: String = get(),
            pub public_repositories_count: i64 = get(),
            pub title: String = get(),
            pub twitter_username: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Organization {
            ..account { created_at, login, name, updated_at },
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct OrganizationDetail: extends Organization {
            pub company: String = get(),
            pub location: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Project {
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            /// Full key: `www-project-` then the name part.
            pub key: String = get(),
            #[schema(value_type = Level)]
            pub level: String = get(),
            pub name: String = get(),
            #[serde(rename = "type")]
            #[schema(value_type = ProjectType)]
            pub kind: String = get("t.type"),
            #[schema(format = DateTime)]
            pub updated_at: String = ts(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct ProjectDetail: extends Project {
            pub description: String = get(),
            pub leaders: Vec<Leader> = with(project_leaders, "t.id"),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Snapshot {
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            #[schema(format = DateTime)]
            pub end_at: String = ts(),
            /// `YYYY-MM`.
            pub key: String = get(),
            #[schema(format = DateTime)]
            pub start_at: String = ts(),
            pub title: String = get(),
            #[schema(format = DateTime)]
            pub updated_at: String = ts(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct SnapshotDetail: extends Snapshot {
            pub new_chapters_count: i64 = get(new_in_snapshot!(chapters)),
            pub new_issues_count: i64 = get(new_in_snapshot!(issues)),
            pub new_projects_count: i64 = get(new_in_snapshot!(projects)),
            pub new_releases_count: i64 = get(new_in_snapshot!(releases)),
            pub new_users_count: i64 = get(new_in_snapshot!(members)),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Sponsor {
            pub image_url: String = get(),
            pub key: String = get(),
            pub name: String = get(),
            pub sponsor_type: String = get(),
            pub url: String = get(),
        }
    }

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct SponsorDetail: extends Sponsor {
            pub description: String = get(),
            pub is_member: bool = get(),
            pub job_url: String = get(),
            /// `Platinum`, `Gold` or `Silver` (see `SponsorMemberType`), or empty when the
            /// sponsor is not a member.
            pub member_type: String = get(),
        }
    }
}

/// The GraphQL objects of chapters, committees, events, sponsors, projects,
/// organizations and snapshots (their resolved fields are in `crate::graphql::types`).
pub mod graphql {
    use async_graphql::{Json, SimpleObject, ID};
    use serde_json::Value;

    use crate::schema::{lc, node_id, short_key, Cols};
    use crate::{field_group, selected};

    selected! {
        /// The board of directors of one year.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex, name = "BoardOfDirectors")]
        pub struct Board {
            /// Opaque and stable: the board's year.
            #[graphql(name = "id")]
            pub node_id: ID = later(),
            #[graphql(skip)]
            pub id: i64 = get(),
            pub year: i64 = get(),
            /// The page of the year's election; empty when the dataset gives none.
            pub owasp_url: String = get("t.url"),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
        } => finish_board
    }

    /// The id from the year.
    fn finish_board(rec: &mut Board, _c: &mut Cols) -> rusqlite::Result<()> {
        rec.node_id = node_id("BoardOfDirectors", &rec.year.to_string());
        Ok(())
    }

    selected! {
        /// A member's activity over one period.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct MemberSnapshot {
            /// Opaque and stable: the member's login and the start of the period.
            #[graphql(name = "id")]
            pub node_id: ID = later(),
            #[graphql(skip)]
            pub member_id: i64 = get(),
            #[graphql(skip)]
            pub login: String = get("(SELECT m.login_lc FROM members m WHERE m.id = t.member_id)"),
            #[graphql(skip)]
            pub micros: i64 = get("t.start_at"),
            pub start_at: String = ts(),
            pub end_at: String = ts(),
            pub commits_count: i64 = get(),
            pub pull_requests_count: i64 = get(),
            pub issues_count: i64 = get(),
            /// Chat messages in the period.
            pub messages_count: i64 = get(),
            /// Commits, pull requests and issues.
            pub total_contributions: i64 =
                get("t.commits_count + t.pull_requests_count + t.issues_count"),
            /// Contributions per day (`YYYY-MM-DD`).
            pub contribution_heatmap_data: Json<Value> =
                with(json_object, "t.contribution_heatmap_data"),
            /// Chat messages per day (`YYYY-MM-DD`).
            pub communication_heatmap_data: Json<Value> =
                with(json_object, "t.communication_heatmap_data"),
            /// Contributions per chapter key.
            pub chapter_contributions: Json<Value> =
                with(json_object, "t.chapter_contributions"),
            /// Contributions per project key.
            pub project_contributions: Json<Value> =
                with(json_object, "t.project_contributions"),
            /// Contributions per repository (`organization/repository`).
            pub repository_contributions: Json<Value> =
                with(json_object, "t.repository_contributions"),
            /// Chat messages per channel.
            pub channel_communications: Json<Value> =
                with(json_object, "t.channel_communications"),
        } => finish_member_snapshot
    }

    /// The id from the member's login and the start of the period.
    fn finish_member_snapshot(rec: &mut MemberSnapshot, _c: &mut Cols) -> rusqlite::Result<()> {
        rec.node_id = node_id("MemberSnapshot", &format!("{}@{}", rec.login, rec.micros));
        Ok(())
    }

    /// A JSON object kept as its text.
    fn json_object(c: &mut Cols) -> rusqlite::Result<Json<Value>> {
        let text: String = c.get()?;
        serde_json::from_str(&text).map(Json).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })
    }

    selected! {
        /// One measurement of an active project's health.
        #[derive(SimpleObject, Clone)]
        #[graphql(name = "ProjectHealthMetrics")]
        pub struct HealthMetrics {
            /// Opaque and stable: the project's key and the time of the measurement.
            #[graphql(name = "id")]
            pub node_id: ID = later(),
            #[graphql(skip)]
            pub micros: i64 = get("t.created_at"),
            pub created_at: String = ts(),
            /// The project's key without its `www-project-` prefix.
            pub project_key: String = get("(SELECT p.key FROM api_projects p WHERE p.id = t.project_id)"),
            pub project_name: String = get("(SELECT p.name FROM api_projects p WHERE p.id = t.project_id)"),
            /// 0 to 100; null when the measurement has no score.
            pub score: Option<f64> = get(),
            pub stars_count: i64 = get(),
            pub forks_count: i64 = get(),
            pub contributors_count: i64 = get(),
            pub open_issues_count: i64 = get(),
            pub open_pull_requests_count: i64 = get(),
            pub unanswered_issues_count: i64 = get(),
            pub unassigned_issues_count: i64 = get(),
            pub total_issues_count: i64 = get(),
            pub recent_releases_count: i64 = get(),
            pub total_releases_count: i64 = get(),
            pub is_funding_requirements_compliant: bool = get(),
            pub is_leader_requirements_compliant: bool = get(),
            pub age_days: i64 = get(),
            pub age_days_requirement: i64 = get(),
            pub last_commit_days: i64 = get(),
            pub last_commit_days_requirement: i64 = get(),
            pub last_pull_request_days: i64 = get(),
            pub last_pull_request_days_requirement: i64 = get(),
            pub last_release_days: i64 = get(),
            pub last_release_days_requirement: i64 = get(),
            pub owasp_page_last_update_days: i64 = get(),
            pub owasp_page_last_update_days_requirement: i64 =
                get("t.owasp_page_last_update_days_requirement"),
        } => finish_health_metrics
    }

    /// The id from the project's full key and the time; the key shortened.
    fn finish_health_metrics(rec: &mut HealthMetrics, _c: &mut Cols) -> rusqlite::Result<()> {
        rec.node_id = node_id(
            "ProjectHealthMetrics",
            &format!("{}@{}", lc(&rec.project_key), rec.micros),
        );
        rec.project_key = short_key(&rec.project_key, "www-project-").to_string();
        Ok(())
    }

    field_group! {
        /// The fields chapters, committees and projects share, each record listing
        /// those it has in its own order.
        entity for selected {
            pub name: String = get(),
            pub description: String = get(),
            pub summary: String = get(),
            pub url: String = get(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
        }
    }

    selected! {
        /// An active chapter.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct Chapter: node, id {
            /// The key without its `www-chapter-` prefix, as in the frontend's links and the
            /// REST paths.
            pub key: String = get(),
            ..entity { name },
            pub country: String = get(),
            pub region: String = get(),
            /// Always true: inactive chapters are not part of the API.
            pub is_active: bool = get(),
            pub latitude: Option<f64> = get(),
            pub longitude: Option<f64> = get(),
            ..entity { summary, url, created_at, updated_at },
            /// Where the chapter meets, as a place name for display; null when the dataset
            /// gives none.
            pub suggested_location: Option<String> = get(),
        } => keyed("Chapter", key, "www-chapter-")
    }

    selected! {
        /// An active committee.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct Committee: node, id {
            /// The key without its `www-committee-` prefix, as in the frontend's links and the
            /// REST paths.
            pub key: String = get(),
            ..entity { name, description, summary, url, created_at, updated_at },
        } => keyed("Committee", key, "www-committee-")
    }

    selected! {
        /// An event.
        #[derive(SimpleObject, Clone)]
        pub struct Event: node {
            pub key: String = get(),
            pub name: String = get(),
            /// `appsec_days`, `global`, `partner` or `other`.
            pub category: String = get(),
            /// `YYYY-MM-DD`.
            pub start_date: String = get(),
            /// `YYYY-MM-DD`.
            pub end_date: Option<String> = get(),
            pub latitude: Option<f64> = get(),
            pub longitude: Option<f64> = get(),
            pub url: Option<String> = get(),
            pub description: Option<String> = get(),
            pub summary: String = get(),
            pub suggested_location: String = get(),
        } => keyed("Event", key)
    }

    selected! {
        /// A sponsor.
        #[derive(SimpleObject, Clone)]
        pub struct Sponsor: node {
            pub key: String = get(),
            pub name: String = get(),
            /// `Diamond`, `Platinum`, `Gold`, `Silver`, `Supporter` or `Not a Sponsor`.
            pub sponsor_type: String = get(),
            pub is_member: bool = get(),
            /// `Platinum`, `Gold`, `Silver`, or empty.
            pub member_type: String = get(),
            pub image_url: String = get(),
            pub url: String = get(),
            pub job_url: String = get(),
            pub description: String = get(),
        } => keyed("Sponsor", key)
    }

    selected! {
        /// An active project.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct Project: node, id {
            /// The key without its `www-project-` prefix, as in the frontend's links and the
            /// REST paths.
            pub key: String = get(),
            ..entity { name },
            /// `flagship`, `production`, `incubator`, `lab` or `demo`.
            pub level: String = get(),
            /// `code`, `documentation`, `tool` or `other`.
            #[graphql(name = "type")]
            pub kind: String = get("t.type"),
            /// Always true: inactive projects are not part of the API.
            pub is_active: bool = get(),
            ..entity { description, summary, url },
            /// Sum of the stars of the project's repositories.
            pub stars_count: i64 = get("t.stars"),
            /// Sum of the forks of the project's repositories.
            pub forks_count: i64 = get("t.forks"),
            ..entity { created_at, updated_at },
        } => keyed("Project", key, "www-project-")
    }

    selected! {
        /// An organization affiliated with the community.
        #[derive(SimpleObject, Clone, Default)]
        #[graphql(complex)]
        pub struct Organization: node, id {
            pub login: String = get(),
            pub name: String = get(),
            pub company: String = get(),
            pub location: String = get(),
            pub description: String = get(),
            pub avatar_url: String = get(),
            pub url: String = get(),
            pub followers_count: i64 = get(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
            /// Public contact address; empty when the organization lists none.
            pub email: String = get(),
            /// Members with access to the organization's repositories, as the code-hosting
            /// site counts them.
            pub collaborators_count: i64 = get(),
        } => keyed("Organization", login)
    }

    selected! {
        /// A completed snapshot: what was new in a month.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct Snapshot: node, id {
            /// `YYYY-MM`.
            pub key: String = get(),
            pub title: String = get(),
            pub start_at: String = ts(),
            pub end_at: String = ts(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
        } => keyed("Snapshot", key)
    }

    selected! {
        /// A member (code-hosting user).
        #[derive(SimpleObject, Clone, Default)]
        #[graphql(complex)]
        pub struct User: node, id {
            pub login: String = get(),
            pub name: String = get(),
            pub avatar_url: String = get(),
            pub url: String = get(),
            pub bio: String = get(),
            pub company: String = get(),
            pub location: String = get(),
            pub title: String = get(),
            pub twitter_username: String = get(),
            pub followers_count: i64 = get(),
            pub following_count: i64 = get(),
            pub public_repositories_count: i64 = get(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
            /// Public contact address; empty when the member lists none.
            pub email: String = get(),
            /// The member sits on the current board of directors.
            pub is_owasp_board_member: bool = get(),
            /// The member worked for the foundation.
            pub is_former_owasp_staff: bool = get(),
            /// The member has mentored in a summer-of-code program.
            pub is_gsoc_mentor: bool = get(),
            /// The member's professional-network page id; empty when none.
            pub linkedin_page_id: String = get(),
            /// The member's first contribution to the community; null when unknown.
            pub first_owasp_contribution_at: Option<String> =
                opt_ts("t.first_owasp_contribution_at"),
        } => keyed("User", login)
    }

    selected! {
        /// A badge a member holds.
        #[derive(SimpleObject, Clone)]
        pub struct Badge {
            /// Opaque and stable: the badge's name.
            #[graphql(name = "id")]
            pub node_id: ID = later(),
            pub name: String = get(),
            pub description: String = get(),
            pub css_class: String = get(),
            pub weight: i64 = get(),
        } => keyed("Badge", name)
    }

    selected! {
        /// A post of the community's blog.
        #[derive(SimpleObject, Clone)]
        pub struct Post: node {
            pub title: String = get(),
            pub url: String = get(),
            pub author_name: String = get(),
            pub author_image_url: String = get(),
            pub published_at: String = ts(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
        } => keyed("Post", url)
    }
}

/// Where the community's records come from in the original service's database
/// (`crate::schema::original`).
pub mod original {
    use crate::content_type;
    use crate::schema::original::{col, derived, not_held, Dropped, Skip, Source};

    /// The entity members of one role of the row `$alias` of a model, as leaders.
    macro_rules! entity_members {
        ($model:literal, $alias:literal, $role:literal, $order:literal, $filter:literal) => {
            concat!(
                "(SELECT coalesce(json_agg(json_build_object('name', em.member_name, \
                 'login', emu.login, 'description', em.description, 'email', \
                 em.member_email) ORDER BY ",
                $order,
                "), '[]'::json) FROM owasp_entity_members em LEFT JOIN github_users emu \
                 ON emu.id = em.member_id WHERE em.entity_type_id = ",
                content_type!("owasp", $model),
                " AND em.entity_id = ",
                $alias,
                ".id AND em.role = '",
                $role,
                "'",
                $filter,
                ")"
            )
        };
    }

    /// What entity members are read from.
    const MEMBERS_READ: &[&str] = &[
        "django_content_type.app_label",
        "django_content_type.model",
        "owasp_entity_members.member_name",
        "owasp_entity_members.member_id",
        "owasp_entity_members.description",
        "owasp_entity_members.member_email",
        "owasp_entity_members.entity_type_id",
        "owasp_entity_members.entity_id",
        "owasp_entity_members.role",
        "owasp_entity_members.order",
        "owasp_entity_members.is_active",
        "owasp_entity_members.is_reviewed",
        "github_users.login",
    ];

    /// The active chat channels of the row `$alias` of a model.
    macro_rules! channels {
        ($model:literal, $alias:literal) => {
            concat!(
                "(SELECT coalesce(json_agg(json_build_object('platform', ec.platform, \
                 'name', sc.name, 'external_id', sc.slack_channel_id) ORDER BY ec.id), \
                 '[]'::json) FROM owasp_entity_channels ec JOIN slack_conversations sc \
                 ON sc.id = ec.channel_id WHERE ec.channel_type_id = ",
                content_type!("slack", "conversation"),
                " AND ec.entity_type_id = ",
                content_type!("owasp", $model),
                " AND ec.entity_id = ",
                $alias,
                ".id AND ec.is_active)"
            )
        };
    }

    const CHANNELS_READ: &[&str] = &[
        "django_content_type.app_label",
        "django_content_type.model",
        "owasp_entity_channels.platform",
        "owasp_entity_channels.channel_id",
        "owasp_entity_channels.channel_type_id",
        "owasp_entity_channels.entity_type_id",
        "owasp_entity_channels.entity_id",
        "owasp_entity_channels.is_active",
        "slack_conversations.name",
        "slack_conversations.slack_channel_id",
    ];

    /// A chapter's or committee's repository: its `owasp_repository`, when an
    /// organization's.
    macro_rules! own_repository {
        ($alias:literal) => {
            concat!(
                "(SELECT coalesce(json_agg(json_build_object('organization', ro.login, \
                 'name', rr.name)), '[]'::json) FROM github_repositories rr JOIN \
                 github_organizations ro ON ro.id = rr.organization_id WHERE rr.id = ",
                $alias,
                ".owasp_repository_id)"
            )
        };
    }

    /// The fields chapters, committees and projects read alike, from alias `$a` (of
    /// the model `$model`, the table `$table`).
    macro_rules! entity_field {
        (leaders $model:literal $a:literal) => {
            derived(
                "leaders",
                entity_members!($model, $a, "leader", "em.\"order\", em.id", ""),
                MEMBERS_READ,
                "owasp_entity_members of role leader, by their order",
            )
        };
        (channels $model:literal $a:literal) => {
            derived(
                "channels",
                channels!($model, $a),
                CHANNELS_READ,
                "the active owasp_entity_channels, with their slack_conversations",
            )
        };
        // A chapter's or committee's repository.
        (own_repository $a:literal $table:literal) => {
            derived(
                "repositories",
                own_repository!($a),
                &[
                    concat!($table, ".owasp_repository_id"),
                    "github_repositories.organization_id",
                ],
                concat!($table, ".owasp_repository_id, when an organization's"),
            )
        };
        (url $a:literal) => {
            derived(
                "url",
                concat!("'https://owasp.org/' || ", $a, ".key"),
                &[],
                "https://owasp.org/<key>, as the original links it",
            )
        };
        (related_urls $a:literal $table:literal) => {
            derived(
                "related_urls",
                concat!("coalesce(", $a, ".related_urls, '[]'::jsonb)"),
                &[concat!($table, ".related_urls")],
                concat!($table, ".related_urls (a JSON list)"),
            )
        };
        // `created_at` or `updated_at`, the original's own stamp when it has none.
        (stamp $field:literal $a:literal $table:literal) => {
            derived(
                $field,
                concat!(
                    "coalesce(",
                    $a,
                    ".",
                    $field,
                    ", ",
                    $a,
                    ".nest_",
                    $field,
                    ")"
                ),
                &[
                    concat!($table, ".", $field),
                    concat!($table, ".nest_", $field),
                ],
                concat!(
                    $table,
                    ".",
                    $field,
                    "; when null, ",
                    $table,
                    ".nest_",
                    $field
                ),
            )
        };
    }

    pub const ORGANIZATIONS: Source = Source {
        kind: "organizations",
        table: "github_organizations",
        from: "github_organizations o",
        aliases: &[("o", "github_organizations")],
        id: "o.id",
        skips: &[],
        dropped: &[],
        optional: None,
        fields: &[
            col("login", "o.login"),
            col("name", "o.name"),
            col("company", "o.company"),
            col("location", "o.location"),
            col("description", "o.description"),
            col("avatar_url", "o.avatar_url"),
            not_held("url", "https://github.com/<login>"),
            col("followers_count", "o.followers_count"),
            col("is_affiliated", "o.is_owasp_related_organization"),
            col("collaborators_count", "o.collaborators_count"),
            col("email", "o.email"),
            col("created_at", "o.created_at"),
            col("updated_at", "o.updated_at"),
        ],
    };

    pub const MEMBERS: Source = Source {
        kind: "members",
        table: "github_users",
        from: "github_users u LEFT JOIN owasp_member_profiles p ON p.github_user_id = u.id",
        aliases: &[("u", "github_users"), ("p", "owasp_member_profiles")],
        id: "u.id",
        skips: &[],
        dropped: &[],
        optional: None,
        fields: &[
            col("login", "u.login"),
            col("name", "u.name"),
            col("avatar_url", "u.avatar_url"),
            not_held("url", "https://github.com/<login>"),
            col("bio", "u.bio"),
            col("company", "u.company"),
            col("location", "u.location"),
            not_held("title", "empty"),
            col("twitter_username", "u.twitter_username"),
            col("followers_count", "u.followers_count"),
            col("following_count", "u.following_count"),
            col("public_repositories_count", "u.public_repositories_count"),
            col("email", "u.email"),
            derived(
                "is_owasp_board_member",
                "coalesce(p.is_owasp_board_member, false)",
                &["owasp_member_profiles.is_owasp_board_member"],
                "owasp_member_profiles.is_owasp_board_member (false without a profile)",
            ),
            derived(
                "is_former_owasp_staff",
                "coalesce(p.is_former_owasp_staff, false)",
                &["owasp_member_profiles.is_former_owasp_staff"],
                "owasp_member_profiles.is_former_owasp_staff (false without a profile)",
            ),
            derived(
                "is_gsoc_mentor",
                "coalesce(p.is_gsoc_mentor, false)",
                &["owasp_member_profiles.is_gsoc_mentor"],
                "owasp_member_profiles.is_gsoc_mentor (false without a profile)",
            ),
            derived(
                "linkedin_page_id",
                "coalesce(p.linkedin_page_id, '')",
                &["owasp_member_profiles.linkedin_page_id"],
                "owasp_member_profiles.linkedin_page_id (empty without a profile)",
            ),
            col("first_owasp_contribution_at", "p.first_contribution_at"),
            derived(
                "badges",
                "(SELECT coalesce(json_agg(b.name ORDER BY ub.id), '[]'::json) \
                 FROM nest_user_badges ub JOIN nest_badges b ON b.id = ub.badge_id \
                 WHERE ub.user_id = u.id AND ub.is_active)",
                &[
                    "nest_user_badges.user_id",
                    "nest_user_badges.badge_id",
                    "nest_user_badges.is_active",
                    "nest_badges.name",
                ],
                "nest_badges.name of the member's active nest_user_badges, in their order",
            )
            .when_present("nest_user_badges"),
            col("created_at", "u.created_at"),
            col("updated_at", "u.updated_at"),
        ],
    };

    pub const CHAPTERS: Source = Source {
        kind: "chapters",
        table: "owasp_chapters",
        from: "owasp_chapters c",
        aliases: &[("c", "owasp_chapters")],
        id: "c.id",
        skips: &[],
        dropped: &[
            OWN_REPOSITORY_DROPPED[0],
            Dropped {
                what: "entity members",
                reason: "their entity type is not a chapter, committee, project or board in \
                         django_content_type",
                count: "SELECT count(*) FROM owasp_entity_members em WHERE em.entity_type_id \
                     NOT IN (SELECT ct.id FROM django_content_type ct WHERE ct.app_label = \
                     'owasp' AND ct.model IN ('chapter', 'committee', 'project', \
                     'boardofdirectors'))",
            },
            Dropped {
                what: "entity channels",
                reason: "their entity type is not a chapter, committee or project, or their \
                         channel not a conversation, in django_content_type",
                count: concat!(
                    "SELECT count(*) FROM owasp_entity_channels ec WHERE ec.entity_type_id \
                     NOT IN (SELECT ct.id FROM django_content_type ct WHERE ct.app_label = \
                     'owasp' AND ct.model IN ('chapter', 'committee', 'project')) OR \
                     ec.channel_type_id IS DISTINCT FROM ",
                    content_type!("slack", "conversation")
                ),
            },
        ],
        optional: None,
        fields: &[
            col("key", "c.key"),
            col("name", "c.name"),
            col("is_active", "c.is_active"),
            col("country", "c.country"),
            col("region", "c.region"),
            col("latitude", "c.latitude"),
            col("longitude", "c.longitude"),
            col("summary", "c.summary"),
            entity_field!(url "c"),
            entity_field!(leaders "chapter" "c"),
            derived(
                "suggested_location",
                "NULLIF(c.suggested_location, '')",
                &["owasp_chapters.suggested_location"],
                "owasp_chapters.suggested_location; empty: null",
            ),
            entity_field!(related_urls "c" "owasp_chapters"),
            entity_field!(channels "chapter" "c"),
            entity_field!(own_repository "c" "owasp_chapters"),
            entity_field!(stamp "created_at" "c" "owasp_chapters"),
            entity_field!(stamp "updated_at" "c" "owasp_chapters"),
        ],
    };

    /// The chapter and committee repositories that are not an organization's.
    const OWN_REPOSITORY_DROPPED: [Dropped; 2] = [
        Dropped {
            what: "chapter repository links",
            reason: "the repository is not an organization's",
            count: "SELECT count(*) FROM owasp_chapters c JOIN github_repositories rr \
                    ON rr.id = c.owasp_repository_id WHERE rr.organization_id IS NULL",
        },
        Dropped {
            what: "committee repository links",
            reason: "the repository is not an organization's",
            count: "SELECT count(*) FROM owasp_committees c JOIN github_repositories rr \
                    ON rr.id = c.owasp_repository_id WHERE rr.organization_id IS NULL",
        },
    ];

    pub const COMMITTEES: Source = Source {
        kind: "committees",
        table: "owasp_committees",
        from: "owasp_committees c",
        aliases: &[("c", "owasp_committees")],
        id: "c.id",
        skips: &[],
        dropped: &[OWN_REPOSITORY_DROPPED[1]],
        optional: None,
        fields: &[
            col("key", "c.key"),
            col("name", "c.name"),
            col("is_active", "c.is_active"),
            col("description", "c.description"),
            col("summary", "c.summary"),
            entity_field!(url "c"),
            entity_field!(leaders "committee" "c"),
            entity_field!(related_urls "c" "owasp_committees"),
            entity_field!(channels "committee" "c"),
            entity_field!(own_repository "c" "owasp_committees"),
            entity_field!(stamp "created_at" "c" "owasp_committees"),
            entity_field!(stamp "updated_at" "c" "owasp_committees"),
        ],
    };

    /// Projects of the original's level `other`, which the API's levels do not include.
    const LEVEL_OTHER: &str = "'other'";

    pub const PROJECTS: Source = Source {
        kind: "projects",
        table: "owasp_projects",
        from: "owasp_projects p",
        aliases: &[("p", "owasp_projects")],
        id: "p.id",
        skips: &[Skip {
            reason: "level 'other', which is not one of the API's levels",
            when: const_format::concatcp!("p.level = ", LEVEL_OTHER),
        }],
        dropped: &[Dropped {
            what: "project repository links",
            reason: "the repository is not an organization's",
            count: "SELECT count(*) FROM owasp_projects_repositories pr JOIN owasp_projects p \
                    ON p.id = pr.project_id JOIN github_repositories rr ON rr.id = pr.repository_id \
                    WHERE rr.organization_id IS NULL AND p.level <> 'other'",
        }],
        optional: None,
        fields: &[
            col("key", "p.key"),
            col("name", "p.name"),
            col("is_active", "p.is_active"),
            col("level", "p.level"),
            col("type", "p.type"),
            col("description", "p.description"),
            col("summary", "p.summary"),
            entity_field!(url "p"),
            entity_field!(leaders "project" "p"),
            derived(
                "repositories",
                "(SELECT coalesce(json_agg(json_build_object('organization', ro.login, 'name', \
                 rr.name) ORDER BY pr.id), '[]'::json) FROM owasp_projects_repositories pr \
                 JOIN github_repositories rr ON rr.id = pr.repository_id JOIN \
                 github_organizations ro ON ro.id = rr.organization_id WHERE pr.project_id = p.id)",
                &[
                    "owasp_projects_repositories.project_id",
                    "owasp_projects_repositories.repository_id",
                    "github_repositories.organization_id",
                ],
                "owasp_projects_repositories, in their order, when an organization's",
            ),
            entity_field!(related_urls "p" "owasp_projects"),
            entity_field!(channels "project" "p"),
            entity_field!(stamp "created_at" "p" "owasp_projects"),
            entity_field!(stamp "updated_at" "p" "owasp_projects"),
        ],
    };

    pub const EVENTS: Source = Source {
        kind: "events",
        table: "owasp_events",
        from: "owasp_events e",
        aliases: &[("e", "owasp_events")],
        id: "e.id",
        skips: &[],
        dropped: &[],
        optional: None,
        fields: &[
            col("key", "e.key"),
            col("name", "e.name"),
            col("category", "e.category"),
            col("start_date", "e.start_date"),
            col("end_date", "e.end_date"),
            col("latitude", "e.latitude"),
            col("longitude", "e.longitude"),
            derived(
                "url",
                "NULLIF(e.url, '')",
                &["owasp_events.url"],
                "owasp_events.url; empty: null",
            ),
            derived(
                "description",
                "NULLIF(e.description, '')",
                &["owasp_events.description"],
                "owasp_events.description; empty: null",
            ),
            col("summary", "e.summary"),
            col("suggested_location", "e.suggested_location"),
        ],
    };

    pub const SPONSORS: Source = Source {
        kind: "sponsors",
        table: "owasp_sponsors",
        from: "owasp_sponsors s",
        aliases: &[("s", "owasp_sponsors")],
        id: "s.id",
        skips: &[],
        dropped: &[],
        optional: None,
        fields: &[
            col("key", "s.key"),
            col("name", "s.name"),
            col("sponsor_type", "s.sponsor_type"),
            col("is_member", "s.is_member"),
            col("member_type", "s.member_type"),
            col("image_url", "s.image_url"),
            col("url", "s.url"),
            col("job_url", "s.job_url"),
            col("description", "s.description"),
        ],
    };

    /// The keys of a snapshot's links to one kind (`$link` its link table, `$target`
    /// the linked table, `$column` the link's column, `$value` the JSON of one).
    macro_rules! snapshot_links {
        ($link:literal, $column:literal, $join:literal, $value:literal) => {
            concat!(
                "(SELECT coalesce(json_agg(",
                $value,
                " ORDER BY l.id), '[]'::json) FROM ",
                $link,
                " l ",
                $join,
                " WHERE l.snapshot_id = s.id)"
            )
        };
    }

    pub const SNAPSHOTS: Source = Source {
        kind: "snapshots",
        table: "owasp_snapshots",
        from: "owasp_snapshots s",
        aliases: &[("s", "owasp_snapshots")],
        id: "s.id",
        skips: &[],
        dropped: &[
            Dropped {
                what: "snapshot project links",
                reason: "the project is not imported (level 'other')",
                count: "SELECT count(*) FROM owasp_snapshots_new_projects l JOIN owasp_projects x \
                        ON x.id = l.project_id WHERE x.level = 'other'",
            },
            Dropped {
                what: "snapshot issue links",
                reason: "the issue is not in a repository of an organization",
                count: "SELECT count(*) FROM owasp_snapshots_new_issues l JOIN github_issues x \
                        ON x.id = l.issue_id LEFT JOIN github_repositories rr ON rr.id = \
                        x.repository_id WHERE rr.organization_id IS NULL",
            },
            Dropped {
                what: "snapshot release links",
                reason: "the release is not imported (no tag name, or not in a repository of \
                         an organization)",
                count:
                    "SELECT count(*) FROM owasp_snapshots_new_releases l JOIN github_releases x \
                        ON x.id = l.release_id LEFT JOIN github_repositories rr ON rr.id = \
                        x.repository_id WHERE rr.organization_id IS NULL OR x.tag_name = ''",
            },
        ],
        optional: None,
        fields: &[
            col("key", "s.key"),
            col("title", "s.title"),
            col("status", "s.status"),
            col("start_at", "s.start_at"),
            col("end_at", "s.end_at"),
            col("created_at", "s.created_at"),
            col("updated_at", "s.updated_at"),
            derived(
                "new_chapters",
                snapshot_links!(
                    "owasp_snapshots_new_chapters",
                    "chapter_id",
                    "JOIN owasp_chapters x ON x.id = l.chapter_id",
                    "x.key"
                ),
                &[
                    "owasp_snapshots_new_chapters.snapshot_id",
                    "owasp_snapshots_new_chapters.chapter_id",
                ],
                "owasp_chapters.key of owasp_snapshots_new_chapters, in their order",
            ),
            derived(
                "new_projects",
                snapshot_links!(
                    "owasp_snapshots_new_projects",
                    "project_id",
                    "JOIN owasp_projects x ON x.id = l.project_id AND x.level <> 'other'",
                    "x.key"
                ),
                &[
                    "owasp_snapshots_new_projects.snapshot_id",
                    "owasp_snapshots_new_projects.project_id",
                ],
                "owasp_projects.key of owasp_snapshots_new_projects, in their order",
            ),
            derived(
                "new_members",
                snapshot_links!(
                    "owasp_snapshots_new_users",
                    "user_id",
                    "JOIN github_users x ON x.id = l.user_id",
                    "x.login"
                ),
                &[
                    "owasp_snapshots_new_users.snapshot_id",
                    "owasp_snapshots_new_users.user_id",
                ],
                "github_users.login of owasp_snapshots_new_users, in their order",
            ),
            derived(
                "new_issues",
                snapshot_links!(
                    "owasp_snapshots_new_issues",
                    "issue_id",
                    "JOIN github_issues x ON x.id = l.issue_id JOIN github_repositories rr ON \
                     rr.id = x.repository_id JOIN github_organizations ro ON ro.id = \
                     rr.organization_id",
                    "json_build_object('organization', ro.login, 'repository', rr.name, \
                     'number', x.number)"
                ),
                &[
                    "owasp_snapshots_new_issues.snapshot_id",
                    "owasp_snapshots_new_issues.issue_id",
                ],
                "the issues of owasp_snapshots_new_issues, in their order",
            ),
            derived(
                "new_releases",
                snapshot_links!(
                    "owasp_snapshots_new_releases",
                    "release_id",
                    "JOIN github_releases x ON x.id = l.release_id AND x.tag_name <> '' JOIN \
                     github_repositories rr ON rr.id = x.repository_id JOIN \
                     github_organizations ro ON ro.id = rr.organization_id",
                    "json_build_object('organization', ro.login, 'repository', rr.name, \
                     'tag_name', x.tag_name)"
                ),
                &[
                    "owasp_snapshots_new_releases.snapshot_id",
                    "owasp_snapshots_new_releases.release_id",
                ],
                "the releases of owasp_snapshots_new_releases, in their order",
            ),
        ],
    };

    pub const POSTS: Source = Source {
        kind: "posts",
        table: "owasp_posts",
        from: "owasp_posts t",
        aliases: &[("t", "owasp_posts")],
        id: "t.id",
        skips: &[],
        dropped: &[],
        optional: None,
        fields: &[
            col("title", "t.title"),
            col("url", "t.url"),
            col("author_name", "t.author_name"),
            col("author_image_url", "t.author_image_url"),
            col("published_at", "t.published_at"),
            col("created_at", "t.nest_created_at"),
            col("updated_at", "t.nest_updated_at"),
        ],
    };

    /// Whole days from `m.$column` to the measurement (`m.nest_created_at`); 0 when
    /// the column is null, as the original counts them.
    macro_rules! days_before {
        ($name:literal, $column:literal) => {
            derived(
                $name,
                concat!(
                    "coalesce(floor(extract(epoch FROM (m.nest_created_at - m.",
                    $column,
                    ")) / 86400)::bigint, 0)"
                ),
                &[
                    concat!("owasp_project_health_metrics.", $column),
                    "owasp_project_health_metrics.nest_created_at",
                ],
                concat!(
                    "whole days from owasp_project_health_metrics.",
                    $column,
                    " to the measurement (nest_created_at); 0 when null"
                ),
            )
        };
    }

    /// The requirement of the project's level.
    macro_rules! requirement {
        ($name:literal, $column:literal) => {
            derived(
                $name,
                concat!("coalesce(q.", $column, ", 0)"),
                &[
                    concat!("owasp_project_health_requirements.", $column),
                    "owasp_project_health_requirements.level",
                ],
                concat!(
                    "owasp_project_health_requirements.",
                    $column,
                    " of the project's level"
                ),
            )
        };
    }

    pub const PROJECT_HEALTH_METRICS: Source = Source {
        kind: "project_health_metrics",
        table: "owasp_project_health_metrics",
        from: "owasp_project_health_metrics m JOIN owasp_projects p ON p.id = m.project_id \
               LEFT JOIN owasp_project_health_requirements q ON q.level = p.level",
        aliases: &[
            ("m", "owasp_project_health_metrics"),
            ("p", "owasp_projects"),
            ("q", "owasp_project_health_requirements"),
        ],
        id: "m.id",
        skips: &[Skip {
            reason: "its project is not imported (level 'other')",
            when: "p.level = 'other'",
        }],
        dropped: &[],
        optional: None,
        fields: &[
            col("project", "p.key"),
            col("created_at", "m.nest_created_at"),
            col("score", "m.score"),
            col("stars_count", "m.stars_count"),
            col("forks_count", "m.forks_count"),
            col("open_issues_count", "m.open_issues_count"),
            col("open_pull_requests_count", "m.open_pull_requests_count"),
            col("unanswered_issues_count", "m.unanswered_issues_count"),
            col("unassigned_issues_count", "m.unassigned_issues_count"),
            days_before!("last_commit_days", "last_committed_at"),
            requirement!("last_commit_days_requirement", "last_commit_days"),
            days_before!("last_release_days", "last_released_at"),
            requirement!("last_release_days_requirement", "last_release_days"),
            col("contributors_count", "m.contributors_count"),
            col("recent_releases_count", "m.recent_releases_count"),
            col("total_issues_count", "m.total_issues_count"),
            col("total_releases_count", "m.total_releases_count"),
            col(
                "is_funding_requirements_compliant",
                "m.is_funding_requirements_compliant",
            ),
            col(
                "is_leader_requirements_compliant",
                "m.is_leader_requirements_compliant",
            ),
            days_before!("age_days", "created_at"),
            requirement!("age_days_requirement", "age_days"),
            days_before!("last_pull_request_days", "pull_request_last_created_at"),
            requirement!(
                "last_pull_request_days_requirement",
                "last_pull_request_days"
            ),
            days_before!("owasp_page_last_update_days", "owasp_page_last_updated_at"),
            requirement!(
                "owasp_page_last_update_days_requirement",
                "owasp_page_last_update_days"
            ),
        ],
    };

    pub const BADGES: Source = Source {
        kind: "badges",
        table: "nest_badges",
        from: "nest_badges b",
        aliases: &[("b", "nest_badges")],
        id: "b.id",
        skips: &[],
        dropped: &[],
        optional: Some("nest_badges"),
        fields: &[
            col("name", "b.name"),
            col("description", "b.description"),
            col("css_class", "b.css_class"),
            col("weight", "b.weight"),
        ],
    };

    pub const BOARDS: Source = Source {
        kind: "boards",
        table: "owasp_board_of_directors",
        from: "owasp_board_of_directors b",
        aliases: &[("b", "owasp_board_of_directors")],
        id: "b.id",
        skips: &[],
        dropped: &[],
        optional: None,
        fields: &[
            col("year", "b.year"),
            derived(
                "url",
                "'https://board.owasp.org/elections/' || b.year || '_elections'",
                &[],
                "https://board.owasp.org/elections/<year>_elections, as the original links it",
            ),
            derived(
                "candidates",
                entity_members!(
                    "boardofdirectors",
                    "b",
                    "candidate",
                    "em.member_name, em.id",
                    " AND em.is_active AND em.is_reviewed"
                ),
                MEMBERS_READ,
                "the active, reviewed owasp_entity_members of role candidate, by name",
            ),
            derived(
                "members",
                entity_members!(
                    "boardofdirectors",
                    "b",
                    "member",
                    "em.member_name, em.id",
                    " AND em.is_active AND em.is_reviewed"
                ),
                MEMBERS_READ,
                "the active, reviewed owasp_entity_members of role member, by name",
            ),
            col("created_at", "b.created_at"),
            col("updated_at", "b.updated_at"),
        ],
    };

    /// How many links a member snapshot has in one of its link tables.
    macro_rules! links_count {
        ($name:literal, $table:literal) => {
            derived(
                $name,
                concat!(
                    "(SELECT count(*) FROM ",
                    $table,
                    " x WHERE x.membersnapshot_id = s.id)"
                ),
                &[concat!($table, ".membersnapshot_id")],
                concat!("the snapshot's rows in ", $table),
            )
        };
    }

    pub const MEMBER_SNAPSHOTS: Source = Source {
        kind: "member_snapshots",
        table: "owasp_member_snapshots",
        from: "owasp_member_snapshots s JOIN github_users u ON u.id = s.github_user_id",
        aliases: &[("s", "owasp_member_snapshots"), ("u", "github_users")],
        id: "s.id",
        skips: &[],
        dropped: &[],
        optional: None,
        fields: &[
            col("member", "u.login"),
            col("start_at", "s.start_at"),
            col("end_at", "s.end_at"),
            links_count!("commits_count", "owasp_member_snapshots_commits"),
            links_count!(
                "pull_requests_count",
                "owasp_member_snapshots_pull_requests"
            ),
            links_count!("issues_count", "owasp_member_snapshots_issues"),
            links_count!("messages_count", "owasp_member_snapshots_messages"),
            col("contribution_heatmap_data", "s.contribution_heatmap_data"),
            col("communication_heatmap_data", "s.communication_heatmap_data"),
            col("chapter_contributions", "s.chapter_contributions"),
            col("project_contributions", "s.project_contributions"),
            col("repository_contributions", "s.repository_contributions"),
            col("channel_communications", "s.channel_communications"),
        ],
    };

    /// `community.json`: one row whatever the workspaces.
    pub const COMMUNITY: Source = Source {
        kind: "community",
        table: "slack_workspaces",
        from: "(SELECT 0 AS id, coalesce(sum(w.total_members_count), 0)::bigint AS members \
               FROM slack_workspaces w) w",
        aliases: &[],
        id: "w.id",
        skips: &[],
        dropped: &[],
        optional: None,
        fields: &[derived(
            "slack_workspace_members",
            "w.members",
            &["slack_workspaces.total_members_count"],
            "the sum of slack_workspaces.total_members_count",
        )],
    };
}
