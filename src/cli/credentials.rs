//! `roost keys …` and `roost sessions …`: the credential commands over
//! [`crate::credentials`], and what they print.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use chrono::Utc;
use clap::Subcommand;

use super::common::{print_json, AuthDbArg};
use crate::credentials::{self, CredentialError, Kind, Revoked};

/// `roost keys …` and `roost sessions …`: the same commands over the two kinds of
/// credential (REST API keys, GraphQL sessions).
#[derive(Debug, Subcommand)]
pub enum CredentialCommand {
    /// Create one; its secret (the API key or the session token) is printed alone on
    /// the last line, once.
    Create {
        /// A name saying whom it is for (shown by `list`).
        #[arg(long)]
        name: String,
        /// Days until it expires, 1 to 36500 (default: never).
        #[arg(long)]
        expires_in_days: Option<u32>,
        #[command(flatten)]
        auth: AuthDbArg,
    },
    /// List them (never the secret).
    List {
        #[command(flatten)]
        auth: AuthDbArg,
        /// Print a JSON array, one object per credential.
        #[arg(long)]
        json: bool,
    },
    /// Revoke one by id; it is refused from the next request on.
    Revoke {
        /// Its id, as `list` shows it.
        id: i64,
        #[command(flatten)]
        auth: AuthDbArg,
    },
}

