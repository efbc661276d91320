//! The dataset published beside the tree (`roost generate --with-dataset`): the export
//! of `roost db export`, one gzip file per interchange file, at
//! `dataset/<name>.jsonl.gz` under the site root and listed in the manifest, so a
//! mirror can rebuild the dataset and answer what the tree does not hold.
//!
//! [`Dataset::Full`] is the whole dataset, including what the API does not show
//! (inactive chapters, committees and projects, unpublished releases, snapshots that
//! are not completed, organizations that are not affiliated). [`Dataset::PublicOnly`]
//! (`--public-only`) is what the API shows: the export read through the dataset's
//! exposure views, the ones every API reader reads (the rule is in the store's export
//! module).
//! Neither holds credentials: API keys and sessions live in another file.
//!
//! The files are compressed with gzip at the default level and no timestamp, so the
//! same dataset gives the same bytes and an unchanged dataset is linked, not written.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use rayon::prelude::*;

use super::keys;
use super::render::Keying;
use super::write::Writer;
use crate::manifest::DATASET_DIR;
use crate::store::{self, export};

/// Which records `--with-dataset` publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dataset {
    /// Everything `roost db export` writes.
    Full,
    /// What the API exposes (`--public-only`).
    PublicOnly,
}

/// Opens the dataset for an export of `which` records.
pub fn open_for_export(db: &Path, which: Dataset) -> anyhow::Result<rusqlite::Connection> {
    let conn = store::open_read(db)?;
    if which == Dataset::PublicOnly {
        export::restrict_to(&conn)?;
    }
    Ok(conn)
}

/// The tree path of the published file for the interchange file `name`.
pub fn published_path(name: &str) -> String {
    format!("{DATASET_DIR}/{name}.gz")
}

/// Exports every interchange file compressed through the writer (in parallel, one
/// connection each); their manifest entries, each file's with its key
/// ([`super::units::NO_KEY`] without one). With `keying`, a file whose key (the
/// tables its one statement reads, and their digests) the live generation had is
/// linked from it, not exported again: only the kinds that changed are.
pub(super) fn write(
    w: &Writer,
    db: &Path,
    which: Dataset,
    keying: Option<&Keying>,
) -> anyhow::Result<Vec<(keys::Key, Vec<super::entry::Entry>)>> {
    let names: Vec<&'static str> = export::file_names().collect();
    names
        .par_iter()
        .map(
            |name| -> anyhow::Result<(keys::Key, Vec<super::entry::Entry>)> {
                let mut conn = open_for_export(db, which)?;
                let rel = PathBuf::from(published_path(name));
                let mut out = Vec::new();
                let mut file_key = super::units::NO_KEY;
                if let (Some(k), Some(sql)) = (keying, export::file_sql(name)) {
                    let tables = keys::tables_read(&mut conn, sql)?;
                    let key = keys::dataset_key(k.salt, k.digests, which, name, &tables);
                    k.files.add(vec![key]);
                    file_key = key;
                    // Written alone (`put_one`): no precompressed siblings.
                    if k.files.had(key)
                        && w.link_unchanged(&rel, false, k.files.kept(key), &mut out)?
                    {
                        return Ok((key, out));
                    }
                }
                let mut gz =
                    flate2::GzBuilder::new().write(Vec::new(), flate2::Compression::default());
                export::export_file(&conn, name, &mut gz)
                    .ok_or_else(|| anyhow!("{name} is not an interchange file"))?
                    .with_context(|| format!("exporting {name}"))?;
                let bytes = gz.finish().with_context(|| format!("compressing {name}"))?;
                w.put_one(&rel, &bytes, &mut out)?;
                Ok((file_key, out))
            },
        )
        .collect()
}

/// Decompresses the published files in `tree` (a site root) into `dir` as plain
/// interchange files, ready for `roost db import`.
pub fn decompress_into(tree: &Path, dir: &Path) -> anyhow::Result<()> {
    for name in export::file_names() {
        let source = tree.join(published_path(name));
        let file = std::fs::File::open(&source)
            .with_context(|| format!("opening {}", source.display()))?;
        let mut reader = flate2::read::GzDecoder::new(std::io::BufReader::new(file));
        let target = dir.join(name);
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(&target)
                .with_context(|| format!("creating {}", target.display()))?,
        );
        std::io::copy(&mut reader, &mut out)
            .with_context(|| format!("decompressing {}", source.display()))?;
        out.flush()
            .with_context(|| format!("writing {}", target.display()))?;
    }
    Ok(())
}
