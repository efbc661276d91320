//! The community records of a synthetic dataset: chapters, committees, projects,
//! events, sponsors, the monthly snapshots that list what was new, the blog's posts,
//! the projects' monthly health measurements and the community row; the leaders'
//! roles and the entities' links are drawn in [`links`]. The posts, measurements,
//! community row, roles and links were added later, so they are drawn after every
//! other record of the main stream (`Synth::run`).

use std::collections::HashSet;

use chrono::{Datelike, Duration, NaiveDate};
use rand::RngExt;

use super::random::{
    chance, enum_value, later, month_start, pick, skew, ts, when, DAY, END, MONTHS, START,
};
use super::text::{capitalize_into, slug, unique};
use super::words::{
    CHAPTER_SUFFIXES, CITIES, COMMITTEES, FEATURES, HEADINGS, PARTNERS, PROJECT_ADJ, PROJECT_NOUN,
    PROJECT_UNICODE, SPONSORS, TOPICS,
};
use super::{push, Synth};
use crate::records::{
    Category, Chapter, Committee, Date, Event, IssueRef, Level, MemberType, Post, Project,
    ProjectHealthMetrics, ProjectType, ReleaseRef, RepositoryRef, Snapshot, SnapshotStatus,
    Sponsor, SponsorType, Ts,
};

mod links;

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

const POST_KINDS: &[&str] = &[
    "What's new in",
    "A look back at",
    "Getting started with",
    "Call for volunteers:",
    "Notes from",
    "Ten years of",
];

impl Synth {
    /// The community's blog: about one post every twelve days over the history, more
    /// in recent years.
    pub(super) fn posts(&mut self) {
        let n = self.n.posts;
        let mut times: Vec<i64> = (0..n).map(|_| later(&mut self.rng, START, END)).collect();
        times.sort_unstable();
        for (i, published) in times.into_iter().enumerate() {
            let rng = &mut self.rng;
            let mut title = String::from(pick(rng, POST_KINDS));
            title.push(' ');
            match rng.random_range(0..3u32) {
                0 => capitalize_into(&mut title, pick(rng, TOPICS)),
                1 => title.push_str(pick(rng, HEADINGS)),
                _ => capitalize_into(&mut title, pick(rng, FEATURES)),
            }
            let (author, image) = (self.person_name(), chance(&mut self.rng, 0.7));
            let rng = &mut self.rng;
            let created = published - rng.random_range(DAY..10 * DAY);
            let post = Post {
                url: format!(
                    "https://community.example.org/blog/{}/{}-{i}/",
                    chrono::DateTime::from_timestamp(published, 0)
                        .map(|d| d.format("%Y/%m").to_string())
                        .unwrap_or_default(),
                    super::text::slug(&title)
                ),
                title,
                author_image_url: if image {
                    format!(
                        "https://avatars.example.org/{}.png",
                        super::text::slug(&author)
                    )
                } else {
                    String::new()
                },
                author_name: author,
                published_at: ts(published),
                created_at: ts(created),
                updated_at: ts(later(rng, published, published + 30 * DAY)),
            };
            push(&mut self.ds.posts, "posts.jsonl", post);
        }
    }

    fn person_name(&mut self) -> String {
        let i = skew(&mut self.rng, self.members.len(), 1.2);
        let m = &self.members[i];
        if m.name.is_empty() {
            m.login.clone()
        } else {
            m.name.clone()
        }
    }

    /// `health_months` monthly measurements of every project, the last in the month
    /// before the end of the history; a project's score drifts from month to month.
    pub(super) fn health_metrics(&mut self) {
        let months = self.n.health_months;
        let last = chrono::DateTime::from_timestamp(END - DAY, 0).expect("end of history");
        for p in 0..self.ds.projects.len() {
            let key = self.ds.projects[p].1.key.clone();
            let project_created = self.ds.projects[p].1.created_at.0 / 1_000_000;
            let rng = &mut self.rng;
            let mut score: f64 = rng.random_range(20.0..95.0);
            let mut stars: u64 = rng.random_range(0..20_000);
            for k in (0..months).rev() {
                let month0 = last.year() * 12 + last.month0() as i32 - k as i32;
                let at = month_start(month0 / 12, (month0 % 12) as u32 + 1) + 3 * 3600;
                score = (score + rng.random_range(-8.0..8.0)).clamp(0.0, 100.0);
                stars += rng.random_range(0..200);
                let open_issues = rng.random_range(0..300);
                // Drawn in the order the fields were first declared in.
                let no_score = chance(rng, 0.02);
                let open_pull_requests = rng.random_range(0..60);
                let unanswered = rng.random_range(0..=open_issues / 3);
                let unassigned = rng.random_range(0..=open_issues / 2);
                let last_commit_days = rng.random_range(0..120);
                let last_release_days = rng.random_range(0..400);
                // The fields added later are derived from the drawn ones, so that every
                // record drawn before them stays as it was.
                let month = (months - k) as u64;
                let metrics = ProjectHealthMetrics {
                    project: key.clone(),
                    created_at: ts(at),
                    score: if no_score {
                        None
                    } else {
                        Some((score * 100.0).round() / 100.0)
                    },
                    stars_count: stars,
                    forks_count: stars / 5,
                    open_issues_count: open_issues,
                    open_pull_requests_count: open_pull_requests,
                    unanswered_issues_count: unanswered,
                    unassigned_issues_count: unassigned,
                    last_commit_days,
                    last_commit_days_requirement: 60,
                    last_release_days,
                    last_release_days_requirement: 180,
                    contributors_count: 2 + stars / 40,
                    recent_releases_count: u64::from(last_release_days < 90) * (1 + stars % 3),
                    total_issues_count: open_issues * 3 + stars % 50,
                    total_releases_count: month + stars % 20,
                    is_funding_requirements_compliant: !stars.is_multiple_of(7),
                    is_leader_requirements_compliant: !stars.is_multiple_of(5),
                    age_days: ((at - project_created).max(0) / DAY) as u64,
                    age_days_requirement: 15,
                    last_pull_request_days: last_commit_days / 2 + stars % 9,
                    last_pull_request_days_requirement: 30,
                    owasp_page_last_update_days: (stars + month * 37) % 400,
                    owasp_page_last_update_days_requirement: 90,
                };
                push(
                    &mut self.ds.project_health_metrics,
                    "project_health_metrics.jsonl",
                    metrics,
                );
            }
        }
    }

    /// The community row: the chat workspace about half as large as the members.
    pub(super) fn community(&mut self) {
        self.ds.community.slack_workspace_members =
            (self.ds.members.len() as u64 / 2).max(1) + self.rng.random_range(0..5_000);
    }
}
