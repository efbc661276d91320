-- roost dataset schema (SQLite).
--
-- Built by `roost db import` / `db init` / `db synth` from the JSON Lines interchange
-- format (docs/data.md). Every table's `id` is the record's
-- stable id: its position in its JSON Lines file, first record = 1. Every ordering's
-- last tie-breaker is this id.
--
-- Conventions:
--   * timestamps are INTEGER microseconds since 1970-01-01T00:00:00Z (UTC);
--   * dates are TEXT `YYYY-MM-DD` (they sort chronologically as text);
--   * `*_lc` columns hold the Unicode lower case of the column they shadow; they carry
--     case-insensitive filters, lookups and orderings;
--   * booleans are INTEGER 0/1; omitted optional strings are '' and counts 0;
--   * every column a list filters or orders on has an index. `meta.schema_version`
--     changes when tables or columns do, not when an index is added, so a dataset
--     built by an older roost stays readable.
--
-- After these tables, every dataset gets the exposure views (`api_chapters`,
-- `api_releases`, …): what the API shows of each table, declared once in
-- src/schema/exposure.rs and read by every API reader (docs/architecture.md §3).

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE organizations (
    id              INTEGER PRIMARY KEY,
    login           TEXT NOT NULL,
    login_lc        TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    company         TEXT NOT NULL,
    location        TEXT NOT NULL,
    location_lc     TEXT NOT NULL,
    description     TEXT NOT NULL,
    avatar_url      TEXT NOT NULL,
    url             TEXT NOT NULL,     -- as given, else https://github.com/<login>
    followers_count INTEGER NOT NULL,
    is_affiliated   INTEGER NOT NULL,  -- only affiliated organizations appear in the API
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    collaborators_count INTEGER NOT NULL,
    email           TEXT NOT NULL
);
CREATE INDEX organizations_location ON organizations (location_lc);
CREATE INDEX organizations_created ON organizations (created_at, id);
CREATE INDEX organizations_updated ON organizations (updated_at, id);

CREATE TABLE members (
    id                        INTEGER PRIMARY KEY,
    login                     TEXT NOT NULL,
    login_lc                  TEXT NOT NULL UNIQUE,
    name                      TEXT NOT NULL,
    name_lc                   TEXT NOT NULL,
    avatar_url                TEXT NOT NULL,
    url                       TEXT NOT NULL,   -- as given, else https://github.com/<login>
    bio                       TEXT NOT NULL,
    company                   TEXT NOT NULL,
    company_lc                TEXT NOT NULL,
    location                  TEXT NOT NULL,
    location_lc               TEXT NOT NULL,
    title                     TEXT NOT NULL,
    twitter_username          TEXT NOT NULL,
    followers_count           INTEGER NOT NULL,
    following_count           INTEGER NOT NULL,
    public_repositories_count INTEGER NOT NULL,
    created_at                INTEGER NOT NULL,
    updated_at                INTEGER NOT NULL,
    email                     TEXT NOT NULL,
    is_owasp_board_member     INTEGER NOT NULL,
    is_former_owasp_staff     INTEGER NOT NULL,
    is_gsoc_mentor            INTEGER NOT NULL,
    linkedin_page_id          TEXT NOT NULL,   -- empty: none
    first_owasp_contribution_at INTEGER        -- nullable
);
CREATE INDEX members_company ON members (company_lc);
CREATE INDEX members_location ON members (location_lc);
-- Each ordering in both directions, the id last and ascending (see `issues`).
CREATE INDEX members_created ON members (created_at, id);
CREATE INDEX members_created_desc ON members (created_at DESC);
CREATE INDEX members_updated ON members (updated_at, id);
CREATE INDEX members_updated_desc ON members (updated_at DESC);
CREATE INDEX members_name ON members (name_lc, name, id);
CREATE INDEX members_name_desc ON members (name_lc DESC, name DESC);
CREATE INDEX members_login_desc ON members (login_lc DESC);

