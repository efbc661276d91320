//! Issues: drawn per repository, their titles and Markdown bodies from a few shapes,
//! with created_at ties across repositories; and the pull requests, drawn from the
//! second stream (`super::second_stream`), numbered after their repository's issues.

use std::collections::HashMap;

use super::json::{obj, Obj, J};
use super::pyrandom::PyRandom;
use super::slug;
use super::time::{between, day, days, later, rand_dt, ts, Instant, DAY, NOW, SECOND};

const ISSUE_PLAN: [(&str, &str, usize); 10] = [
    ("juice-labs", "juice-shop", 80),
    ("appsec-tools", "zap-extensions", 45),
    ("securecodeorg", "cheatsheets", 30),
    ("threatmodel-hub", "threat-dragon", 25),
    ("appsec-tools", "dependency-check", 22),
    ("SecDocs-Community", "wstg", 15),
    ("cryptoguard-dev", "cryptoguard", 12),
    ("threatmodel-hub", "Docs", 10),
    ("securecodeorg", "docs", 8),
    ("appsec-tools", "amass", 3),
];

fn components(repo: &str) -> &'static [&'static str] {
    match repo {
        "juice-shop" => &[
            "scoreboard",
            "login page",
            "basket API",
            "product search",
            "challenge tracker",
            "Docker image",
            "i18n loader",
            "chatbot",
            "B2B order endpoint",
        ],
        "zap-extensions" => &[
            "active scanner",
            "spider",
            "HUD",
            "OpenAPI add-on",
            "passive scan rules",
            "report generator",
            "GraphQL add-on",
            "automation framework",
        ],
        "cheatsheets" => &[
            "XSS Prevention cheat sheet",
            "Password Storage cheat sheet",
            "JWT cheat sheet",
            "index page",
            "SSRF cheat sheet",
        ],
        "threat-dragon" => &[
            "diagram editor",
            "PDF report",
            "desktop app",
            "GitHub integration",
            "STRIDE rules engine",
        ],
        "dependency-check" => &[
            "NVD updater",
            "Maven plugin",
            "Gradle plugin",
            "HTML report",
            "Node audit analyzer",
            "CLI",
        ],
        "wstg" => &["WSTG-INPV-05", "checklist", "PDF build", "WSTG-ATHN-01"],
        "cryptoguard" => &["rule engine", "Android analyzer", "CLI", "SARIF output"],
        "Docs" => &["STRIDE page", "getting started", "navigation"],
        "docs" => &["landing page", "style guide"],
        _ => &["enum subcommand", "config parser", "graph database"],
    }
}

#[rustfmt::skip]
const FEATURES: [&str; 11] = ["SARIF export", "dark mode", "OAuth 2.0 login", "SBOM import", "HTTP/3",
    "WebSocket scanning", "Kubernetes manifests", "Arabic translation", "CSV export",
    "rate limiting", "offline mode"];
#[rustfmt::skip]
const ACTIONS: [&str; 8] = ["the basket is empty", "the locale is set to tr-TR", "uploading a 0-byte file",
    "running behind a reverse proxy", "the session expires", "using Node 22",
    "clicking twice on submit", "the target returns HTTP 304"];
#[rustfmt::skip]
const VULNS: [&str; 7] = ["Stored XSS", "SQL injection", "Path traversal", "Prototype pollution", "SSRF",
    "Open redirect", "XXE"];
#[rustfmt::skip]
const DEPS: [&str; 8] = ["express", "jsonwebtoken", "log4j-core", "jackson-databind", "sanitize-html",
    "lodash", "angular", "commons-text"];
const SPECIAL_TITLES: [&str; 5] = [
    "XSS via <script>alert(\"1\")</script> in the search field",
    "Support “smart quotes” & ampersands in product names",
    "日本語のドキュメントを追加する",
    "Emoji in challenge names 🍹 break the scoreboard",
    "Crash on path C:\\Users\\zoë\\juice-shop with backslashes",
];

/// The random details one issue's title and body share.
#[derive(Clone)]
struct Context {
    action: &'static str,
    feature: &'static str,
    vuln: &'static str,
    dep: &'static str,
    old: String,
    new: String,
}

fn context(rng: &mut PyRandom) -> Context {
    let (action, feature) = (rng.pick(&ACTIONS), rng.pick(&FEATURES));
    let (vuln, dep) = (rng.pick(&VULNS), rng.pick(&DEPS));
    let mut version = |lo, hi| {
        let (a, b, c) = (rng.randint(lo, hi), rng.randint(0, 20), rng.randint(0, 9));
        format!("{a}.{b}.{c}")
    };
    let old = version(1, 5);
    let new = version(6, 9);
    Context {
        action,
        feature,
        vuln,
        dep,
        old,
        new,
    }
}

