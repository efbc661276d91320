//! The change lists of a new generation (`changes/`, [`crate::manifest::changes`]),
//! written as they are found rather than gathered first: a full run adds every file
//! of the tree (about 13 million at `10x`), and its `urls.txt` names two URLs for
//! each. The paths come sorted from the entries and go straight to their list; the
//! URLs, which sort in another order than their paths, go through a [`Sorter`] that
//! holds a bounded number of bytes. The files are those
//! [`Changes::documents`](crate::manifest::Changes::documents) makes from the same
//! changes (a test compares them).

use std::fs::{self, File};
use std::io::{BufWriter, Write as _};
use std::iter::Peekable;
use std::path::PathBuf;

use anyhow::Context;

use crate::manifest::changes::CHANGES_DIR;
use crate::manifest::{api_urls, Changes};

use super::entry::Entry;
use super::sorted::{self, Sorter};
use super::write::Writer;

/// One list being written: the paths given to it (sorted) merged with others known
/// before (sorted too), each once, one a line.
struct List {
    path: String,
    out: BufWriter<File>,
    others: Peekable<std::vec::IntoIter<String>>,
    /// The last line written, if any.
    last: Option<String>,
}

impl List {
    fn create(writer: &Writer, name: &str, others: Vec<String>) -> anyhow::Result<List> {
        let path = format!("{CHANGES_DIR}/{name}");
        let target: PathBuf = writer.root.join(&path);
        writer.ensure_parent(&target)?;
        // A new file, also where the folder is a spare being updated.
        let _ = fs::remove_file(&target);
        let file =
            File::create(&target).with_context(|| format!("writing {}", target.display()))?;
        Ok(List {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
            others: others.into_iter().peekable(),
            last: None,
        })
    }

    /// Writes `item` unless it is the last one written; its API URLs to `urls`.
    fn line(&mut self, item: &str, urls: Option<&mut Sorter>) -> anyhow::Result<()> {
        if self.last.as_deref() == Some(item) {
            return Ok(());
        }
        self.out.write_all(item.as_bytes())?;
        self.out.write_all(b"\n")?;
        if let Some(urls) = urls {
            for url in api_urls(item) {
                urls.push(url)?;
            }
        }
        let last = self.last.get_or_insert_with(String::new);
        last.clear();
        last.push_str(item);
        Ok(())
    }

    /// Adds `item`, after the others that sort before it.
    fn push(&mut self, item: &str, mut urls: Option<&mut Sorter>) -> anyhow::Result<()> {
        while let Some(other) = self.others.next_if(|o| o.as_str() <= item) {
            self.line(&other, urls.as_deref_mut())?;
        }
        self.line(item, urls)
    }

    fn finish(mut self, mut urls: Option<&mut Sorter>) -> anyhow::Result<String> {
        while let Some(other) = self.others.next() {
            self.line(&other, urls.as_deref_mut())?;
        }
        self.out
            .flush()
            .with_context(|| format!("writing {}", self.path))?;
        Ok(self.path)
    }
}

