//! What the committed sample is for, beyond what `db import` enforces (types, enums,
//! natural keys, references, key prefixes, coordinates, date ranges): its records are
//! plausible (timestamps in order and not in the future, states that match their
//! dates), and it exercises every filter, ordering and tie-breaker the API tests rely
//! on (case variants, Unicode, ties, nulls, every enum value). A change to the
//! generator that loses one of them fails here, naming it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, NaiveDate};
use serde_json::Value;

use crate::support::TODAY;

type Data = BTreeMap<String, Vec<Value>>;

/// The committed sample's records by file (without `.jsonl`).
fn sample() -> Data {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    roost::synth::sample::FILES
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).unwrap();
            assert!(text.ends_with('\n'), "{name}.jsonl: no trailing newline");
            let records = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            (name.to_string(), records)
        })
        .collect()
}

fn s<'a>(r: &'a Value, k: &str) -> Option<&'a str> {
    r.get(k).and_then(Value::as_str)
}

fn has(r: &Value, k: &str) -> bool {
    r.get(k).is_some_and(|v| !v.is_null())
}

fn low(r: &Value, k: &str) -> String {
    s(r, k).unwrap_or("").to_lowercase()
}

/// An RFC 3339 timestamp as microseconds since 1970.
fn t(v: &str) -> i64 {
    DateTime::parse_from_rfc3339(v)
        .unwrap_or_else(|e| panic!("{v}: {e}"))
        .timestamp_micros()
}

fn active(r: &Value) -> bool {
    r.get("is_active") != Some(&Value::Bool(false))
}

fn non_ascii(text: &str) -> bool {
    !text.is_ascii()
}

/// Some group of `values`, keyed by `key`, has more than one distinct value.
fn variants<'a>(values: impl Iterator<Item = (String, &'a str)>) -> Vec<HashSet<&'a str>> {
    let mut groups: HashMap<String, HashSet<&str>> = HashMap::new();
    for (k, v) in values {
        groups.entry(k).or_default().insert(v);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

fn ties(values: impl Iterator<Item = i64>) -> bool {
    let mut seen = HashSet::new();
    values.into_iter().any(|v| !seen.insert(v))
}

#[test]
fn the_sample_is_plausible() {
    let d = sample();
    let today = NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").unwrap();
    for (name, records) in &d {
        for (i, r) in records.iter().enumerate() {
            let at = |k: &str| s(r, k).map(t);
            let w = format!("{name}:{}", i + 1);
            if let (Some(c), Some(u)) = (at("created_at"), at("updated_at")) {
                assert!(c <= u, "{w}: updated_at before created_at");
                if let Some(closed) = at("closed_at") {
                    assert!(c <= closed && closed <= u, "{w}: closed_at");
                }
            }
            if let (Some(c), Some(p)) = (at("created_at"), at("published_at")) {
                assert!(c <= p, "{w}: published_at before created_at");
            }
            for k in [
                "created_at",
                "updated_at",
                "closed_at",
                "published_at",
                "pushed_at",
            ] {
                if let Some(v) = s(r, k) {
                    let day = DateTime::parse_from_rfc3339(v).unwrap().date_naive();
                    assert!(day <= today, "{w}: {k} in the future");
                }
            }
        }
    }
    for (i, r) in d["issues"].iter().chain(&d["pull_requests"]).enumerate() {
        let closed = s(r, "state") == Some("closed");
        assert_eq!(
            closed,
            has(r, "closed_at"),
            "issue or pull request {i}: state/closed_at"
        );
        assert!(
            !has(r, "merged_at") || closed,
            "pull request {i}: merged but open"
        );
    }
    for r in &d["issues"] {
        let url = format!(
            "https://github.com/{}/{}/issues/{}",
            s(r, "organization").unwrap(),
            s(r, "repository").unwrap(),
            r["number"]
        );
        assert_eq!(s(r, "url"), Some(url.as_str()));
    }
    for r in &d["snapshots"] {
        let at = |k| t(s(r, k).unwrap());
        assert!(at("start_at") < at("end_at") && at("end_at") <= at("created_at"));
        assert!(
            at("created_at") <= at("updated_at"),
            "snapshot timestamps out of order"
        );
        for k in ["new_chapters", "new_projects", "new_members"] {
            let list: Vec<String> = r[k]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v.as_str().unwrap().to_lowercase())
                .collect();
            let distinct: HashSet<&String> = list.iter().collect();
            assert_eq!(
                distinct.len(),
                list.len(),
                "snapshot: duplicate entries in {k}"
            );
        }
    }
    for l in &d["labels"] {
        let color = s(l, "color").unwrap();
        assert!(color.len() == 6 && color.chars().all(|c| c.is_ascii_hexdigit()));
    }
    for r in &d["sponsors"] {
        if r.get("is_member") != Some(&Value::Bool(true)) {
            assert_eq!(
                s(r, "member_type").unwrap_or(""),
                "",
                "member_type without membership"
            );
        }
    }
    for m in &d["project_health_metrics"] {
        let score = m["score"].as_f64();
        assert!(
            score.is_none_or(|x| (0.0..=100.0).contains(&x)),
            "health score"
        );
    }
}

