//! The sample's mentorship programs and modules (docs/data.md, "Mentorship programs
//! and modules"), from a random stream of their own drawn after every other record.
//! Three published programs (the API shows them), one draft and one completed
//! program (it never does), each with two to four modules; a module works on an
//! active project with repositories, on the labels its issues carry, with mentors and
//! mentees taken from the sample's members.

use std::collections::HashMap;

use super::dashed;
use super::json::{obj, Obj, J};
use super::pyrandom::PyRandom;
use super::time::{day, ts, Instant, WEEK};

pub(super) const SEED: u32 = 20_261_124;

const LEVELS: [&str; 4] = ["beginner", "intermediate", "advanced", "expert"];

type Plan = (
    &'static str,
    &'static str,
    &'static str,
    (i32, u32, u32),
    i64,
    Option<i64>,
);

/// key, name, status, start, weeks, mentees limit.
#[rustfmt::skip]
const PROGRAMS: [Plan; 5] = [
    ("summer-of-code-2026", "Summer of Code 2026", "published", (2026, 5, 4), 16, Some(40)),
    ("security-champions-2026", "Security Champions 2026", "published", (2026, 2, 2), 30, Some(25)),
    ("winter-of-appsec-2026", "Winter of AppSec 2026", "published", (2026, 10, 5), 20, None),
    ("spring-sprint-2027", "Spring Sprint 2027", "draft", (2027, 3, 1), 12, Some(15)),
    ("summer-of-code-2025", "Summer of Code 2025", "completed", (2025, 5, 5), 16, Some(30)),
];

#[rustfmt::skip]
const DOMAINS: [&str; 7] = ["Application Security", "Threat Modeling", "Secure Code Review", "DevSecOps",
    "Mobile Security", "Cloud Security", "Security Testing"];
#[rustfmt::skip]
const TAGS: [&str; 12] = ["python", "javascript", "java", "go", "rust", "docker", "kubernetes", "react",
    "owasp-top-10", "sast", "dast", "ci"];
#[rustfmt::skip]
const TOPICS: [&str; 7] = ["Triage and fix", "Test coverage for", "Documentation sprint on", "Rule pack for",
    "Hardening", "Benchmarks for", "Accessibility of"];

/// Active projects with repositories, and the labels their issues carry (most used
/// first, then by name).
fn project_labels<'a>(projects: &'a [Obj], issues: &[Obj]) -> Vec<(&'a Obj, Vec<String>)> {
    let mut by_repo: HashMap<(String, String), HashMap<String, i64>> = HashMap::new();
    for i in issues {
        let key = (
            i.s("organization").to_lowercase(),
            i.s("repository").to_lowercase(),
        );
        for label in i.arr("labels") {
            if let J::Str(label) = label {
                *by_repo
                    .entry(key.clone())
                    .or_default()
                    .entry(label.clone())
                    .or_insert(0) += 1;
            }
        }
    }
    let mut out = Vec::new();
    for p in projects {
        if !p.active() || p.arr("repositories").is_empty() {
            continue;
        }
        let mut counts: HashMap<String, i64> = HashMap::new();
        for r in p.arr("repositories") {
            let J::Obj(r) = r else { continue };
            let key = (
                r.s("organization").to_lowercase(),
                r.s("name").to_lowercase(),
            );
            for (label, n) in by_repo.get(&key).into_iter().flatten() {
                *counts.entry(label.clone()).or_insert(0) += n;
            }
        }
        let mut labels: Vec<String> = counts.keys().cloned().collect();
        labels.sort_by(|a, b| counts[b].cmp(&counts[a]).then_with(|| a.cmp(b)));
        out.push((p, labels));
    }
    out
}

/// The programs and modules, in file order.
pub(super) fn mentorship(
    rng: &mut PyRandom,
    members: &[Obj],
    projects: &[Obj],
    issues: &[Obj],
) -> (Vec<Obj>, Vec<Obj>) {
    let logins: Vec<String> = members.iter().map(|m| m.s("login").to_string()).collect();
    let candidates = project_labels(projects, issues);
    let (mut programs, mut modules) = (Vec::new(), Vec::new());
    for (key, name, status, (y, m, d), weeks, limit) in PROGRAMS {
        let start = day(y, m, d);
        let end = start + weeks * WEEK;
        let n = rng.randint(1, 3) as usize;
        let mut levels = rng.sample(&LEVELS, n);
        levels.sort_by_key(|l| LEVELS.iter().position(|x| x == l));
        let n = rng.randint(1, 3) as usize;
        let domains = rng.sample(&DOMAINS, n);
        let n = rng.randint(2, 4) as usize;
        let tags = rng.sample(&TAGS, n);
        let n = rng.randint(1, 3) as usize;
        let admins = rng.sample(&logins[..40], n);
        let mut program = obj! {
            "key" => key, "name" => name,
            "description" => format!(
                "{name} pairs contributors with mentors from the community's \
                 projects for {weeks} weeks.\n\nMentees work on real issues and \
                 meet their mentors every week."
            ),
            "status" => status, "experience_levels" => levels.clone(),
            "started_at" => ts(start), "ended_at" => ts(end),
            "domains" => domains.clone(), "tags" => tags.clone(), "admins" => admins,
        };
        if let Some(limit) = limit {
            program.set("mentees_limit", limit);
        }
        programs.push(program);
        let count = if status == "published" {
            rng.randint(2, 4) as usize
        } else {
            2
        };
        let picked = rng.sample(&candidates, count);
        for (position, (project, labels)) in picked.into_iter().enumerate() {
            let program = Program {
                key,
                start,
                end,
                levels: &levels,
                domains: &domains,
                tags: &tags,
            };
            modules.push(module(
                rng,
                &program,
                position + 1,
                project,
                &labels,
                &logins,
            ));
        }
    }
    (programs, modules)
}

/// What a module takes from its program.
struct Program<'a> {
    key: &'a str,
    start: Instant,
    end: Instant,
    levels: &'a [&'a str],
    domains: &'a [&'a str],
    tags: &'a [&'a str],
}

fn module(
    rng: &mut PyRandom,
    p: &Program,
    position: usize,
    project: &Obj,
    labels: &[String],
    logins: &[String],
) -> Obj {
    let topic = rng.pick(&TOPICS);
    let project_name = project.s("name");
    let name = format!("{topic} {project_name}");
    let start = p.start + rng.randint(0, 2) * WEEK;
    let level = rng.pick(p.levels);
    let ended = p.end - rng.randint(0, 2) * WEEK;
    let domains = rng.sample(p.domains, 1);
    let tags = rng.sample(p.tags, 1);
    let labels: Vec<String> = if labels.is_empty() {
        Vec::new()
    } else {
        let n = rng.randint(1, 2) as usize;
        labels.iter().take(n).cloned().collect()
    };
    let n = rng.randint(1, 3) as usize;
    let mentors = rng.sample(&logins[..70], n);
    let n = rng.randint(2, 5) as usize;
    let mentees = rng.sample(&logins[70..], n);
    let mut module = obj! {
        "program" => p.key, "key" => dashed(&name), "name" => &name,
        "description" => format!(
            "Mentees work on {project_name} with its maintainers: {}.",
            topic.to_lowercase()
        ),
        "experience_level" => level, "position" => position,
        "started_at" => ts(start), "ended_at" => ts(ended),
        "domains" => domains, "tags" => tags, "labels" => labels,
        "project" => project.s("key"), "mentors" => mentors, "mentees" => mentees,
    };
    if rng.random() < 0.5 {
        module.set("mentee_can_manage_deadlines", true);
    }
    module
}
