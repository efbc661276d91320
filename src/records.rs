//! The records of the JSON Lines interchange format (docs/data.md): one struct per
//! file, parsed strictly (unknown fields, wrong types and bad enum values are errors),
//! and the time values they carry.
//!
//! `roost db import` reads these from files; `roost db synth` builds them in memory.
//! Either way they go through [`crate::store::build`], which checks references and keys.

use std::fmt;

use chrono::{DateTime, Datelike, NaiveDate, SecondsFormat, Timelike, Utc};
use serde::{Deserialize, Deserializer};

mod pages;

pub use pages::{Badge, Channel, Community, Post, ProjectHealthMetrics, PullRequest};

/// A timestamp: microseconds since the Unix epoch, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ts(pub i64);

impl Ts {
    /// Parses RFC 3339 (any offset; converted to UTC, truncated to microseconds).
    pub fn parse(text: &str) -> Result<Ts, String> {
        let parsed = DateTime::parse_from_rfc3339(text).map_err(|_| {
            format!("'{text}' is not an RFC 3339 timestamp (like 2024-03-01T12:00:00Z)")
        })?;
        Ok(Ts(parsed.with_timezone(&Utc).timestamp_micros()))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with six fraction digits only when the fraction is non-zero.
    ///
    /// Written digit by digit from chrono's calendar fields for the years 0 to 9999:
    /// every REST file and GraphQL record formats its timestamps here, and chrono's
    /// general formatter cost about ten times as much. Other years go through that
    /// formatter, which the tests compare this with.
    pub fn format(self) -> String {
        self.write(false)
    }

    /// `YYYY-MM-DDTHH:MM:SS.ffffffZ`, always six fraction digits (the log's timestamps).
    pub fn format_micros(self) -> String {
        self.write(true)
    }

    fn write(self, always_micros: bool) -> String {
        let Some(dt) = DateTime::<Utc>::from_timestamp_micros(self.0) else {
            return String::new();
        };
        if !(0..=9999).contains(&dt.year()) {
            return self.format_chrono(always_micros);
        }
        let mut text = *b"0000-00-00T00:00:00.000000Z";
        put_digits(&mut text[0..4], dt.year().unsigned_abs());
        put_digits(&mut text[5..7], dt.month());
        put_digits(&mut text[8..10], dt.day());
        put_digits(&mut text[11..13], dt.hour());
        put_digits(&mut text[14..16], dt.minute());
        put_digits(&mut text[17..19], dt.second());
        let text = match dt.timestamp_subsec_micros() {
            0 if !always_micros => {
                text[19] = b'Z';
                &text[..20]
            }
            fraction => {
                put_digits(&mut text[20..26], fraction);
                &text[..]
            }
        };
        String::from_utf8_lossy(text).into_owned()
    }

    /// [`Ts::format`] (or [`Ts::format_micros`]) by chrono, for every year.
    fn format_chrono(self, always_micros: bool) -> String {
        let Some(dt) = DateTime::<Utc>::from_timestamp_micros(self.0) else {
            return String::new();
        };
        if self.0.rem_euclid(1_000_000) == 0 && !always_micros {
            dt.to_rfc3339_opts(SecondsFormat::Secs, true)
        } else {
            dt.to_rfc3339_opts(SecondsFormat::Micros, true)
        }
    }
}

/// Writes the last `slot.len()` decimal digits of `value` into `slot`.
fn put_digits(slot: &mut [u8], mut value: u32) {
    for digit in slot.iter_mut().rev() {
        *digit = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

impl fmt::Display for Ts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.format())
    }
}

