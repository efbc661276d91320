//! The manifest documents and change lists of a new generation
//! ([`crate::manifest`]), with the work of the comparison following the chunks that
//! hold changed paths rather than the size of the tree.
//!
//! Every entry the run placed without writing it (linked by key or by bytes, kept in
//! the spare, placed from a unit's record) is the previous generation's entry; only
//! the paths the writer wrote are *fresh*. So:
//! - a chunk of the previous manifest is the new manifest's chunk as it is when the
//!   new entries from its first path on are its entries, none fresh, and the next
//!   entry is past it (the chunk rule gives the same cut from the same start): its
//!   bytes and hash are kept, and the document is linked from the previous tree;
//!   the other chunks are cut by the rule ([`split::chunk_end`]) and hashed;
//! - the files added and changed are among the fresh entries; the files removed are
//!   in the previous chunks whose paths are not all listed again
//!   ([`Compare`]).
//!
//! The entries come from their runs ([`Sorted`]) in one pass, a window at a time:
//! the documents, the change lists and what the run records of the tree are made as
//! they come, so no list of every entry is held.
//!
//! The documents are byte for byte those [`crate::manifest::publish`] makes from the
//! same entries (a test compares them).

use std::collections::HashMap;
use std::fs;
use std::io::Write as _;
use std::path::Path;

use anyhow::{anyhow, Context};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::manifest::{sha256_hex, split, Changes, ManifestEntry, MANIFEST};

use super::change_lists::{self, Found};
use super::compare::{Change, Compare};
use super::delta::{self, Merged};
use super::entry::{push_hex, Entry};
use super::previous::Previous;
use super::runs::{Sorted, Stream};
use super::verify;
use super::write::{Pieces, Writer};

const OPEN: &[u8] = b"{\"files\":[";
const CLOSE: &[u8] = b"]}";

/// One chunk of the new manifest: its entries (a range of the window of entries being
/// cut) and, when it is a chunk of the previous manifest unchanged, that chunk's index.
struct Cut {
    start: usize,
    end: usize,
    kept: Option<usize>,
}

/// Cuts the new manifest into chunks as its entries come, keeping the previous
/// manifest's chunks whose entries did not change (see the module doc).
struct Cutter<'a> {
    old: &'a [split::Chunk],
    /// The previous chunk looked at last.
    at: usize,
}

impl<'a> Cutter<'a> {
    fn new(previous: &'a Previous) -> Cutter<'a> {
        let old = if previous.is_split() {
            previous.chunks()
        } else {
            &[]
        };
        Cutter { old, at: 0 }
    }

    /// The chunk that starts at `start` in `window` (entries in path order; with
    /// `complete`, no entry follows them); `None` when none starts there or when
    /// the window ends before it is known where it ends.
    fn next(&mut self, window: &[Entry], start: usize, complete: bool) -> Option<Cut> {
        let path = window.get(start)?.path.as_str();
        let old = self.old;
        while self.at < old.len() && old[self.at].first.as_str() < path {
            self.at += 1;
        }
        // A chunk listing more entries than the rule allows was not cut by it (a root
        // from elsewhere): never kept, so the window always holds what a kept chunk needs.
        let keepable = |c: &&split::Chunk| {
            c.first == path && c.files > 0 && c.files <= split::MAX_ENTRIES as u64
        };
        if let Some(chunk) = old.get(self.at).filter(keepable) {
            let end = start + chunk.files as usize;
            let known = match old.get(self.at + 1) {
                _ if end > window.len() => complete,
                Some(_) => true,
                None => complete || end < window.len(),
            };
            if !known {
                return None;
            }
            let same = end <= window.len()
                && !window[start..end].iter().any(|e| e.fresh)
                && match old.get(self.at + 1) {
                    Some(next) => window[end - 1].path < next.first,
                    None => end == window.len() && complete,
                };
            if same {
                return Some(Cut {
                    start,
                    end,
                    kept: Some(self.at),
                });
            }
        }
        let end = match split::chunk_end_within(window, start, |e| &e.path) {
            Some(end) => end,
            None if complete => window.len(),
            None => return None,
        };
        Some(Cut {
            start,
            end,
            kept: None,
        })
    }
}

/// `s` as a JSON string, as serde_json writes it.
fn json_string(out: &mut Vec<u8>, s: &str) -> anyhow::Result<()> {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        serde_json::to_writer(&mut *out, s).context("serialising a manifest path")
    }
}

