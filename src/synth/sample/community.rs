//! Chapters, committees and projects (with their leaders), from the older files'
//! stream; from the second stream (`super::second_stream`): the leaders' roles and the
//! entities' links ([`links`]), the blog's posts, the projects' health measurements;
//! and the community-wide values; from the third stream, the community's own platform
//! project ([`platform`]).

use std::collections::HashMap;

use super::json::{obj, round2, Obj, J};
use super::pyrandom::PyRandom;
use super::time::{
    day, days, dt, later, parse_ts, rand_dt, ts, year_month, Instant, DAY, HOUR, NOW,
};
use super::{dashed, slug};

mod links;
mod platform;

pub(super) use links::{add_entity_links, add_leader_roles};
pub(super) use platform::{add_platform_project, Platform};

#[rustfmt::skip]
const CHAPTERS: [(&str, &str, &str, f64, f64); 43] = [
    ("London", "United Kingdom", "Europe", 51.5074, -0.1278),
    ("Manchester", "United Kingdom", "Europe", 53.4808, -2.2426),
    ("Edinburgh", "United Kingdom", "Europe", 55.9533, -3.1883),
    ("Bangalore", "India", "Asia", 12.9716, 77.5946),
    ("Delhi", "India", "Asia", 28.6139, 77.209),
    ("Mumbai", "India", "Asia", 19.076, 72.8777),
    ("Pune", "India", "Asia", 18.5204, 73.8567),
    ("Hyderabad", "India", "Asia", 17.385, 78.4867),
    ("São Paulo", "Brazil", "South America", -23.5505, -46.6333),
    ("Rio de Janeiro", "Brazil", "South America", -22.9068, -43.1729),
    ("Brasília", "Brazil", "South America", -15.7939, -47.8828),
    ("New York City", "United States", "North America", 40.7128, -74.006),
    ("San Francisco", "United States", "North America", 37.7749, -122.4194),
    ("Austin", "United States", "North America", 30.2672, -97.7431),
    ("Boston", "United States", "North America", 42.3601, -71.0589),
    ("Seattle", "United States", "North America", 47.6062, -122.3321),
    ("Zürich", "Switzerland", "Europe", 47.3769, 8.5417),
    ("Geneva", "Switzerland", "Europe", 46.2044, 6.1432),
    ("Tokyo", "Japan", "Asia", 35.6762, 139.6503),
    ("Osaka", "Japan", "Asia", 34.6937, 135.5023),
    ("Lagos", "Nigeria", "Africa", 6.5244, 3.3792),
    ("Abuja", "Nigeria", "Africa", 9.0765, 7.3986),
    ("Nairobi", "Kenya", "Africa", -1.2921, 36.8219),
    ("Cape Town", "South Africa", "Africa", -33.9249, 18.4241),
    ("Johannesburg", "South Africa", "Africa", -26.2041, 28.0473),
    ("Sydney", "Australia", "Oceania", -33.8688, 151.2093),
    ("Melbourne", "Australia", "Oceania", -37.8136, 144.9631),
    ("Auckland", "New Zealand", "Oceania", -36.8485, 174.7633),
    ("Berlin", "Germany", "Europe", 52.52, 13.405),
    ("Munich", "Germany", "Europe", 48.1351, 11.582),
    ("Paris", "France", "Europe", 48.8566, 2.3522),
    ("Madrid", "Spain", "Europe", 40.4168, -3.7038),
    ("Barcelona", "Spain", "Europe", 41.3874, 2.1686),
    ("Stockholm", "Sweden", "Europe", 59.3293, 18.0686),
    ("Kraków", "Poland", "Europe", 50.0647, 19.945),
    ("Toronto", "Canada", "North America", 43.6532, -79.3832),
    ("Montréal", "Canada", "North America", 45.5019, -73.5674),
    ("Mexico City", "Mexico", "North America", 19.4326, -99.1332),
    ("Buenos Aires", "Argentina", "South America", -34.6037, -58.3816),
    ("Quito", "Ecuador", "South America", -0.1807, -78.4678),
    ("Singapore", "Singapore", "Asia", 1.3521, 103.8198),
    ("Tel Aviv", "Israel", "Asia", 32.0853, 34.7818),
    ("İstanbul", "Türkiye", "Europe", 41.0082, 28.9784),
];
const INACTIVE_CHAPTERS: [&str; 3] = ["Montréal", "Brasília", "Osaka"];
const NO_COORD_CHAPTERS: [&str; 4] = ["Hyderabad", "Austin", "Abuja", "Quito"];
#[rustfmt::skip]
const EXTERNAL_LEADERS: [&str; 12] = ["Maria Gonçalves", "John O'Neil", "Chen Jing", "Fatou Diallo", "Rafael Ortiz",
    "Hannah Becker", "Arnav Mehta", "Sophie Martin", "Kenta Watanabe",
    "Olumide Bakare", "Grace Mwangi", "Lars Eriksson"];

/// Members' names by login (a member without a name is named by its login).
pub(super) type Names = HashMap<String, String>;

