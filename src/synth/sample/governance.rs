//! The community's boards of directors (docs/data.md): two boards with their
//! candidates and members, a snapshot of each candidate's activity over the year
//! before, and the members' board, staff and mentoring fields, drawn after the
//! platform project (`community::add_platform_project`) from the same stream.

use std::collections::BTreeMap;

use super::json::{obj, Obj, J};
use super::pyrandom::PyRandom;
use super::time::{date, day, dt, ts, DAY};

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
