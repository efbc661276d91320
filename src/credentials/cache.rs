//! The credential store's memory of rows it has looked up (see the module doc of
//! [`super`]): valid until auth.db next commits a transaction, whoever commits it.
//!
//! How a commit is seen without taking a lock: auth.db is in WAL mode, and SQLite
//! publishes every commit in the header of the WAL index (`auth.db-shm`): a change
//! counter, the last frame and the WAL's salts, written twice, second copy first
//! (sqlite.org/walformat.html §2.1; the layout is shared by every process and SQLite
//! version using the file, so it does not change). One `pread` of both copies per
//! check gives a stamp; when the copies differ (a commit is being published) or the
//! file cannot be read, the check asks `PRAGMA data_version` of a connection of its
//! own instead, as it does once a second anyway to confirm the header: should the
//! version ever move while the header stays, the header is not trusted again and
//! every check asks the pragma. A `roost keys revoke` that has returned has
//! published its commit, so the next check sees it.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::{Found, Kind};

/// Secrets remembered (found or not) before the cache starts afresh.
const ENTRIES: usize = 10_000;
/// One copy of the WAL-index header, in bytes.
const HEADER: usize = 48;
/// How often the header is confirmed by `PRAGMA data_version`.
const CONFIRM_EVERY: Duration = Duration::from_secs(1);

/// (kind, SHA-256 of the secret).
pub(super) type CacheKey = (Kind, [u8; 32]);

/// What auth.db's committed state was when rows were looked up: equal stamps mean
/// no commit in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stamp {
    /// The WAL-index header.
    Header([u8; HEADER]),
    /// `PRAGMA data_version` of the watching connection.
    Version(i64),
}

/// Rows looked up, valid for one [`Stamp`].
#[derive(Debug)]
pub(super) struct Cache {
    watch: Watch,
    stamp: Option<Stamp>,
    /// The row of each secret looked up, `None` for no such credential.
    rows: HashMap<CacheKey, Option<Found>>,
}

/// How commits to auth.db are seen (see the module doc).
#[derive(Debug)]
struct Watch {
    /// The connection that asks for `PRAGMA data_version`; it never writes, so every
    /// change it sees was committed by someone else.
    conn: Connection,
    shm_path: PathBuf,
    shm: Shm,
    /// The last confirmation: when, the header then, the version then.
    confirmed: Option<(Instant, [u8; HEADER], i64)>,
}

#[derive(Debug)]
enum Shm {
    /// Not opened yet (it exists once the watcher has read auth.db).
    Unopened,
    Open(File),
    /// Found not to follow commits: every check asks the pragma.
    Distrusted,
}

impl Watch {
    fn version(&self) -> Option<i64> {
        self.conn
            .prepare_cached("PRAGMA data_version")
            .and_then(|mut st| st.query_row([], |r| r.get::<_, i64>(0)))
            .ok()
    }

    /// Both copies of the WAL-index header when they agree and say it is set up.
    fn header(&mut self) -> Option<[u8; HEADER]> {
        if matches!(self.shm, Shm::Unopened) {
            // The watcher reads auth.db first, which sets up its WAL index.
            self.version()?;
            self.shm = match File::open(&self.shm_path) {
                Ok(file) => Shm::Open(file),
                Err(_) => Shm::Distrusted,
            };
        }
        let Shm::Open(file) = &self.shm else {
            return None;
        };
        let mut both = [0u8; 2 * HEADER];
        file.read_exact_at(&mut both, 0).ok()?;
        let first: [u8; HEADER] = both[..HEADER].try_into().ok()?;
        // isInit (byte 12) is 1 once SQLite has built the index.
        (first[..] == both[HEADER..] && first[12] == 1).then_some(first)
    }

    /// The current stamp; `None` when nothing can be read (then nothing is kept).
    fn stamp(&mut self) -> Option<Stamp> {
        let Some(header) = self.header() else {
            return self.version().map(Stamp::Version);
        };
        let due = self
            .confirmed
            .is_none_or(|(at, _, _)| at.elapsed() >= CONFIRM_EVERY);
        if due {
            let version = self.version()?;
            if let Some((_, old_header, old_version)) = self.confirmed {
                if old_version != version && old_header == header {
                    tracing::warn!(
                        file = %self.shm_path.display(),
                        "auth.db changed without its WAL index showing it; \
                         every credential check now asks SQLite"
                    );
                    self.shm = Shm::Distrusted;
                    self.confirmed = None;
                    return Some(Stamp::Version(version));
                }
            }
            self.confirmed = Some((Instant::now(), header, version));
        }
        Some(Stamp::Header(header))
    }
}

