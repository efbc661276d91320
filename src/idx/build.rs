//! Building the search index inside a dataset file being written (module doc of
//! [`super`]).
//!
//! Each index's records are read in its default order (the original index's custom
//! ranking, the stable id last) and numbered in it: a record's row id in
//! `search_docs` and in its FTS table is its rank, and each index holds one range of
//! ids, so the matches of a query come out of FTS5 already in ranking order and a page
//! is read without sorting. A sort variant's order is a list of positions
//! (`search_sorts`). The hit of each record is its JSON as `/idx/` answers it, written
//! once here.

use std::collections::HashMap;

use rusqlite::{params, Connection};
use serde_json::{json, Map, Value};

use super::{Index, INDEXES, TOP_CONTRIBUTORS};
use crate::schema::community::graphql::{Chapter, Committee, Event, Organization, Project};
use crate::schema::{Cols, Selected};
use crate::selected;
use crate::store::StoreError;

/// The tables beside the FTS tables.
const TABLES: &str = "
CREATE TABLE search_indexes (
    name  TEXT PRIMARY KEY,
    first INTEGER NOT NULL,   -- the id of its first record in ranking order
    count INTEGER NOT NULL
);
CREATE TABLE search_docs (
    id  INTEGER PRIMARY KEY,  -- the FTS row id; ranking order within an index
    hit TEXT NOT NULL         -- the hit, JSON
);
CREATE TABLE search_facets (
    name  TEXT NOT NULL,      -- <index>.<attribute>
    value TEXT NOT NULL,      -- lower case
    doc   INTEGER NOT NULL,
    PRIMARY KEY (name, value, doc)
) WITHOUT ROWID;
CREATE TABLE search_sorts (
    sort TEXT NOT NULL,       -- <index>_<field>_<asc|desc>
    pos  INTEGER NOT NULL,
    doc  INTEGER NOT NULL,
    PRIMARY KEY (sort, pos)
) WITHOUT ROWID;
CREATE INDEX search_sorts_doc ON search_sorts (sort, doc, pos);
";

/// A sort key of a sort variant.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Int(i64),
    Text(String),
}

