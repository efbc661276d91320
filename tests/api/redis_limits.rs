//! Limits shared in Redis (`--redis`): Debian's `redis-server` on a loopback port of
//! a temporary folder. Two shims over one server enforce one budget; when the server
//! is killed they keep answering with per-process limits (never a 5xx), and share
//! again once it is back. Without `redis-server` installed these tests fail, they do
//! not skip: `apt-get install redis-server` (`.ci/run` installs it).

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::http::Method;
use chrono::Utc;
use roost::config::Env;
use roost::credentials::Kind;

use crate::support::*;

struct Redis {
    child: Child,
    port: u16,
    dir: Option<tempfile::TempDir>,
}

impl Redis {
    fn start() -> Redis {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Redis::on(dir, port)
    }

    fn on(dir: tempfile::TempDir, port: u16) -> Redis {
        let mut child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "redis-server could not be started ({e}); these tests need Debian's \
                     redis-server: apt-get install redis-server"
                )
            });
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Redis {
                    child,
                    port,
                    dir: Some(dir),
                };
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("redis-server did not listen on 127.0.0.1:{port}");
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    fn kill(mut self) -> (tempfile::TempDir, u16) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        (self.dir.take().expect("the folder"), self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn two_shims_share_one_budget_and_fall_back_when_redis_is_gone() {
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let auth_db = dir.path().join("auth.db");
    let shim = |url: String| {
        let auth_db = auth_db.clone();
        shared().app(Env::Production, move |c| {
            c.auth_db = auth_db;
            c.rate_limit = 4;
            c.redis = Some(url);
            c.redis_timeout = Duration::from_secs(2);
        })
    };
    let (a, b) = (shim(redis.url()), shim(redis.url()));
    let (_, key) = credential(&auth_db, Kind::Key, "shared", None, Utc::now());
    let get = |app: &roost::shim::App| {
        let req = request(Method::GET, "/api/v0/chapters/").header("x-api-key", key.as_str());
        let app = app.clone();
        async move { send(&app, req).await }
    };

    // One budget of 4 over both shims.
    let mut statuses = Vec::new();
    for app in [&a, &b, &a, &b, &a, &b] {
        statuses.push(get(app).await.status.as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 200, 429, 429]);
    let r = get(&b).await;
    assert_eq!(r.header("ratelimit-limit"), Some("4"));
    assert_eq!(r.header("ratelimit-remaining"), Some("0"));
    assert!(r.header("retry-after").is_some());

    // Redis gone: each shim limits on its own, never a 5xx.
    let (redis_dir, port) = redis.kill();
    let (_, key2) = credential(&auth_db, Kind::Key, "fallback", None, Utc::now());
    let mut ok = 0;
    for app in [&a, &b, &a, &b, &a, &b, &a, &b, &a, &b] {
        let req = request(Method::GET, "/api/v0/chapters/").header("x-api-key", key2.as_str());
        let status = send(app, req).await.status.as_u16();
        assert!(
            status == 200 || status == 429,
            "status {status} with Redis down"
        );
        ok += usize::from(status == 200);
    }
    assert_eq!(ok, 8, "two per-process budgets of 4");

    // Back: shared again (each shim tries Redis again within a second).
    let _redis = Redis::on(redis_dir, port);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let (_, key3) = credential(&auth_db, Kind::Key, "recovered", None, Utc::now());
    let mut statuses = Vec::new();
    for app in [&a, &b, &a, &b, &a, &b] {
        let req = request(Method::GET, "/api/v0/chapters/").header("x-api-key", key3.as_str());
        statuses.push(send(app, req).await.status.as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 200, 429, 429]);
}

#[tokio::test]
async fn redis_holds_hashed_keys_with_an_expiry() {
    let redis = Redis::start();
    let limits = roost::limits::RedisLimits::new(&redis.url(), Duration::from_secs(2)).unwrap();
    let limiter = roost::limits::Limiter::new(
        roost::limits::Kind::Key,
        std::num::NonZeroU32::new(3).unwrap(),
        Duration::from_secs(1),
        Some(limits.clone()),
    );
    let first = limiter.check(roost::limits::Subject::Id(7)).await;
    assert!(first.allowed);
    assert_eq!(first.remaining, 2);
    assert!(!limits.degraded());
    let name =
        roost::limits::redis::key_name(roost::limits::Kind::Key, roost::limits::Subject::Id(7));
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(keys, std::slice::from_ref(&name));
    let ttl: i64 = redis::cmd("PTTL")
        .arg(&name)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(ttl > 0 && ttl <= 1001, "PTTL {ttl}");
}
