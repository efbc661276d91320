//! Limits shared by every shim pointed at one Redis server (`--redis URL`).
//!
//! One check is one round trip: a server-side Lua script ([`GCRA`]) reads the
//! subject's theoretical arrival time, decides with the server's clock (the shims'
//! clocks do not matter), stores the new time with an expiry of the time until the
//! budget is full again, and answers allowed / remaining / retry / reset. The key name
//! holds a hash of the limiter's kind and the subject (a key id or an address), never
//! an API key or a session secret: `roost:limit:<kind>:<sha-256 prefix>`.
//!
//! Redis is asked within a short timeout. When it does not answer (down, unreachable,
//! slow, an error), the check is answered by the process's own limiter instead, the
//! degradation is logged once (a warning naming the error), and Redis is tried again
//! at most once per [`RETRY_EVERY`] until it answers, which is logged once more. No
//! request waits for a Redis that is known to be down, and none fails because of it.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use sha2::{Digest, Sha256};

use super::{Decision, Kind, Subject};

/// How long a check waits for Redis by default before answering from the process.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(250);
/// While Redis is down, how often one check tries it again.
pub const RETRY_EVERY: Duration = Duration::from_secs(1);

/// GCRA in one call. KEYS[1]: the subject's key; ARGV[1]: the interval between two
/// requests' allowances in µs; ARGV[2]: the burst. Answers
/// `{allowed (0/1), remaining, retry after µs, reset µs}`.
pub const GCRA: &str = r#"
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000000 + tonumber(now_parts[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]))
if tat == nil or tat < now then
  tat = now
end
local new_tat = tat + interval
local allow_at = new_tat - interval * burst
if now < allow_at then
  return {0, 0, allow_at - now, tat - now}
end
local ttl_ms = math.ceil((new_tat - now) / 1000) + 1
redis.call('SET', KEYS[1], string.format('%d', new_tat), 'PX', ttl_ms)
local remaining = math.floor((now - allow_at) / interval)
if remaining > burst then
  remaining = burst
end
return {1, remaining, 0, new_tat - now}
"#;

/// A handle on the shared limits (cheap to clone).
#[derive(Clone)]
pub struct RedisLimits(Arc<Inner>);

impl std::fmt::Debug for RedisLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLimits")
            .field("timeout", &self.0.timeout)
            .field("degraded", &self.degraded())
            .finish_non_exhaustive()
    }
}

struct Inner {
    client: redis::Client,
    /// Made inside the runtime on first use; it connects, and reconnects, by itself.
    manager: OnceLock<ConnectionManager>,
    script: redis::Script,
    timeout: Duration,
    started: Instant,
    /// Redis did not answer the last call.
    degraded: AtomicBool,
    /// While degraded: when (µs since `started`) the next try may happen.
    next_try: AtomicU64,
}

impl RedisLimits {
    /// Checks the URL (`redis://host:port/db`, `rediss://`, `unix://`); connects on
    /// first use, so a shim starts even while Redis is down (its limits are then
    /// per-process until Redis answers).
    pub fn new(url: &str, timeout: Duration) -> anyhow::Result<RedisLimits> {
        let client = redis::Client::open(url).with_context(|| {
            format!(
                "--redis {}: not a Redis URL (e.g. redis://127.0.0.1:6379/0)",
                redact(url)
            )
        })?;
        Ok(RedisLimits(Arc::new(Inner {
            client,
            manager: OnceLock::new(),
            script: redis::Script::new(GCRA),
            timeout,
            started: Instant::now(),
            degraded: AtomicBool::new(false),
            next_try: AtomicU64::new(0),
        })))
    }

    /// Whether the last call to Redis failed (limits are per-process meanwhile).
    pub fn degraded(&self) -> bool {
        self.0.degraded.load(Ordering::Relaxed)
    }