#[test]
fn the_sample_has_every_enum_value_and_enough_records() {
    let d = sample();
    let covers = |name: &str, field: &str, values: &[&str], only_active: bool| {
        let seen: HashSet<&str> = d[name]
            .iter()
            .filter(|r| !only_active || active(r))
            .filter_map(|r| s(r, field))
            .collect();
        for v in values {
            assert!(seen.contains(v), "no {name} with {field}={v:?}");
        }
    };
    let levels = ["flagship", "production", "incubator", "lab", "demo"];
    let types = ["code", "documentation", "tool", "other"];
    for only_active in [false, true] {
        covers("projects", "level", &levels, only_active);
        covers("projects", "type", &types, only_active);
    }
    covers(
        "events",
        "category",
        &["appsec_days", "global", "partner", "other"],
        false,
    );
    let sponsor_types = [
        "Diamond",
        "Platinum",
        "Gold",
        "Silver",
        "Supporter",
        "Not a Sponsor",
    ];
    covers("sponsors", "sponsor_type", &sponsor_types, false);
    covers(
        "sponsors",
        "member_type",
        &["Platinum", "Gold", "Silver", ""],
        false,
    );
    let member = |r: &Value| r.get("is_member") == Some(&Value::Bool(true));
    assert!(d["sponsors"].iter().any(member) && !d["sponsors"].iter().all(member));
    covers(
        "snapshots",
        "status",
        &["completed", "processing", "pending", "error"],
        false,
    );
    covers("issues", "state", &["open", "closed"], false);
    covers("milestones", "state", &["open", "closed"], false);
    let completed = d["snapshots"]
        .iter()
        .filter(|r| s(r, "status") == Some("completed"));
    assert!(completed.count() >= 4, "fewer than 4 completed snapshots");
    assert!(d["members"].len() > 100, "the member list spans two pages");
    assert!(d["issues"].len() > 200, "the issue list spans three pages");
    let total: usize = d.values().map(Vec::len).sum();
    assert!(
        (900..=1200).contains(&total),
        "{total} lines in all, want 900..1200"
    );
}