CREATE TABLE repositories (
    id                 INTEGER PRIMARY KEY,
    organization_id    INTEGER NOT NULL REFERENCES organizations (id),
    name               TEXT NOT NULL,
    name_lc            TEXT NOT NULL,
    description        TEXT,              -- nullable
    url                TEXT NOT NULL,
    commits_count      INTEGER NOT NULL,
    contributors_count INTEGER NOT NULL,
    forks_count        INTEGER NOT NULL,
    open_issues_count  INTEGER NOT NULL,
    stars_count        INTEGER NOT NULL,
    subscribers_count  INTEGER NOT NULL,
    is_archived        INTEGER NOT NULL,
    license            TEXT NOT NULL,
    topics             TEXT NOT NULL,     -- JSON array of strings
    languages          TEXT NOT NULL,     -- JSON array of strings
    pushed_at          INTEGER,           -- nullable
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    size               INTEGER,           -- nullable, kilobytes
    UNIQUE (organization_id, name_lc)
);
CREATE INDEX repositories_name ON repositories (name_lc);
CREATE INDEX repositories_created ON repositories (created_at, updated_at, id);
CREATE INDEX repositories_updated ON repositories (updated_at, id);
-- An organization's repositories, most starred first: GraphQL's
-- `repositories(organization:)` reads its first few from here rather than sorting
-- every repository of the organization, and `Organization.stats` sums the counts it
-- carries without reading the rows.
CREATE INDEX repositories_stars
    ON repositories (organization_id, stars_count DESC, id, forks_count, open_issues_count);

CREATE TABLE repository_contributors (
    repository_id       INTEGER NOT NULL REFERENCES repositories (id),
    member_id           INTEGER NOT NULL REFERENCES members (id),
    contributions_count INTEGER NOT NULL,
    PRIMARY KEY (repository_id, member_id)
);
-- A member's contributions, most first: GraphQL's `Contributor.projectKey` walks them
-- to the first repository of an active project and stops there.
CREATE INDEX repository_contributors_member
    ON repository_contributors (member_id, contributions_count DESC, repository_id);

-- A label belongs to one repository, or (`repository_id` null) is shared by all of
-- them. Names are unique per repository, case-insensitively; the expression index
-- treats the shared labels as one more repository (0).
CREATE TABLE labels (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    name_lc       TEXT NOT NULL,
    color         TEXT NOT NULL,
    color_lc      TEXT NOT NULL,
    description   TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    repository_id INTEGER REFERENCES repositories (id)   -- null: shared
);
CREATE UNIQUE INDEX labels_name ON labels (coalesce(repository_id, 0), name_lc);
CREATE INDEX labels_repository ON labels (repository_id, name_lc);
CREATE INDEX labels_color ON labels (color_lc);
CREATE INDEX labels_created ON labels (created_at, id);
CREATE INDEX labels_updated ON labels (updated_at, id);

