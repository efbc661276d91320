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
use crate::catalog::short_key;
use crate::records::Ts;
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
/// (`crate::schema::exposure`; a test builds them under the exposure guard).
pub fn build(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(TABLES)?;
    let mut next = 1i64;
    for index in INDEXES {
        let docs = match index.name {
            "chapters" => chapters(conn)?,
            "committees" => committees(conn)?,
            "events" => events(conn)?,
            "issues" => issues(conn)?,
            "organizations" => organizations(conn)?,
            "projects" => projects(conn)?,
            "users" => users(conn)?,
            "programs" => programs(conn)?,
            _ => Vec::new(),
        };
        write(conn, index, docs, &mut next)?;
    }
    Ok(())
}

fn write(
    conn: &Connection,
    index: &Index,
    docs: Vec<Doc>,
    next: &mut i64,
) -> Result<(), StoreError> {
    let name = index.name;
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE search_fts_{name} USING fts5(head, body, content='', \
            tokenize='unicode61 remove_diacritics 2', prefix='1 2 3');
         CREATE VIRTUAL TABLE search_vocab_{name} USING fts5vocab(search_fts_{name}, 'row');"
    ))?;
    let first = *next;
    let mut doc_stmt = conn.prepare("INSERT INTO search_docs (id, hit) VALUES (?1, ?2)")?;
    let mut fts_stmt = conn.prepare(&format!(
        "INSERT INTO search_fts_{name} (rowid, head, body) VALUES (?1, ?2, ?3)"
    ))?;
    let mut facet_stmt =
        conn.prepare("INSERT OR IGNORE INTO search_facets (name, value, doc) VALUES (?1, ?2, ?3)")?;
    let mut sorts: HashMap<&'static str, Vec<(Key, i64)>> = HashMap::new();
    let total = docs.len() as i64;
    for (i, mut doc) in docs.into_iter().enumerate() {
        let id = first + i as i64;
        doc.hit
            .entry("objectID")
            .or_insert_with(|| Value::from(id.to_string()));
        doc_stmt.execute(params![id, Value::Object(doc.hit).to_string()])?;
        fts_stmt.execute(params![id, doc.head.join(" \n "), doc.body.join(" \n ")])?;
        for (attribute, value) in doc.facets {
            facet_stmt.execute(params![
                format!("{name}.{attribute}"),
                value.to_lowercase(),
                id
            ])?;
        }
        for (field, key) in doc.sorts {
            sorts.entry(field).or_default().push((key, id));
        }
    }
    *next = first + total;
    let mut sort_stmt =
        conn.prepare("INSERT INTO search_sorts (sort, pos, doc) VALUES (?1, ?2, ?3)")?;
    for field in index.sorts {
        let mut keys = sorts.remove(field).unwrap_or_default();
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
        params![name, first, total],
    )?;
    conn.execute_batch(&format!(
        "INSERT INTO search_fts_{name} (search_fts_{name}) VALUES ('optimize');"
    ))?;
    Ok(())
}

fn ts(micros: i64) -> String {
    Ts(micros).format()
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

/// The top contributors of each entity linked to repositories through `link`
/// (`project_repositories`, with the entity column `entity`): members by their
/// contributions summed over those repositories, most first, then by login (the
/// order of GraphQL's `topContributors`).
fn contributors(
    conn: &Connection,
    link: &str,
    entity: &str,
) -> rusqlite::Result<HashMap<i64, Vec<Contributor>>> {
    let sql = format!(
        "SELECT w.grp, m.login, m.name, m.avatar_url, w.n FROM ( \
           SELECT grp, mid, n, ROW_NUMBER() OVER (PARTITION BY grp \
             ORDER BY n DESC, login_lc, mid) AS pos FROM ( \
               SELECT lk.{entity} AS grp, rc.member_id AS mid, \
                 SUM(rc.contributions_count) AS n, m.login_lc AS login_lc \
               FROM {link} lk \
               JOIN repository_contributors rc ON rc.repository_id = lk.repository_id \
               JOIN members m ON m.id = rc.member_id \
               GROUP BY lk.{entity}, rc.member_id)) w \
         JOIN members m ON m.id = w.mid WHERE w.pos <= ?1 ORDER BY w.grp, w.pos"
    );
    let mut out: HashMap<i64, Vec<Contributor>> = HashMap::new();
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([TOP_CONTRIBUTORS])?;
    while let Some(row) = rows.next()? {
        let login: String = row.get(1)?;
        let name: String = row.get(2)?;
        let avatar: String = row.get(3)?;
        let n: i64 = row.get(4)?;
        out.entry(row.get(0)?).or_default().push(Contributor {
            hit: json!({
                "avatarUrl": avatar,
                "contributionsCount": n,
                "id": login,
                "login": login,
                "name": name,
            }),
            login,
            name,
        });
    }
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

/// Every row of `sql` made into a document by `doc`, in the statement's order.
fn docs(
    conn: &Connection,
    sql: &str,
    mut doc: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<Doc>,
) -> rusqlite::Result<Vec<Doc>> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(doc(row)?);
    }
    Ok(out)
}

