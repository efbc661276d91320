//! The values records are made of, beside text and numbers: timestamps, calendar
//! dates and label colours, each parsed strictly from the interchange format.

use std::fmt;

use chrono::{DateTime, Datelike, NaiveDate, SecondsFormat, Timelike, Utc};
use serde::{Deserialize, Deserializer};

/// A timestamp: microseconds since the Unix epoch, UTC (by default, the epoch).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// Each type is read from a JSON string by its `parse`, whose message is the error's.
macro_rules! parsed_from_text {
    ($($ty:ident),*) => {
        $(
            impl<'de> Deserialize<'de> for $ty {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let text = String::deserialize(d)?;
                    $ty::parse(&text).map_err(serde::de::Error::custom)
                }
            }
        )*
    };
}

parsed_from_text!(Ts, Date, Color);

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

/// A 6-hex-digit label colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Color(pub String);

impl Color {
    pub fn parse(text: &str) -> Result<Color, String> {
        if text.len() == 6 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Color(text.to_string()))
        } else {
            Err(format!(
                "'{text}' is not a colour of 6 hex digits (like d73a4a)"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_normalise_to_utc_and_keep_fractions_only_when_non_zero() {
        for (text, formatted) in [
            ("2024-03-01T12:00:00Z", "2024-03-01T12:00:00Z"),
            ("2024-03-01T14:00:00+02:00", "2024-03-01T12:00:00Z"),
            ("2024-03-01T12:00:00.000Z", "2024-03-01T12:00:00Z"),
            ("2024-03-01T12:00:00.25Z", "2024-03-01T12:00:00.250000Z"),
        ] {
            assert_eq!(Ts::parse(text).unwrap().format(), formatted, "{text}");
        }
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

/// Counts by name (a day, a key, a channel), in name order: a JSON object of
/// non-negative integers.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(transparent)]
pub struct Counts(pub std::collections::BTreeMap<String, u64>);

impl Counts {
    /// The sum of the counts.
    pub fn total(&self) -> u64 {
        self.0.values().fold(0u64, |a, b| a.saturating_add(*b))
    }
}
