//! Loads a roost dataset in the interchange format (docs/data.md) into a PostgreSQL
//! database laid out like the original service's (`tests/original/schema.sql`), so
//! that `roost db import postgresql://…` can be tested and benchmarked against a real
//! server.
//!
//! ```sh
//! cargo run --release --example original_fixture -- \
//!     --from data/sample --to postgresql://user@127.0.0.1:55432/db
//! ```
//!
//! It reads `--from` as `roost db import` does (every syntax and type error reported),
//! then, in one transaction on a database that does not hold the schema yet, creates
//! the tables of `schema.sql`, writes every table with `COPY … FROM STDIN`, moves each
//! table's id sequence past its largest id and commits. Any error rolls everything
//! back and exits with status 1.
//!
//! Ids: the i-th record of a file (first = 1) has id i in its table; the rows of a
//! link table are numbered in the order the records list them, so `ORDER BY id`
//! gives roost's order back. References are resolved as roost resolves them (natural
//! keys in any case, release tags exactly); one that names nothing is an error naming
//! the record (`issues.jsonl:12: …`). What each file becomes is said where it is
//! written, below; programs and modules are not written (the original keeps them in
//! tables its public dump leaves out).

#[path = "original_fixture/copy.rs"]
mod copy;

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use clap::Parser;
use roost::records::{Channel, Dataset, Leader, Level, Origin, RepositoryRef, Ts};
use roost::store::lc;
use sqlx::postgres::PgConnection;
use sqlx::{AssertSqlSafe, Connection};

use copy::{db_error, Copy};

/// The tables of the original service's schema, as roost's tests use them.
const SCHEMA: &str = include_str!("../tests/original/schema.sql");

/// `django_content_type` ids: what an entity member or channel row belongs to, and
/// what a channel is.
const CHAPTER: i64 = 1;
const COMMITTEE: i64 = 2;
const PROJECT: i64 = 3;
const BOARD: i64 = 4;
const CONVERSATION: i64 = 5;

/// The one chat workspace: every conversation belongs to it.
const WORKSPACE: i64 = 1;

const DAY_MICROS: i64 = 86_400_000_000;

#[derive(Parser)]
#[command(
    about = "Load a roost interchange folder into an empty PostgreSQL database with the \
             original service's schema (tests/original/schema.sql)"
)]
struct Args {
    /// A folder in the interchange format (data/sample, or what `roost db export` writes).
    #[arg(long)]
    from: PathBuf,
    /// The database: postgresql://user@host:port/db (it must not hold the schema yet).
    #[arg(long)]
    to: String,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("original_fixture: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("original_fixture: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &Args) -> Result<()> {
    let started = Instant::now();
    let ds = roost::store::read_dir(&args.from).map_err(|e| {
        let shown: Vec<&str> = e.0.iter().take(50).map(String::as_str).collect();
        anyhow!(
            "{} is not a dataset roost reads ({} error(s)):\n{}",
            args.from.display(),
            e.0.len() + e.1,
            shown.join("\n")
        )
    })?;
    let keys = Keys::new(&ds)?;
    let read = started.elapsed();

    let mut conn = PgConnection::connect(&args.to)
        .await
        .map_err(|e| db_error(&format!("cannot connect to {}", args.to), e))?;
    let taken: bool = sqlx::query_scalar("SELECT to_regclass('github_users') IS NOT NULL")
        .fetch_one(&mut conn)
        .await
        .map_err(|e| db_error("checking the database", e))?;
    if taken {
        bail!(
            "{} already has a github_users table; the fixture is written only into an \
             empty database (drop and create it again)",
            args.to
        );
    }

    let mut tx = conn.begin().await.map_err(|e| db_error("BEGIN", e))?;
    sqlx::raw_sql(SCHEMA)
        .execute(&mut *tx)
        .await
        .map_err(|e| db_error("tests/original/schema.sql", e))?;
    // The foreign keys are checked once each over the whole table when added back,
    // rather than row by row during the COPY (several times faster at scale).
    let foreign_keys: Vec<(String, String)> = sqlx::query_as(
        "SELECT format('ALTER TABLE %s DROP CONSTRAINT %I;', conrelid::regclass, conname), \
                format('ALTER TABLE %s ADD CONSTRAINT %I %s;', conrelid::regclass, conname, \
                       pg_get_constraintdef(oid)) \
         FROM pg_constraint \
         WHERE contype = 'f' AND connamespace = current_schema()::regnamespace \
         ORDER BY conrelid::regclass::text, conname",
    )
    .fetch_all(&mut *tx)
    .await
    .map_err(|e| db_error("listing the foreign keys", e))?;
    let (drop, add): (Vec<String>, Vec<String>) = foreign_keys.into_iter().unzip();
    sqlx::raw_sql(AssertSqlSafe(drop.concat()))
        .execute(&mut *tx)
        .await
        .map_err(|e| db_error("dropping the foreign keys", e))?;
    let counts = write_all(&mut tx, &ds, &keys).await?;
    sqlx::raw_sql(AssertSqlSafe(add.concat()))
        .execute(&mut *tx)
        .await
        .map_err(|e| db_error("adding the foreign keys back", e))?;
    let mut setval = String::new();
    for (table, rows) in &counts {
        if *rows > 0 {
            setval.push_str(&format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table};\n"
            ));
        }
    }
    // Statistics, as a database in service has them, for the queries that read it.
    setval.push_str("ANALYZE;\n");
    sqlx::raw_sql(AssertSqlSafe(setval))
        .execute(&mut *tx)
        .await
        .map_err(|e| db_error("setting the id sequences and analysing", e))?;
    tx.commit().await.map_err(|e| db_error("COMMIT", e))?;

    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    let tables: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
    println!(
        "original_fixture: {total} rows in {:.1} s (read {:.1} s): {}",
        started.elapsed().as_secs_f64(),
        read.as_secs_f64(),
        tables.join(", ")
    );
    Ok(())
}

