//! The one write path of a generation: every file of the new tree goes through a
//! [`Writer`], which hard-links a file whose bytes equal the previous tree's (by the
//! manifest's hash, so it keeps its inode and mtime), writes the others, adds the
//! precompressed siblings (`.gz`, `.br`) when asked, and lists every file it placed
//! for the manifest.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Mutex;

use anyhow::Context;
use flate2::{Compress, Compression, FlushCompress, Status};
use sha2::{Digest, Sha256};

use super::entry::Entry;

/// Writes files into the new tree, linking unchanged ones from the previous tree.
pub(super) struct Writer {
    /// The new generation's folder.
    pub(super) root: PathBuf,
    previous_root: Option<PathBuf>,
    /// The previous tree's files, from its manifest, read chunk by chunk as asked.
    pub(super) previous: super::previous::Previous,
    precompress: Precompress,
    /// Files written, and files linked from the previous tree.
    pub(super) written: AtomicU64,
    pub(super) unchanged: AtomicU64,
    /// Of the unchanged files, those linked by their key alone, without being made.
    pub(super) by_key: AtomicU64,
    /// Folders of the new tree already created, so a file's parent is made once and
    /// not asked about (`stat`) for every file.
    folders: Mutex<HashSet<PathBuf>>,
    /// Whether the new generation's folder is the spare generation being updated in
    /// place ([`super::spare`]): a path may already hold a file, which is removed
    /// before another is placed there (never written through: its inode may be
    /// shared with the live generation).
    in_place: bool,
    /// Paths whose file in the previous tree (and the spare) is not to be trusted:
    /// found missing or of another size there. They are made, never linked or kept.
    damaged: HashSet<String>,
    /// Placing files where this writer placed them before (a delta run's units
    /// placed again, every entry handed on): a path's file is removed first.
    again: bool,
}

impl Writer {
    /// A writer into `root`, linking from the previous tree at `previous_root` whose
    /// manifest lists `previous`.
    pub(super) fn new(
        root: PathBuf,
        previous_root: Option<PathBuf>,
        previous: super::previous::Previous,
        precompress: Precompress,
        in_place: bool,
    ) -> Writer {
        Writer {
            root,
            previous_root,
            previous,
            precompress,
            written: AtomicU64::new(0),
            unchanged: AtomicU64::new(0),
            by_key: AtomicU64::new(0),
            folders: Mutex::new(HashSet::new()),
            in_place,
            damaged: HashSet::new(),
            again: false,
        }
    }

    /// The writer, never linking or keeping the files at `damaged` (found missing or
    /// of another size in the previous tree).
    pub(super) fn never_linking(mut self, damaged: HashSet<String>) -> Writer {
        self.damaged = damaged;
        self
    }

    /// Writes one file (and its compressed siblings when asked).
    pub(super) fn put(&self, rel: &Path, bytes: &[u8], out: &mut Vec<Entry>) -> anyhow::Result<()> {
        let unchanged = self.put_one(rel, bytes, out)?;
        if bytes.len() >= PRECOMPRESS_MIN {
            for (extension, compress) in self.precompress.siblings() {
                let sibling = sibling(rel, extension);
                if !(unchanged && self.link_previous(&sibling, out)) {
                    self.put_one(&sibling, &compress(bytes)?, out)?;
                }
            }
        }
        Ok(())
    }

    /// Places the files of `to` as hard links to the files of `from` (its entries
    /// `original`: the file and its siblings), a page with the same bytes: stored
    /// once. A file whose entry the previous tree lists alike counts as unchanged,
    /// another as written (and fresh).
    pub(super) fn put_twin(
        &self,
        from: &Path,
        original: &[Entry],
        to: &Path,
        out: &mut Vec<Entry>,
    ) -> anyhow::Result<()> {
        let (from, to) = (Self::key(from), Self::key(to));
        for e in original {
            let suffix = e
                .path
                .strip_prefix(from.as_str())
                .with_context(|| format!("{} is not a file of {from}", e.path))?;
            let mut entry = Entry {
                path: format!("{to}{suffix}"),
                size: e.size,
                sha256: e.sha256,
                fresh: false,
            };
            let target = self.root.join(&entry.path);
            self.ensure_parent(&target)?;
            self.clear(&target)?;
            fs::hard_link(self.root.join(&e.path), &target)
                .with_context(|| format!("linking {} to {}", target.display(), e.path))?;
            let same = self
                .previous
                .with_entry(&entry.path, |p| entry.same_file(p))
                .unwrap_or(false);
            if same {
                self.unchanged.fetch_add(1, AtomicOrdering::Relaxed);
            } else {
                self.count_written(&mut entry);
            }
            out.push(entry);
        }
        Ok(())
    }

