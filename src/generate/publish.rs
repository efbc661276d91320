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
//!   ([`Previous::missing_from`]).
//!
//! The documents are byte for byte those [`crate::manifest::publish`] makes from the
//! same entries (a test compares them).

use std::fs;
use std::io::Write as _;
use std::path::Path;

use anyhow::Context;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::manifest::{sha256_hex, split, Changes, ManifestEntry, MANIFEST};

use super::entry::{push_hex, Entry};
use super::previous::Previous;
use super::write::Writer;

const OPEN: &[u8] = b"{\"files\":[";
const CLOSE: &[u8] = b"]}";

/// One chunk of the new manifest: its entries (a range of the sorted entries) and,
/// when it is a chunk of the previous manifest unchanged, that chunk's index.
struct Cut {
    start: usize,
    end: usize,
    kept: Option<usize>,
}

/// The chunks of `files` (sorted by path), keeping the previous manifest's chunks
/// whose entries did not change (see the module doc).
fn cut(files: &[Entry], previous: &Previous) -> Vec<Cut> {
    let old = if previous.is_split() {
        previous.chunks()
    } else {
        &[]
    };
    let mut cuts = Vec::new();
    let (mut start, mut at) = (0, 0);
    while start < files.len() {
        let path = files[start].path.as_str();
        while at < old.len() && old[at].first.as_str() < path {
            at += 1;
        }
        if let Some(chunk) = old.get(at).filter(|c| c.first == path && c.files > 0) {
            let end = start + chunk.files as usize;
            let same = end <= files.len()
                && !files[start..end].iter().any(|e| e.fresh)
                && match old.get(at + 1) {
                    Some(next) => files[end - 1].path < next.first,
                    None => end == files.len(),
                };
            if same {
                cuts.push(Cut {
                    start,
                    end,
                    kept: Some(at),
                });
                start = end;
                continue;
            }
        }
        let end = split::chunk_end_by(files, start, |e| &e.path);
        cuts.push(Cut {
            start,
            end,
            kept: None,
        });
        start = end;
    }
    cuts
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

/// The chunks' hashes and sizes, in order.
fn chunks_of_pieces(chunks: &[split::Chunk]) -> Vec<(&str, u64)> {
    chunks.iter().map(|c| (c.sha256.as_str(), c.size)).collect()
}

/// Which pieces of a new `manifest.json` made of the chunks `new` (their hashes and
/// sizes; the pieces are OPEN, each chunk's body with a comma between, CLOSE) the
/// `manifest.json` already in `folder` holds at the same offset: the folder's own
/// `manifest/root.json` (read before it is replaced) lists the chunks that document
/// was made of, and a chunk with the same hash at the same offset has the same
/// bytes. None known when the root cannot be read or does not give the document's
/// length (then every byte is compared).
fn known_pieces(folder: &Path, new: &[(&str, u64)]) -> Vec<bool> {
    let mut known = vec![false; 2 * new.len() + 2];
    let frame = (OPEN.len() + CLOSE.len()) as u64;
    let old = fs::read(folder.join(split::ROOT))
        .ok()
        .and_then(|bytes| split::Root::parse(&bytes).ok());
    let Some(old) = old.filter(|r| r.chunks.iter().all(|c| c.size >= frame)) else {
        return known;
    };
    // Where each chunk's body starts in the document in the folder.
    let mut at = OPEN.len() as u64;
    let mut starts = std::collections::HashMap::with_capacity(old.chunks.len());
    for c in &old.chunks {
        starts.insert(at, c.sha256.as_str());
        at += c.size - frame + 1;
    }
    let length = match old.chunks.len() {
        0 => frame,
        _ => at - 1 + CLOSE.len() as u64,
    };
    let on_disk = fs::metadata(folder.join(MANIFEST)).map(|m| m.len()).ok();
    if length != old.manifest.size || on_disk != Some(length) {
        return known;
    }
    let mut at = OPEN.len() as u64;
    for (i, (sha256, size)) in new.iter().enumerate() {
        known[1 + 2 * i] = starts.get(&at) == Some(sha256);
        at += size - frame.min(*size) + 1;
    }
    known
}

/// The `count` chunk documents received (each with its index, in any order), in
/// order, with the length and SHA-256 of `manifest.json` made of their bodies: each
/// body hashed as soon as those before it are. Fewer documents when the sender stops
/// early (a chunk failed; the caller reports that).
fn join_in_order(
    receive: &std::sync::mpsc::Receiver<(usize, Vec<u8>)>,
    count: usize,
) -> (Vec<Vec<u8>>, usize, String) {
    let mut waiting: Vec<Option<Vec<u8>>> = vec![None; count];
    let mut docs = Vec::with_capacity(count);
    let mut hasher = Sha256::new();
    hasher.update(OPEN);
    let mut size = OPEN.len() + CLOSE.len();
    while docs.len() < count {
        let Ok((i, bytes)) = receive.recv() else {
            break;
        };
        waiting[i] = Some(bytes);
        while let Some(doc) = waiting.get_mut(docs.len()).and_then(Option::take) {
            if !docs.is_empty() {
                hasher.update(b",");
                size += 1;
            }
            let body = body_of(&doc);
            hasher.update(body);
            size += body.len();
            docs.push(doc);
        }
    }
    hasher.update(CLOSE);
    (docs, size, hex::encode(hasher.finalize()))
}

/// What [`write`] placed.
pub(super) struct Written {
    /// The manifest documents.
    pub documents: u64,
    /// The paths of the documents and change lists.
    pub paths: Vec<String>,
    /// Of them, those written with new bytes (the others were linked: their bytes
    /// were on disk before this run).
    pub written: Vec<String>,
}

/// A chunk's document, and its SHA-256 when this run made it (none for a kept
/// chunk's document, read from the previous tree).
type ChunkDocument = (Vec<u8>, Option<String>);

/// Each chunk's document, in parallel: a kept chunk's bytes read from the previous
/// tree (and checked against its hash), a new one's entries serialised and hashed.
/// `manifest.json` is made of their bodies: hashed in order on a thread of its own as
/// the documents come, rather than after them all. Returns the documents in chunk
/// order, and the length and SHA-256 of `manifest.json`.
fn chunk_documents(
    writer: &Writer,
    files: &[Entry],
    cuts: &[Cut],
) -> anyhow::Result<(Vec<ChunkDocument>, usize, String)> {
    let previous = &writer.previous;
    let (docs, made, full_size, full_sha) = std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::channel();
        let count = cuts.len();
        let joined = scope.spawn(move || join_in_order(&receive, count));
        let made = cuts
            .par_iter()
            .enumerate()
            .map_with(send, |send, (i, c)| {
                let kept = c
                    .kept
                    .and_then(|i| kept_document(writer.previous_root()?, &previous.chunks()[i]));
                let (bytes, made) = match kept {
                    Some(bytes) => (bytes, None),
                    None => {
                        let bytes = document(&entries_json(&files[c.start..c.end])?);
                        let sha256 = sha256_hex(&bytes);
                        (bytes, Some(sha256))
                    }
                };
                // The receiver is gone only when its thread failed: `join` says so.
                let _ = send.send((i, bytes));
                Ok(made)
            })
            .collect::<anyhow::Result<Vec<Option<String>>>>();
        let (docs, size, sha) = joined
            .join()
            .map_err(|_| anyhow::anyhow!("hashing {MANIFEST} failed"))?;
        anyhow::Ok((docs, made?, size, sha))
    })?;
    Ok((docs.into_iter().zip(made).collect(), full_size, full_sha))
}

