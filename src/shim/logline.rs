//! The shim's JSON log line, written straight into one buffer.
//!
//! Every request logs one line (`roost::access`), so the line's cost is paid per
//! request. tracing-subscriber's JSON formatter builds it through serde's map
//! serializer and a visitor per field, a large part of the shim's own work for a
//! pre-rendered file (bench/RESULTS.md). This formatter writes the same line (the same keys in the same order, the same
//! escaping and numbers, as the test below checks against tracing-subscriber's own
//! output): `timestamp` (UTC, microseconds), `level`, the event's fields in order
//! (`message` first), `target`.

use std::fmt;

use chrono::Utc;
use serde::Serializer as _;
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use crate::records::Ts;

/// The event format of `roost serve`'s log (see the module doc).
pub struct JsonLine;

impl<S, N> FormatEvent<S, N> for JsonLine
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'w> FormatFields<'w> + 'static,
{
    fn format_event(
        &self,
        _ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut line = Vec::with_capacity(256);
        line.extend_from_slice(b"{\"timestamp\":\"");
        // As tracing-subscriber's default timer writes it: always six fraction digits.
        line.extend_from_slice(Ts(Utc::now().timestamp_micros()).format_micros().as_bytes());
        line.extend_from_slice(b"\",\"level\":\"");
        line.extend_from_slice(event.metadata().level().as_str().as_bytes());
        line.push(b'"');
        let mut fields = Fields {
            line: &mut line,
            failed: false,
        };
        event.record(&mut fields);
        if fields.failed {
            return Err(fmt::Error);
        }
        line.extend_from_slice(b",\"target\":");
        string(&mut line, event.metadata().target()).map_err(|_| fmt::Error)?;
        line.extend_from_slice(b"}\n");
        writer.write_str(std::str::from_utf8(&line).map_err(|_| fmt::Error)?)
    }
}

/// `value` as a JSON string.
fn string(out: &mut Vec<u8>, value: &str) -> serde_json::Result<()> {
    serde_json::to_writer(out, value)
}

/// Appends each field as `,"name":value`, the way tracing-serde's map visitor does.
struct Fields<'a> {
    line: &'a mut Vec<u8>,
    failed: bool,
}

impl Fields<'_> {
    fn entry(&mut self, field: &Field, value: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>) {
        self.line.push(b',');
        let ok = string(self.line, field.name()).is_ok() && {
            self.line.push(b':');
            value(self.line).is_ok()
        };
        self.failed |= !ok;
    }
}

impl Visit for Fields<'_> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.entry(field, |out| serde_json::to_writer(out, &value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.entry(field, |out| serde_json::to_writer(out, &value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.entry(field, |out| serde_json::to_writer(out, &value));
    }
    // 128-bit integers fall to `record_debug`, as in tracing-serde: strings.
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.entry(field, |out| serde_json::to_writer(out, &value));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.entry(field, |out| string(out, value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        // Escaped as it is formatted, without a string of its own.
        self.entry(field, |out| {
            serde_json::Serializer::new(out).collect_str(&format_args!("{value:?}"))
        });
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// Lines written by a subscriber, for comparing formats.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Lines {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Events of every kind of field the shim logs, and some it does not.
    fn events() {
        let cause = io::Error::other("disk \"full\"\n\u{1}");
        let client: Option<String> = Some("127.0.0.1".into());
        let none: Option<i64> = None;
        tracing::info!(
            target: "roost::access",
            method = %"GET",
            path = %"/api/v0/issues/?q=\"x\"\\é",
            status = 200u16,
            duration_ms = 0.006,
            client,
            key_id = none,
            "request"
        );
        tracing::error!(target: "roost::access", status = 500u16, duration_ms = 12.0, error = %cause, "request");
        tracing::warn!(path = ?std::path::Path::new("/tmp/a b"), big = u128::MAX, small = i128::MIN,
            yes = true, neg = -3i64, nan = f64::NAN, "tree file \u{7f} unreadable; {}", "answering live");
        tracing::debug!(hidden = 1, "below the level");
    }

    fn lines(format: impl FnOnce(Lines) -> tracing::Dispatch) -> Vec<String> {
        let sink = Lines::default();
        tracing::dispatcher::with_default(&format(sink.clone()), events);
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    /// The lines as written, each timestamp checked (recent, microseconds) and cut out.
    fn without_time(lines: &[String]) -> Vec<String> {
        lines
            .iter()
            .map(|line| {
                let rest = line.strip_prefix("{\"timestamp\":\"").unwrap();
                let (time, rest) = rest.split_once('"').unwrap();
                assert_eq!(time.len(), "2026-11-24T04:43:29.750712Z".len(), "{time}");
                let time = chrono::DateTime::parse_from_rfc3339(time).unwrap();
                assert!((Utc::now() - time.with_timezone(&Utc)).num_seconds().abs() < 60);
                serde_json::from_str::<serde_json::Value>(line).unwrap();
                rest.to_string()
            })
            .collect()
    }

    #[test]
    fn lines_are_tracing_subscribers_json_lines() {
        let ours = lines(|sink| {
            tracing_subscriber::fmt()
                .event_format(JsonLine)
                .with_max_level(tracing::Level::INFO)
                .with_writer(move || sink.clone())
                .finish()
                .into()
        });
        let theirs = lines(|sink| {
            tracing_subscriber::fmt()
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .with_span_list(false)
                .with_max_level(tracing::Level::INFO)
                .with_writer(move || sink.clone())
                .finish()
                .into()
        });
        assert_eq!(ours.len(), 3);
        assert_eq!(without_time(&ours), without_time(&theirs));
    }
}
