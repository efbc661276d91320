//! The leaders' roles, related URLs, channels and repositories of chapters,
//! committees and projects in the sample (and a chapter's suggested location), drawn
//! from the second stream (`super::super::second_stream`).

use super::super::json::{obj, Obj, J};
use super::super::pyrandom::PyRandom;
use super::repo_refs;

const ROLES: [&str; 5] = ["Leader", "Co-leader", "Founder", "Maintainer", ""];

pub(in crate::synth::sample) fn add_leader_roles(rng: &mut PyRandom, records: &mut [Obj]) {
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
pub(in crate::synth::sample) fn add_entity_links(
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
