//! The issues and pull requests of a synthetic dataset. A repository's issues are
//! drawn with it, in the main stream (`Synth::repository`); its pull requests come
//! after every other record, from a stream of their own ([`PullRequests`]), numbered
//! after the repository's issues.

use rand::{RngExt, SeedableRng};

use super::code::Parent;
use super::random::{chance, later, pick, skew, ts, DAY, END};
use super::text::{capitalize_into, markdown};
use super::words::{COMPONENTS, FEATURES, PACKAGES, PROBLEMS, UNICODE_TITLES, VERBS};
use super::{RepoIssues, Rng, Synth};
use crate::records::{Dataset, Issue, PullRequest, State};

impl Synth {
    /// Appends `count` issues to `out`; returns the number of open ones.
    // Long because every field of the record is drawn here, in a fixed order: the draws
    // are the dataset (one seed, the same records), so the code's order is the order of
    // the draws and a split would only scatter it.
    pub(super) fn issues(&mut self, at: &Parent, count: usize, out: &mut Vec<Issue>) -> u64 {
        let Parent { org, repo, created } = *at;
        let times = self.times(created, count);
        let n_labels = self.label_names.len();
        out.reserve_exact(count);
        let mut number = 0u64;
        let mut open = 0;
        for created in times {
            let rng = &mut self.rng;
            // Pull requests share the numbering, so issue numbers have gaps.
            number += 1 + if chance(rng, 0.4) {
                rng.random_range(1..4)
            } else {
                0
            };
            let age = END - created;
            let closed = chance(rng, if age > 365 * DAY { 0.85 } else { 0.5 });
            let (state, closed_at, updated) = if closed {
                let closed_at = later(rng, created, END);
                let updated = later(rng, closed_at, END);
                (State::Closed, Some(closed_at), updated)
            } else {
                open += 1;
                (State::Open, None, later(rng, created, END))
            };
            let title = match rng.random_range(0..12u32) {
                0..=3 => {
                    let mut t = String::new();
                    capitalize_into(&mut t, pick(rng, COMPONENTS));
                    t.push(' ');
                    t.push_str(pick(rng, PROBLEMS));
                    t
                }
                4 | 5 => format!("{} the {}", pick(rng, VERBS), pick(rng, COMPONENTS)),
                6 => format!(
                    "Update dependency {} to v{}.{}.{}",
                    pick(rng, PACKAGES),
                    rng.random_range(1..20u32),
                    rng.random_range(0..30u32),
                    rng.random_range(0..15u32)
                ),
                7 => format!("Feature request: {}", pick(rng, FEATURES)),
                8 => format!("[Bug] {}: {}", pick(rng, COMPONENTS), pick(rng, PROBLEMS)),
                9 => pick(rng, UNICODE_TITLES).to_string(),
                10 => format!(
                    "Docs: explain {} in the {}",
                    pick(rng, FEATURES),
                    pick(rng, COMPONENTS)
                ),
                _ => format!("Question about {}", pick(rng, FEATURES)),
            };
            let body = if chance(rng, 0.03) {
                String::new()
            } else {
                let target = 500 + (3_300.0 * rng.random::<f64>().powf(2.5)) as usize;
                let mut body = String::with_capacity(target + 400);
                markdown(rng, &mut body, target);
                body
            };
            let label_count = match rng.random_range(0..10u32) {
                0..=2 => 0,
                3..=6 => 1,
                7 | 8 => 2,
                _ => 3,
            }
            .min(n_labels);
            let mut picked: [usize; 3] = [usize::MAX; 3];
            let mut k = 0;
            while k < label_count {
                let l = skew(rng, n_labels, 3.0);
                if !picked[..k].contains(&l) {
                    picked[k] = l;
                    k += 1;
                }
            }
            let labels = picked[..label_count]
                .iter()
                .map(|&l| self.label_names[l].clone())
                .collect();
            let author = self.author(0.03);
            // Every field set; the update keeps an optional field added later at
            // its default without an edit here.
            #[allow(clippy::needless_update)]
            out.push(Issue {
                organization: org.to_string(),
                repository: repo.to_string(),
                number,
                title,
                state,
                body,
                author,
                url: format!("https://github.com/{org}/{repo}/issues/{number}"),
                labels,
                created_at: ts(created),
                updated_at: ts(updated),
                closed_at: closed_at.map(ts),
                ..Issue::default()
            });
        }
        open
    }
}