/// The entries as the `files` array's items (without the brackets), as serde_json
/// writes them.
fn entries_json(entries: &[Entry]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(entries.len() * 140);
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"path\":");
        json_string(&mut out, &e.path)?;
        write!(out, ",\"size\":{},\"sha256\":\"", e.size)?;
        push_hex(&mut out, &e.sha256);
        out.extend_from_slice(b"\"}");
    }
    Ok(out)
}

/// A manifest document (`{"files":[…]}`) around `body`.
fn document(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(OPEN.len() + body.len() + CLOSE.len());
    out.extend_from_slice(OPEN);
    out.extend_from_slice(body);
    out.extend_from_slice(CLOSE);
    out
}

/// The body of a manifest document (the `files` array's items, without brackets).
fn body_of(doc: &[u8]) -> &[u8] {
    &doc[OPEN.len()..doc.len() - CLOSE.len()]
}

/// The bytes of the previous tree's chunk document `chunk`, when they are whole: its
/// size and hash the root's, framed as a manifest document. `None` otherwise (the
/// chunk's entries are then serialised again).
fn kept_document(previous_root: &Path, chunk: &split::Chunk) -> Option<Vec<u8>> {
    let bytes = fs::read(previous_root.join(&chunk.path)).ok()?;
    let whole = bytes.len() as u64 == chunk.size
        && bytes.starts_with(OPEN)
        && bytes.len() >= OPEN.len() + CLOSE.len()
        && bytes.ends_with(CLOSE)
        && hex::encode(Sha256::digest(&bytes)) == chunk.sha256;
    whole.then_some(bytes)
}

/// Where the chunks' bodies start in the `manifest.json` already in a folder (each
/// offset with the chunk's hash), from the folder's own `manifest/root.json` (read
/// before it is replaced): a chunk with the same hash at the same offset in the new
/// document has the same bytes there.
struct Layout(HashMap<u64, String>);

impl Layout {
    /// None when the root cannot be read or does not give the document's length (then
    /// every byte is compared).
    fn read(folder: &Path) -> Option<Layout> {
        let frame = (OPEN.len() + CLOSE.len()) as u64;
        let old = fs::read(folder.join(split::ROOT))
            .ok()
            .and_then(|bytes| split::Root::parse(&bytes).ok())
            .filter(|r| r.chunks.iter().all(|c| c.size >= frame))?;
        let mut at = OPEN.len() as u64;
        let mut starts = HashMap::with_capacity(old.chunks.len());
        for c in old.chunks {
            let next = at + c.size - frame + 1;
            starts.insert(at, c.sha256);
            at = next;
        }
        let length = match starts.len() {
            0 => frame,
            _ => at - 1 + CLOSE.len() as u64,
        };
        let on_disk = fs::metadata(folder.join(MANIFEST)).map(|m| m.len()).ok();
        let listed = old.manifest.map(|m| m.size);
        (listed == Some(length) && on_disk == Some(length)).then_some(Layout(starts))
    }

    fn holds(&self, at: u64, sha256: &str) -> bool {
        self.0.get(&at).is_some_and(|s| s == sha256)
    }
}

/// `manifest.json` made of the chunks' bodies as they come, in chunk order: hashed,
/// and written piece by piece ([`Writer::open_pieces`]), never joined in memory; in a
/// file updated in place, a body the [`Layout`] places at its offset is not even read.
struct Full {
    pieces: Pieces,
    layout: Option<Layout>,
    hasher: Sha256,
    size: u64,
    bodies: usize,
}

