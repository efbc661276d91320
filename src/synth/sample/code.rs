//! Repositories, milestones and releases, from the older files' stream; the labels of
//! single repositories, drawn from the second stream (`super::second_stream`).

use std::collections::HashMap;

use super::json::{obj, Obj, J};
use super::people::created;
use super::pyrandom::PyRandom;
use super::time::{day, dt, later, parse_ts, rand_dt, ts, Instant, DAY, HOUR, NOW, SECOND};

/// A repository of the sample.
pub(super) struct Repo {
    pub org: &'static str,
    pub name: &'static str,
    /// `None`: written as null; `Some("")`: omitted.
    desc: Option<&'static str>,
    stars: i64,
    forks: i64,
    license: &'static str,
    topics: &'static [&'static str],
    languages: &'static [&'static str],
    created: (i32, u32, u32, u32, u32, u32),
    archived: bool,
}

impl Repo {
    fn created(&self) -> Instant {
        let (y, mo, d, h, mi, s) = self.created;
        dt(y, mo, d, h, mi, s)
    }
}

macro_rules! repo {
    ($org:expr, $name:expr, $desc:expr, $stars:expr, $forks:expr, $lic:expr, $topics:expr,
     $langs:expr, $created:expr, $archived:expr) => {
        Repo {
            org: $org,
            name: $name,
            desc: $desc,
            stars: $stars,
            forks: $forks,
            license: $lic,
            topics: &$topics,
            languages: &$langs,
            created: $created,
            archived: $archived,
        }
    };
}

#[rustfmt::skip]
pub(super) const REPOS: [Repo; 17] = [
    repo!("securecodeorg", "cheatsheets", Some("Concise, actionable application security guidance."), 27400, 3900, "CC-BY-SA-4.0", ["security", "cheatsheet", "appsec"], ["Python", "Shell"], (2018, 12, 17, 10, 2, 11), false),
    repo!("securecodeorg", "asvs", Some("Application Security Verification Standard."), 2500, 600, "CC-BY-SA-4.0", ["standard", "verification"], ["Python", "TeX"], (2015, 7, 2, 8, 0, 0), false),
    // exercises: created_at tie with asvs
    repo!("securecodeorg", "top-ten", Some("The Top 10 web application security risks."), 2500, 600, "CC-BY-SA-4.0", ["top10", "awareness"], ["HTML", "JavaScript"], (2015, 7, 2, 8, 0, 0), false),
    repo!("securecodeorg", "docs", None, 12, 9, "CC-BY-4.0", [], ["Markdown"], (2021, 1, 4, 9, 0, 0), false),
    repo!("juice-labs", "juice-shop", Some("Probably the most modern and sophisticated insecure web application"), 10000, 2500, "MIT", ["ctf", "hacking", "vulnerable", "owasp-like", "training"], ["TypeScript", "JavaScript", "HTML", "SCSS", "Dockerfile"], (2014, 9, 1, 20, 6, 41), false),
    repo!("juice-labs", "juice-shop-ctf", Some("Capture-the-flag environment setup tool for Juice Shop."), 500, 100, "MIT", ["ctf", "cli"], ["TypeScript"], (2016, 10, 5, 9, 30, 0), false),
    repo!("juice-labs", "pwning-juice-shop", Some("Official companion guide to Juice Shop."), 180, 95, "CC-BY-NC-ND-4.0", ["book", "guide"], ["Markdown"], (2017, 1, 20, 14, 0, 0), true),
    repo!("threatmodel-hub", "threat-dragon", Some("A threat modeling tool for diagrams and reports."), 1050, 280, "Apache-2.0", ["threat-modeling", "diagram", "electron"], ["JavaScript", "Vue", "CSS"], (2017, 6, 20, 10, 11, 12), false),
    // exercises: repository name "docs" in two orgs
    repo!("threatmodel-hub", "Docs", Some(""), 40, 22, "CC-BY-4.0", ["documentation"], [], (2021, 1, 4, 9, 0, 0), false),
    repo!("appsec-tools", "zap-extensions", Some("Add-ons for the Zed Attack Proxy."), 10500, 2900, "Apache-2.0", ["dast", "proxy", "scanner"], ["Java", "Kotlin", "JavaScript"], (2015, 3, 3, 3, 3, 3), false),
    repo!("appsec-tools", "dependency-check", Some("Software composition analysis for known vulnerable dependencies."), 6900, 1300, "Apache-2.0", ["sca", "sbom", "cve"], ["Java", "Shell"], (2013, 6, 1, 18, 40, 2), false),
    repo!("appsec-tools", "amass", Some("In-depth attack surface mapping and asset discovery."), 11800, 1900, "Apache-2.0", ["recon", "osint", "dns"], ["Go"], (2018, 7, 9, 22, 13, 54), false),
    repo!("SecDocs-Community", "wstg", Some("Web Security Testing Guide."), 2500, 450, "CC-BY-SA-4.0", ["testing", "guide"], ["Markdown", "Python"], (2019, 1, 22, 16, 0, 0), false),
    repo!("SecDocs-Community", "mastg", Some("Mobile Application Security Testing Guide."), 11400, 2300, "CC-BY-SA-4.0", ["mobile", "android", "ios"], ["Python", "Kotlin", "Swift"], (2016, 8, 30, 7, 50, 0), false),
    repo!("cryptoguard-dev", "cryptoguard", Some("Detects misuse of cryptographic APIs in Java and Android."), 210, 35, "GPL-3.0", ["static-analysis", "crypto"], ["Java"], (2019, 11, 6, 11, 0, 0), false),
    repo!("vuln-research-collective", "advisories", None, 0, 0, "", [], [], (2020, 4, 2, 0, 0, 0), false),
    repo!("vuln-research-collective", "scratch", Some("Empty repository kept for experiments."), 3, 0, "", [], [], (2020, 4, 2, 0, 0, 0), false),
];

