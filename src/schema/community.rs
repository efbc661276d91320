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
    use crate::stored;
    use crate::vocab::{Category, Level, MemberType, ProjectType, SnapshotStatus, SponsorType};

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

    stored! {
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Chapter in "chapters" {
            pub key: String => shadowed,
            pub name: String => column,
            #[serde(default = "default_true")]
            pub is_active: bool => column,
            #[serde(default)]
            pub country: String => shadowed,
            #[serde(default)]
            pub region: String => column,
            #[serde(default)]
            pub latitude: Option<f64> => column,
            #[serde(default)]
            pub longitude: Option<f64> => column,
            #[serde(default)]
            pub summary: String => column,
            #[serde(default)]
            pub url: String => column,
            #[serde(default)]
            pub leaders: Vec<Leader> => elsewhere,
            #[serde(default)]
            pub suggested_location: Option<String> => column,
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
        pub struct Committee in "committees" {
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
        pub struct Project in "projects" {
            pub key: String => shadowed,
            pub name: String => shadowed,
            #[serde(default = "default_true")]
            pub is_active: bool => column,
            pub level: Level => column,
            #[serde(rename = "type")]
            pub kind: ProjectType => elsewhere,
            #[serde(default)]
            pub description: String => column,
            #[serde(default)]
            pub summary: String => column,
            #[serde(default)]
            pub url: String => column,
            #[serde(default)]
            pub leaders: Vec<Leader> => elsewhere,
            #[serde(default)]
            pub repositories: Vec<RepositoryRef> => elsewhere,
            #[serde(default)]
            pub related_urls: Vec<String> => elsewhere,
            #[serde(default)]
            pub channels: Vec<Channel> => elsewhere,
            pub created_at: Ts => column,
            pub updated_at: Ts => column,
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
    use crate::selected;
    use crate::vocab::{Level, ProjectType};

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

    selected! {
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct Member {
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
            #[schema(format = DateTime)]
            pub created_at: String = ts(),
            pub login: String = get(),
            pub name: String = get(),
            #[schema(format = DateTime)]
            pub updated_at: String = ts(),
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
    use crate::selected;

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

    selected! {
        /// An active chapter.
        #[derive(SimpleObject, Clone)]
        #[graphql(complex)]
        pub struct Chapter: node, id {
            /// The key without its `www-chapter-` prefix, as in the frontend's links and the
            /// REST paths.
            pub key: String = get(),
            pub name: String = get(),
            pub country: String = get(),
            pub region: String = get(),
            /// Always true: inactive chapters are not part of the API.
            pub is_active: bool = get(),
            pub latitude: Option<f64> = get(),
            pub longitude: Option<f64> = get(),
            pub summary: String = get(),
            pub url: String = get(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
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
            pub name: String = get(),
            pub description: String = get(),
            pub summary: String = get(),
            pub url: String = get(),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
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
            pub name: String = get(),
            /// `flagship`, `production`, `incubator`, `lab` or `demo`.
            pub level: String = get(),
            /// `code`, `documentation`, `tool` or `other`.
            #[graphql(name = "type")]
            pub kind: String = get("t.type"),
            /// Always true: inactive projects are not part of the API.
            pub is_active: bool = get(),
            pub description: String = get(),
            pub summary: String = get(),
            pub url: String = get(),
            /// Sum of the stars of the project's repositories.
            pub stars_count: i64 = get("t.stars"),
            /// Sum of the forks of the project's repositories.
            pub forks_count: i64 = get("t.forks"),
            pub created_at: String = ts(),
            pub updated_at: String = ts(),
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
