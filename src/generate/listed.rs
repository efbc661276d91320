//! The first record of a tree folder found from the tree's split manifest rather than
//! by reading the folder: `roost serve` renders its docs page with real records from
//! the tree ([`crate::docs::samples`]), and a folder of the `10x` tree holds millions
//! of files (reading the issues' took seconds of every start). The manifest is read
//! chunk by chunk ([`Previous`]): a few chunks a folder.
//!
//! The answer is [`first_entry`]'s over the folder's names. In path order a folder's
//! names sort as their records do except where one record's name is a proper prefix
//! of another's (`5-1.json` sorts before `5.json`, as `-` before `.`): a record whose
//! name is smaller than the first one met in path order is such a prefix of it, so
//! after the first record met only its prefixes are looked up.

use std::path::Path;

use super::previous::Previous;

/// Looks up the first record (or, with `file` false, sub-folder) of tree folders by
/// the tree's manifest: `first(dir, file)`, `dir` relative to the tree, as
/// [`crate::docs::listed_tree_samples`] asks. `None` when the tree has no split
/// manifest (then its folders are read).
pub fn first_listed(site: &Path) -> Option<impl Fn(&Path, bool) -> Option<String>> {
    let listing = Previous::open(Some(site));
    let split = listing.is_split();
    split.then_some(move |dir: &Path, file: bool| {
        first_record(&|path: &str| listing.first_from(path), dir.to_str()?, file)
    })
}

/// A record file's stem: `<stem>.json` or `<stem>.json.gz`, not a list page.
fn record_stem(name: &str) -> Option<&str> {
    let stem = name
        .strip_suffix(".json.gz")
        .or_else(|| name.strip_suffix(".json"))?;
    (!stem.starts_with("index")).then_some(stem)
}

/// The first record (or sub-folder) of the folder `dir` of a listing of paths, which
/// `first_from` gives: the first path at or after a path, in path order.
pub(super) fn first_record(
    first_from: &dyn Fn(&str) -> Option<String>,
    dir: &str,
    file: bool,
) -> Option<String> {
    let prefix = match dir.trim_end_matches('/') {
        "" => String::new(),
        dir => format!("{dir}/"),
    };
    let mut at = prefix.clone();
    let first = loop {
        let path = first_from(&at)?;
        let rest = path.strip_prefix(prefix.as_str())?;
        match (rest.split_once('/'), file) {
            (Some((name, _)), false) => break name.to_string(),
            // Past the sub-folder: `0` follows `/`.
            (Some((name, _)), true) => at = format!("{prefix}{name}0"),
            // Past the list pages, all named `index…`.
            (None, true) if rest.starts_with("index") => at = format!("{prefix}indey"),
            (None, true) if record_stem(rest).is_some() => {
                break record_stem(rest)?.to_string();
            }
            // The next path (none holds a NUL).
            (None, _) => at = format!("{path}\0"),
        }
    };
    let is = |name: &str| -> bool {
        if file {
            !name.starts_with("index")
                && [".json", ".json.gz"].iter().any(|ext| {
                    let path = format!("{prefix}{name}{ext}");
                    first_from(&path).is_some_and(|p| p == path)
                })
        } else {
            let folder = format!("{prefix}{name}/");
            first_from(&folder).is_some_and(|p| p.starts_with(folder.as_str()))
        }
    };
    // The shortest proper prefix that is a record (or sub-folder) is the smallest.
    let smaller = (1..first.len())
        .filter(|&n| first.is_char_boundary(n))
        .map(|n| &first[..n])
        .find(|p| is(p))
        .map(str::to_string);
    Some(smaller.unwrap_or(first))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::docs::samples::first_entry;
    use crate::manifest::{sha256_hex, ManifestEntry};

    #[test]
    fn the_first_record_is_the_one_reading_the_folder_gives() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path();
        let names = [
            "a/5-1.json",
            "a/5.json.gz",
            "a/50.json",
            "a/6.json",
            "a/index.json",
            "a/index@page=2.json",
            "a/indexer.json",
            "b/index.json",
            "b/index@page=2.json",
            "b/london.json",
            "b/london-town.json",
            "b/lo.json.br",
            "c/x-y/issues/index.json",
            "c/x/issues/index.json",
            "c/x/index.json",
            "c/xy/index.json",
            "c/index.json",
            "d/index.json",
            "d/s/1.json",
            "d/t.json",
            "é/ü.json",
            "é/u.json",
        ];
        let mut files: Vec<ManifestEntry> = names
            .iter()
            .map(|name| {
                let target = site.join(name);
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::write(&target, name.as_bytes()).unwrap();
                ManifestEntry {
                    path: name.to_string(),
                    size: name.len() as u64,
                    sha256: sha256_hex(name.as_bytes()),
                }
            })
            .collect();
        // Many files before and between, so the folders span chunks.
        for i in 0..9000 {
            files.push(ManifestEntry {
                path: format!("a/index@page={i}&state=open.json"),
                size: 1,
                sha256: sha256_hex(b"x"),
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let published = crate::manifest::publish(&files, &Default::default(), None).unwrap();
        for (path, bytes) in &published.documents {
            let target = site.join(path);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::write(target, bytes).unwrap();
        }
        let first = first_listed(site).expect("a split manifest");
        for folder in ["a", "b", "c", "c/x", "d", "é", "", "none"] {
            for file in [true, false] {
                let read: Option<Vec<(String, bool)>> =
                    fs::read_dir(site.join(folder)).ok().map(|entries| {
                        entries
                            .map(|e| {
                                let e = e.unwrap();
                                let name = e.file_name().into_string().unwrap();
                                (name, e.file_type().unwrap().is_dir())
                            })
                            .filter(|(name, _)| {
                                !["changes", "manifest", "manifest.json"].contains(&name.as_str())
                            })
                            .collect()
                    });
                let expected = read.and_then(|names| first_entry(names, file));
                assert_eq!(first(Path::new(folder), file), expected, "{folder} {file}");
            }
        }
        assert_eq!(first(Path::new("a"), true).as_deref(), Some("5"));
        assert_eq!(first(Path::new("b"), true).as_deref(), Some("london"));
        assert_eq!(first(Path::new("c"), false).as_deref(), Some("x"));
        assert!(first_listed(&site.join("none")).is_none());
    }
}
