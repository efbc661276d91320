//! The per-process state of a [`super::Limiter`]: `governor`'s keyed GCRA, with its
//! state snapshot for the remaining budget.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use super::{Decision, Subject};

type Inner =
    RateLimiter<Subject, DefaultKeyedStateStore<Subject>, DefaultClock, StateInformationMiddleware>;

pub struct LocalLimiter {
    inner: Inner,
    limit: NonZeroU32,
    interval: Duration,
}

impl LocalLimiter {
    /// A burst of `limit`, one request's allowance back every `interval` (not zero).
    pub fn new(limit: NonZeroU32, interval: Duration) -> LocalLimiter {
        let quota = Quota::with_period(interval)
            .unwrap_or_else(|| Quota::per_second(limit))
            .allow_burst(limit);
        LocalLimiter {
            inner: RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>(),
            limit,
            interval,
        }
    }

    pub fn check(&self, subject: Subject) -> Decision {
        let limit = self.limit.get();
        match self.inner.check_key(&subject) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity().min(limit);
                Decision {
                    allowed: true,
                    limit,
                    remaining,
                    reset: self.interval * (limit - remaining),
                    retry_after: Duration::ZERO,
                }
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                Decision {
                    allowed: false,
                    limit,
                    remaining: 0,
                    reset: wait + self.interval * (limit - 1),
                    retry_after: wait,
                }
            }
        }
    }

    pub fn retain_recent(&self) {
        self.inner.retain_recent();
    }
}
