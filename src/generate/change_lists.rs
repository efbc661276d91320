//! The change lists of a new generation (`changes/`, [`crate::manifest::changes`]),
//! written as they are found rather than gathered first: a full run adds every file
//! of the tree (about 13 million at `10x`), and its `urls.txt` names two URLs for
//! each. The paths come sorted from the pass over the entries and go to unnamed
//! temporary files ([`Found`]), read back into their list merged with the manifest
//! documents' own changes once the documents are made; the URLs, which sort in
//! another order than their paths, go through a [`Sorter`] that holds a bounded
//! number of bytes. The files are those
//! [`Changes::documents`](crate::manifest::Changes::documents) makes from the same
//! changes (a test compares them).

use std::fs::{self, File};
use std::io::{BufRead as _, BufReader, BufWriter, Seek as _, SeekFrom, Write as _};
use std::iter::Peekable;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::manifest::changes::CHANGES_DIR;
use crate::manifest::{api_urls, Changes};

use super::compare::Change;
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

/// Paths one a line in an unnamed temporary file, read back in the order given.
struct Lines(BufWriter<File>);

impl Lines {
    fn new(dir: &Path) -> anyhow::Result<Lines> {
        let file = tempfile::tempfile_in(dir)
            .with_context(|| format!("making a temporary file in {}", dir.display()))?;
        Ok(Lines(BufWriter::with_capacity(1 << 16, file)))
    }

    fn push(&mut self, path: &str) -> anyhow::Result<()> {
        self.0.write_all(path.as_bytes())?;
        self.0.write_all(b"\n")?;
        Ok(())
    }

    /// Each line given, in order, to `each`.
    fn replay(self, mut each: impl FnMut(&str) -> anyhow::Result<()>) -> anyhow::Result<()> {
        let mut file = self.0.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        for line in BufReader::with_capacity(1 << 16, file).lines() {
            each(&line.context("reading a change list back")?)?;
        }
        Ok(())
    }
}

/// The tree's files added and changed, as a pass over the new generation's entries
/// in path order finds them, held in unnamed temporary files until the changes of
/// the manifest documents (made after the pass) are known to be merged in.
pub(super) struct Found {
    added: Lines,
    changed: Lines,
}

impl Found {
    /// Lists whose files are made in `dir`.
    pub(super) fn new(dir: &Path) -> anyhow::Result<Found> {
        Ok(Found {
            added: Lines::new(dir)?,
            changed: Lines::new(dir)?,
        })
    }

    /// The next path in path order, and what it is to the previous generation.
    pub(super) fn push(&mut self, path: &str, change: Change) -> anyhow::Result<()> {
        match change {
            Change::Added => self.added.push(path),
            Change::Changed => self.changed.push(path),
            Change::Same => Ok(()),
        }
    }
}

/// Writes the four change lists of a generation: the files `found` added and changed,
/// the previous generation's paths `removed` (sorted) that it no longer has, and the
/// changes of the manifest documents (`documents`). Returns the lists' paths.
pub(super) fn write(
    writer: &Writer,
    found: Found,
    removed: &[String],
    documents: Changes,
) -> anyhow::Result<Vec<String>> {
    let spill = writer.root.parent().unwrap_or(&writer.root);
    let mut urls = Sorter::new(spill, sorted::BUDGET);
    let mut added = List::create(writer, "added.txt", documents.added)?;
    found
        .added
        .replay(|path| added.push(path, Some(&mut urls)))?;
    let mut changed = List::create(writer, "changed.txt", documents.changed)?;
    found
        .changed
        .replay(|path| changed.push(path, Some(&mut urls)))?;
    let mut paths = vec![
        added.finish(Some(&mut urls))?,
        changed.finish(Some(&mut urls))?,
    ];
    let mut gone = List::create(writer, "removed.txt", documents.removed)?;
    for path in removed {
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
    use super::super::entry::Entry;
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
        // The pass a run makes: every entry in path order, compared with the previous
        // generation's.
        let mut entries = super::super::runs::Sorted::default();
        entries.add(files.clone()).unwrap();
        let mut compare = super::super::compare::Compare::new(&writer.previous, &entries);
        let mut found = Found::new(new_tree.path()).unwrap();
        for e in entries.stream().unwrap() {
            let e = e.unwrap();
            found.push(&e.path, compare.next(&e).unwrap()).unwrap();
        }
        assert_eq!(compare.finish().unwrap(), removed);
        let paths = write(&writer, found, &removed, documents).unwrap();
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