    /// Places `rel` and, for a file written with them ([`Writer::put`], not
    /// [`Writer::put_one`]: `siblings`), its precompressed siblings, for a file whose
    /// key says it is unchanged (its bytes are neither made nor read): when the spare
    /// generation being updated has the same key too (`in_spare`), its files are
    /// already in place and nothing is done; else they are linked from the previous
    /// tree. False, with nothing placed, when the previous tree lacks the file; a
    /// sibling it lacks is made from the linked file's bytes.
    pub(super) fn link_unchanged(
        &self,
        rel: &Path,
        siblings: bool,
        in_spare: bool,
        out: &mut Vec<Entry>,
    ) -> anyhow::Result<bool> {
        if in_spare && self.in_place && self.keep_in_place(rel, siblings, out) {
            return Ok(true);
        }
        if !self.link_previous(rel, out) {
            return Ok(false);
        }
        self.by_key.fetch_add(1, AtomicOrdering::Relaxed);
        let size = out.last().map_or(0, |e| e.size);
        if siblings && size >= PRECOMPRESS_MIN as u64 {
            for (extension, compress) in self.precompress.siblings() {
                let sibling = sibling(rel, extension);
                if self.link_previous(&sibling, out) {
                    self.by_key.fetch_add(1, AtomicOrdering::Relaxed);
                } else {
                    let path = self.root.join(rel);
                    let bytes =
                        fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
                    self.put_one(&sibling, &compress(&bytes)?, out)?;
                }
            }
        }
        Ok(true)
    }

    /// Links the files of the groups of a unit's record that `keep` accepts (by their
    /// index and file key) from the live generation, where the folder being written
    /// lacks them ([`super::units`]): in the spare being updated, nothing when the
    /// spare has the unit too (`unit_in_spare`), else the files whose key the spare has
    /// (`in_spare`) stay and the others are linked; in a fresh folder every file is
    /// linked. Nothing is made or read but the record. False when a file is damaged
    /// or cannot be linked, or the record cannot be read: the files this call linked
    /// are removed again, so the unit can be rendered instead. Not counted
    /// ([`Writer::count_by_key`]); the reader is left anywhere (rewind it).
    pub(super) fn link_recorded(
        &self,
        record: &mut super::units::RecordReader,
        unit_in_spare: bool,
        keep: impl Fn(usize, super::keys::Key) -> bool,
        in_spare: impl Fn(super::keys::Key) -> bool,
    ) -> bool {
        if self.previous_root.is_none() {
            return false;
        }
        let link_all = self.must_link(unit_in_spare);
        if !link_all && self.damaged.is_empty() {
            return true;
        }
        let linked = |key| link_all && self.must_link(in_spare(key));
        let mut i = 0usize;
        // A group's entries are decoded only when its files are linked or checked.
        let mut buf = Vec::new();
        let failed = loop {
            match record.next_group_raw(&mut buf) {
                Ok(None) => return true,
                Ok(Some((key, _))) => {
                    if keep(i, key) && (linked(key) || !self.damaged.is_empty()) {
                        match super::units::decode_group(&buf) {
                            Ok((_, entries)) if self.place_group(&entries, linked(key)) => {}
                            _ => break i,
                        }
                    }
                }
                Err(_) => break i,
            }
            i += 1;
        };
        // Undone: the groups before the one that failed, as they were linked.
        if record.rewind().is_ok() {
            for i in 0..failed {
                let Ok(Some((key, entries))) = record.next_group() else {
                    break;
                };
                if keep(i, key) && linked(key) {
                    for e in &entries {
                        let _ = fs::remove_file(self.root.join(&e.path));
                    }
                }
            }
        }
        false
    }