/// One record of an index, in ranking order.
#[derive(Debug, Default)]
struct Doc {
    hit: Map<String, Value>,
    /// The first searchable attributes (a name, a title): a match here ranks first.
    head: Vec<String>,
    /// The other searchable attributes.
    body: Vec<String>,
    facets: Vec<(&'static str, String)>,
    sorts: Vec<(&'static str, Key)>,
}

/// Builds every index from the records of `conn` (the store's [`crate::store::Derive`]).
/// The indexes hold what the API exposes, read from the exposure views
/// (`crate::schema::exposure`; a test builds them under the exposure guard). Each
/// document is written as it is made, so the memory held is one index's sort keys
/// and lookup tables, not its documents.
pub fn build(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(TABLES)?;
    let mut next = 1i64;
    for index in INDEXES {
        let mut out = Sink::open(conn, index, next)?;
        match index.name {
            "chapters" => chapters(conn, &mut out)?,
            "committees" => committees(conn, &mut out)?,
            "events" => events(conn, &mut out)?,
            "issues" => issues(conn, &mut out)?,
            "organizations" => organizations(conn, &mut out)?,
            "projects" => projects(conn, &mut out)?,
            "users" => users(conn, &mut out)?,
            "programs" => programs(conn, &mut out)?,
            _ => {}
        }
        next = out.finish(conn)?;
    }
    Ok(())
}

/// One index being written: its documents numbered from `first` in the order they
/// are pushed (its ranking order), their sort keys kept until the end.
struct Sink<'c> {
    index: &'static Index,
    first: i64,
    count: i64,
    doc_stmt: rusqlite::Statement<'c>,
    fts_stmt: rusqlite::Statement<'c>,
    facet_stmt: rusqlite::Statement<'c>,
    sorts: HashMap<&'static str, Vec<(Key, i64)>>,
}

impl<'c> Sink<'c> {
    /// Creates the index's FTS tables; its first document will be `first`.
    fn open(conn: &'c Connection, index: &'static Index, first: i64) -> rusqlite::Result<Self> {
        let name = index.name;
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE search_fts_{name} USING fts5(head, body, content='', \
                tokenize='unicode61 remove_diacritics 2', prefix='1 2 3');
             CREATE VIRTUAL TABLE search_vocab_{name} USING fts5vocab(search_fts_{name}, 'row');"
        ))?;
        Ok(Sink {
            index,
            first,
            count: 0,
            doc_stmt: conn.prepare("INSERT INTO search_docs (id, hit) VALUES (?1, ?2)")?,
            fts_stmt: conn.prepare(&format!(
                "INSERT INTO search_fts_{name} (rowid, head, body) VALUES (?1, ?2, ?3)"
            ))?,
            facet_stmt: conn.prepare(
                "INSERT OR IGNORE INTO search_facets (name, value, doc) VALUES (?1, ?2, ?3)",
            )?,
            sorts: HashMap::new(),
        })
    }

    /// Writes the next document in ranking order.
    fn push(&mut self, mut doc: Doc) -> rusqlite::Result<()> {
        let name = self.index.name;
        let id = self.first + self.count;
        self.count += 1;
        doc.hit
            .entry("objectID")
            .or_insert_with(|| Value::from(id.to_string()));
        self.doc_stmt
            .execute(params![id, Value::Object(doc.hit).to_string()])?;
        self.fts_stmt
            .execute(params![id, doc.head.join(" \n "), doc.body.join(" \n ")])?;
        for (attribute, value) in doc.facets {
            self.facet_stmt.execute(params![
                format!("{name}.{attribute}"),
                value.to_lowercase(),
                id
            ])?;
        }
        for (field, key) in doc.sorts {
            self.sorts.entry(field).or_default().push((key, id));
        }
        Ok(())
    }

    /// Writes the sort variants' orders and the index's range, merges its FTS
    /// segments; the id the next index starts at.
    fn finish(mut self, conn: &Connection) -> rusqlite::Result<i64> {
        let name = self.index.name;
        let mut sort_stmt =
            conn.prepare("INSERT INTO search_sorts (sort, pos, doc) VALUES (?1, ?2, ?3)")?;
        for field in self.index.sorts {
            let mut keys = self.sorts.remove(field).unwrap_or_default();
            // Ties keep the ranking order: ids ascending in both directions.
            keys.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
            for (pos, (_, id)) in keys.iter().enumerate() {
                sort_stmt.execute(params![format!("{name}_{field}_asc"), pos as i64, id])?;
            }
            keys.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            for (pos, (_, id)) in keys.iter().enumerate() {
                sort_stmt.execute(params![format!("{name}_{field}_desc"), pos as i64, id])?;
            }
        }
        conn.execute(
            "INSERT INTO search_indexes (name, first, count) VALUES (?1, ?2, ?3)",
            params![name, self.first, self.count],
        )?;
        conn.execute_batch(&format!(
            "INSERT INTO search_fts_{name} (search_fts_{name}) VALUES ('optimize');"
        ))?;
        Ok(self.first + self.count)
    }
}

/// Texts of one kind of entity per entity id, in display order.
fn texts_by_entity(
    conn: &Connection,
    sql: &str,
    kind: &str,
) -> rusqlite::Result<HashMap<i64, Vec<String>>> {
    let mut out: HashMap<i64, Vec<String>> = HashMap::new();
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([kind])?;
    while let Some(row) = rows.next()? {
        out.entry(row.get(0)?).or_default().push(row.get(1)?);
    }
    Ok(out)
}

