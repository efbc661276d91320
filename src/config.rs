//! Runtime facts any layer may read: the environment roost serves in and "today".
//!
//! This is the ground floor of the module graph: it imports nothing from roost, so
//! the store, the catalog, the generator, the shim and GraphQL can all read it.

use std::fmt;
use std::str::FromStr;

/// The environment `roost serve` runs in (`--env`, `ROOST_ENV`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Env {
    Production,
    Staging,
    Local,
    E2e,
}

impl Env {
    /// Every environment, in the order `--help` lists them.
    pub const ALL: [Env; 4] = [Env::Production, Env::Staging, Env::Local, Env::E2e];

    pub fn as_str(self) -> &'static str {
        match self {
            Env::Production => "production",
            Env::Staging => "staging",
            Env::Local => "local",
            Env::E2e => "e2e",
        }
    }

    /// Whether authentication, rate limits and the other production rules apply.
    pub fn is_protected(self) -> bool {
        matches!(self, Env::Production | Env::Staging)
    }
}

impl fmt::Display for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An environment name that is not one of [`Env::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown environment '{0}', expected one of production, staging, local, e2e")]
pub struct UnknownEnv(pub String);

impl FromStr for Env {
    type Err = UnknownEnv;
    fn from_str(s: &str) -> Result<Env, UnknownEnv> {
        named(Env::ALL, Env::as_str, s).ok_or_else(|| UnknownEnv(s.to_string()))
    }
}

/// The one of `all` whose `name` is `s`, ignoring ASCII case (the `FromStr` of the
/// settings with a fixed set of names).
pub(crate) fn named<T: Copy, const N: usize>(
    all: [T; N],
    name: impl Fn(T) -> &'static str,
    s: &str,
) -> Option<T> {
    all.into_iter().find(|x| name(*x).eq_ignore_ascii_case(s))
}

/// Today's UTC date, `YYYY-MM-DD`.
pub fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

/// `roost --version` and the start-up log line: the package version and the commit
/// it was built from (`unknown` when the build had no git; see build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("ROOST_COMMIT"),
    ")"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for env in Env::ALL {
            assert_eq!(env.as_str().parse::<Env>(), Ok(env));
        }
        assert!("prod".parse::<Env>().is_err());
    }
}
