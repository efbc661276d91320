//! Organizations, members, repository contributors and the shared labels, from the
//! older files' stream; the badges, and the members' and organizations' fields drawn
//! from the second stream (`super::second_stream`).

use std::collections::HashMap;

use super::json::{obj, Obj, J};
use super::pyrandom::PyRandom;
use super::time::{dt, later, parse_ts, rand_dt, ts, Instant};
use super::{pareto, slug};

struct Org {
    login: &'static str,
    name: &'static str,
    company: &'static str,
    location: &'static str,
    description: &'static str,
    affiliated: bool,
    followers: i64,
    created: (i32, u32, u32, u32, u32, u32),
}

#[rustfmt::skip]
const ORGS: [Org; 7] = [
    Org { login: "securecodeorg", name: "Secure Code Foundation", company: "Secure Code Foundation", location: "Wilmington, DE, United States", description: "Open-source application security standards, cheat sheets and guides.", affiliated: true, followers: 4210, created: (2012, 3, 14, 9, 26, 53) },
    Org { login: "juice-labs", name: "Juice Labs", company: "", location: "Hamburg, Germany", description: "Home of Juice Shop, the deliberately insecure web shop.", affiliated: true, followers: 1876, created: (2014, 9, 1, 12, 0, 0) },
    Org { login: "threatmodel-hub", name: "Threat Modeling Hub", company: "", location: "London, United Kingdom", description: "Tools and documentation for threat modeling.", affiliated: true, followers: 532, created: (2017, 6, 12, 8, 15, 0) },
    // exercises: created_at tie with juice-labs
    Org { login: "appsec-tools", name: "AppSec Tools", company: "AppSec Tools e.V.", location: "london, united kingdom", description: "Scanners and analysers maintained by the community.", affiliated: true, followers: 2950, created: (2014, 9, 1, 12, 0, 0) },
    Org { login: "SecDocs-Community", name: "SecDocs Community", company: "", location: "", description: "Testing guides for web and mobile applications.", affiliated: true, followers: 1203, created: (2016, 2, 29, 17, 45, 10) },
    Org { login: "cryptoguard-dev", name: "CryptoGuard", company: "CryptoGuard GmbH", location: "Zürich, Switzerland", description: "Static analysis for cryptographic API misuse.", affiliated: false, followers: 87, created: (2019, 11, 5, 10, 0, 0) },
    Org { login: "vuln-research-collective", name: "Vulnerability Research Collective", company: "", location: "", description: "", affiliated: false, followers: 140, created: (2020, 4, 1, 0, 0, 0) },
];

pub(super) fn organizations(rng: &mut PyRandom) -> Vec<Obj> {
    let mut out = Vec::new();
    for (i, o) in ORGS.iter().enumerate() {
        let (y, mo, d, h, mi, s) = o.created;
        let created = dt(y, mo, d, h, mi, s);
        let mut r = obj! { "login" => o.login, "name" => o.name };
        for (key, value) in [
            ("company", o.company),
            ("location", o.location),
            ("description", o.description),
        ] {
            if !value.is_empty() {
                r.set(key, value);
            }
        }
        r.set(
            "avatar_url",
            format!(
                "https://avatars.githubusercontent.com/u/{}?v=4",
                1_100_000 + 7919 * i
            ),
        );
        if i % 2 == 0 {
            // the others derive https://github.com/<login>
            r.set("url", format!("https://github.com/{}", o.login));
        }
        r.set("followers_count", o.followers);
        if o.affiliated || i == ORGS.len() - 1 {
            // the last one omits is_affiliated (default false)
            r.set("is_affiliated", o.affiliated);
        }
        r.set("created_at", ts(created));
        r.set("updated_at", ts(later(rng, created, 3000, 60)));
        out.push(r);
    }
    out
}

#[rustfmt::skip]
const FIRST: [&str; 60] = ["Aarav", "Priya", "Rahul", "Ananya", "Wei", "Mei", "Hiroshi", "Yuki", "Kwame", "Amara",
    "Chinedu", "Ngozi", "Lucas", "Mariana", "Gabriel", "Sofia", "Mateo", "Valentina",
    "Liam", "Olivia", "Noah", "Emma", "Lukas", "Lena", "Jan", "Eva", "Pierre", "Camille",
    "Giulia", "Marco", "Ahmed", "Fatima", "Omar", "Leila", "Dmitri", "Olga", "Sven",
    "Ingrid", "Mehmet", "Ayşe", "Tomás", "Inés", "Kofi", "Ama", "Daniel", "Sarah",
    "David", "Rachel", "Jonas", "Freya", "Kenji", "Sakura", "Arjun", "Kavya", "Thiago",
    "Beatriz", "Nikolai", "Chloé", "Björn", "Renée"];