    /// Places the files of one recorded page or record (`entries`, the file and its
    /// siblings) the live generation has, linking them (`link`) or leaving the
    /// spare's in place; false, with nothing placed, when one is damaged or cannot be
    /// linked. Not counted.
    pub(super) fn place_group(&self, entries: &[Entry], link: bool) -> bool {
        if !self.damaged.is_empty() && entries.iter().any(|e| self.damaged.contains(&e.path)) {
            return false;
        }
        if !link {
            return true;
        }
        let Some(previous_root) = &self.previous_root else {
            return false;
        };
        for (n, e) in entries.iter().enumerate() {
            let target = self.root.join(&e.path);
            let linked = self.ensure_parent(&target).is_ok()
                && self.clear(&target).is_ok()
                && fs::hard_link(previous_root.join(&e.path), &target).is_ok();
            if !linked {
                for e in &entries[..n] {
                    let _ = fs::remove_file(self.root.join(&e.path));
                }
                return false;
            }
        }
        true
    }

    /// Whether a file the live generation has is to be linked: not when the spare
    /// being updated holds it already (`in_spare`).
    pub(super) fn must_link(&self, in_spare: bool) -> bool {
        !(self.in_place && in_spare)
    }

    /// Whether a file of the previous tree was found damaged (missing, or of another
    /// size): every recorded group is then checked before it is kept.
    pub(super) fn found_damaged(&self) -> bool {
        !self.damaged.is_empty()
    }

    /// Forgets what was counted, and places files over those it placed before (the
    /// units placed again).
    pub(super) fn place_again(&mut self) {
        for count in [&self.written, &self.unchanged, &self.by_key] {
            count.store(0, AtomicOrdering::Relaxed);
        }
        self.again = true;
    }

    /// Counts `n` files placed from a record: unchanged, by key.
    pub(super) fn count_by_key(&self, n: u64) {
        self.unchanged.fetch_add(n, AtomicOrdering::Relaxed);
        self.by_key.fetch_add(n, AtomicOrdering::Relaxed);
    }

    /// Lists `rel` and its siblings, already in the folder being updated, with the
    /// previous tree's entries (the spare's file with the live file's key has the live
    /// file's bytes); false, with nothing listed, when the previous manifest lacks one.
    fn keep_in_place(&self, rel: &Path, siblings: bool, out: &mut Vec<Entry>) -> bool {
        let listed = out.len();
        // Where the entry of `rel` is, and its size; it is listed.
        let mut entry = |rel: &Path, after: Option<(usize, usize)>| {
            let key = Self::key(rel);
            if self.damaged.contains(&key) {
                return None;
            }
            let at = match after {
                Some(after) => self.previous.find_after(after, &key)?,
                None => self.previous.find(&key)?,
            };
            let found = self.previous.entry_at(at)?;
            let size = found.size;
            out.push(found);
            Some((at, size))
        };
        let whole = entry(rel, None).is_some_and(|(at, size)| {
            let mut at = at;
            !siblings
                || size < PRECOMPRESS_MIN as u64
                || self.precompress.siblings().all(|(extension, _)| {
                    entry(&sibling(rel, extension), Some(at))
                        .inspect(|&(next, _)| at = next)
                        .is_some()
                })
        });
        if !whole {
            out.truncate(listed);
            return false;
        }
        let placed = (out.len() - listed) as u64;
        self.unchanged.fetch_add(placed, AtomicOrdering::Relaxed);
        self.by_key.fetch_add(placed, AtomicOrdering::Relaxed);
        true
    }