/// A hit written as a JSON object literal.
fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn chapters(conn: &Connection) -> rusqlite::Result<Vec<Doc>> {
    let mut leaders = leaders(conn, "chapter")?;
    let mut urls = related_urls(conn, "chapter")?;
    let mut contributors = contributors(conn, "chapter_repositories", "chapter_id")?;
    let sql = "SELECT t.id, t.key, t.name, t.country, t.region, t.latitude, t.longitude, \
            t.summary, t.url, t.created_at, t.updated_at, COALESCE(t.suggested_location, '') \
         FROM api_chapters t \
         ORDER BY t.created_at, t.updated_at DESC, t.id";
    docs(conn, sql, |row| {
        let id: i64 = row.get(0)?;
        let key = short_key(&row.get::<_, String>(1)?, "www-chapter-").to_string();
        let name: String = row.get(2)?;
        let country: String = row.get(3)?;
        let region: String = row.get(4)?;
        let (lat, lng): (Option<f64>, Option<f64>) = (row.get(5)?, row.get(6)?);
        let (created, updated): (i64, i64) = (row.get(9)?, row.get(10)?);
        let suggested: String = row.get(11)?;
        let leaders = leaders.remove(&id).unwrap_or_default();
        let (top, top_words) = contributor_parts(contributors.remove(&id).unwrap_or_default());
        let mut hit = object(json!({
            "country": country,
            "createdAt": ts(created),
            "isActive": true,
            "key": key,
            "leaders": leaders,
            "name": name,
            "region": region,
            "relatedUrls": urls.remove(&id).unwrap_or_default(),
            "suggestedLocation": suggested,
            "summary": row.get::<_, String>(7)?,
            "topContributors": top,
            "updatedAt": ts(updated),
            "url": row.get::<_, String>(8)?,
        }));
        if let (Some(lat), Some(lng)) = (lat, lng) {
            hit.insert("_geoloc".into(), json!({ "lat": lat, "lng": lng }));
        }
        let mut body = leaders;
        body.extend(top_words);
        body.extend([suggested, country.clone(), region]);
        Ok(Doc {
            hit,
            head: vec![name.clone()],
            body,
            facets: vec![
                ("idx_country", country),
                ("idx_is_active", "true".into()),
                ("idx_key", key),
                ("idx_name", name),
            ],
            sorts: vec![
                ("created_at", Key::Int(created)),
                ("updated_at", Key::Int(updated)),
            ],
        })
    })
}

