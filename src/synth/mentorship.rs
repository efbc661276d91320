//! Mentorship programs and modules in a synthetic dataset: a tenth as many programs as
//! projects (at least five), every status and experience level occurring, each program with two to four
//! modules on active projects, their labels taken from the shared labels, their admins,
//! mentors and mentees from the members.
//!
//! Drawn from a random stream of their own, after every other record, so adding them
//! left every other record of a scale and seed as it was.

use rand::{RngExt, SeedableRng};

use super::random::{chance, pick, ts, when, DAY, END, START};
use super::text::slug;
use super::words::{COMPONENTS, FEATURES, TOPICS};
use super::{push, Rng};
use crate::records::{Dataset, ExperienceLevel, Module, Program, ProgramStatus};

/// Mixed into the seed: the stream differs from every other of the same seed.
const STREAM: u64 = 0x6d65_6e74_6f72_7368;

/// Adds the programs and modules to `ds` (after its projects, members and labels).
// Long because every field of the records is drawn here, in a fixed order: the draws
// are the dataset (one seed, the same records), so a split would only scatter them.
pub(super) fn add(ds: &mut Dataset, seed: u64) {
    let mut rng = Rng::seed_from_u64(seed ^ STREAM);
    let projects: Vec<String> = ds
        .projects
        .iter()
        .filter(|(_, p)| p.is_active)
        .map(|(_, p)| p.key.clone())
        .collect();
    let logins: Vec<String> = ds.members.iter().map(|(_, m)| m.login.clone()).collect();
    let labels: Vec<String> = ds
        .labels
        .iter()
        .filter(|(_, l)| l.repository.is_none())
        .map(|(_, l)| l.name.clone())
        .collect();
    if projects.is_empty() || logins.is_empty() {
        return;
    }
    let count = (ds.projects.len() / 10).max(5);
    for i in 0..count {
        // Three of five published, then a draft and a completed one.
        let status = match i % 5 {
            3 => ProgramStatus::Draft,
            4 => ProgramStatus::Completed,
            _ => ProgramStatus::Published,
        };
        let name = format!(
            "{} {} Program {}",
            capitalized(pick(&mut rng, TOPICS)),
            capitalized(pick(&mut rng, FEATURES)),
            i + 1
        );
        let key = slug(&name);
        let started = when(&mut rng, START, END - 200 * DAY);
        let ended = started + rng.random_range(8..30) * 7 * DAY;
        let levels: Vec<ExperienceLevel> = ExperienceLevel::ALL
            .iter()
            .copied()
            .filter(|_| chance(&mut rng, 0.5))
            .collect();
        let members = |rng: &mut Rng, n: usize| -> Vec<String> {
            let mut out: Vec<String> = Vec::new();
            while out.len() < n.min(logins.len()) {
                let login = logins[rng.random_range(0..logins.len())].clone();
                if !out.contains(&login) {
                    out.push(login);
                }
            }
            out
        };
        let n = rng.random_range(1..4);
        let admins = members(&mut rng, n);
        push(
            &mut ds.programs,
            "programs.jsonl",
            Program {
                key: key.clone(),
                name: name.clone(),
                description: format!("{name} pairs contributors with mentors."),
                status,
                mentees_limit: chance(&mut rng, 0.7).then(|| rng.random_range(5..60)),
                experience_levels: levels,
                started_at: ts(started),
                ended_at: ts(ended),
                domains: vec![capitalized(pick(&mut rng, COMPONENTS))],
                tags: vec![pick(&mut rng, TOPICS).to_string()],
                admins,
            },
        );
        for position in 1..=rng.random_range(2..5u64) {
            let project = projects[rng.random_range(0..projects.len())].clone();
            let module_name = format!("{} {position}", capitalized(pick(&mut rng, COMPONENTS)));
            let module_labels = if labels.is_empty() {
                Vec::new()
            } else {
                vec![labels[rng.random_range(0..labels.len())].clone()]
            };
            let n = rng.random_range(1..4);
            let mentors = members(&mut rng, n);
            let n = rng.random_range(1..8);
            let mentees = members(&mut rng, n);
            let level = ExperienceLevel::ALL[ds.modules.len() % ExperienceLevel::ALL.len()];
            push(
                &mut ds.modules,
                "modules.jsonl",
                Module {
                    program: key.clone(),
                    key: slug(&module_name),
                    name: module_name,
                    description: String::new(),
                    experience_level: level,
                    position,
                    started_at: ts(started),
                    ended_at: ts(ended),
                    domains: Vec::new(),
                    tags: Vec::new(),
                    labels: module_labels,
                    mentee_can_manage_deadlines: chance(&mut rng, 0.5),
                    project: chance(&mut rng, 0.9).then_some(project),
                    mentors,
                    mentees,
                },
            );
        }
    }
}

fn capitalized(word: &str) -> String {
    let mut out = String::new();
    super::text::capitalize_into(&mut out, word);
    out
}