    /// Removes what a path of the folder being updated in place holds, so a new file
    /// (a new inode) can be placed there, or so the path is gone.
    pub(super) fn clear(&self, target: &Path) -> anyhow::Result<()> {
        if !self.in_place && !self.again {
            return Ok(());
        }
        match fs::remove_file(target) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("replacing {}", target.display()))
            }
            _ => Ok(()),
        }
    }

    fn key(rel: &Path) -> String {
        rel.to_string_lossy().replace('\\', "/")
    }

    /// Hard-links `rel` from the previous tree, keeping its inode and mtime; false
    /// when the previous tree has no such file.
    fn link_previous(&self, rel: &Path, out: &mut Vec<Entry>) -> bool {
        let key = Self::key(rel);
        let (Some(entry), Some(previous_root), false) = (
            self.previous.with_entry(&key, Entry::of).flatten(),
            self.previous_root.as_ref(),
            self.damaged.contains(&key),
        ) else {
            return false;
        };
        let target = self.root.join(rel);
        crate::crash::point("generate::write_file");
        if self.ensure_parent(&target).is_err()
            || self.clear(&target).is_err()
            || fs::hard_link(previous_root.join(rel), &target).is_err()
        {
            return false;
        }
        self.unchanged.fetch_add(1, AtomicOrdering::Relaxed);
        out.push(entry);
        true
    }

    /// Writes one file unless the previous tree has the same bytes (then links it).
    /// Returns whether it was unchanged.
    pub(super) fn put_one(
        &self,
        rel: &Path,
        bytes: &[u8],
        out: &mut Vec<Entry>,
    ) -> anyhow::Result<bool> {
        let mut entry = Entry {
            path: Self::key(rel),
            size: bytes.len() as u64,
            sha256: Sha256::digest(bytes).into(),
            fresh: false,
        };
        let same = self
            .previous
            .with_entry(&entry.path, |e| entry.same_file(e))
            .unwrap_or(false);
        if same && self.link_previous(rel, out) {
            return Ok(true);
        }
        let target = self.root.join(rel);
        crate::crash::point("generate::write_file");
        self.ensure_parent(&target)?;
        self.clear(&target)?;
        fs::write(&target, bytes).with_context(|| format!("writing {}", target.display()))?;
        self.count_written(&mut entry);
        out.push(entry);
        Ok(false)
    }

    /// Counts `entry` as placed with new bytes: written, and fresh for the manifest.
    fn count_written(&self, entry: &mut Entry) {
        self.written.fetch_add(1, AtomicOrdering::Relaxed);
        entry.fresh = true;
    }

    /// The previous tree's folder, if there is one.
    pub(super) fn previous_root(&self) -> Option<&Path> {
        self.previous_root.as_deref()
    }

    /// Places a manifest document of `size` bytes hashing to `sha256`: linked from the
    /// previous tree when it had the same (`previous`: its size and hash there), else
    /// written with the bytes `make` gives. Whether it was written (a linked document's
    /// bytes are on disk already).
    pub(super) fn put_document(
        &self,
        rel: &Path,
        size: u64,
        sha256: &str,
        previous: Option<(u64, &str)>,
        make: impl FnOnce() -> anyhow::Result<Vec<u8>>,
    ) -> anyhow::Result<bool> {
        if self.link_document(rel, size, sha256, previous) {
            return Ok(false);
        }
        self.write_document(rel, &make()?)?;
        Ok(true)
    }

    /// Writes the manifest document `rel` with `bytes`.
    pub(super) fn write_document(&self, rel: &Path, bytes: &[u8]) -> anyhow::Result<()> {
        let target = self.root.join(rel);
        self.ensure_parent(&target)?;
        self.clear(&target)?;
        fs::write(&target, bytes).with_context(|| format!("writing {}", target.display()))?;
        self.written.fetch_add(1, AtomicOrdering::Relaxed);
        Ok(())
    }

    /// Opens the manifest document `rel` to be written piece by piece, in order, as the
    /// pieces are made ([`Pieces`]), never joined in memory. In the spare being
    /// updated, where the path holds a file of this folder's own (no other generation
    /// shares its inode), that file is updated in place: compared block by block and
    /// only the blocks that differ written, so most of a large document that changed
    /// in a few places is neither copied again nor flushed to the disk again. Else the
    /// document is written anew.
    pub(super) fn open_pieces(&self, rel: &Path) -> anyhow::Result<Pieces> {
        let target = self.root.join(rel);
        let own = self.in_place
            && fs::symlink_metadata(&target).is_ok_and(|m| {
                use std::os::unix::fs::MetadataExt as _;
                m.is_file() && m.nlink() == 1
            });
        let out = if own {
            PiecesOut::InPlace(
                InPlace::open(&target).with_context(|| format!("updating {}", target.display()))?,
            )
        } else {
            self.ensure_parent(&target)?;
            self.clear(&target)?;
            let file = fs::File::create(&target)
                .with_context(|| format!("writing {}", target.display()))?;
            PiecesOut::New(std::io::BufWriter::with_capacity(1 << 20, file))
        };
        Ok(Pieces { target, out })
    }

    /// Links the manifest document `rel` from the previous tree when it had the same
    /// size and hash there (`previous`) and its file there has that size (a document
    /// torn on disk is written again rather than linked); whether it did.
    pub(super) fn link_document(
        &self,
        rel: &Path,
        size: u64,
        sha256: &str,
        previous: Option<(u64, &str)>,
    ) -> bool {
        let target = self.root.join(rel);
        let (Some(from), Some((was_size, was_hash))) = (&self.previous_root, previous) else {
            return false;
        };
        let source = from.join(rel);
        let linked = was_size == size
            && was_hash == sha256
            && fs::metadata(&source).is_ok_and(|m| m.len() == size)
            && self.ensure_parent(&target).is_ok()
            && self.clear(&target).is_ok()
            && fs::hard_link(&source, &target).is_ok();
        if linked {
            self.unchanged.fetch_add(1, AtomicOrdering::Relaxed);
        }
        linked
    }

    /// Creates the parent folder of `path` unless this run already made it.
    pub(super) fn ensure_parent(&self, path: &Path) -> anyhow::Result<()> {
        let Some(parent) = path.parent() else {
            return Ok(());
        };
        let known = |folders: &HashSet<PathBuf>| folders.contains(parent);
        if known(&self.folders.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(());
        }
        fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        self.folders
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(parent.to_path_buf());
        Ok(())
    }
}

