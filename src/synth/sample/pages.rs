//! The records of the frontend's GraphQL pages (docs/data.md, "Records for the
//! frontend's GraphQL pages"), from a random stream of their own drawn after every
//! other record, so adding them changed no earlier record: badges, emails and
//! collaborator counts, leader roles, links and channels, repository labels, pull
//! requests, posts and health metrics.

use std::collections::HashMap;

use super::community::repo_refs;
use super::json::{obj, round2, Obj, J};
use super::pyrandom::PyRandom;
use super::time::{between, day, days, dt, parse_ts, ts, year_month, Instant, DAY, HOUR, NOW};

pub(super) const SEED: u32 = 20_261_123;

#[rustfmt::skip]
const BADGES: [(&str, &str, &str, i64); 6] = [
    ("Project Leader", "Leads one of the community's projects", "fa-crown", 100),
    ("Chapter Leader", "Leads a local chapter", "fa-map-marker", 90),
    ("Committee Member", "Serves on a committee", "fa-users", 80),
    ("Staff", "Works for the foundation", "fa-id-badge", 70),
    ("Top Contributor", "Among the most active contributors of the year", "fa-star", 50),
    ("Speaker", "Spoke at a global event", "fa-microphone", 30),
];

pub(super) fn badges() -> Vec<Obj> {
    BADGES
        .iter()
        .map(|&(n, d, c, w)| obj! { "name" => n, "description" => d, "css_class" => c, "weight" => w })
        .collect()
}