/// The pull requests of a synthetic dataset, drawn one at a time from a stream of their
/// own (seeded from the dataset's seed), so that `roost db synth` writes them without
/// holding them: about 100,000 at `nest`, a million at `10x`. Busy repositories (many issues) get most of
/// them, activity grows towards the end of the history, most older ones are closed
/// and most closed ones merged; numbers continue after each repository's issues.
pub(super) struct PullRequests<'a> {
    ds: &'a Dataset,
    rng: Rng,
    left: usize,
    /// Cumulative weight of each repository (its issues + 1).
    cumulative: Vec<f64>,
    /// The next number of each repository.
    next_number: Vec<u64>,
}

impl<'a> PullRequests<'a> {
    /// `issues`: the issues of each repository of `ds`, in order.
    pub(super) fn new(
        ds: &'a Dataset,
        issues: &[RepoIssues],
        count: usize,
        seed: u64,
    ) -> PullRequests<'a> {
        let mut total = 0.0;
        let cumulative = issues
            .iter()
            .map(|i| {
                total += i.count as f64 + 1.0;
                total
            })
            .collect();
        PullRequests {
            ds,
            rng: Rng::seed_from_u64(seed ^ 0x7075_6c6c_7265_7173),
            left: if ds.repositories.is_empty() { 0 } else { count },
            cumulative,
            next_number: issues.iter().map(|i| i.last_number + 1).collect(),
        }
    }
}

impl Iterator for PullRequests<'_> {
    type Item = PullRequest;

    fn next(&mut self) -> Option<PullRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let rng = &mut self.rng;
        let total = *self.cumulative.last()?;
        let target = rng.random_range(0.0..total);
        let r = self
            .cumulative
            .partition_point(|&c| c <= target)
            .min(self.cumulative.len() - 1);
        let repo = &self.ds.repositories[r].1;
        let number = self.next_number[r];
        self.next_number[r] += 1 + u64::from(chance(rng, 0.2));
        let repo_created = repo.created_at.0 / 1_000_000;
        let created = later(rng, repo_created, END);
        let age = END - created;
        let closed = chance(rng, if age > 90 * DAY { 0.92 } else { 0.45 });
        let (state, closed_at, merged_at, updated) = if closed {
            let closed_at = later(rng, created, (created + 60 * DAY).min(END));
            let merged = chance(rng, 0.75);
            let updated = later(rng, closed_at, END);
            (
                State::Closed,
                Some(ts(closed_at)),
                merged.then(|| ts(closed_at)),
                updated,
            )
        } else {
            (State::Open, None, None, later(rng, created, END))
        };
        let mut title = String::new();
        capitalize_into(&mut title, pick(rng, VERBS));
        title.push(' ');
        title.push_str(pick(rng, COMPONENTS));
        title.push_str(if chance(rng, 0.5) { ": " } else { " for " });
        title.push_str(if chance(rng, 0.5) {
            pick(rng, PROBLEMS)
        } else {
            pick(rng, FEATURES)
        });
        let mut body = String::new();
        if chance(rng, 0.4) {
            markdown(rng, &mut body, 300);
        }
        let members = self.ds.members.len();
        let author = if members == 0 || chance(rng, 0.03) {
            None
        } else {
            Some(self.ds.members[skew(rng, members, 2.5)].1.login.clone())
        };
        // Every field set; the update keeps an optional field added later at its
        // default without an edit here.
        #[allow(clippy::needless_update)]
        Some(PullRequest {
            url: format!(
                "https://github.com/{}/{}/pull/{number}",
                repo.organization, repo.name
            ),
            organization: repo.organization.clone(),
            repository: repo.name.clone(),
            number,
            title,
            state,
            body,
            author,
            created_at: ts(created),
            updated_at: ts(updated),
            closed_at,
            merged_at,
            ..PullRequest::default()
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}
