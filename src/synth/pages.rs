//! The records of the frontend's pages in a synthetic dataset: pull requests (streamed,
//! see [`PullRequests`]), labels of single repositories, blog posts, monthly project
//! health measurements, badges, and the newer fields of older records (member email
//! and badges, organization counts, leader roles, channels, related URLs, chapter and
//! committee repositories, the community's chat workspace).
//!
//! Everything here is drawn after every older record, so adding it left the older
//! records of a scale and seed as they were.

use chrono::Datelike;
use rand::{RngExt, SeedableRng};

use super::random::{chance, later, month_start, pick, skew, ts, when, DAY, END, START};
use super::text::{capitalize_into, markdown};
use super::words::{COLORS, COMPONENTS, FEATURES, HEADINGS, LABEL_BASE, PROBLEMS, TOPICS, VERBS};
use super::{push, RepoIssues, Rng, Synth};
use crate::records::{
    Badge, Channel, Color, Dataset, Label, Leader, Post, ProjectHealthMetrics, PullRequest,
    RepositoryRef, State,
};

const BADGES: &[(&str, &str, &str, i64)] = &[
    (
        "Project Leader",
        "Leads a project of the community",
        "fa-crown",
        100,
    ),
    (
        "Chapter Leader",
        "Leads a local chapter",
        "fa-map-marker",
        90,
    ),
    ("Committee Member", "Serves on a committee", "fa-users", 80),
    ("Staff", "Works for the foundation", "fa-id-badge", 70),
    (
        "Top Contributor",
        "Among the most active contributors of the year",
        "fa-star",
        50,
    ),
    ("Speaker", "Spoke at a global event", "fa-microphone", 30),
    (
        "Sponsor",
        "Supports the community financially",
        "fa-heart",
        20,
    ),
    (
        "Early Adopter",
        "Joined in the first year",
        "fa-seedling",
        10,
    ),
];

const ROLES: &[&str] = &[
    "Leader",
    "Co-leader",
    "Founder",
    "Maintainer",
    "Coordinator",
    "",
];

const PLATFORMS: &[&str] = &["slack", "slack", "slack", "discord", "matrix", "telegram"];

const POST_KINDS: &[&str] = &[
    "What's new in",
    "A look back at",
    "Getting started with",
    "Call for volunteers:",
    "Notes from",
    "Ten years of",
];

impl Synth {
    /// The records of the frontend's pages, after every other record (see the module
    /// doc). Pull requests are not among them: [`PullRequests`] streams them.
    pub(super) fn pages(&mut self) {
        self.repository_labels();
        self.badges();
        self.new_member_fields();
        self.new_entity_fields();
        self.posts();
        self.health_metrics();
        self.ds.community.slack_workspace_members =
            (self.ds.members.len() as u64 / 2).max(1) + self.rng.random_range(0..5_000);
    }

