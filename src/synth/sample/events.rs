//! Events, sponsors and the monthly snapshots.

use super::json::{obj, Obj, J};
use super::people::created;
use super::pyrandom::PyRandom;
use super::slug;
use super::time::{day, dt, later, ts, HOUR, MINUTE, SECOND};
use crate::synth::random::MONTHS;

type Event = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<(f64, f64)>,
    bool,
    bool,
);

/// name, category, start, end (`Some("null")`: null, `None`: omitted), coordinates,
/// has a url, has a description.
#[rustfmt::skip]
const EVENTS: [Event; 30] = [
    ("Global AppSec EU 2019 Tel Aviv", "global", "2019-05-27", Some("2019-05-31"), Some((32.0853, 34.7818)), true, true),
    ("Global AppSec US 2019 Washington DC", "global", "2019-09-09", Some("2019-09-13"), Some((38.9072, -77.0369)), true, true),
    ("AppSec Days Pune 2019", "appsec_days", "2019-11-15", Some("2019-11-16"), Some((18.5204, 73.8567)), true, true),
    ("Global AppSec 2020 Virtual", "global", "2020-06-15", Some("2020-06-19"), None, true, true),
    ("AppSec Days LatAm 2020 Online", "appsec_days", "2020-10-05", None, None, true, false),
    ("BSides London 2021", "partner", "2021-12-10", Some("2021-12-10"), Some((51.5074, -0.1278)), true, true),
    ("Global AppSec US 2021 Virtual", "global", "2021-10-25", Some("2021-10-29"), None, true, true),
    ("AppSec Days Tokyo 2022", "appsec_days", "2022-03-10", Some("2022-03-11"), Some((35.6762, 139.6503)), true, true),
    ("Global AppSec EU 2022 Copenhagen", "global", "2022-06-06", Some("2022-06-10"), Some((55.6761, 12.5683)), true, true),
    ("Chapter Leaders Summit 2022", "other", "2022-06-06", Some("2022-06-07"), Some((55.6761, 12.5683)), false, true),
    ("DevSecCon Singapore 2023", "partner", "2023-02-20", Some("2023-02-21"), Some((1.3521, 103.8198)), true, false),
    ("Global AppSec Lisbon 2024", "global", "2024-06-24", Some("2024-06-28"), Some((38.7223, -9.1393)), true, true),
    ("AppSec Days Nairobi 2024", "appsec_days", "2024-08-15", Some("2024-08-16"), Some((-1.2921, 36.8219)), true, true),
    ("Global AppSec San Francisco 2024", "global", "2024-09-23", Some("2024-09-27"), Some((37.7749, -122.4194)), true, true),
    ("Nullcon Goa 2025", "partner", "2025-03-01", Some("2025-03-02"), Some((15.2993, 74.124)), true, true),
    ("Global AppSec EU 2025 Barcelona", "global", "2025-05-26", Some("2025-05-30"), Some((41.3874, 2.1686)), true, true),
    ("Community Hackathon 2025", "other", "2025-07-12", Some("null"), None, false, false),
    ("AppSec Days Buenos Aires 2026", "appsec_days", "2026-04-20", Some("2026-04-21"), Some((-34.6037, -58.3816)), true, true),
    ("Global AppSec US 2026 Washington DC", "global", "2026-11-02", Some("2026-11-06"), Some((38.9072, -77.0369)), true, true),
    ("AppSec Days Lagos 2027", "appsec_days", "2027-03-18", Some("2027-03-19"), Some((6.5244, 3.3792)), true, true),
    ("Global AppSec EU 2027 Vienna", "global", "2027-05-24", Some("2027-05-28"), Some((48.2082, 16.3738)), true, true),
    ("BSides Zürich 2027", "partner", "2027-09-10", Some("2027-09-10"), Some((47.3769, 8.5417)), true, true),
    ("Chapter Leaders Summit 2027", "other", "2027-09-10", Some("2027-09-12"), Some((47.3769, 8.5417)), true, true),
    ("Community Hackathon 2027", "other", "2027-09-10", Some("null"), None, false, true),
    ("Global AppSec US 2027 Austin", "global", "2027-11-01", Some("2027-11-05"), Some((30.2672, -97.7431)), false, false),
    ("AppSec Days São Paulo 2028", "appsec_days", "2028-04-05", Some("2028-04-06"), Some((-23.5505, -46.6333)), true, true),
    ("Global AppSec APAC 2028 Sydney", "global", "2028-08-14", Some("2028-08-18"), Some((-33.8688, 151.2093)), true, true),
    ("AppSec Village at DEF CON 2029", "partner", "2029-08-09", Some("2029-08-12"), Some((36.1147, -115.1728)), true, true),
    ("Virtual Training Week 2030", "other", "2030-01-14", None, None, true, true),
    ("Global AppSec EU 2030", "global", "2030-06-03", Some("2030-06-07"), None, true, false),
];

