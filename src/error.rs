//! roost's error policy, and the one place internal errors are logged.
//!
//! 1. **Library modules return their own `thiserror` types** (`store::StoreError`,
//!    `credentials::CredentialError`, `pool::PoolError`, `docs::DocsError`,
//!    `store::export::ExportError`, `catalog::AnswerError`...): a caller can match on
//!    what went wrong, and every message names what was wrong (a file and line, a
//!    flag, a path).
//! 2. **`anyhow` only at the edges**: `cli` and the command runners (`generate`,
//!    `shim::serve`) add context and print the chain once (`main`, [`report`]: a
//!    cause already said is not repeated), as `roost: <what failed>: <why>`.
//! 3. **Bad input is a client error, never a panic and never a 500**: REST answers
//!    400/404 with the documented JSON bodies, GraphQL a coded error.
//! 4. **Internal errors are logged in one place**: the code that turns one into a
//!    500 (or a GraphQL `INTERNAL_SERVER_ERROR`) attaches an [`InternalCause`] to the
//!    response; the access log writes it in the request's log line. Clients see
//!    "Internal server error" and nothing of the cause. Conversions between error types
//!    never log.
//! 5. **Serialisation failures are errors**, propagated like any other, never replaced
//!    by an empty body.

use std::fmt;
use std::sync::Arc;

/// The cause of an internal error, carried as a response extension to the access
/// log (which logs it once, with the request it belongs to).
#[derive(Clone)]
pub struct InternalCause(Arc<str>);

impl InternalCause {
    /// The full chain of `error` (`{:#}` of an `anyhow` error).
    pub fn new(error: impl fmt::Display) -> InternalCause {
        InternalCause(format!("{error:#}").into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for InternalCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for InternalCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Several causes in one response (a GraphQL answer can hold more than one failed
/// field): joined with `; `.
pub fn join_causes<'a>(causes: impl IntoIterator<Item = &'a InternalCause>) -> Option<String> {
    let joined: Vec<&str> = causes.into_iter().map(InternalCause::as_str).collect();
    (!joined.is_empty()).then(|| joined.join("; "))
}

/// An error and its causes on one line, each cause said once: a cause whose text the
/// line already holds (a message that printed its source), or that restates the
/// previous cause (SQLite's `Error code 13: database or disk is full` after `database
/// or disk is full`), is left out. What `main` prints after `roost: `.
pub fn report(error: &anyhow::Error) -> String {
    let mut out = String::new();
    let mut previous = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        let repeated = out.contains(&text) || (!previous.is_empty() && text.contains(&previous));
        if !text.is_empty() && !repeated {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
        previous = text;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_says_each_cause_once() {
        let full = || std::io::Error::from_raw_os_error(28);
        let e = anyhow::Error::new(full()).context(format!("writing issues.jsonl: {}", full()));
        assert_eq!(report(&e), format!("writing issues.jsonl: {}", full()));
        let sqlite = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(13),
            Some("database or disk is full".to_string()),
        );
        let e = anyhow::Error::new(sqlite).context("importing into /data/roost.db");
        assert_eq!(
            report(&e),
            "importing into /data/roost.db: database or disk is full"
        );
        // Distinct causes are all kept.
        let e = anyhow::anyhow!("disk I/O error").context("reading chapters");
        assert_eq!(report(&e), "reading chapters: disk I/O error");
    }

    #[test]
    fn causes_keep_the_whole_chain() {
        let e = anyhow::anyhow!("disk I/O error").context("reading chapters");
        assert_eq!(
            InternalCause::new(e).as_str(),
            "reading chapters: disk I/O error"
        );
        let (a, b) = (InternalCause::new("a"), InternalCause::new("b"));
        assert_eq!(join_causes([&a, &b]).as_deref(), Some("a; b"));
        assert_eq!(join_causes([]), None);
    }
}
