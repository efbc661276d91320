//! Sets `ROOST_COMMIT`, the commit `roost --version` names: `ROOST_BUILD_COMMIT` when
//! set (a build from a tarball can pass it), else `git rev-parse --short=12 HEAD` in
//! the source folder, else `unknown`. It never fails the build: without git, outside
//! a repository or on any error the commit is `unknown`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=ROOST_BUILD_COMMIT");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = std::env::var("ROOST_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| commit_of(&dir));
    println!("cargo:rustc-env=ROOST_COMMIT={}", commit.trim());
    watch_head(&dir);
}

/// The commit checked out at `dir` (12 hex digits), or `unknown` when `dir` is not
/// the top of a git work tree or git cannot say.
pub fn commit_of(dir: &Path) -> String {
    own_repository(dir)
        .then(|| git(dir, &["rev-parse", "--short=12", "HEAD"]))
        .flatten()
        .unwrap_or_else(|| "unknown".to_string())
}

/// Whether `dir` is the top of a git work tree (not a tarball unpacked inside some
/// other repository).
fn own_repository(dir: &Path) -> bool {
    let top =
        git(dir, &["rev-parse", "--show-toplevel"]).and_then(|t| Path::new(&t).canonicalize().ok());
    top.is_some() && top == dir.canonicalize().ok()
}

/// The trimmed output of a successful `git ARGS` in `dir`.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

/// Runs this script again when HEAD moves: the HEAD file, the ref it names and
/// packed-refs. Only files that exist are named (cargo reruns a script on every build
/// while a named file is missing).
fn watch_head(dir: &Path) {
    if !own_repository(dir) {
        return;
    }
    let path_of = |args: &[&str]| git(dir, args).map(|p| dir.join(p));
    let (Some(git_dir), Some(common)) = (
        path_of(&["rev-parse", "--git-dir"]),
        path_of(&["rev-parse", "--git-common-dir"]),
    ) else {
        return;
    };
    let mut watched = vec![git_dir.join("HEAD"), common.join("packed-refs")];
    if let Some(reference) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(common.join(reference));
    }
    for path in watched.into_iter().filter(|p| p.is_file()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