/// Up to `n` leaders: members (by login) or people without an account, none twice.
fn leaders(rng: &mut PyRandom, names: &Names, logins: &[String], n: i64) -> Vec<Obj> {
    let mut leaders: Vec<Obj> = Vec::new();
    for _ in 0..n {
        if rng.random() < 0.65 {
            let login = rng.pick(logins);
            leaders.push(obj! { "name" => &names[&login], "login" => login });
        } else {
            let name = rng.pick(&EXTERNAL_LEADERS);
            if leaders.iter().any(|l| l.s("name") == name) {
                continue;
            }
            leaders.push(if rng.random() < 0.5 {
                obj! { "name" => name, "login" => J::Null }
            } else {
                obj! { "name" => name }
            });
        }
    }
    let mut seen = std::collections::HashSet::new();
    leaders.retain(|l| {
        let login = l.s("login").to_lowercase();
        let key = if login.is_empty() {
            format!("name:{}", l.s("name"))
        } else {
            login
        };
        seen.insert(key)
    });
    leaders
}

fn summary(rng: &mut PyRandom, name: &str, country: &str) -> String {
    let choices = [
        format!("The {name} chapter meets monthly to talk about application security."),
        format!("Local community of developers, testers and defenders in {name}."),
        format!("Free and open meetups, workshops and CTF nights in {name}, {country}."),
    ];
    rng.pick(&choices)
}

pub(super) fn chapters(rng: &mut PyRandom, names: &Names, logins: &[String]) -> Vec<Obj> {
    let mut out = Vec::new();
    let tie = day(2019, 4, 1);
    for (i, &(name, country, region, lat, lon)) in CHAPTERS.iter().enumerate() {
        let key = format!("www-chapter-{}", slug(name));
        let created = if ["Pune", "Lagos", "Kraków", "Quito"].contains(&name) {
            tie // exercises: created_at ties (the migration day)
        } else {
            rand_dt(rng, day(2010, 1, 1), day(2025, 6, 1))
        };
        let mut r = obj! { "key" => &key, "name" => name };
        if INACTIVE_CHAPTERS.contains(&name) {
            r.set("is_active", false);
        } else if i % 3 == 0 {
            r.set("is_active", true);
        }
        r.set("country", country);
        r.set("region", region);
        if NO_COORD_CHAPTERS.contains(&name) {
            if name != "Quito" {
                r.set("latitude", J::Null);
                r.set("longitude", J::Null);
            } // Quito: both omitted (null)
        } else {
            r.set("latitude", lat);
            r.set("longitude", lon);
        }
        r.set("summary", summary(rng, name, country));
        r.set("url", format!("https://community.example.org/{key}/"));
        let n = rng.pick(&[0, 1, 2, 2, 3]);
        let leaders = leaders(rng, names, logins, n);
        if !leaders.is_empty() {
            r.set("leaders", leaders);
        }
        r.set("created_at", ts(created));
        r.set("updated_at", ts(later(rng, created, 700, 60)));
        out.push(r);
    }
    out
}

#[rustfmt::skip]
const COMMITTEES: [(&str, &str, bool); 8] = [
    ("Chapter Committee", "Supports chapter leaders and approves new chapters.", true),
    ("Project Committee", "Reviews project applications and level promotions.", true),
    ("Education and Training Committee", "Curates training material for the community.", true),
    ("Events Committee", "Plans the global conferences and regional AppSec Days.", true),
    ("Membership Committee", "Represents members and improves member benefits.", true),
    ("Compliance Committee", "Merged into the Governance Committee in 2023.", false),
    ("Diversity and Inclusion Committee", "Makes the community welcoming for everyone.", true),
    ("Governance Committee", "Keeps the bylaws and policies up to date.", true),
];

pub(super) fn committees(rng: &mut PyRandom, names: &Names, logins: &[String]) -> Vec<Obj> {
    let mut out = Vec::new();
    for (i, &(name, desc, active)) in COMMITTEES.iter().enumerate() {
        let created = if i < 2 {
            day(2016, 1, 1)
        } else {
            rand_dt(rng, day(2016, 1, 1), day(2024, 1, 1))
        };
        let key = format!("www-committee-{}", slug(&name.replace(" Committee", "")));
        let mut r = obj! { "key" => &key, "name" => name };
        if !active {
            r.set("is_active", false);
        }
        r.set(
            "description",
            format!("{desc}\n\nMeetings are public; minutes are published on the wiki."),
        );
        r.set("summary", desc);
        r.set("url", format!("https://community.example.org/{key}/"));
        let n = rng.pick(&[1, 2, 3]);
        r.set("leaders", leaders(rng, names, logins, n));
        r.set("created_at", ts(created));
        r.set("updated_at", ts(later(rng, created, 900, 60)));
        out.push(r);
    }
    out
}

type Project = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    bool,
);

