//! Named crash points in every writer: the steps at which a `roost` process that
//! changes disk state (the tree, the dataset, an export, the credential store) can be
//! killed on purpose, so a test can kill it at each of them in turn and check that
//! nothing is half-written (docs/architecture.md §9.1, `.ci/steps/87-crash.sh`).
//!
//! A point is one call, [`point`] (or [`step`] inside a helper that several writers
//! share), named `writer::step`. It compiles to nothing unless roost is built with
//! the `failpoints` feature (`cargo build --features failpoints`), which turns on the
//! `fail` crate; release builds carry none. In such a build the `FAILPOINTS`
//! environment variable arms points with the `fail` crate's actions, e.g.
//! `FAILPOINTS='generate::swap=return'`:
//!
//! - `return`: the process kills itself there with `SIGKILL`, as `kill -9` would: no
//!   unwinding, no destructor, no clean-up handler runs, nothing is flushed;
//! - `3*off->return`: passes the point three times, kills itself the fourth;
//! - `sleep(MS)`, `pause`, `panic`, …: the `fail` crate's other actions, as it
//!   documents them.
//!
//! Every name is listed in [`POINTS`] with the step it comes before; a build with the
//! feature aborts on a name that is not, so the list and the code cannot drift apart
//! (the sweep reads the list and fails on a point no run reached).

/// Every crash point: its name and the state the writer is in when it is reached.
pub const POINTS: &[(&str, &str)] = &[
    // roost generate
    (
        "generate::lock",
        "the tree's lock taken; nothing else changed",
    ),
    (
        "generate::remove_leftover",
        "about to remove a generation folder or swap symlink a killed run left",
    ),
    (
        "generate::digests_base",
        "a new base of the dataset's row digests written aside and synced, not yet renamed \
         beside .<name>.digests",
    ),
    (
        "generate::digests",
        "the dataset's digests written aside, not yet renamed over .<name>.digests",
    ),
    (
        "generate::keep_changes",
        "the live generation kept: an empty change list written aside, not yet renamed",
    ),
    (
        "generate::keep_swap",
        "the live generation kept: about to renew the symlink",
    ),
    (
        "generate::forget_spare",
        "the spare's keys removed, the spare not yet renamed into the new generation",
    ),
    (
        "generate::new_generation",
        "the new generation's folder made (the spare renamed, or a fresh folder)",
    ),
    (
        "generate::write_file",
        "about to write (or link) a file of the new generation",
    ),
    (
        "generate::unit_record",
        "a unit's record or scope written aside, not yet renamed into .<name>.units/",
    ),
    (
        "generate::manifest",
        "every tree file placed; the manifest documents and change lists not yet",
    ),
    (
        "generate::remove_stale",
        "the manifest documents and change lists written; about to remove from the \
         spare being updated what the new generation lacks",
    ),
    (
        "generate::sync",
        "the manifest documents written, not yet synced",
    ),
    (
        "generate::key_base",
        "a new base of the new keys written aside and synced, not yet renamed into \
         .<name>.units/",
    ),
    (
        "generate::record_keys",
        "the new keys written aside, not yet renamed to .<name>.next-keys",
    ),
    (
        "generate::record_input",
        "the input record written aside, not yet renamed to .<name>.input",
    ),
    (
        "generate::swap_link",
        "the symlink to the new generation made beside the tree, not yet renamed over it",
    ),
    (
        "generate::swapped",
        "the new generation live; the keys not yet promoted, nothing retired",
    ),
    (
        "generate::promote_keys",
        "the replaced generation's keys moved to the spare's, the new ones not yet live",
    ),
    (
        "generate::retire",
        "the keys promoted; the replaced generation (unless kept as the spare) and an \
         unused spare not yet removed",
    ),
    (
        "generate::collect_units",
        "about to remove the unit records no generation uses",
    ),
    // roost mirror
    (
        "mirror::lock",
        "the copy's lock taken; nothing else changed",
    ),
    (
        "mirror::remove_leftover",
        "about to remove a generation folder an earlier run left",
    ),
    (
        "mirror::new_generation",
        "the new generation's folder made, empty",
    ),
    (
        "mirror::fetch_file",
        "a fetched file checked in its .part file, not yet renamed to its name",
    ),
    (
        "mirror::documents",
        "every tree file placed; the manifest documents not yet written",
    ),
    (
        "mirror::import",
        "the published dataset decompressed beside the copy, not yet imported",
    ),
    (
        "mirror::source_record",
        "the dataset imported; the record of its source written aside, not yet renamed",
    ),
    (
        "mirror::swap_link",
        "the symlink to the new generation made beside the copy, not yet renamed over it",
    ),
    (
        "mirror::swapped",
        "the new generation live; the replaced one not yet removed",
    ),
    // roost db import (a folder, or PostgreSQL)
    (
        "import::lock",
        "the dataset's lock taken; nothing else changed",
    ),
    (
        "import::create",
        "the temporary dataset file made, with its schema, empty",
    ),
    (
        "import::commit",
        "every row inserted, the build's transaction not yet committed",
    ),
    (
        "import::analyze",
        "the build committed; the statistics (ANALYZE) not yet gathered",
    ),
    (
        "import::rename",
        "the temporary dataset closed and synced, not yet renamed over the dataset",
    ),
    (
        "import::renamed",
        "the new dataset in place; the summary not yet printed",
    ),
    // roost db export
    (
        "export::lock",
        "the export folder's lock taken; nothing else changed",
    ),
    (
        "export::file",
        "about to write an interchange file into the temporary folder",
    ),
    (
        "export::swap",
        "every file written and synced in the temporary folder, not yet swapped in",
    ),
    (
        "export::swapped",
        "the new folder in place; the replaced one not yet removed",
    ),
    // roost keys|sessions create|revoke
    (
        "credentials::create_file",
        "a new store's empty file made (mode 0600), SQLite not yet opened on it",
    ),
    (
        "credentials::schema",
        "a new store's tables made, their transaction not yet committed",
    ),
    (
        "credentials::write",
        "about to insert a credential or mark one revoked",
    ),
    (
        "credentials::written",
        "the credential inserted or revoked (committed), nothing printed yet",
    ),
    (
        "credentials::close",
        "the answer printed; the store's connection not yet closed (WAL not checkpointed)",
    ),
];