/// Email on about a third of the members; badges on the leaders and a few more.
pub(super) fn add_member_fields(
    rng: &mut PyRandom,
    members: &mut [Obj],
    groups: [(&'static str, &[Obj]); 3],
) {
    let by_login: HashMap<String, usize> = members
        .iter()
        .enumerate()
        .map(|(i, m)| (m.s("login").to_lowercase(), i))
        .collect();
    for (i, m) in members.iter_mut().enumerate() {
        if i % 3 == 0 {
            let email = format!("{}@users.example.org", m.s("login").to_lowercase());
            m.set("email", email);
        }
    }
    let mut holders: Vec<(String, Vec<&str>)> = Vec::new();
    let mut give = |login: &str, badge: &'static str| {
        if login.is_empty() {
            return;
        }
        let login = login.to_lowercase();
        let at = match holders.iter().position(|(l, _)| *l == login) {
            Some(at) => at,
            None => {
                holders.push((login, Vec::new()));
                holders.len() - 1
            }
        };
        if !holders[at].1.contains(&badge) {
            holders[at].1.push(badge);
        }
    };
    for (kind, recs) in groups {
        for r in recs {
            for l in r.arr("leaders") {
                if let J::Obj(l) = l {
                    give(l.s("login"), kind);
                }
            }
        }
    }
    for i in rng.sample_indices(70, 12) {
        give(members[i].s("login"), "Top Contributor");
    }
    for i in rng.sample_indices(70, 5) {
        give(members[i].s("login"), "Speaker");
    }
    for m in &members[..3] {
        give(m.s("login"), "Staff");
    }
    for (login, badges) in holders {
        if let Some(&i) = by_login.get(&login) {
            members[i].set("badges", badges);
        }
    }
}

pub(super) fn add_organization_fields(rng: &mut PyRandom, organizations: &mut [Obj]) {
    for o in organizations {
        if o.truthy("is_affiliated") {
            o.set("collaborators_count", 5 + rng.randrange(0, 400));
            if rng.random() < 0.7 {
                let email = format!("security@{}.example.org", o.s("login").to_lowercase());
                o.set("email", email);
            }
        }
    }
}

const ROLES: [&str; 5] = ["Leader", "Co-leader", "Founder", "Maintainer", ""];

pub(super) fn add_leader_roles(rng: &mut PyRandom, records: &mut [Obj]) {
    for r in records {
        if let Some(J::Arr(leaders)) = r.get_mut("leaders") {
            for (i, l) in leaders.iter_mut().enumerate() {
                let role = if i == 0 { ROLES[0] } else { rng.pick(&ROLES) };
                if let (J::Obj(l), false) = (l, role.is_empty()) {
                    l.set("description", role);
                }
            }
        }
    }
}

/// Related URLs, channels and repositories of chapters, committees and projects.
pub(super) fn add_entity_links(
    rng: &mut PyRandom,
    chapters: &mut [Obj],
    committees: &mut [Obj],
    projects: &mut [Obj],
    repositories: &[Obj],
) {
    let repos: Vec<(String, String)> = repositories
        .iter()
        .map(|r| (r.s("organization").to_string(), r.s("name").to_string()))
        .collect();
    chapter_links(rng, chapters, &repos);
    committee_links(rng, committees, &repos);
    project_links(projects);
}

/// `[{"organization": …, "name": …}, …]` of `k` of `repos`.
fn sampled_refs(rng: &mut PyRandom, repos: &[(String, String)], k: usize) -> Vec<Obj> {
    let picked = rng.sample(repos, k);
    let pairs: Vec<(&str, &str)> = picked
        .iter()
        .map(|(o, n)| (o.as_str(), n.as_str()))
        .collect();
    repo_refs(&pairs)
}

fn slack(name: String, id: usize) -> Obj {
    obj! { "platform" => "slack", "name" => name, "external_id" => format!("C{id:08X}") }
}

fn chapter_links(rng: &mut PyRandom, chapters: &mut [Obj], repos: &[(String, String)]) {
    for (i, c) in chapters.iter_mut().enumerate() {
        let part = c.s("key").trim_start_matches("www-chapter-").to_string();
        if c.active() {
            let (name, country) = (c.s("name"), c.s("country"));
            let place = if country.is_empty() {
                name.to_string()
            } else {
                format!("{name}, {country}")
            };
            c.set("suggested_location", place);
        } else if i % 2 == 0 {
            c.set("suggested_location", J::Null);
        }
        if i % 4 != 3 {
            let mut urls = vec![format!("https://www.meetup.com/community-{part}/")];
            if i % 3 == 0 {
                urls.push(format!(
                    "https://www.linkedin.com/groups/{}/",
                    9_000_000 + i * 37
                ));
            }
            c.set("related_urls", urls);
        }
        if i % 3 != 2 {
            let mut channels = vec![slack(format!("#chapter-{part}"), 0x1A2B3C + i * 977)];
            if i % 5 == 0 {
                channels
                    .push(obj! { "platform" => "discord", "name" => format!("{part}-chapter") });
            }
            c.set("channels", channels);
        }
        if i < 4 {
            c.set("repositories", sampled_refs(rng, &repos[..12], 2));
        }
    }
}

fn committee_links(rng: &mut PyRandom, committees: &mut [Obj], repos: &[(String, String)]) {
    for (i, c) in committees.iter_mut().enumerate() {
        let key = c.s("key").to_string();
        let part = key.trim_start_matches("www-committee-");
        let minutes = format!("https://community.example.org/{key}/minutes/");
        c.set("related_urls", vec![minutes]);
        let channel = slack(format!("#committee-{part}"), 0x2B3C4D + i * 613);
        c.set("channels", vec![channel]);
        if i < 3 {
            c.set("repositories", sampled_refs(rng, &repos[..14], 2 + i));
        }
    }
}

fn project_links(projects: &mut [Obj]) {
    for (i, p) in projects.iter_mut().enumerate() {
        let part = p.s("key").trim_start_matches("www-project-").to_string();
        let mut urls: Vec<String> = p
            .arr("repositories")
            .iter()
            .filter_map(|r| match r {
                J::Obj(r) => Some(format!(
                    "https://github.com/{}/{}",
                    r.s("organization"),
                    r.s("name")
                )),
                _ => None,
            })
            .collect();
        if i % 2 == 0 {
            urls.push(format!("https://{part}.example.org/docs/"));
        }
        if !urls.is_empty() {
            p.set("related_urls", urls);
        }
        if i % 4 != 3 {
            let channel = slack(format!("#project-{part}"), 0x3C4D5E + i * 409);
            p.set("channels", vec![channel]);
        }
    }
}

/// Labels of one repository: a `bug` of its own in two repositories (a second and a
/// third `bug` in the dataset) and juice-shop's `challenge`, which twelve of its
/// issues carry.
pub(super) fn add_repository_labels(rng: &mut PyRandom, labels: &mut Vec<Obj>, issues: &mut [Obj]) {
    #[rustfmt::skip]
    let own = [
        ("juice-labs", "juice-shop", "bug", "ee0701", "Something in the shop is broken", "2021-04-01T09:00:00Z", "2023-02-11T16:20:00Z"),
        ("juice-labs", "juice-shop", "challenge", "5319e7", "About one of the hacking challenges", "2021-04-01T09:00:00Z", "2024-08-19T07:45:00Z"),
        ("appsec-tools", "zap-extensions", "bug", "B60205", "A defect in an add-on", "2022-01-10T12:00:00Z", "2022-01-10T12:00:00Z"),
    ];
    for (org, repo, name, color, desc, created, updated) in own {
        labels.push(obj! {
            "organization" => org, "repository" => repo, "name" => name, "color" => color,
            "description" => desc, "created_at" => created, "updated_at" => updated,
        });
    }
    let shop: Vec<usize> = (0..issues.len())
        .filter(|&i| {
            issues[i].s("organization") == "juice-labs" && issues[i].s("repository") == "juice-shop"
        })
        .collect();
    for i in rng.sample(&shop, 12) {
        let mut labels = issues[i].arr("labels").to_vec();
        labels.push(J::from("challenge"));
        issues[i].set("labels", J::Arr(labels));
    }
}

#[rustfmt::skip]
const PR_VERBS: [&str; 8] = ["Fix", "Add", "Update", "Refactor", "Remove", "Document", "Improve", "Bump"];
#[rustfmt::skip]
const PR_THINGS: [&str; 16] = ["login challenge", "score board", "CSP header handling", "Docker image",
    "translation strings", "CI workflow", "dependency versions", "API rate limiting",
    "report export", "scan policy", "SBOM output", "cheat sheet index",
    "threat model schema", "XSS payload list", "session timeout", "README"];

/// About 80 pull requests over three years (most in the last one): open, closed
/// without merging, and merged; in created_at order.
pub(super) fn pull_requests(
    rng: &mut PyRandom,
    repositories: &[Obj],
    issues: &[Obj],
    logins: &[String],
) -> Vec<Obj> {
    let key = |r: &Obj, name: &str| (r.s("organization").to_string(), r.s(name).to_string());
    let mut last_issue: HashMap<(String, String), i64> = HashMap::new();
    for i in issues {
        let last = last_issue.entry(key(i, "repository")).or_insert(0);
        *last = (*last).max(i.i("number"));
    }
    let active: Vec<(String, String)> = repositories
        .iter()
        .filter(|r| r.s("organization") != "vuln-research-collective")
        .map(|r| key(r, "name"))
        .collect();
    let weights: Vec<u32> = active
        .iter()
        .map(|(o, n)| {
            if n == "juice-shop" {
                6
            } else if o == "appsec-tools" {
                3
            } else {
                1
            }
        })
        .collect();
    let mut next_number: HashMap<(String, String), i64> = HashMap::new();
    let mut out = Vec::new();
    for k in 0..80 {
        let repo = active[rng.weighted(&weights)].clone();
        let last = last_issue.get(&repo).copied();
        let number = next_number
            .get(&repo)
            .copied()
            .unwrap_or(last.unwrap_or(0) + 1);
        next_number.insert(repo.clone(), number + 1 + rng.randrange(0, 3));
        out.push(pull_request(
            rng,
            k,
            (&repo.0, &repo.1, number),
            last,
            &logins[..50],
        ));
    }
    out.sort_by(|a, b| a.s("created_at").cmp(b.s("created_at")));
    out
}

#[rustfmt::skip]
const POST_TOPICS: [&str; 12] = ["Chapter meetups", "Global AppSec", "Juice Shop", "Threat modeling",
    "Supply chain security", "Secure code review", "ASVS", "Mobile security",
    "Cheat sheets", "Project incubation", "Student program", "Volunteering"];
#[rustfmt::skip]
const POST_KINDS: [(&str, &str); 6] = [("What's new in ", ""), ("", ": a look back"), ("Getting started with ", ""),
    ("Call for volunteers: ", ""), ("", " in numbers"), ("Notes from ", "")];
#[rustfmt::skip]
const AUTHORS: [(&str, &str); 5] = [("Lars Eriksson", "https://avatars.example.org/lars.png"),
    ("Chen Jing", ""), ("Amara Okafor", "https://avatars.example.org/amara.png"),
    ("Sofía Martínez", "https://avatars.example.org/sofia.png"),
    ("Kwame Schmidt", "")];

/// The `k`th pull request: `number` of a repository whose last issue is `last`.
fn pull_request(
    rng: &mut PyRandom,
    k: usize,
    (org, name, number): (&str, &str, i64),
    last: Option<i64>,
    logins: &[String],
) -> Obj {
    let lo = if k < 20 {
        day(2023, 11, 1)
    } else {
        day(2025, 11, 20)
    };
    let created = between(rng, lo, NOW - 2 * DAY);
    let kind = rng.random();
    let (verb, thing) = (rng.pick(&PR_VERBS), rng.pick(&PR_THINGS));
    let title = format!("{verb} {thing}");
    let mut r = obj! {
        "organization" => org, "repository" => name, "number" => number, "title" => &title,
    };
    let (updated, closed) = if kind < 0.3 {
        r.set("state", "open");
        (between(rng, created, NOW), None)
    } else {
        r.set("state", "closed");
        let closed = between(rng, created, NOW.min(created + 30 * DAY));
        (
            between(rng, closed, NOW.min(closed + 5 * DAY)),
            Some(closed),
        )
    };
    if rng.random() < 0.5 {
        let closes = 1 + rng.randrange(0, last.unwrap_or(1).max(1));
        r.set(
            "body",
            format!("## What\n\n{title}.\n\n## Why\n\nCloses #{closes}."),
        );
    }
    let author = if k % 17 == 5 {
        J::Null
    } else {
        J::from(rng.pick(logins))
    };
    r.set("author", author);
    r.set(
        "url",
        format!("https://github.com/{org}/{name}/pull/{number}"),
    );
    r.set("created_at", ts(created));
    r.set("updated_at", ts(updated));
    if let Some(closed) = closed {
        r.set("closed_at", ts(closed));
        if kind > 0.45 {
            r.set("merged_at", ts(closed));
        }
    }
    r
}

/// `text` lower-cased, every character that is not a letter or digit a dash, runs of
/// dashes one, none at either end.
pub(super) fn dashed(text: &str) -> String {
    crate::synth::text::dashed_words(text, |c, out| {
        let word = c.is_alphanumeric();
        if word {
            out.extend(c.to_lowercase());
        }
        word
    })
}

/// Three years of the blog, about one post a month.
pub(super) fn posts(rng: &mut PyRandom) -> Vec<Obj> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut at = dt(2023, 12, 4, 9, 0, 0);
    while at < NOW - 3 * DAY {
        let (before, after) = rng.pick(&POST_KINDS);
        let title = format!("{before}{}{after}", rng.pick(&POST_TOPICS));
        let (y, m) = year_month(at);
        let url = format!(
            "https://community.example.org/blog/{y:04}/{m:02}/{}/",
            dashed(&title)
        );
        if seen.insert(url.clone()) {
            let (author, image) = rng.pick(&AUTHORS);
            let created = at - rng.randrange(1, 6) * DAY;
            let mut r = obj! { "title" => &title, "url" => url, "author_name" => author };
            if !image.is_empty() {
                r.set("author_image_url", image);
            }
            r.set("published_at", ts(at));
            r.set("created_at", ts(created));
            r.set("updated_at", ts(at + rng.randrange(0, 48) * HOUR));
            out.push(r);
        }
        at += (20 + rng.randrange(0, 20)) * DAY;
    }
    out
}

