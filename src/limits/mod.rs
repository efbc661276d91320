//! Rate limits of the shim and GraphQL, in one place (docs/architecture.md §6):
//!
//! - the per-key limit of REST requests (`--rate-limit`, 10/s),
//! - the per-address budget of requests without a valid key (`--failed-auth-rate`),
//! - the per-address limit of anonymous GraphQL requests, and the larger one of
//!   trusted callers (a session, or an address listed with `--graphql-trusted-client`).
//!
//! Each is a [`Limiter`]: GCRA with a burst as large as the rate (anonymous GraphQL
//! and `/idx/`: a burst of its own, `--graphql-burst`, so that a page's many requests
//! fit), answering a
//! [`Decision`] with what the `RateLimit-*` headers say (limit, remaining, reset) and,
//! when refused, how long to wait. Its state lives in the process ([`local`],
//! `governor`) or, with `--redis URL`, in Redis ([`redis`]: one server-side script per
//! check, shared by every shim pointed at the same server). When Redis does not answer
//! within its timeout the check falls back to the process's own state, so a Redis
//! outage degrades the limits to per-process ones and never fails a request.

pub mod local;
pub mod redis;

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

pub use self::redis::RedisLimits;

/// The client address of a request: the TCP peer, or the address a trusted proxy
/// forwarded (the shim's outermost layer decides and puts it in the request's
/// extensions). Per-address limits count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// What a limiter counts, for Redis key names, metrics and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// REST requests per API key.
    Key,
    /// REST requests without a valid key, per client address.
    FailedAuth,
    /// Anonymous GraphQL requests, per client address.
    Graphql,
    /// GraphQL requests of trusted callers, per session or listed address.
    GraphqlTrusted,
    /// `/idx/` searches per client address.
    Idx,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Key => "key",
            Kind::FailedAuth => "failed_auth",
            Kind::Graphql => "graphql",
            Kind::GraphqlTrusted => "graphql_trusted",
            Kind::Idx => "idx",
        }
    }
}

/// Who is counted: a key or session id, or a client address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject {
    Id(i64),
    Addr(IpAddr),
}

/// The answer to one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    /// Requests per period (the burst).
    pub limit: u32,
    /// Requests still allowed right now.
    pub remaining: u32,
    /// Time until the budget is full again.
    pub reset: Duration,
    /// When refused: time until one request is allowed again.
    pub retry_after: Duration,
}

impl Decision {
    /// `RateLimit-Reset` in whole seconds (rounded up; 0 when the budget is full).
    pub fn reset_secs(&self) -> u64 {
        ceil_secs(self.reset)
    }

    /// `Retry-After` in whole seconds, at least 1.
    pub fn retry_after_secs(&self) -> u64 {
        retry_after_secs(self.retry_after)
    }
}

fn ceil_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// `Retry-After` in whole seconds, at least 1.
pub fn retry_after_secs(wait: Duration) -> u64 {
    ceil_secs(wait).max(1)
}

/// `limit` requests per `period` with a burst of `limit` (or, built with
/// [`Limiter::per_second_with_burst`], a burst of its own), per [`Subject`].
pub struct Limiter {
    kind: Kind,
    limit: NonZeroU32,
    /// Time one request's allowance takes to come back (`period / limit`).
    interval: Duration,
    local: local::LocalLimiter,
    shared: Option<RedisLimits>,
}

impl Limiter {
    /// Kept in the process, or in Redis when `shared` is given (the process's own
    /// state then stands in while Redis does not answer).
    pub fn new(
        kind: Kind,
        limit: NonZeroU32,
        period: Duration,
        shared: Option<RedisLimits>,
    ) -> Limiter {
        let interval = (period / limit.get()).max(Duration::from_micros(1));
        Limiter {
            kind,
            limit,
            interval,
            local: local::LocalLimiter::new(limit, interval),
            shared,
        }
    }

    /// `per_second` requests per second; `None` for 0 (no limit).
    pub fn per_second(kind: Kind, per_second: u32, shared: Option<RedisLimits>) -> Option<Limiter> {
        NonZeroU32::new(per_second).map(|n| Limiter::new(kind, n, Duration::from_secs(1), shared))
    }