fn committees(conn: &Connection) -> rusqlite::Result<Vec<Doc>> {
    let mut leaders = leaders(conn, "committee")?;
    let mut urls = related_urls(conn, "committee")?;
    let mut contributors = contributors(conn, "committee_repositories", "committee_id")?;
    let sql = "SELECT t.id, t.key, t.name, t.summary, t.url, t.created_at, t.updated_at \
         FROM api_committees t \
         ORDER BY lower(t.name), t.created_at, t.updated_at DESC, t.id";
    docs(conn, sql, |row| {
        let id: i64 = row.get(0)?;
        let key = short_key(&row.get::<_, String>(1)?, "www-committee-").to_string();
        let name: String = row.get(2)?;
        let leaders = leaders.remove(&id).unwrap_or_default();
        let (top, top_words) = contributor_parts(contributors.remove(&id).unwrap_or_default());
        let hit = object(json!({
            "createdAt": ts(row.get(5)?),
            "key": key,
            "leaders": leaders,
            "name": name,
            "relatedUrls": urls.remove(&id).unwrap_or_default(),
            "summary": row.get::<_, String>(3)?,
            "topContributors": top,
            "updatedAt": ts(row.get(6)?),
            "url": row.get::<_, String>(4)?,
        }));
        let mut body = leaders;
        body.extend(top_words);
        Ok(Doc {
            hit,
            head: vec![name.clone()],
            body,
            facets: vec![("idx_key", key), ("idx_name", name)],
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

fn project_repositories(conn: &Connection) -> rusqlite::Result<HashMap<i64, ProjectRepos>> {
    let mut out: HashMap<i64, ProjectRepos> = HashMap::new();
    let mut stmt = conn.prepare(
        "SELECT pr.project_id, r.name, r.description, r.contributors_count, r.forks_count, \
            r.open_issues_count, r.stars_count, r.license, r.languages, r.topics, o.login, \
            o.name, o.company \
         FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id \
         JOIN organizations o ON o.id = r.organization_id \
         ORDER BY pr.project_id, r.stars_count DESC, r.id",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let p = out.entry(row.get(0)?).or_default();
        let name: String = row.get(1)?;
        let description: Option<String> = row.get(2)?;
        let contributors: i64 = row.get(3)?;
        let login: String = row.get(10)?;
        p.contributors += contributors;
        p.open_issues += row.get::<_, i64>(5)?;
        p.count += 1;
        p.languages.extend(string_list(&row.get::<_, String>(8)?));
        p.topics.extend(string_list(&row.get::<_, String>(9)?));
        let org_name: String = row.get(11)?;
        let company: String = row.get(12)?;
        p.organizations.insert(if org_name.is_empty() {
            login.clone()
        } else {
            org_name
        });
        if !company.is_empty() {
            p.companies.insert(company);
        }
        if p.top.len() < PROJECT_REPOSITORIES {
            p.top.push(json!({
                "contributorsCount": contributors,
                "description": description.clone().unwrap_or_default(),
                "forksCount": row.get::<_, i64>(4)?,
                "key": name.to_lowercase(),
                "latestRelease": "",
                "license": row.get::<_, String>(7)?,
                "name": name,
                "ownerKey": login.to_lowercase(),
                "starsCount": row.get::<_, i64>(6)?,
            }));
        }
        p.words.push(name.clone());
        p.words.extend(description);
        p.names.push(name);
    }
    Ok(out)
}

/// Counts per project id from a statement yielding `(project id, count)`.
fn counts(conn: &Connection, sql: &str) -> rusqlite::Result<HashMap<i64, i64>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

// Long because a project's search document has the most fields of any index (the
// frontend's project card and its facets), each read here from its own aggregate.
fn projects(conn: &Connection) -> rusqlite::Result<Vec<Doc>> {
    let mut leaders = leaders(conn, "project")?;
    let mut contributors = contributors(conn, "project_repositories", "project_id")?;
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
    let mut stmt = conn.prepare(
        "SELECT t.id, t.key, t.name, t.level, t.level_rank, t.type, t.description, t.summary, \
            t.url, t.stars, t.forks, t.updated_at \
         FROM api_projects t ORDER BY t.id",
    )?;
    let mut rows = stmt.query([])?;
    let mut ranked = Vec::new();
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        let key = short_key(&row.get::<_, String>(1)?, "www-project-").to_string();
        let name: String = row.get(2)?;
        let level: String = row.get(3)?;
        let level_rank: i64 = row.get(4)?;
        let description: String = row.get(6)?;
        let stars: i64 = row.get(9)?;
        let forks: i64 = row.get(10)?;
        let updated: i64 = row.get(11)?;
        let r = repos.remove(&id).unwrap_or_default();
        let leaders = leaders.remove(&id).unwrap_or_default();
        let (top, top_words) = contributor_parts(contributors.remove(&id).unwrap_or_default());
        let join = |set: &std::collections::BTreeSet<String>| {
            set.iter().cloned().collect::<Vec<_>>().join(", ")
        };
        let hit = object(json!({
            "contributorsCount": r.contributors,
            "forksCount": forks,
            "isActive": true,
            "issuesCount": open_issues.get(&id).copied().unwrap_or(0),
            "key": key,
            "languages": r.languages,
            "leaders": leaders,
            "level": level,
            "name": name,
            "openIssuesCount": r.open_issues,
            "openPullRequestsCount": open_pulls.get(&id).copied().unwrap_or(0),
            "organizations": join(&r.organizations),
            "repositories": Value::Array(r.top),
            "repositoriesCount": r.count,
            "starsCount": stars,
            "summary": row.get::<_, String>(7)?,
            "topContributors": top,
            "topics": r.topics,
            "type": row.get::<_, String>(5)?,
            "updatedAt": ts(updated),
            "url": row.get::<_, String>(8)?,
        }));
        let mut body = r.words;
        body.extend(r.languages.iter().cloned());
        body.extend(r.topics.iter().cloned());
        body.push(description);
        body.push(join(&r.companies));
        body.push(join(&r.organizations));
        body.extend(leaders);
        body.extend(top_words);
        body.push(level);
        let mut facets = vec![
            ("idx_is_active", "true".to_string()),
            ("idx_key", key),
            ("idx_name", name.clone()),
        ];
        facets.extend(r.names.into_iter().map(|n| ("idx_repositories.name", n)));
        // The original's custom ranking: level, stars, contributors, forks, last
        // update, all descending (its health score is the same for every project in
        // production and is left out); the id last.
        let rank = (
            std::cmp::Reverse(level_rank),
            std::cmp::Reverse(stars),
            std::cmp::Reverse(r.contributors),
            std::cmp::Reverse(forks),
            std::cmp::Reverse(updated),
            id,
        );
        ranked.push((
            rank,
            Doc {
                hit,
                head: vec![name.clone()],
                body,
                facets,
                sorts: vec![
                    ("contributors_count", Key::Int(r.contributors)),
                    ("forks_count", Key::Int(forks)),
                    ("level_raw", Key::Int(level_rank)),
                    ("name", Key::Text(name.to_lowercase())),
                    ("stars_count", Key::Int(stars)),
                    ("updated_at", Key::Int(updated)),
                ],
            },
        ));
    }
    ranked.sort_by_key(|a| a.0);
    Ok(ranked.into_iter().map(|(_, d)| d).collect())
}

fn issues(conn: &Connection) -> rusqlite::Result<Vec<Doc>> {
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
    let sql = "SELECT i.id, i.title, i.url, i.created_at, i.updated_at, r.name, r.languages, \
            r.topics, COALESCE(r.description, ''), p.name, p.url, p.description, p.level, \
            COALESCE(a.login, ''), COALESCE(a.name, '') \
         FROM issues i \
         JOIN repositories r ON r.id = i.repository_id \
         JOIN api_projects p ON p.id = (SELECT pr.project_id FROM project_repositories pr \
            JOIN api_projects pp ON pp.id = pr.project_id \
            WHERE pr.repository_id = i.repository_id \
            ORDER BY pr.project_id LIMIT 1) \
         LEFT JOIN members a ON a.id = i.author_id \
         WHERE i.state = 'open' \
         ORDER BY i.created_at DESC, i.updated_at DESC, r.contributors_count DESC, \
            r.stars_count DESC, r.forks_count DESC, i.id";
    docs(conn, sql, |row| {
        let id: i64 = row.get(0)?;
        let title: String = row.get(1)?;
        let repository: String = row.get(5)?;
        let languages = string_list(&row.get::<_, String>(6)?);
        let topics = string_list(&row.get::<_, String>(7)?);
        let project: String = row.get(9)?;
        let labels = labels.remove(&id).unwrap_or_default();
        let hit = object(json!({
            "createdAt": ts(row.get(3)?),
            "labels": labels,
            "projectName": project,
            "projectUrl": row.get::<_, String>(10)?,
            "repositoryLanguages": languages,
            "title": title,
            "updatedAt": ts(row.get(4)?),
            "url": row.get::<_, String>(2)?,
        }));
        let mut body = labels;
        body.extend(languages);
        body.push(row.get(11)?);
        body.push(row.get(8)?);
        body.extend(topics.iter().cloned());
        body.push(row.get(13)?);
        body.push(row.get(14)?);
        body.push(row.get(12)?);
        let mut facets = vec![
            ("idx_project_name", project.clone()),
            ("idx_repository_name", repository.clone()),
            ("idx_title", title.clone()),
        ];
        facets.extend(topics.into_iter().map(|t| ("idx_repository_topics", t)));
        Ok(Doc {
            hit,
            head: vec![title, project, repository],
            body,
            facets,
            sorts: Vec::new(),
        })
    })
}

fn organizations(conn: &Connection) -> rusqlite::Result<Vec<Doc>> {
    let sql = "SELECT t.id, t.login, t.name, t.description, t.location, t.avatar_url, t.url, \
            t.followers_count, t.collaborators_count, t.created_at, \
            (SELECT COUNT(*) FROM repositories r WHERE r.organization_id = t.id) \
         FROM api_organizations t \
         ORDER BY t.followers_count DESC, t.collaborators_count DESC, t.created_at DESC, t.id";
    docs(conn, sql, |row| {
        let login: String = row.get(1)?;
        let name: String = row.get(2)?;
        let hit = object(json!({
            "avatarUrl": row.get::<_, String>(5)?,
            "collaboratorsCount": row.get::<_, i64>(8)?,
            "createdAt": ts(row.get(9)?),
            "description": row.get::<_, String>(3)?,
            "followersCount": row.get::<_, i64>(7)?,
            "location": row.get::<_, String>(4)?,
            "login": login,
            "name": name,
            "publicRepositoriesCount": row.get::<_, i64>(10)?,
            "url": row.get::<_, String>(6)?,
        }));
        Ok(Doc {
            hit,
            head: vec![name],
            body: vec![login],
            ..Doc::default()
        })
    })
}

fn users(conn: &Connection) -> rusqlite::Result<Vec<Doc>> {
    // Ranked by contributions (summed over repositories), followers, public
    // repositories, all descending, then the oldest account first; the id last.
    let sql = "SELECT t.id, t.login, t.name, t.avatar_url, t.url, t.bio, t.company, t.location, \
            t.title, t.followers_count, t.following_count, t.public_repositories_count, \
            t.created_at, t.updated_at, \
            (SELECT COUNT(*) FROM member_badges b WHERE b.member_id = t.id) AS badges, \
            COALESCE(c.n, 0) AS contributions \
         FROM members t LEFT JOIN (SELECT member_id, SUM(contributions_count) AS n \
            FROM repository_contributors GROUP BY member_id) c ON c.member_id = t.id \
         ORDER BY contributions DESC, t.followers_count DESC, \
            t.public_repositories_count DESC, t.created_at, t.id";
    docs(conn, sql, |row| {
        let login: String = row.get(1)?;
        let name: String = row.get(2)?;
        let bio: String = row.get(5)?;
        let company: String = row.get(6)?;
        let location: String = row.get(7)?;
        let title: String = row.get(8)?;
        let hit = object(json!({
            "avatarUrl": row.get::<_, String>(3)?,
            "badgeCount": row.get::<_, i64>(14)?,
            "bio": bio,
            "company": company,
            "createdAt": ts(row.get(12)?),
            "followersCount": row.get::<_, i64>(9)?,
            "followingCount": row.get::<_, i64>(10)?,
            "key": login,
            "location": location,
            "login": login,
            "name": name,
            "publicRepositoriesCount": row.get::<_, i64>(11)?,
            "title": title,
            "updatedAt": ts(row.get(13)?),
            "url": row.get::<_, String>(4)?,
        }));
        Ok(Doc {
            hit,
            head: vec![login.clone(), name.clone()],
            body: vec![company, location, bio],
            facets: vec![("idx_key", login), ("idx_name", name), ("idx_title", title)],
            sorts: Vec::new(),
        })
    })
}

fn events(conn: &Connection) -> rusqlite::Result<Vec<Doc>> {
    // Latest first.
    let sql = "SELECT t.key, t.name, t.category, t.start_date, t.end_date, t.url, t.summary, \
            t.suggested_location \
         FROM events t ORDER BY t.start_date DESC, t.id";
    docs(conn, sql, |row| {
        let key: String = row.get(0)?;
        let name: String = row.get(1)?;
        let category: String = row.get(2)?;
        let summary: String = row.get(6)?;
        let location: String = row.get(7)?;
        let hit = object(json!({
            "category": category,
            "endDate": row.get::<_, Option<String>>(4)?,
            "key": key,
            "name": name,
            "startDate": row.get::<_, String>(3)?,
            "suggestedLocation": location,
            "summary": summary,
            "url": row.get::<_, Option<String>>(5)?.unwrap_or_default(),
        }));
        Ok(Doc {
            hit,
            head: vec![name],
            body: vec![summary, location],
            facets: vec![("idx_category", category), ("idx_key", key)],
            sorts: Vec::new(),
        })
    })
}

fn programs(conn: &Connection) -> rusqlite::Result<Vec<Doc>> {
    // Published programs only, in the order of their records (the original index has
    // no custom ranking). Its searchable attributes, in their order: the description,
    // the experience levels, the name.
    let sql = "SELECT t.key, t.name, t.description, t.status, t.experience_levels, \
            t.started_at, t.ended_at \
         FROM api_programs t ORDER BY t.id";
    docs(conn, sql, |row| {
        let key: String = row.get(0)?;
        let name: String = row.get(1)?;
        let description: String = row.get(2)?;
        let status: String = row.get(3)?;
        let levels = string_list(&row.get::<_, String>(4)?);
        let hit = object(json!({
            "description": description,
            "endedAt": ts(row.get(6)?),
            "experienceLevels": levels,
            "key": key,
            "name": name,
            "startedAt": ts(row.get(5)?),
            "status": status,
        }));
        let mut facets = vec![("idx_status", status)];
        facets.extend(levels.iter().map(|l| ("idx_experience_levels", l.clone())));
        let mut body = levels;
        body.push(name);
        Ok(Doc {
            hit,
            head: vec![description],
            body,
            facets,
            sorts: Vec::new(),
        })
    })
}