/// Twelve monthly measurements of six projects (one of them inactive).
pub(super) fn health_metrics(rng: &mut PyRandom, projects: &[Obj]) -> Vec<Obj> {
    let mut chosen: Vec<&Obj> = projects.iter().filter(|p| p.active()).take(5).collect();
    chosen.extend(projects.iter().filter(|p| !p.active()).take(1));
    let mut out = Vec::new();
    for (n, p) in chosen.into_iter().enumerate() {
        let mut score = 55.0 + 7.0 * n as f64;
        let mut stars = 200 + 900 * (5 - n as i64);
        for month in 0..12u32 {
            let (y, m) = if month == 0 {
                (2025, 12)
            } else {
                (2026, month)
            };
            score = 0f64.max(100f64.min(score + rng.uniform(-6.0, 6.0)));
            stars += rng.randrange(0, 60);
            let at = dt(y, m, 1, 3, 0, 0);
            let value = if n == 4 && month == 3 {
                J::Null
            } else {
                J::Float(round2(score))
            };
            let mut r = obj! {
                "project" => p.s("key"), "created_at" => ts(at), "score" => value,
                "stars_count" => stars, "forks_count" => stars / 5,
                "open_issues_count" => rng.randrange(5, 120),
                "open_pull_requests_count" => rng.randrange(0, 30),
                "unanswered_issues_count" => rng.randrange(0, 15),
                "unassigned_issues_count" => rng.randrange(0, 40),
                "last_commit_days" => rng.randrange(0, 40),
                "last_commit_days_requirement" => 60i64,
                "last_release_days" => rng.randrange(0, 200),
                "last_release_days_requirement" => 180i64,
            };
            add_health_fields(&mut r, parse_ts(p.s("created_at")), at, i64::from(month));
            out.push(r);
        }
    }
    out
}