#[rustfmt::skip]
const LAST: [&str; 42] = ["Sharma", "Patel", "Iyer", "Chen", "Wang", "Li", "Sato", "Suzuki", "Mensah", "Okafor",
    "Adeyemi", "Silva", "Santos", "Oliveira", "García", "Rodríguez", "Müller", "Schmidt",
    "Novák", "Dubois", "Rossi", "Hassan", "Khan", "Ivanov", "Andersson", "Nilsson",
    "Kaya", "Fernández", "Smith", "Johnson", "Brown", "Cohen", "Levi", "Park", "Nguyen",
    "Tran", "O'Brien", "MacLeod", "van der Berg", "Dvořák", "Jensen", "Costa"];
// exercises: company filter (case variants of one value, Unicode case), location filter
#[rustfmt::skip]
const COMPANIES: [&str; 13] = ["Acme", "Acme", "ACME", "acme", "Globex", "Globex", "Initech", "Hooli",
    "Umbrella Security", "Ünsal Bilişim", "ÜNSAL BILIŞIM", "Independent", "@juice-labs"];
#[rustfmt::skip]
const LOCATIONS: [&str; 14] = ["London, United Kingdom", "London, United Kingdom", "london, united kingdom",
    "Bangalore, India", "Bangalore, India", "São Paulo, Brazil", "SÃO PAULO, BRAZIL",
    "Berlin, Germany", "San Francisco, CA", "Tokyo, Japan", "Remote", "Remote",
    "Zürich, Switzerland", "Lagos, Nigeria"];
#[rustfmt::skip]
const BIOS: [&str; 8] = ["AppSec engineer. Breaking things so you don't have to.",
    "Security researcher | CTF player | coffee.",
    "Maintainer of open-source security tools.",
    "Pentester by day, open-source contributor by night.",
    "Threat modeling enthusiast. Opinions are my own.",
    "DevSecOps, supply-chain security, SBOMs.",
    "Mobile security & reverse engineering 📱",
    "Writing docs nobody reads (until they need them)."];
#[rustfmt::skip]
const TITLES: [&str; 8] = ["Security Engineer", "Senior Application Security Engineer", "Penetration Tester",
    "Software Engineer", "CISO", "Security Architect", "Student", "Developer Advocate"];

type Special = (
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
);

// login, name, company, location, created_at (as written)
#[rustfmt::skip]
const SPECIAL_MEMBERS: [Special; 21] = [
    // exercises: name ordering compares case-insensitively, then by exact value
    ("alice-smith", Some("Alice Smith"), Some("Acme"), Some("London, United Kingdom"), None),
    ("asmith", Some("alice Smith"), Some("ACME"), Some("london, united kingdom"), None),
    ("ALICE-S", Some("ALICE SMITH"), Some("acme"), None, None),
    // exercises: negative offset crossing a year boundary
    ("emile-d", Some("Émile Durand"), Some("Umbrella Security"), Some("Paris, France"), Some("2022-12-31T22:30:00-05:00")),
    ("emiledurand", Some("émile durand"), None, Some("Paris, France"), None),
    // exercises: Unicode names; normalised timestamps that tie at 2023-05-01T10:00:00Z
    ("jose-nunez", Some("José Núñez"), Some("Globex"), Some("São Paulo, Brazil"), Some("2023-05-01T10:00:00.250000Z")),
    ("zoe-k", Some("Zoë"), None, Some("Zürich, Switzerland"), Some("2023-05-01T12:00:00+02:00")),
    ("unal-yilmaz", Some("Ünal Yılmaz"), Some("Ünsal Bilişim"), Some("İstanbul, Türkiye"), Some("2023-05-01T10:00:00Z")),
    ("li-lei", Some("李雷"), Some("Hooli"), Some("Shanghai, China"), Some("2023-05-01T10:00:00.000000Z")),
    ("tanaka-taro", Some("田中太郎"), None, Some("Tokyo, Japan"), Some("2022-11-30T23:59:59.999999Z")),
    ("minjun-kim", Some("김민준"), Some("Initech"), Some("Seoul, South Korea"), Some("2021-03-04T05:06:07.123Z")),
    ("lukasz-k", Some("Łukasz Kowalski"), None, Some("Kraków, Poland"), None),
    ("soren-s", Some("Søren Sørensen"), Some("Independent"), Some("Remote"), None),
    ("asa-lindqvist", Some("Åsa Lindqvist"), None, Some("Stockholm, Sweden"), None),
    ("ahmed-ali", Some("أحمد علي"), None, Some("Cairo, Egypt"), None),
    ("ivan-petrov", Some("Иван Петров"), Some("Globex"), None, None),
    ("zoe-adams", Some("Zoe Adams"), Some("acme"), Some("Remote"), None),
    ("UNSAL-SEC", None, Some("ÜNSAL BILIŞIM"), Some("İstanbul, Türkiye"), None),
    ("bkimminich-fan", None, None, None, None),
    ("0xdeadbeef", None, None, Some("Remote"), None),
    ("ZAPbot", None, Some("@juice-labs"), None, None),
];
const N_MEMBERS: usize = 170;