    /// A label of its own in some repositories, named like a shared one (`bug`, ...)
    /// with another colour: issues of that repository showing that name show it.
    fn repository_labels(&mut self) {
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

    fn badges(&mut self) {
        for &(name, description, css_class, weight) in BADGES {
            let badge = Badge {
                name: name.to_string(),
                description: description.to_string(),
                css_class: css_class.to_string(),
                weight,
            };
            push(&mut self.ds.badges, "badges.jsonl", badge);
        }
    }

    /// Email on about a third of the members, badges on a few percent; collaborator
    /// counts and a contact address on organizations.
    fn new_member_fields(&mut self) {
        let rng = &mut self.rng;
        for (_, m) in self.ds.members.iter_mut() {
            if chance(rng, 0.3) {
                m.email = format!("{}@users.example.org", m.login.to_lowercase());
            }
            if chance(rng, 0.03) {
                let first = skew(rng, BADGES.len(), 1.5);
                m.badges.push(BADGES[first].0.to_string());
                if chance(rng, 0.3) {
                    let second = (first + 1 + rng.random_range(0..BADGES.len() - 1)) % BADGES.len();
                    m.badges.push(BADGES[second].0.to_string());
                }
            }
        }
        for (_, o) in self.ds.organizations.iter_mut() {
            o.collaborators_count = rng.random_range(1..2_000);
            if chance(rng, 0.6) {
                o.email = format!("security@{}.example.org", o.login.to_lowercase());
            }
        }
    }

    /// Leader roles, channels, related URLs, a chapter's suggested location, and the
    /// repositories of some chapters and committees.
    fn new_entity_fields(&mut self) {
        let rng = &mut self.rng;
        let repos = &self.ds.repositories;
        let repository = |rng: &mut Rng| {
            let r = &repos[skew(rng, repos.len(), 1.3)].1;
            RepositoryRef {
                organization: r.organization.clone(),
                name: r.name.clone(),
            }
        };
        for (_, c) in self.ds.chapters.iter_mut() {
            roles(rng, &mut c.leaders);
            let part = c.key["www-chapter-".len()..].to_string();
            c.suggested_location = if c.is_active {
                Some(format!("{}, {}", c.name, c.country))
            } else if chance(rng, 0.5) {
                None
            } else {
                Some(String::new())
            };
            let links = (&mut c.related_urls, &mut c.channels, &mut c.repositories);
            CHAPTER_LINKS.draw(rng, &part, &repository, links);
        }
        for (_, c) in self.ds.committees.iter_mut() {
            roles(rng, &mut c.leaders);
            let part = c.key["www-committee-".len()..].to_string();
            let links = (&mut c.related_urls, &mut c.channels, &mut c.repositories);
            COMMITTEE_LINKS.draw(rng, &part, &repository, links);
        }
        for (_, p) in self.ds.projects.iter_mut() {
            roles(rng, &mut p.leaders);
            let part = p.key["www-project-".len()..].to_string();
            let mut urls: Vec<String> = p
                .repositories
                .iter()
                .map(|r| format!("https://github.com/{}/{}", r.organization, r.name))
                .collect();
            urls.extend(related(rng, &part, "https://docs.example.org/"));
            p.related_urls = urls;
            p.channels = channels(rng, "project", &part);
        }
    }

    /// The community's blog: about one post every twelve days over the history, more
    /// in recent years.
    fn posts(&mut self) {
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
    fn health_metrics(&mut self) {
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
}

/// How the related URLs, channels and repositories of a chapter or committee are drawn:
/// its kind, the base of its related URLs, and the share of them with repositories
/// (1 to `most`).
struct Links {
    kind: &'static str,
    base: &'static str,
    share: f64,
    most: usize,
}

const CHAPTER_LINKS: Links = Links {
    kind: "chapter",
    base: "https://www.meetup.com/community-",
    share: 0.1,
    most: 3,
};

const COMMITTEE_LINKS: Links = Links {
    kind: "committee",
    base: "https://community.example.org/minutes/",
    share: 0.5,
    most: 5,
};

impl Links {
    /// Sets the related URLs, channels and (for some) repositories of the entity named
    /// `part`.
    fn draw(
        &self,
        rng: &mut Rng,
        part: &str,
        repository: &impl Fn(&mut Rng) -> RepositoryRef,
        (urls, chans, repositories): LinksOf<'_>,
    ) {
        *urls = related(rng, part, self.base);
        *chans = channels(rng, self.kind, part);
        if chance(rng, self.share) {
            let n = 1 + rng_small(rng, self.most);
            *repositories = distinct(rng, n, repository);
        }
    }
}

/// The related URLs, channels and repositories of a chapter or committee.
type LinksOf<'a> = (
    &'a mut Vec<String>,
    &'a mut Vec<Channel>,
    &'a mut Vec<RepositoryRef>,
);

fn rng_small(rng: &mut Rng, n: usize) -> usize {
    rng.random_range(0..n)
}

fn roles(rng: &mut Rng, leaders: &mut [Leader]) {
    for (i, l) in leaders.iter_mut().enumerate() {
        l.description = if i == 0 {
            ROLES[0].to_string()
        } else {
            pick(rng, ROLES).to_string()
        };
    }
}

fn related(rng: &mut Rng, part: &str, base: &str) -> Vec<String> {
    let mut urls = Vec::new();
    if chance(rng, 0.7) {
        urls.push(format!("{base}{part}/"));
    }
    if chance(rng, 0.2) {
        urls.push(format!(
            "https://www.linkedin.com/groups/{}/",
            rng.random_range(1_000_000..9_999_999u32)
        ));
    }
    urls
}

fn channels(rng: &mut Rng, kind: &str, part: &str) -> Vec<Channel> {
    let n = if chance(rng, 0.3) {
        0
    } else {
        1 + rng_small(rng, 2)
    };
    (0..n)
        .map(|i| Channel {
            platform: pick(rng, PLATFORMS).to_string(),
            name: format!(
                "#{kind}-{part}{}",
                if i == 0 {
                    String::new()
                } else {
                    format!("-{i}")
                }
            ),
            external_id: if chance(rng, 0.8) {
                format!("C{:08X}", rng.random_range(0..u32::MAX))
            } else {
                String::new()
            },
        })
        .collect()
}

/// Up to `n` repositories, none twice.
fn distinct(
    rng: &mut Rng,
    n: usize,
    draw: &impl Fn(&mut Rng) -> RepositoryRef,
) -> Vec<RepositoryRef> {
    let mut out: Vec<RepositoryRef> = Vec::new();
    for _ in 0..n {
        let r = draw(rng);
        if !out
            .iter()
            .any(|x| x.organization == r.organization && x.name == r.name)
        {
            out.push(r);
        }
    }
    out
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