    /// The decision of Redis, or `None` when it did not answer (then or recently).
    pub async fn check(
        &self,
        kind: Kind,
        subject: Subject,
        limit: NonZeroU32,
        interval: Duration,
    ) -> Option<Decision> {
        let inner = &self.0;
        if inner.degraded.load(Ordering::Relaxed) && !self.may_try() {
            return None;
        }
        let manager = inner.manager.get_or_init(|| {
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(inner.timeout))
                .set_response_timeout(Some(inner.timeout))
                .set_number_of_retries(1)
                .set_max_delay(RETRY_EVERY);
            match ConnectionManager::new_lazy_with_config(inner.client.clone(), config) {
                Ok(manager) => manager,
                Err(e) => unreachable_manager(e),
            }
        });
        let mut conn = manager.clone();
        let interval_us = u64::try_from(interval.as_micros())
            .unwrap_or(u64::MAX)
            .max(1);
        let mut invocation = inner.script.key(key_name(kind, subject));
        invocation.arg(interval_us).arg(limit.get());
        let started = Instant::now();
        let answer = tokio::time::timeout(
            inner.timeout,
            invocation.invoke_async::<(i64, i64, i64, i64)>(&mut conn),
        )
        .await;
        metrics::histogram!("roost_redis_call_seconds").record(started.elapsed().as_secs_f64());
        let error = match answer {
            Ok(Ok((allowed, remaining, retry_us, reset_us))) => {
                if inner.degraded.swap(false, Ordering::Relaxed) {
                    tracing::warn!(
                        target: "roost::limits",
                        "redis answers again: rate limits are shared across shims again"
                    );
                }
                let micros = |us: i64| Duration::from_micros(u64::try_from(us).unwrap_or(0));
                return Some(Decision {
                    allowed: allowed == 1,
                    limit: limit.get(),
                    remaining: u32::try_from(remaining.max(0))
                        .unwrap_or(0)
                        .min(limit.get()),
                    reset: micros(reset_us),
                    retry_after: micros(retry_us),
                });
            }
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no answer within {} ms", inner.timeout.as_millis()),
        };
        metrics::counter!("roost_redis_errors_total").increment(1);
        self.schedule_retry();
        if !inner.degraded.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                target: "roost::limits",
                error = %error,
                "redis unavailable: rate limits are per process until it answers again"
            );
        }
        None
    }

    fn now_us(&self) -> u64 {
        u64::try_from(self.0.started.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn schedule_retry(&self) {
        let at = self.now_us() + u64::try_from(RETRY_EVERY.as_micros()).unwrap_or(0);
        self.0.next_try.store(at, Ordering::Relaxed);
    }

    /// One caller per [`RETRY_EVERY`] gets to try a Redis that was down.
    fn may_try(&self) -> bool {
        let now = self.now_us();
        let at = self.0.next_try.load(Ordering::Relaxed);
        now >= at
            && self
                .0
                .next_try
                .compare_exchange(
                    at,
                    now + u64::try_from(RETRY_EVERY.as_micros()).unwrap_or(0),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_ok()
    }
}

/// `new_lazy_with_config` only refuses a configuration asking for resubscription
/// without a push sender, which this one never does.
fn unreachable_manager(e: redis::RedisError) -> ! {
    panic!("redis connection manager configuration refused: {e}")
}

/// `roost:limit:<kind>:<first 16 bytes of sha-256(kind, subject) in hex>`.
pub fn key_name(kind: Kind, subject: Subject) -> String {
    let mut hash = Sha256::new();
    hash.update(b"roost-limit\0");
    hash.update(kind.as_str().as_bytes());
    hash.update(b"\0");
    match subject {
        Subject::Id(id) => {
            hash.update(b"id\0");
            hash.update(id.to_be_bytes());
        }
        Subject::Addr(ip) => {
            hash.update(b"addr\0");
            hash.update(ip.to_string().as_bytes());
        }
    }
    let digest = hash.finalize();
    format!(
        "roost:limit:{}:{}",
        kind.as_str(),
        hex::encode(&digest[..16])
    )
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://…@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_hash_the_subject() {
        let a = key_name(Kind::Key, Subject::Id(42));
        assert!(a.starts_with("roost:limit:key:"), "{a}");
        assert!(!a.contains("42"), "{a}");
        assert_eq!(a.len(), "roost:limit:key:".len() + 32);
        assert_ne!(a, key_name(Kind::Graphql, Subject::Id(42)));
        assert_ne!(a, key_name(Kind::Key, Subject::Id(43)));
        let ip = key_name(Kind::FailedAuth, Subject::Addr("10.1.2.3".parse().unwrap()));
        assert!(!ip.contains("10.1.2.3"), "{ip}");
    }

    #[test]
    fn bad_urls_are_refused_and_passwords_not_repeated() {
        let err = RedisLimits::new("http://secret@x", DEFAULT_TIMEOUT)
            .expect_err("an http URL is not a Redis URL");
        let text = format!("{err:#}");
        assert!(text.contains("--redis"), "{text}");
        assert!(!text.contains("secret"), "{text}");
        assert!(RedisLimits::new("redis://127.0.0.1:6379/0", DEFAULT_TIMEOUT).is_ok());
    }
}
