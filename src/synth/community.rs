//! The community records of a synthetic dataset: chapters, committees, projects,
//! events, sponsors, and the monthly snapshots that list what was new.

use std::collections::HashSet;

use chrono::{Datelike, Duration, NaiveDate};
use rand::RngExt;

use super::random::{
    chance, enum_value, later, month_start, pick, ts, when, DAY, END, MONTHS, START,
};
use super::text::{slug, unique};
use super::words::{
    CHAPTER_SUFFIXES, CITIES, COMMITTEES, PARTNERS, PROJECT_ADJ, PROJECT_NOUN, PROJECT_UNICODE,
    SPONSORS,
};
use super::{push, Synth};
use crate::records::{
    Category, Chapter, Committee, Date, Event, IssueRef, Level, MemberType, Project, ProjectType,
    ReleaseRef, RepositoryRef, Snapshot, SnapshotStatus, Sponsor, SponsorType, Ts,
};

impl Synth {
    pub(super) fn chapters(&mut self) {
        let mut seen = HashSet::new();
        for i in 0..self.n.chapters {
            let rng = &mut self.rng;
            let (city, variant) = if let Some(&city) = CITIES.get(i) {
                (city, None)
            } else {
                (pick(rng, CITIES), Some(pick(rng, CHAPTER_SUFFIXES)))
            };
            let (name, slug_part) = match variant {
                None => (city.0.to_string(), city.1.to_string()),
                Some((s, ss)) => (format!("{} {s}", city.0), format!("{}-{ss}", city.1)),
            };
            let key = unique(&mut seen, format!("www-chapter-{slug_part}"));
            let (latitude, longitude) = if chance(rng, 0.1) {
                (None, None)
            } else {
                let jitter = if variant.is_some() { 0.05 } else { 0.0 };
                let lat = city.4 + rng.random_range(-1.0..=1.0) * jitter;
                let lng = city.5 + rng.random_range(-1.0..=1.0) * jitter;
                (
                    Some((lat * 10_000.0).round() / 10_000.0),
                    Some((lng * 10_000.0).round() / 10_000.0),
                )
            };
            let is_active = chance(rng, 0.85);
            let created = when(rng, START, END);
            let updated = later(rng, created, END);
            let summary = match rng.random_range(0..3u32) {
                0 => format!(
                    "Free and open meetups, workshops and CTF nights in {}, {}.",
                    name, city.2
                ),
                1 => format!("Local community of developers, testers and defenders in {name}."),
                _ => String::new(),
            };
            let leaders = self.leaders(4);
            push(
                &mut self.ds.chapters,
                "chapters.jsonl",
                Chapter {
                    url: format!("https://community.example.org/{key}/"),
                    key,
                    name,
                    is_active,
                    country: city.2.to_string(),
                    region: city.3.to_string(),
                    latitude,
                    longitude,
                    summary,
                    leaders,
                    suggested_location: None,
                    related_urls: Vec::new(),
                    channels: Vec::new(),
                    repositories: Vec::new(),
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    pub(super) fn committees(&mut self) {
        let mut seen = HashSet::new();
        for i in 0..self.n.committees {
            let rng = &mut self.rng;
            let (base, base_slug) = COMMITTEES[i % COMMITTEES.len()];
            let name = format!("{base} Committee");
            let key = unique(&mut seen, format!("www-committee-{base_slug}"));
            let is_active = i % 6 != 5;
            let created = when(rng, START, END);
            let updated = later(rng, created, END);
            let description = format!(
                "The {name} {}.\n\nMeetings are public; minutes are published on the wiki.",
                pick(
                    rng,
                    &[
                        "supports leaders and approves new proposals",
                        "coordinates volunteers across regions",
                        "reviews policies and reports to the board",
                    ]
                )
            );
            let summary = description.lines().next().unwrap_or_default().to_string();
            let leaders = self.leaders(4);
            push(
                &mut self.ds.committees,
                "committees.jsonl",
                Committee {
                    url: format!("https://community.example.org/{key}/"),
                    key,
                    name,
                    is_active,
                    description,
                    summary,
                    leaders,
                    related_urls: Vec::new(),
                    channels: Vec::new(),
                    repositories: Vec::new(),
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    pub(super) fn projects(&mut self) {
        let mut seen = HashSet::new();
        let n_repos = self.ds.repositories.len();
        for i in 0..self.n.projects {
            let rng = &mut self.rng;
            let (name, slug_part) = if chance(rng, 0.08) {
                let (n, s) = pick(rng, PROJECT_UNICODE);
                (n.to_string(), s.to_string())
            } else {
                let n = format!("{} {}", pick(rng, PROJECT_ADJ), pick(rng, PROJECT_NOUN));
                let s = slug(&n);
                (n, s)
            };
            let key = unique(&mut seen, format!("www-project-{slug_part}"));
            let level = enum_value(rng, i, Level::ALL, &[5, 15, 45, 25, 10]);
            let kind = enum_value(rng, i, ProjectType::ALL, &[55, 20, 20, 5]);
            let is_active = chance(rng, 0.85);
            let created = when(rng, START, END);
            let updated = later(rng, created, END);
            let max_repos = match level {
                Level::Flagship => 6,
                Level::Production => 4,
                _ => 3,
            };
            let wanted = rng.random_range(0..max_repos).min(n_repos);
            let mut repos: Vec<usize> = Vec::with_capacity(wanted);
            while repos.len() < wanted {
                let r = rng.random_range(0..n_repos);
                if !repos.contains(&r) {
                    repos.push(r);
                }
            }
            let repositories = repos
                .iter()
                .map(|&r| {
                    let repo = &self.ds.repositories[r].1;
                    RepositoryRef {
                        organization: repo.organization.clone(),
                        name: repo.name.clone(),
                    }
                })
                .collect();
            let description = format!(
                "{name} is a {}-level {} project of the community.\n\n{}",
                level.as_str(),
                kind.as_str(),
                pick(rng, &[
                    "It is maintained by volunteers; contributions are welcome.",
                    "Il est maintenu par des bénévoles ; les contributions sont les bienvenues.",
                    "Beiträge sind willkommen — siehe CONTRIBUTING.md.",
                ])
            );
            let summary = format!("{name}: a {} project.", kind.as_str());
            let leaders = self.leaders(4);
            push(
                &mut self.ds.projects,
                "projects.jsonl",
                Project {
                    url: format!("https://community.example.org/{key}/"),
                    key,
                    name,
                    is_active,
                    level,
                    kind,
                    description,
                    summary,
                    leaders,
                    repositories,
                    related_urls: Vec::new(),
                    channels: Vec::new(),
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    pub(super) fn events(&mut self) {
        let mut seen = HashSet::new();
        // Events run from 2016 to the end of 2027: some are still upcoming.
        let first_day = NaiveDate::from_ymd_opt(2016, 1, 1).expect("date");
        let days = (NaiveDate::from_ymd_opt(2027, 12, 31).expect("date") - first_day).num_days();
        for i in 0..self.n.events {
            let rng = &mut self.rng;
            let category = enum_value(rng, i, Category::ALL, &[25, 15, 35, 25]);
            let city = pick(rng, CITIES);
            let start = first_day + Duration::days(rng.random_range(0..=days));
            let year = start.year();
            let region = city.3;
            let (name, key) = match category {
                Category::AppsecDays => (
                    format!("AppSec Days {} {year}", city.0),
                    format!("appsec-days-{}-{year}", city.1),
                ),
                Category::Global => (
                    format!("Global AppSec {region} {year} {}", city.0),
                    format!("global-appsec-{}-{year}-{}", slug(region), city.1),
                ),
                Category::Partner => {
                    let partner = pick(rng, PARTNERS);
                    (
                        format!("{partner} {} {year}", city.0),
                        format!("{}-{}-{year}", slug(partner), city.1),
                    )
                }
                Category::Other => (
                    format!("{} Security Meetup {year}", city.0),
                    format!("{}-security-meetup-{year}", city.1),
                ),
            };
            let key = unique(&mut seen, key);
            let end_date = if chance(rng, 0.15) {
                None
            } else {
                Some(start + Duration::days(rng.random_range(0..4)))
            };
            let (latitude, longitude) = if chance(rng, 0.2) {
                (None, None)
            } else {
                (Some(city.4), Some(city.5))
            };
            push(
                &mut self.ds.events,
                "events.jsonl",
                Event {
                    url: if chance(rng, 0.1) {
                        None
                    } else {
                        Some(format!("https://events.example.org/{key}"))
                    },
                    description: if chance(rng, 0.1) {
                        None
                    } else {
                        Some(format!(
                            "{name} brings together developers, defenders and researchers in {region} for talks, trainings and a capture-the-flag.\n\nCall for papers and sponsorship details are on the event page."
                        ))
                    },
                    summary: format!("{name} ({})", category.as_str()),
                    suggested_location: if chance(rng, 0.7) {
                        city.0.to_string()
                    } else {
                        String::new()
                    },
                    key,
                    name,
                    category,
                    start_date: Date(start.format("%Y-%m-%d").to_string()),
                    end_date: end_date.map(|d| Date(d.format("%Y-%m-%d").to_string())),
                    latitude,
                    longitude,
                },
            );
        }
    }

    pub(super) fn sponsors(&mut self) {
        let mut seen = HashSet::new();
        for i in 0..self.n.sponsors {
            let rng = &mut self.rng;
            let base = SPONSORS[i % SPONSORS.len()];
            let name = if i < SPONSORS.len() {
                base.to_string()
            } else {
                format!(
                    "{base} {}",
                    pick(rng, &["Labs", "Cloud", "Security", "Ventures", "Group"])
                )
            };
            let key_base = match slug(&name) {
                s if s.is_empty() => format!("sponsor-{}", i + 1),
                s => s,
            };
            let key = unique(&mut seen, key_base);
            let sponsor_type = enum_value(rng, i, SponsorType::ALL, &[5, 8, 15, 20, 30, 22]);
            let member_type = enum_value(rng, i, MemberType::ALL, &[15, 20, 25, 40]);
            let domain = key.clone();
            push(
                &mut self.ds.sponsors,
                "sponsors.jsonl",
                Sponsor {
                    image_url: format!("https://community.example.org/assets/sponsors/{key}.png"),
                    url: format!("https://{domain}.example.com/"),
                    job_url: if chance(rng, 0.5) {
                        format!("https://{domain}.example.com/careers")
                    } else {
                        String::new()
                    },
                    description: format!(
                        "{name} supports the community's open-source security work."
                    ),
                    key,
                    name,
                    sponsor_type,
                    is_member: member_type != MemberType::None,
                    member_type,
                },
            );
        }
    }

    // Long because every field of the record is drawn here, in a fixed order: the draws
    // are the dataset (one seed, the same records), so the code's order is the order of
    // the draws and a split would only scatter it.

    pub(super) fn snapshots(&mut self) {
        let n = self.n.snapshots;
        // The last `n` months of the history, oldest first.
        let end = chrono::DateTime::from_timestamp(END, 0)
            .expect("end")
            .date_naive();
        let mut months: Vec<(i32, u32)> = Vec::with_capacity(n);
        let (mut y, mut m) = (end.year(), end.month());
        for _ in 0..n {
            if m == 1 {
                y -= 1;
                m = 12;
            } else {
                m -= 1;
            }
            months.push((y, m));
        }
        months.reverse();
        // Month boundaries: bounds[k]..bounds[k + 1] is month k.
        let mut bounds: Vec<i64> = months.iter().map(|&(y, m)| month_start(y, m)).collect();
        bounds.push(END);
        let month_of = |t: Ts| -> Option<usize> {
            let secs = t.0.div_euclid(1_000_000);
            if secs < bounds[0] || secs >= END {
                return None;
            }
            Some(bounds.partition_point(|&b| b <= secs) - 1)
        };

        let mut lists: Vec<Snapshot> = Vec::with_capacity(n);
        for (k, &(y, m)) in months.iter().enumerate() {
            let rng = &mut self.rng;
            // Most are completed: the newest is pending, the one before processing,
            // one in the middle failed.
            let status = if n >= 2 && k == n - 1 {
                SnapshotStatus::Pending
            } else if n >= 3 && k == n - 2 {
                SnapshotStatus::Processing
            } else if n >= 4 && k == n / 2 {
                SnapshotStatus::Error
            } else {
                SnapshotStatus::Completed
            };
            let created = bounds[k + 1] + 2 * DAY + rng.random_range(0..DAY);
            let updated = created + rng.random_range(60..3 * DAY);
            lists.push(Snapshot {
                key: format!("{y:04}-{m:02}"),
                title: format!("Snapshot {} {y}", MONTHS[m as usize - 1]),
                status,
                start_at: ts(bounds[k]),
                end_at: ts(bounds[k + 1] - 1),
                created_at: ts(created),
                updated_at: ts(updated),
                new_chapters: Vec::new(),
                new_projects: Vec::new(),
                new_members: Vec::new(),
                new_issues: Vec::new(),
                new_releases: Vec::new(),
            });
        }
        let ds = &self.ds;
        for (_, c) in &ds.chapters {
            if let Some(k) = month_of(c.created_at) {
                lists[k].new_chapters.push(c.key.clone());
            }
        }
        for (_, p) in &ds.projects {
            if let Some(k) = month_of(p.created_at) {
                lists[k].new_projects.push(p.key.clone());
            }
        }
        for (_, x) in &ds.members {
            if let Some(k) = month_of(x.created_at) {
                lists[k].new_members.push(x.login.clone());
            }
        }
        // Issues and releases from the summary of the records the repositories own
        // (the records themselves may not be kept).
        for &(r, number, created) in &self.made.issue_times {
            if let Some(k) = month_of(created) {
                let repo = &ds.repositories[r as usize].1;
                lists[k].new_issues.push(IssueRef {
                    organization: repo.organization.clone(),
                    repository: repo.name.clone(),
                    number,
                });
            }
        }
        for (r, tag, created) in &self.made.releases {
            if let Some(k) = month_of(*created) {
                let repo = &ds.repositories[*r as usize].1;
                lists[k].new_releases.push(ReleaseRef {
                    organization: repo.organization.clone(),
                    repository: repo.name.clone(),
                    tag_name: tag.clone(),
                });
            }
        }
        for s in lists {
            push(&mut self.ds.snapshots, "snapshots.jsonl", s);
        }
    }
}