impl Full {
    fn open(writer: &Writer) -> anyhow::Result<Full> {
        let mut pieces = writer.open_pieces(Path::new(MANIFEST))?;
        // Only a file updated in place has bodies that need not be read.
        let layout = pieces
            .in_place()
            .then(|| Layout::read(&writer.root))
            .flatten();
        pieces.push(OPEN, false)?;
        Ok(Full {
            pieces,
            layout,
            hasher: Sha256::new_with_prefix(OPEN),
            size: OPEN.len() as u64,
            bodies: 0,
        })
    }

    /// Appends the body of the chunk document `doc`, whose hash is `sha256`.
    fn push(&mut self, doc: &[u8], sha256: &str) -> anyhow::Result<()> {
        if self.bodies > 0 {
            self.pieces.push(b",", false)?;
            self.hasher.update(b",");
            self.size += 1;
        }
        let body = body_of(doc);
        let known = self
            .layout
            .as_ref()
            .is_some_and(|l| l.holds(self.size, sha256));
        self.pieces.push(body, known)?;
        self.hasher.update(body);
        self.size += body.len() as u64;
        self.bodies += 1;
        Ok(())
    }

    fn finish(mut self, writer: &Writer) -> anyhow::Result<ManifestEntry> {
        self.pieces.push(CLOSE, false)?;
        self.hasher.update(CLOSE);
        let size = self.size + CLOSE.len() as u64;
        self.pieces.finish(writer, size)?;
        Ok(ManifestEntry {
            path: MANIFEST.to_string(),
            size,
            sha256: hex::encode(self.hasher.finalize()),
        })
    }
}

/// Path → size and hash of the previous generation's manifest documents.
type Documents = HashMap<String, (u64, String)>;

fn was<'a>(old: &'a Documents, path: &str) -> Option<(u64, &'a str)> {
    old.get(path).map(|(size, sha)| (*size, sha.as_str()))
}

/// A chunk placed: its entry in the root, its document's bytes when `manifest.json`
/// is made of them, and whether this run wrote the document (else it was linked).
struct Placed {
    chunk: split::Chunk,
    doc: Option<Vec<u8>>,
    written: bool,
}

/// Places the document of the chunk `c`. A kept chunk's document is linked from the
/// previous tree; its bytes are read from there only when `bytes` asks (the
/// documents `manifest.json` is made of), and checked: one that is not whole there is
/// made again from its entries and written, not linked. A new chunk's entries are
/// serialised and hashed, the document linked when the previous tree has one of
/// that name (the same hash), else written.
fn place_chunk(
    writer: &Writer,
    files: &[Entry],
    c: &Cut,
    bytes: bool,
    old: &Documents,
) -> anyhow::Result<Placed> {
    let kept = c.kept.map(|i| &writer.previous.chunks()[i]);
    if let Some(chunk) = kept {
        let doc = bytes
            .then(|| kept_document(writer.previous_root()?, chunk))
            .flatten();
        let rel = Path::new(&chunk.path);
        if (!bytes || doc.is_some())
            && writer.link_document(rel, chunk.size, &chunk.sha256, was(old, &chunk.path))
        {
            let chunk = chunk.clone();
            return Ok(Placed {
                chunk,
                doc,
                written: false,
            });
        }
        if let Some(doc) = doc {
            writer.write_document(rel, &doc)?;
            let chunk = chunk.clone();
            return Ok(Placed {
                chunk,
                doc: Some(doc),
                written: true,
            });
        }
    }
    let decoded;
    let entries = match (c.start == c.end, c.kept) {
        // A live chunk kept whole, its document not placed as it is: its entries.
        (true, Some(i)) => {
            decoded = delta::live_entries(&writer.previous, i)?;
            &decoded[..]
        }
        _ => &files[c.start..c.end],
    };
    let doc = document(&entries_json(entries)?);
    let sha256 = sha256_hex(&doc);
    let chunk = split::Chunk {
        path: split::chunk_path(&sha256),
        first: entries[0].path.clone(),
        files: entries.len() as u64,
        bytes: entries.iter().map(|e| e.size).sum(),
        size: doc.len() as u64,
        sha256,
    };
    let rel = Path::new(&chunk.path);
    let linked = kept.is_none()
        && writer.link_document(rel, chunk.size, &chunk.sha256, was(old, &chunk.path));
    if !linked {
        writer.write_document(rel, &doc)?;
    }
    Ok(Placed {
        chunk,
        doc: bytes.then_some(doc),
        written: !linked,
    })
}

