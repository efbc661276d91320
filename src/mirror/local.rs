//! The mirror's folder `DIR`: `DIR/site`, a symlink to the live generation
//! `DIR/.site.g<stamp>` (the scheme `roost generate` uses), generation folders left
//! by interrupted runs (their completed files were verified before they got their
//! names, so a later run links them again instead of fetching them, checking their
//! hash first), and the replica's dataset `DIR/roost.db` with the record of which
//! published files it was imported from (`DIR/roost.db.source`).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use sha2::{Digest, Sha256};

use crate::generate;
use crate::manifest::{split, Chunk, ManifestEntry, DATASET_DIR, ROOT};

/// The mirror's folder as a run finds it.
pub struct Local {
    pub out: PathBuf,
    pub site: PathBuf,
    pub parent: PathBuf,
    pub prefix: String,
    /// The live generation folder, when `DIR/site` points at one.
    pub live: Option<PathBuf>,
    /// Other generation folders (left by interrupted runs), newest first.
    pub leftovers: Vec<PathBuf>,
}

impl Local {
    /// Looks at `out` (created when missing).
    pub fn open(out: &Path) -> anyhow::Result<Local> {
        fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        let site = out.join("site");
        let (parent, prefix) = generate::generation_prefix(&site)?;
        let live = if site.is_dir() {
            Some(
                site.canonicalize()
                    .with_context(|| format!("reading {}", site.display()))?,
            )
        } else {
            None
        };
        let mut leftovers: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
        for entry in fs::read_dir(&parent)
            .with_context(|| format!("reading {}", parent.display()))?
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let is_live = live
                .as_ref()
                .is_some_and(|l| l.file_name() == path.file_name());
            if name.starts_with(&prefix) && name.ends_with(".link") {
                // The symlink of a swap that never happened.
                let _ = fs::remove_file(&path);
                continue;
            }
            if name.starts_with(&prefix) && !is_live && path.is_dir() {
                let modified = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                leftovers.push((modified, path));
            }
        }
        leftovers.sort_by_key(|b| std::cmp::Reverse(b.0));
        Ok(Local {
            out: out.to_path_buf(),
            site,
            parent,
            prefix,
            live,
            leftovers: leftovers.into_iter().map(|(_, p)| p).collect(),
        })
    }

    /// Removes the folders left by earlier runs but the `keep` newest (kept for their
    /// files), and the temporary files of runs whose process is gone. Called with the
    /// mirror's lock held, so no other run owns them.
    pub fn remove_leftovers(&self, keep: usize) {
        for old in self.leftovers.iter().skip(keep) {
            crate::crash::point("mirror::remove_leftover");
            let _ = fs::remove_dir_all(old);
        }
        remove_stale_dataset_folders(&self.out);
    }

    /// The live generation's `manifest/root.json`.
    pub fn root_bytes(&self) -> Option<Vec<u8>> {
        fs::read(self.live.as_ref()?.join(ROOT)).ok()
    }

    /// The entries of `chunk` from the live generation, when it has that chunk intact.
    pub fn chunk(&self, chunk: &Chunk) -> Option<Vec<ManifestEntry>> {
        let bytes = fs::read(self.live.as_ref()?.join(&chunk.path)).ok()?;
        split::parse_chunk(chunk, &bytes).ok()
    }

    /// Hard-links `path` from the live generation into `generation`; false when the
    /// live generation does not have it.
    pub fn link_live(&self, generation: &Path, path: &str) -> bool {
        match &self.live {
            Some(live) => link(&live.join(path), &generation.join(path)),
            None => false,
        }
    }

    /// Hard-links `entry` from a generation left by an interrupted run, when one holds
    /// a file of that name with the entry's size and SHA-256.
    pub fn link_leftover(&self, generation: &Path, entry: &ManifestEntry) -> bool {
        self.leftovers.iter().any(|old| {
            let source = old.join(&entry.path);
            let same_size =
                fs::metadata(&source).is_ok_and(|m| m.is_file() && m.len() == entry.size);
            same_size
                && file_sha256(&source).is_some_and(|h| h == entry.sha256)
                && link(&source, &generation.join(&entry.path))
        })
    }

    /// The record of the published dataset files `DIR/roost.db` was imported from.
    pub fn dataset_source(&self) -> Option<String> {
        fs::read_to_string(self.source_path()).ok()
    }

    pub fn db(&self) -> PathBuf {
        self.out.join("roost.db")
    }

    fn source_path(&self) -> PathBuf {
        self.out.join("roost.db.source")
    }

    /// Imports the published dataset of `generation` into `DIR/roost.db` (atomically,
    /// through `roost db import`'s temporary file) and records where it came from.
    pub fn import_dataset(
        &self,
        generation: &Path,
        source: &str,
        wait: bool,
    ) -> anyhow::Result<()> {
        let db = self.db();
        let _lock = crate::lock::exclusive(&crate::lock::beside_file(&db)?, "mirror", &db, wait)?;
        let tmp = self
            .out
            .join(format!("{DATASET_TMP}{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let result = (|| {
            generate::dataset::decompress_into(generation, &tmp)?;
            crate::crash::point("mirror::import");
            crate::store::import_dir(&tmp, &self.db(), crate::idx::build).with_context(|| {
                format!(
                    "importing the published dataset into {}",
                    self.db().display()
                )
            })?;
            let record = self.out.join(format!("{SOURCE_TMP}{}", std::process::id()));
            let writing = || format!("writing {}", self.source_path().display());
            crate::atomic::replace_file(
                &record,
                &self.source_path(),
                |record| {
                    crate::atomic::write_synced(record, source.as_bytes()).with_context(writing)?;
                    crate::crash::point("mirror::source_record");
                    Ok(())
                },
                |e| anyhow::Error::new(e).context(writing()),
            )
        })();
        let _ = fs::remove_dir_all(&tmp);
        result
    }
}

/// Folders of decompressed dataset files, `DIR/.dataset.tmp-<pid>`.
const DATASET_TMP: &str = ".dataset.tmp-";

/// Temporary records of where the dataset came from, `DIR/.roost.db.source.tmp-<pid>`.
const SOURCE_TMP: &str = ".roost.db.source.tmp-";

/// Removes the decompression folders and source records of runs whose process is gone.
fn remove_stale_dataset_folders(out: &Path) {
    crate::atomic::remove_stale(out, &[DATASET_TMP, SOURCE_TMP]);
}

/// The record of the published dataset files (`sha256 path` lines) among `entries`.
pub fn dataset_record<'a>(entries: impl IntoIterator<Item = &'a ManifestEntry>) -> String {
    let prefix = format!("{DATASET_DIR}/");
    let mut text = String::new();
    for e in entries.into_iter().filter(|e| e.path.starts_with(&prefix)) {
        text.push_str(&format!("{}  {}\n", e.sha256, e.path));
    }
    text
}

fn link(source: &Path, target: &Path) -> bool {
    if let Some(parent) = target.parent() {
        if !parent.is_dir() && fs::create_dir_all(parent).is_err() {
            return false;
        }
    }
    fs::hard_link(source, target).is_ok()
}

fn file_sha256(path: &Path) -> Option<String> {
    let mut file = fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Some(hex::encode(hasher.finalize()))
}
