//! Words of a query as the index's tokenizer sees them, and the one-typo test.
//!
//! The FTS5 tables fold case and diacritics themselves (`unicode61 remove_diacritics
//! 2`); the typo tolerance compares a query word with the index's vocabulary in Rust,
//! so the word is folded the same way first: decomposed, combining marks dropped,
//! lower-cased.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The words of `query`: runs of letters and digits (combining marks stay with their
/// letter), everything else separates them.
pub fn words(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in query.nfc() {
        if c.is_alphanumeric() || (!word.is_empty() && is_combining_mark(c)) {
            word.push(c);
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// `word` folded like the index's tokenizer: no diacritics, lower case.
pub fn fold(word: &str) -> String {
    word.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// At most one edit apart: one letter inserted, deleted, replaced, or two adjacent
/// letters swapped.
pub fn within_one(a: &[char], b: &[char]) -> bool {
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    match (a.len(), b.len()) {
        (0, 0) | (1, 0) | (0, 1) => true,
        (la, lb) if la == lb => {
            a[1..] == b[1..] || (la >= 2 && a[0] == b[1] && a[1] == b[0] && a[2..] == b[2..])
        }
        (la, lb) if la > lb => a[1..] == *b,
        _ => *a == b[1..],
    }
}

/// Some prefix of `term` is at most one edit from `word` (the last word of a query is
/// a prefix: `secuirty` reaches `security` and `securityscanner`).
pub fn prefix_within_one(word: &[char], term: &[char]) -> bool {
    let n = word.len();
    (n.saturating_sub(1)..=n + 1)
        .filter(|k| *k <= term.len())
        .any(|k| within_one(word, &term[..k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn words_split_on_anything_but_letters_and_digits() {
        assert_eq!(words("OWASP  zap-2.0_x"), ["OWASP", "zap", "2", "0", "x"]);
        assert_eq!(words(" São Paulo "), ["São", "Paulo"]);
        assert_eq!(words("cafe\u{301}"), ["café"]);
        assert!(words(" .-_ ").is_empty());
    }

    #[test]
    fn folding_drops_case_and_diacritics() {
        assert_eq!(fold("São"), "sao");
        assert_eq!(fold("MÜNCHEN"), "munchen");
        assert_eq!(fold("Ça"), "ca");
    }

    #[test]
    fn one_edit() {
        assert!(within_one(&c("security"), &c("security")));
        assert!(within_one(&c("securty"), &c("security")));
        assert!(within_one(&c("securitty"), &c("security")));
        assert!(within_one(&c("secority"), &c("security")));
        assert!(within_one(&c("secuirty"), &c("security")));
        assert!(within_one(&c("xecurity"), &c("security")));
        assert!(!within_one(&c("secuirtty"), &c("security")));
        assert!(!within_one(&c("scuirty"), &c("security")));
        assert!(!within_one(&c("abcd"), &c("ab")));
    }

    #[test]
    fn one_edit_from_a_prefix() {
        assert!(prefix_within_one(&c("secuirty"), &c("securityscanner")));
        assert!(prefix_within_one(&c("scanr"), &c("scanner")));
        assert!(prefix_within_one(&c("scannr"), &c("scanner")));
        assert!(!prefix_within_one(&c("scxnxr"), &c("scanner")));
        assert!(!prefix_within_one(&c("scannerz"), &c("scan")));
    }
}
