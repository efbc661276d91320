//! Rate limits (docs/api.md §5), with `governor` (GCRA, no background thread):
//!
//! - per API key: `--rate-limit N` requests per second with a burst of N, counted for
//!   every request the key makes, whatever its outcome;
//! - per client address, on requests without a valid key only (missing, unknown,
//!   revoked or expired): `--failed-auth-rate N` per second with a burst of N. Within
//!   it such a request is 401, past it 429 with `Retry-After`. A valid key is looked
//!   up first and is always served (within its own limit), whatever else its
//!   address sends.

use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

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

/// The budget of requests without a valid key, per client address.
///
/// It is only ever asked about requests whose key was looked up and found missing,
/// unknown, revoked or expired: a valid key never spends it and is never refused by
/// it, so one bad client behind a shared address (a NAT, a proxy, a CDN) cannot lock
/// out the others. Keys have 256 bits; this budget bounds load and log noise, it is
/// not what stops guessing.
pub struct FailedAuth {
    limiter: Limiter<IpAddr>,
}

impl FailedAuth {
    /// `per_second` failures per second per address, with a burst as large.
    pub fn new(per_second: NonZeroU32) -> FailedAuth {
        FailedAuth {
            limiter: Limiter::new(per_second, Duration::from_secs(1)),
        }
    }

    /// Counts one failure of `ip`: `Ok` while the budget lasts (the answer is 401),
    /// `Err(wait)` past it (the answer is 429 with `Retry-After`).
    pub fn failure(&self, ip: IpAddr) -> Result<(), Duration> {
        self.limiter.check(&ip)
    }

    pub fn retain_recent(&self) {
        self.limiter.retain_recent();
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
    fn failed_auth_is_a_budget_per_address_and_second() {
        let f = FailedAuth::new(NonZeroU32::new(2).unwrap());
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(f.failure(ip).is_ok());
        assert!(f.failure(ip).is_ok());
        let wait = f.failure(ip).unwrap_err();
        assert!(wait <= Duration::from_millis(500), "{wait:?}");
        assert!(f.failure(other).is_ok(), "addresses are independent");
        std::thread::sleep(wait);
        assert!(
            f.failure(ip).is_ok(),
            "the budget refills within the second"
        );
    }

    #[test]
    fn retry_after_rounds_up_to_a_second() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1500)), 2);
        assert_eq!(retry_after_secs(Duration::from_secs(6)), 6);
    }
}