fn leaders(conn: &Connection, kind: &str) -> rusqlite::Result<HashMap<i64, Vec<String>>> {
    texts_by_entity(
        conn,
        "SELECT entity_id, name FROM leaders WHERE entity_kind = ?1 ORDER BY entity_id, position",
        kind,
    )
}

fn related_urls(conn: &Connection, kind: &str) -> rusqlite::Result<HashMap<i64, Vec<String>>> {
    texts_by_entity(
        conn,
        "SELECT entity_id, url FROM related_urls WHERE entity_kind = ?1 \
         ORDER BY entity_id, position",
        kind,
    )
}

/// A contributor on a hit, and the words it adds to the searchable text.
struct Contributor {
    hit: Value,
    login: String,
    name: String,
}

selected! {
    /// One of an entity's top contributors: the entity (`grp`), the member's card and
    /// the contributions summed over the entity's repositories.
    struct ContributorRow {
        entity: i64 = get("w.grp"),
        login: String = get("m.login"),
        name: String = get("m.name"),
        avatar_url: String = get("m.avatar_url"),
        contributions: i64 = get("w.n"),
    }
}

/// The top contributors of each entity of a `kind` (`project`) linked to repositories
/// through its link table (`project_repositories`, by `project_id`): members by their
/// contributions summed over those repositories, most first, then by login (the
/// order of GraphQL's `topContributors`).
fn contributors(conn: &Connection, kind: &str) -> rusqlite::Result<HashMap<i64, Vec<Contributor>>> {
    let (link, entity) = (format!("{kind}_repositories"), format!("{kind}_id"));
    let from = format!(
        "( SELECT grp, mid, n, ROW_NUMBER() OVER (PARTITION BY grp \
             ORDER BY n DESC, login_lc, mid) AS pos FROM ( \
               SELECT lk.{entity} AS grp, rc.member_id AS mid, \
                 SUM(rc.contributions_count) AS n, m.login_lc AS login_lc \
               FROM {link} lk \
               JOIN repository_contributors rc ON rc.repository_id = lk.repository_id \
               JOIN members m ON m.id = rc.member_id \
               GROUP BY lk.{entity}, rc.member_id)) w \
         JOIN members m ON m.id = w.mid WHERE w.pos <= {TOP_CONTRIBUTORS} ORDER BY w.grp, w.pos"
    );
    let mut out: HashMap<i64, Vec<Contributor>> = HashMap::new();
    each::<ContributorRow>(conn, &from, |row| {
        out.entry(row.entity).or_default().push(Contributor {
            hit: json!({
                "avatarUrl": row.avatar_url,
                "contributionsCount": row.contributions,
                "id": row.login,
                "login": row.login,
                "name": row.name,
            }),
            login: row.login,
            name: row.name,
        });
        Ok(())
    })?;
    Ok(out)
}

/// The hits and the searchable words of a list of contributors.
fn contributor_parts(list: Vec<Contributor>) -> (Value, Vec<String>) {
    let mut words = Vec::new();
    let mut hits = Vec::new();
    for c in list {
        words.push(c.login);
        words.push(c.name);
        hits.push(c.hit);
    }
    (Value::Array(hits), words)
}

/// Every row of `SELECT <R's columns> FROM <from>` read as `R` (its select list and
/// reader declared once, with [`selected!`]) and handed to `each`, in the statement's
/// order.
fn each<R: Selected>(
    conn: &Connection,
    from: &str,
    mut each: impl FnMut(R) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(&format!("SELECT {} FROM {from}", R::COLUMNS))?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        each(R::read(&mut Cols::new(conn, row))?)?;
    }
    Ok(())
}

/// Every row of `SELECT <R's columns> FROM <from>` made into a document by `doc` and
/// written to `out`, in the statement's order.
fn docs<R: Selected>(
    conn: &Connection,
    out: &mut Sink,
    from: &str,
    mut doc: impl FnMut(R) -> rusqlite::Result<Doc>,
) -> rusqlite::Result<()> {
    each::<R>(conn, from, |row| out.push(doc(row)?))
}