/// Chunks placed at once; with `manifest.json` made of their documents, at most three
/// such batches are held (one being made, one waiting, one being written).
const BATCH: usize = 32;

/// Entries held ahead of the chunks being cut: enough for a batch of them.
const WINDOW: usize = BATCH * split::MAX_ENTRIES + 1;

/// What a pass over the entries notes beside the manifest, one entry at a time in path
/// order: that no path comes twice, what each is to the previous generation (the
/// change lists), the folders holding them, the spare's own paths not among them.
struct Pass<'a> {
    /// What each entry is to the previous generation, when the entries do not say
    /// (a delta run's do).
    compare: Option<Compare<'a>>,
    /// A delta run's live files at the root of the tree, with their sizes.
    live_top: &'a [(String, u64)],
    found: Found,
    folders: verify::Folders,
    own: std::iter::Peekable<std::slice::Iter<'a, String>>,
    unlisted: Vec<String>,
    /// The last path seen.
    last: String,
    files: u64,
    bytes: u64,
}

impl<'a> Pass<'a> {
    fn new(writer: &'a Writer, source: &Source<'a>, own: &'a [String]) -> anyhow::Result<Pass<'a>> {
        let spill = writer.root.parent().unwrap_or(&writer.root);
        let (compare, live_top) = match *source {
            Source::Full(entries) => (Some(Compare::new(&writer.previous, entries)), &[][..]),
            Source::Delta { live_top, .. } => (None, live_top),
        };
        Ok(Pass {
            compare,
            live_top,
            found: Found::new(spill)?,
            folders: verify::Folders::default(),
            own: own.iter().peekable(),
            unlisted: Vec::new(),
            last: String::new(),
            files: 0,
            bytes: 0,
        })
    }

    fn see(&mut self, e: &Entry, change: Option<Change>) -> anyhow::Result<()> {
        if self.files > 0 && self.last == e.path {
            return Err(anyhow!("two answers map to one file: {}", e.path));
        }
        self.last.clear();
        self.last.push_str(&e.path);
        let change = match (change, &mut self.compare) {
            (Some(change), _) => change,
            (None, Some(compare)) => compare.next(e)?,
            (None, None) => return Err(anyhow!("{} compared with nothing", e.path)),
        };
        self.found.push(&e.path, change)?;
        self.folders.see(&e.path, e.size);
        while let Some(own) = self.own.next_if(|p| p.as_str() < e.path.as_str()) {
            self.unlisted.push(own.clone());
        }
        self.own.next_if(|p| **p == e.path);
        self.files += 1;
        self.bytes += e.size;
        Ok(())
    }

    /// The live chunk `chunk` kept whole (its paths run up to `end`, the next chunk's
    /// first): its entries are the live generation's, not looked at one by one.
    fn see_kept(&mut self, chunk: &split::Chunk, end: Option<&str>) {
        let within = |p: &str| p >= chunk.first.as_str() && end.is_none_or(|end| p < end);
        // The paths the folder holds beyond the live generation's are not listed.
        while let Some(own) = self.own.next_if(|p| end.is_none_or(|end| p.as_str() < end)) {
            self.unlisted.push(own.clone());
        }
        for (path, size) in self.live_top.iter().filter(|(p, _)| within(p)) {
            self.folders.see(path, *size);
        }
        self.last.clone_from(&chunk.first);
        self.files += chunk.files;
        self.bytes += chunk.bytes;
    }
}

/// Where a manifest's entries come from: every entry of the generation (each marked
/// [`fresh`](Entry::fresh) when the run wrote it), or a delta run's
/// ([`super::delta`]): the entries it handed on, the live paths it took out, and the
/// live generation's files at the root of the tree.
pub(super) enum Source<'a> {
    Full(&'a Sorted),
    Delta {
        delta: &'a Sorted,
        removed: &'a Sorted,
        live_top: &'a [(String, u64)],
    },
}

/// The entries of a [`Source`] in path order.
enum Items<'a> {
    Full(Stream<'a>),
    Merged(Box<Merged<'a>>),
}

impl Items<'_> {
    fn next(&mut self) -> anyhow::Result<Option<delta::Item>> {
        match self {
            Items::Full(stream) => Ok(stream
                .next()
                .transpose()?
                .map(|e| delta::Item::Entry(e, None))),
            Items::Merged(merged) => merged.next_item(),
        }
    }
}

/// What [`place_chunks`] placed: the root's chunk entries in order, the documents it
/// wrote, `manifest.json`'s entry when it was made of them, and whether every chunk
/// was the previous manifest's, in its order.
struct PlacedChunks {
    chunks: Vec<split::Chunk>,
    written: Vec<String>,
    full: Option<ManifestEntry>,
    all_kept: bool,
}

/// Every entry of `entries` seen by `pass` and every chunk's document placed, a batch
/// at a time in chunk order (the chunks of a batch in parallel) as the entries come;
/// with `full`, `manifest.json` made of their bodies on a thread of its own as each
/// batch is placed, so neither the entries nor the chunk documents are ever all held.
fn place_chunks(
    writer: &Writer,
    items: &mut Items<'_>,
    pass: &mut Pass<'_>,
    full: Option<Full>,
    old: &Documents,
) -> anyhow::Result<PlacedChunks> {
    let bytes = full.is_some();
    let mut cutter = Cutter::new(&writer.previous);
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel::<Vec<(Vec<u8>, String)>>(1);
        let joined = full.map(|mut full| {
            scope.spawn(move || {
                for batch in receive {
                    for (doc, sha256) in batch {
                        full.push(&doc, &sha256)?;
                    }
                }
                full.finish(writer)
            })
        });
        let mut placed = PlacedChunks {
            chunks: Vec::new(),
            written: Vec::new(),
            full: None,
            all_kept: true,
        };
        let mut window: Vec<Entry> = Vec::with_capacity(WINDOW);
        let mut complete = false;
        // A live chunk kept whole that comes next, once the window is cut.
        let mut token: Option<usize> = None;
        let failed = 'pass: loop {
            while !complete && token.is_none() && window.len() < WINDOW {
                match items.next() {
                    Ok(Some(delta::Item::Entry(e, change))) => match pass.see(&e, change) {
                        Ok(()) => window.push(e),
                        Err(e) => break 'pass Some(e),
                    },
                    Ok(Some(delta::Item::Kept(i))) => token = Some(i),
                    Ok(None) => complete = true,
                    Err(e) => break 'pass Some(e),
                }
            }
            let mut cuts = Vec::with_capacity(BATCH);
            let mut start = 0;
            while cuts.len() < BATCH {
                let Some(c) = cutter.next(&window, start, complete) else {
                    break;
                };
                start = c.end;
                cuts.push(c);
            }
            let mut expanded = false;
            if let (Some(i), true) = (token, cuts.len() < BATCH) {
                token = None;
                let taken = take_token(i, start, &mut window, &mut cuts, &mut cutter, pass, items);
                match taken {
                    Ok(more) => expanded = more,
                    Err(e) => break Some(e),
                }
            }
            if cuts.is_empty() {
                if expanded {
                    continue;
                }
                break (!complete || !window.is_empty())
                    .then(|| anyhow!("the manifest's entries could not be cut into chunks"));
            }
            let batch = cuts
                .par_iter()
                .map(|c| place_chunk(writer, &window, c, bytes, old))
                .collect::<anyhow::Result<Vec<Placed>>>();
            let batch = match batch {
                Ok(batch) => batch,
                Err(e) => break Some(e),
            };
            window.drain(..start);
            let mut docs = Vec::with_capacity(batch.len());
            for (p, c) in batch.into_iter().zip(&cuts) {
                placed.all_kept &= c.kept == Some(placed.chunks.len());
                if p.written {
                    placed.written.push(p.chunk.path.clone());
                }
                if let Some(doc) = p.doc {
                    docs.push((doc, p.chunk.sha256.clone()));
                }
                placed.chunks.push(p.chunk);
            }
            // The receiver is gone only when its thread failed: `join` says why.
            if bytes && send.send(docs).is_err() {
                break None;
            }
        };
        drop(send);
        let full = joined
            .map(|j| j.join().map_err(|_| anyhow!("writing {MANIFEST} failed")))
            .transpose()?;
        if let Some(e) = failed {
            return Err(e);
        }
        placed.full = full.transpose()?;
        placed.all_kept &= placed.chunks.len() == cutter.old.len();
        Ok(placed)
    })
}

