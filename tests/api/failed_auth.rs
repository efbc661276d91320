//! The budget of requests without a valid key (docs/api.md §5): per client address
//! and per second, 401 within it and 429 with `Retry-After` past it, for every kind of
//! invalid key (missing, wrong, revoked, expired); a valid key is always served from
//! the same address, within its own per-key limit.

use std::time::{Duration, Instant};

use axum::http::Method;
use chrono::Utc;
use roost::config::Env;
use roost::credentials::{self, Kind};

use crate::support::*;

const NAT: &str = "198.51.100.20";

async fn from_nat(app: &roost::shim::App, key: Option<&str>) -> Reply {
    let mut req = from(Method::GET, "/api/v0/chapters/", NAT);
    if let Some(key) = key {
        req = req.header("x-api-key", key);
    }
    send(app, req).await
}

#[tokio::test]
async fn every_kind_of_invalid_key_spends_the_budget_and_a_valid_key_is_always_served() {
    let fx = Keyed::new();
    let app = fx.app(Env::Production, |c| {
        c.failed_auth_rate = 4;
        c.rate_limit = 1000;
    });
    let (_, valid) = credential(&fx.auth_db, Kind::Key, "valid", None, Utc::now());
    let (revoked_id, revoked) = credential(&fx.auth_db, Kind::Key, "revoked", None, Utc::now());
    let conn = credentials::open(&fx.auth_db).unwrap();
    credentials::revoke(&conn, Kind::Key, revoked_id, Utc::now()).unwrap();
    let two_days_ago = Utc::now() - chrono::Duration::days(2);
    let (_, expired) = credential(&fx.auth_db, Kind::Key, "expired", Some(1), two_days_ago);

    // The burst of 4: a missing, a wrong, a revoked and an expired key, each a 401.
    for key in [
        None,
        Some("rk_wrong"),
        Some(revoked.as_str()),
        Some(expired.as_str()),
    ] {
        let r = from_nat(&app, key).await;
        assert_detail(&r, 401, UNAUTHORIZED);
        assert!(r.header("retry-after").is_none());
    }
    // Past it, each of them is a 429 with Retry-After.
    for key in [
        None,
        Some("rk_wrong"),
        Some(revoked.as_str()),
        Some(expired.as_str()),
    ] {
        let r = from_nat(&app, key).await;
        assert_detail(&r, 429, "Too many requests.");
        assert_eq!(r.header("retry-after"), Some("1"));
        assert_eq!(r.header("cache-control"), Some("private"));
    }
    // The valid key behind the same address is served every time, and spends
    // nothing of the address's budget.
    for _ in 0..20 {
        let r = from_nat(&app, Some(&valid)).await;
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.body, shared().file("api/v0/chapters/index.json"));
        assert_eq!(from_nat(&app, Some("rk_wrong")).await.status, 429);
    }
    // Other addresses have budgets of their own.
    let r = send(&app, from(Method::GET, "/api/v0/", "203.0.113.50")).await;
    assert_eq!(r.status, 401);
}

#[tokio::test]
async fn the_budget_is_per_second_not_per_minute() {
    let fx = Keyed::new();
    // 20 per second: one failure is refilled every 50 ms.
    let app = fx.app(Env::Production, |c| {
        c.failed_auth_rate = 20;
        c.rate_limit = 0;
    });
    let mut refused = None;
    for _ in 0..40 {
        let r = from_nat(&app, None).await;
        if r.status == 429 {
            refused = Some(r);
            break;
        }
        assert_eq!(r.status, 401);
    }
    let refused = refused.expect("the burst is spent within 40 requests");
    assert_eq!(refused.header("retry-after"), Some("1"));
    // Well within the second (let alone the minute), the address may fail again.
    let started = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let r = from_nat(&app, None).await;
        if r.status == 401 {
            break;
        }
        assert_eq!(r.status, 429);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "still refused after a second"
        );
    }
}

#[tokio::test]
async fn a_valid_key_keeps_its_own_limit() {
    let fx = Keyed::new();
    let app = fx.app(Env::Production, |c| {
        c.failed_auth_rate = 1;
        c.rate_limit = 2;
    });
    let (_, key) = credential(&fx.auth_db, Kind::Key, "busy", None, Utc::now());
    // The address's failure budget is spent...
    assert_eq!(from_nat(&app, None).await.status, 401);
    assert_eq!(from_nat(&app, None).await.status, 429);
    // ...the key is served for its burst of 2, then limited by its own budget.
    assert_eq!(from_nat(&app, Some(&key)).await.status, 200);
    assert_eq!(from_nat(&app, Some(&key)).await.status, 200);
    let r = from_nat(&app, Some(&key)).await;
    assert_detail(&r, 429, "Too many requests.");
    assert!(r.header("retry-after").is_some());
}

#[tokio::test]
async fn a_zero_budget_answers_every_failure_with_401() {
    let fx = Keyed::new();
    let app = fx.app(Env::Production, |c| {
        c.failed_auth_rate = 0;
        c.rate_limit = 0;
    });
    for _ in 0..50 {
        assert_eq!(from_nat(&app, Some("rk_wrong")).await.status, 401);
    }
}
