//! The records of the frontend's about and board pages (docs/data.md), from a random
//! stream of their own drawn after every other record: the project the about page
//! shows (`nest`, its repository, contributors and milestones, and the three leaders
//! it names), two boards of directors with their candidates and members, a snapshot
//! of each candidate's activity, and the members' board, staff and mentoring fields.

use std::collections::BTreeMap;

use super::json::{obj, Obj, J};
use super::pyrandom::PyRandom;
use super::time::{date, day, dt, ts, DAY};

pub(super) const SEED: u32 = 20_261_126;

/// The about page names its project and three leaders by login.
const ABOUT_LEADERS: [&str; 3] = ["arkid15r", "kasya", "mamicidal"];

const STATEMENTS: [&str; 6] = [
    "I want the community's projects to have the resources they need to thrive.",
    "Chapters are where most members meet us first; I will put them first.",
    "More transparency in how the board decides, and more voices in the room.",
    "I have led a chapter for years and want to bring that experience to the board.",
    "Security education should be free and open to everyone, everywhere.",
    "Our volunteers are our strength: I will work to keep them supported.",
];
const CHANNELS: [&str; 4] = [
    "#general",
    "#chapter-leaders",
    "#project-leaders",
    "#appsec",
];

/// The records the about page adds to.
pub(super) struct About<'a> {
    pub members: &'a mut Vec<Obj>,
    pub repositories: &'a mut Vec<Obj>,
    pub contributors: &'a mut Vec<Obj>,
    pub milestones: &'a mut Vec<Obj>,
    pub projects: &'a mut Vec<Obj>,
}

