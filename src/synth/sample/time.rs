//! The sample's calendar: instants as microseconds since 1970 (UTC), as Python's
//! aware `datetime`s were, with the draws of instants the generator shares.

use chrono::{DateTime, NaiveDate};

use super::pyrandom::PyRandom;

/// An instant, in microseconds since 1970-01-01T00:00:00Z.
pub(super) type Instant = i64;

pub(super) const SECOND: i64 = 1_000_000;
pub(super) const MINUTE: i64 = 60 * SECOND;
pub(super) const HOUR: i64 = 60 * MINUTE;
pub(super) const DAY: i64 = 24 * HOUR;
pub(super) const WEEK: i64 = 7 * DAY;

/// The sample's "now" (2026-11-20T18:00:00Z): nothing is created after it.
pub(super) const NOW: Instant = 1_795_197_600 * SECOND;

/// `datetime(y, mo, d, h, mi, s, tzinfo=UTC)`.
pub(super) fn dt(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> Instant {
    NaiveDate::from_ymd_opt(y, mo, d)
        .and_then(|date| date.and_hms_opt(h, mi, s))
        .expect("a valid calendar date")
        .and_utc()
        .timestamp()
        * SECOND
}

/// Midnight of a day.
pub(super) fn day(y: i32, mo: u32, d: u32) -> Instant {
    dt(y, mo, d, 0, 0, 0)
}

fn utc(t: Instant) -> DateTime<chrono::Utc> {
    DateTime::from_timestamp(t.div_euclid(SECOND), 0).expect("an instant in range")
}

/// RFC 3339 in UTC, whole seconds, `Z`.
pub(super) fn ts(t: Instant) -> String {
    utc(t).format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The instant's day, `YYYY-MM-DD`.
pub(super) fn date(t: Instant) -> String {
    utc(t).format("%Y-%m-%d").to_string()
}

/// The instant's year and month.
pub(super) fn year_month(t: Instant) -> (i32, u32) {
    use chrono::Datelike;
    let d = utc(t);
    (d.year(), d.month())
}

/// The instant of an RFC 3339 timestamp (any offset, up to microseconds).
pub(super) fn parse_ts(s: &str) -> Instant {
    DateTime::parse_from_rfc3339(s)
        .expect("an RFC 3339 timestamp of the sample")
        .timestamp_micros()
}

/// `(a - b).days`: whole days, rounded down.
pub(super) fn days(a: Instant, b: Instant) -> i64 {
    (a - b).div_euclid(DAY)
}

/// `int((a - b).total_seconds())`: seconds, rounded towards zero.
fn seconds(a: Instant, b: Instant) -> i64 {
    (a - b) / SECOND
}

/// A uniform whole-second instant in `[lo, hi)` (`lo` when the span is empty).
pub(super) fn rand_dt(rng: &mut PyRandom, lo: Instant, hi: Instant) -> Instant {
    lo + rng.randrange(0, seconds(hi, lo).max(1)) * SECOND
}

/// A uniform whole-second instant in `[lo, hi)` (the span must not be empty).
pub(super) fn between(rng: &mut PyRandom, lo: Instant, hi: Instant) -> Instant {
    lo + rng.randrange(0, seconds(hi, lo)) * SECOND
}

/// An instant `min_seconds` to `max_days` after `t`, never after [`NOW`] (unless `t`
/// is).
pub(super) fn later(rng: &mut PyRandom, t: Instant, max_days: i64, min_seconds: i64) -> Instant {
    let room = seconds(NOW, t);
    let hi = (max_days * 86_400).min(room);
    let lo = min_seconds.min(hi.max(0));
    t + rng.randint(lo, lo.max(hi)) * SECOND
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_print_and_parse() {
        assert_eq!(ts(NOW), "2026-11-20T18:00:00Z");
        assert_eq!(
            parse_ts("2022-12-31T22:30:00-05:00"),
            dt(2023, 1, 1, 3, 30, 0)
        );
        assert_eq!(parse_ts("2023-05-01T10:00:00.250000Z") % SECOND, 250_000);
        assert_eq!(
            ts(parse_ts("2022-11-30T23:59:59.999999Z")),
            "2022-11-30T23:59:59Z"
        );
        assert_eq!(days(NOW, NOW + 1), -1);
    }
}