#[rustfmt::skip]
const PROJECTS: [Project; 40] = [
    ("Juice Shop", "flagship", "tool", &[("juice-labs", "juice-shop"), ("juice-labs", "juice-shop-ctf")], true),
    ("ZAP", "flagship", "tool", &[("appsec-tools", "zap-extensions")], true),
    ("Dependency Check", "flagship", "tool", &[("appsec-tools", "dependency-check")], true),
    ("Cheat Sheet Series", "flagship", "documentation", &[("securecodeorg", "cheatsheets")], true),
    ("Application Security Verification Standard", "flagship", "documentation", &[("securecodeorg", "asvs")], true),
    ("Top 10", "flagship", "documentation", &[("securecodeorg", "top-ten")], true),
    ("Web Security Testing Guide", "flagship", "documentation", &[("SecDocs-Community", "wstg")], true),
    ("Mobile Application Security", "flagship", "documentation", &[("SecDocs-Community", "mastg")], true),
    ("Amass", "flagship", "tool", &[("appsec-tools", "amass")], true),
    ("DefectDojo", "flagship", "tool", &[], true),
    ("SAMM", "flagship", "documentation", &[], true),
    ("Dependency Track", "flagship", "tool", &[], true),
    ("Threat Dragon", "production", "tool", &[("threatmodel-hub", "threat-dragon")], true),
    ("Pwning Juice Shop", "production", "documentation", &[("juice-labs", "pwning-juice-shop")], true),
    ("CycloneDX", "production", "code", &[], true),
    ("WebGoat", "production", "code", &[], true),
    ("Security Shepherd", "production", "tool", &[], true),
    ("ModSecurity Core Rule Set", "production", "code", &[], true),
    ("Java HTML Sanitizer", "production", "code", &[], true),
    ("Cornucopia", "production", "other", &[], true),
    ("Enterprise Security API", "production", "code", &[], false),
    ("Vulnerability Advisories Archive", "lab", "other", &[("vuln-research-collective", "advisories"), ("vuln-research-collective", "scratch")], true),
    ("Threat Modeling Docs", "lab", "documentation", &[("threatmodel-hub", "Docs")], true),
    ("Security Knowledge Framework", "lab", "documentation", &[], true),
    ("API Security Top 10", "lab", "documentation", &[], true),
    ("Threat Model Cookbook", "lab", "other", &[], true),
    ("Mobile Top 10", "lab", "documentation", &[], true),
    ("Guía de Seguridad Móvil", "lab", "documentation", &[], true),
    ("WebScarab", "lab", "tool", &[], false),
    ("CryptoGuard", "incubator", "code", &[("cryptoguard-dev", "cryptoguard")], true),
    ("Secure Coding Docs", "incubator", "documentation", &[("securecodeorg", "docs")], true),
    ("Nettacker", "incubator", "tool", &[], true),
    ("Honeypot", "incubator", "code", &[], true),
    ("SecureTea", "incubator", "tool", &[], true),
    ("AppSec Podcast", "incubator", "other", &[], true),
    ("Software Component Verification Standard", "incubator", "documentation", &[], true),
    ("Serverless Goat", "demo", "code", &[], true),
    ("Damn Vulnerable Web Sockets", "demo", "code", &[], true),
    ("Bug Logging Tool", "demo", "tool", &[], true),
    ("Snakes and Ladders", "demo", "other", &[], true),
];

/// `[{"organization": …, "name": …}, …]`.
pub(super) fn repo_refs(repos: &[(&str, &str)]) -> Vec<Obj> {
    repos
        .iter()
        .map(|(o, n)| obj! { "organization" => *o, "name" => *n })
        .collect()
}

pub(super) fn projects(rng: &mut PyRandom, names: &Names, logins: &[String]) -> Vec<Obj> {
    let mut out = Vec::new();
    for &(name, level, typ, repos, active) in &PROJECTS {
        let created: Instant = if ["Top 10", "SAMM", "Nettacker"].contains(&name) {
            dt(2020, 2, 2, 20, 20, 20) // exercises: created_at ties
        } else {
            rand_dt(rng, day(2012, 1, 1), day(2025, 9, 1))
        };
        let key = format!("www-project-{}", slug(name));
        let mut r = obj! { "key" => &key, "name" => name };
        if !active {
            r.set("is_active", false);
        }
        r.set("level", level);
        r.set("type", typ);
        r.set(
            "description",
            format!(
                "{name} is a {level}-level {typ} project of the community.\n\n\
                 It is maintained by volunteers; contributions are welcome."
            ),
        );
        r.set("summary", format!("{name}: a {typ} project."));
        r.set("url", format!("https://community.example.org/{key}/"));
        let n = rng.pick(&[1, 1, 2, 3]);
        let leaders = leaders(rng, names, logins, n);
        if !leaders.is_empty() {
            r.set("leaders", leaders);
        }
        if !repos.is_empty() {
            r.set("repositories", repo_refs(repos));
        }
        r.set("created_at", ts(created));
        r.set("updated_at", ts(later(rng, created, 800, 60)));
        out.push(r);
    }
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
