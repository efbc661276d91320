//! JSON strings written byte for byte as serde_json writes them, for the answers
//! GraphQL writes directly ([`super::plain`], [`super::rows`], [`super::totals`]):
//! a leaf, so the writers and the facts they read can share it.

/// Writes `s` as a JSON string, escaped byte for byte as serde_json escapes it (the
/// bytes async-graphql's values serialise to): `"`, `\` and the control characters,
/// in their short form where JSON has one. Eight bytes at a time are checked for one
/// that needs escaping, as most texts have none.
pub(crate) fn string(s: &str, out: &mut Vec<u8>) {
    // Text that is a `str` is UTF-8: nothing to check, so nothing fails.
    let _ = escape(s.as_bytes(), true, out);
}

/// Writes `bytes`, text as SQLite holds it, as [`string`] writes it, or fails when it
/// is not UTF-8 (as reading it into a `String` does). The check rides on the escaping's
/// eight bytes at a time: a word without a byte above 0x7F is ASCII, and the rest of
/// the text is checked from the first byte that is not.
pub(crate) fn text(bytes: &[u8], out: &mut Vec<u8>) -> Result<(), std::str::Utf8Error> {
    escape(bytes, false, out)
}

fn escape(bytes: &[u8], mut checked: bool, out: &mut Vec<u8>) -> Result<(), std::str::Utf8Error> {
    const HIGH: u64 = u64::MAX / 255 * 0x80;
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        // Fewer than eight bytes left: the last eight of the text (bytes before `at`
        // checked again), or those left padded with spaces in a shorter text.
        let word = match bytes.get(at..at + 8) {
            Some(word) => word.try_into().unwrap_or_default(),
            None => match bytes.len().checked_sub(8) {
                Some(last) => bytes[last..].try_into().unwrap_or_default(),
                None => {
                    let mut word = [b' '; 8];
                    word[..bytes.len() - at].copy_from_slice(&bytes[at..]);
                    word
                }
            },
        };
        let word = u64::from_le_bytes(word);
        if !any_to_escape(word) && (checked || word & HIGH == 0) {
            at = (at + 8).min(bytes.len());
            continue;
        }
        let b = bytes[at];
        if !checked && b > 0x7F {
            // Every byte before `at` is ASCII, so `at` starts a character.
            std::str::from_utf8(&bytes[at..])?;
            checked = true;
        }
        let short = match b {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            0x08 => Some(b'b'),
            0x0C => Some(b'f'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            _ => None,
        };
        if short.is_some() || b < 0x20 {
            out.extend_from_slice(&bytes[start..at]);
            match short {
                Some(c) => out.extend_from_slice(&[b'\\', c]),
                None => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(b"\\u00");
                    out.extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]]);
                }
            }
            start = at + 1;
        }
        at += 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
    Ok(())
}

/// Whether one of the eight bytes of `word` is below 0x20, `"` or `\` (the exact
/// tests of "Bit Twiddling Hacks": "determine if a word has a byte less than n").
fn any_to_escape(word: u64) -> bool {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES * 0x80;
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH != 0;
    below(word, 0x20)
        || below(word ^ (ONES * u64::from(b'"')), 1)
        || below(word ^ (ONES * u64::from(b'\\')), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ASCII byte, alone and at every place of a word of eight (where the
    /// check of eight bytes at a time starts and stops), and texts beyond ASCII: the
    /// bytes serde_json writes.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts: Vec<String> = vec![
            String::new(),
            "plain text, long enough for two words".into(),
            "naïve café — 東京 🦀 \u{2028}\u{7f}".into(),
            "quote \" and backslash \\ at 7\"".into(),
        ];
        for b in 0u8..0x80 {
            let c = char::from(b);
            for at in 0..17 {
                let mut text = "x".repeat(at);
                text.push(c);
                text.push_str(&"y".repeat(17 - at));
                texts.push(text);
            }
        }
        for text in texts {
            let mut out = Vec::new();
            string(&text, &mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(&text).unwrap(),
                "{text:?}"
            );
        }
    }

    /// Text read as bytes is written as the same text is, and fails where it is not
    /// UTF-8, wherever the first byte that is not ASCII falls in a word of eight.
    #[test]
    fn texts_as_bytes_are_checked_and_escaped_as_strings() {
        for at in 0..17 {
            for middle in ["é", "\"", "🦀", "\u{7f}", "\n"] {
                let s = format!("{}{middle}{}", "x".repeat(at), "y\"z".repeat(5));
                let (mut from_bytes, mut from_str) = (Vec::new(), Vec::new());
                text(s.as_bytes(), &mut from_bytes).unwrap();
                string(&s, &mut from_str);
                assert_eq!(from_bytes, from_str, "{s:?}");
            }
            for bad in [&[0xFF][..], &[0xC3], &[0xE2, 0x82], &[0xED, 0xA0, 0x80]] {
                for after in ["plain ascii after", "", "a", "abcdefg"] {
                    let mut bytes = "x".repeat(at).into_bytes();
                    bytes.extend_from_slice(bad);
                    bytes.extend_from_slice(after.as_bytes());
                    assert!(text(&bytes, &mut Vec::new()).is_err(), "{bytes:?}");
                }
            }
        }
    }

    /// Texts of every length up to three words, with one character to escape or
    /// check at every place: the last bytes of a text, fewer than a word, are looked
    /// at together as the words before them are.
    #[test]
    fn texts_of_every_length_are_escaped_as_serde_json_escapes_them() {
        for len in 0..24 {
            for at in 0..=len {
                for middle in ["", "é", "\"", "\\", "🦀", "\u{7f}", "\n", "\u{1}", " "] {
                    let s = format!("{}{middle}{}", "a".repeat(at), "b".repeat(len - at));
                    let (mut from_bytes, mut from_str) = (b"[".to_vec(), b"[".to_vec());
                    text(s.as_bytes(), &mut from_bytes).unwrap();
                    string(&s, &mut from_str);
                    let expected = format!("[{}", serde_json::to_string(&s).unwrap());
                    assert_eq!(from_str, expected.as_bytes(), "{s:?}");
                    assert_eq!(from_bytes, expected.as_bytes(), "{s:?}");
                }
            }
        }
    }
}