/// The ids every reference resolves to, by natural key (lower case, release tags
/// exact), built before anything is written.
struct Keys {
    organizations: HashMap<String, i64>,
    users: HashMap<String, i64>,
    badges: HashMap<String, i64>,
    /// (organization id, name)
    repositories: HashMap<(i64, String), i64>,
    /// (repository id, or 0 for a shared label; name)
    labels: HashMap<(i64, String), i64>,
    /// (repository id, number)
    issues: HashMap<(i64, u64), i64>,
    /// (repository id, tag)
    releases: HashMap<(i64, String), i64>,
    chapters: HashMap<String, i64>,
    projects: HashMap<String, i64>,
    /// The level of each project, by id.
    levels: Vec<Level>,
}

/// Ids in file order: record i (0-based) has id i + 1.
fn id(index: usize) -> i64 {
    index as i64 + 1
}

/// `map` with `key` → `value`; a key seen before is an error naming both records.
fn unique<K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, i64>,
    key: K,
    value: i64,
    o: &Origin,
    what: impl FnOnce() -> String,
) -> Result<()> {
    match map.entry(key) {
        Entry::Occupied(first) => bail!(
            "{o}: duplicate {} (first defined by record {})",
            what(),
            first.get()
        ),
        Entry::Vacant(slot) => {
            slot.insert(value);
            Ok(())
        }
    }
}

impl Keys {
    fn new(ds: &Dataset) -> Result<Keys> {
        let mut k = Keys {
            organizations: HashMap::with_capacity(ds.organizations.len()),
            users: HashMap::with_capacity(ds.members.len()),
            badges: HashMap::new(),
            repositories: HashMap::with_capacity(ds.repositories.len()),
            labels: HashMap::with_capacity(ds.labels.len()),
            issues: HashMap::with_capacity(ds.issues.len()),
            releases: HashMap::with_capacity(ds.releases.len()),
            chapters: HashMap::new(),
            projects: HashMap::new(),
            levels: ds.projects.iter().map(|(_, p)| p.level).collect(),
        };
        for (i, (o, r)) in ds.organizations.iter().enumerate() {
            unique(&mut k.organizations, lc(&r.login), id(i), o, || {
                format!("organization login '{}'", r.login)
            })?;
        }
        for (i, (o, r)) in ds.members.iter().enumerate() {
            unique(&mut k.users, lc(&r.login), id(i), o, || {
                format!("member login '{}'", r.login)
            })?;
        }
        for (i, (o, r)) in ds.badges.iter().enumerate() {
            unique(&mut k.badges, lc(&r.name), id(i), o, || {
                format!("badge name '{}'", r.name)
            })?;
        }
        for (i, (o, r)) in ds.repositories.iter().enumerate() {
            let org = k.organization(o, &r.organization)?;
            unique(&mut k.repositories, (org, lc(&r.name)), id(i), o, || {
                format!("repository '{}/{}'", r.organization, r.name)
            })?;
        }
        for (i, (o, r)) in ds.labels.iter().enumerate() {
            let repo = match (&r.organization, &r.repository) {
                (None, None) => 0,
                (Some(org), Some(name)) => k.repository(o, org, name)?,
                _ => {
                    bail!("{o}: a label must name both its organization and repository, or neither")
                }
            };
            unique(&mut k.labels, (repo, lc(&r.name)), id(i), o, || {
                format!("label '{}'", r.name)
            })?;
        }
        for (i, (o, r)) in ds.issues.iter().enumerate() {
            let repo = k.repository(o, &r.organization, &r.repository)?;
            unique(&mut k.issues, (repo, r.number), id(i), o, || {
                format!("issue number {}", r.number)
            })?;
        }
        for (i, (o, r)) in ds.releases.iter().enumerate() {
            let repo = k.repository(o, &r.organization, &r.repository)?;
            unique(
                &mut k.releases,
                (repo, r.tag_name.clone()),
                id(i),
                o,
                || format!("release tag '{}'", r.tag_name),
            )?;
        }
        for (i, (o, r)) in ds.chapters.iter().enumerate() {
            unique(&mut k.chapters, lc(&r.key), id(i), o, || {
                format!("chapter key '{}'", r.key)
            })?;
        }
        for (i, (o, r)) in ds.projects.iter().enumerate() {
            unique(&mut k.projects, lc(&r.key), id(i), o, || {
                format!("project key '{}'", r.key)
            })?;
        }
        Ok(k)
    }

    fn organization(&self, o: &Origin, login: &str) -> Result<i64> {
        self.organizations.get(&lc(login)).copied().ok_or_else(|| {
            anyhow!("{o}: organization '{login}' does not exist in organizations.jsonl")
        })
    }

    fn repository(&self, o: &Origin, organization: &str, name: &str) -> Result<i64> {
        let org = self.organization(o, organization)?;
        self.repositories
            .get(&(org, lc(name)))
            .copied()
            .ok_or_else(|| {
                anyhow!(
                    "{o}: repository '{organization}/{name}' does not exist in \
                     repositories.jsonl"
                )
            })
    }

