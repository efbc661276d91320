//! The credential store's memory of rows it has looked up (see the module doc of
//! [`super`]): valid for one `PRAGMA data_version` of auth.db, which a connection of
//! its own reads at every check.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::{Found, Kind};

/// Secrets remembered (found or not) before the cache starts afresh.
const ENTRIES: usize = 10_000;

/// (kind, SHA-256 of the secret).
pub(super) type CacheKey = (Kind, [u8; 32]);

/// Rows looked up, valid for one `data_version` of auth.db.
#[derive(Debug)]
pub(super) struct Cache {
    /// The connection that asks for `PRAGMA data_version`; it never writes, so every
    /// change it sees was committed by someone else.
    watcher: Connection,
    version: Option<i64>,
    /// The row of each secret looked up, `None` for no such credential.
    rows: HashMap<CacheKey, Option<Found>>,
}

impl Cache {
    pub(super) fn new(watcher: Connection) -> Cache {
        Cache {
            watcher,
            version: None,
            rows: HashMap::new(),
        }
    }

    /// The current `data_version`, the rows emptied when it moved; `None` when it
    /// cannot be read (then nothing is remembered).
    fn current(&mut self) -> Option<i64> {
        let version = self
            .watcher
            .prepare_cached("PRAGMA data_version")
            .and_then(|mut st| st.query_row([], |r| r.get::<_, i64>(0)))
            .ok();
        if version.is_none() || version != self.version {
            self.rows.clear();
            self.version = version;
        }
        version
    }

    /// The answer for a secret's hash at `now` when the cache has one that needs no
    /// write (`Some(None)`: refused), and the `data_version` a look-up in the file is
    /// to be remembered under.
    pub(super) fn answer(
        &mut self,
        key: &CacheKey,
        now: DateTime<Utc>,
    ) -> (Option<Option<i64>>, Option<i64>) {
        let version = self.current();
        let answer = match self.rows.get(key) {
            None => None,
            Some(None) => Some(None),
            Some(Some(found)) => match found.active_id(now) {
                None => Some(None),
                // The use is to be recorded: a look-up in the file does it.
                Some(_) if found.use_is_stale(now) => None,
                Some(id) => Some(Some(id)),
            },
        };
        (answer, version)
    }

    /// Remembers a look-up made after `version` was read, unless auth.db has changed
    /// since (the row may predate that change).
    pub(super) fn remember(&mut self, key: CacheKey, found: Option<Found>, version: Option<i64>) {
        if version.is_none() || self.current() != version {
            return;
        }
        if self.rows.len() >= ENTRIES {
            self.rows.clear();
        }
        self.rows.insert(key, found);
    }
}
