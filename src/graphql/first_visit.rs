//! One CSRF token for a browser's first concurrent `GET /csrf/` calls.
//!
//! A page that asks `/csrf/` from two places at once (the GraphQL client and the
//! search box of the frontend do) before the browser holds a `csrftoken` cookie would
//! get two tokens: each answer sets the cookie, the last one set wins, and a POST
//! sending the other token fails the double-submit check with 403. So a token made for
//! a caller without the cookie is handed to the same caller (client address and
//! `User-Agent`) again for [`WINDOW`]. Tokens stay random; the store is bounded.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a first-visit token is handed out again.
pub const WINDOW: Duration = Duration::from_secs(10);
/// The most callers remembered; past it, the expired ones are dropped, and if all are
/// recent, a new caller's token is not remembered.
const CAPACITY: usize = 10_000;

/// A caller: its client address (none in-process) and its `User-Agent`.
type Caller = (Option<IpAddr>, String);

#[derive(Debug, Default)]
pub struct FirstVisits {
    /// The token made for each caller, and when.
    recent: Mutex<HashMap<Caller, (String, Instant)>>,
}

impl FirstVisits {
    /// The token made for this caller within [`WINDOW`], else `make()`'s, remembered.
    pub fn token<E>(
        &self,
        client: Option<IpAddr>,
        user_agent: &str,
        make: impl FnOnce() -> Result<String, E>,
    ) -> Result<String, E> {
        let now = Instant::now();
        let key = (client, user_agent.chars().take(256).collect::<String>());
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((token, at)) = recent.get(&key) {
            if now.duration_since(*at) < WINDOW {
                return Ok(token.clone());
            }
        }
        let token = make()?;
        if recent.len() >= CAPACITY {
            recent.retain(|_, (_, at)| now.duration_since(*at) < WINDOW);
        }
        if recent.len() < CAPACITY {
            recent.insert(key, (token.clone(), now));
        }
        Ok(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make(n: &mut u32) -> Result<String, ()> {
        *n += 1;
        Ok(format!("token{n}"))
    }

    #[test]
    fn one_caller_gets_one_token_and_another_caller_its_own() {
        let visits = FirstVisits::default();
        let mut n = 0;
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let first = visits.token(Some(a), "browser", || make(&mut n)).unwrap();
        assert_eq!(
            visits.token(Some(a), "browser", || make(&mut n)).unwrap(),
            first
        );
        assert_ne!(
            visits.token(Some(b), "browser", || make(&mut n)).unwrap(),
            first
        );
        assert_ne!(
            visits.token(Some(a), "other", || make(&mut n)).unwrap(),
            first
        );
        assert_eq!(n, 3);
    }
}
