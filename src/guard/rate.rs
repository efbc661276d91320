//! One budget of requests per second, checked once per request.
//!
//! A [`RateCheck`] is a [`Limiter`] (GCRA, its state in the process or in Redis:
//! [`crate::limits`]) that also forgets its idle subjects as it goes, every
//! [`SWEEP_EVERY`] checks, so no endpoint needs a timer for it. One call, one
//! [`Decision`]: allowed or not, with the limit, what remains and when the budget is
//! full again, which [`write_headers`] turns into the `RateLimit-*` fields; a refusal
//! is a [`RateLimited`], which each endpoint answers as a 429 with `Retry-After` in
//! its own body.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::http::{HeaderMap, HeaderName, HeaderValue};

use crate::limits::{Decision, Kind, Limiter, RedisLimits, Subject};

/// Checks between two clean-ups of a budget's idle subjects.
pub const SWEEP_EVERY: u64 = 4096;

pub const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
pub const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
pub const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

/// A budget of requests per second per [`Subject`].
pub struct RateCheck {
    limiter: Limiter,
    checks: AtomicU64,
}

/// A request over its budget: 429, `Retry-After` of [`RateLimited::retry_after_secs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimited(pub Decision);

impl RateLimited {
    /// The time until one request is allowed again.
    pub fn wait(&self) -> Duration {
        self.0.retry_after
    }

    /// `Retry-After` in whole seconds, at least 1.
    pub fn retry_after_secs(&self) -> u64 {
        self.0.retry_after_secs()
    }
}

impl RateCheck {
    /// `per_second` requests per second (burst as large) counted as `kind`, kept in
    /// Redis when `shared` is given; `None` for 0 (no limit).
    pub fn per_second(kind: Kind, per_second: u32, shared: Option<RedisLimits>) -> Option<Self> {
        Limiter::per_second(kind, per_second, shared).map(|limiter| RateCheck {
            limiter,
            checks: AtomicU64::new(0),
        })
    }

    /// `per_second` requests per second with a burst of `burst` (as large as the rate
    /// for 0); `None` for a rate of 0 (no limit).
    pub fn with_burst(
        kind: Kind,
        per_second: u32,
        burst: u32,
        shared: Option<RedisLimits>,
    ) -> Option<Self> {
        Limiter::per_second_with_burst(kind, per_second, burst, shared).map(|limiter| RateCheck {
            limiter,
            checks: AtomicU64::new(0),
        })
    }

    /// Takes one request of `subject`: the decision, allowed or not.
    pub async fn check(&self, subject: Subject) -> Decision {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.limiter.retain_recent();
        }
        self.limiter.check(subject).await
    }

    /// [`RateCheck::check`], refused as a [`RateLimited`].
    pub async fn take(&self, subject: Subject) -> Result<Decision, RateLimited> {
        let decision = self.check(subject).await;
        if decision.allowed {
            Ok(decision)
        } else {
            Err(RateLimited(decision))
        }
    }

    /// Forgets the process's state of subjects whose budget is full again.
    pub fn retain_recent(&self) {
        self.limiter.retain_recent();
    }
}

/// The budget as the IETF draft's `RateLimit-*` fields: the limit (requests per
/// second, also the burst), what remains right now, and the seconds until the budget
/// is full again (rounded up).
pub fn write_headers(headers: &mut HeaderMap, decision: &Decision) {
    headers.insert(RATELIMIT_LIMIT, HeaderValue::from(decision.limit));
    headers.insert(RATELIMIT_REMAINING, HeaderValue::from(decision.remaining));
    headers.insert(RATELIMIT_RESET, HeaderValue::from(decision.reset_secs()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_call_one_decision_and_its_headers() {
        let rate = RateCheck::per_second(Kind::Idx, 1, None).unwrap();
        let ip = Subject::Addr("192.0.2.1".parse().unwrap());
        let first = rate.take(ip).await.unwrap();
        let mut headers = HeaderMap::new();
        write_headers(&mut headers, &first);
        assert_eq!(headers[&RATELIMIT_LIMIT], "1");
        assert_eq!(headers[&RATELIMIT_REMAINING], "0");
        assert_eq!(headers[&RATELIMIT_RESET], "1");
        let refused = rate.take(ip).await.unwrap_err();
        assert!(!refused.0.allowed);
        assert_eq!(refused.retry_after_secs(), 1);
        assert!(RateCheck::per_second(Kind::Idx, 0, None).is_none());
    }
}
