//! The people of a synthetic dataset: organizations, members and their badges, and the
//! helpers the other record families use to name a person, pick an author or choose
//! leaders. The badges and the members' and organizations' contact details were added
//! later, so they are drawn after every community record (`Synth::run`).

use std::collections::HashSet;

use rand::RngExt;

use super::random::{chance, later, pareto, pick, skew, ts, when, DAY, END, START};
use super::text::{capitalize_into, unique};
use super::words::{
    BIOS, CITIES, CJK_FAMILY, CJK_GIVEN, COMPANIES, EXTRA_LOCATIONS, FAMILY, GIVEN, ORG_SUFFIXES,
    ORG_WORDS, TITLES, TOPICS,
};
use super::{push, MemberInfo, Synth};
use crate::records::{Badge, Leader, Member, Organization, Ts};

impl Synth {
    /// A display name and its ASCII form (for logins).
    fn person(&mut self) -> (String, String) {
        let rng = &mut self.rng;
        if chance(rng, 0.2) {
            let (f, fa) = pick(rng, CJK_FAMILY);
            let (g, ga) = pick(rng, CJK_GIVEN);
            (format!("{f}{g}"), format!("{fa}-{ga}"))
        } else {
            let (g, ga) = pick(rng, GIVEN);
            let (f, fa) = pick(rng, FAMILY);
            (format!("{g} {f}"), format!("{ga}-{fa}"))
        }
    }

    /// A member for an author or contributor field: active members are picked more.
    fn member_index(&mut self, power: f64) -> usize {
        skew(&mut self.rng, self.members.len(), power)
    }

    pub(super) fn leaders(&mut self, max: usize) -> Vec<Leader> {
        let count = skew(&mut self.rng, max + 1, 0.8);
        (0..count)
            .map(|_| {
                if chance(&mut self.rng, 0.7) {
                    let i = self.member_index(1.5);
                    let m = &self.members[i];
                    let name = if m.name.is_empty() {
                        m.login.clone()
                    } else {
                        m.name.clone()
                    };
                    Leader {
                        name,
                        login: Some(m.login.clone()),
                        description: String::new(),
                        email: String::new(),
                    }
                } else {
                    Leader {
                        name: self.person().0,
                        login: None,
                        description: String::new(),
                        email: String::new(),
                    }
                }
            })
            .collect()
    }

    pub(super) fn organizations(&mut self) {
        let mut seen = HashSet::new();
        let n = self.n.organizations;
        for i in 0..n {
            let rng = &mut self.rng;
            let word = pick(rng, ORG_WORDS);
            let suffix = pick(rng, ORG_SUFFIXES);
            let login = unique(&mut seen, format!("{word}{suffix}"));
            let mut name = String::new();
            capitalize_into(&mut name, word);
            name.push_str(match rng.random_range(0..6u32) {
                0 => " Labs",
                1 => " Foundation",
                2 => " Sécurité",
                3 => " e.V.",
                4 => " セキュリティ研究会",
                _ => " Project",
            });
            // About one in seven is not affiliated (at least one in any dataset).
            let is_affiliated = !(i % 7 == 6 || i == n - 1);
            let created = when(rng, START - 4 * 365 * DAY, END - 365 * DAY);
            let updated = later(rng, created, END);
            let city = pick(rng, &CITIES[..30]);
            push(
                &mut self.ds.organizations,
                "organizations.jsonl",
                Organization {
                    url: if chance(rng, 0.5) {
                        format!("https://github.com/{login}")
                    } else {
                        String::new()
                    },
                    avatar_url: format!(
                        "https://avatars.githubusercontent.com/u/{}?v=4",
                        1_000_000 + i * 7919
                    ),
                    login,
                    company: if chance(rng, 0.6) {
                        name.clone()
                    } else {
                        String::new()
                    },
                    name,
                    location: format!("{}, {}", city.0, city.2),
                    description: format!(
                        "Open-source {} for application security: tools, guides and standards.",
                        pick(rng, TOPICS)
                    ),
                    followers_count: (pareto(rng, 0.9, 50_000.0) * 10.0) as u64,
                    is_affiliated,
                    collaborators_count: 0,
                    email: String::new(),
                    created_at: ts(created),
                    updated_at: ts(updated),
                },
            );
        }
    }

    // Long because every field of the record is drawn here, in a fixed order: the draws
    // are the dataset (one seed, the same records), so the code's order is the order of
    // the draws and a split would only scatter it.

