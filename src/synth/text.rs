//! Synthetic text: Markdown bodies (headings, paragraphs, lists, task lists, quotes,
//! fenced code) and sentences built cheaply from the word lists, ASCII slugs of names
//! in any script, and keys made unique case-insensitively.

use std::collections::HashSet;
use std::fmt::Write as _;

use rand::RngExt;

use super::random::{chance, pick};
use super::words::{CODE_LANGS, CODE_LINES, HEADINGS, WORDS};
use super::Rng;

/// `text` in ASCII for a key: lower case, accented Latin letters folded, every run of
/// other characters one dash, none at either end.
pub(super) fn slug(text: &str) -> String {
    dashed_words(text, |c, out| {
        let folded = match c.to_lowercase().next().unwrap_or(c) {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
            'ç' | 'č' => "c",
            'è' | 'é' | 'ê' | 'ë' | 'ě' => "e",
            'ì' | 'í' | 'î' | 'ï' | 'ı' => "i",
            'ñ' => "n",
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ő' => "o",
            'ù' | 'ú' | 'û' | 'ü' | 'ű' => "u",
            'ý' | 'ÿ' => "y",
            'ß' => "ss",
            'ł' => "l",
            'š' | 'ş' | 'ș' => "s",
            'ř' => "r",
            'ž' => "z",
            'ğ' => "g",
            'ț' => "t",
            _ if c.is_ascii_alphanumeric() => {
                out.push(c.to_ascii_lowercase());
                return true;
            }
            _ => return false,
        };
        out.push_str(folded);
        true
    })
}

/// `text` as words joined by single dashes: `word` writes the part of a character
/// that belongs to a word at the end of `out` and says whether it did; every run of
/// other characters is one dash, none at either end. The slugs of keys are made by
/// it.
pub(super) fn dashed_words(text: &str, mut word: impl FnMut(char, &mut String) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !word(c, &mut out) && !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// Makes `candidate` unique (case-insensitively) among the keys already in `seen`,
/// appending `-2`, `-3`, ... when needed.
pub(super) fn unique(seen: &mut HashSet<String>, candidate: String) -> String {
    if seen.insert(candidate.to_lowercase()) {
        return candidate;
    }
    let mut n = 2;
    loop {
        let next = format!("{candidate}-{n}");
        if seen.insert(next.to_lowercase()) {
            return next;
        }
        n += 1;
    }
}

pub(super) fn capitalize_into(out: &mut String, word: &str) {
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
}

pub(super) fn sentence(rng: &mut Rng, out: &mut String) {
    let n = rng.random_range(6..15);
    for i in 0..n {
        let word = pick(rng, WORDS);
        if i == 0 {
            capitalize_into(out, word);
            continue;
        }
        out.push(' ');
        match rng.random_range(0..40u32) {
            0 => {
                out.push('`');
                out.push_str(word);
                out.push('`');
            }
            1 => {
                out.push_str("**");
                out.push_str(word);
                out.push_str("**");
            }
            2 => {
                let _ = write!(out, "[{word}](https://example.org/docs/{})", slug(word));
            }
            _ => out.push_str(word),
        }
    }
    out.push('.');
}

/// Appends Markdown of about `target` bytes: headings, paragraphs, lists, task lists,
/// quotes and fenced code blocks.
pub(super) fn markdown(rng: &mut Rng, out: &mut String, target: usize) {
    let start = out.len();
    let mut first = true;
    while out.len() - start < target {
        if !first {
            out.push_str("\n\n");
        }
        let kind = if first { 0 } else { rng.random_range(0..10u32) };
        first = false;
        match kind {
            0 | 1 => {
                let _ = write!(out, "## {}\n\n", pick(rng, HEADINGS));
                for _ in 0..rng.random_range(1..4) {
                    sentence(rng, out);
                    out.push(' ');
                }
                out.pop();
            }
            2..=4 => {
                for _ in 0..rng.random_range(2..5) {
                    sentence(rng, out);
                    out.push(' ');
                }
                out.pop();
            }
            5 | 6 => {
                let ordered = chance(rng, 0.4);
                for i in 0..rng.random_range(2..6) {
                    if ordered {
                        let _ = write!(out, "{}. ", i + 1);
                    } else {
                        out.push_str("- ");
                    }
                    sentence(rng, out);
                    out.push('\n');
                }
                out.pop();
            }
            7 => {
                let _ = writeln!(out, "```{}", pick(rng, CODE_LANGS));
                for _ in 0..rng.random_range(2..8) {
                    out.push_str(pick(rng, CODE_LINES));
                    out.push('\n');
                }
                out.push_str("```");
            }
            8 => {
                for _ in 0..rng.random_range(2..5) {
                    out.push_str(if chance(rng, 0.5) { "- [x] " } else { "- [ ] " });
                    sentence(rng, out);
                    out.push('\n');
                }
                out.pop();
            }
            _ => {
                out.push_str("> ");
                sentence(rng, out);
            }
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    /// The slugs of the synthetic datasets (ASCII, accents folded) and of the sample
    /// (ASCII, accents dropped after NFKD, a few letters spelled out).
    type Slug = fn(&str) -> String;

    #[test]
    fn slugs_are_ascii() {
        let cases: [(Slug, &str, &str); 8] = [
            (super::slug, "Diversité & Inclusion", "diversite-inclusion"),
            (
                super::slug,
                "Müller Sicherheit GmbH",
                "muller-sicherheit-gmbh",
            ),
            (super::slug, "サイバー株式会社", ""),
            (super::slug, "  New York ", "new-york"),
            (super::super::sample::slug, "Ünal Yılmaz", "unal-y-lmaz"),
            (super::super::sample::slug, "İstanbul", "istanbul"),
            (
                super::super::sample::slug,
                "Søren Łukasz Æbleskiver Straße",
                "soren-lukasz-aebleskiver-strasse",
            ),
            (super::super::sample::slug, "O'Brien", "o-brien"),
        ];
        for (slug, text, want) in cases {
            assert_eq!(slug(text), want, "{text}");
        }
    }
}
