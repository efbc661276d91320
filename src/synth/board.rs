//! The board records of a synthetic dataset: a board of directors for each of the
//! last four years of the history (its election's candidates and its members), an
//! activity snapshot of every candidate with an account for the year before their
//! election, and the members' board, staff and mentoring fields.
//!
//! Drawn from a stream of their own, split from the main one without advancing it,
//! so every record drawn before them (and after: the streamed pull requests) stays
//! as it was.

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};

use super::random::{chance, month_start, pick, ts, DAY, END};
use super::{push, Rng, Synth};
use crate::records::{Board, Leader, MemberSnapshot};
use crate::schema::Counts;

const STATEMENTS: &[&str] = &[
    "I want the community's projects to have the resources they need to thrive.",
    "Chapters are where most members meet us first; I will put them first.",
    "More transparency in how the board decides, and more voices in the room.",
    "I have led a chapter for years and want to bring that experience to the board.",
    "Security education should be free and open to everyone, everywhere.",
];

const CHANNELS: &[&str] = &["#general", "#chapter-leaders", "#project-leaders", "#board"];

impl Synth {
    /// The boards of the last four years, each with its candidates and their activity
    /// snapshots. Every field is drawn in a fixed order: the draws are the dataset (one
    /// seed, the same records).
    pub(super) fn boards(&mut self) {
        let mut rng = Rng::seed_from_u64(self.rng.clone().random::<u64>() ^ 0x626f_6172_6473);
        let rng = &mut rng;
        let members = self.ds.members.len();
        if members == 0 {
            return;
        }
        // A few members' further fields.
        for (_, m) in self.ds.members.iter_mut() {
            m.is_gsoc_mentor = chance(rng, 0.01);
            m.is_former_owasp_staff = chance(rng, 0.002);
            if chance(rng, 0.05) {
                m.linkedin_page_id = m.login.to_lowercase();
            }
            if chance(rng, 0.3) {
                let created = m.created_at.0 / 1_000_000;
                m.first_owasp_contribution_at =
                    Some(ts(created + rng.random_range(0..=(END - created).max(0))));
            }
        }
        let end_year = chrono::DateTime::from_timestamp(END, 0)
            .map(|d| chrono::Datelike::year(&d))
            .unwrap_or(2026);
        let chapters = column(&self.ds.chapters, |c| c.key.clone());
        let projects = column(&self.ds.projects, |p| p.key.clone());
        let repositories = column(&self.ds.repositories, |r| {
            format!("{}/{}", r.organization, r.name)
        });
        for year in end_year - 3..=end_year {
            let count = rng.random_range(6..=12usize).min(members);
            let mut chosen: Vec<usize> = Vec::new();
            while chosen.len() < count {
                let i = rng.random_range(0..members);
                if !chosen.contains(&i) {
                    chosen.push(i);
                }
            }
            let entry = |i: usize, rng: &mut Rng, role: &str| {
                let m = &self.ds.members[i].1;
                Leader {
                    name: if m.name.is_empty() {
                        m.login.clone()
                    } else {
                        m.name.clone()
                    },
                    login: Some(m.login.clone()),
                    description: if role.is_empty() {
                        pick(rng, STATEMENTS).to_string()
                    } else {
                        role.to_string()
                    },
                    email: if chance(rng, 0.5) {
                        format!("{}@candidates.example.org", m.login.to_lowercase())
                    } else {
                        String::new()
                    },
                }
            };
            let candidates: Vec<Leader> = chosen.iter().map(|&i| entry(i, rng, "")).collect();
            let elected: Vec<usize> = chosen.iter().copied().take(count.min(7)).collect();
            let board_members: Vec<Leader> =
                elected.iter().map(|&i| entry(i, rng, "Director")).collect();
            let opened = month_start(year, 9);
            push(
                &mut self.ds.boards,
                "boards.jsonl",
                Board {
                    year: year as u64,
                    url: format!("https://community.example.org/board/elections/{year}/"),
                    candidates,
                    members: board_members,
                    created_at: ts(opened),
                    updated_at: ts(opened + rng.random_range(0..60) * DAY),
                },
            );
            if year == end_year {
                for &i in &elected {
                    self.ds.members[i].1.is_owasp_board_member = true;
                }
            }
            // Each candidate's activity over the year before the election.
            for &i in &chosen {
                self.candidate_activity(rng, i, year, &chapters, &projects, &repositories);
            }
        }
    }

    /// The activity snapshot of member `i`, a candidate of `year`'s election, over the
    /// year before it: drawn from `rng` in a fixed order, as the boards are.
    fn candidate_activity(
        &mut self,
        rng: &mut Rng,
        i: usize,
        year: i32,
        chapters: &[String],
        projects: &[String],
        repositories: &[String],
    ) {
        let (start, end) = (month_start(year - 1, 1), month_start(year, 1) - 1);
        let mut days = BTreeMap::new();
        let mut talk = BTreeMap::new();
        for _ in 0..rng.random_range(10..80) {
            let day = start + rng.random_range(0..365) * DAY;
            let key = chrono::DateTime::from_timestamp(day, 0)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default();
            *days.entry(key.clone()).or_insert(0) += rng.random_range(1..6u64);
            if chance(rng, 0.4) {
                *talk.entry(key).or_insert(0) += rng.random_range(1..9u64);
            }
        }
        let tally = |keys: &[String], rng: &mut Rng, n: usize| {
            let mut out = BTreeMap::new();
            for _ in 0..n.min(keys.len()) {
                *out.entry(keys[rng.random_range(0..keys.len())].clone())
                    .or_insert(0) += rng.random_range(1..40u64);
            }
            Counts(out)
        };
        let channels: Vec<String> = CHANNELS.iter().map(|c| c.to_string()).collect();
        let chapter_contributions = tally(chapters, rng, 2);
        let project_contributions = tally(projects, rng, 3);
        let repository_contributions = tally(repositories, rng, 4);
        let channel_communications = tally(&channels, rng, 3);
        let contributions = Counts(days);
        let total = contributions.total();
        let pull_requests = total / 4;
        let issues = total / 5;
        let communication = Counts(talk);
        push(
            &mut self.ds.member_snapshots,
            "member_snapshots.jsonl",
            MemberSnapshot {
                member: self.ds.members[i].1.login.clone(),
                start_at: ts(start),
                end_at: ts(end),
                commits_count: total - pull_requests - issues,
                pull_requests_count: pull_requests,
                issues_count: issues,
                messages_count: communication.total(),
                contribution_heatmap_data: contributions,
                communication_heatmap_data: communication,
                chapter_contributions,
                project_contributions,
                repository_contributions,
                channel_communications,
            },
        );
    }
}

/// `value` of each record of `records`, in order.
fn column<T>(records: &crate::records::Records<T>, value: impl Fn(&T) -> String) -> Vec<String> {
    records.iter().map(|(_, r)| value(r)).collect()
}