/// The live chunk `i` a delta run kept whole ([`delta::Item::Kept`]), once the window
/// before it is cut as far as it can be (up to `start`): when the cuts end where it
/// starts, its cut is added to `cuts` and the pass told; else the chunk before it
/// runs into it, and its entries go to the window (seen by the pass) to be cut anew.
/// Whether entries were added.
fn take_token(
    i: usize,
    start: usize,
    window: &mut Vec<Entry>,
    cuts: &mut Vec<Cut>,
    cutter: &mut Cutter<'_>,
    pass: &mut Pass<'_>,
    items: &mut Items<'_>,
) -> anyhow::Result<bool> {
    let chunks = cutter.old;
    if start == window.len() {
        cutter.at = i;
        pass.see_kept(&chunks[i], chunks.get(i + 1).map(|c| c.first.as_str()));
        cuts.push(Cut {
            start,
            end: start,
            kept: Some(i),
        });
        return Ok(false);
    }
    let entries = match items {
        Items::Merged(merged) => merged.expand(i)?,
        Items::Full(_) => return Err(anyhow!("a kept chunk among every entry")),
    };
    for e in entries {
        pass.see(&e, Some(Change::Same))?;
        window.push(e);
    }
    Ok(true)
}

/// `manifest.json` made after its chunks were placed, of their documents as this
/// generation holds them.
fn full_from_chunks(writer: &Writer, chunks: &[split::Chunk]) -> anyhow::Result<ManifestEntry> {
    let mut full = Full::open(writer)?;
    for chunk in chunks {
        let path = writer.root.join(&chunk.path);
        let doc = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        if doc.len() as u64 != chunk.size || sha256_hex(&doc) != chunk.sha256 {
            return Err(anyhow!(
                "{} changed while the manifest was made",
                path.display()
            ));
        }
        full.push(&doc, &chunk.sha256)?;
    }
    full.finish(writer)
}

