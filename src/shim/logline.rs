//! The shim's JSON log line, written straight into one buffer.
//!
//! Every request logs one line (`roost::access`), so the line's cost is paid per
//! request. tracing-subscriber's JSON formatter builds it through serde's map
//! serializer and a visitor per field, a large part of the shim's own work for a
//! pre-rendered file (bench/history/2026-11.md, "The access log line"). This
//! formatter writes the same line (the same keys in the same order, the same escaping
//! and numbers, as the test below checks against tracing-subscriber's own output):
//! `timestamp` (UTC, microseconds), `level`, the event's fields in order (`message`
//! first), `target`.
//!
//! The access line at `info` skips tracing altogether ([`Access`]): the front
//! service writes the same bytes straight into the log's writer, which saves
//! tracing's dispatch, its field set and visitor (bench/history/2026-11.md, "A tree
//! file: 45,400 → 34,200 instructions a request"); a test holds the two to the same
//! lines.

use std::cell::Cell;
use std::fmt;
use std::net::IpAddr;

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
        start(&mut line, event.metadata().level().as_str());
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

/// The start of every line: `{"timestamp":"…","level":"…"`.
fn start(line: &mut Vec<u8>, level: &str) {
    line.extend_from_slice(b"{\"timestamp\":\"");
    now_micros(line);
    line.extend_from_slice(b"\",\"level\":\"");
    line.extend_from_slice(level.as_bytes());
    line.push(b'"');
}

/// The time now as tracing-subscriber's default timer writes it (UTC, always six
/// fraction digits). The text up to the second is made once a second per thread;
/// within the second only the fraction's digits are written.
fn now_micros(line: &mut Vec<u8>) {
    thread_local! {
        static SECOND: Cell<(i64, [u8; 27])> = const { Cell::new((i64::MIN, [0; 27])) };
    }
    let micros = Utc::now().timestamp_micros();
    let (second, fraction) = (micros.div_euclid(1_000_000), micros.rem_euclid(1_000_000));
    let (held, mut text) = SECOND.get();
    if held != second {
        let made = Ts(micros).format_micros();
        match <[u8; 27]>::try_from(made.as_bytes()) {
            Ok(made) => {
                text = made;
                SECOND.set((second, text));
            }
            // Years outside 0..=9999 are written another way: as they come.
            Err(_) => {
                line.extend_from_slice(made.as_bytes());
                return;
            }
        }
    }
    let mut rest = fraction as u32;
    for digit in text[20..26].iter_mut().rev() {
        *digit = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    line.extend_from_slice(&text);
}

/// The fields of an access line (`roost::access`, `request`), in the order the shim
/// logs them; `None` fields are left out, as tracing leaves out an `Option` that is
/// `None`.
#[derive(Debug, Clone, Copy)]
pub struct Access<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub status: u16,
    pub bytes: Option<u64>,
    pub duration_ms: f64,
    pub client: Option<IpAddr>,
    pub user_agent: Option<&'a str>,
    pub key_id: Option<i64>,
    pub request_id: &'a str,
}

impl Access<'_> {
    /// The line at `info`, byte for byte what [`JsonLine`] makes of
    /// `tracing::info!(target: "roost::access", method, path, …, "request")` (a test
    /// below compares them), appended to `line`.
    pub fn write_info(&self, line: &mut Vec<u8>) {
        start(line, "INFO");
        line.extend_from_slice(b",\"message\":\"request\",\"method\":");
        let _ = string(line, self.method);
        line.extend_from_slice(b",\"path\":");
        let _ = string(line, self.path);
        if let Some(query) = self.query {
            line.extend_from_slice(b",\"query\":");
            let _ = string(line, query);
        }
        line.extend_from_slice(b",\"status\":");
        integer(line, u64::from(self.status));
        if let Some(bytes) = self.bytes {
            line.extend_from_slice(b",\"bytes\":");
            integer(line, bytes);
        }
        line.extend_from_slice(b",\"duration_ms\":");
        let _ = serde_json::to_writer(&mut *line, &self.duration_ms);
        if let Some(client) = self.client {
            line.extend_from_slice(b",\"client\":\"");
            address(line, client);
            line.push(b'"');
        }
        if let Some(agent) = self.user_agent {
            line.extend_from_slice(b",\"user_agent\":");
            let _ = string(line, agent);
        }
        if let Some(id) = self.key_id {
            line.extend_from_slice(b",\"key_id\":");
            if id < 0 {
                line.push(b'-');
            }
            integer(line, id.unsigned_abs());
        }
        line.extend_from_slice(b",\"request_id\":");
        let _ = string(line, self.request_id);
        line.extend_from_slice(b",\"target\":\"roost::access\"}\n");
    }

    /// The same line as an event through tracing: at `error` with its `cause` when
    /// the answer hid an internal error (the one place those are logged:
    /// crate::error), else at `info` (for the text format, `RUST_LOG` filters, and the
    /// test that holds [`Access::write_info`] to these bytes).
    pub fn trace(&self, cause: Option<&dyn fmt::Display>) {
        let client = self.client.map(|ip| ip.to_string());
        macro_rules! event {
            ($level:ident $(, $cause:expr)?) => {
                tracing::$level!(
                    target: "roost::access",
                    method = self.method,
                    path = self.path,
                    query = self.query,
                    status = self.status,
                    bytes = self.bytes,
                    duration_ms = self.duration_ms,
                    client,
                    user_agent = self.user_agent,
                    key_id = self.key_id,
                    request_id = self.request_id,
                    $(error = %$cause,)?
                    "request"
                )
            };
        }
        match cause {
            Some(cause) => event!(error, cause),
            None => event!(info),
        }
    }
}