fn capitalized(s: &str) -> String {
    s[..1].to_uppercase() + &s[1..]
}

fn body(rng: &mut PyRandom, repo: &str, comp: &str, kind: i64, ctx: &Context) -> String {
    match kind {
        0 => format!(
            "### Describe the bug\n{} misbehaves when {}.\n\n\
             ### Steps to reproduce\n1. Start the app with `npm start`\n\
             2. Open `/#/search?q=apple`\n3. See the stack trace below\n\n\
             ### Expected behavior\nNo error.\n\n\
             ```text\nTypeError: Cannot read properties of undefined (reading 'id')\n\
             \x20   at BasketService.add (basket.service.ts:42:17)\n```\n\n\
             See [the troubleshooting guide](https://example.org/docs/{}) for details.\n",
            capitalized(comp),
            ctx.action,
            slug(comp)
        ),
        1 => format!(
            "## Summary\nIt would be great if the {comp} supported **{}**.\n\n\
             ## Why\n- users ask for it regularly\n- other tools already do it\n\
             - it makes CI integration easier\n\n\
             ## Proposal\n```yaml\nreport:\n  format: sarif\n  output: ./reports\n```\n\n\
             > Happy to open a PR if a maintainer agrees on the approach.\n",
            ctx.feature
        ),
        2 => {
            let severity = rng.pick(&["low", "medium", "high", "critical"]);
            let (a, b, c) = (rng.randint(1, 17), rng.randint(0, 9), rng.randint(0, 20));
            let cwe = [79, 89, 22, 918, 611];
            let (w1, w2) = (rng.pick(&cwe), rng.pick(&cwe));
            format!(
                "**Type:** {}\n\n**Severity:** {severity}\n\n| Field | Value |\n|---|---|\n\
                 | Component | {comp} |\n| Version | {a}.{b}.{c} |\n\
                 | CWE | [CWE-{w1}](https://cwe.mitre.org/data/definitions/{w2}.html) |\n\n\
                 <details>\n<summary>Proof of concept</summary>\n\n\
                 ```http\nGET /rest/products/search?q=%27))--%20 HTTP/1.1\n\
                 Host: localhost:3000\n```\n\n</details>\n",
                ctx.vuln
            )
        }
        3 => format!(
            "Bumps `{}` from {} to {}.\n\n- [x] changelog reviewed\n\
             - [x] tests pass\n- [ ] release notes updated\n\n\
             _This issue was opened automatically._\n",
            ctx.dep, ctx.old, ctx.new
        ),
        4 => format!("Same as the title. Reproducible on `main` ({repo}).\n"),
        _ => format!(
            "# Question\n\nHow do I configure the {comp}?\n\n1. I read the README\n\
             2. I searched the issues\n\nThanks! 🙏\n"
        ),
    }
}

fn title(rng: &mut PyRandom, comp: &str, kind: i64, ctx: &Context) -> String {
    match kind {
        0 => format!("{} crashes when {}", capitalized(comp), ctx.action),
        1 => format!("Add support for {} in the {comp}", ctx.feature),
        2 => format!("[Security] {} in {comp}", ctx.vuln),
        3 => format!("Update dependency {} to v{}", ctx.dep, ctx.new),
        4 => {
            let shape = rng.pick(&[
                "Fix typo in ",
                "Broken link in ",
                "Improve wording of ",
                "Flaky test in ",
            ]);
            format!("{shape}{comp}")
        }
        _ => format!("Question: how to configure the {comp}?"),
    }
}

/// An issue before its record is drawn.
struct Draft {
    org: &'static str,
    repo: &'static str,
    number: i64,
    created: Instant,
    updated: Instant,
    closed: Option<Instant>,
    title: String,
    kind: i64,
    comp: &'static str,
    ctx: Option<Context>,
}

