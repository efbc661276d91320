//! The PostgreSQL fixture itself (tests/support/postgres.rs), which the tests of
//! `roost db import postgresql://…` stand on: a server starts on a loopback port,
//! creates a database, answers psql, and is gone with its folder once dropped.

use crate::support::postgres::Postgres;

#[test]
fn a_throwaway_server_answers_psql_and_is_gone_once_dropped() {
    let pg = Postgres::start();
    let url = pg.url("fixture");
    let port: u16 = url
        .strip_prefix("postgresql://roost@127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/fixture"))
        .unwrap_or_else(|| panic!("{url}"))
        .parse()
        .unwrap();
    pg.create_db("fixture");
    assert_eq!(pg.psql("fixture", "SELECT 1"), "1\n");
    assert_eq!(
        pg.psql(
            "fixture",
            "CREATE TABLE t (n integer); INSERT INTO t VALUES (2), (3); \
             SELECT current_user, current_database(), sum(n) FROM t;"
        ),
        "roost|fixture|5\n"
    );
    assert_eq!(pg.psql("fixture", "SHOW listen_addresses"), "127.0.0.1\n");
    assert_eq!(pg.psql("fixture", "SHOW fsync"), "off\n");
    let dir = pg.dir().to_path_buf();
    drop(pg);
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the server still listens on {port}"
    );
    assert!(!dir.exists(), "{} is left behind", dir.display());
}