/// `roost keys|sessions create|list|revoke`. A new secret is printed alone on the
/// last line, once.
pub fn exec(kind: Kind, cmd: CredentialCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        CredentialCommand::Create {
            name,
            expires_in_days,
            auth: AuthDbArg { auth_db },
        } => {
            let conn = credentials::open(&auth_db)?;
            let issued = credentials::create(&conn, kind, &name, expires_in_days, Utc::now())
                .map_err(naming_the_option)?;
            println!("{}", created_line(kind, &issued, expires_in_days, &auth_db));
            if kind == Kind::Key {
                println!(
                    "Send it in the X-API-Key header. It is shown only this once: roost keeps only its hash."
                );
            }
            println!("{}", issued.secret);
            crate::crash::point("credentials::close");
        }
        CredentialCommand::List {
            auth: AuthDbArg { auth_db },
            json,
        } => {
            let conn = open_existing_store(kind, &auth_db)?;
            let listed = credentials::list(&conn, kind)?;
            let now = Utc::now();
            if json {
                let rows: Vec<serde_json::Value> = listed
                    .iter()
                    .map(|c| {
                        serde_json::json!({
                            "id": c.id,
                            "name": c.name,
                            "created_at": c.created_at,
                            "expires_at": c.expires_at,
                            "revoked_at": c.revoked_at,
                            "last_used_at": c.last_used_at,
                            "status": c.status(now).as_str(),
                        })
                    })
                    .collect();
                print_json(&rows);
            } else {
                print!("{}", credential_table(kind, &listed, now));
            }
        }
        CredentialCommand::Revoke {
            id,
            auth: AuthDbArg { auth_db },
        } => {
            let conn = open_existing_store(kind, &auth_db)?;
            let revoked = credentials::revoke(&conn, kind, id, Utc::now())?;
            println!("{}", revoked_line(kind, id, &revoked));
            crate::crash::point("credentials::close");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The credential store at `auth_db` for `list` and `revoke`, which never create one
/// (a mistyped --auth-db is an error, not a new empty store); read-only when it cannot
/// be written (`revoke` then says so, naming the file).
fn open_existing_store(kind: Kind, auth_db: &Path) -> anyhow::Result<rusqlite::Connection> {
    if !auth_db.is_file() {
        bail!(
            "no credential store at {}: `roost {} create --name NAME --auth-db {}` creates it",
            auth_db.display(),
            kind.command(),
            auth_db.display()
        );
    }
    Ok(credentials::open_existing(auth_db)?.0)
}

/// A refused argument, prefixed with the option that carried it.
fn naming_the_option(e: CredentialError) -> anyhow::Error {
    match e {
        CredentialError::EmptyName | CredentialError::LongName => anyhow!("--name: {e}"),
        CredentialError::ExpiryTooShort | CredentialError::ExpiryTooLong(_) => {
            anyhow!("--expires-in-days: {e}")
        }
        other => other.into(),
    }
}

fn created_line(
    kind: Kind,
    issued: &credentials::Issued,
    expires_in_days: Option<u32>,
    auth_db: &Path,
) -> String {
    let (id, name, file) = (issued.id, &issued.name, auth_db.display());
    match kind {
        Kind::Key => {
            let expiry = match expires_in_days {
                Some(days) => format!("expires in {days} day(s)"),
                None => "does not expire".to_string(),
            };
            format!("created API key {id} '{name}' in {file} ({expiry})")
        }
        Kind::Session => format!(
            "created session {id} '{name}' in {file} (expires: {}); send the token below as the \
             '{}' cookie. It is shown only this once:",
            issued.expires_at.as_deref().unwrap_or("never"),
            crate::graphql::SESSION_COOKIE,
        ),
    }
}

fn revoked_line(kind: Kind, id: i64, revoked: &Revoked) -> String {
    match (kind, revoked) {
        (Kind::Key, Revoked::Now(at)) => format!("revoked API key {id} at {at}"),
        (Kind::Key, Revoked::Already(at)) => format!("API key {id} was already revoked at {at}"),
        (Kind::Session, Revoked::Now(_)) => {
            format!("revoked session {id}; it is refused from the next request on")
        }
        (Kind::Session, Revoked::Already(_)) => format!("session {id} was already revoked"),
    }
}

/// The table `keys list` and `sessions list` print: a header, then one row per
/// credential (id, name, created, expires, revoked, last used, status), columns
/// aligned; a hint when there are none. Never a secret nor a hash.
fn credential_table(
    kind: Kind,
    listed: &[credentials::Credential],
    now: chrono::DateTime<Utc>,
) -> String {
    let header = [
        "ID",
        "NAME",
        "CREATED",
        "EXPIRES",
        "REVOKED",
        "LAST USED",
        "STATUS",
    ]
    .map(String::from);
    let rows: Vec<[String; 7]> = std::iter::once(header)
        .chain(listed.iter().map(|c| {
            [
                c.id.to_string(),
                c.name.clone(),
                c.created_at.clone(),
                c.expires_at.clone().unwrap_or_else(|| "never".into()),
                c.revoked_at.clone().unwrap_or_else(|| "-".into()),
                c.last_used_at.clone().unwrap_or_else(|| "never".into()),
                c.status(now).as_str().to_string(),
            ]
        }))
        .collect();
    let mut widths = [0usize; 7];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if i + 1 < row.len() {
                line.extend(std::iter::repeat_n(' ', widths[i] - cell.chars().count()));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if listed.is_empty() {
        out.push_str(&format!(
            "(no {} yet: roost {} create --name NAME)\n",
            kind.command(),
            kind.command()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_column_and_never_a_secret() {
        let dir = tempfile::tempdir().unwrap();
        let conn = credentials::open(&dir.path().join("auth.db")).unwrap();
        let now = Utc::now();
        assert_eq!(
            credential_table(Kind::Key, &[], now),
            "ID  NAME  CREATED  EXPIRES  REVOKED  LAST USED  STATUS\n\
             (no keys yet: roost keys create --name NAME)\n"
        );
        let first = credentials::create(&conn, Kind::Key, "first", None, now).unwrap();
        let second = credentials::create(&conn, Kind::Key, "second", Some(3), now).unwrap();
        credentials::revoke(&conn, Kind::Key, second.id, now).unwrap();
        let listed = credentials::list(&conn, Kind::Key).unwrap();
        let table = credential_table(Kind::Key, &listed, now);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("ID  NAME"));
        assert!(lines[0].contains("LAST USED"));
        assert!(lines[1].contains("first") && lines[1].contains("never"));
        assert!(lines[1].ends_with("active"));
        assert!(lines[2].contains("second") && lines[2].ends_with("revoked"));
        for issued in [first, second] {
            assert!(!table.contains(&issued.secret));
            assert!(!table.contains(&credentials::hash_secret(&issued.secret)));
        }
        let sessions = credential_table(Kind::Session, &[], now);
        assert!(sessions.ends_with("(no sessions yet: roost sessions create --name NAME)\n"));
    }
}
