//! What the API exposes, written once: the conditions under which a record exists for
//! the API (docs/api.md §3) and the counters built on them. The REST lists and details
//! of the catalog and every GraphQL statement use these fragments; nothing else states
//! them.
//!
//! - Chapters, committees and projects: only the active ones (`active!`).
//! - Organizations: only those affiliated with the community (`affiliated!`).
//! - Releases: only the published ones (`published!`).
//! - Snapshots: only the completed ones (`completed!`).
//! - Mentorship programs: only the published ones, and only their modules
//!   (`published_program!`).
//! - Everything else (events, issues, labels, members, milestones, repositories,
//!   sponsors): every record.
//!
//! Each fragment is a macro taking the table's alias as a string literal and expanding
//! to a string literal, so it composes at compile time (`concat!`) into the `&'static
//! str` SQL of the catalog's static tables and of GraphQL's records, and applies to
//! whatever alias a statement gives the table (`t` for a list's own table, another
//! letter in a correlated subquery). They carry no values: whatever a request supplies
//! is bound as a parameter.

/// `<alias>.is_active = 1`: the chapter, committee or project is active.
macro_rules! active {
    ($alias:literal) => {
        concat!($alias, ".is_active = 1")
    };
}

/// `<alias>.is_affiliated = 1`: the organization is affiliated with the community.
macro_rules! affiliated {
    ($alias:literal) => {
        concat!($alias, ".is_affiliated = 1")
    };
}

/// `<alias>.published_at IS NOT NULL`: the release is published.
macro_rules! published {
    ($alias:literal) => {
        concat!($alias, ".published_at IS NOT NULL")
    };
}

/// `<alias>.status = 'completed'`: the snapshot is completed.
macro_rules! completed {
    ($alias:literal) => {
        concat!($alias, ".status = 'completed'")
    };
}

/// `<alias>.status = 'published'`: the mentorship program is published (a draft or a
/// completed program is not part of the API).
macro_rules! published_program {
    ($alias:literal) => {
        concat!($alias, ".status = 'published'")
    };
}

/// One counter of a snapshot aliased `t`, as a select-list column: the chapters,
/// issues, projects, releases or members new in it that the API exposes (the total
/// of that sub-list).
macro_rules! new_in_snapshot {
    (chapters) => {
        concat!(
            "(SELECT COUNT(*) FROM snapshot_chapters s JOIN chapters c ON c.id = s.chapter_id \
              WHERE s.snapshot_id = t.id AND ",
            $crate::schema::exposure::active!("c"),
            ")"
        )
    };
    (issues) => {
        "(SELECT COUNT(*) FROM snapshot_issues s WHERE s.snapshot_id = t.id)"
    };
    (projects) => {
        concat!(
            "(SELECT COUNT(*) FROM snapshot_projects s JOIN projects p ON p.id = s.project_id \
              WHERE s.snapshot_id = t.id AND ",
            $crate::schema::exposure::active!("p"),
            ")"
        )
    };
    (releases) => {
        concat!(
            "(SELECT COUNT(*) FROM snapshot_releases s JOIN releases r ON r.id = s.release_id \
              WHERE s.snapshot_id = t.id AND ",
            $crate::schema::exposure::published!("r"),
            ")"
        )
    };
    (members) => {
        "(SELECT COUNT(*) FROM snapshot_members s WHERE s.snapshot_id = t.id)"
    };
}

/// The five counters of [`new_in_snapshot`], in the order chapters, issues, projects,
/// releases, members: what GraphQL's `Snapshot` reads.
macro_rules! snapshot_counts {
    () => {
        concat!(
            $crate::schema::exposure::new_in_snapshot!(chapters),
            ", ",
            $crate::schema::exposure::new_in_snapshot!(issues),
            ", ",
            $crate::schema::exposure::new_in_snapshot!(projects),
            ", ",
            $crate::schema::exposure::new_in_snapshot!(releases),
            ", ",
            $crate::schema::exposure::new_in_snapshot!(members)
        )
    };
}

pub(crate) use {
    active, affiliated, completed, new_in_snapshot, published, published_program, snapshot_counts,
};