#[test]
fn the_sample_exercises_member_and_organization_filters() {
    let d = sample();
    let orgs = &d["organizations"];
    let aff: Vec<&Value> = orgs.iter().filter(|o| o["is_affiliated"] == true).collect();
    assert!(
        !aff.is_empty() && aff.len() < orgs.len(),
        "affiliated and not"
    );
    assert!(aff.iter().any(|o| has(o, "location") && has(o, "company")));
    assert!(
        orgs.iter().all(|o| low(o, "login") != "index"),
        "organization named index"
    );
    let nonaff: HashSet<String> = orgs
        .iter()
        .filter(|o| o["is_affiliated"] != true)
        .map(|o| low(o, "login"))
        .collect();
    assert!(d["repositories"]
        .iter()
        .any(|r| nonaff.contains(&low(r, "organization"))));
    let mut locations: HashMap<String, usize> = HashMap::new();
    for o in &aff {
        if let Some(l) = s(o, "location") {
            *locations.entry(l.to_lowercase()).or_default() += 1;
        }
    }
    assert!(
        locations.values().any(|n| *n > 1),
        "organization location with 2 matches"
    );

    let members = &d["members"];
    assert!(
        members.iter().filter(|m| !has(m, "name")).count() >= 3,
        "members without a name"
    );
    let names = variants(
        members
            .iter()
            .filter_map(|m| s(m, "name"))
            .map(|n| (n.to_lowercase(), n)),
    );
    assert!(!names.is_empty(), "member names differing only by case");
    assert!(
        names.iter().any(|g| g.iter().any(|n| non_ascii(n))),
        "non-ASCII case variants"
    );
    let cjk = |n: &str| n.chars().any(|c| c as u32 > 0x2E80);
    assert!(
        members.iter().filter_map(|m| s(m, "name")).any(cjk),
        "CJK member name"
    );
    for field in ["company", "location"] {
        let groups = variants(
            members
                .iter()
                .filter_map(|m| s(m, field))
                .map(|v| (v.to_lowercase(), v)),
        );
        assert!(!groups.is_empty(), "{field} case variants");
        assert!(
            groups.iter().any(|g| g.iter().any(|v| non_ascii(v))),
            "non-ASCII {field} variants"
        );
    }
    let raw: Vec<&str> = members
        .iter()
        .map(|m| s(m, "created_at").unwrap())
        .collect();
    assert!(raw.iter().any(|x| x.contains('.')), "fractional timestamps");
    assert!(raw.iter().any(|x| !x.ends_with('Z')), "non-Z offsets");
    let zero_fraction = |x: &&str| {
        let fraction = x.strip_suffix('Z').and_then(|p| p.rsplit_once('.'));
        fraction.is_some_and(|(_, f)| f.chars().all(|c| c == '0'))
    };
    assert!(raw.iter().any(zero_fraction), "zero fraction timestamp");
    assert!(ties(raw.iter().map(|x| t(x))), "member created_at ties");
    let instant = t("2023-05-01T10:00:00Z");
    let spellings: HashSet<&&str> = raw.iter().filter(|x| t(x) == instant).collect();
    assert!(
        spellings.len() >= 3,
        "differently written timestamps for one instant"
    );
    assert!(members.iter().any(|m| {
        let l = s(m, "login").unwrap();
        l != l.to_lowercase()
    }));
}