/// A hit written as a JSON object literal.
fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

selected! {
    /// A chapter as its search document reads it: its GraphQL record, and the times
    /// its sort variants order by.
    struct ChapterRow {
        chapter: Chapter = flatten(Chapter),
        created: i64 = get("t.created_at"),
        updated: i64 = get("t.updated_at"),
    }
}

fn chapters(conn: &Connection, out: &mut Sink) -> rusqlite::Result<()> {
    let mut leaders = leaders(conn, "chapter")?;
    let mut urls = related_urls(conn, "chapter")?;
    let mut contributors = contributors(conn, "chapter")?;
    let from = "api_chapters t ORDER BY t.created_at, t.updated_at DESC, t.id";
    docs(conn, out, from, |row: ChapterRow| {
        let ChapterRow {
            chapter: c,
            created,
            updated,
        } = row;
        let suggested = c.suggested_location.unwrap_or_default();
        let leaders = leaders.remove(&c.id).unwrap_or_default();
        let (top, top_words) = contributor_parts(contributors.remove(&c.id).unwrap_or_default());
        let mut hit = object(json!({
            "country": c.country,
            "createdAt": c.created_at,
            "isActive": c.is_active,
            "key": c.key,
            "leaders": leaders,
            "name": c.name,
            "region": c.region,
            "relatedUrls": urls.remove(&c.id).unwrap_or_default(),
            "suggestedLocation": suggested,
            "summary": c.summary,
            "topContributors": top,
            "updatedAt": c.updated_at,
            "url": c.url,
        }));
        if let (Some(lat), Some(lng)) = (c.latitude, c.longitude) {
            hit.insert("_geoloc".into(), json!({ "lat": lat, "lng": lng }));
        }
        let mut body = leaders;
        body.extend(top_words);
        body.extend([suggested, c.country.clone(), c.region]);
        Ok(Doc {
            hit,
            head: vec![c.name.clone()],
            body,
            facets: vec![
                ("idx_country", c.country),
                ("idx_is_active", c.is_active.to_string()),
                ("idx_key", c.key),
                ("idx_name", c.name),
            ],
            sorts: vec![
                ("created_at", Key::Int(created)),
                ("updated_at", Key::Int(updated)),
            ],
        })
    })
}

fn committees(conn: &Connection, out: &mut Sink) -> rusqlite::Result<()> {
    let mut leaders = leaders(conn, "committee")?;
    let mut urls = related_urls(conn, "committee")?;
    let mut contributors = contributors(conn, "committee")?;
    let from = "api_committees t ORDER BY lower(t.name), t.created_at, t.updated_at DESC, t.id";
    docs(conn, out, from, |c: Committee| {
        let leaders = leaders.remove(&c.id).unwrap_or_default();
        let (top, top_words) = contributor_parts(contributors.remove(&c.id).unwrap_or_default());
        let hit = object(json!({
            "createdAt": c.created_at,
            "key": c.key,
            "leaders": leaders,
            "name": c.name,
            "relatedUrls": urls.remove(&c.id).unwrap_or_default(),
            "summary": c.summary,
            "topContributors": top,
            "updatedAt": c.updated_at,
            "url": c.url,
        }));
        let mut body = leaders;
        body.extend(top_words);
        Ok(Doc {
            hit,
            head: vec![c.name.clone()],
            body,
            facets: vec![("idx_key", c.key), ("idx_name", c.name)],
            sorts: Vec::new(),
        })
    })
}

/// A JSON array of strings stored as text (`languages`, `topics`); anything else is
/// an empty list.
fn string_list(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}

/// What a project's hit shows of its repositories, by project id.
#[derive(Default)]
struct ProjectRepos {
    contributors: i64,
    open_issues: i64,
    count: i64,
    languages: std::collections::BTreeSet<String>,
    topics: std::collections::BTreeSet<String>,
    organizations: std::collections::BTreeSet<String>,
    companies: std::collections::BTreeSet<String>,
    /// Most stars first.
    top: Vec<Value>,
    words: Vec<String>,
    names: Vec<String>,
}

