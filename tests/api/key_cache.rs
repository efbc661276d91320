//! The credential store's cache of looked-up secrets: a hit needs no look-up in the
//! file, yet a revocation or a new key made by another process applies to the next
//! check, and expiry is decided at each check.

use chrono::{Duration, Utc};
use roost::credentials::{self, Credentials, Kind};

#[tokio::test]
async fn revocations_and_new_keys_apply_to_the_next_check_after_cached_hits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auth.db");
    let store = Credentials::open(&path).unwrap();
    // `roost keys` in another process: a connection of its own.
    let cli = credentials::open(&path).unwrap();
    let now = Utc::now();
    let key = credentials::create(&cli, Kind::Key, "ci", None, now).unwrap();
    let raw = Some(key.secret.as_bytes());
    for _ in 0..3 {
        assert_eq!(
            store.check(Kind::Key, raw, now).await.unwrap(),
            Some(key.id)
        );
    }
    // An unknown key is refused, then created: accepted on the next check.
    let other = credentials::create(&cli, Kind::Key, "later", None, now).unwrap();
    let unknown = "rk_not-a-key";
    assert_eq!(
        store
            .check(Kind::Key, Some(unknown.as_bytes()), now)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .check(Kind::Key, Some(other.secret.as_bytes()), now)
            .await
            .unwrap(),
        Some(other.id)
    );
    credentials::revoke(&cli, Kind::Key, key.id, now).unwrap();
    assert_eq!(store.check(Kind::Key, raw, now).await.unwrap(), None);
    assert_eq!(
        store
            .check(Kind::Key, Some(other.secret.as_bytes()), now)
            .await
            .unwrap(),
        Some(other.id)
    );
}

#[tokio::test]
async fn a_cached_key_expires_on_time_and_its_use_is_still_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auth.db");
    let store = Credentials::open(&path).unwrap();
    let cli = credentials::open(&path).unwrap();
    let now = Utc::now();
    let key = credentials::create(&cli, Kind::Key, "short", Some(1), now).unwrap();
    let raw = Some(key.secret.as_bytes());
    assert_eq!(
        store.check(Kind::Key, raw, now).await.unwrap(),
        Some(key.id)
    );
    assert_eq!(
        store.check(Kind::Key, raw, now).await.unwrap(),
        Some(key.id)
    );
    let later = now + Duration::minutes(5);
    assert_eq!(
        store.check(Kind::Key, raw, later).await.unwrap(),
        Some(key.id)
    );
    let listed = credentials::list(&cli, Kind::Key).unwrap();
    assert_eq!(
        listed[0].last_used_at.as_deref(),
        Some(credentials::format_time(later).as_str()),
        "a use a minute after the last recorded one is recorded"
    );
    let expired = now + Duration::days(1);
    assert_eq!(store.check(Kind::Key, raw, expired).await.unwrap(), None);
}