impl Cache {
    pub(super) fn new(watcher: Connection, path: &Path) -> Cache {
        let mut shm_path = path.as_os_str().to_owned();
        shm_path.push("-shm");
        Cache {
            watch: Watch {
                conn: watcher,
                shm_path: shm_path.into(),
                shm: Shm::Unopened,
                confirmed: None,
            },
            stamp: None,
            rows: HashMap::new(),
        }
    }

    /// The current stamp, the rows emptied when it moved.
    fn current(&mut self) -> Option<Stamp> {
        let stamp = self.watch.stamp();
        if stamp.is_none() || stamp != self.stamp {
            self.rows.clear();
            self.stamp = stamp;
        }
        stamp
    }

    /// The answer for a secret's hash at `now` when the cache has one that needs no
    /// write (`Some(None)`: refused), and the stamp a look-up in the file is to be
    /// remembered under.
    pub(super) fn answer(
        &mut self,
        key: &CacheKey,
        now: DateTime<Utc>,
    ) -> (Option<Option<i64>>, Option<Stamp>) {
        let stamp = self.current();
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
        (answer, stamp)
    }

    /// Remembers a look-up made after `stamp` was read, unless auth.db has changed
    /// since (the row may predate that change).
    pub(super) fn remember(&mut self, key: CacheKey, found: Option<Found>, stamp: Option<Stamp>) {
        if stamp.is_none() || self.current() != stamp {
            return;
        }
        if self.rows.len() >= ENTRIES {
            self.rows.clear();
        }
        self.rows.insert(key, found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header follows every commit of another connection, and equal headers mean
    /// equal versions.
    #[test]
    fn the_wal_index_header_moves_with_every_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.db");
        let writer = super::super::open(&path).unwrap();
        let mut watch = Cache::new(super::super::open(&path).unwrap(), &path).watch;
        let mut seen = Vec::new();
        for i in 0..5 {
            let header = watch.header().expect("the header is readable");
            assert!(
                !seen.contains(&header),
                "commit {i} left the header as it was"
            );
            assert_eq!(watch.header(), Some(header), "no commit, same header");
            seen.push(header);
            super::super::create(&writer, Kind::Key, "k", None, Utc::now()).unwrap();
        }
        // A checkpoint that restarts the WAL moves it too.
        writer
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        super::super::create(&writer, Kind::Key, "k", None, Utc::now()).unwrap();
        assert!(!seen.contains(&watch.header().unwrap()));
        assert!(matches!(watch.stamp(), Some(Stamp::Header(_))));
    }

    /// A header that stops following commits is noticed at the next confirmation and
    /// never trusted again.
    #[test]
    fn a_header_that_does_not_follow_commits_is_distrusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.db");
        let writer = super::super::open(&path).unwrap();
        let mut cache = Cache::new(super::super::open(&path).unwrap(), &path);
        assert!(matches!(cache.watch.stamp(), Some(Stamp::Header(_))));
        // Stand-in for an index that no longer follows auth.db: a copy of it.
        let copy = dir.path().join("frozen-shm");
        std::fs::copy(&cache.watch.shm_path, &copy).unwrap();
        cache.watch.shm = Shm::Open(File::open(&copy).unwrap());
        cache.watch.confirmed = None;
        assert!(matches!(cache.watch.stamp(), Some(Stamp::Header(_))));
        super::super::create(&writer, Kind::Key, "k", None, Utc::now()).unwrap();
        // Not yet due: the frozen header still answers.
        assert!(matches!(cache.watch.stamp(), Some(Stamp::Header(_))));
        if let Some((at, _, _)) = &mut cache.watch.confirmed {
            *at -= CONFIRM_EVERY;
        }
        assert!(matches!(cache.watch.stamp(), Some(Stamp::Version(_))));
        assert!(matches!(cache.watch.shm, Shm::Distrusted));
        assert!(matches!(cache.watch.stamp(), Some(Stamp::Version(_))));
    }
}