/// Repositories shown on a project's hit, as the original index keeps them.
const PROJECT_REPOSITORIES: usize = 4;

selected! {
    /// A repository of a project (`pr`), with its organization (`o`).
    struct ProjectRepositoryRow {
        project: i64 = get("pr.project_id"),
        name: String = get("r.name"),
        description: Option<String> = get("r.description"),
        contributors: i64 = get("r.contributors_count"),
        forks: i64 = get("r.forks_count"),
        open_issues: i64 = get("r.open_issues_count"),
        stars: i64 = get("r.stars_count"),
        license: String = get("r.license"),
        languages: String = get("r.languages"),
        topics: String = get("r.topics"),
        login: String = get("o.login"),
        organization: String = get("o.name"),
        company: String = get("o.company"),
    }
}

fn project_repositories(conn: &Connection) -> rusqlite::Result<HashMap<i64, ProjectRepos>> {
    let mut out: HashMap<i64, ProjectRepos> = HashMap::new();
    let from = "project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
         JOIN organizations o ON o.id = r.organization_id \
         ORDER BY pr.project_id, r.stars_count DESC, r.id";
    each(conn, from, |row: ProjectRepositoryRow| {
        let p = out.entry(row.project).or_default();
        p.contributors += row.contributors;
        p.open_issues += row.open_issues;
        p.count += 1;
        p.languages.extend(string_list(&row.languages));
        p.topics.extend(string_list(&row.topics));
        p.organizations.insert(if row.organization.is_empty() {
            row.login.clone()
        } else {
            row.organization
        });
        if !row.company.is_empty() {
            p.companies.insert(row.company);
        }
        if p.top.len() < PROJECT_REPOSITORIES {
            p.top.push(json!({
                "contributorsCount": row.contributors,
                "description": row.description.clone().unwrap_or_default(),
                "forksCount": row.forks,
                "key": row.name.to_lowercase(),
                "latestRelease": "",
                "license": row.license,
                "name": row.name,
                "ownerKey": row.login.to_lowercase(),
                "starsCount": row.stars,
            }));
        }
        p.words.push(row.name.clone());
        p.words.extend(row.description);
        p.names.push(row.name);
        Ok(())
    })?;
    Ok(out)
}

/// Counts per project id from a statement yielding `(project id, count)`.
fn counts(conn: &Connection, sql: &str) -> rusqlite::Result<HashMap<i64, i64>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

selected! {
    /// A project as its search document reads it: its GraphQL record, and the raw
    /// values its ranking and sort variants order by.
    struct ProjectRow {
        project: Project = flatten(Project),
        level_rank: i64 = get(),
        updated: i64 = get("t.updated_at"),
    }
}