/// Writes the four change lists of a generation holding `files` (sorted by path, each
/// marked fresh when this run wrote it) whose previous generation listed the paths
/// `removed` that it no longer has, with the changes of the manifest documents
/// (`documents`). Returns the lists' paths.
pub(super) fn write(
    writer: &Writer,
    files: &[Entry],
    mut removed: Vec<String>,
    documents: Changes,
) -> anyhow::Result<Vec<String>> {
    let spill = writer.root.parent().unwrap_or(&writer.root);
    let mut urls = Sorter::new(spill, sorted::BUDGET);
    let mut added = List::create(writer, "added.txt", documents.added)?;
    let mut changed = List::create(writer, "changed.txt", documents.changed)?;
    // The files added and changed are among the fresh entries.
    for e in files.iter().filter(|e| e.fresh) {
        match writer.previous.get(&e.path) {
            None => added.push(&e.path, Some(&mut urls))?,
            Some(was) if !e.same_file(was) => changed.push(&e.path, Some(&mut urls))?,
            Some(_) => {}
        }
    }
    let mut paths = vec![
        added.finish(Some(&mut urls))?,
        changed.finish(Some(&mut urls))?,
    ];
    if !removed.is_sorted() {
        removed.sort_unstable();
    }
    let mut gone = List::create(writer, "removed.txt", documents.removed)?;
    for path in &removed {
        gone.push(path, Some(&mut urls))?;
    }
    paths.push(gone.finish(Some(&mut urls))?);
    let mut list = List::create(writer, "urls.txt", Vec::new())?;
    urls.finish(|url| list.push(url, None))?;
    paths.push(list.finish(None)?);
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{sha256_hex, ManifestEntry};

    fn listed(path: &str, n: u64) -> ManifestEntry {
        ManifestEntry {
            path: path.to_string(),
            size: n,
            sha256: sha256_hex(&n.to_le_bytes()),
        }
    }

    fn entry(e: &ManifestEntry, fresh: bool) -> Entry {
        let mut entry = Entry::of(e).unwrap();
        entry.fresh = fresh;
        entry
    }

    #[test]
    fn the_lists_are_those_the_changes_make_with_urls_sorted_from_runs() {
        let previous_tree = tempfile::tempdir().unwrap();
        let old: Vec<ManifestEntry> = (0..40u64)
            .map(|i| listed(&format!("api/v0/chapters/c{i:02}.json"), i))
            .collect();
        let published = crate::manifest::publish(&old, &Default::default(), None).unwrap();
        for (path, bytes) in &published.documents {
            let target = previous_tree.path().join(path);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::write(target, bytes).unwrap();
        }
        // Kept, rewritten with the same bytes, changed, added; c30 to c39 removed.
        let mut files: Vec<Entry> = Vec::new();
        for (i, e) in old.iter().enumerate().take(30) {
            files.push(match i % 3 {
                0 => entry(e, false),
                1 => entry(e, true),
                _ => entry(&listed(&e.path, 1000 + i as u64), true),
            });
        }
        let added: Vec<ManifestEntry> = (0..5u64)
            .map(|i| listed(&format!("api/v0/issues/index@page={i}&state=open.json"), i))
            .collect();
        files.extend(added.iter().map(|e| entry(e, true)));
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let removed: Vec<String> = old[30..].iter().map(|e| e.path.clone()).collect();
        let documents = Changes {
            added: vec!["manifest/aa.json".to_string()],
            changed: vec!["manifest.json".to_string()],
            removed: vec!["manifest/zz.json".to_string()],
        };
        let mut expected = Changes {
            added: added.iter().map(|e| e.path.clone()).collect(),
            changed: (0..30)
                .filter(|i| i % 3 == 2)
                .map(|i| old[i].path.clone())
                .collect(),
            removed: removed.clone(),
        };
        expected.merge(documents.clone());
        let new_tree = tempfile::tempdir().unwrap();
        let writer = Writer::new(
            new_tree.path().join("generation"),
            Some(previous_tree.path().to_path_buf()),
            super::super::previous::Previous::open(Some(previous_tree.path())),
            Default::default(),
            false,
        );
        let paths = write(&writer, &files, removed, documents).unwrap();
        let made: Vec<(String, Vec<u8>)> = paths
            .iter()
            .map(|p| (p.clone(), fs::read(writer.root.join(p)).unwrap()))
            .collect();
        assert_eq!(made, expected.documents());
        assert_eq!(expected.urls().len(), 50);
        // Past a budget of a few URLs, the same lists.
        let mut urls = Sorter::new(new_tree.path(), 200);
        for url in expected.urls().iter().rev() {
            urls.push(url.clone()).unwrap();
        }
        let mut again = Vec::new();
        urls.finish(|u| {
            again.push(u.to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(again, expected.urls());
    }
}
