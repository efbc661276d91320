//! Texts kept per row id, packed: the release authors' cards and the repositories'
//! texts of a dataset file's facts ([`super::Totals`]).
//!
//! A row's few texts are a few dozen bytes. Kept as a boxed slice each, in a hash map
//! by id, they cost an allocation per text and the map's slots: 266 bytes a release
//! author and 240 a repository at `10x`, 61 MB of a `serve`'s memory there. Packed,
//! a row costs its bytes, a length per text and its id's place in a sorted index, and
//! is found by a binary search.

/// `N` texts per row id, packed in one run of bytes. Each row is pushed once, then
/// the whole is [`Packed::sorted`] before it is read.
#[derive(Debug)]
pub struct Packed<const N: usize> {
    /// Row ids, sorted once pushed, each with where its texts start in `bytes`.
    index: Vec<(i64, usize)>,
    /// Each row's texts, each after its length (4 bytes, little-endian).
    bytes: Vec<u8>,
}

impl<const N: usize> Default for Packed<N> {
    fn default() -> Self {
        Packed {
            index: Vec::new(),
            bytes: Vec::new(),
        }
    }
}

impl<const N: usize> Packed<N> {
    /// Adds the texts of the row `id`. A text is at most 4 GiB (SQLite's are under 2).
    pub fn push(&mut self, id: i64, texts: [&[u8]; N]) {
        self.index.push((id, self.bytes.len()));
        for text in texts {
            let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
            self.bytes.extend_from_slice(&len.to_le_bytes());
            self.bytes.extend_from_slice(&text[..len as usize]);
        }
    }

    /// The rows pushed, sorted by id for [`Packed::get`], without spare capacity.
    pub fn sorted(mut self) -> Self {
        self.index.sort_unstable_by_key(|&(id, _)| id);
        self.index.shrink_to_fit();
        self.bytes.shrink_to_fit();
        self
    }

    /// The texts of the row `id`, in the order pushed.
    pub fn get(&self, id: i64) -> Option<[&[u8]; N]> {
        let i = self.index.binary_search_by_key(&id, |&(id, _)| id).ok()?;
        let mut at = self.index[i].1;
        let mut texts = [&[][..]; N];
        for text in &mut texts {
            let len = self.bytes.get(at..at + 4)?;
            let len = u32::from_le_bytes(len.try_into().ok()?) as usize;
            *text = self.bytes.get(at + 4..at + 4 + len)?;
            at += 4 + len;
        }
        Some(texts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rows_texts_are_found_by_its_id_whatever_the_order_pushed() {
        let mut packed = Packed::<3>::default();
        packed.push(30, [b"c", b"", "é\"x".as_bytes()]);
        packed.push(-5, [b"login", b"name", b"https://a/1"]);
        packed.push(7, [&[0xff, 0xfe], b"two", b"three"]);
        let packed = packed.sorted();
        assert_eq!(packed.get(30), Some([&b"c"[..], b"", "é\"x".as_bytes()]));
        assert_eq!(
            packed.get(-5),
            Some([&b"login"[..], b"name", b"https://a/1"])
        );
        assert_eq!(packed.get(7), Some([&[0xff, 0xfe][..], b"two", b"three"]));
        assert_eq!(packed.get(8), None);
        assert!(Packed::<2>::default().sorted().get(0).is_none());
    }
}