// Long because a project's search document has the most fields of any index (the
// frontend's project card and its facets), each read here from its own aggregate.
fn projects(conn: &Connection, out: &mut Sink) -> rusqlite::Result<()> {
    let mut leaders = leaders(conn, "project")?;
    let mut contributors = contributors(conn, "project")?;
    let mut repos = project_repositories(conn)?;
    let open_issues = counts(
        conn,
        "SELECT pr.project_id, COUNT(*) FROM project_repositories pr \
         JOIN issues i ON i.repository_id = pr.repository_id AND i.state = 'open' \
         GROUP BY pr.project_id",
    )?;
    let open_pulls = counts(
        conn,
        "SELECT pr.project_id, COUNT(*) FROM project_repositories pr \
         JOIN pull_requests q ON q.repository_id = pr.repository_id AND q.state = 'open' \
         GROUP BY pr.project_id",
    )?;
    // Read in a neutral order; the ranking needs the contributor counts.
    let mut ranked = Vec::new();
    each(conn, "api_projects t ORDER BY t.id", |row: ProjectRow| {
        let ProjectRow {
            project: p,
            level_rank,
            updated,
        } = row;
        let r = repos.remove(&p.id).unwrap_or_default();
        let leaders = leaders.remove(&p.id).unwrap_or_default();
        let (top, top_words) = contributor_parts(contributors.remove(&p.id).unwrap_or_default());
        let join = |set: &std::collections::BTreeSet<String>| {
            set.iter().cloned().collect::<Vec<_>>().join(", ")
        };
        let hit = object(json!({
            "contributorsCount": r.contributors,
            "forksCount": p.forks_count,
            "isActive": p.is_active,
            "issuesCount": open_issues.get(&p.id).copied().unwrap_or(0),
            "key": p.key,
            "languages": r.languages,
            "leaders": leaders,
            "level": p.level,
            "name": p.name,
            "openIssuesCount": r.open_issues,
            "openPullRequestsCount": open_pulls.get(&p.id).copied().unwrap_or(0),
            "organizations": join(&r.organizations),
            "repositories": Value::Array(r.top),
            "repositoriesCount": r.count,
            "starsCount": p.stars_count,
            "summary": p.summary,
            "topContributors": top,
            "topics": r.topics,
            "type": p.kind,
            "updatedAt": p.updated_at,
            "url": p.url,
        }));
        let mut body = r.words;
        body.extend(r.languages.iter().cloned());
        body.extend(r.topics.iter().cloned());
        body.push(p.description);
        body.push(join(&r.companies));
        body.push(join(&r.organizations));
        body.extend(leaders);
        body.extend(top_words);
        body.push(p.level);
        let mut facets = vec![
            ("idx_is_active", p.is_active.to_string()),
            ("idx_key", p.key),
            ("idx_name", p.name.clone()),
        ];
        facets.extend(r.names.into_iter().map(|n| ("idx_repositories.name", n)));
        // The original's custom ranking: level, stars, contributors, forks, last
        // update, all descending (its health score is the same for every project in
        // production and is left out); the id last.
        let rank = (
            std::cmp::Reverse(level_rank),
            std::cmp::Reverse(p.stars_count),
            std::cmp::Reverse(r.contributors),
            std::cmp::Reverse(p.forks_count),
            std::cmp::Reverse(updated),
            p.id,
        );
        ranked.push((
            rank,
            Doc {
                hit,
                head: vec![p.name.clone()],
                body,
                facets,
                sorts: vec![
                    ("contributors_count", Key::Int(r.contributors)),
                    ("forks_count", Key::Int(p.forks_count)),
                    ("level_raw", Key::Int(level_rank)),
                    ("name", Key::Text(p.name.to_lowercase())),
                    ("stars_count", Key::Int(p.stars_count)),
                    ("updated_at", Key::Int(updated)),
                ],
            },
        ));
        Ok(())
    })?;
    ranked.sort_by_key(|a| a.0);
    ranked.into_iter().try_for_each(|(_, doc)| out.push(doc))
}

selected! {
    /// An open issue (`i`) as its search document reads it: with its repository
    /// (`r`), the first active project holding that repository (`p`) and its author
    /// (`a`, none for an unknown one).
    struct IssueRow {
        id: i64 = get("i.id"),
        title: String = get("i.title"),
        url: String = get("i.url"),
        created_at: String = ts("i.created_at"),
        updated_at: String = ts("i.updated_at"),
        repository: String = get("r.name"),
        languages: String = get("r.languages"),
        topics: String = get("r.topics"),
        repository_description: String = get("COALESCE(r.description, '')"),
        project: String = get("p.name"),
        project_url: String = get("p.url"),
        project_description: String = get("p.description"),
        project_level: String = get("p.level"),
        author_login: String = get("COALESCE(a.login, '')"),
        author_name: String = get("COALESCE(a.name, '')"),
    }
}