/// A manifest document being written piece by piece ([`Writer::open_pieces`]).
pub(super) struct Pieces {
    target: PathBuf,
    out: PiecesOut,
}

enum PiecesOut {
    InPlace(InPlace),
    New(std::io::BufWriter<fs::File>),
}

impl Pieces {
    /// Whether the document is a file of this folder's own updated in place (else it
    /// is written anew).
    pub(super) fn in_place(&self) -> bool {
        matches!(self.out, PiecesOut::InPlace(_))
    }

    /// Appends `piece`. A piece marked `known` is already in the file being updated
    /// in place, at its offset: it is neither read nor compared (a new file is
    /// written whole).
    pub(super) fn push(&mut self, piece: &[u8], known: bool) -> anyhow::Result<()> {
        match &mut self.out {
            PiecesOut::InPlace(file) => file.push(piece, known),
            PiecesOut::New(file) => file.write_all(piece),
        }
        .with_context(|| format!("writing {}", self.target.display()))
    }

    /// The document complete at `size` bytes (a file updated in place cut to it).
    pub(super) fn finish(self, writer: &Writer, size: u64) -> anyhow::Result<()> {
        match self.out {
            PiecesOut::InPlace(file) => file.finish(size),
            PiecesOut::New(mut file) => file.flush(),
        }
        .with_context(|| format!("writing {}", self.target.display()))?;
        writer.written.fetch_add(1, AtomicOrdering::Relaxed);
        Ok(())
    }
}

/// A file made to hold the pieces pushed to it, in order: its bytes read block by
/// block and compared, only the blocks that differ written, then cut to length.
struct InPlace {
    file: fs::File,
    old_len: u64,
    /// A block of the file as it was, and the new bytes gathered for it.
    old: Vec<u8>,
    new: Vec<u8>,
    /// Where the bytes gathered in `new` go.
    at: u64,
}

impl InPlace {
    const BLOCK: usize = 1 << 16;

    fn open(path: &Path) -> std::io::Result<InPlace> {
        let file = fs::OpenOptions::new().read(true).write(true).open(path)?;
        Ok(InPlace {
            old_len: file.metadata()?.len(),
            file,
            old: vec![0u8; Self::BLOCK],
            new: Vec::with_capacity(Self::BLOCK),
            at: 0,
        })
    }