    pub(super) fn members(&mut self) {
        let n = self.n.members;
        let mut seen = HashSet::with_capacity(n);
        // Locations: "City, Country" of the first cities, plus a few free-form ones.
        let locations: Vec<String> = CITIES[..48]
            .iter()
            .map(|c| format!("{}, {}", c.0, c.2))
            .chain(EXTRA_LOCATIONS.iter().map(|s| s.to_string()))
            .collect();
        self.members.reserve(n);
        self.ds.members.reserve(n);
        for i in 0..n {
            let (name, ascii) = self.person();
            let rng = &mut self.rng;
            let (first, last) = ascii.split_once('-').unwrap_or((&ascii, ""));
            let base = match rng.random_range(0..8u32) {
                0 => format!("{first}{last}"),
                1 => format!("{first}-{last}"),
                2 => format!("{}{last}", &first[..1]),
                3 => format!("{last}-{}", &first[..1]),
                4 => format!("{first}{last}-sec"),
                5 => {
                    let mut s = String::new();
                    capitalize_into(&mut s, &first[..1]);
                    capitalize_into(&mut s, last);
                    s
                }
                6 => format!("{first}{}", rng.random_range(1..100u32)),
                _ => format!("0x{first}"),
            };
            let login = if seen.insert(base.to_lowercase()) {
                base
            } else {
                unique(&mut seen, format!("{base}-{}", i + 1))
            };
            let display = if chance(rng, 0.1) {
                String::new()
            } else {
                name
            };
            let created = when(rng, START - 6 * 365 * DAY, END);
            let updated = later(rng, created, END);
            // A few timestamps carry microseconds, as real exports sometimes do.
            let fraction = if chance(rng, 0.01) {
                rng.random_range(1..1_000_000)
            } else {
                0
            };
            let company = if chance(rng, 0.45) {
                String::new()
            } else {
                COMPANIES[skew(rng, COMPANIES.len(), 1.8)].to_string()
            };
            let location = if chance(rng, 0.35) {
                String::new()
            } else {
                locations[skew(rng, locations.len(), 1.6)].clone()
            };
            let followers = (pareto(rng, 1.2, 100_000.0) - 1.0) as u64 * 3;
            let member = Member {
                avatar_url: format!(
                    "https://avatars.githubusercontent.com/u/{}?v=4",
                    rng.random_range(1..200_000_000u64)
                ),
                url: if chance(rng, 0.5) {
                    format!("https://github.com/{login}")
                } else {
                    String::new()
                },
                bio: if chance(rng, 0.6) {
                    String::new()
                } else {
                    pick(rng, BIOS).to_string()
                },
                company,
                location,
                title: if chance(rng, 0.5) {
                    String::new()
                } else {
                    pick(rng, TITLES).to_string()
                },
                twitter_username: if chance(rng, 0.2) {
                    format!("{}_{}", first, rng.random_range(1..1000u32))
                } else {
                    String::new()
                },
                followers_count: followers,
                following_count: (pareto(rng, 1.5, 5_000.0) - 1.0) as u64 * 2,
                public_repositories_count: (pareto(rng, 1.3, 2_000.0) - 1.0) as u64 * 2,
                email: String::new(),
                is_owasp_board_member: false,
                is_former_owasp_staff: false,
                is_gsoc_mentor: false,
                linkedin_page_id: String::new(),
                first_owasp_contribution_at: None,
                badges: Vec::new(),
                created_at: ts(created),
                updated_at: Ts(updated * 1_000_000 + fraction),
                login: login.clone(),
                name: display.clone(),
            };
            self.members.push(MemberInfo {
                login,
                name: display,
            });
            push(&mut self.ds.members, "members.jsonl", member);
        }
    }

    pub(super) fn author(&mut self, p_none: f64) -> Option<String> {
        if chance(&mut self.rng, p_none) {
            None
        } else {
            let i = self.member_index(2.5);
            Some(self.members[i].login.clone())
        }
    }
}

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

impl Synth {
    /// The badges, every one of [`BADGES`], in order.
    pub(super) fn badges(&mut self) {
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

    /// Email on about a third of the members, badges on a few percent.
    pub(super) fn member_details(&mut self) {
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
    }

    /// Collaborator counts, and a contact address on most organizations.
    pub(super) fn organization_details(&mut self) {
        let rng = &mut self.rng;
        for (_, o) in self.ds.organizations.iter_mut() {
            o.collaborators_count = rng.random_range(1..2_000);
            if chance(rng, 0.6) {
                o.email = format!("security@{}.example.org", o.login.to_lowercase());
            }
        }
    }
}