fn issues(conn: &Connection, out: &mut Sink) -> rusqlite::Result<()> {
    let mut labels: HashMap<i64, Vec<String>> = HashMap::new();
    {
        let mut stmt = conn.prepare(
            "SELECT il.issue_id, l.name FROM issue_labels il \
             JOIN issues i ON i.id = il.issue_id AND i.state = 'open' \
             JOIN labels l ON l.id = il.label_id ORDER BY il.issue_id, il.position",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            labels.entry(row.get(0)?).or_default().push(row.get(1)?);
        }
    }
    // The open issues of repositories that belong to an active project (the first by
    // id, as GraphQL's `projectName`), newest first, then by the repository's
    // contributors, stars and forks (the original's custom ranking).
    let from = "issues i \
         JOIN repositories r ON r.id = i.repository_id \
         JOIN api_projects p ON p.id = (SELECT pr.project_id FROM project_repositories pr \
            JOIN api_projects pp ON pp.id = pr.project_id \
            WHERE pr.repository_id = i.repository_id \
            ORDER BY pr.project_id LIMIT 1) \
         LEFT JOIN members a ON a.id = i.author_id \
         WHERE i.state = 'open' \
         ORDER BY i.created_at DESC, i.updated_at DESC, r.contributors_count DESC, \
            r.stars_count DESC, r.forks_count DESC, i.id";
    docs(conn, out, from, |row: IssueRow| {
        let languages = string_list(&row.languages);
        let topics = string_list(&row.topics);
        let labels = labels.remove(&row.id).unwrap_or_default();
        let hit = object(json!({
            "createdAt": row.created_at,
            "labels": labels,
            "projectName": row.project,
            "projectUrl": row.project_url,
            "repositoryLanguages": languages,
            "title": row.title,
            "updatedAt": row.updated_at,
            "url": row.url,
        }));
        let mut body = labels;
        body.extend(languages);
        body.push(row.project_description);
        body.push(row.repository_description);
        body.extend(topics.iter().cloned());
        body.push(row.author_login);
        body.push(row.author_name);
        body.push(row.project_level);
        let mut facets = vec![
            ("idx_project_name", row.project.clone()),
            ("idx_repository_name", row.repository.clone()),
            ("idx_title", row.title.clone()),
        ];
        facets.extend(topics.into_iter().map(|t| ("idx_repository_topics", t)));
        Ok(Doc {
            hit,
            head: vec![row.title, row.project, row.repository],
            body,
            facets,
            sorts: Vec::new(),
        })
    })
}

selected! {
    /// An organization as its search document reads it: its GraphQL record and how
    /// many repositories it has.
    struct OrganizationRow {
        organization: Organization = flatten(Organization),
        repositories: i64 = get("(SELECT COUNT(*) FROM repositories r WHERE r.organization_id = t.id)"),
    }
}

fn organizations(conn: &Connection, out: &mut Sink) -> rusqlite::Result<()> {
    let from = "api_organizations t \
         ORDER BY t.followers_count DESC, t.collaborators_count DESC, t.created_at DESC, t.id";
    docs(conn, out, from, |row: OrganizationRow| {
        let o = row.organization;
        let hit = object(json!({
            "avatarUrl": o.avatar_url,
            "collaboratorsCount": o.collaborators_count,
            "createdAt": o.created_at,
            "description": o.description,
            "followersCount": o.followers_count,
            "location": o.location,
            "login": o.login,
            "name": o.name,
            "publicRepositoriesCount": row.repositories,
            "url": o.url,
        }));
        Ok(Doc {
            hit,
            head: vec![o.name],
            body: vec![o.login],
            ..Doc::default()
        })
    })
}