/// The measurement fields added later, derived from the drawn ones (no draw, so every
/// record drawn after them stays as it was).
fn add_health_fields(r: &mut Obj, created: Instant, measured: Instant, month: i64) {
    let stars = r.i("stars_count");
    let recent = if r.i("last_release_days") < 90 {
        1 + stars % 3
    } else {
        0
    };
    let fields = vec![
        ("contributors_count", J::Int(2 + stars / 40)),
        ("recent_releases_count", J::Int(recent)),
        (
            "total_issues_count",
            J::Int(r.i("open_issues_count") * 3 + stars % 50),
        ),
        ("total_releases_count", J::Int(month + 1 + stars % 20)),
        ("is_funding_requirements_compliant", J::Bool(stars % 7 != 0)),
        ("is_leader_requirements_compliant", J::Bool(stars % 5 != 0)),
        ("age_days", J::Int(days(measured, created).max(0))),
        ("age_days_requirement", J::Int(15)),
        (
            "last_pull_request_days",
            J::Int(r.i("last_commit_days") / 2 + stars % 9),
        ),
        ("last_pull_request_days_requirement", J::Int(30)),
        (
            "owasp_page_last_update_days",
            J::Int((stars + month * 37) % 400),
        ),
        ("owasp_page_last_update_days_requirement", J::Int(90)),
    ];
    for (k, v) in fields {
        r.set(k, v);
    }
}

/// community.json.
pub(super) fn community() -> Obj {
    obj! { "slack_workspace_members" => 31842i64 }
}