/// `manifest.json` of the chunks `placed`: the one they were made into as they were
/// placed, else the previous generation's when every chunk is its own (linked), else
/// made now of the chunk documents.
fn whole_manifest(
    writer: &Writer,
    placed: &mut PlacedChunks,
    old: &Documents,
) -> anyhow::Result<ManifestEntry> {
    if let Some(entry) = placed.full.take() {
        placed.written.push(MANIFEST.to_string());
        return Ok(entry);
    }
    let linked = was(old, MANIFEST).filter(|&(size, sha256)| {
        placed.all_kept
            && writer.link_document(Path::new(MANIFEST), size, sha256, Some((size, sha256)))
    });
    if let Some((size, sha256)) = linked {
        return Ok(ManifestEntry {
            path: MANIFEST.to_string(),
            size,
            sha256: sha256.to_string(),
        });
    }
    placed.written.push(MANIFEST.to_string());
    full_from_chunks(writer, &placed.chunks)
}

/// What [`write`] placed and found.
pub(super) struct Written {
    /// The manifest documents.
    pub documents: u64,
    /// The paths of the documents and change lists.
    pub paths: Vec<String>,
    /// Of them, those written with new bytes (the others were linked: their bytes
    /// were on disk before this run).
    pub written: Vec<String>,
    /// The tree's files, and their bytes.
    pub files: u64,
    pub bytes: u64,
    /// The previous generation's paths this one does not have.
    pub removed: Vec<String>,
    /// The paths of `own` this generation does not have.
    pub unlisted: Vec<String>,
    /// The folders holding the files, and the files at the root with their sizes
    /// ([`verify::folders_of`]).
    pub folders: Vec<String>,
    pub top: Vec<(String, u64)>,
}