    fn repository_ref(&self, o: &Origin, r: &RepositoryRef) -> Result<i64> {
        self.repository(o, &r.organization, &r.name)
    }

    fn user(&self, o: &Origin, login: &str) -> Result<i64> {
        self.users
            .get(&lc(login))
            .copied()
            .ok_or_else(|| anyhow!("{o}: member '{login}' does not exist in members.jsonl"))
    }

    fn opt_user(&self, o: &Origin, login: Option<&String>) -> Result<Option<i64>> {
        login.map(|l| self.user(o, l)).transpose()
    }

    fn chapter(&self, o: &Origin, key: &str) -> Result<i64> {
        self.chapters
            .get(&lc(key))
            .copied()
            .ok_or_else(|| anyhow!("{o}: chapter '{key}' does not exist in chapters.jsonl"))
    }

    fn project(&self, o: &Origin, key: &str) -> Result<i64> {
        self.projects
            .get(&lc(key))
            .copied()
            .ok_or_else(|| anyhow!("{o}: project '{key}' does not exist in projects.jsonl"))
    }

    /// A label an issue lists: the label of the issue's repository with that name
    /// first, else the shared label of that name.
    fn label(&self, o: &Origin, repo: i64, name: &str) -> Result<i64> {
        let name_lc = lc(name);
        self.labels
            .get(&(repo, name_lc.clone()))
            .or_else(|| self.labels.get(&(0, name_lc)))
            .copied()
            .ok_or_else(|| {
                anyhow!(
                    "{o}: label '{name}' does not exist in labels.jsonl (neither a label \
                     of the issue's repository nor a shared one)"
                )
            })
    }
}