impl<'de> Deserialize<'de> for Ts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ts::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A calendar date, `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub String);

impl Date {
    pub fn parse(text: &str) -> Result<Date, String> {
        match NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            Ok(d) if d.format("%Y-%m-%d").to_string() == text => Ok(Date(text.to_string())),
            _ => Err(format!("'{text}' is not a date (YYYY-MM-DD)")),
        }
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Date::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A 6-hex-digit label colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Color(pub String);

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text.len() == 6 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Color(text))
        } else {
            Err(serde::de::Error::custom(format!(
                "'{text}' is not a colour of 6 hex digits (like d73a4a)"
            )))
        }
    }
}

fn default_true() -> bool {
    true
}

// The vocabularies (state, level, type, category, sponsor and member type, snapshot
// status) are declared once, in `crate::vocab`.
pub use crate::vocab::{
    Category, Level, MemberType, ProjectType, SnapshotStatus, SponsorType, State,
};

impl Level {
    /// Rank for the project list's default order: flagship 5 … demo 1.
    pub fn rank(self) -> i64 {
        match self {
            Level::Flagship => 5,
            Level::Production => 4,
            Level::Lab => 3,
            Level::Incubator => 2,
            Level::Demo => 1,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Organization {
    pub login: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub company: String,
    #[serde(default)]
    pub location: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub avatar_url: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub followers_count: u64,
    #[serde(default)]
    pub is_affiliated: bool,
    #[serde(default)]
    pub collaborators_count: u64,
    #[serde(default)]
    pub email: String,
    pub created_at: Ts,
    pub updated_at: Ts,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Member {
    pub login: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub avatar_url: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub bio: String,
    #[serde(default)]
    pub company: String,
    #[serde(default)]
    pub location: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub twitter_username: String,
    #[serde(default)]
    pub followers_count: u64,
    #[serde(default)]
    pub following_count: u64,
    #[serde(default)]
    pub public_repositories_count: u64,
    #[serde(default)]
    pub email: String,
    /// Badge names, as listed.
    #[serde(default)]
    pub badges: Vec<String>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repository {
    pub organization: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub commits_count: u64,
    #[serde(default)]
    pub contributors_count: u64,
    #[serde(default)]
    pub forks_count: u64,
    #[serde(default)]
    pub open_issues_count: u64,
    #[serde(default)]
    pub stars_count: u64,
    #[serde(default)]
    pub subscribers_count: u64,
    #[serde(default)]
    pub is_archived: bool,
    #[serde(default)]
    pub license: String,
    #[serde(default)]
    pub topics: Vec<String>,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub pushed_at: Option<Ts>,
    pub created_at: Ts,
    pub updated_at: Ts,
    /// The repository's size in kilobytes, as the code host reports it; none when
    /// unknown.
    #[serde(default)]
    pub size: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepositoryContributor {
    pub organization: String,
    pub repository: String,
    pub member: String,
    pub contributions_count: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// The organization and repository the label belongs to; neither: a label shared
    /// by every repository.
    #[serde(default)]
    pub organization: Option<String>,
    #[serde(default)]
    pub repository: Option<String>,
    pub name: String,
    pub color: Color,
    #[serde(default)]
    pub description: String,
    pub created_at: Ts,
    pub updated_at: Ts,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Issue {
    pub organization: String,
    pub repository: String,
    pub number: u64,
    pub title: String,
    pub state: State,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub author: Option<String>,
    pub url: String,
    #[serde(default)]
    pub labels: Vec<String>,
    pub created_at: Ts,
    pub updated_at: Ts,
    #[serde(default)]
    pub closed_at: Option<Ts>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Milestone {
    pub organization: String,
    pub repository: String,
    pub number: u64,
    pub title: String,
    pub state: State,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub author: Option<String>,
    pub url: String,
    #[serde(default)]
    pub open_issues_count: u64,
    #[serde(default)]
    pub closed_issues_count: u64,
    #[serde(default)]
    pub due_on: Option<Ts>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    pub organization: String,
    pub repository: String,
    pub tag_name: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub author: Option<String>,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub is_draft: bool,
    #[serde(default)]
    pub is_pre_release: bool,
    #[serde(default)]
    pub published_at: Option<Ts>,
    pub created_at: Ts,
}

/// A leader of a chapter, committee or project.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leader {
    pub name: String,
    #[serde(default)]
    pub login: Option<String>,
    /// The leader's role.
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chapter {
    pub key: String,
    pub name: String,
    #[serde(default = "default_true")]
    pub is_active: bool,
    #[serde(default)]
    pub country: String,
    #[serde(default)]
    pub region: String,
    #[serde(default)]
    pub latitude: Option<f64>,
    #[serde(default)]
    pub longitude: Option<f64>,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub leaders: Vec<Leader>,
    #[serde(default)]
    pub suggested_location: Option<String>,
    #[serde(default)]
    pub related_urls: Vec<String>,
    #[serde(default)]
    pub channels: Vec<Channel>,
    #[serde(default)]
    pub repositories: Vec<RepositoryRef>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Committee {
    pub key: String,
    pub name: String,
    #[serde(default = "default_true")]
    pub is_active: bool,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub leaders: Vec<Leader>,
    #[serde(default)]
    pub related_urls: Vec<String>,
    #[serde(default)]
    pub channels: Vec<Channel>,
    #[serde(default)]
    pub repositories: Vec<RepositoryRef>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

/// A link to one repository (of a project, chapter or committee).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepositoryRef {
    pub organization: String,
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Project {
    pub key: String,
    pub name: String,
    #[serde(default = "default_true")]
    pub is_active: bool,
    pub level: Level,
    #[serde(rename = "type")]
    pub kind: ProjectType,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub leaders: Vec<Leader>,
    #[serde(default)]
    pub repositories: Vec<RepositoryRef>,
    #[serde(default)]
    pub related_urls: Vec<String>,
    #[serde(default)]
    pub channels: Vec<Channel>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    pub key: String,
    pub name: String,
    pub category: Category,
    pub start_date: Date,
    #[serde(default)]
    pub end_date: Option<Date>,
    #[serde(default)]
    pub latitude: Option<f64>,
    #[serde(default)]
    pub longitude: Option<f64>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub suggested_location: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sponsor {
    pub key: String,
    pub name: String,
    pub sponsor_type: SponsorType,
    #[serde(default)]
    pub is_member: bool,
    #[serde(default)]
    pub member_type: MemberType,
    #[serde(default)]
    pub image_url: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub job_url: String,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueRef {
    pub organization: String,
    pub repository: String,
    pub number: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseRef {
    pub organization: String,
    pub repository: String,
    pub tag_name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub key: String,
    pub title: String,
    pub status: SnapshotStatus,
    pub start_at: Ts,
    pub end_at: Ts,
    pub created_at: Ts,
    pub updated_at: Ts,
    #[serde(default)]
    pub new_chapters: Vec<String>,
    #[serde(default)]
    pub new_projects: Vec<String>,
    #[serde(default)]
    pub new_members: Vec<String>,
    #[serde(default)]
    pub new_issues: Vec<IssueRef>,
    #[serde(default)]
    pub new_releases: Vec<ReleaseRef>,
}

/// Where a record came from, for error messages: `file:line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: &'static str,
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Records of one type, in stable-id order, each with its origin.
pub type Records<T> = Vec<(Origin, T)>;