-- The issue rows stay narrow (about 200 bytes): every list count, filter and sort
-- reads them, and the Markdown bodies (kilobytes each) live in `issue_bodies`, read
-- only by the detail and GraphQL's `body`. `organization_id` repeats the repository's
-- organization, so that an organization's issues are one index range.
--
-- One index per ordering the list offers, with the direction of every key as in its
-- `ORDER BY` (the id, last and ascending, is the index's own row id), alone and after
-- each filter that selects one value of a column of `issues` (state, organization,
-- repository): a page is read in index order, its count from the same index, and
-- skipping to a deep page steps over index entries, not rows. An organization's
-- issues in one state (a large range) are counted from an index as well.
CREATE TABLE issues (
    id              INTEGER PRIMARY KEY,
    repository_id   INTEGER NOT NULL REFERENCES repositories (id),
    organization_id INTEGER NOT NULL REFERENCES organizations (id), -- the repository's
    number          INTEGER NOT NULL,
    title           TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    author_id       INTEGER REFERENCES members (id),   -- nullable
    url             TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    closed_at       INTEGER,                            -- nullable
    UNIQUE (repository_id, number)
);
CREATE INDEX issues_created ON issues (created_at DESC, updated_at DESC);
CREATE INDEX issues_created_asc ON issues (created_at, updated_at DESC);
CREATE INDEX issues_updated ON issues (updated_at);
CREATE INDEX issues_updated_desc ON issues (updated_at DESC);
CREATE INDEX issues_state_created ON issues (state, created_at DESC, updated_at DESC);
CREATE INDEX issues_state_created_asc ON issues (state, created_at, updated_at DESC);
CREATE INDEX issues_state_updated ON issues (state, updated_at);
CREATE INDEX issues_state_updated_desc ON issues (state, updated_at DESC);
CREATE INDEX issues_org_created ON issues (organization_id, created_at DESC, updated_at DESC);
CREATE INDEX issues_org_created_asc ON issues (organization_id, created_at, updated_at DESC);
CREATE INDEX issues_org_updated ON issues (organization_id, updated_at);
CREATE INDEX issues_org_updated_desc ON issues (organization_id, updated_at DESC);
CREATE INDEX issues_org_state_created ON issues (organization_id, state, created_at DESC, updated_at DESC);
CREATE INDEX issues_repo_created ON issues (repository_id, created_at DESC, updated_at DESC);
CREATE INDEX issues_repo_created_asc ON issues (repository_id, created_at, updated_at DESC);
CREATE INDEX issues_repo_updated ON issues (repository_id, updated_at);
CREATE INDEX issues_repo_updated_desc ON issues (repository_id, updated_at DESC);
-- Newest first with the id descending too: GraphQL's recent issues.
CREATE INDEX issues_newest ON issues (created_at DESC, updated_at DESC, id DESC);
-- A member's issues newest first, and per day (contribution data).
CREATE INDEX issues_author ON issues (author_id, created_at);

-- One Markdown body per issue (`issues.id`).
CREATE TABLE issue_bodies (
    issue_id INTEGER PRIMARY KEY REFERENCES issues (id),
    body     TEXT NOT NULL
);

CREATE TABLE issue_labels (
    issue_id INTEGER NOT NULL REFERENCES issues (id),
    label_id INTEGER NOT NULL REFERENCES labels (id),
    position INTEGER NOT NULL,        -- order of the label on the issue
    PRIMARY KEY (issue_id, label_id)
);
CREATE INDEX issue_labels_label ON issue_labels (label_id);

CREATE TABLE milestones (
    id                  INTEGER PRIMARY KEY,
    repository_id       INTEGER NOT NULL REFERENCES repositories (id),
    number              INTEGER NOT NULL,
    title               TEXT NOT NULL,
    state               TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    body                TEXT NOT NULL,
    author_id           INTEGER REFERENCES members (id),
    url                 TEXT NOT NULL,
    open_issues_count   INTEGER NOT NULL,
    closed_issues_count INTEGER NOT NULL,
    due_on              INTEGER,          -- nullable
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    UNIQUE (repository_id, number)
);
CREATE INDEX milestones_created ON milestones (created_at, updated_at, id);
CREATE INDEX milestones_updated ON milestones (updated_at, id);
-- A repository's milestones newest first (GraphQL's recent milestones of a
-- repository, and of a project's repositories).
CREATE INDEX milestones_repo
    ON milestones (repository_id, created_at DESC, updated_at DESC, id DESC);
-- A member's milestones newest first (GraphQL's recent milestones by author).
CREATE INDEX milestones_author
    ON milestones (author_id, created_at DESC, updated_at DESC, id DESC);
CREATE INDEX milestones_state ON milestones (state);

CREATE TABLE releases (
    id             INTEGER PRIMARY KEY,
    repository_id  INTEGER NOT NULL REFERENCES repositories (id),
    tag_name       TEXT NOT NULL,         -- case-sensitive, may contain '/'
    name           TEXT NOT NULL,
    description    TEXT NOT NULL,
    author_id      INTEGER REFERENCES members (id),
    url            TEXT NOT NULL,
    is_draft       INTEGER NOT NULL,
    is_pre_release INTEGER NOT NULL,
    published_at   INTEGER,               -- null: not published, absent from the API
    created_at     INTEGER NOT NULL,
    UNIQUE (repository_id, tag_name)
);
CREATE INDEX releases_tag ON releases (tag_name);
CREATE INDEX releases_published ON releases (published_at, created_at, id);
CREATE INDEX releases_created ON releases (created_at, id);
-- A member's and a repository's releases per day (contribution data).
CREATE INDEX releases_author ON releases (author_id, created_at);
-- A member's releases most recently published first (GraphQL's recent releases by
-- author): the first few without sorting every release of the member.
CREATE INDEX releases_author_published
    ON releases (author_id, published_at DESC, created_at DESC, id DESC);