/// The about page's project, its repository and its three leaders.
pub(super) fn add_about(rng: &mut PyRandom, a: About) {
    for (n, login) in ABOUT_LEADERS.iter().enumerate() {
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
    let mut people: Vec<String> = ABOUT_LEADERS.iter().map(|l| l.to_string()).collect();
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
    about_milestones(a.milestones, &people);
    a.projects.push(nest_project());
}

fn about_milestones(milestones: &mut Vec<Obj>, people: &[String]) {
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

fn nest_project() -> Obj {
    let leaders: Vec<Obj> = ABOUT_LEADERS
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

/// `n` of `keys`, each with a count in `[1, hi)`, in key order.
fn counts(rng: &mut PyRandom, keys: &[String], n: usize, hi: i64) -> Obj {
    let mut out = BTreeMap::new();
    for key in rng.sample(keys, n.min(keys.len())) {
        out.insert(key, rng.randrange(1, hi));
    }
    sorted(out)
}

fn sorted(map: BTreeMap<String, i64>) -> Obj {
    let mut o = Obj::new();
    for (k, v) in map {
        o.set(&k, v);
    }
    o
}

/// The keys a candidate's activity counts.
struct Keys {
    chapters: Vec<String>,
    projects: Vec<String>,
    repositories: Vec<String>,
    channels: Vec<String>,
}

/// Boards of 2024 and 2025, each candidate's activity over the year before, and the
/// members' further fields. Returns (boards, member_snapshots).
pub(super) fn boards(
    rng: &mut PyRandom,
    members: &mut [Obj],
    chapters: &[Obj],
    projects: &[Obj],
    repositories: &[Obj],
) -> (Vec<Obj>, Vec<Obj>) {
    let with_login: Vec<usize> = (0..80.min(members.len()))
        .filter(|&i| members[i].truthy("name"))
        .collect();
    // Only what the API shows: the page looks each key up.
    let keys = Keys {
        chapters: chapters
            .iter()
            .filter(|c| c.active())
            .map(|c| c.s("key").to_string())
            .collect(),
        projects: projects
            .iter()
            .filter(|p| p.active())
            .map(|p| p.s("key").to_string())
            .collect(),
        repositories: repositories
            .iter()
            .map(|r| format!("{}/{}", r.s("organization"), r.s("name")))
            .collect(),
        channels: CHANNELS.iter().map(|c| c.to_string()).collect(),
    };
    let (mut boards, mut snapshots) = (Vec::new(), Vec::new());
    for year in [2024, 2025] {
        let chosen = rng.sample(&with_login, 7);
        boards.push(board(rng, members, &chosen, year));
        for &m in &chosen {
            snapshots.push(activity(rng, members[m].s("login"), year, &keys));
        }
        if year == 2025 {
            for &m in &chosen[..5] {
                members[m].set("is_owasp_board_member", true);
            }
        }
        for &m in &chosen {
            let login = members[m].s("login").to_lowercase();
            members[m].set("linkedin_page_id", login);
            let (y, mo, d) = (
                rng.randrange(0, 8),
                rng.randrange(0, 12),
                rng.randrange(0, 28),
            );
            let first = dt(2015 + y as i32, 1 + mo as u32, 1 + d as u32, 0, 0, 0);
            members[m].set("first_owasp_contribution_at", ts(first));
        }
    }
    members[with_login[1]].set("is_former_owasp_staff", true);
    for &m in &with_login[2..4] {
        members[m].set("is_gsoc_mentor", true);
    }
    (boards, snapshots)
}

fn board(rng: &mut PyRandom, members: &[Obj], chosen: &[usize], year: i32) -> Obj {
    let mut candidates = Vec::new();
    for &m in chosen {
        let (name, login) = (members[m].s("name"), members[m].s("login"));
        let mut c =
            obj! { "name" => name, "login" => login, "description" => rng.pick(&STATEMENTS) };
        if rng.random() < 0.5 {
            c.set(
                "email",
                format!("{}@candidates.example.org", login.to_lowercase()),
            );
        }
        candidates.push(c);
    }
    // A candidate without an account on the code host.
    candidates.push(obj! {
        "name" => "Ingrid Halvorsen", "login" => J::Null, "description" => rng.pick(&STATEMENTS),
    });
    let elected: Vec<Obj> = chosen[..5]
        .iter()
        .map(|&m| {
            obj! { "name" => members[m].s("name"), "login" => members[m].s("login"), "description" => "Director" }
        })
        .collect();
    obj! {
        "year" => i64::from(year),
        "url" => format!("https://community.example.org/board/elections/{year}/"),
        "candidates" => candidates, "members" => elected,
        "created_at" => ts(dt(year, 9, 1, 12, 0, 0)), "updated_at" => ts(dt(year, 11, 2, 12, 0, 0)),
    }
}

/// A candidate's activity over the year before the election.
fn activity(rng: &mut PyRandom, login: &str, year: i32, keys: &Keys) -> Obj {
    let (start, end) = (day(year - 1, 1, 1), dt(year - 1, 12, 31, 23, 59, 59));
    let (mut days, mut talk) = (BTreeMap::new(), BTreeMap::new());
    for _ in 0..rng.randrange(20, 70) {
        let at = date(start + rng.randrange(0, 365) * DAY);
        *days.entry(at.clone()).or_insert(0) += rng.randrange(1, 6);
        if rng.random() < 0.4 {
            *talk.entry(at).or_insert(0) += rng.randrange(1, 9);
        }
    }
    let total: i64 = days.values().sum();
    let (prs, issues) = (total / 4, total / 5);
    let messages: i64 = talk.values().sum();
    obj! {
        "member" => login, "start_at" => ts(start), "end_at" => ts(end),
        "commits_count" => total - prs - issues, "pull_requests_count" => prs,
        "issues_count" => issues, "messages_count" => messages,
        "contribution_heatmap_data" => sorted(days),
        "communication_heatmap_data" => sorted(talk),
        "chapter_contributions" => counts(rng, &keys.chapters, 2, 30),
        "project_contributions" => counts(rng, &keys.projects, 3, 60),
        "repository_contributions" => counts(rng, &keys.repositories, 4, 80),
        "channel_communications" => counts(rng, &keys.channels, 3, 120),
    }
}