/// Writes the manifest documents and change lists of a generation holding the entries
/// of `source`, in one pass over them; `own` (sorted) are paths the folder may hold
/// beyond them, those it does not list are returned. With `whole`, `manifest.json`
/// too; without it, the chunks are the manifest: a kept chunk's document is linked
/// and never read, and a `manifest.json` the folder holds (the spare's) is removed.
pub(super) fn write(
    writer: &Writer,
    source: Source,
    own: &[String],
    whole: bool,
) -> anyhow::Result<Written> {
    let previous = &writer.previous;
    let old = split::documents_by_path(writer.previous_root());
    let mut pass = Pass::new(writer, &source, own)?;
    // Every entry the previous generation's own and as many: every chunk is likely
    // the previous one, `manifest.json` too, linked without any chunk being read.
    // Else it is made of the chunks as they are placed.
    let previous_files: u64 = previous.chunks().iter().map(|c| c.files).sum();
    let (likely_same, mut items) = match source {
        Source::Full(entries) => (
            entries.fresh() == 0 && entries.len() == previous_files,
            Items::Full(entries.stream()?),
        ),
        Source::Delta { delta, removed, .. } => (
            delta.fresh() == 0 && removed.len() <= delta.len(),
            Items::Merged(Box::new(Merged::new(previous, delta, removed, own)?)),
        ),
    };
    let full = match whole && !(previous.is_split() && likely_same) {
        true => Some(Full::open(writer)?),
        false => None,
    };
    let mut placed = place_chunks(writer, &mut items, &mut pass, full, &old)?;
    let Pass {
        compare,
        found,
        folders,
        mut own,
        mut unlisted,
        files,
        bytes,
        ..
    } = pass;
    unlisted.extend(own.by_ref().cloned());
    let removed = match (items, compare) {
        (Items::Merged(merged), _) => merged.gone,
        (Items::Full(_), Some(compare)) => compare.finish()?,
        (Items::Full(_), None) => Vec::new(),
    };
    let manifest = match whole {
        true => Some(whole_manifest(writer, &mut placed, &old)?),
        false => {
            // The spare's own `manifest.json`, which this generation does not have.
            writer.clear(&writer.root.join(MANIFEST))?;
            None
        }
    };
    let root = split::Root {
        format: split::FORMAT.to_string(),
        files,
        bytes,
        manifest,
        chunks: placed.chunks,
    };
    let mut written = placed.written;
    let root_bytes = serde_json::to_vec(&root).context("serialising the manifest root")?;
    let root_entry = ManifestEntry {
        path: split::ROOT.to_string(),
        size: root_bytes.len() as u64,
        sha256: sha256_hex(&root_bytes),
    };
    let (size, sha256) = (root_entry.size, root_entry.sha256.as_str());
    if writer.put_document(
        Path::new(split::ROOT),
        size,
        sha256,
        was(&old, split::ROOT),
        || Ok(root_bytes),
    )? {
        written.push(split::ROOT.to_string());
    }
    // The documents, sorted by path, as they are listed among the changes.
    let mut documents: Vec<ManifestEntry> = root
        .chunks
        .iter()
        .map(|c| ManifestEntry {
            path: c.path.clone(),
            size: c.size,
            sha256: c.sha256.clone(),
        })
        .collect();
    documents.extend(root.manifest.into_iter().chain([root_entry]));
    documents.sort_by(|a, b| a.path.cmp(&b.path));
    let mut paths: Vec<String> = documents.iter().map(|d| d.path.clone()).collect();
    let changes = Changes::between(&documents, &old);
    let lists = change_lists::write(writer, found, &removed, changes)?;
    written.extend(lists.iter().cloned());
    paths.extend(lists);
    let (folders, top) = folders.finish();
    Ok(Written {
        documents: documents.len() as u64,
        paths,
        written,
        files,
        bytes,
        removed,
        unlisted,
        folders,
        top,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_written_as_serde_json_writes_them() {
        let entries = vec![
            Entry {
                path: "api/v0/issues/index@page=2&state=open.json".to_string(),
                size: 12_345,
                sha256: Sha256::digest(b"a").into(),
                fresh: true,
            },
            Entry {
                path: "odd/\"quoted\"\\back\u{1}\n\u{7f}é.json".to_string(),
                size: 0,
                sha256: Sha256::digest(b"b").into(),
                fresh: false,
            },
        ];
        let listed: Vec<ManifestEntry> = entries
            .iter()
            .map(|e| ManifestEntry {
                path: e.path.clone(),
                size: e.size,
                sha256: e.hex(),
            })
            .collect();
        let expected = crate::manifest::full_manifest(&listed).unwrap();
        assert_eq!(document(&entries_json(&entries).unwrap()), expected);
        assert_eq!(document(&entries_json(&[]).unwrap()), br#"{"files":[]}"#);
    }

    #[test]
    fn chunks_at_the_same_offset_with_the_same_hash_are_known_to_be_in_place() {
        let (dir, _) = super::super::previous::published_tree(6000);
        let root = split::Root::parse(&fs::read(dir.path().join(split::ROOT)).unwrap()).unwrap();
        assert!(root.chunks.len() >= 3, "{} chunks", root.chunks.len());
        let same: Vec<(&str, u64)> = root
            .chunks
            .iter()
            .map(|c| (c.sha256.as_str(), c.size))
            .collect();
        // Which chunks of a new document made of `chunks` the layout holds in place.
        let bodies = |chunks: &[(&str, u64)]| -> Vec<bool> {
            let Some(layout) = Layout::read(dir.path()) else {
                return vec![false; chunks.len()];
            };
            let mut at = OPEN.len() as u64;
            let frame = (OPEN.len() + CLOSE.len()) as u64;
            chunks
                .iter()
                .map(|(sha256, size)| {
                    let known = layout.holds(at, sha256);
                    at += size - frame + 1;
                    known
                })
                .collect()
        };
        assert!(bodies(&same).iter().all(|k| *k));
        // Another second chunk of the same size: it is not known, the others still are.
        let mut other = same.clone();
        let other_sha = "0".repeat(64);
        other[1].0 = &other_sha;
        let known = bodies(&other);
        assert_eq!(known.iter().filter(|k| !**k).count(), 1);
        assert!(!known[1]);
        // A first chunk one byte longer moves every later chunk.
        let mut longer = same.clone();
        longer[0].1 += 1;
        let known = bodies(&longer);
        assert_eq!(known.iter().filter(|k| **k).count(), 1);
        // A document whose length is not the one its root gives: nothing known.
        let full = dir.path().join(MANIFEST);
        let mut bytes = fs::read(&full).unwrap();
        bytes.push(b' ');
        fs::write(&full, bytes).unwrap();
        assert!(!bodies(&same).contains(&true));
        assert!(Layout::read(&dir.path().join("nothing")).is_none());
    }
}
