//! Unit tests of the credential store: secrets, the file's mode and journal, ids per
//! kind, the status rule, the expiry bound, legacy times and the pooled check.

use super::*;

fn db() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let conn = open(&dir.path().join("sub/auth.db")).unwrap();
    (dir, conn)
}

#[test]
fn secrets_are_long_url_safe_and_distinct() {
    let key = new_secret(Kind::Key).unwrap();
    let other = new_secret(Kind::Key).unwrap();
    assert_ne!(key, other);
    assert!(key.starts_with(KEY_PREFIX));
    assert_eq!(key.len(), KEY_PREFIX.len() + 43);
    let session = new_secret(Kind::Session).unwrap();
    assert_eq!(session.len(), 43);
    for token in [&key[KEY_PREFIX.len()..], &session] {
        assert!(token
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }
}

#[test]
fn only_the_hash_is_stored_in_a_private_wal_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fresh/auth.db");
    let conn = open(&path).unwrap();
    let issued = create(&conn, Kind::Key, " ci ", Some(30), Utc::now()).unwrap();
    let (name, hash): (String, String) = conn
        .query_row(
            "SELECT name, hash FROM credentials WHERE kind = 'key' AND id = ?1",
            [issued.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(name, "ci");
    assert_eq!(hash, hash_secret(&issued.secret));
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    use std::os::unix::fs::PermissionsExt as _;
    for file in ["auth.db", "auth.db-wal", "auth.db-shm"] {
        let mode = std::fs::metadata(path.with_file_name(file))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{file}: {mode:o}");
    }
}

#[test]
fn ids_count_per_kind() {
    let (_dir, conn) = db();
    let now = Utc::now();
    assert_eq!(create(&conn, Kind::Key, "a", None, now).unwrap().id, 1);
    assert_eq!(create(&conn, Kind::Session, "b", None, now).unwrap().id, 1);
    assert_eq!(create(&conn, Kind::Key, "c", None, now).unwrap().id, 2);
    revoke(&conn, Kind::Session, 1, now).unwrap();
    assert_eq!(
        list(&conn, Kind::Key).unwrap()[0].status(now),
        Status::Active
    );
    assert!(matches!(
        revoke(&conn, Kind::Session, 2, now),
        Err(CredentialError::NotFound { .. })
    ));
}

#[test]
fn check_accepts_active_and_refuses_unknown_revoked_expired_and_the_other_kind() {
    let (_dir, conn) = db();
    let now = Utc::now();
    let key = create(&conn, Kind::Key, "a", None, now).unwrap();
    let raw = key.secret.as_bytes();
    assert_eq!(check(&conn, Kind::Key, raw, now).unwrap(), Some(key.id));
    assert_eq!(check(&conn, Kind::Session, raw, now).unwrap(), None);
    for bad in [&b""[..], b"rk_nope", &[0xff, 0xfe], &[b'x'; 300]] {
        assert_eq!(check(&conn, Kind::Key, bad, now).unwrap(), None);
    }
    let used = list(&conn, Kind::Key).unwrap()[0].last_used_at.clone();
    assert_eq!(used, Some(format_time(now)));
    // Within the minute, the last use is not written again.
    let soon = now + chrono::Duration::seconds(30);
    check(&conn, Kind::Key, raw, soon).unwrap();
    assert_eq!(list(&conn, Kind::Key).unwrap()[0].last_used_at, used);

    let short = create(&conn, Kind::Key, "b", Some(1), now).unwrap();
    let s = short.secret.as_bytes();
    assert_eq!(check(&conn, Kind::Key, s, now).unwrap(), Some(short.id));
    let later = now + chrono::Duration::days(1);
    assert_eq!(check(&conn, Kind::Key, s, later).unwrap(), None);
    assert_eq!(
        list(&conn, Kind::Key).unwrap()[1].status(later),
        Status::Expired
    );

    assert!(matches!(
        revoke(&conn, Kind::Key, key.id, now).unwrap(),
        Revoked::Now(_)
    ));
    assert!(matches!(
        revoke(&conn, Kind::Key, key.id, now).unwrap(),
        Revoked::Already(_)
    ));
    assert_eq!(check(&conn, Kind::Key, raw, now).unwrap(), None);
    let err = revoke(&conn, Kind::Key, 999, now).unwrap_err();
    assert!(err.to_string().contains("no API key with id 999"), "{err}");
}

#[test]
fn an_unreadable_expiry_counts_as_expired() {
    let now = Utc::now();
    assert_eq!(
        Status::of(Some("+10002-01-01T00:00:00Z"), false, now),
        Status::Expired
    );
    assert_eq!(Status::of(Some("soon"), false, now), Status::Expired);
    assert_eq!(Status::of(None, false, now), Status::Active);
    assert_eq!(Status::of(Some("soon"), true, now), Status::Revoked);
}

#[test]
fn bad_create_arguments_are_refused() {
    let (_dir, conn) = db();
    let now = Utc::now();
    let create = |name: &str, days| create(&conn, Kind::Key, name, days, now);
    assert!(matches!(
        create("  ", None),
        Err(CredentialError::EmptyName)
    ));
    assert!(matches!(
        create(&"n".repeat(101), None),
        Err(CredentialError::LongName)
    ));
    assert!(matches!(
        create("x", Some(0)),
        Err(CredentialError::ExpiryTooShort)
    ));
    let err = create("x", Some(2_913_000)).unwrap_err();
    assert!(err.to_string().contains("at most 36500 days"), "{err}");
    let longest = create("x", Some(MAX_EXPIRY_DAYS)).unwrap();
    let at = parse_time(longest.expires_at.as_deref().unwrap()).unwrap();
    assert!(at > now);
    assert!(list(&conn, Kind::Key).unwrap().len() == 1);
}

#[test]
fn legacy_times_are_kept_within_what_reads_back() {
    assert_eq!(
        format_time(from_micros(1_700_000_000_500_000)),
        "2023-11-14T22:13:20Z"
    );
    assert_eq!(format_time(from_micros(i64::MAX)), "9999-12-31T23:59:59Z");
}

#[tokio::test]
async fn the_pooled_store_checks_off_the_async_workers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auth.db");
    let store = Credentials::open(&path).unwrap();
    let conn = open(&path).unwrap();
    let now = Utc::now();
    let session = create(&conn, Kind::Session, "frontend", None, now).unwrap();
    let token = Some(session.secret.as_bytes());
    assert_eq!(
        store.check(Kind::Session, token, now).await.unwrap(),
        Some(session.id)
    );
    assert_eq!(store.check(Kind::Key, token, now).await.unwrap(), None);
    assert_eq!(store.check(Kind::Session, None, now).await.unwrap(), None);
    revoke(&conn, Kind::Session, session.id, now).unwrap();
    assert_eq!(store.check(Kind::Session, token, now).await.unwrap(), None);
}