/// A whole dataset in interchange form.
#[derive(Debug, Default, Clone)]
pub struct Dataset {
    pub organizations: Records<Organization>,
    pub members: Records<Member>,
    pub repositories: Records<Repository>,
    pub repository_contributors: Records<RepositoryContributor>,
    pub labels: Records<Label>,
    pub issues: Records<Issue>,
    pub milestones: Records<Milestone>,
    pub releases: Records<Release>,
    pub chapters: Records<Chapter>,
    pub committees: Records<Committee>,
    pub projects: Records<Project>,
    pub events: Records<Event>,
    pub sponsors: Records<Sponsor>,
    pub snapshots: Records<Snapshot>,
    pub pull_requests: Records<PullRequest>,
    pub posts: Records<Post>,
    pub project_health_metrics: Records<ProjectHealthMetrics>,
    pub badges: Records<Badge>,
    /// `community.json` (all defaults when the file is missing).
    pub community: Community,
}

/// The interchange files, in the order they are read.
pub const FILES: &[&str] = &[
    "organizations.jsonl",
    "members.jsonl",
    "repositories.jsonl",
    "repository_contributors.jsonl",
    "labels.jsonl",
    "issues.jsonl",
    "milestones.jsonl",
    "releases.jsonl",
    "chapters.jsonl",
    "committees.jsonl",
    "projects.jsonl",
    "events.jsonl",
    "sponsors.jsonl",
    "snapshots.jsonl",
    "pull_requests.jsonl",
    "posts.jsonl",
    "project_health_metrics.jsonl",
    "badges.jsonl",
    "community.json",
];