/// A member before its record is drawn.
struct Person {
    login: String,
    name: Option<String>,
    company: Option<&'static str>,
    location: Option<&'static str>,
    created_raw: Option<&'static str>,
}

/// A login drawn from a first and a last name, by one of seven patterns (the last
/// gives mixed-case logins such as "PSharma").
fn drawn_login(rng: &mut PyRandom, first: &str, last: &str) -> String {
    let (fa, la) = (slug(first), slug(last).replace('-', ""));
    let pattern = rng.randrange(0, 7);
    // Python built the list of all seven, drawing the number of the fourth each time.
    let n = rng.randint(1, 99);
    let f0 = &fa[..1];
    match pattern {
        0 => format!("{fa}{la}"),
        1 => format!("{fa}-{la}"),
        2 => format!("{f0}{la}"),
        3 => format!("{fa}{n}"),
        4 => format!("{la}-{f0}"),
        5 => format!("{fa}{la}-sec"),
        _ => {
            let words: String = slug(last)
                .split('-')
                .map(|w| w[..1].to_uppercase() + &w[1..])
                .collect();
            f0.to_uppercase() + &words
        }
    }
}

/// The members before their records: the special ones, then drawn ones, with the
/// created_at ties set.
fn people(rng: &mut PyRandom) -> Vec<Person> {
    let mut members: Vec<Person> = SPECIAL_MEMBERS
        .iter()
        .map(|&(login, name, company, location, created_raw)| Person {
            login: login.to_string(),
            name: name.map(str::to_string),
            company,
            location,
            created_raw,
        })
        .collect();
    let mut used: std::collections::HashSet<String> =
        members.iter().map(|m| m.login.to_lowercase()).collect();
    while members.len() < N_MEMBERS {
        let (f, l) = (rng.pick(&FIRST), rng.pick(&LAST));
        let login = drawn_login(rng, f, l);
        if login.is_empty() || used.contains(&login.to_lowercase()) {
            continue;
        }
        let u = rng.random();
        let full = format!("{f} {l}");
        let name = if u < 0.06 {
            None
        } else if u < 0.12 {
            Some(full.to_lowercase())
        } else {
            Some(full)
        };
        let company = (rng.random() < 0.55).then(|| rng.pick(&COMPANIES));
        let location = (rng.random() < 0.6).then(|| rng.pick(&LOCATIONS));
        used.insert(login.to_lowercase());
        members.push(Person {
            login,
            name,
            company,
            location,
            created_raw: None,
        });
    }
    // exercises: created_at ties, same created_at with different / identical updated_at
    let generic = SPECIAL_MEMBERS.len();
    for m in &mut members[generic + 3..generic + 6] {
        m.created_raw = Some("2020-01-15T08:30:00Z");
    }
    for m in &mut members[generic + 10..generic + 12] {
        m.created_raw = Some("2021-06-01T00:00:00Z");
    }
    members
}

/// The members, shuffled (stable ids are file positions); `_created` holds each one's
/// instant.
pub(super) fn members(rng: &mut PyRandom) -> Vec<Obj> {
    let people = people(rng);
    let avatars = rng.sample_indices(99_999_999 - 100_000, people.len());
    let tie_b = SPECIAL_MEMBERS.len() + 10..SPECIAL_MEMBERS.len() + 12;
    let mut out = Vec::new();
    for (i, m) in people.iter().enumerate() {
        let (created, created_s) = match m.created_raw {
            Some(raw) => (parse_ts(raw), raw.to_string()),
            None => {
                let t = rand_dt(rng, dt(2009, 1, 1, 0, 0, 0), dt(2026, 10, 31, 0, 0, 0));
                (t, ts(t))
            }
        };
        let updated_s = if tie_b.contains(&i) {
            "2024-02-02T02:02:02Z".to_string()
        } else {
            ts(later(rng, created, 4000, 60))
        };
        let mut r = obj! { "login" => &m.login };
        if let Some(name) = &m.name {
            r.set("name", name);
        }
        let avatar = 100_000 + avatars[i];
        r.set(
            "avatar_url",
            format!("https://avatars.githubusercontent.com/u/{avatar}?v=4"),
        );
        member_details(rng, m, &mut r);
        r.set("created_at", created_s);
        r.set("updated_at", updated_s);
        r.set("_created", created);
        out.push(r);
    }
    rng.shuffle(&mut out);
    out
}