CREATE INDEX releases_repo_created ON releases (repository_id, created_at);
-- A repository's releases most recently published first (GraphQL's recent releases
-- of a repository, and of a project's repositories).
CREATE INDEX releases_repo_published
    ON releases (repository_id, published_at DESC, created_at DESC, id DESC);

CREATE TABLE chapters (
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL,             -- www-chapter-<name part>
    key_lc     TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    is_active  INTEGER NOT NULL,          -- inactive chapters are absent from the API
    country    TEXT NOT NULL,
    country_lc TEXT NOT NULL,
    region     TEXT NOT NULL,
    latitude   REAL,                      -- nullable
    longitude  REAL,                      -- nullable
    summary    TEXT NOT NULL,
    url        TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    suggested_location TEXT               -- nullable
);
CREATE INDEX chapters_country ON chapters (country_lc);
CREATE INDEX chapters_created ON chapters (created_at, id);
CREATE INDEX chapters_updated ON chapters (updated_at, id);
CREATE INDEX chapters_latitude ON chapters (latitude, id);
CREATE INDEX chapters_longitude ON chapters (longitude, id);

CREATE TABLE committees (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL,            -- www-committee-<name part>
    key_lc      TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    is_active   INTEGER NOT NULL,
    description TEXT NOT NULL,
    summary     TEXT NOT NULL,
    url         TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX committees_created ON committees (created_at, id);
CREATE INDEX committees_updated ON committees (updated_at, id);

CREATE TABLE projects (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL,            -- www-project-<name part>
    key_lc      TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    name_lc     TEXT NOT NULL,
    is_active   INTEGER NOT NULL,
    level       TEXT NOT NULL CHECK (level IN ('flagship', 'production', 'incubator', 'lab', 'demo')),
    level_rank  INTEGER NOT NULL,         -- flagship 5, production 4, lab 3, incubator 2, demo 1
    type        TEXT NOT NULL CHECK (type IN ('code', 'documentation', 'tool', 'other')),
    description TEXT NOT NULL,
    summary     TEXT NOT NULL,
    url         TEXT NOT NULL,
    stars       INTEGER NOT NULL,         -- sum of stars_count over the project's repositories
    forks       INTEGER NOT NULL,         -- sum of forks_count over the project's repositories
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX projects_rank ON projects (level_rank DESC, stars DESC, forks DESC, id);
CREATE INDEX projects_created ON projects (created_at, id);
CREATE INDEX projects_updated ON projects (updated_at, id);
CREATE INDEX projects_level ON projects (level);
CREATE INDEX projects_type ON projects (type);

CREATE TABLE project_repositories (
    project_id    INTEGER NOT NULL REFERENCES projects (id),
    repository_id INTEGER NOT NULL REFERENCES repositories (id),
    PRIMARY KEY (project_id, repository_id)
);
-- With the project id: a repository's first active project (a release's
-- `projectName`) is read in project order without sorting.
CREATE INDEX project_repositories_repository ON project_repositories (repository_id, project_id);

-- A chapter's and a committee's own repositories (counts and top contributors), in
-- the order listed.
CREATE TABLE chapter_repositories (
    chapter_id    INTEGER NOT NULL REFERENCES chapters (id),
    repository_id INTEGER NOT NULL REFERENCES repositories (id),
    PRIMARY KEY (chapter_id, repository_id)
);
CREATE INDEX chapter_repositories_repository ON chapter_repositories (repository_id);
CREATE TABLE committee_repositories (
    committee_id  INTEGER NOT NULL REFERENCES committees (id),
    repository_id INTEGER NOT NULL REFERENCES repositories (id),
    PRIMARY KEY (committee_id, repository_id)
);
CREATE INDEX committee_repositories_repository ON committee_repositories (repository_id);

-- Leaders of chapters, committees and projects, and the candidates and members of a
-- board of directors (`boards.id`), in display order.
CREATE TABLE leaders (
    entity_kind TEXT NOT NULL CHECK (entity_kind IN ('chapter', 'committee', 'project', 'board_candidate', 'board_member')),
    entity_id   INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    name        TEXT NOT NULL,
    member_id   INTEGER REFERENCES members (id),   -- null: no linked account
    description TEXT NOT NULL,                     -- the leader's role
    email       TEXT NOT NULL,                     -- board entries only; else empty
    PRIMARY KEY (entity_kind, entity_id, position)
);
CREATE INDEX leaders_member ON leaders (member_id);

-- Chat channels of chapters, committees and projects, in display order.
CREATE TABLE channels (
    entity_kind TEXT NOT NULL CHECK (entity_kind IN ('chapter', 'committee', 'project')),
    entity_id   INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    platform    TEXT NOT NULL,
    name        TEXT NOT NULL,
    external_id TEXT NOT NULL,
    PRIMARY KEY (entity_kind, entity_id, position)
);

-- Related links of chapters, committees and projects, in display order.
CREATE TABLE related_urls (
    entity_kind TEXT NOT NULL CHECK (entity_kind IN ('chapter', 'committee', 'project')),
    entity_id   INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    url         TEXT NOT NULL,
    PRIMARY KEY (entity_kind, entity_id, position)
);

CREATE TABLE events (
    id                 INTEGER PRIMARY KEY,
    key                TEXT NOT NULL,
    key_lc             TEXT NOT NULL UNIQUE,
    name               TEXT NOT NULL,
    category           TEXT NOT NULL CHECK (category IN ('appsec_days', 'global', 'partner', 'other')),
    start_date         TEXT NOT NULL,     -- YYYY-MM-DD
    end_date           TEXT,              -- YYYY-MM-DD, nullable
    latitude           REAL,
    longitude          REAL,
    url                TEXT,
    description        TEXT,
    summary            TEXT NOT NULL,
    suggested_location TEXT NOT NULL
);
CREATE INDEX events_start ON events (start_date, id);
CREATE INDEX events_category ON events (category);
CREATE INDEX events_end ON events (end_date, id);
CREATE INDEX events_latitude ON events (latitude, id);
CREATE INDEX events_longitude ON events (longitude, id);

CREATE TABLE sponsors (
    id              INTEGER PRIMARY KEY,
    key             TEXT NOT NULL,
    key_lc          TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    name_lc         TEXT NOT NULL,
    sponsor_type    TEXT NOT NULL,
    sponsor_type_lc TEXT NOT NULL,
    is_member       INTEGER NOT NULL,
    member_type     TEXT NOT NULL CHECK (member_type IN ('Platinum', 'Gold', 'Silver', '')),
    image_url       TEXT NOT NULL,
    url             TEXT NOT NULL,
    job_url         TEXT NOT NULL,
    description     TEXT NOT NULL
);
CREATE INDEX sponsors_name ON sponsors (name_lc, name, id);
CREATE INDEX sponsors_type ON sponsors (sponsor_type_lc);
CREATE INDEX sponsors_member_type ON sponsors (member_type);
CREATE INDEX sponsors_is_member ON sponsors (is_member);

CREATE TABLE snapshots (
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL,             -- YYYY-MM
    key_lc     TEXT NOT NULL UNIQUE,
    title      TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('completed', 'processing', 'pending', 'error')),
    start_at   INTEGER NOT NULL,
    end_at     INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX snapshots_created ON snapshots (created_at, id);
CREATE INDEX snapshots_updated ON snapshots (updated_at, id);
CREATE INDEX snapshots_start ON snapshots (start_at, id);

-- Records new in a snapshot.
CREATE TABLE snapshot_chapters (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id),
    chapter_id  INTEGER NOT NULL REFERENCES chapters (id),
    PRIMARY KEY (snapshot_id, chapter_id)
);
CREATE TABLE snapshot_projects (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id),
    project_id  INTEGER NOT NULL REFERENCES projects (id),
    PRIMARY KEY (snapshot_id, project_id)
);
CREATE TABLE snapshot_members (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id),
    member_id   INTEGER NOT NULL REFERENCES members (id),
    PRIMARY KEY (snapshot_id, member_id)
);
CREATE TABLE snapshot_issues (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id),
    issue_id    INTEGER NOT NULL REFERENCES issues (id),
    PRIMARY KEY (snapshot_id, issue_id)
);
CREATE TABLE snapshot_releases (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id),
    release_id  INTEGER NOT NULL REFERENCES releases (id),
    PRIMARY KEY (snapshot_id, release_id)
);

