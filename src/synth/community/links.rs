//! The leaders' roles, related URLs, channels and repositories of chapters,
//! committees and projects in a synthetic dataset (and a chapter's suggested
//! location), drawn after every record of the main stream but the boards.

use rand::RngExt;

use super::super::random::{chance, pick, skew};
use super::super::{Rng, Synth};
use crate::records::{Channel, Leader, RepositoryRef};

const ROLES: &[&str] = &[
    "Leader",
    "Co-leader",
    "Founder",
    "Maintainer",
    "Coordinator",
    "",
];

const PLATFORMS: &[&str] = &["slack", "slack", "slack", "discord", "matrix", "telegram"];

impl Synth {
    /// Leader roles, channels, related URLs, a chapter's suggested location, and the
    /// repositories of some chapters and committees.
    pub(in crate::synth) fn roles_and_links(&mut self) {
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
