//! The code-hosting records of a synthetic dataset: labels (shared, and of single
//! repositories), repositories and their contributors, and per repository its issues
//! (drawn by `issues`), milestones and releases. The labels of single repositories were
//! added later, so they are drawn after the community records (`Synth::run`).
//!
//! The records a repository owns (contributors, issues, milestones, releases: almost
//! all of a dataset's bytes) are drawn with the repository and handed to
//! `Synth::keep_owned`, which keeps them or only what later records need of them.
//! [`Repositories`] draws them again, repository by repository, from the random
//! stream as it was before the first: the same records, one repository's at a time.

use std::collections::HashSet;
use std::fmt::Write as _;

use chrono::Datelike;
use rand::RngExt;

use super::random::{apportion, chance, later, pareto, pick, skew, ts, when, DAY, END, START};
use super::text::{capitalize_into, unique};
use super::words::{
    COLORS, COMPONENTS, FEATURES, LABEL_BASE, LABEL_PREFIXES, LANGUAGES, LICENSES, PROBLEMS,
    PROJECT_NOUN, REPO_EXTS, REPO_WORDS, TOPICS, UNICODE_TITLES, VERBS,
};
use super::{push, Rng, Synth, MAX_CONTRIBUTORS};
use crate::records::{
    Color, Issue, Label, Milestone, Release, Repository, RepositoryContributor, State,
};
use crate::store::Streamed;

/// The repository the records drawn for it belong to: its organization, its name and
/// when it was created (none of them is older).
#[derive(Clone, Copy)]
pub(super) struct Parent<'a> {
    pub org: &'a str,
    pub repo: &'a str,
    pub created: i64,
}

/// What is decided for a repository before it is generated.
#[derive(Debug, Clone)]
pub(super) struct RepoPlan {
    /// Index of its organization.
    org: usize,
    size: f64,
    created: i64,
    issues: usize,
    milestones: usize,
    releases: usize,
}