#[rustfmt::skip]
const EVENT_CITIES: [&str; 20] = ["Tel Aviv", "Washington DC", "Pune", "London", "Tokyo", "Copenhagen",
    "Singapore", "Lisbon", "Nairobi", "San Francisco", "Goa", "Barcelona",
    "Buenos Aires", "Lagos", "Vienna", "Zürich", "Austin", "São Paulo", "Sydney",
    "DEF CON"];

pub(super) fn events(rng: &mut PyRandom) -> Vec<Obj> {
    let mut out = Vec::new();
    for &(name, cat, start, end, coords, has_url, has_desc) in &EVENTS {
        let key = slug(name);
        let mut r = obj! {
            "key" => &key, "name" => name, "category" => cat, "start_date" => start,
        };
        match end {
            Some("null") => r.set("end_date", J::Null),
            Some(end) => r.set("end_date", end),
            None => {}
        }
        match coords {
            Some((lat, lon)) => {
                r.set("latitude", lat);
                r.set("longitude", lon);
            }
            None => {
                if rng.random() < 0.5 {
                    r.set("latitude", J::Null);
                    r.set("longitude", J::Null);
                }
            }
        }
        r.set(
            "url",
            has_url.then(|| format!("https://events.example.org/{key}")),
        );
        r.set(
            "description",
            has_desc.then(|| {
                format!(
                    "{name} brings together developers, defenders and researchers for \
                     talks, trainings and a capture-the-flag.\n\nCall for papers and \
                     sponsorship details are on the event page."
                )
            }),
        );
        r.set("summary", format!("{name} ({})", cat.replace('_', " ")));
        if let Some(city) = EVENT_CITIES.iter().find(|c| name.contains(*c)) {
            r.set("suggested_location", *city);
        }
        out.push(r);
    }
    out
}

type Sponsor = (
    &'static str,
    &'static str,
    &'static str,
    Option<bool>,
    Option<&'static str>,
);

/// name, key, sponsor_type, is_member (`None` omitted), member_type (`None` omitted).
#[rustfmt::skip]
const SPONSORS: [Sponsor; 20] = [
    ("acme", "acme", "Diamond", Some(true), Some("Platinum")),
    ("Beta", "beta", "Platinum", Some(true), Some("Gold")),
    ("Árvore Segurança", "arvore", "Gold", Some(false), Some("")),
    ("Zeta Security", "zeta-security", "Silver", Some(true), Some("Silver")),
    ("zeta security", "zeta-security-labs", "Supporter", Some(false), None),
    ("Globex", "globex", "Diamond", Some(true), Some("Platinum")),
    ("Initech", "initech", "Platinum", Some(false), Some("")),
    ("Hooli", "hooli", "Gold", Some(true), Some("Gold")),
    ("Umbrella Security", "umbrella-security", "Silver", Some(true), Some("Silver")),
    ("Stark Industries", "stark-industries", "Supporter", Some(true), Some("Gold")),
    ("Wayne Enterprises", "wayne-enterprises", "Not a Sponsor", Some(true), Some("Platinum")),
    ("Cyberdyne Systems", "cyberdyne", "Not a Sponsor", None, None),
    ("Ørsted Cloud", "orsted-cloud", "Gold", Some(false), Some("")),
    ("Éclair Networks", "eclair-networks", "Silver", Some(true), Some("Silver")),
    ("delta ray", "delta-ray", "Supporter", Some(false), Some("")),
    ("Massive Dynamic", "massive-dynamic", "Platinum", Some(true), Some("Platinum")),
    ("Soylent", "soylent", "Not a Sponsor", Some(true), Some("Silver")),
    ("Tyrell Corporation", "tyrell", "Gold", Some(true), Some("Gold")),
    ("10X Security", "10x-security", "Supporter", None, None),
    ("Nakatomi Trading", "nakatomi", "Diamond", Some(false), Some("")),
];