    /// `per_second` requests per second with a burst of `burst` (as large as the rate
    /// for 0): a subject that has been quiet may send `burst` at once, then
    /// `per_second` a second. `None` for a rate of 0 (no limit).
    pub fn per_second_with_burst(
        kind: Kind,
        per_second: u32,
        burst: u32,
        shared: Option<RedisLimits>,
    ) -> Option<Limiter> {
        let rate = NonZeroU32::new(per_second)?;
        let burst = NonZeroU32::new(burst).unwrap_or(rate);
        let interval = (Duration::from_secs(1) / rate.get()).max(Duration::from_micros(1));
        Some(Limiter {
            kind,
            limit: burst,
            interval,
            local: local::LocalLimiter::new(burst, interval),
            shared,
        })
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Takes one request of `subject`.
    pub async fn check(&self, subject: Subject) -> Decision {
        let decision = match &self.shared {
            Some(redis) => match redis
                .check(self.kind, subject, self.limit, self.interval)
                .await
            {
                Some(decision) => decision,
                None => self.local.check(subject),
            },
            None => self.local.check(subject),
        };
        if !decision.allowed {
            metrics::counter!("roost_limiter_rejections_total", "kind" => self.kind.as_str())
                .increment(1);
        }
        decision
    }

    /// Forgets the process's state of subjects whose budget is full again.
    pub fn retain_recent(&self) {
        self.local.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_rounds_up_to_a_second() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1500)), 2);
        assert_eq!(retry_after_secs(Duration::from_secs(6)), 6);
    }

    #[tokio::test]
    async fn a_subject_gets_its_burst_then_waits() {
        let l = Limiter::per_second(Kind::Key, 2, None).unwrap();
        let first = l.check(Subject::Id(1)).await;
        assert!(first.allowed);
        assert_eq!((first.limit, first.remaining), (2, 1));
        assert_eq!(first.reset_secs(), 1);
        let second = l.check(Subject::Id(1)).await;
        assert!(second.allowed);
        assert_eq!(second.remaining, 0);
        let third = l.check(Subject::Id(1)).await;
        assert!(!third.allowed);
        assert_eq!(third.remaining, 0);
        assert!(third.retry_after <= Duration::from_millis(500));
        assert!(third.retry_after > Duration::ZERO);
        assert_eq!(third.retry_after_secs(), 1);
        assert!(
            l.check(Subject::Id(2)).await.allowed,
            "subjects are independent"
        );
        let addr = Subject::Addr("10.0.0.1".parse().unwrap());
        assert!(l.check(addr).await.allowed);
    }

    #[tokio::test]
    async fn the_budget_refills() {
        let l = Limiter::per_second(Kind::FailedAuth, 2, None).unwrap();
        let ip = Subject::Addr("10.0.0.1".parse().unwrap());
        assert!(l.check(ip).await.allowed);
        assert!(l.check(ip).await.allowed);
        let refused = l.check(ip).await;
        assert!(!refused.allowed);
        tokio::time::sleep(refused.retry_after).await;
        assert!(
            l.check(ip).await.allowed,
            "the budget refills within the second"
        );
    }

    #[tokio::test]
    async fn a_burst_of_its_own_then_the_rate() {
        let l = Limiter::per_second_with_burst(Kind::Graphql, 2, 5, None).unwrap();
        let ip = Subject::Addr("10.0.0.1".parse().unwrap());
        for left in (0..5).rev() {
            let d = l.check(ip).await;
            assert!(d.allowed);
            assert_eq!((d.limit, d.remaining), (5, left));
        }
        let refused = l.check(ip).await;
        assert!(!refused.allowed);
        // One request's allowance comes back at the rate (every half second), not the
        // burst's.
        assert!(refused.retry_after <= Duration::from_millis(500));
        assert!(refused.retry_after > Duration::from_millis(100));
        assert_eq!(refused.reset_secs(), 3);
        // A burst of 0 is as large as the rate.
        let l = Limiter::per_second_with_burst(Kind::Idx, 3, 0, None).unwrap();
        assert_eq!(l.check(ip).await.limit, 3);
        assert!(Limiter::per_second_with_burst(Kind::Idx, 0, 10, None).is_none());
    }

    #[test]
    fn zero_is_no_limit() {
        assert!(Limiter::per_second(Kind::Graphql, 0, None).is_none());
    }
}