#[test]
fn the_sample_exercises_code_orderings() {
    let d = sample();
    let issues = &d["issues"];
    let repos: HashSet<(String, String)> = issues
        .iter()
        .map(|r| (low(r, "organization"), low(r, "repository")))
        .collect();
    assert!(repos.len() >= 5, "issues in several repositories");
    let mut by_created: HashMap<i64, Vec<i64>> = HashMap::new();
    for r in issues {
        let (c, u) = (
            t(s(r, "created_at").unwrap()),
            t(s(r, "updated_at").unwrap()),
        );
        by_created.entry(c).or_default().push(u);
    }
    let distinct = |v: &Vec<i64>| v.iter().collect::<HashSet<_>>().len();
    let differing = by_created
        .values()
        .filter(|v| v.len() > 1 && distinct(v) == v.len());
    assert!(
        differing.count() >= 2,
        "issues sharing created_at with different updated_at"
    );
    assert!(
        by_created.values().any(|v| distinct(v) < v.len()),
        "sharing both"
    );
    assert!(
        issues.iter().any(|r| !has(r, "author")),
        "issue without author"
    );
    assert!(
        issues
            .iter()
            .any(|r| s(r, "body").unwrap_or("").contains("```")),
        "code blocks"
    );
    let by_name = variants(
        d["repositories"]
            .iter()
            .map(|r| (low(r, "name"), s(r, "organization").unwrap())),
    );
    assert!(
        !by_name.is_empty(),
        "one repository name in two organizations"
    );

    let ms = &d["milestones"];
    let count = |m: &Value, k: &str| m.get(k).and_then(Value::as_i64).unwrap_or(0);
    assert!(ms
        .iter()
        .any(|m| count(m, "open_issues_count") == 0 && count(m, "closed_issues_count") == 0));
    assert!(ms.iter().any(|m| !has(m, "due_on")) && ms.iter().any(|m| has(m, "due_on")));
    assert!(
        ties(ms.iter().map(|m| t(s(m, "created_at").unwrap()))),
        "milestone created_at ties"
    );

    let rel = &d["releases"];
    assert!(
        rel.iter().any(|r| s(r, "tag_name").unwrap().contains('/')),
        "tag with '/'"
    );
    let tags = variants(rel.iter().map(|r| {
        let tag = s(r, "tag_name").unwrap();
        (
            format!(
                "{}/{}/{}",
                low(r, "organization"),
                low(r, "repository"),
                tag.to_lowercase()
            ),
            tag,
        )
    }));
    assert!(
        !tags.is_empty(),
        "tags differing only by case in one repository"
    );
    assert!(
        rel.iter().any(|r| !has(r, "published_at")),
        "unpublished release"
    );
    assert!(rel.iter().any(|r| r["is_draft"] == true), "draft release");
    assert!(rel
        .iter()
        .any(|r| r["is_pre_release"] == true && has(r, "published_at")));
    assert!(
        ties(rel.iter().map(|r| t(s(r, "created_at").unwrap()))),
        "release created_at ties"
    );
    let mut published: HashMap<i64, HashSet<i64>> = HashMap::new();
    for r in rel.iter().filter(|r| has(r, "published_at")) {
        let (p, c) = (
            t(s(r, "published_at").unwrap()),
            t(s(r, "created_at").unwrap()),
        );
        published.entry(p).or_default().insert(c);
    }
    assert!(
        published.values().any(|c| c.len() > 1),
        "published_at tie, different created_at"
    );
    assert!(
        rel.iter().any(|r| !has(r, "author")),
        "release without author"
    );

    let labels = &d["labels"];
    let colors = variants(
        labels
            .iter()
            .map(|l| (low(l, "color"), s(l, "color").unwrap())),
    );
    assert!(!colors.is_empty(), "label colors in both cases");
    for f in ["created_at", "updated_at"] {
        assert!(
            ties(labels.iter().map(|l| t(s(l, f).unwrap()))),
            "label {f} ties"
        );
    }
    let bugs = labels.iter().filter(|l| low(l, "name") == "bug").count();
    assert!(bugs >= 3, "`bug` in several repositories");
}

#[test]
fn the_sample_exercises_community_orderings() {
    let d = sample();
    let chapters = &d["chapters"];
    let act: Vec<&Value> = chapters.iter().filter(|c| active(c)).collect();
    assert!(
        (2..=3).contains(&(chapters.len() - act.len())),
        "2-3 inactive chapters"
    );
    assert!(
        act.iter().any(|c| !has(c, "latitude")),
        "active chapter without coordinates"
    );
    let mut countries: HashMap<&str, usize> = HashMap::new();
    for c in &act {
        *countries.entry(s(c, "country").unwrap_or("")).or_default() += 1;
    }
    assert!(
        countries.values().filter(|n| **n >= 3).count() >= 3,
        "countries with several chapters"
    );
    let negative = |k: &str| act.iter().any(|c| c[k].as_f64().is_some_and(|x| x < 0.0));
    assert!(
        negative("latitude") && negative("longitude"),
        "negative coordinates"
    );
    assert!(
        ties(act.iter().map(|c| t(s(c, "created_at").unwrap()))),
        "chapter created_at ties"
    );
    let leaders: Vec<&Value> = chapters
        .iter()
        .flat_map(|c| c["leaders"].as_array().into_iter().flatten())
        .collect();
    assert!(leaders.iter().any(|l| has(l, "login")) && leaders.iter().any(|l| !has(l, "login")));
    assert!(
        leaders.iter().any(|l| has(l, "description")),
        "leader roles"
    );
    assert!(
        act.iter().any(|c| non_ascii(s(c, "name").unwrap())),
        "non-ASCII chapter name"
    );
    assert!(
        d["committees"].iter().any(|c| !active(c)),
        "inactive committee"
    );

    let projects: Vec<&Value> = d["projects"].iter().filter(|p| active(p)).collect();
    assert!(d["projects"].iter().any(|p| !active(p)), "inactive project");
    assert!(
        projects.iter().any(|p| non_ascii(s(p, "name").unwrap())),
        "non-ASCII project name"
    );
    let repos: HashMap<(String, String), &Value> = d["repositories"]
        .iter()
        .map(|r| ((low(r, "organization"), low(r, "name")), r))
        .collect();
    let mut totals = Vec::new();
    for p in &projects {
        let (mut stars, mut forks) = (0, 0);
        for x in p["repositories"].as_array().into_iter().flatten() {
            let r = repos[&(low(x, "organization"), low(x, "name"))];
            stars += r["stars_count"].as_i64().unwrap_or(0);
            forks += r["forks_count"].as_i64().unwrap_or(0);
        }
        totals.push((s(p, "level").unwrap(), stars, forks));
    }
    let full_tie = totals
        .iter()
        .enumerate()
        .any(|(i, a)| a.1 > 0 && totals[..i].contains(a));
    assert!(full_tie, "projects tied on level, stars and forks");
    let stars_only = totals.iter().any(|a| {
        totals
            .iter()
            .any(|b| a.0 == b.0 && a.1 == b.1 && a.1 > 0 && a.2 != b.2)
    });
    assert!(stars_only, "projects tied on stars, not forks");
    assert!(projects
        .iter()
        .any(|p| p["repositories"].as_array().is_some_and(|r| r.len() > 1)));
    let juice = projects
        .iter()
        .filter(|p| low(p, "name").contains("juice"))
        .count();
    assert!(
        projects
            .iter()
            .any(|p| low(p, "name").contains("juice shop"))
            && juice >= 2
    );
}

