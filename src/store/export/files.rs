//! The interchange files an export writes: for each, the query giving one row per
//! record in stable-id order and each column's field name and kind, fields in the
//! order of docs/data.md. `community.json` is one row, written as its one object.

/// How a column becomes a JSON value.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// Text (or NULL → `null`).
    Str,
    /// Integer (or NULL → `null`).
    Int,
    /// Integer 0/1.
    Bool,
    /// Real (or NULL → `null`).
    Real,
    /// Microseconds since the epoch (or NULL → `null`) → RFC 3339.
    Ts,
    /// JSON text (arrays of strings or objects built by the query).
    Json,
}

use Kind::*;

/// The JSON array of an entity's leaders (`name`, `login`, `description`, in order),
/// for the entity kind `$kind` aliased `t`.
macro_rules! leaders {
    ($kind:literal) => {
        concat!(
            "(SELECT json_group_array(json_object('name', name, 'login', login, \
             'description', description)) FROM (SELECT l.name AS name, m.login AS login, \
             l.description AS description FROM leaders l \
             LEFT JOIN members m ON m.id = l.member_id \
             WHERE l.entity_kind = '",
            $kind,
            "' AND l.entity_id = t.id ORDER BY l.position))"
        )
    };
}

/// The JSON array of an entity's related URLs, in order.
macro_rules! related_urls {
    ($kind:literal) => {
        concat!(
            "(SELECT json_group_array(url) FROM (SELECT u.url AS url FROM related_urls u \
             WHERE u.entity_kind = '",
            $kind,
            "' AND u.entity_id = t.id ORDER BY u.position))"
        )
    };
}

/// The JSON array of an entity's channels (`platform`, `name`, `external_id`), in order.
macro_rules! channels {
    ($kind:literal) => {
        concat!(
            "(SELECT json_group_array(json_object('platform', platform, 'name', name, \
             'external_id', external_id)) FROM (SELECT c.platform AS platform, \
             c.name AS name, c.external_id AS external_id FROM channels c \
             WHERE c.entity_kind = '",
            $kind,
            "' AND c.entity_id = t.id ORDER BY c.position))"
        )
    };
}

/// One interchange file: its name, the query giving one row per record in stable-id
/// order, and each column's field name and kind.
pub(super) struct FileSpec {
    pub file: &'static str,
    pub sql: &'static str,
    pub fields: &'static [(&'static str, Kind)],
}