impl Synth {
    pub(super) fn labels(&mut self) {
        let mut seen = HashSet::new();
        for i in 0..self.n.labels {
            let rng = &mut self.rng;
            let (name, description) = if let Some(&(name, description)) = LABEL_BASE.get(i) {
                (name.to_string(), description.to_string())
            } else {
                let prefix = pick(rng, LABEL_PREFIXES);
                let word = pick(rng, REPO_WORDS);
                let description = if chance(rng, 0.5) {
                    String::new()
                } else {
                    format!(
                        "Issues about the {word} {}",
                        prefix.trim_end_matches([':', '/', ' '])
                    )
                };
                (format!("{prefix}{word}"), description)
            };
            let name = unique(&mut seen, name);
            let created = when(rng, START, END);
            let updated = later(rng, created, END);
            self.label_names.push(name.clone());
            push(
                &mut self.ds.labels,
                "labels.jsonl",
                Label {
                    organization: None,
                    repository: None,
                    name,
                    color: Color(COLORS[skew(rng, COLORS.len(), 1.5)].to_string()),
                    description,
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    /// A label of its own in some repositories, named like a shared one (`bug`, ...)
    /// with another colour: issues of that repository showing that name show it.
    pub(super) fn repository_labels(&mut self) {
        let repos = self.ds.repositories.len();
        let n = self.n.repository_labels.min(repos * 4);
        for k in 0..n {
            let rng = &mut self.rng;
            // Round `k / repos` gives every repository (visited in a scattered order)
            // the round's name: a repository never gets one name twice.
            let stride = if repos.is_multiple_of(7919) { 1 } else { 7919 };
            let repo = &self.ds.repositories[(k % repos) * stride % repos].1;
            let (name, description) = LABEL_BASE[k / repos];
            let created = when(rng, repo.created_at.0 / 1_000_000, END);
            let updated = later(rng, created, END);
            let label = Label {
                organization: Some(repo.organization.clone()),
                repository: Some(repo.name.clone()),
                name: name.to_string(),
                color: Color(pick(rng, COLORS).to_string()),
                description: if chance(rng, 0.5) {
                    format!("{description} in {}", repo.name)
                } else {
                    String::new()
                },
                created_at: ts(created),
                updated_at: ts(updated),
            };
            push(&mut self.ds.labels, "labels.jsonl", label);
        }
    }

    pub(super) fn repositories(&mut self) {
        let n = self.n.repositories;
        let rng = &mut self.rng;
        // Repositories per organization: Zipf-like.
        let org_weights: Vec<f64> = (0..self.ds.organizations.len())
            .map(|i| 1.0 / (i as f64 + 1.0).powf(0.9))
            .collect();
        let per_org = apportion(n, &org_weights);
        // One "size" per repository drives stars, forks, issues, releases, milestones.
        let size: Vec<f64> = (0..n).map(|_| pareto(rng, 1.1, 5_000.0)).collect();
        let created: Vec<i64> = (0..n).map(|_| when(rng, START, END - 30 * DAY)).collect();
        // Older repositories have had longer to gather issues and releases.
        let age: Vec<f64> = created
            .iter()
            .map(|&c| (END - c) as f64 / (END - START) as f64)
            .collect();
        let issue_w: Vec<f64> = (0..n)
            .map(|r| {
                if chance(rng, 0.12) {
                    0.0
                } else {
                    size[r].powf(0.9) * age[r] * rng.random_range(0.3..1.7)
                }
            })
            .collect();
        // `share` of the repositories have milestones (releases), weighted by their
        // size and age; the others have none.
        let mut weights = |share: f64, growth: f64| -> Vec<f64> {
            let weight = |r: usize| size[r].powf(growth) * age[r];
            (0..n)
                .map(|r| if chance(rng, share) { weight(r) } else { 0.0 })
                .collect()
        };
        let milestone_w = weights(0.4, 0.5);
        let release_w = weights(0.7, 0.7);
        let issues = apportion(self.n.issues, &issue_w);
        let milestones = apportion(self.n.milestones, &milestone_w);
        let releases = apportion(self.n.releases, &release_w);

        let mut plans = Vec::with_capacity(n);
        let mut r = 0;
        for (org, &count) in per_org.iter().enumerate() {
            for _ in 0..count {
                plans.push(RepoPlan {
                    org,
                    size: size[r],
                    created: created[r],
                    issues: issues[r],
                    milestones: milestones[r],
                    releases: releases[r],
                });
                r += 1;
            }
        }
        self.ds.repositories.reserve(n);
        self.replay = Some((self.rng.clone(), plans.clone()));
        let mut seen = HashSet::with_capacity(n);
        for plan in plans {
            let org = self.ds.organizations[plan.org].1.login.clone();
            let (repository, owned) = self.repository(&org, &mut seen, plan);
            self.keep_owned(repository, owned);
        }
    }

    /// Repository `plan` of organization `org` and the records it owns. Every field
    /// is drawn in a fixed order: the draws are the dataset (one seed, the same
    /// records), so the code's order, here and in the helpers it calls in turn
    /// ([`repository_name`], [`Self::contributors`]), is the order of the draws.
    fn repository(
        &mut self,
        org: &str,
        seen: &mut HashSet<String>,
        plan: RepoPlan,
    ) -> (Repository, Owned) {
        let RepoPlan {
            org: _,
            size,
            created,
            issues,
            milestones,
            releases,
        } = plan;
        let rng = &mut self.rng;
        let name = repository_name(rng, org, seen);
        let stars = ((size - 1.0) * 20.0 * rng.random_range(0.5..1.5)) as u64;
        let forks = (stars as f64 * rng.random_range(0.05..0.35)) as u64;
        let subscribers =
            (stars as f64 * rng.random_range(0.01..0.05)) as u64 + rng.random_range(0..4);
        let commits = (pareto(rng, 0.9, 200_000.0) * 5.0) as u64;
        let is_archived = chance(rng, 0.08);
        let pushed = if chance(rng, 0.03) {
            None
        } else {
            Some(later(rng, created, END))
        };
        let topics: Vec<String> = (0..skew(rng, 6, 1.3))
            .map(|_| pick(rng, TOPICS).to_string())
            .fold(Vec::new(), |mut v, t| {
                if !v.contains(&t) {
                    v.push(t);
                }
                v
            });
        let languages: Vec<String> = (0..rng.random_range(1..5))
            .map(|_| LANGUAGES[skew(rng, LANGUAGES.len(), 1.5)].to_string())
            .fold(Vec::new(), |mut v, t| {
                if !v.contains(&t) {
                    v.push(t);
                }
                v
            });
        let description = match rng.random_range(0..20u32) {
            0 | 1 => None,
            2 => Some(String::new()),
            3 => Some(format!("{} — {}", name, pick(rng, UNICODE_TITLES))),
            _ => Some(format!(
                "A {} {} for {}.",
                pick(rng, TOPICS),
                pick(rng, REPO_WORDS),
                pick(rng, FEATURES)
            )),
        };
        let license = LICENSES[skew(rng, LICENSES.len(), 1.7)].to_string();
        let url = if chance(rng, 0.8) {
            format!("https://github.com/{org}/{name}")
        } else {
            String::new()
        };

        let contributors = self.contributors(org, &name, size);
        let wanted = contributors.len();
        let mut owned = Owned {
            contributors,
            ..Owned::default()
        };

        let at = Parent {
            org,
            repo: &name,
            created,
        };
        let open = self.issues(&at, issues, &mut owned.issues);
        self.milestones(&at, milestones, &mut owned.milestones);
        self.releases(&at, releases, &mut owned.releases);

        let rng = &mut self.rng;
        let updated =
            later(rng, pushed.unwrap_or(created).max(created), END).max(pushed.unwrap_or(0));
        let repository = Repository {
            organization: org.to_string(),
            name,
            description,
            url,
            commits_count: commits,
            contributors_count: wanted as u64,
            forks_count: forks,
            open_issues_count: open,
            stars_count: stars,
            subscribers_count: subscribers,
            is_archived,
            license,
            topics,
            languages,
            pushed_at: pushed.map(ts),
            created_at: ts(created),
            updated_at: ts(updated),
            // Grows with the history; made from the draws above, so adding it kept
            // every dataset of the same seed as it was.
            size: Some(commits * 3 / 2 + 24),
        };
        (repository, owned)
    }

    /// The contributors of repository `org/name` of `size`: a few to a few dozen,
    /// bigger repositories have more; most contributions first.
    fn contributors(&mut self, org: &str, name: &str, size: f64) -> Vec<RepositoryContributor> {
        let wanted =
            (2 + (size.ln() * 3.0) as usize + (30.0 * self.rng.random::<f64>().powi(3)) as usize)
                .min(MAX_CONTRIBUTORS)
                .min(self.members.len());
        let mut contributors: Vec<usize> = Vec::with_capacity(wanted);
        while contributors.len() < wanted {
            let m = skew(&mut self.rng, self.members.len(), 2.0);
            if !contributors.contains(&m) {
                contributors.push(m);
            }
        }
        let mut counts: Vec<u64> = contributors
            .iter()
            .map(|_| (pareto(&mut self.rng, 0.8, 20_000.0)) as u64)
            .collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        contributors
            .iter()
            .zip(&counts)
            .map(|(m, c)| RepositoryContributor {
                organization: org.to_string(),
                repository: name.to_string(),
                member: self.members[*m].login.clone(),
                contributions_count: *c,
            })
            .collect()
    }

    /// Sorted creation times of `count` records of a repository created at `created`.
    pub(super) fn times(&mut self, created: i64, count: usize) -> Vec<i64> {
        let mut times: Vec<i64> = (0..count)
            .map(|_| when(&mut self.rng, created, END))
            .collect();
        times.sort_unstable();
        times
    }

    fn milestones(&mut self, at: &Parent, count: usize, out: &mut Vec<Milestone>) {
        let Parent { org, repo, created } = *at;
        let times = self.times(created, count);
        let (mut major, mut minor) = (0u32, 1u32);
        for (i, created) in times.into_iter().enumerate() {
            let rng = &mut self.rng;
            let number = i as u64 + 1;
            let title = match rng.random_range(0..4u32) {
                0 | 1 => {
                    if chance(rng, 0.2) {
                        major += 1;
                        minor = 0;
                    } else {
                        minor += 1;
                    }
                    format!("v{major}.{minor}")
                }
                2 => format!("Sprint {number}"),
                _ => {
                    let year =
                        chrono::DateTime::from_timestamp(created, 0).map_or(2020, |d| d.year());
                    format!("Q{} {year}", rng.random_range(1..5u32))
                }
            };
            let due_on = if chance(rng, 0.3) {
                None
            } else {
                Some(created + rng.random_range(14..120i64) * DAY)
            };
            let closed = match due_on {
                Some(due) if due < END - 30 * DAY => chance(rng, 0.9),
                Some(_) => chance(rng, 0.1),
                None => chance(rng, 0.5),
            };
            let updated = later(rng, created, END);
            let body = if chance(rng, 0.3) {
                String::new()
            } else {
                format!(
                    "Everything planned for **{title}**.\n\n- {}\n- {}\n",
                    pick(rng, FEATURES),
                    pick(rng, PROBLEMS)
                )
            };
            let open_count = (pareto(rng, 1.5, 500.0) - 1.0) as u64;
            let closed_count = (pareto(rng, 1.0, 2_000.0) - 1.0) as u64 * 2;
            let author = self.author(0.05);
            out.push(Milestone {
                organization: org.to_string(),
                repository: repo.to_string(),
                number,
                title,
                state: if closed { State::Closed } else { State::Open },
                body,
                author,
                url: format!("https://github.com/{org}/{repo}/milestone/{number}"),
                open_issues_count: if closed { 0 } else { open_count },
                closed_issues_count: closed_count,
                due_on: due_on.map(ts),
                created_at: ts(created),
                updated_at: ts(updated),
            });
        }
    }

    // Long because every field of the record is drawn here, in a fixed order: the draws
    // are the dataset (one seed, the same records), so the code's order is the order of
    // the draws and a split would only scatter it.

    fn releases(&mut self, at: &Parent, count: usize, out: &mut Vec<Release>) {
        let Parent { org, repo, created } = *at;
        let times = self.times(created, count);
        let rng = &mut self.rng;
        // Tag style per repository; versions only grow, so tags never repeat.
        let style = rng.random_range(0..40u32);
        let components: Vec<&str> = (0..rng.random_range(1..4))
            .map(|_| pick(rng, REPO_WORDS))
            .collect();
        let (mut major, mut minor, mut patch) = if chance(rng, 0.5) {
            (0u32, 1u32, 0u32)
        } else {
            (1, 0, 0)
        };
        let mut first = true;
        for created in times {
            let rng = &mut self.rng;
            if !first {
                match rng.random_range(0..20u32) {
                    0 => {
                        major += 1;
                        minor = 0;
                        patch = 0;
                    }
                    1..=6 => {
                        minor += 1;
                        patch = 0;
                    }
                    _ => patch += 1,
                }
            }
            first = false;
            let version = format!("{major}.{minor}.{patch}");
            let pre = chance(rng, 0.1);
            let pre_suffix = if pre {
                format!(
                    "-{}.{}",
                    pick(rng, &["rc", "beta", "alpha"]),
                    rng.random_range(1..4u32)
                )
            } else {
                String::new()
            };
            let tag = match style {
                0..=19 => format!("v{version}{pre_suffix}"),
                20..=35 => format!("{version}{pre_suffix}"),
                36 | 37 => format!("release/{version}{pre_suffix}"),
                _ => format!("{}/v{version}{pre_suffix}", pick(rng, &components)),
            };
            let unpublished = chance(rng, 0.05);
            let published = if unpublished {
                None
            } else {
                Some((created + rng.random_range(0..3 * DAY)).min(END))
            };
            let name = match rng.random_range(0..10u32) {
                0 => String::new(),
                1..=4 => tag.clone(),
                5..=7 => format!("Release {version}{pre_suffix}"),
                8 => format!(
                    "{version} — {}",
                    pick(rng, &["Zürich", "東京", "São Paulo", "Kraków", "Αθήνα"])
                ),
                _ => format!("{} {version}", pick(rng, PROJECT_NOUN)),
            };
            let description = if chance(rng, 0.2) {
                String::new()
            } else {
                let mut d = String::from("## What's changed\n\n");
                for _ in 0..rng.random_range(1..6) {
                    let _ = writeln!(
                        d,
                        "- {} {} (#{})",
                        pick(rng, VERBS),
                        pick(rng, COMPONENTS),
                        rng.random_range(1..5_000u32)
                    );
                }
                d
            };
            let url = if chance(rng, 0.7) {
                format!("https://github.com/{org}/{repo}/releases/tag/{tag}")
            } else {
                String::new()
            };
            let is_draft = unpublished && chance(rng, 0.8);
            let author = self.author(0.05);
            out.push(Release {
                organization: org.to_string(),
                repository: repo.to_string(),
                tag_name: tag,
                name,
                description,
                author,
                url,
                is_draft,
                is_pre_release: pre,
                published_at: published.map(ts),
                created_at: ts(created),
            });
        }
    }
}

/// The records one repository owns, in the order drawn.
#[derive(Debug, Default)]
pub(super) struct Owned {
    pub contributors: Vec<RepositoryContributor>,
    pub issues: Vec<Issue>,
    pub milestones: Vec<Milestone>,
    pub releases: Vec<Release>,
}

impl Owned {
    /// The records as handed to the store: contributors, issues, milestones, releases.
    fn streamed(self) -> impl Iterator<Item = Streamed> {
        let contributors = self.contributors.into_iter().map(Streamed::Contributor);
        let issues = self.issues.into_iter().map(Streamed::Issue);
        let milestones = self.milestones.into_iter().map(Streamed::Milestone);
        let releases = self.releases.into_iter().map(Streamed::Release);
        contributors.chain(issues).chain(milestones).chain(releases)
    }
}

/// The records the repositories own, drawn again one repository at a time from the
/// random stream as [`Synth::repositories`] found it before the first: the same
/// records, in the same order, without holding more than one repository's.
pub(super) struct Repositories {
    /// The generator as it was then: its random stream, the members and the shared
    /// labels (nothing else of it is read).
    synth: Synth,
    orgs: Vec<String>,
    plans: std::vec::IntoIter<RepoPlan>,
    seen: HashSet<String>,
    current: Box<dyn Iterator<Item = Streamed>>,
}

impl Repositories {
    /// `synth` must hold the random stream and plans saved by `repositories`
    /// (`synth.replay`), its members and shared labels; `orgs` are the organization
    /// logins.
    pub(super) fn new(mut synth: Synth, orgs: Vec<String>) -> Repositories {
        let (rng, plans): (Rng, Vec<RepoPlan>) = synth
            .replay
            .take()
            .unwrap_or_else(|| (synth.rng.clone(), Vec::new()));
        synth.rng = rng;
        Repositories {
            seen: HashSet::with_capacity(plans.len()),
            synth,
            orgs,
            plans: plans.into_iter(),
            current: Box::new(std::iter::empty()),
        }
    }
}

impl Iterator for Repositories {
    type Item = Streamed;

    fn next(&mut self) -> Option<Streamed> {
        loop {
            if let Some(record) = self.current.next() {
                return Some(record);
            }
            let plan = self.plans.next()?;
            let org = self.orgs[plan.org].clone();
            let (_, owned) = self.synth.repository(&org, &mut self.seen, plan);
            self.current = Box::new(owned.streamed());
        }
    }
}

/// A repository name of organization `org` not yet in `seen` (which gets it).
fn repository_name(rng: &mut Rng, org: &str, seen: &mut HashSet<String>) -> String {
    let mut name = String::new();
    let first = pick(rng, REPO_WORDS);
    match rng.random_range(0..5u32) {
        0 => name.push_str(first),
        1 | 2 => {
            name.push_str(first);
            name.push('-');
            name.push_str(pick(rng, REPO_WORDS));
        }
        3 => {
            capitalize_into(&mut name, first);
            name.push_str(pick(rng, REPO_EXTS));
        }
        _ => {
            name.push_str(first);
            name.push_str(pick(rng, REPO_EXTS));
            name.push('_');
            name.push_str(pick(rng, REPO_WORDS));
        }
    }
    let full = unique(seen, format!("{org}/{name}"));
    full[org.len() + 1..].to_string()
}