/// The manifest's root document: the previous manifest's entry of each kept chunk,
/// a new entry for each chunk made again, and `manifest.json`'s length and hash.
fn manifest_root(
    files: &[Entry],
    previous: &Previous,
    cuts: &[Cut],
    docs: &[ChunkDocument],
    manifest: ManifestEntry,
) -> split::Root {
    let chunks: Vec<split::Chunk> = cuts
        .iter()
        .zip(docs)
        .map(|(c, (bytes, made))| match (c.kept, made) {
            (Some(i), None) => previous.chunks()[i].clone(),
            (_, Some(sha256)) => split::Chunk {
                path: split::chunk_path(sha256),
                first: files[c.start].path.clone(),
                files: (c.end - c.start) as u64,
                bytes: files[c.start..c.end].iter().map(|e| e.size).sum(),
                size: bytes.len() as u64,
                sha256: sha256.clone(),
            },
            (None, None) => unreachable!("a chunk read from the previous tree is kept"),
        })
        .collect();
    split::Root {
        format: split::FORMAT.to_string(),
        files: files.len() as u64,
        bytes: files.iter().map(|e| e.size).sum(),
        manifest,
        chunks,
    }
}

/// Writes the manifest documents and change lists of a generation holding `files`
/// (sorted by path, each marked [`fresh`](Entry::fresh) when the run wrote it), whose
/// previous generation
/// listed the paths `removed` that it no longer has.
// Long because the documents are written in one pass after they are all made: the
// change lists name them, and `manifest.json`'s pieces are linked or written against
// the chunks the root lists; making each is a function of its own above.
pub(super) fn write(
    writer: &Writer,
    files: &[Entry],
    removed: Vec<String>,
) -> anyhow::Result<Written> {
    let previous = &writer.previous;
    let cuts = cut(files, previous);
    let (docs, full_size, full_sha) = chunk_documents(writer, files, &cuts)?;
    let mut pieces: Vec<&[u8]> = Vec::with_capacity(docs.len() * 2 + 2);
    pieces.push(OPEN);
    for (i, (doc, _)) in docs.iter().enumerate() {
        if i > 0 {
            pieces.push(b",");
        }
        pieces.push(body_of(doc));
    }
    pieces.push(CLOSE);
    let manifest = ManifestEntry {
        path: MANIFEST.to_string(),
        size: full_size as u64,
        sha256: full_sha,
    };
    let root = manifest_root(files, previous, &cuts, &docs, manifest.clone());
    let root_bytes = serde_json::to_vec(&root).context("serialising the manifest root")?;

    // What changed: the fresh entries the previous generation did not have as they
    // are, the paths it had that are gone, and the manifest documents.
    let mut changes = Changes {
        removed,
        ..Changes::default()
    };
    for e in files.iter().filter(|e| e.fresh) {
        match previous.get(&e.path) {
            None => changes.added.push(e.path.clone()),
            Some(was) if !e.same_file(was) => changes.changed.push(e.path.clone()),
            Some(_) => {}
        }
    }
    let old_documents = split::documents_by_path(writer.previous_root());
    let mut new_documents: Vec<ManifestEntry> = vec![
        manifest,
        ManifestEntry {
            path: split::ROOT.to_string(),
            size: root_bytes.len() as u64,
            sha256: sha256_hex(&root_bytes),
        },
    ];
    new_documents.extend(root.chunks.iter().map(|c| ManifestEntry {
        path: c.path.clone(),
        size: c.size,
        sha256: c.sha256.clone(),
    }));
    let mut sorted = new_documents.clone();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    changes.merge(Changes::between(&sorted, &old_documents));

    // The documents: unchanged ones linked from the previous tree.
    let was = |path: &str| {
        old_documents
            .get(path)
            .map(|(size, sha)| (*size, sha.as_str()))
    };
    let mut paths = Vec::with_capacity(new_documents.len() + 4);
    let mut written = Vec::new();
    let full_entry = &new_documents[0];
    let known = known_pieces(&writer.root, &chunks_of_pieces(&root.chunks));
    if writer.put_pieces(
        Path::new(&full_entry.path),
        full_entry.size,
        &full_entry.sha256,
        was(&full_entry.path),
        &pieces,
        &known,
    )? {
        written.push(full_entry.path.clone());
    }
    paths.push(full_entry.path.clone());
    drop(pieces);
    let mut root_bytes = Some(root_bytes);
    let mut chunk_docs = cuts.iter().zip(docs);
    for (i, doc) in new_documents.iter().enumerate().skip(1) {
        // A kept chunk whose document in the previous tree is not whole was made
        // again: written, not linked.
        let (bytes, torn) = match i {
            1 => (root_bytes.take(), false),
            _ => match chunk_docs.next() {
                Some((c, (bytes, made))) => (Some(bytes), c.kept.is_some() && made.is_some()),
                None => (None, false),
            },
        };
        let previous = if torn { None } else { was(&doc.path) };
        if writer.put_document(
            Path::new(&doc.path),
            doc.size,
            &doc.sha256,
            previous,
            || Ok(bytes.unwrap_or_default()),
        )? {
            written.push(doc.path.clone());
        }
        paths.push(doc.path.clone());
    }
    for (path, bytes) in changes.documents() {
        let target = writer.root.join(&path);
        writer.ensure_parent(&target)?;
        // A new file, also where the folder is a spare being updated.
        let _ = fs::remove_file(&target);
        fs::write(&target, bytes).with_context(|| format!("writing {}", target.display()))?;
        written.push(path.clone());
        paths.push(path);
    }
    Ok(Written {
        documents: new_documents.len() as u64,
        paths,
        written,
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
    fn chunk_documents_arriving_in_any_order_are_joined_and_hashed_in_order() {
        let docs: Vec<Vec<u8>> = (0..5)
            .map(|i| document(format!("{{\"n\":{i}}}").as_bytes()))
            .collect();
        let (send, receive) = std::sync::mpsc::channel();
        for i in [3, 0, 4, 1, 2] {
            send.send((i, docs[i].clone())).unwrap();
        }
        let (joined, size, sha) = join_in_order(&receive, docs.len());
        assert_eq!(joined, docs);
        let bodies: Vec<&[u8]> = docs.iter().map(|d| body_of(d)).collect();
        let whole = document(&bodies.join(&b","[..]));
        assert_eq!((size, sha), (whole.len(), sha256_hex(&whole)));
        // A sender that stops early: the documents before the first missing one.
        let (send, receive) = std::sync::mpsc::channel();
        send.send((1, docs[1].clone())).unwrap();
        send.send((0, docs[0].clone())).unwrap();
        send.send((3, docs[3].clone())).unwrap();
        drop(send);
        assert_eq!(join_in_order(&receive, docs.len()).0, docs[..2]);
    }

    #[test]
    fn chunks_at_the_same_offset_with_the_same_hash_are_known_to_be_in_place() {
        let files: Vec<ManifestEntry> = (0..6000)
            .map(|i| ManifestEntry {
                path: format!("api/v0/items/{i:05}.json"),
                size: i,
                sha256: sha256_hex(&i.to_le_bytes()),
            })
            .collect();
        let published = crate::manifest::publish(&files, &Default::default(), None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for (path, bytes) in &published.documents {
            let target = dir.path().join(path);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::write(target, bytes).unwrap();
        }
        let root = split::Root::parse(&fs::read(dir.path().join(split::ROOT)).unwrap()).unwrap();
        assert!(root.chunks.len() >= 3, "{} chunks", root.chunks.len());
        let same = chunks_of_pieces(&root.chunks);
        let bodies = |known: &[bool]| -> Vec<bool> {
            (0..root.chunks.len()).map(|i| known[1 + 2 * i]).collect()
        };
        assert!(bodies(&known_pieces(dir.path(), &same)).iter().all(|k| *k));
        // Another second chunk of the same size: it is not known, the others still are.
        let mut other = same.clone();
        let other_sha = "0".repeat(64);
        other[1].0 = &other_sha;
        let known = bodies(&known_pieces(dir.path(), &other));
        assert_eq!(known.iter().filter(|k| !**k).count(), 1);
        assert!(!known[1]);
        // A first chunk one byte longer moves every later chunk.
        let mut longer = same.clone();
        longer[0].1 += 1;
        let known = bodies(&known_pieces(dir.path(), &longer));
        assert_eq!(known.iter().filter(|k| **k).count(), 1);
        // A document whose length is not the one its root gives: nothing known.
        let full = dir.path().join(MANIFEST);
        let mut bytes = fs::read(&full).unwrap();
        bytes.push(b' ');
        fs::write(&full, bytes).unwrap();
        assert!(!known_pieces(dir.path(), &same).contains(&true));
        assert!(!known_pieces(&dir.path().join("nothing"), &same).contains(&true));
    }
}