selected! {
    /// A member as its search document reads it, with how many badges they hold.
    struct UserRow {
        login: String = get(),
        name: String = get(),
        avatar_url: String = get(),
        url: String = get(),
        bio: String = get(),
        company: String = get(),
        location: String = get(),
        title: String = get(),
        followers: i64 = get("t.followers_count"),
        following: i64 = get("t.following_count"),
        repositories: i64 = get("t.public_repositories_count"),
        created_at: String = ts(),
        updated_at: String = ts(),
        badges: i64 = get("(SELECT COUNT(*) FROM member_badges b WHERE b.member_id = t.id)"),
    }
}

fn users(conn: &Connection, out: &mut Sink) -> rusqlite::Result<()> {
    // Ranked by contributions (summed over repositories), followers, public
    // repositories, all descending, then the oldest account first; the id last.
    let from = "members t LEFT JOIN (SELECT member_id, SUM(contributions_count) AS n \
            FROM repository_contributors GROUP BY member_id) c ON c.member_id = t.id \
         ORDER BY COALESCE(c.n, 0) DESC, t.followers_count DESC, \
            t.public_repositories_count DESC, t.created_at, t.id";
    docs(conn, out, from, |u: UserRow| {
        let hit = object(json!({
            "avatarUrl": u.avatar_url,
            "badgeCount": u.badges,
            "bio": u.bio,
            "company": u.company,
            "createdAt": u.created_at,
            "followersCount": u.followers,
            "followingCount": u.following,
            "key": u.login,
            "location": u.location,
            "login": u.login,
            "name": u.name,
            "publicRepositoriesCount": u.repositories,
            "title": u.title,
            "updatedAt": u.updated_at,
            "url": u.url,
        }));
        Ok(Doc {
            hit,
            head: vec![u.login.clone(), u.name.clone()],
            body: vec![u.company, u.location, u.bio],
            facets: vec![
                ("idx_key", u.login),
                ("idx_name", u.name),
                ("idx_title", u.title),
            ],
            sorts: Vec::new(),
        })
    })
}

fn events(conn: &Connection, out: &mut Sink) -> rusqlite::Result<()> {
    // Latest first.
    docs(
        conn,
        out,
        "events t ORDER BY t.start_date DESC, t.id",
        |e: Event| {
            let hit = object(json!({
                "category": e.category,
                "endDate": e.end_date,
                "key": e.key,
                "name": e.name,
                "startDate": e.start_date,
                "suggestedLocation": e.suggested_location,
                "summary": e.summary,
                "url": e.url.unwrap_or_default(),
            }));
            Ok(Doc {
                hit,
                head: vec![e.name],
                body: vec![e.summary, e.suggested_location],
                facets: vec![("idx_category", e.category), ("idx_key", e.key)],
                sorts: Vec::new(),
            })
        },
    )
}

selected! {
    /// A published program as its search document reads it: its status and
    /// experience levels as the dataset keeps them (the hit shows those texts).
    struct ProgramRow {
        key: String = get(),
        name: String = get(),
        description: String = get(),
        status: String = get(),
        experience_levels: String = get(),
        started_at: String = ts(),
        ended_at: String = ts(),
    }
}

fn programs(conn: &Connection, out: &mut Sink) -> rusqlite::Result<()> {
    // Published programs only, in the order of their records (the original index has
    // no custom ranking). Its searchable attributes, in their order: the description,
    // the experience levels, the name.
    docs(
        conn,
        out,
        "api_programs t ORDER BY t.id",
        |p: ProgramRow| {
            let levels = string_list(&p.experience_levels);
            let hit = object(json!({
                "description": p.description,
                "endedAt": p.ended_at,
                "experienceLevels": levels,
                "key": p.key,
                "name": p.name,
                "startedAt": p.started_at,
                "status": p.status,
            }));
            let mut facets = vec![("idx_status", p.status)];
            facets.extend(levels.iter().map(|l| ("idx_experience_levels", l.clone())));
            let mut body = levels;
            body.push(p.name);
            Ok(Doc {
                hit,
                head: vec![p.description],
                body,
                facets,
                sorts: Vec::new(),
            })
        },
    )
}
