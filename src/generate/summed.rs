//! Files closed by a checksum of every byte before it, written as they are encoded
//! (the dataset's digests record, the bases of the file keys): a reader tells a torn
//! or damaged file from a whole one. XXH3-128: a guard against damage, not a forger.

use std::io::Write;

use xxhash_rust::xxh3::Xxh3;

/// A writer that hashes what goes through it; [`Summed::finish`] appends the
/// checksum (16 bytes, little-endian).
pub(super) struct Summed<W> {
    out: W,
    hasher: Xxh3,
}

impl<W: Write> Summed<W> {
    pub(super) fn new(out: W) -> Summed<W> {
        Summed {
            out,
            hasher: Xxh3::new(),
        }
    }

    /// The checksum of everything written, written after it; the writer flushed.
    pub(super) fn finish(self) -> std::io::Result<W> {
        self.finish_with_sum().map(|(out, _)| out)
    }

    /// Like [`Self::finish`], with the checksum.
    pub(super) fn finish_with_sum(mut self) -> std::io::Result<(W, u128)> {
        let sum = self.hasher.digest128();
        self.out.write_all(&sum.to_le_bytes())?;
        self.out.flush()?;
        Ok((self.out, sum))
    }
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Writes `items` to `w` in pieces of 64 KiB: a write an item would cost more than
/// the item.
pub(super) fn write_in_pieces<const N: usize>(
    w: &mut impl Write,
    items: impl Iterator<Item = [u8; N]>,
) -> std::io::Result<()> {
    let mut piece = Vec::with_capacity(1 << 16);
    for item in items {
        piece.extend_from_slice(&item);
        if piece.len() >= 1 << 16 {
            w.write_all(&piece)?;
            piece.clear();
        }
    }
    w.write_all(&piece)
}