/// Numbers and creation instants per repository, then the ties.
fn drafts(rng: &mut PyRandom) -> (Vec<Draft>, Vec<(usize, usize)>) {
    let mut issues = Vec::new();
    for (org, repo, n) in ISSUE_PLAN {
        let mut created: Vec<Instant> = (0..n)
            .map(|_| rand_dt(rng, day(2021, 1, 1), day(2026, 11, 15)))
            .collect();
        created.sort();
        let mut number = rng.randint(1, 40);
        for c in created {
            number += rng.randint(1, 9);
            issues.push(Draft {
                org,
                repo,
                number,
                created: c,
                updated: 0,
                closed: None,
                title: String::new(),
                kind: 0,
                comp: "",
                ctx: None,
            });
        }
    }
    // exercises: created_at ties between issues of different repositories; the first
    // pairs differ in updated_at (tie-breaker -updated_at), the last two share both.
    let picks = rng.sample_indices(issues.len(), 16);
    let pairs: Vec<(usize, usize)> = (0..8).map(|k| (picks[2 * k], picks[2 * k + 1])).collect();
    for &(a, b) in &pairs {
        issues[b].created = issues[a].created;
    }
    (issues, pairs)
}

/// State, instants, title and the body's shape of each issue.
fn draw_lives(rng: &mut PyRandom, issues: &mut [Draft]) {
    let mut special = SPECIAL_TITLES.iter();
    let mut special_left = SPECIAL_TITLES.len();
    for iss in issues.iter_mut() {
        let age = days(NOW, iss.created).min(1500);
        let closed = rng.random() < 0.25 + age as f64 / 2500.0;
        iss.updated = later(rng, iss.created, 240, 60);
        if closed {
            let c = later(rng, iss.created, 200, 60);
            if c > iss.updated {
                iss.updated = later(rng, c, 3, 1);
            }
            iss.closed = Some(c);
        }
        iss.comp = rng.pick(components(iss.repo));
        iss.kind = rng.randrange(0, 6);
        let ctx = context(rng);
        iss.title = title(rng, iss.comp, iss.kind, &ctx);
        if iss.repo == "juice-shop" && special_left > 0 && rng.random() < 0.2 {
            iss.title = special.next().map(|s| s.to_string()).unwrap_or_default();
            special_left -= 1;
            iss.kind = 4;
        }
        iss.ctx = Some(ctx);
    }
}

/// The issues; `_created` holds each one's instant.
pub(super) fn issues(rng: &mut PyRandom, logins: &[String], label_names: &[String]) -> Vec<Obj> {
    let (mut issues, pairs) = drafts(rng);
    draw_lives(rng, &mut issues);
    // identical created_at and updated_at for the last two tie pairs
    for &(a, b) in &pairs[6..] {
        issues[b].updated = issues[a].updated;
        let updated = issues[b].updated;
        if let Some(c) = issues[b].closed.as_mut() {
            if *c > updated {
                *c = updated;
            }
        }
    }
    for &(a, b) in &pairs[..6] {
        if issues[b].updated == issues[a].updated {
            issues[b].updated += SECOND;
        }
    }
    issues
        .iter()
        .map(|iss| record(rng, iss, logins, label_names))
        .collect()
}

fn record(rng: &mut PyRandom, iss: &Draft, logins: &[String], labels: &[String]) -> Obj {
    let (org, repo, number) = (iss.org, iss.repo, iss.number);
    let closed = iss.closed.is_some();
    let mut r = obj! {
        "organization" => org, "repository" => repo, "number" => number,
        "title" => &iss.title, "state" => if closed { "closed" } else { "open" },
    };
    if rng.random() < 0.9 {
        let ctx = iss.ctx.as_ref().expect("drawn");
        r.set("body", body(rng, repo, iss.comp, iss.kind, ctx));
    }
    let u = rng.random();
    if u < 0.04 {
        r.set("author", J::Null); // deleted account
    } else if u >= 0.07 {
        r.set("author", rng.pick(logins));
    } // else: author omitted (same as null)
    r.set(
        "url",
        format!("https://github.com/{org}/{repo}/issues/{number}"),
    );
    let k = rng.pick(&[0, 0, 1, 1, 1, 2, 2, 3]);
    let mut labs: Vec<String> = match iss.kind {
        2 => std::iter::once("security".to_string())
            .chain(rng.sample(labels, k))
            .collect(),
        3 => vec!["dependencies".to_string()],
        _ => rng.sample(labels, k),
    };
    let mut seen = std::collections::HashSet::new();
    labs.retain(|l| seen.insert(l.clone()));
    if !labs.is_empty() {
        r.set("labels", labs);
    }
    r.set("created_at", ts(iss.created));
    r.set("updated_at", ts(iss.updated));
    match iss.closed {
        Some(c) => r.set("closed_at", ts(c)),
        None => {
            if rng.random() < 0.5 {
                r.set("closed_at", J::Null);
            }
        }
    }
    r.set("_created", iss.created);
    r
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