#[test]
fn the_sample_exercises_events_sponsors_and_snapshots() {
    let d = sample();
    let ev = &d["events"];
    let (up, past): (Vec<&Value>, Vec<&Value>) = ev
        .iter()
        .partition(|e| s(e, "start_date").unwrap() >= TODAY);
    assert!(
        up.len() >= 5
            && up
                .iter()
                .all(|e| s(e, "start_date").unwrap() >= "2027-01-01")
    );
    assert!(ev
        .iter()
        .all(|e| ("2019".."2031").contains(&&s(e, "start_date").unwrap()[..4])));
    assert!(past.len() >= 10, "past events");
    assert!(up.iter().any(|e| !has(e, "end_date")) && past.iter().any(|e| !has(e, "end_date")));
    for f in ["latitude", "url", "description"] {
        assert!(ev.iter().any(|e| !has(e, f)), "event {f} null");
    }
    let mut by_start: HashMap<&str, Vec<Option<&str>>> = HashMap::new();
    for e in ev {
        by_start
            .entry(s(e, "start_date").unwrap())
            .or_default()
            .push(s(e, "end_date"));
    }
    let distinct = |v: &Vec<Option<&str>>| v.iter().collect::<HashSet<_>>().len();
    assert!(by_start
        .values()
        .any(|v| v.len() > 1 && distinct(v) == v.len()));
    assert!(by_start
        .iter()
        .any(|(k, v)| *k >= "2027" && v.len() > 2 && v.contains(&None)));
    for cat in ["appsec_days", "global", "partner", "other"] {
        assert!(
            up.iter().any(|e| s(e, "category") == Some(cat)),
            "upcoming {cat} event"
        );
    }

    let sponsors = &d["sponsors"];
    let names = variants(
        sponsors
            .iter()
            .map(|r| (low(r, "name"), s(r, "name").unwrap())),
    );
    assert!(!names.is_empty(), "sponsor names differing only by case");
    let first = |r: &&Value| s(r, "name").unwrap().chars().next().unwrap();
    assert!(sponsors.iter().map(|r| first(&r)).any(char::is_lowercase));
    assert!(sponsors.iter().map(|r| first(&r)).any(|c| !c.is_ascii()));

    let inactive = |name: &str| -> HashSet<String> {
        d[name]
            .iter()
            .filter(|r| !active(r))
            .map(|r| low(r, "key"))
            .collect()
    };
    let (inactive_ch, inactive_pr) = (inactive("chapters"), inactive("projects"));
    let unpublished: HashSet<String> = d["releases"]
        .iter()
        .filter(|r| !has(r, "published_at"))
        .map(|r| {
            format!(
                "{}/{}/{}",
                low(r, "organization"),
                low(r, "repository"),
                s(r, "tag_name").unwrap()
            )
        })
        .collect();
    let completed: Vec<&Value> = d["snapshots"]
        .iter()
        .filter(|r| s(r, "status") == Some("completed"))
        .collect();
    let list = |r: &Value, k: &str| r[k].as_array().cloned().unwrap_or_default();
    let keys = |r: &Value, k: &str| -> Vec<String> {
        list(r, k)
            .iter()
            .map(|v| v.as_str().unwrap().to_lowercase())
            .collect()
    };
    assert!(completed.iter().any(|r| keys(r, "new_chapters")
        .iter()
        .any(|k| inactive_ch.contains(k))));
    assert!(completed.iter().any(|r| keys(r, "new_projects")
        .iter()
        .any(|k| inactive_pr.contains(k))));
    assert!(completed
        .iter()
        .any(|r| list(r, "new_releases").iter().any(|x| {
            unpublished.contains(&format!(
                "{}/{}/{}",
                low(x, "organization"),
                low(x, "repository"),
                s(x, "tag_name").unwrap()
            ))
        })));
    let lists = [
        "new_chapters",
        "new_projects",
        "new_members",
        "new_issues",
        "new_releases",
    ];
    assert!(
        completed
            .iter()
            .any(|r| lists.iter().all(|k| list(r, k).is_empty())),
        "empty lists"
    );
    for k in lists {
        assert!(
            completed.iter().any(|r| !list(r, k).is_empty()),
            "completed snapshot with {k}"
        );
    }
}