-- Pull requests: narrow rows like `issues` (bodies in `pull_request_bodies`), with
-- `organization_id` repeating the repository's. GraphQL lists them newest first
-- (created, updated, id, all descending), alone or for one author, organization or
-- repository: one index each, walked backwards to the limit. The author and
-- repository indexes also count contributions per day.
CREATE TABLE pull_requests (
    id              INTEGER PRIMARY KEY,
    repository_id   INTEGER NOT NULL REFERENCES repositories (id),
    organization_id INTEGER NOT NULL REFERENCES organizations (id), -- the repository's
    number          INTEGER NOT NULL,
    title           TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    author_id       INTEGER REFERENCES members (id),   -- nullable
    url             TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    closed_at       INTEGER,                            -- nullable
    merged_at       INTEGER,                            -- nullable
    UNIQUE (repository_id, number)
);
CREATE INDEX pull_requests_newest ON pull_requests (created_at DESC, updated_at DESC, id DESC);
CREATE INDEX pull_requests_author ON pull_requests (author_id, created_at DESC, updated_at DESC, id DESC);
CREATE INDEX pull_requests_org ON pull_requests (organization_id, created_at DESC, updated_at DESC, id DESC);
CREATE INDEX pull_requests_repo ON pull_requests (repository_id, created_at DESC, updated_at DESC, id DESC);