    /// The gathered bytes written where they differ from the file's.
    fn flush(&mut self) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt as _;
        let len = self.new.len();
        let have =
            usize::try_from(self.old_len.saturating_sub(self.at)).map_or(len, |h| h.min(len));
        self.file.read_exact_at(&mut self.old[..have], self.at)?;
        if have < len || self.old[..len] != self.new[..] {
            self.file.write_all_at(&self.new, self.at)?;
        }
        self.at += len as u64;
        self.new.clear();
        Ok(())
    }

    fn push(&mut self, piece: &[u8], known: bool) -> std::io::Result<()> {
        if known {
            if !self.new.is_empty() {
                self.flush()?;
            }
            self.at += piece.len() as u64;
            return Ok(());
        }
        let mut rest = piece;
        while !rest.is_empty() {
            let take = rest.len().min(Self::BLOCK - self.new.len());
            self.new.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.new.len() == Self::BLOCK {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn finish(mut self, size: u64) -> std::io::Result<()> {
        if !self.new.is_empty() {
            self.flush()?;
        }
        debug_assert_eq!(self.at, size);
        if self.old_len != size {
            self.file.set_len(size)?;
        }
        Ok(())
    }
}

fn sibling(rel: &Path, extension: &str) -> PathBuf {
    let mut sibling = rel.as_os_str().to_owned();
    sibling.push(".");
    sibling.push(extension);
    PathBuf::from(sibling)
}

/// The smallest file given precompressed siblings: below it the saving is a few
/// hundred bytes a response, less than the headers, for three files instead of one.
pub const PRECOMPRESS_MIN: usize = 1024;

/// The precompressed siblings written beside every file of [`PRECOMPRESS_MIN`] or
/// more (`--precompress CODECS`): `.gz` by default, what every HTTP client and static
/// server takes (nginx's `gzip_static`), and `.br` on request (browsers over HTTPS,
/// `brotli_static`), at about twice the cost of the `.gz`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Precompress {
    pub gzip: bool,
    pub brotli: bool,
}

impl Default for Precompress {
    fn default() -> Precompress {
        Precompress::GZIP
    }
}

impl Precompress {
    /// No siblings.
    pub const NONE: Precompress = Precompress {
        gzip: false,
        brotli: false,
    };
    /// `.gz` siblings: the default.
    pub const GZIP: Precompress = Precompress {
        gzip: true,
        brotli: false,
    };
    /// `.gz` and `.br` siblings (a bare `--precompress`).
    pub const ALL: Precompress = Precompress {
        gzip: true,
        brotli: true,
    };

    /// Parses `none`, or a comma-separated list of `gzip` and `br` (`gzip,br`).
    pub fn parse(text: &str) -> Result<Precompress, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("none") {
            return Ok(Precompress::NONE);
        }
        let mut set = Precompress::NONE;
        for codec in text.split(',').map(str::trim) {
            match codec.to_ascii_lowercase().as_str() {
                "gzip" | "gz" => set.gzip = true,
                "br" | "brotli" => set.brotli = true,
                _ => {
                    return Err(format!(
                        "unknown codec {codec:?}: expected none, or gzip and br separated by \
                         commas (gzip,br)"
                    ))
                }
            }
        }
        Ok(set)
    }

    /// The sibling extensions with their compression, in serving preference order.
    fn siblings(self) -> impl Iterator<Item = (&'static str, Compressor)> {
        let all: [(bool, &'static str, Compressor); 2] =
            [(self.gzip, "gz", gzip), (self.brotli, "br", brotli)];
        all.into_iter()
            .filter(|(on, _, _)| *on)
            .map(|(_, extension, compress)| (extension, compress))
    }

    /// The set as `--precompress` spells it (`gzip,br`), for the input fingerprint.
    pub fn name(self) -> &'static str {
        match (self.gzip, self.brotli) {
            (false, false) => "none",
            (true, false) => "gzip",
            (false, true) => "br",
            (true, true) => "gzip,br",
        }
    }
}

/// A compression of a file's bytes for a precompressed sibling. The levels are chosen
/// for the cost of a whole tree: gzip 6 (gzip's own default) and brotli 4 with a 4 MiB
/// window: gzip 9 compresses this JSON barely smaller than 6, and brotli 5 a little
/// smaller than 4 at half its speed (the measurements are in bench/history/2026-11.md,
/// "Precompressed siblings" and "`generate --precompress`: faster codecs").
type Compressor = fn(&[u8]) -> anyhow::Result<Vec<u8>>;

thread_local! {
    /// Each thread's gzip compressor, reset for every file. A new one per file
    /// allocated and freed zlib's state thousands of times a second, which glibc's
    /// allocator kept: the run's RSS grew to many times its heap.
    static GZIP: RefCell<Option<Compress>> = const { RefCell::new(None) };
}

fn gzip(bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    GZIP.with(|slot| {
        let mut slot = slot.borrow_mut();
        let gz = slot.get_or_insert_with(|| Compress::new_gzip(Compression::new(6), 15));
        gz.reset();
        let mut out = Vec::with_capacity(bytes.len() / 3 + 64);
        loop {
            let read = usize::try_from(gz.total_in())?;
            let rest = bytes.get(read..).unwrap_or_default();
            match gz.compress_vec(rest, &mut out, FlushCompress::Finish)? {
                Status::StreamEnd => return Ok(out),
                // The output is full: room for more.
                Status::Ok | Status::BufError => out.reserve(out.capacity().max(4096)),
            }
        }
    })
}

fn brotli(bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 4, 22);
        w.write_all(bytes)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that differ from block to block, so a block written at the wrong place
    /// shows.
    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[1] ^ seed)
            .collect()
    }

    /// Makes the file at `path` hold `pieces`, those marked in `known` taken as there.
    fn update_in_place(
        path: &Path,
        size: u64,
        pieces: &[&[u8]],
        known: &[bool],
    ) -> std::io::Result<()> {
        let mut file = InPlace::open(path)?;
        for (i, piece) in pieces.iter().enumerate() {
            file.push(piece, known.get(i) == Some(&true))?;
        }
        file.finish(size)
    }

    #[test]
    fn a_file_updated_in_place_holds_the_pieces_and_keeps_its_inode() {
        use std::os::unix::fs::MetadataExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc");
        let old = pattern(300_000, 0);
        let cases: Vec<Vec<u8>> = vec![
            old.clone(),
            // One byte changed in the middle, the length kept.
            {
                let mut v = old.clone();
                v[150_001] ^= 0xff;
                v
            },
            // Bytes inserted: everything after them moves.
            {
                let mut v = old.clone();
                v.splice(70_000..70_000, pattern(999, 7));
                v
            },
            // Shorter and longer than the file.
            old[..123_457].to_vec(),
            pattern(500_003, 3),
            Vec::new(),
        ];
        for new in cases {
            fs::write(&path, &old).unwrap();
            let inode = fs::metadata(&path).unwrap().ino();
            let (a, b) = new.split_at(new.len() / 3);
            let (b, c) = b.split_at(b.len() / 2);
            update_in_place(&path, new.len() as u64, &[a, b, b"", c], &[]).unwrap();
            assert_eq!(fs::read(&path).unwrap(), new);
            assert_eq!(fs::metadata(&path).unwrap().ino(), inode);
        }
    }

    #[test]
    fn pieces_known_to_be_in_place_are_left_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        let (head, middle, tail) = (pattern(100_001, 1), pattern(70_000, 2), pattern(3_333, 3));
        fs::write(&path, [&head[..], &middle, &tail].concat()).unwrap();
        let other_middle = pattern(90_000, 4);
        // Known pieces are taken as the file's bytes: these differ but are not
        // written, which shows they were skipped.
        let (stand_in_head, stand_in_tail) = (pattern(100_001, 5), pattern(3_333, 6));
        let size = (head.len() + other_middle.len() + tail.len()) as u64;
        let pieces: [&[u8]; 3] = [&stand_in_head, &other_middle, &stand_in_tail];
        update_in_place(&path, size, &pieces, &[true, false, false]).unwrap();
        let expected = [&head[..], &other_middle, &stand_in_tail].concat();
        assert_eq!(fs::read(&path).unwrap(), expected);
        let pieces: [&[u8]; 3] = [&head, &pattern(90_000, 7), &stand_in_head[..3_333]];
        update_in_place(&path, size, &pieces, &[false, false, true]).unwrap();
        let expected = [&head[..], &pattern(90_000, 7), &stand_in_tail].concat();
        assert_eq!(fs::read(&path).unwrap(), expected);
    }
}
