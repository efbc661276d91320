//! One table's rows sent with `COPY … FROM STDIN` in PostgreSQL's text format: a row
//! is its fields separated by tabs and ended by a newline, `\N` is NULL, and a
//! backslash, tab, newline or carriage return inside a value is written `\\`, `\t`,
//! `\n`, `\r`. Rows are gathered in a buffer sent a megabyte at a time.

use std::io::Write as _;

use anyhow::{anyhow, Result};
use roost::records::Ts;
use serde::Serialize;
use sqlx::postgres::{PgConnection, PgCopyIn, PgDatabaseError};

/// How many bytes of rows are gathered before they are sent.
const CHUNK: usize = 1 << 20;

/// A `COPY` in progress into one table. The field methods append one field each to
/// the current row, in the order of the columns named by [`Copy::begin`];
/// [`Copy::end`] closes the row.
pub struct Copy<'c> {
    table: &'static str,
    copy: PgCopyIn<&'c mut PgConnection>,
    buf: Vec<u8>,
    /// JSON values are serialised here, then escaped into `buf`.
    scratch: Vec<u8>,
    rows: u64,
    /// At the start of a row (no tab before the next field).
    fresh: bool,
    /// Why the current row cannot be written (a value PostgreSQL cannot hold).
    problem: Option<String>,
}

impl<'c> Copy<'c> {
    /// Starts `COPY table (columns) FROM STDIN`. The table was created in the same
    /// transaction, so its rows are written frozen (`FREEZE`): nothing else can see
    /// the table before the transaction commits.
    pub async fn begin(
        conn: &'c mut PgConnection,
        table: &'static str,
        columns: &str,
    ) -> Result<Copy<'c>> {
        let sql = format!("COPY {table} ({columns}) FROM STDIN WITH (FREEZE)");
        let copy = conn
            .copy_in_raw(&sql)
            .await
            .map_err(|e| db_error(table, e))?;
        Ok(Copy {
            table,
            copy,
            buf: Vec::with_capacity(CHUNK + CHUNK / 4),
            scratch: Vec::new(),
            rows: 0,
            fresh: true,
            problem: None,
        })
    }

    fn sep(&mut self) {
        if self.fresh {
            self.fresh = false;
        } else {
            self.buf.push(b'\t');
        }
    }

    /// NULL.
    pub fn null(&mut self) -> &mut Self {
        self.sep();
        self.buf.extend_from_slice(b"\\N");
        self
    }

    /// Text, escaped. A NUL character cannot be stored in PostgreSQL text: the row is
    /// refused by [`Copy::end`].
    pub fn text(&mut self, value: &str) -> &mut Self {
        self.sep();
        if escape(&mut self.buf, value.as_bytes()) {
            self.problem.get_or_insert_with(|| {
                "a text holds a NUL character (U+0000), which PostgreSQL text cannot hold"
                    .to_string()
            });
        }
        self
    }

    pub fn int(&mut self, value: i64) -> &mut Self {
        self.sep();
        self.buf
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        self
    }

    pub fn uint(&mut self, value: u64) -> &mut Self {
        self.sep();
        self.buf
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        self
    }

    /// An id, or NULL.
    pub fn opt_int(&mut self, value: Option<i64>) -> &mut Self {
        match value {
            Some(v) => self.int(v),
            None => self.null(),
        }
    }

    pub fn bool(&mut self, value: bool) -> &mut Self {
        self.sep();
        self.buf.push(if value { b't' } else { b'f' });
        self
    }

    /// A `timestamptz`: RFC 3339 in UTC with microseconds.
    pub fn ts(&mut self, value: Ts) -> &mut Self {
        self.sep();
        let text = value.format_micros();
        if text.is_empty() {
            self.problem
                .get_or_insert_with(|| format!("timestamp {} µs is out of range", value.0));
        }
        self.buf.extend_from_slice(text.as_bytes());
        self
    }

    pub fn opt_ts(&mut self, value: Option<Ts>) -> &mut Self {
        match value {
            Some(v) => self.ts(v),
            None => self.null(),
        }
    }

    /// A `double precision` (Rust's shortest text that reads back as the same value),
    /// or NULL.
    pub fn float(&mut self, value: Option<f64>) -> &mut Self {
        match value {
            Some(v) => {
                self.sep();
                // Writing to a Vec cannot fail.
                let _ = write!(self.buf, "{v}");
                self
            }
            None => self.null(),
        }
    }

    /// A `jsonb` value.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> &mut Self {
        self.sep();
        self.scratch.clear();
        if let Err(e) = serde_json::to_writer(&mut self.scratch, value) {
            self.problem.get_or_insert_with(|| e.to_string());
        }
        // JSON text holds no raw control characters; its backslashes are escaped.
        escape(&mut self.buf, &self.scratch);
        self
    }

    /// Ends the row; sends the buffer once it holds a chunk.
    pub async fn end(&mut self) -> Result<()> {
        if let Some(problem) = self.problem.take() {
            return Err(anyhow!("{}: row {}: {problem}", self.table, self.rows + 1));
        }
        self.buf.push(b'\n');
        self.rows += 1;
        self.fresh = true;
        if self.buf.len() >= CHUNK {
            self.copy
                .send(&self.buf[..])
                .await
                .map_err(|e| db_error(self.table, e))?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Sends what is left and ends the `COPY`; returns the table and its rows.
    pub async fn finish(mut self) -> Result<(&'static str, u64)> {
        let table = self.table;
        if !self.buf.is_empty() {
            self.copy
                .send(&self.buf[..])
                .await
                .map_err(|e| db_error(table, e))?;
        }
        let rows = self.copy.finish().await.map_err(|e| db_error(table, e))?;
        if rows != self.rows {
            return Err(anyhow!(
                "{table}: {} rows sent but the server took {rows}",
                self.rows
            ));
        }
        Ok((table, rows))
    }
}

/// Appends `text` to `out` escaped for the text format; true when it holds a NUL.
fn escape(out: &mut Vec<u8>, text: &[u8]) -> bool {
    let special = |b: &u8| matches!(b, b'\\' | b'\t' | b'\n' | b'\r' | 0);
    if !text.iter().any(special) {
        out.extend_from_slice(text);
        return false;
    }
    let mut nul = false;
    for &b in text {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0 => nul = true,
            _ => out.push(b),
        }
    }
    nul
}

/// A database error with what the server says about it: the message, its detail and
/// where (for `COPY`, the line, which is the row, and the column).
pub fn db_error(what: &str, e: sqlx::Error) -> anyhow::Error {
    let Some(pg) = e
        .as_database_error()
        .and_then(|d| d.try_downcast_ref::<PgDatabaseError>())
    else {
        return anyhow!("{what}: {e}");
    };
    let mut text = format!("{what}: {}", pg.message());
    if let Some(detail) = pg.detail() {
        text.push_str(&format!(" ({detail})"));
    }
    if let Some(place) = pg.r#where() {
        text.push_str(&format!(" [{place}]"));
    }
    anyhow!(text)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_the_text_format() {
        let mut out = Vec::new();
        assert!(!escape(&mut out, b"a\\b\tc\nd\re"));
        assert_eq!(out, b"a\\\\b\\tc\\nd\\re");
        out.clear();
        assert!(escape(&mut out, b"a\0b"));
    }
}