#[test]
fn the_sample_exercises_the_frontend_pages_and_mentorship() {
    let d = sample();
    let prs = &d["pull_requests"];
    assert!(
        prs.iter().any(|r| s(r, "state") == Some("open")),
        "open pull request"
    );
    assert!(
        prs.iter().any(|r| has(r, "merged_at")),
        "merged pull request"
    );
    assert!(prs
        .iter()
        .any(|r| s(r, "state") == Some("closed") && !has(r, "merged_at")));
    let years: HashSet<&str> = d["posts"]
        .iter()
        .map(|p| &s(p, "published_at").unwrap()[..4])
        .collect();
    assert!(years.len() >= 3, "posts over three years");
    let mut per_project: HashMap<&str, usize> = HashMap::new();
    for m in &d["project_health_metrics"] {
        *per_project.entry(s(m, "project").unwrap()).or_default() += 1;
    }
    assert!(
        per_project.values().filter(|n| **n >= 12).count() >= 3,
        "monthly health metrics"
    );
    let badged = d["members"]
        .iter()
        .filter(|m| m["badges"].as_array().is_some_and(|b| !b.is_empty()));
    assert!(badged.count() >= 5, "members with badges");
    for name in ["chapters", "committees", "projects"] {
        for k in ["channels", "related_urls"] {
            assert!(
                d[name]
                    .iter()
                    .any(|r| r[k].as_array().is_some_and(|a| !a.is_empty())),
                "{name} with {k}"
            );
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let community: Value =
        serde_json::from_slice(&std::fs::read(dir.join("community.json")).unwrap()).unwrap();
    assert!(
        community["slack_workspace_members"].as_i64() > Some(0),
        "community.json"
    );
    let programs = &d["programs"];
    let published: Vec<&Value> = programs
        .iter()
        .filter(|p| s(p, "status") == Some("published"))
        .collect();
    assert!(published.len() >= 3, "three published programs");
    assert!(
        programs.iter().any(|p| s(p, "status") == Some("draft")),
        "a draft program"
    );
    for p in published {
        let n = d["modules"]
            .iter()
            .filter(|m| low(m, "program") == low(p, "key"))
            .count();
        assert!(
            (2..=4).contains(&n),
            "program {} has {n} modules (2 to 4)",
            p["key"]
        );
    }
}