/// The repositories; their counts follow the issues and contributors drawn before.
pub(super) fn repositories(
    rng: &mut PyRandom,
    issues: &[Obj],
    contributors: &HashMap<(String, String), i64>,
) -> Vec<Obj> {
    let mut out = Vec::new();
    for repo in &REPOS {
        let (org, name) = (repo.org, repo.name);
        let created = repo.created();
        let mut r = obj! { "organization" => org, "name" => name };
        match repo.desc {
            None => r.set("description", J::Null),
            Some("") => {}
            Some(d) => r.set("description", d),
        }
        r.set("url", format!("https://github.com/{org}/{name}"));
        let commits = if name == "scratch" {
            0
        } else {
            20.max(repo.stars / 3 + rng.randint(0, 4000))
        };
        r.set("commits_count", commits);
        let known = contributors
            .get(&(org.to_string(), name.to_string()))
            .copied()
            .unwrap_or(0);
        let extra = if repo.stars > 100 {
            rng.randint(0, 120)
        } else {
            0
        };
        r.set("contributors_count", known + extra);
        r.set("forks_count", repo.forks);
        let open = issues
            .iter()
            .filter(|i| i.s("organization") == org && i.s("repository") == name)
            .filter(|i| i.s("state") == "open")
            .count();
        r.set("open_issues_count", open);
        r.set("stars_count", repo.stars);
        r.set("subscribers_count", repo.stars / 40 + rng.randint(0, 9));
        repository_tail(rng, repo, created, commits, &mut r);
        out.push(r);
    }
    out
}

/// Sets the author of a milestone or release `r`, then its `url`: the author is null
/// (a deleted account) with chance `deleted`, one of `logins` up to 95 %, left out
/// otherwise.
fn set_author_and_url(
    rng: &mut PyRandom,
    r: &mut Obj,
    logins: &[String],
    deleted: f64,
    url: String,
) {
    let u = rng.random();
    if u < deleted {
        r.set("author", J::Null);
    } else if u < 0.95 {
        r.set("author", rng.pick(logins));
    }
    r.set("url", url);
}

