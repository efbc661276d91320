//! A file of the new generation as a run carries it from the units to the manifest:
//! a [`ManifestEntry`] whose SHA-256 is its 32 bytes rather than 64 hex digits. A run
//! carries one per file of the tree (over a million at the largest scales), most of
//! them decoded from unit records, which hold the bytes: so a hash is neither an
//! allocation of its own nor turned into hex and back; it is written as hex only
//! into the manifest documents.

use crate::manifest::ManifestEntry;

/// One file of the new generation: its path in the tree, its size and SHA-256, and
/// whether this run wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Entry {
    pub path: String,
    pub size: u64,
    pub sha256: [u8; 32],
    /// Written by this run with new bytes (*fresh*, for the manifest and the change
    /// lists); every other entry is the previous generation's. A flag in the entry
    /// rather than a list of the paths written beside the entries: a full run writes
    /// every file.
    pub fresh: bool,
}

impl Entry {
    /// The entry of a manifest's file; `None` when its hash is not 64 hex digits.
    pub(super) fn of(e: &ManifestEntry) -> Option<Entry> {
        Some(Entry {
            path: e.path.clone(),
            size: e.size,
            sha256: bytes_of_hex(&e.sha256)?,
            fresh: false,
        })
    }

    /// Whether `e` lists the same size and hash.
    pub(super) fn same_file(&self, e: &ManifestEntry) -> bool {
        self.size == e.size && bytes_of_hex(&e.sha256) == Some(self.sha256)
    }

    /// The hash in lower-case hex, as manifests write it.
    #[cfg(test)]
    pub(super) fn hex(&self) -> String {
        hex::encode(self.sha256)
    }
}

/// Appends the lower-case hex of `bytes` to `out` (what `hex::encode` gives), with
/// no `String` of its own.
pub(super) fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    out.resize(start + bytes.len() * 2, 0);
    // The slice is exactly twice as long as the bytes: nothing to fail.
    let _ = hex::encode_to_slice(bytes, &mut out[start..]);
}

/// The 32 bytes of a SHA-256 written in hex (either case); `None` for anything else.
pub(super) fn bytes_of_hex(text: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(text, &mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    #[test]
    fn hashes_are_written_and_read_as_the_hex_crate_does() {
        for seed in [&b""[..], b"a", b"roost"] {
            let sha = Sha256::digest(seed);
            let mut out = b"x".to_vec();
            push_hex(&mut out, &sha);
            assert_eq!(out, [&b"x"[..], hex::encode(sha).as_bytes()].concat());
            assert_eq!(bytes_of_hex(&hex::encode(sha)), Some(sha.into()));
            assert_eq!(
                bytes_of_hex(&hex::encode(sha).to_uppercase()),
                Some(sha.into())
            );
        }
        assert_eq!(bytes_of_hex("ab"), None, "too short");
        assert_eq!(bytes_of_hex(&"g".repeat(64)), None, "not hex");
    }

    #[test]
    fn an_entry_is_its_manifest_entry() {
        let m = ManifestEntry {
            path: "api/v0/index.json".to_string(),
            size: 12,
            sha256: hex::encode(Sha256::digest(b"x")),
        };
        let e = Entry::of(&m).unwrap();
        assert_eq!(
            (e.path.as_str(), e.size, e.hex()),
            (m.path.as_str(), 12, m.sha256.clone())
        );
        assert!(e.same_file(&m));
        assert!(!e.same_file(&ManifestEntry {
            size: 13,
            ..m.clone()
        }));
        let other = ManifestEntry {
            sha256: hex::encode(Sha256::digest(b"y")),
            ..m.clone()
        };
        assert!(!e.same_file(&other));
        assert_eq!(
            Entry::of(&ManifestEntry {
                sha256: "zz".into(),
                ..m
            }),
            None
        );
    }
}
