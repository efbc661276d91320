//! The community's own web platform as a project (`nest`), which the about page
//! shows: its three leaders, its repository with contributors and milestones, and the
//! project record, drawn first from the stream of the platform and the boards
//! (`super::super::governance`).

use crate::synth::sample::json::{obj, Obj};
use crate::synth::sample::pyrandom::PyRandom;
use crate::synth::sample::time::{day, dt, ts, DAY};

/// The project's three leaders, by login (the about page names them).
const LEADERS: [&str; 3] = ["arkid15r", "kasya", "mamicidal"];

/// The records the platform project adds to.
pub(in crate::synth::sample) struct Platform<'a> {
    pub members: &'a mut Vec<Obj>,
    pub repositories: &'a mut Vec<Obj>,
    pub contributors: &'a mut Vec<Obj>,
    pub milestones: &'a mut Vec<Obj>,
    pub projects: &'a mut Vec<Obj>,
}

/// The platform project, its repository and its three leaders.
pub(in crate::synth::sample) fn add_platform_project(rng: &mut PyRandom, a: Platform) {
    for (n, login) in LEADERS.iter().enumerate() {
        let k = n as i64;
        a.members.push(obj! {
            "login" => *login, "name" => *login,
            "avatar_url" => format!("https://avatars.githubusercontent.com/u/{}?v=4", 2_201_000 + n),
            "url" => format!("https://github.com/{login}"),
            "bio" => "Builds the community's web platform.",
            "company" => "", "location" => "", "title" => "Nest project leader",
            "followers_count" => 120 + 40 * k, "following_count" => 15 + k,
            "public_repositories_count" => 30 + 7 * k,
            "created_at" => ts(dt(2014 + n as i32, 3 + n as u32, 11, 10, 0, 0)),
            "updated_at" => ts(dt(2026, 10, 2 + n as u32, 8, 0, 0)),
        });
    }
    a.repositories.push(obj! {
        "organization" => "securecodeorg", "name" => "nest",
        "description" => "The community's web platform: its directory, search and mentorship.",
        "url" => "https://github.com/securecodeorg/nest",
        "commits_count" => 4820i64, "contributors_count" => 0i64, "forks_count" => 310i64,
        "open_issues_count" => 0i64, "stars_count" => 640i64, "subscribers_count" => 22i64,
        "license" => "MIT", "topics" => vec!["community", "platform", "python", "typescript"],
        "languages" => vec!["Python", "TypeScript"],
        "pushed_at" => "2026-11-18T21:04:00Z", "created_at" => "2024-08-13T12:00:00Z",
        "updated_at" => "2026-11-18T21:04:00Z", "size" => 48200i64,
    });
    let mut people: Vec<String> = LEADERS.iter().map(|l| l.to_string()).collect();
    for i in rng.sample_indices(60, 12) {
        people.push(a.members[i].s("login").to_string());
    }
    for (n, login) in people.iter().enumerate() {
        let count = 900 / (n as i64 + 1) + rng.randrange(0, 5);
        a.contributors.push(obj! {
            "organization" => "securecodeorg", "repository" => "nest", "member" => login,
            "contributions_count" => count,
        });
    }
    if let Some(nest) = a.repositories.last_mut() {
        nest.set("contributors_count", people.len());
    }
    milestones(a.milestones, &people);
    a.projects.push(project());
}

fn milestones(milestones: &mut Vec<Obj>, people: &[String]) {
    let plan = [
        ("Search and lists", "closed", 0i64, 24i64),
        ("Mentorship portal", "open", 9, 17),
        ("Board elections", "open", 6, 3),
    ];
    for (n, (title, state, open, closed)) in plan.into_iter().enumerate() {
        let created = day(2025, 2 + 3 * n as u32, 5);
        milestones.push(obj! {
            "organization" => "securecodeorg", "repository" => "nest", "number" => n + 1,
            "title" => title, "state" => state,
            "body" => format!("What **{title}** covers.\n\n- the pages\n- their API\n"),
            "author" => &people[n % 3],
            "url" => format!("https://github.com/securecodeorg/nest/milestone/{}", n + 1),
            "open_issues_count" => open, "closed_issues_count" => closed,
            "due_on" => ts(created + 120 * DAY), "created_at" => ts(created),
            "updated_at" => ts(created + 40 * DAY),
        });
    }
}

fn project() -> Obj {
    let leaders: Vec<Obj> = LEADERS
        .iter()
        .map(|l| obj! { "name" => *l, "login" => *l, "description" => "Leader" })
        .collect();
    obj! {
        "key" => "www-project-nest", "name" => "Nest", "level" => "lab", "type" => "code",
        "description" => "Nest is the community's web platform: a directory of its chapters, \
                          projects and people, with search and mentorship.",
        "summary" => "Nest: the community's web platform.",
        "url" => "https://community.example.org/www-project-nest/",
        "leaders" => leaders,
        "repositories" => vec![obj! { "organization" => "securecodeorg", "name" => "nest" }],
        "created_at" => "2024-08-20T09:00:00Z", "updated_at" => "2026-11-12T16:30:00Z",
        "related_urls" => vec!["https://github.com/securecodeorg/nest"],
    }
}