/// A member's url, bio, company, location, title, twitter and counts.
fn member_details(rng: &mut PyRandom, m: &Person, r: &mut Obj) {
    if rng.random() < 0.7 {
        r.set("url", format!("https://github.com/{}", m.login));
    }
    if rng.random() < 0.5 {
        r.set("bio", rng.pick(&BIOS));
    }
    if let Some(company) = m.company {
        r.set("company", company);
    }
    if let Some(location) = m.location {
        r.set("location", location);
    }
    if rng.random() < 0.4 {
        r.set("title", rng.pick(&TITLES));
    }
    if rng.random() < 0.3 {
        let handle: String = m
            .login
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(15)
            .collect();
        r.set("twitter_username", handle);
    }
    r.set("followers_count", pareto(rng, 20, 1.1, 25000));
    r.set("following_count", pareto(rng, 10, 1.5, 900));
    r.set("public_repositories_count", pareto(rng, 8, 1.4, 600));
}

/// Contributors per repository, by (organization, repository).
pub(super) const CONTRIB_PLAN: [(&str, &str, usize); 16] = [
    ("juice-labs", "juice-shop", 25),
    ("appsec-tools", "zap-extensions", 18),
    ("securecodeorg", "cheatsheets", 15),
    ("appsec-tools", "dependency-check", 10),
    ("threatmodel-hub", "threat-dragon", 10),
    ("appsec-tools", "amass", 8),
    ("securecodeorg", "asvs", 8),
    ("securecodeorg", "top-ten", 7),
    ("SecDocs-Community", "wstg", 7),
    ("SecDocs-Community", "mastg", 5),
    ("juice-labs", "pwning-juice-shop", 4),
    ("juice-labs", "juice-shop-ctf", 3),
    ("cryptoguard-dev", "cryptoguard", 4),
    ("vuln-research-collective", "advisories", 3),
    ("threatmodel-hub", "Docs", 2),
    ("securecodeorg", "docs", 1),
];

pub(super) fn contributors(rng: &mut PyRandom, core: &[String]) -> Vec<Obj> {
    let mut out = Vec::new();
    for (org, repo, n) in CONTRIB_PLAN {
        let chosen = rng.sample(core, n);
        let mut counts: Vec<i64> = (0..n).map(|_| pareto(rng, 6, 0.9, 9000) + 1).collect();
        counts.sort_by(|a, b| b.cmp(a));
        for (login, c) in chosen.iter().zip(counts) {
            out.push(obj! {
                "organization" => org, "repository" => repo, "member" => login,
                "contributions_count" => c,
            });
        }
    }
    out
}

#[rustfmt::skip]
const LABELS: [(&str, &str, &str, &str, &str); 16] = [
    ("bug", "d73a4a", "Something isn't working", "2020-01-01T00:00:00Z", "2020-01-01T00:05:00Z"),
    ("enhancement", "a2eeef", "New feature or request", "2020-01-01T00:00:00Z", "2021-03-03T10:00:00Z"),
    ("documentation", "0075ca", "Improvements or additions to documentation", "2020-01-01T00:00:00Z", "2021-03-03T10:00:00Z"),
    ("good first issue", "7057ff", "Good for newcomers", "2020-02-14T12:00:00Z", "2022-05-05T05:05:05Z"),
    ("help wanted", "008672", "Extra attention is needed", "2020-02-14T12:00:00Z", "2020-02-14T12:30:00Z"),
    ("question", "D876E3", "Further information is requested", "2020-03-01T09:00:00Z", "2023-01-10T08:00:00Z"),
    ("security", "D73A4A", "Security-relevant change", "2020-06-30T18:20:00Z", "2024-04-04T04:04:04Z"),
    ("wontfix", "ffffff", "This will not be worked on", "2020-03-01T09:00:00Z", "2020-03-02T09:00:00Z"),
    ("duplicate", "cfd3d7", "This issue or pull request already exists", "2020-03-01T09:00:00Z", "2023-01-10T08:00:00Z"),
    ("dependencies", "0366d6", "Pull requests that update a dependency file", "2021-07-19T07:19:00Z", "2024-11-11T11:11:11Z"),
    ("needs triage", "FBCA04", "Not yet reviewed by a maintainer", "2021-09-09T09:09:09Z", "2025-01-15T15:00:00Z"),
    ("Priority: High", "b60205", "Fix before the next release", "2022-01-10T10:00:00Z", "2025-02-20T20:20:20Z"),
    ("priority: low", "c2e0c6", "Nice to have", "2022-01-10T10:00:00Z", "2022-01-10T10:10:00Z"),
    ("UI/UX", "fbca04", "User interface and experience", "2022-08-08T08:08:08.500000Z", "2025-06-01T12:00:00Z"),
    ("performance", "0E8A16", "Speed and resource usage", "2023-04-20T16:45:00Z", "2025-06-01T12:00:00Z"),
    ("translation", "0e8a16", "Localisation of texts", "2023-04-20T16:45:00Z", "2024-12-24T18:00:00Z"),
];