-- One Markdown body per pull request (`pull_requests.id`).
CREATE TABLE pull_request_bodies (
    pull_request_id INTEGER PRIMARY KEY REFERENCES pull_requests (id),
    body            TEXT NOT NULL
);

-- The community's blog, newest first.
CREATE TABLE posts (
    id               INTEGER PRIMARY KEY,
    title            TEXT NOT NULL,
    url              TEXT NOT NULL,
    url_lc           TEXT NOT NULL UNIQUE,
    author_name      TEXT NOT NULL,
    author_image_url TEXT NOT NULL,
    published_at     INTEGER NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX posts_published ON posts (published_at DESC, id DESC);

-- Measurements of a project's health; a project's list newest first is its range of
-- the unique index walked backwards, and a month's measurements a range of it.
CREATE TABLE project_health_metrics (
    id                            INTEGER PRIMARY KEY,
    project_id                    INTEGER NOT NULL REFERENCES projects (id),
    created_at                    INTEGER NOT NULL,
    score                         REAL,          -- 0..100, nullable
    stars_count                   INTEGER NOT NULL,
    forks_count                   INTEGER NOT NULL,
    open_issues_count             INTEGER NOT NULL,
    open_pull_requests_count      INTEGER NOT NULL,
    unanswered_issues_count       INTEGER NOT NULL,
    unassigned_issues_count       INTEGER NOT NULL,
    last_commit_days              INTEGER NOT NULL,
    last_commit_days_requirement  INTEGER NOT NULL,
    last_release_days             INTEGER NOT NULL,
    last_release_days_requirement INTEGER NOT NULL,
    contributors_count            INTEGER NOT NULL,
    recent_releases_count         INTEGER NOT NULL,
    total_issues_count            INTEGER NOT NULL,
    total_releases_count          INTEGER NOT NULL,
    is_funding_requirements_compliant INTEGER NOT NULL,
    is_leader_requirements_compliant  INTEGER NOT NULL,
    age_days                      INTEGER NOT NULL,
    age_days_requirement          INTEGER NOT NULL,
    last_pull_request_days        INTEGER NOT NULL,
    last_pull_request_days_requirement INTEGER NOT NULL,
    owasp_page_last_update_days   INTEGER NOT NULL,
    owasp_page_last_update_days_requirement INTEGER NOT NULL,
    UNIQUE (project_id, created_at)
);
CREATE INDEX project_health_metrics_created ON project_health_metrics (created_at, project_id);

-- The board of directors of one year (its election's candidates and its members are
-- rows of `leaders`).
CREATE TABLE boards (
    id         INTEGER PRIMARY KEY,
    year       INTEGER NOT NULL UNIQUE,
    url        TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- A member's activity over a period; a member's newest first is a range of the unique
-- index walked backwards.
CREATE TABLE member_snapshots (
    id                         INTEGER PRIMARY KEY,
    member_id                  INTEGER NOT NULL REFERENCES members (id),
    start_at                   INTEGER NOT NULL,
    end_at                     INTEGER NOT NULL,
    commits_count              INTEGER NOT NULL,
    pull_requests_count        INTEGER NOT NULL,
    issues_count               INTEGER NOT NULL,
    messages_count             INTEGER NOT NULL,
    contribution_heatmap_data  TEXT NOT NULL,   -- JSON object: day -> count
    communication_heatmap_data TEXT NOT NULL,   -- JSON object: day -> count
    chapter_contributions      TEXT NOT NULL,   -- JSON object: chapter key -> count
    project_contributions      TEXT NOT NULL,   -- JSON object: project key -> count
    repository_contributions   TEXT NOT NULL,   -- JSON object: organization/repository -> count
    channel_communications     TEXT NOT NULL,   -- JSON object: channel -> count
    UNIQUE (member_id, start_at)
);

CREATE TABLE badges (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    name_lc     TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL,
    css_class   TEXT NOT NULL,
    weight      INTEGER NOT NULL
);

-- The badges of a member, in the order listed.
CREATE TABLE member_badges (
    member_id INTEGER NOT NULL REFERENCES members (id),
    badge_id  INTEGER NOT NULL REFERENCES badges (id),
    position  INTEGER NOT NULL,
    PRIMARY KEY (member_id, badge_id)
);
CREATE INDEX member_badges_badge ON member_badges (badge_id);

-- Mentorship programs (`programs.jsonl`) and their modules (`modules.jsonl`). Only
-- published programs and their modules are part of the API. Lists of texts (levels,
-- domains, tags, labels) are JSON arrays; admins, mentors and mentees are members, in
-- the order listed.
CREATE TABLE programs (
    id                INTEGER PRIMARY KEY,
    key               TEXT NOT NULL,
    key_lc            TEXT NOT NULL UNIQUE,
    name              TEXT NOT NULL,
    description       TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('draft', 'published', 'completed')),
    mentees_limit     INTEGER,       -- null: no limit
    experience_levels TEXT NOT NULL, -- JSON array
    started_at        INTEGER NOT NULL,
    ended_at          INTEGER NOT NULL,
    domains           TEXT NOT NULL, -- JSON array
    tags              TEXT NOT NULL  -- JSON array
);
CREATE INDEX programs_status ON programs (status, id);

CREATE TABLE program_admins (
    program_id INTEGER NOT NULL REFERENCES programs (id),
    member_id  INTEGER NOT NULL REFERENCES members (id),
    position   INTEGER NOT NULL,
    PRIMARY KEY (program_id, member_id)
);

CREATE TABLE modules (
    id                          INTEGER PRIMARY KEY,
    program_id                  INTEGER NOT NULL REFERENCES programs (id),
    project_id                  INTEGER REFERENCES projects (id),
    key                         TEXT NOT NULL,
    key_lc                      TEXT NOT NULL,
    name                        TEXT NOT NULL,
    description                 TEXT NOT NULL,
    experience_level            TEXT NOT NULL CHECK (experience_level IN ('beginner', 'intermediate', 'advanced', 'expert')),
    position                    INTEGER NOT NULL,
    started_at                  INTEGER NOT NULL,
    ended_at                    INTEGER NOT NULL,
    domains                     TEXT NOT NULL, -- JSON array
    tags                        TEXT NOT NULL, -- JSON array
    labels                      TEXT NOT NULL, -- JSON array
    mentee_can_manage_deadlines INTEGER NOT NULL,
    UNIQUE (program_id, key_lc)
);
-- A program's modules in display order.
CREATE INDEX modules_program ON modules (program_id, position, started_at, id);
CREATE INDEX modules_project ON modules (project_id);

CREATE TABLE module_mentors (
    module_id INTEGER NOT NULL REFERENCES modules (id),
    member_id INTEGER NOT NULL REFERENCES members (id),
    position  INTEGER NOT NULL,
    PRIMARY KEY (module_id, member_id)
);

CREATE TABLE module_mentees (
    module_id INTEGER NOT NULL REFERENCES modules (id),
    member_id INTEGER NOT NULL REFERENCES members (id),
    position  INTEGER NOT NULL,
    PRIMARY KEY (module_id, member_id)
);

-- `community.json`: exactly one row.
CREATE TABLE community (
    slack_workspace_members INTEGER NOT NULL
);