/// `n` in decimal (two digits a step, `itoa`).
fn integer(line: &mut Vec<u8>, n: u64) {
    line.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// An address as `Display` writes it (nothing in it needs escaping in JSON).
fn address(line: &mut Vec<u8>, ip: IpAddr) {
    match ip {
        IpAddr::V4(v4) => {
            for (i, octet) in v4.octets().into_iter().enumerate() {
                if i > 0 {
                    line.push(b'.');
                }
                integer(line, u64::from(octet));
            }
        }
        IpAddr::V6(v6) => {
            use std::io::Write as _;
            let _ = write!(line, "{v6}");
        }
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
        logged(format, events)
    }

    /// The lines `events` log through the subscriber `format` makes.
    fn logged(
        format: impl FnOnce(Lines) -> tracing::Dispatch,
        events: impl FnOnce(),
    ) -> Vec<String> {
        let sink = Lines::default();
        tracing::dispatcher::with_default(&format(sink.clone()), events);
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    /// roost's JSON format.
    fn json_line(sink: Lines) -> tracing::Dispatch {
        tracing_subscriber::fmt()
            .event_format(JsonLine)
            .with_writer(move || sink.clone())
            .finish()
            .into()
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

    /// Access lines of every shape: every optional field there or not, strings to
    /// escape, both kinds of address, long and short durations.
    fn accesses() -> Vec<Access<'static>> {
        let full = Access {
            method: "GET",
            path: "/api/v0/issues/\"x\"\\é\u{1}",
            query: Some("q=a%20b&page=2"),
            status: 200,
            bytes: Some(19_590),
            duration_ms: 0.094,
            client: Some("203.0.113.7".parse().unwrap()),
            user_agent: Some("integration/1.0 (\"quoted\")\u{7f}"),
            key_id: Some(12),
            request_id: "4d0fddb5799153ba38529a82a1322a44",
        };
        vec![
            full,
            Access {
                method: "HEAD",
                query: None,
                status: 304,
                bytes: Some(0),
                duration_ms: 1234.5,
                client: Some("2001:db8::1".parse().unwrap()),
                user_agent: None,
                key_id: None,
                ..full
            },
            Access {
                status: 401,
                bytes: None,
                duration_ms: 0.0,
                client: None,
                key_id: Some(9_007_199_254_740_993),
                request_id: "edge-42:a/b",
                ..full
            },
        ]
    }

    #[test]
    fn access_lines_written_directly_are_the_subscribers_lines() {
        // As the shim logs them through tracing.
        let theirs = logged(json_line, || {
            for a in accesses() {
                a.trace(None);
            }
        });
        let mut direct = Vec::new();
        for a in accesses() {
            a.write_info(&mut direct);
        }
        let ours: Vec<String> = String::from_utf8(direct)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(ours.len(), 3);
        assert_eq!(without_time(&ours), without_time(&theirs));
    }

    #[test]
    fn an_access_with_an_internal_cause_is_logged_at_error_with_the_cause() {
        let access = accesses().remove(0);
        let text = logged(json_line, || access.trace(Some(&"disk I/O error \"x\""))).join("\n");
        let line: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(line["level"], "ERROR");
        assert_eq!(line["message"], "request");
        assert_eq!(line["error"], "disk I/O error \"x\"");
        assert_eq!(line["status"], 200);
        assert_eq!(line["client"], "203.0.113.7");
        assert_eq!(line["target"], "roost::access");
    }

    #[test]
    fn the_time_is_written_to_the_microsecond_within_and_across_seconds() {
        for _ in 0..3 {
            let mut line = Vec::new();
            let before = Utc::now();
            now_micros(&mut line);
            let after = Utc::now();
            let text = String::from_utf8(line).unwrap();
            assert_eq!(text.len(), 27, "{text}");
            let at = chrono::DateTime::parse_from_rfc3339(&text)
                .unwrap()
                .timestamp_micros();
            let (before, after) = (before.timestamp_micros(), after.timestamp_micros());
            assert!(before <= at && at <= after, "{before} {text} {after}");
            std::thread::sleep(std::time::Duration::from_millis(600));
        }
    }
}