/// A repository's fields after its counts.
fn repository_tail(rng: &mut PyRandom, repo: &Repo, created: Instant, commits: i64, r: &mut Obj) {
    let name = repo.name;
    if repo.archived {
        r.set("is_archived", true);
    }
    if !repo.license.is_empty() {
        r.set("license", repo.license);
    }
    if !repo.topics.is_empty() {
        r.set("topics", repo.topics.to_vec());
    }
    if !repo.languages.is_empty() {
        r.set("languages", repo.languages.to_vec());
    }
    if name == "scratch" {
        r.set("pushed_at", J::Null); // exercises: nullable pushed_at (empty repository)
    } else if name != "advisories" {
        let t = later(rng, created.max(day(2025, 1, 1)), 600, 60);
        r.set("pushed_at", ts(t));
    }
    r.set("created_at", ts(created));
    let updated = match (repo.org, name) {
        ("securecodeorg", "top-ten") => "2026-10-01T00:00:00Z".to_string(),
        // tie on created_at, -updated_at decides
        ("securecodeorg", "asvs") => "2026-09-01T00:00:00Z".to_string(),
        (_, "scratch") => ts(created),
        _ => ts(later(rng, created.max(day(2025, 6, 1)), 500, 60)),
    };
    r.set("updated_at", updated);
    if name != "scratch" {
        // exercises: no size (an empty repository)
        r.set("size", commits * 3 / 2 + 24);
    }
}

#[rustfmt::skip]
const MILESTONE_PLAN: [(&str, &str, &[&str]); 9] = [
    ("juice-labs", "juice-shop", &["v15.0.0", "v16.0.0", "v16.1.0", "v17.0.0", "Backlog", "Hacktoberfest 2026"]),
    ("appsec-tools", "zap-extensions", &["2.14.0", "2.15.0", "2.16.0", "2.17.0", "Triage"]),
    ("securecodeorg", "cheatsheets", &["Q1 2025", "Q2 2025", "Q1 2027"]),
    ("appsec-tools", "dependency-check", &["9.0.0", "10.0.0", "11.0.0"]),
    ("threatmodel-hub", "threat-dragon", &["v2.2", "v2.3", "v3.0"]),
    ("SecDocs-Community", "wstg", &["v5.0", "v5.1"]),
    ("securecodeorg", "asvs", &["5.0 release", "5.1 backlog"]),
    ("cryptoguard-dev", "cryptoguard", &["0.2.0", "1.0.0"]),
    ("appsec-tools", "amass", &["v4.3", "v5.0"]),
];

pub(super) fn milestones(rng: &mut PyRandom, logins: &[String]) -> Vec<Obj> {
    let mut out = Vec::new();
    let tie_created = dt(2024, 1, 8, 9, 0, 0);
    for (org, repo, titles) in MILESTONE_PLAN {
        let mut created: Vec<Instant> = titles
            .iter()
            .map(|_| rand_dt(rng, day(2021, 6, 1), day(2026, 9, 1)))
            .collect();
        if ["juice-shop", "zap-extensions", "cheatsheets"].contains(&repo) {
            // exercises: created_at ties across repositories, -updated_at breaks them
            let at = rng.below(created.len());
            created[at] = tie_created;
        }
        created.sort();
        for (i, (title, created)) in titles.iter().zip(created).enumerate() {
            let number = i + 1 + usize::from(i >= 3); // a gap: milestone 4 was deleted
            let is_open = i + 2 >= titles.len() || ["Backlog", "Triage"].contains(title);
            let mut r = obj! {
                "organization" => org, "repository" => repo, "number" => number,
                "title" => *title, "state" => if is_open { "open" } else { "closed" },
            };
            if rng.random() < 0.8 {
                let bodies = [
                    format!(
                        "Everything planned for **{title}**.\n\n- bug fixes\n- dependency updates\n"
                    ),
                    "Tracking milestone. See the [roadmap](https://example.org/roadmap).\n"
                        .to_string(),
                    format!("Issues we want to close before {title}.\n"),
                    "### Goals\n1. Stabilise the API\n2. Improve docs\n".to_string(),
                ];
                r.set("body", rng.pick(&bodies));
            }
            let url = format!("https://github.com/{org}/{repo}/milestone/{number}");
            set_author_and_url(rng, &mut r, logins, 0.1, url);
            milestone_tail(rng, title, is_open, created, &mut r);
            out.push(r);
        }
    }
    out
}