/// What one table holds: its name and rows.
type Counts = Vec<(&'static str, u64)>;

/// Every table, parents before the rows that reference them.
async fn write_all(conn: &mut PgConnection, ds: &Dataset, k: &Keys) -> Result<Counts> {
    let mut counts = Counts::new();
    content_types(conn, &mut counts).await?;
    users(conn, ds, k, &mut counts).await?;
    repositories(conn, ds, k, &mut counts).await?;
    issues(conn, ds, k, &mut counts).await?;
    entities(conn, ds, k, &mut counts).await?;
    community(conn, ds, k, &mut counts).await?;
    Ok(counts)
}

async fn content_types(conn: &mut PgConnection, counts: &mut Counts) -> Result<()> {
    let mut c = Copy::begin(conn, "django_content_type", "id, app_label, model").await?;
    for (id, app, model) in [
        (CHAPTER, "owasp", "chapter"),
        (COMMITTEE, "owasp", "committee"),
        (PROJECT, "owasp", "project"),
        (BOARD, "owasp", "boardofdirectors"),
        (CONVERSATION, "slack", "conversation"),
    ] {
        c.int(id).text(app).text(model);
        c.end().await?;
    }
    counts.push(c.finish().await?);
    Ok(())
}

/// Organizations, members (users and their profiles), badges and who holds them.
async fn users(conn: &mut PgConnection, ds: &Dataset, k: &Keys, counts: &mut Counts) -> Result<()> {
    // `url` is not a column: the original derives it from the login.
    let mut c = Copy::begin(
        conn,
        "github_organizations",
        "id, login, name, email, avatar_url, company, location, collaborators_count, \
         followers_count, description, is_owasp_related_organization, created_at, updated_at",
    )
    .await?;
    for (i, (_, r)) in ds.organizations.iter().enumerate() {
        c.int(id(i))
            .text(&r.login)
            .text(&r.name)
            .text(&r.email)
            .text(&r.avatar_url)
            .text(&r.company)
            .text(&r.location)
            .uint(r.collaborators_count)
            .uint(r.followers_count)
            .text(&r.description)
            .bool(r.is_affiliated)
            .ts(r.created_at)
            .ts(r.updated_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // `title` and `url` are not columns.
    let mut c = Copy::begin(
        conn,
        "github_users",
        "id, login, name, email, avatar_url, company, location, bio, twitter_username, \
         followers_count, following_count, public_repositories_count, created_at, updated_at",
    )
    .await?;
    for (i, (_, r)) in ds.members.iter().enumerate() {
        c.int(id(i))
            .text(&r.login)
            .text(&r.name)
            .text(&r.email)
            .text(&r.avatar_url)
            .text(&r.company)
            .text(&r.location)
            .text(&r.bio)
            .text(&r.twitter_username)
            .uint(r.followers_count)
            .uint(r.following_count)
            .uint(r.public_repositories_count)
            .ts(r.created_at)
            .ts(r.updated_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // One profile per member, with the member's id.
    let mut c = Copy::begin(
        conn,
        "owasp_member_profiles",
        "id, github_user_id, first_contribution_at, is_owasp_board_member, \
         is_former_owasp_staff, is_gsoc_mentor, linkedin_page_id",
    )
    .await?;
    for (i, (_, r)) in ds.members.iter().enumerate() {
        c.int(id(i))
            .int(id(i))
            .opt_ts(r.first_owasp_contribution_at)
            .bool(r.is_owasp_board_member)
            .bool(r.is_former_owasp_staff)
            .bool(r.is_gsoc_mentor)
            .text(&r.linkedin_page_id);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // The weight is a smallint that is not negative: a negative weight is written as
    // 0, one past 32767 as 32767.
    let mut c = Copy::begin(
        conn,
        "nest_badges",
        "id, name, description, css_class, weight",
    )
    .await?;
    for (i, (_, r)) in ds.badges.iter().enumerate() {
        c.int(id(i))
            .text(&r.name)
            .text(&r.description)
            .text(&r.css_class)
            .int(r.weight.clamp(0, i64::from(i16::MAX)));
        c.end().await?;
    }
    counts.push(c.finish().await?);

    let mut c = Copy::begin(conn, "nest_user_badges", "id, is_active, badge_id, user_id").await?;
    let mut n = 0;
    for (i, (o, r)) in ds.members.iter().enumerate() {
        for name in &r.badges {
            let badge = k
                .badges
                .get(&lc(name))
                .copied()
                .ok_or_else(|| anyhow!("{o}: badge '{name}' does not exist in badges.jsonl"))?;
            n += 1;
            c.int(n).bool(true).int(badge).int(id(i));
            c.end().await?;
        }
    }
    counts.push(c.finish().await?);
    Ok(())
}

/// Repositories, their contributors, labels, milestones and releases.
async fn repositories(
    conn: &mut PgConnection,
    ds: &Dataset,
    k: &Keys,
    counts: &mut Counts,
) -> Result<()> {
    // `key` is the name in lower case; the languages are an object of name → rank,
    // the first the highest, so ordering by value (descending) gives the list back; a
    // repository never pushed was pushed when created; an unknown size is 0; `url`
    // is not a column.
    let mut c = Copy::begin(
        conn,
        "github_repositories",
        "id, name, key, description, languages, license, size, topics, is_archived, \
         commits_count, contributors_count, forks_count, open_issues_count, stars_count, \
         subscribers_count, created_at, updated_at, pushed_at, organization_id, owner_id",
    )
    .await?;
    for (i, (o, r)) in ds.repositories.iter().enumerate() {
        let n = r.languages.len();
        let languages: serde_json::Map<String, serde_json::Value> = r
            .languages
            .iter()
            .enumerate()
            .map(|(j, name)| (name.clone(), serde_json::Value::from(n - j)))
            .collect();
        c.int(id(i))
            .text(&r.name)
            .text(&lc(&r.name))
            .text(r.description.as_deref().unwrap_or(""))
            .json(&languages)
            .text(&r.license)
            .uint(r.size.unwrap_or(0))
            .json(&r.topics)
            .bool(r.is_archived)
            .uint(r.commits_count)
            .uint(r.contributors_count)
            .uint(r.forks_count)
            .uint(r.open_issues_count)
            .uint(r.stars_count)
            .uint(r.subscribers_count)
            .ts(r.created_at)
            .ts(r.updated_at)
            .ts(r.pushed_at.unwrap_or(r.created_at))
            .int(k.organization(o, &r.organization)?)
            .null();
        c.end().await?;
    }
    counts.push(c.finish().await?);

    let mut c = Copy::begin(
        conn,
        "github_repository_contributors",
        "id, contributions_count, repository_id, user_id",
    )
    .await?;
    for (i, (o, r)) in ds.repository_contributors.iter().enumerate() {
        c.int(id(i))
            .uint(r.contributions_count)
            .int(k.repository(o, &r.organization, &r.repository)?)
            .int(k.user(o, &r.member)?);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // A label's repository is not a column: it follows from the issues that carry it.
    let mut c = Copy::begin(
        conn,
        "github_labels",
        "id, name, description, color, nest_created_at, nest_updated_at",
    )
    .await?;
    for (i, (_, r)) in ds.labels.iter().enumerate() {
        c.int(id(i))
            .text(&r.name)
            .text(&r.description)
            .text(&r.color.0)
            .ts(r.created_at)
            .ts(r.updated_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    let mut c = Copy::begin(
        conn,
        "github_milestones",
        "id, title, body, state, url, number, created_at, updated_at, open_issues_count, \
         closed_issues_count, due_on, author_id, repository_id",
    )
    .await?;
    for (i, (o, r)) in ds.milestones.iter().enumerate() {
        c.int(id(i))
            .text(&r.title)
            .text(&r.body)
            .text(r.state.as_str())
            .text(&r.url)
            .uint(r.number)
            .ts(r.created_at)
            .ts(r.updated_at)
            .uint(r.open_issues_count)
            .uint(r.closed_issues_count)
            .opt_ts(r.due_on)
            .opt_int(k.opt_user(o, r.author.as_ref())?)
            .int(k.repository(o, &r.organization, &r.repository)?);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // `url` is not a column.
    let mut c = Copy::begin(
        conn,
        "github_releases",
        "id, name, tag_name, description, is_draft, is_pre_release, created_at, \
         published_at, author_id, repository_id",
    )
    .await?;
    for (i, (o, r)) in ds.releases.iter().enumerate() {
        c.int(id(i))
            .text(&r.name)
            .text(&r.tag_name)
            .text(&r.description)
            .bool(r.is_draft)
            .bool(r.is_pre_release)
            .ts(r.created_at)
            .opt_ts(r.published_at)
            .opt_int(k.opt_user(o, r.author.as_ref())?)
            .int(k.repository(o, &r.organization, &r.repository)?);
        c.end().await?;
    }
    counts.push(c.finish().await?);
    Ok(())
}

/// Issues (with their labels) and pull requests; neither is in a milestone.
async fn issues(
    conn: &mut PgConnection,
    ds: &Dataset,
    k: &Keys,
    counts: &mut Counts,
) -> Result<()> {
    let mut c = Copy::begin(
        conn,
        "github_issues",
        "id, title, body, state, url, number, closed_at, created_at, updated_at, \
         author_id, milestone_id, repository_id",
    )
    .await?;
    // The repository of each issue, for its labels.
    let mut repos = Vec::with_capacity(ds.issues.len());
    for (i, (o, r)) in ds.issues.iter().enumerate() {
        let repo = k.repository(o, &r.organization, &r.repository)?;
        repos.push(repo);
        c.int(id(i))
            .text(&r.title)
            .text(&r.body)
            .text(r.state.as_str())
            .text(&r.url)
            .uint(r.number)
            .opt_ts(r.closed_at)
            .ts(r.created_at)
            .ts(r.updated_at)
            .opt_int(k.opt_user(o, r.author.as_ref())?)
            .null()
            .int(repo);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    let mut c = Copy::begin(conn, "github_issues_labels", "id, issue_id, label_id").await?;
    let mut n = 0;
    for (i, (o, r)) in ds.issues.iter().enumerate() {
        for name in &r.labels {
            n += 1;
            c.int(n).int(id(i)).int(k.label(o, repos[i], name)?);
            c.end().await?;
        }
    }
    counts.push(c.finish().await?);
    drop(repos);

    let mut c = Copy::begin(
        conn,
        "github_pull_requests",
        "id, title, body, state, url, number, closed_at, created_at, updated_at, \
         merged_at, author_id, milestone_id, repository_id",
    )
    .await?;
    for (i, (o, r)) in ds.pull_requests.iter().enumerate() {
        c.int(id(i))
            .text(&r.title)
            .text(&r.body)
            .text(r.state.as_str())
            .text(&r.url)
            .uint(r.number)
            .opt_ts(r.closed_at)
            .ts(r.created_at)
            .ts(r.updated_at)
            .opt_ts(r.merged_at)
            .opt_int(k.opt_user(o, r.author.as_ref())?)
            .null()
            .int(k.repository(o, &r.organization, &r.repository)?);
        c.end().await?;
    }
    counts.push(c.finish().await?);
    Ok(())
}

/// The columns chapters, committees and projects share: name, key, description,
/// summary, is_active, created_at, updated_at, related_urls, owasp_repository_id.
const ENTITY_COLUMNS: &str = "id, name, key, description, summary, is_active, created_at, \
     updated_at, related_urls, owasp_repository_id";

/// Chapters, committees and projects (with a project's repositories), the boards, and
/// the people of all four (`owasp_entity_members`).
async fn entities(
    conn: &mut PgConnection,
    ds: &Dataset,
    k: &Keys,
    counts: &mut Counts,
) -> Result<()> {
    // A chapter has no description; its own repository is the first it lists (the
    // others cannot be held); an unknown suggested location is ''; `url` is not a
    // column. The record's created_at/updated_at are also the row's.
    let mut c = Copy::begin(
        conn,
        "owasp_chapters",
        &format!(
            "{ENTITY_COLUMNS}, country, region, suggested_location, latitude, longitude, \
             nest_created_at, nest_updated_at"
        ),
    )
    .await?;
    for (i, (o, r)) in ds.chapters.iter().enumerate() {
        let repo = r
            .repositories
            .first()
            .map(|x| k.repository_ref(o, x))
            .transpose()?;
        c.int(id(i))
            .text(&r.name)
            .text(&r.key)
            .text("")
            .text(&r.summary)
            .bool(r.is_active)
            .ts(r.created_at)
            .ts(r.updated_at)
            .json(&r.related_urls)
            .opt_int(repo)
            .text(&r.country)
            .text(&r.region)
            .text(r.suggested_location.as_deref().unwrap_or(""))
            .float(r.latitude)
            .float(r.longitude)
            .ts(r.created_at)
            .ts(r.updated_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    let mut c = Copy::begin(
        conn,
        "owasp_committees",
        &format!("{ENTITY_COLUMNS}, nest_created_at, nest_updated_at"),
    )
    .await?;
    for (i, (o, r)) in ds.committees.iter().enumerate() {
        let repo = r
            .repositories
            .first()
            .map(|x| k.repository_ref(o, x))
            .transpose()?;
        c.int(id(i))
            .text(&r.name)
            .text(&r.key)
            .text(&r.description)
            .text(&r.summary)
            .bool(r.is_active)
            .ts(r.created_at)
            .ts(r.updated_at)
            .json(&r.related_urls)
            .opt_int(repo)
            .ts(r.created_at)
            .ts(r.updated_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // A project's repositories are a link table; its owasp_repository_id is NULL.
    let mut c = Copy::begin(
        conn,
        "owasp_projects",
        &format!("{ENTITY_COLUMNS}, level, type, nest_created_at, nest_updated_at"),
    )
    .await?;
    for (i, (_, r)) in ds.projects.iter().enumerate() {
        c.int(id(i))
            .text(&r.name)
            .text(&r.key)
            .text(&r.description)
            .text(&r.summary)
            .bool(r.is_active)
            .ts(r.created_at)
            .ts(r.updated_at)
            .json(&r.related_urls)
            .null()
            .text(r.level.as_str())
            .text(r.kind.as_str())
            .ts(r.created_at)
            .ts(r.updated_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    let mut c = Copy::begin(
        conn,
        "owasp_projects_repositories",
        "id, project_id, repository_id",
    )
    .await?;
    let mut n = 0;
    for (i, (o, r)) in ds.projects.iter().enumerate() {
        for repo in &r.repositories {
            n += 1;
            c.int(n).int(id(i)).int(k.repository_ref(o, repo)?);
            c.end().await?;
        }
    }
    counts.push(c.finish().await?);

    // A board's `url` is not a column.
    let mut c = Copy::begin(
        conn,
        "owasp_board_of_directors",
        "id, year, created_at, updated_at",
    )
    .await?;
    for (i, (_, r)) in ds.boards.iter().enumerate() {
        c.int(id(i)).uint(r.year).ts(r.created_at).ts(r.updated_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // Leaders of chapters, committees and projects, then each board's candidates and
    // members; "order" is the place in the record's list.
    let mut c = Copy::begin(
        conn,
        "owasp_entity_members",
        "id, description, is_active, is_reviewed, member_email, member_name, \"order\", \
         role, member_id, entity_id, entity_type_id",
    )
    .await?;
    let mut people = People { n: 0, k };
    for (i, (o, r)) in ds.chapters.iter().enumerate() {
        people
            .write(&mut c, o, &r.leaders, "leader", CHAPTER, id(i))
            .await?;
    }
    for (i, (o, r)) in ds.committees.iter().enumerate() {
        people
            .write(&mut c, o, &r.leaders, "leader", COMMITTEE, id(i))
            .await?;
    }
    for (i, (o, r)) in ds.projects.iter().enumerate() {
        people
            .write(&mut c, o, &r.leaders, "leader", PROJECT, id(i))
            .await?;
    }
    for (i, (o, r)) in ds.boards.iter().enumerate() {
        people
            .write(&mut c, o, &r.candidates, "candidate", BOARD, id(i))
            .await?;
        people
            .write(&mut c, o, &r.members, "member", BOARD, id(i))
            .await?;
    }
    counts.push(c.finish().await?);
    Ok(())
}

/// Rows of `owasp_entity_members`, numbered across every entity.
struct People<'k> {
    n: i64,
    k: &'k Keys,
}

impl People<'_> {
    async fn write(
        &mut self,
        c: &mut Copy<'_>,
        o: &Origin,
        list: &[Leader],
        role: &str,
        entity_type: i64,
        entity: i64,
    ) -> Result<()> {
        for (order, l) in list.iter().enumerate() {
            self.n += 1;
            c.int(self.n)
                .text(&l.description)
                .bool(true)
                .bool(true)
                .text(&l.email)
                .text(&l.name)
                .int(order as i64)
                .text(role)
                .opt_int(self.k.opt_user(o, l.login.as_ref())?)
                .int(entity)
                .int(entity_type);
            c.end().await?;
        }
        Ok(())
    }
}

/// The chat workspace, its conversations and the entities' channels; events,
/// sponsors, snapshots, posts, project health and member snapshots.
async fn community(
    conn: &mut PgConnection,
    ds: &Dataset,
    k: &Keys,
    counts: &mut Counts,
) -> Result<()> {
    let mut c = Copy::begin(
        conn,
        "slack_workspaces",
        "id, name, slack_workspace_id, total_members_count",
    )
    .await?;
    c.int(WORKSPACE)
        .text("community")
        .text("T00000001")
        .uint(ds.community.slack_workspace_members);
    c.end().await?;
    counts.push(c.finish().await?);

    // Only chat channels on platform `slack` with an id can be held: each distinct id
    // is one conversation (named as where it is first listed), and each entity's
    // channels link to them in the order listed. A conversation listed twice by one
    // entity is linked once.
    let entities = ds
        .chapters
        .iter()
        .enumerate()
        .map(|(i, (_, r))| (CHAPTER, id(i), &r.channels))
        .chain(
            ds.committees
                .iter()
                .enumerate()
                .map(|(i, (_, r))| (COMMITTEE, id(i), &r.channels)),
        )
        .chain(
            ds.projects
                .iter()
                .enumerate()
                .map(|(i, (_, r))| (PROJECT, id(i), &r.channels)),
        );
    let mut conversations: HashMap<&str, i64> = HashMap::new();
    let mut named: Vec<&Channel> = Vec::new();
    let mut links: Vec<(i64, i64, i64)> = Vec::new();
    for (entity_type, entity, channels) in entities {
        let mut linked: Vec<i64> = Vec::new();
        let held = channels
            .iter()
            .filter(|ch| ch.platform == "slack" && !ch.external_id.is_empty());
        for ch in held {
            let next = named.len() as i64 + 1;
            let conversation = *conversations.entry(&ch.external_id).or_insert_with(|| {
                named.push(ch);
                next
            });
            if !linked.contains(&conversation) {
                linked.push(conversation);
                links.push((conversation, entity_type, entity));
            }
        }
    }
    let mut c = Copy::begin(
        conn,
        "slack_conversations",
        "id, name, slack_channel_id, workspace_id",
    )
    .await?;
    for (i, ch) in named.iter().enumerate() {
        c.int(id(i))
            .text(&ch.name)
            .text(&ch.external_id)
            .int(WORKSPACE);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    let mut c = Copy::begin(
        conn,
        "owasp_entity_channels",
        "id, is_active, is_default, is_reviewed, platform, channel_id, channel_type_id, \
         entity_id, entity_type_id",
    )
    .await?;
    for (i, (conversation, entity_type, entity)) in links.iter().enumerate() {
        c.int(id(i))
            .bool(true)
            .bool(false)
            .bool(true)
            .text("slack")
            .int(*conversation)
            .int(CONVERSATION)
            .int(*entity)
            .int(*entity_type);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // A missing url or description is ''.
    let mut c = Copy::begin(
        conn,
        "owasp_events",
        "id, category, name, start_date, end_date, description, key, summary, \
         suggested_location, url, latitude, longitude",
    )
    .await?;
    for (i, (_, r)) in ds.events.iter().enumerate() {
        c.int(id(i))
            .text(r.category.as_str())
            .text(&r.name)
            .text(&r.start_date.0);
        match &r.end_date {
            Some(d) => c.text(&d.0),
            None => c.null(),
        };
        c.text(r.description.as_deref().unwrap_or(""))
            .text(&r.key)
            .text(&r.summary)
            .text(&r.suggested_location)
            .text(r.url.as_deref().unwrap_or(""))
            .float(r.latitude)
            .float(r.longitude);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // Sponsors sort by their name.
    let mut c = Copy::begin(
        conn,
        "owasp_sponsors",
        "id, description, key, name, sort_name, url, job_url, image_url, is_member, \
         member_type, sponsor_type",
    )
    .await?;
    for (i, (_, r)) in ds.sponsors.iter().enumerate() {
        c.int(id(i))
            .text(&r.description)
            .text(&r.key)
            .text(&r.name)
            .text(&r.name)
            .text(&r.url)
            .text(&r.job_url)
            .text(&r.image_url)
            .bool(r.is_member)
            .text(r.member_type.as_str())
            .text(r.sponsor_type.as_str());
        c.end().await?;
    }
    counts.push(c.finish().await?);

    snapshots(conn, ds, k, counts).await?;

    let mut c = Copy::begin(
        conn,
        "owasp_posts",
        "id, author_image_url, author_name, published_at, title, url, nest_created_at, \
         nest_updated_at",
    )
    .await?;
    for (i, (_, r)) in ds.posts.iter().enumerate() {
        c.int(id(i))
            .text(&r.author_image_url)
            .text(&r.author_name)
            .ts(r.published_at)
            .text(&r.title)
            .text(&r.url)
            .ts(r.created_at)
            .ts(r.updated_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    health(conn, ds, k, counts).await?;
    member_snapshots(conn, ds, k, counts).await?;
    Ok(())
}

/// Snapshots and what each lists as new.
async fn snapshots(
    conn: &mut PgConnection,
    ds: &Dataset,
    k: &Keys,
    counts: &mut Counts,
) -> Result<()> {
    let mut c = Copy::begin(
        conn,
        "owasp_snapshots",
        "id, title, key, created_at, updated_at, start_at, end_at, status",
    )
    .await?;
    for (i, (_, r)) in ds.snapshots.iter().enumerate() {
        c.int(id(i))
            .text(&r.title)
            .text(&r.key)
            .ts(r.created_at)
            .ts(r.updated_at)
            .ts(r.start_at)
            .ts(r.end_at)
            .text(r.status.as_str());
        c.end().await?;
    }
    counts.push(c.finish().await?);

    type Resolve<'a> = &'a dyn Fn(&Origin, &roost::records::Snapshot) -> Result<Vec<i64>>;
    let lists: [(&'static str, &str, Resolve); 5] = [
        ("owasp_snapshots_new_chapters", "chapter_id", &|o, r| {
            r.new_chapters.iter().map(|key| k.chapter(o, key)).collect()
        }),
        ("owasp_snapshots_new_projects", "project_id", &|o, r| {
            r.new_projects.iter().map(|key| k.project(o, key)).collect()
        }),
        ("owasp_snapshots_new_users", "user_id", &|o, r| {
            r.new_members.iter().map(|login| k.user(o, login)).collect()
        }),
        ("owasp_snapshots_new_issues", "issue_id", &|o, r| {
            r.new_issues
                .iter()
                .map(|x| {
                    let repo = k.repository(o, &x.organization, &x.repository)?;
                    k.issues.get(&(repo, x.number)).copied().ok_or_else(|| {
                        anyhow!(
                            "{o}: issue '{}/{}#{}' does not exist in issues.jsonl",
                            x.organization,
                            x.repository,
                            x.number
                        )
                    })
                })
                .collect()
        }),
        ("owasp_snapshots_new_releases", "release_id", &|o, r| {
            r.new_releases
                .iter()
                .map(|x| {
                    let repo = k.repository(o, &x.organization, &x.repository)?;
                    k.releases
                        .get(&(repo, x.tag_name.clone()))
                        .copied()
                        .ok_or_else(|| {
                            anyhow!(
                                "{o}: release '{}/{}@{}' does not exist in releases.jsonl",
                                x.organization,
                                x.repository,
                                x.tag_name
                            )
                        })
                })
                .collect()
        }),
    ];
    for (table, column, resolve) in lists {
        let mut c = Copy::begin(conn, table, &format!("id, snapshot_id, {column}")).await?;
        let mut n = 0;
        for (i, (o, r)) in ds.snapshots.iter().enumerate() {
            for target in resolve(o, r)? {
                n += 1;
                c.int(n).int(id(i)).int(target);
                c.end().await?;
            }
        }
        counts.push(c.finish().await?);
    }
    Ok(())
}

/// `t` less `days` days.
fn days_before(o: &Origin, t: Ts, days: u64) -> Result<Ts> {
    i64::try_from(days)
        .ok()
        .and_then(|d| d.checked_mul(DAY_MICROS))
        .and_then(|d| t.0.checked_sub(d))
        .map(Ts)
        .ok_or_else(|| anyhow!("{o}: {days} days before {t} is out of range"))
}

/// Project health: the original keeps instants where roost keeps ages in days, and
/// the requirements per project level in their own table.
async fn health(
    conn: &mut PgConnection,
    ds: &Dataset,
    k: &Keys,
    counts: &mut Counts,
) -> Result<()> {
    // One requirements row per level, from the first measurement of a project of
    // that level.
    let mut c = Copy::begin(
        conn,
        "owasp_project_health_requirements",
        "id, level, age_days, last_release_days, last_commit_days, \
         owasp_page_last_update_days, last_pull_request_days",
    )
    .await?;
    let mut levels: Vec<Level> = Vec::new();
    let mut projects = Vec::with_capacity(ds.project_health_metrics.len());
    for (o, r) in &ds.project_health_metrics {
        let project = k.project(o, &r.project)?;
        projects.push(project);
        let level = k.levels[project as usize - 1];
        if levels.contains(&level) {
            continue;
        }
        levels.push(level);
        c.int(levels.len() as i64)
            .text(level.as_str())
            .uint(r.age_days_requirement)
            .uint(r.last_release_days_requirement)
            .uint(r.last_commit_days_requirement)
            .uint(r.owasp_page_last_update_days_requirement)
            .uint(r.last_pull_request_days_requirement);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    // The measurement's instant M is nest_created_at; created_at is M less the
    // project's age, and each "days since" is M less that many days.
    let mut c = Copy::begin(
        conn,
        "owasp_project_health_metrics",
        "id, project_id, contributors_count, created_at, forks_count, \
         is_funding_requirements_compliant, is_leader_requirements_compliant, \
         last_released_at, last_committed_at, open_issues_count, open_pull_requests_count, \
         owasp_page_last_updated_at, pull_request_last_created_at, recent_releases_count, \
         score, stars_count, total_issues_count, total_releases_count, \
         unanswered_issues_count, unassigned_issues_count, nest_created_at",
    )
    .await?;
    for (i, (o, r)) in ds.project_health_metrics.iter().enumerate() {
        let m = r.created_at;
        c.int(id(i))
            .int(projects[i])
            .uint(r.contributors_count)
            .ts(days_before(o, m, r.age_days)?)
            .uint(r.forks_count)
            .bool(r.is_funding_requirements_compliant)
            .bool(r.is_leader_requirements_compliant)
            .ts(days_before(o, m, r.last_release_days)?)
            .ts(days_before(o, m, r.last_commit_days)?)
            .uint(r.open_issues_count)
            .uint(r.open_pull_requests_count)
            .ts(days_before(o, m, r.owasp_page_last_update_days)?)
            .ts(days_before(o, m, r.last_pull_request_days)?)
            .uint(r.recent_releases_count)
            .float(r.score)
            .uint(r.stars_count)
            .uint(r.total_issues_count)
            .uint(r.total_releases_count)
            .uint(r.unanswered_issues_count)
            .uint(r.unassigned_issues_count)
            .ts(m);
        c.end().await?;
    }
    counts.push(c.finish().await?);
    Ok(())
}

/// Member snapshots. The original counts a snapshot's commits, issues, pull requests
/// and messages as links; the fixture holds none of those records, so a count of n is
/// n links to the ids 1..=n.
async fn member_snapshots(
    conn: &mut PgConnection,
    ds: &Dataset,
    k: &Keys,
    counts: &mut Counts,
) -> Result<()> {
    let mut c = Copy::begin(
        conn,
        "owasp_member_snapshots",
        "id, chapter_contributions, contribution_heatmap_data, project_contributions, \
         repository_contributions, communication_heatmap_data, channel_communications, \
         github_user_id, start_at, end_at",
    )
    .await?;
    for (i, (o, r)) in ds.member_snapshots.iter().enumerate() {
        c.int(id(i))
            .json(&r.chapter_contributions.0)
            .json(&r.contribution_heatmap_data.0)
            .json(&r.project_contributions.0)
            .json(&r.repository_contributions.0)
            .json(&r.communication_heatmap_data.0)
            .json(&r.channel_communications.0)
            .int(k.user(o, &r.member)?)
            .ts(r.start_at)
            .ts(r.end_at);
        c.end().await?;
    }
    counts.push(c.finish().await?);

    type Count = fn(&roost::records::MemberSnapshot) -> u64;
    let links: [(&'static str, &str, Count); 4] = [
        ("owasp_member_snapshots_commits", "commit_id", |r| {
            r.commits_count
        }),
        ("owasp_member_snapshots_issues", "issue_id", |r| {
            r.issues_count
        }),
        (
            "owasp_member_snapshots_pull_requests",
            "pullrequest_id",
            |r| r.pull_requests_count,
        ),
        ("owasp_member_snapshots_messages", "message_id", |r| {
            r.messages_count
        }),
    ];
    for (table, column, count) in links {
        let mut c = Copy::begin(conn, table, &format!("id, membersnapshot_id, {column}")).await?;
        let mut n = 0;
        for (i, (_, r)) in ds.member_snapshots.iter().enumerate() {
            for target in 1..=count(r) {
                n += 1;
                c.int(n).int(id(i)).uint(target);
                c.end().await?;
            }
        }
        counts.push(c.finish().await?);
    }
    Ok(())
}