pub(super) fn sponsors(rng: &mut PyRandom) -> Vec<Obj> {
    let mut out = Vec::new();
    for &(name, key, stype, is_member, mtype) in &SPONSORS {
        let mut r = obj! { "key" => key, "name" => name, "sponsor_type" => stype };
        if let Some(m) = is_member {
            r.set("is_member", m);
        }
        if let Some(t) = mtype {
            r.set("member_type", t);
        }
        r.set(
            "image_url",
            format!("https://community.example.org/assets/sponsors/{key}.png"),
        );
        r.set("url", format!("https://{key}.example.com/"));
        if rng.random() < 0.4 {
            r.set("job_url", format!("https://{key}.example.com/careers"));
        }
        if rng.random() < 0.85 {
            r.set(
                "description",
                format!("{name} supports the community's open-source security work."),
            );
        }
        out.push(r);
    }
    out
}

/// key, status, mode ("hidden": references inactive and unpublished records too).
const SNAPSHOTS: [(&str, &str, &str); 8] = [
    ("2026-03", "completed", "normal"),
    ("2026-04", "completed", "normal"),
    ("2026-05", "completed", "hidden"),
    ("2026-06", "completed", "empty"),
    ("2026-07", "completed", "normal"),
    ("2026-08", "error", "normal"),
    ("2026-09", "processing", "normal"),
    ("2026-10", "pending", "none"),
];

/// The records a snapshot refers to.
pub(super) struct Known<'a> {
    pub chapters: &'a [Obj],
    pub projects: &'a [Obj],
    pub members: &'a [Obj],
    pub issues: &'a [Obj],
    pub releases: &'a [Obj],
}

fn release_ref(x: &Obj) -> J {
    obj! {
        "organization" => x.s("organization"), "repository" => x.s("repository"),
        "tag_name" => x.s("tag_name"),
    }
    .into()
}

pub(super) fn snapshots(rng: &mut PyRandom, known: &Known) -> Vec<Obj> {
    let mut out = Vec::new();
    for (key, status, mode) in SNAPSHOTS {
        let (y, m): (i32, u32) = (key[..4].parse().unwrap_or(0), key[5..].parse().unwrap_or(1));
        let start = day(y, m, 1);
        let next = day(y + i32::from(m == 12), m % 12 + 1, 1);
        let mut r = obj! {
            "key" => key, "title" => format!("Snapshot {} {y}", MONTHS[m as usize - 1]),
            "status" => status, "start_at" => ts(start), "end_at" => ts(next - SECOND),
        };
        let (mut created, mut updated);
        if status == "pending" {
            created = next + 2 * HOUR;
            updated = created;
        } else {
            created = next + 2 * HOUR + rng.randint(0, 59) * MINUTE;
            updated = later(rng, created, 3, 60);
        }
        if key == "2026-03" || key == "2026-04" {
            created = dt(2026, 5, 3, 4, 0, 0); // backfilled together: created_at tie
            updated = later(rng, created, 3, 60);
        }
        r.set("created_at", ts(created));
        r.set("updated_at", ts(updated));
        match mode {
            "none" => {}
            "empty" => {
                for k in ["new_chapters", "new_projects", "new_members", "new_issues"] {
                    r.set(k, J::Arr(Vec::new()));
                }
                r.set("new_releases", J::Arr(Vec::new())); // (all present and empty)
            }
            _ => snapshot_lists(rng, known, (start, next), mode == "hidden", &mut r),
        }
        out.push(r);
    }
    out
}