/// A milestone's issue counts, due date and instants.
fn milestone_tail(rng: &mut PyRandom, title: &str, is_open: bool, created: Instant, r: &mut Obj) {
    if title == "Hacktoberfest 2026" {
        // exercises: no issues at all (progress 0)
        r.set("open_issues_count", 0i64);
        r.set("closed_issues_count", 0i64);
    } else if title == "Triage" {
        // both counts omitted: 0
    } else if is_open {
        r.set("open_issues_count", rng.randint(1, 40));
        r.set("closed_issues_count", rng.randint(0, 60));
    } else {
        r.set("open_issues_count", 0i64);
        r.set("closed_issues_count", rng.randint(3, 120));
    }
    if ["Backlog", "Triage", "5.1 backlog"].contains(&title) {
        if rng.random() < 0.5 {
            r.set("due_on", J::Null);
        }
    } else {
        let due = created + rng.randint(30, 200) * DAY;
        let midnight = due - due.rem_euclid(DAY);
        let micros = due.rem_euclid(SECOND);
        r.set("due_on", ts(midnight + 7 * HOUR + micros));
    }
    r.set("created_at", ts(created));
    r.set("updated_at", ts(later(rng, created, 300, 60)));
}

/// Tags per repository: "" published, "pre", "draft" (unpublished), "unpub" (not a
/// draft, unpublished).
type Tags = &'static [(&'static str, &'static str)];

#[rustfmt::skip]
const RELEASE_PLAN: [(&str, &str, Tags); 12] = [
    ("juice-labs", "juice-shop", &[("v1.0.0", ""), ("V1.0.0", ""), ("v14.5.1", ""), ("v15.0.0", ""), ("v15.1.0", ""), ("v16.0.0-rc.1", "pre"), ("v16.0.0", ""), ("v16.0.1", ""), ("v16.1.0", ""), ("v17.0.0", "draft")]),
    ("appsec-tools", "zap-extensions", &[("release/2.0", ""), ("release/2.1", ""), ("v2.14.0", ""), ("v2.15.0", ""), ("w2025-01-06", "pre")]),
    ("appsec-tools", "dependency-check", &[("v9.0.0", ""), ("v9.0.9", ""), ("v10.0.0", ""), ("v10.0.1", ""), ("v10.0.2+hotfix.1", ""), ("v11.0.0-beta", "pre")]),
    ("threatmodel-hub", "threat-dragon", &[("v1.0/rc1", "pre"), ("v1.0", ""), ("v2.0.0", ""), ("v2.1.0", ""), ("v2.2.0", ""), ("v2.3.0", ""), ("v2.4.0-draft", "draft")]),
    ("appsec-tools", "amass", &[("v3.23.0", ""), ("v4.0.0", ""), ("v4.1.0", ""), ("v4.2.0", "")]),
    ("securecodeorg", "asvs", &[("v4.0.3", ""), ("v5.0.0-rc1", "pre"), ("v5.0.0", "")]),
    ("securecodeorg", "top-ten", &[("2021", ""), ("2025", "")]),
    ("SecDocs-Community", "wstg", &[("v4.2", ""), ("v5.0-preview", "unpub")]),
    ("SecDocs-Community", "mastg", &[("v1.7.0", ""), ("v2.0.0", "")]),
    ("juice-labs", "juice-shop-ctf", &[("v10.0.0", ""), ("v11.0.0", "")]),
    ("cryptoguard-dev", "cryptoguard", &[("0.1.0", ""), ("0.2.0", "")]),
    ("juice-labs", "pwning-juice-shop", &[("v16.0.0", "")]),
];

fn product(repo: &str) -> &'static str {
    match repo {
        "juice-shop" => "Juice Shop",
        "zap-extensions" => "ZAP Add-ons",
        "dependency-check" => "Dependency Check",
        "threat-dragon" => "Threat Dragon",
        "amass" => "Amass",
        "asvs" => "ASVS",
        "top-ten" => "Top 10",
        "wstg" => "WSTG",
        "mastg" => "MASTG",
        "juice-shop-ctf" => "Juice Shop CTF",
        "cryptoguard" => "CryptoGuard",
        _ => "Pwning Juice Shop",
    }
}