/// Origin used for records built in memory (synthetic datasets).
pub fn synthetic_origin(file: &'static str, index: usize) -> Origin {
    Origin {
        file,
        line: index + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_normalise_to_utc_and_keep_fractions_only_when_non_zero() {
        assert_eq!(
            Ts::parse("2024-03-01T12:00:00Z").unwrap().format(),
            "2024-03-01T12:00:00Z"
        );
        assert_eq!(
            Ts::parse("2024-03-01T14:00:00+02:00").unwrap().format(),
            "2024-03-01T12:00:00Z"
        );
        assert_eq!(
            Ts::parse("2024-03-01T12:00:00.000Z").unwrap().format(),
            "2024-03-01T12:00:00Z"
        );
        assert_eq!(
            Ts::parse("2024-03-01T12:00:00.25Z").unwrap().format(),
            "2024-03-01T12:00:00.250000Z"
        );
        assert!(Ts::parse("2024-03-01 12:00").is_err());
    }

    #[test]
    fn timestamps_format_as_chrono_does_in_every_year() {
        // Edges: the epoch, before it, leap days, year ends, the fast path's limits
        // (years 0 and 9999) and beyond them, and the ends of what chrono can represent.
        let day = 86_400_000_000_i64;
        let mut values = vec![
            0,
            -1,
            1,
            999_999,
            1_000_000,
            -1_000_000,
            Ts::parse("2024-02-29T23:59:59.999999Z").unwrap().0,
            Ts::parse("2000-03-01T00:00:00Z").unwrap().0,
            Ts::parse("1900-02-28T12:00:00Z").unwrap().0,
            Ts::parse("0000-01-01T00:00:00Z").unwrap().0,
            Ts::parse("0000-01-01T00:00:00Z").unwrap().0 - 1,
            Ts::parse("9999-12-31T23:59:59.999999Z").unwrap().0,
            Ts::parse("9999-12-31T23:59:59.999999Z").unwrap().0 + 1,
            i64::MIN,
            i64::MAX,
        ];
        // Every day of 400 years (one whole Gregorian cycle) at a varying time of day,
        // and a spread of values over the whole range.
        let start = Ts::parse("1800-01-01T00:00:00Z").unwrap().0;
        values.extend((0..146_097).map(|n| start + n * day + (n * 7_919_000_003) % day));
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        values.extend((0..100_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i64
        }));
        for value in values {
            assert_eq!(
                Ts(value).format(),
                Ts(value).format_chrono(false),
                "{value} microseconds"
            );
            assert_eq!(
                Ts(value).format_micros(),
                Ts(value).format_chrono(true),
                "{value} microseconds, six digits"
            );
        }
    }

    #[test]
    fn dates_are_strict() {
        assert!(Date::parse("2024-02-29").is_ok());
        assert!(Date::parse("2023-02-29").is_err());
        assert!(Date::parse("2024-2-1").is_err());
    }
}