pub(super) fn labels() -> Vec<Obj> {
    LABELS
        .iter()
        .map(|&(name, color, desc, created, updated)| {
            let mut r = obj! { "name" => name, "color" => color };
            if !desc.is_empty() {
                r.set("description", desc);
            }
            r.set("created_at", created);
            r.set("updated_at", updated);
            r
        })
        .collect()
}

/// The instant a record was created at (`_created`).
pub(super) fn created(r: &Obj) -> Instant {
    r.i("_created")
}

#[rustfmt::skip]
const BADGES: [(&str, &str, &str, i64); 6] = [
    ("Project Leader", "Leads one of the community's projects", "fa-crown", 100),
    ("Chapter Leader", "Leads a local chapter", "fa-map-marker", 90),
    ("Committee Member", "Serves on a committee", "fa-users", 80),
    ("Staff", "Works for the foundation", "fa-id-badge", 70),
    ("Top Contributor", "Among the most active contributors of the year", "fa-star", 50),
    ("Speaker", "Spoke at a global event", "fa-microphone", 30),
];

pub(super) fn badges() -> Vec<Obj> {
    BADGES
        .iter()
        .map(|&(n, d, c, w)| obj! { "name" => n, "description" => d, "css_class" => c, "weight" => w })
        .collect()
}

/// Email on about a third of the members; badges on the leaders and a few more.
pub(super) fn add_member_fields(
    rng: &mut PyRandom,
    members: &mut [Obj],
    groups: [(&'static str, &[Obj]); 3],
) {
    let by_login: HashMap<String, usize> = members
        .iter()
        .enumerate()
        .map(|(i, m)| (m.s("login").to_lowercase(), i))
        .collect();
    for (i, m) in members.iter_mut().enumerate() {
        if i % 3 == 0 {
            let email = format!("{}@users.example.org", m.s("login").to_lowercase());
            m.set("email", email);
        }
    }
    let mut holders: Vec<(String, Vec<&str>)> = Vec::new();
    let mut give = |login: &str, badge: &'static str| {
        if login.is_empty() {
            return;
        }
        let login = login.to_lowercase();
        let at = match holders.iter().position(|(l, _)| *l == login) {
            Some(at) => at,
            None => {
                holders.push((login, Vec::new()));
                holders.len() - 1
            }
        };
        if !holders[at].1.contains(&badge) {
            holders[at].1.push(badge);
        }
    };
    for (kind, recs) in groups {
        for r in recs {
            for l in r.arr("leaders") {
                if let J::Obj(l) = l {
                    give(l.s("login"), kind);
                }
            }
        }
    }
    for i in rng.sample_indices(70, 12) {
        give(members[i].s("login"), "Top Contributor");
    }
    for i in rng.sample_indices(70, 5) {
        give(members[i].s("login"), "Speaker");
    }
    for m in &members[..3] {
        give(m.s("login"), "Staff");
    }
    for (login, badges) in holders {
        if let Some(&i) = by_login.get(&login) {
            members[i].set("badges", badges);
        }
    }
}

pub(super) fn add_organization_fields(rng: &mut PyRandom, organizations: &mut [Obj]) {
    for o in organizations {
        if o.truthy("is_affiliated") {
            o.set("collaborators_count", 5 + rng.randrange(0, 400));
            if rng.random() < 0.7 {
                let email = format!("security@{}.example.org", o.s("login").to_lowercase());
                o.set("email", email);
            }
        }
    }
}