/// The releases; `_created` holds each one's instant.
pub(super) fn releases(rng: &mut PyRandom, logins: &[String]) -> Vec<Obj> {
    let mut out = Vec::new();
    for (org, repo, tags) in RELEASE_PLAN {
        let repo_created = REPOS
            .iter()
            .find(|r| r.org == org && r.name == repo)
            .map_or(0, Repo::created);
        let lo = repo_created.max(day(2016, 1, 1));
        let mut created: Vec<Instant> = tags
            .iter()
            .map(|_| rand_dt(rng, lo, day(2026, 11, 1)))
            .collect();
        created.sort();
        for (&(tag, kind), mut created) in tags.iter().zip(created) {
            if tag == "v1.0.0" || tag == "V1.0.0" {
                created = dt(2015, 2, 1, 12, 0, 0); // exercises: created_at tie, case-only tags
            }
            out.push(release(rng, logins, (org, repo, tag, kind), created));
        }
    }
    release_ties(rng, &mut out);
    out
}

fn release(
    rng: &mut PyRandom,
    logins: &[String],
    (org, repo, tag, kind): (&str, &str, &str, &str),
    created: Instant,
) -> Obj {
    let mut r = obj! { "organization" => org, "repository" => repo, "tag_name" => tag };
    if rng.random() < 0.85 {
        let names = [
            tag.to_string(),
            format!("{} {}", product(repo), tag.trim_start_matches(['v', 'V'])),
            format!("Release {tag}"),
        ];
        r.set("name", rng.pick(&names));
    }
    if rng.random() < 0.8 {
        let fixed = rng.randint(2, 40);
        let texts = [
            format!(
                "## What's changed\n\n- Fixed {fixed} bugs\n- Updated dependencies\n\n\
                 **Full changelog**: https://github.com/{org}/{repo}/commits/{tag}\n"
            ),
            "### Breaking changes\n\n* Node.js 18 is no longer supported\n\n\
             ### Features\n\n* New `--format sarif` option\n"
                .to_string(),
            "Maintenance release. See `CHANGELOG.md`.\n".to_string(),
        ];
        r.set("description", rng.pick(&texts));
    }
    let url = format!("https://github.com/{org}/{repo}/releases/tag/{tag}");
    set_author_and_url(rng, &mut r, logins, 0.08, url);
    if kind == "draft" {
        r.set("is_draft", true);
    } else if rng.random() < 0.5 {
        r.set("is_draft", false);
    }
    if kind == "pre" {
        r.set("is_pre_release", true);
    }
    if kind == "unpub" {
        r.set("published_at", J::Null); // drafts omit it instead (same meaning)
    } else {
        r.set("published_at", ts(later(rng, created, 2, 30)));
    }
    r.set("created_at", ts(created));
    r.set("_created", created);
    r
}

/// exercises: identical published_at with different created_at (-created_at breaks
/// it), and identical created_at across repositories.
fn release_ties(rng: &mut PyRandom, out: &mut [Obj]) {
    // Python looked the tags up in a dict, so a repeated (repository, tag) is its last.
    let find = |out: &[Obj], repo: &str, tag: &str| {
        out.iter()
            .rposition(|r| r.s("repository") == repo && r.s("tag_name") == tag)
            .expect("a release of the plan")
    };
    let (a, b) = (
        find(out, "amass", "v4.2.0"),
        find(out, "zap-extensions", "v2.15.0"),
    );
    let shared = parse_ts(out[a].s("created_at")).max(parse_ts(out[b].s("created_at"))) + 6 * HOUR;
    let published = ts(shared.min(NOW));
    out[a].set("published_at", published.clone());
    out[b].set("published_at", published);
    let (c, d) = (
        find(out, "mastg", "v2.0.0"),
        find(out, "juice-shop-ctf", "v11.0.0"),
    );
    let c_created = created(&out[c]);
    let c_created_at = out[c].s("created_at").to_string();
    out[d].set("created_at", c_created_at);
    out[d].set("_created", c_created);
    out[d].set("published_at", ts(later(rng, c_created, 1, 30)));
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