pub(super) static FILES: &[FileSpec] = &[
    FileSpec {
        file: "organizations.jsonl",
        sql: "SELECT login, name, company, location, description, avatar_url, url, \
              followers_count, is_affiliated, collaborators_count, email, created_at, \
              updated_at FROM organizations ORDER BY id",
        fields: &[
            ("login", Str),
            ("name", Str),
            ("company", Str),
            ("location", Str),
            ("description", Str),
            ("avatar_url", Str),
            ("url", Str),
            ("followers_count", Int),
            ("is_affiliated", Bool),
            ("collaborators_count", Int),
            ("email", Str),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "members.jsonl",
        sql: "SELECT login, name, avatar_url, url, bio, company, location, title, \
              twitter_username, followers_count, following_count, \
              public_repositories_count, email, \
              (SELECT json_group_array(name) FROM (SELECT b.name AS name FROM member_badges mb \
                 JOIN badges b ON b.id = mb.badge_id WHERE mb.member_id = t.id \
                 ORDER BY mb.position)), \
              created_at, updated_at FROM members t ORDER BY id",
        fields: &[
            ("login", Str),
            ("name", Str),
            ("avatar_url", Str),
            ("url", Str),
            ("bio", Str),
            ("company", Str),
            ("location", Str),
            ("title", Str),
            ("twitter_username", Str),
            ("followers_count", Int),
            ("following_count", Int),
            ("public_repositories_count", Int),
            ("email", Str),
            ("badges", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "repositories.jsonl",
        sql: "SELECT o.login, r.name, r.description, r.url, r.commits_count, \
              r.contributors_count, r.forks_count, r.open_issues_count, r.stars_count, \
              r.subscribers_count, r.is_archived, r.license, r.topics, r.languages, \
              r.pushed_at, r.created_at, r.updated_at, r.size \
              FROM repositories r JOIN organizations o ON o.id = r.organization_id \
              ORDER BY r.id",
        fields: &[
            ("organization", Str),
            ("name", Str),
            ("description", Str),
            ("url", Str),
            ("commits_count", Int),
            ("contributors_count", Int),
            ("forks_count", Int),
            ("open_issues_count", Int),
            ("stars_count", Int),
            ("subscribers_count", Int),
            ("is_archived", Bool),
            ("license", Str),
            ("topics", Json),
            ("languages", Json),
            ("pushed_at", Ts),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("size", Int),
        ],
    },
    FileSpec {
        file: "repository_contributors.jsonl",
        sql: "SELECT o.login, r.name, m.login, c.contributions_count \
              FROM repository_contributors c \
              JOIN repositories r ON r.id = c.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              JOIN members m ON m.id = c.member_id ORDER BY c.rowid",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("member", Str),
            ("contributions_count", Int),
        ],
    },
    FileSpec {
        file: "labels.jsonl",
        sql: "SELECT o.login, r.name, l.name, l.color, l.description, l.created_at, \
              l.updated_at FROM labels l LEFT JOIN repositories r ON r.id = l.repository_id \
              LEFT JOIN organizations o ON o.id = r.organization_id ORDER BY l.id",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("name", Str),
            ("color", Str),
            ("description", Str),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "issues.jsonl",
        sql: "SELECT o.login, r.name, t.number, t.title, t.state, b.body, a.login, t.url, \
              (SELECT json_group_array(name) FROM (SELECT l.name AS name FROM issue_labels il \
                 JOIN labels l ON l.id = il.label_id WHERE il.issue_id = t.id \
                 ORDER BY il.position)), \
              t.created_at, t.updated_at, t.closed_at \
              FROM issues t JOIN issue_bodies b ON b.issue_id = t.id \
              JOIN repositories r ON r.id = t.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              LEFT JOIN members a ON a.id = t.author_id ORDER BY t.id",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("number", Int),
            ("title", Str),
            ("state", Str),
            ("body", Str),
            ("author", Str),
            ("url", Str),
            ("labels", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("closed_at", Ts),
        ],
    },
    FileSpec {
        file: "milestones.jsonl",
        sql: "SELECT o.login, r.name, t.number, t.title, t.state, t.body, a.login, t.url, \
              t.open_issues_count, t.closed_issues_count, t.due_on, t.created_at, \
              t.updated_at \
              FROM milestones t JOIN repositories r ON r.id = t.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              LEFT JOIN members a ON a.id = t.author_id ORDER BY t.id",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("number", Int),
            ("title", Str),
            ("state", Str),
            ("body", Str),
            ("author", Str),
            ("url", Str),
            ("open_issues_count", Int),
            ("closed_issues_count", Int),
            ("due_on", Ts),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "releases.jsonl",
        sql: "SELECT o.login, r.name, t.tag_name, t.name, t.description, a.login, t.url, \
              t.is_draft, t.is_pre_release, t.published_at, t.created_at \
              FROM releases t JOIN repositories r ON r.id = t.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              LEFT JOIN members a ON a.id = t.author_id ORDER BY t.id",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("tag_name", Str),
            ("name", Str),
            ("description", Str),
            ("author", Str),
            ("url", Str),
            ("is_draft", Bool),
            ("is_pre_release", Bool),
            ("published_at", Ts),
            ("created_at", Ts),
        ],
    },
    FileSpec {
        file: "chapters.jsonl",
        sql: concat!(
            "SELECT t.key, t.name, t.is_active, t.country, t.region, t.latitude, \
              t.longitude, t.summary, t.url, \
              ",
            leaders!("chapter"),
            ", \
              t.suggested_location, \
              ",
            related_urls!("chapter"),
            ", \
              ",
            channels!("chapter"),
            ", \
              (SELECT json_group_array(json_object('organization', org, 'name', name)) FROM \
                 (SELECT o.login AS org, r.name AS name FROM chapter_repositories x \
                  JOIN repositories r ON r.id = x.repository_id \
                  JOIN organizations o ON o.id = r.organization_id \
                  WHERE x.chapter_id = t.id ORDER BY x.rowid)), \
              t.created_at, t.updated_at FROM chapters t ORDER BY t.id"
        ),
        fields: &[
            ("key", Str),
            ("name", Str),
            ("is_active", Bool),
            ("country", Str),
            ("region", Str),
            ("latitude", Real),
            ("longitude", Real),
            ("summary", Str),
            ("url", Str),
            ("leaders", Json),
            ("suggested_location", Str),
            ("related_urls", Json),
            ("channels", Json),
            ("repositories", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "committees.jsonl",
        sql: concat!(
            "SELECT t.key, t.name, t.is_active, t.description, t.summary, t.url, \
              ",
            leaders!("committee"),
            ", \
              ",
            related_urls!("committee"),
            ", \
              ",
            channels!("committee"),
            ", \
              (SELECT json_group_array(json_object('organization', org, 'name', name)) FROM \
                 (SELECT o.login AS org, r.name AS name FROM committee_repositories x \
                  JOIN repositories r ON r.id = x.repository_id \
                  JOIN organizations o ON o.id = r.organization_id \
                  WHERE x.committee_id = t.id ORDER BY x.rowid)), \
              t.created_at, t.updated_at FROM committees t ORDER BY t.id"
        ),
        fields: &[
            ("key", Str),
            ("name", Str),
            ("is_active", Bool),
            ("description", Str),
            ("summary", Str),
            ("url", Str),
            ("leaders", Json),
            ("related_urls", Json),
            ("channels", Json),
            ("repositories", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "projects.jsonl",
        sql: concat!(
            "SELECT t.key, t.name, t.is_active, t.level, t.type, t.description, t.summary, \
              t.url, \
              ",
            leaders!("project"),
            ", \
              (SELECT json_group_array(json_object('organization', org, 'name', name)) FROM \
                 (SELECT o.login AS org, r.name AS name FROM project_repositories pr \
                  JOIN repositories r ON r.id = pr.repository_id \
                  JOIN organizations o ON o.id = r.organization_id \
                  WHERE pr.project_id = t.id ORDER BY pr.rowid)), \
              ",
            related_urls!("project"),
            ", \
              ",
            channels!("project"),
            ", \
              t.created_at, t.updated_at FROM projects t ORDER BY t.id"
        ),
        fields: &[
            ("key", Str),
            ("name", Str),
            ("is_active", Bool),
            ("level", Str),
            ("type", Str),
            ("description", Str),
            ("summary", Str),
            ("url", Str),
            ("leaders", Json),
            ("repositories", Json),
            ("related_urls", Json),
            ("channels", Json),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "events.jsonl",
        sql: "SELECT key, name, category, start_date, end_date, latitude, longitude, url, \
              description, summary, suggested_location FROM events ORDER BY id",
        fields: &[
            ("key", Str),
            ("name", Str),
            ("category", Str),
            ("start_date", Str),
            ("end_date", Str),
            ("latitude", Real),
            ("longitude", Real),
            ("url", Str),
            ("description", Str),
            ("summary", Str),
            ("suggested_location", Str),
        ],
    },
    FileSpec {
        file: "sponsors.jsonl",
        sql: "SELECT key, name, sponsor_type, is_member, member_type, image_url, url, \
              job_url, description FROM sponsors ORDER BY id",
        fields: &[
            ("key", Str),
            ("name", Str),
            ("sponsor_type", Str),
            ("is_member", Bool),
            ("member_type", Str),
            ("image_url", Str),
            ("url", Str),
            ("job_url", Str),
            ("description", Str),
        ],
    },
    FileSpec {
        file: "snapshots.jsonl",
        sql: "SELECT t.key, t.title, t.status, t.start_at, t.end_at, t.created_at, \
              t.updated_at, \
              (SELECT json_group_array(key) FROM (SELECT c.key AS key FROM snapshot_chapters s \
                 JOIN chapters c ON c.id = s.chapter_id WHERE s.snapshot_id = t.id \
                 ORDER BY s.rowid)), \
              (SELECT json_group_array(key) FROM (SELECT p.key AS key FROM snapshot_projects s \
                 JOIN projects p ON p.id = s.project_id WHERE s.snapshot_id = t.id \
                 ORDER BY s.rowid)), \
              (SELECT json_group_array(login) FROM (SELECT m.login AS login \
                 FROM snapshot_members s JOIN members m ON m.id = s.member_id \
                 WHERE s.snapshot_id = t.id ORDER BY s.rowid)), \
              (SELECT json_group_array(json_object('organization', org, 'repository', repo, \
                 'number', number)) FROM (SELECT o.login AS org, r.name AS repo, \
                 i.number AS number FROM snapshot_issues s JOIN issues i ON i.id = s.issue_id \
                 JOIN repositories r ON r.id = i.repository_id \
                 JOIN organizations o ON o.id = r.organization_id \
                 WHERE s.snapshot_id = t.id ORDER BY s.rowid)), \
              (SELECT json_group_array(json_object('organization', org, 'repository', repo, \
                 'tag_name', tag)) FROM (SELECT o.login AS org, r.name AS repo, \
                 x.tag_name AS tag FROM snapshot_releases s \
                 JOIN releases x ON x.id = s.release_id \
                 JOIN repositories r ON r.id = x.repository_id \
                 JOIN organizations o ON o.id = r.organization_id \
                 WHERE s.snapshot_id = t.id ORDER BY s.rowid)) \
              FROM snapshots t ORDER BY t.id",
        fields: &[
            ("key", Str),
            ("title", Str),
            ("status", Str),
            ("start_at", Ts),
            ("end_at", Ts),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("new_chapters", Json),
            ("new_projects", Json),
            ("new_members", Json),
            ("new_issues", Json),
            ("new_releases", Json),
        ],
    },
    FileSpec {
        file: "pull_requests.jsonl",
        sql: "SELECT o.login, r.name, t.number, t.title, t.state, b.body, a.login, t.url, \
              t.created_at, t.updated_at, t.closed_at, t.merged_at \
              FROM pull_requests t JOIN pull_request_bodies b ON b.pull_request_id = t.id \
              JOIN repositories r ON r.id = t.repository_id \
              JOIN organizations o ON o.id = r.organization_id \
              LEFT JOIN members a ON a.id = t.author_id ORDER BY t.id",
        fields: &[
            ("organization", Str),
            ("repository", Str),
            ("number", Int),
            ("title", Str),
            ("state", Str),
            ("body", Str),
            ("author", Str),
            ("url", Str),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("closed_at", Ts),
            ("merged_at", Ts),
        ],
    },
    FileSpec {
        file: "posts.jsonl",
        sql: "SELECT title, url, author_name, author_image_url, published_at, created_at, \
              updated_at FROM posts ORDER BY id",
        fields: &[
            ("title", Str),
            ("url", Str),
            ("author_name", Str),
            ("author_image_url", Str),
            ("published_at", Ts),
            ("created_at", Ts),
            ("updated_at", Ts),
        ],
    },
    FileSpec {
        file: "project_health_metrics.jsonl",
        // Joined to `projects`, so a public-only export keeps the measurements of the
        // projects it keeps.
        sql: "SELECT p.key, t.created_at, t.score, t.stars_count, t.forks_count, \
              t.open_issues_count, t.open_pull_requests_count, t.unanswered_issues_count, \
              t.unassigned_issues_count, t.last_commit_days, t.last_commit_days_requirement, \
              t.last_release_days, t.last_release_days_requirement \
              FROM project_health_metrics t JOIN projects p ON p.id = t.project_id \
              ORDER BY t.id",
        fields: &[
            ("project", Str),
            ("created_at", Ts),
            ("score", Real),
            ("stars_count", Int),
            ("forks_count", Int),
            ("open_issues_count", Int),
            ("open_pull_requests_count", Int),
            ("unanswered_issues_count", Int),
            ("unassigned_issues_count", Int),
            ("last_commit_days", Int),
            ("last_commit_days_requirement", Int),
            ("last_release_days", Int),
            ("last_release_days_requirement", Int),
        ],
    },
    FileSpec {
        file: "badges.jsonl",
        sql: "SELECT name, description, css_class, weight FROM badges ORDER BY id",
        fields: &[
            ("name", Str),
            ("description", Str),
            ("css_class", Str),
            ("weight", Int),
        ],
    },
    FileSpec {
        file: "community.json",
        sql: "SELECT slack_workspace_members FROM community",
        fields: &[("slack_workspace_members", Int)],
    },
];