/// What a snapshot lists: a few active chapters and projects, the members, issues and
/// published releases created in its month.
fn snapshot_lists(
    rng: &mut PyRandom,
    k: &Known,
    (start, next): (i64, i64),
    hidden: bool,
    r: &mut Obj,
) {
    let in_window = |recs: &[Obj]| -> Vec<Obj> {
        recs.iter()
            .filter(|x| (start..next).contains(&created(x)))
            .cloned()
            .collect()
    };
    let keys =
        |recs: Vec<Obj>| -> Vec<String> { recs.iter().map(|x| x.s("key").to_string()).collect() };
    let act_ch: Vec<Obj> = k.chapters.iter().filter(|c| c.active()).cloned().collect();
    let act_pr: Vec<Obj> = k.projects.iter().filter(|p| p.active()).cloned().collect();
    let n = rng.randint(1, 3) as usize;
    let mut chapters = keys(rng.sample(&act_ch, n));
    let n = rng.randint(1, 3) as usize;
    let mut projects = keys(rng.sample(&act_pr, n));
    let mut ms = in_window(k.members);
    if ms.is_empty() {
        ms = rng.sample(k.members, 2);
    }
    let members: Vec<String> = ms
        .iter()
        .take(12)
        .map(|x| x.s("login").to_string())
        .collect();
    let issues: Vec<J> = in_window(k.issues)
        .iter()
        .map(|x| {
            obj! {
                "organization" => x.s("organization"), "repository" => x.s("repository"),
                "number" => x.i("number"),
            }
            .into()
        })
        .collect();
    let mut rel: Vec<Obj> = in_window(k.releases)
        .into_iter()
        .filter(|x| x.truthy("published_at"))
        .collect();
    if rel.is_empty() {
        let published: Vec<Obj> = k
            .releases
            .iter()
            .filter(|x| x.truthy("published_at"))
            .cloned()
            .collect();
        rel = rng.sample(&published, 2);
    }
    let mut releases: Vec<J> = rel.iter().map(release_ref).collect();
    if hidden {
        hidden_extras(k, &mut chapters, &mut projects, &mut releases);
    }
    for list in [&mut chapters, &mut projects] {
        let mut seen = std::collections::HashSet::new();
        list.retain(|k| seen.insert(k.clone()));
    }
    r.set("new_chapters", chapters);
    r.set("new_projects", projects);
    r.set("new_members", members);
    r.set("new_issues", J::Arr(issues));
    r.set("new_releases", J::Arr(releases));
}

/// What a snapshot of the "hidden" mode lists beyond the others: inactive chapters and
/// projects, unpublished releases, a tag with "/" and the case-only pair.
fn hidden_extras(
    k: &Known,
    chapters: &mut Vec<String>,
    projects: &mut Vec<String>,
    releases: &mut Vec<J>,
) {
    let inactive = |recs: &[Obj]| -> Vec<String> {
        recs.iter()
            .filter(|r| !r.active())
            .map(|r| r.s("key").to_string())
            .collect()
    };
    chapters.extend(inactive(k.chapters).into_iter().take(2));
    projects.extend(inactive(k.projects));
    let unpublished = k
        .releases
        .iter()
        .filter(|x| matches!(x.get("published_at"), None | Some(J::Null)));
    releases.extend(unpublished.map(release_ref));
    for x in k.releases {
        if ["release/2.1", "V1.0.0", "v1.0.0"].contains(&x.s("tag_name")) {
            let reference = release_ref(x);
            if !releases.contains(&reference) {
                releases.push(reference);
            }
        }
    }
}
