//! Rate limits (docs/api.md §5), with `governor` (GCRA, no background thread):
//!
//! - per API key: `--rate-limit N` requests per second with a burst of N, counted for
//!   every request the key makes, whatever its outcome;
//! - per client address, on failed authentication only (missing, unknown, revoked or
//!   expired key): a small budget per minute. Once it is spent the address is refused
//!   with 429 *before* its key is even looked at, until the limiter lets it try
//!   again, so a guess that happens to be right during the block tells nothing.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// A keyed limiter that answers with how long to wait.
pub struct Limiter<K: Hash + Eq + Clone> {
    inner: DefaultKeyedRateLimiter<K>,
}

impl<K: Hash + Eq + Clone> Limiter<K> {
    /// `n` cells per `period`, burst `n`.
    pub fn new(n: NonZeroU32, period: Duration) -> Limiter<K> {
        let per_cell = period / n.get();
        // `with_period` refuses only a zero period, which `max` rules out.
        let quota = Quota::with_period(per_cell.max(Duration::from_nanos(1)))
            .unwrap_or_else(|| Quota::per_second(n))
            .allow_burst(n);
        Limiter {
            inner: RateLimiter::keyed(quota),
        }
    }

    /// Takes one cell; `Err(wait)` when the budget is spent.
    pub fn check(&self, key: &K) -> Result<(), Duration> {
        self.inner
            .check_key(key)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    /// Forgets keys whose budget is full again (memory stays bounded).
    pub fn retain_recent(&self) {
        self.inner.retain_recent();
    }
}

/// The failed-authentication limiter per client address.
pub struct FailedAuth {
    limiter: Limiter<IpAddr>,
    blocked: Mutex<HashMap<IpAddr, Instant>>,
}

impl FailedAuth {
    pub fn new(per_minute: NonZeroU32) -> FailedAuth {
        FailedAuth {
            limiter: Limiter::new(per_minute, Duration::from_secs(60)),
            blocked: Mutex::new(HashMap::new()),
        }
    }

    /// The blocked addresses. A lock poisoned by a panic elsewhere is recovered (the
    /// map is whole at every step): a panic must not unblock anyone.
    fn blocked(&self) -> MutexGuard<'_, HashMap<IpAddr, Instant>> {
        self.blocked.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How long `ip` must still wait, if it is blocked.
    pub fn blocked_for(&self, ip: IpAddr) -> Option<Duration> {
        let blocked = self.blocked();
        let until = *blocked.get(&ip)?;
        until.checked_duration_since(Instant::now())
    }

    /// Counts one failure of `ip`; `Some(wait)` when this failure spent the budget.
    pub fn failure(&self, ip: IpAddr) -> Option<Duration> {
        let wait = self.limiter.check(&ip).err()?;
        let mut blocked = self.blocked();
        let now = Instant::now();
        if blocked.len() > 10_000 {
            blocked.retain(|_, until| *until > now);
        }
        blocked.insert(ip, now + wait);
        Some(wait)
    }

    pub fn retain_recent(&self) {
        self.limiter.retain_recent();
        let now = Instant::now();
        self.blocked().retain(|_, until| *until > now);
    }
}

/// `Retry-After` in whole seconds, at least 1.
pub fn retry_after_secs(wait: Duration) -> u64 {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    secs.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_gets_its_burst_then_waits() {
        let l: Limiter<i64> = Limiter::new(NonZeroU32::new(2).unwrap(), Duration::from_secs(1));
        assert!(l.check(&1).is_ok());
        assert!(l.check(&1).is_ok());
        let wait = l.check(&1).unwrap_err();
        assert!(wait <= Duration::from_millis(500));
        assert!(l.check(&2).is_ok(), "keys are independent");
    }

    #[test]
    fn failed_auth_blocks_the_address_once_spent() {
        let f = FailedAuth::new(NonZeroU32::new(2).unwrap());
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(f.blocked_for(ip).is_none());
        assert!(f.failure(ip).is_none());
        assert!(f.failure(ip).is_none());
        let wait = f.failure(ip).unwrap();
        assert!(wait > Duration::from_secs(20));
        assert!(f.blocked_for(ip).is_some());
        assert!(f.blocked_for(other).is_none());
    }

    #[test]
    fn retry_after_rounds_up_to_a_second() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1500)), 2);
        assert_eq!(retry_after_secs(Duration::from_secs(6)), 6);
    }
}