/// The crash point `name` (one of [`POINTS`]): nothing unless roost is built with the
/// `failpoints` feature and `FAILPOINTS` arms it.
#[inline(always)]
pub fn point(name: &str) {
    #[cfg(feature = "failpoints")]
    armed::reach(name);
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
}

/// The crash point `writer::step`, for a helper several writers share (`writer` is the
/// caller's, e.g. `generate`): named as [`point`]'s are, and made only when points
/// are compiled in.
#[inline(always)]
pub fn step(writer: &str, step: &str) {
    #[cfg(feature = "failpoints")]
    armed::reach(&format!("{writer}::{step}"));
    #[cfg(not(feature = "failpoints"))]
    let _ = (writer, step);
}

/// Arms the points `FAILPOINTS` names, for the life of the returned value (held by
/// `main`).
#[cfg(feature = "failpoints")]
pub fn setup() -> impl Sized {
    fail::FailScenario::setup()
}

/// Nothing to arm: roost was built without the `failpoints` feature.
#[cfg(not(feature = "failpoints"))]
pub fn setup() -> impl Sized {}

#[cfg(feature = "failpoints")]
mod armed {
    /// Evaluates the point `name`: its `return` action kills the process.
    pub(super) fn reach(name: &str) {
        if !super::POINTS.iter().any(|(known, _)| *known == name) {
            eprintln!("roost: crash point {name} is not in crash::POINTS");
            std::process::abort();
        }
        fail::fail_point!(name, |_| kill_self());
    }

    /// `SIGKILL` to this process: it stops at once, as under `kill -9`.
    fn kill_self() -> ! {
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
        // The signal cannot be caught; should it not be sent, abort (no unwinding).
        std::process::abort()
    }
}

#[cfg(test)]
mod tests {
    use super::POINTS;

    /// Every point the sources name is listed, and every listed point is named in the
    /// sources: as `point("writer::step")`, as a `"writer::step"` handed to a helper
    /// that reaches it, or as `step(writer, "step")` in a helper several writers share.
    #[test]
    fn every_point_in_the_sources_is_listed_and_every_listed_point_is_placed() {
        let mut sources = String::new();
        for entry in walkdir::WalkDir::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")) {
            let entry = entry.unwrap();
            if entry.path().extension().is_some_and(|e| e == "rs")
                && !entry.path().ends_with("crash.rs")
            {
                sources.push_str(&std::fs::read_to_string(entry.path()).unwrap());
            }
        }
        // The last string literal among a call's arguments, for calls that have one.
        let quoted_after = |call: &str| -> Vec<String> {
            sources
                .match_indices(call)
                .filter_map(|(i, _)| {
                    let rest = &sources[i + call.len()..];
                    let args = &rest[..rest.find(')')?];
                    Some(args.rsplit('"').nth(1)?.to_string())
                })
                .collect()
        };
        let (points, steps) = (quoted_after("crash::point("), quoted_after("crash::step("));
        let listed: Vec<&str> = POINTS.iter().map(|(name, _)| *name).collect();
        for name in &points {
            assert!(listed.contains(&name.as_str()), "{name} is not in POINTS");
        }
        for step in &steps {
            assert!(
                listed.iter().any(|n| n.ends_with(&format!("::{step}"))),
                "no point of POINTS ends with ::{step}"
            );
        }
        for name in &listed {
            let step = name.split_once("::").unwrap().1;
            assert!(
                sources.contains(&format!("\"{name}\"")) || steps.iter().any(|s| s == step),
                "{name} is listed but placed nowhere"
            );
        }
    }
}
