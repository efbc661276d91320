//! Structured search: the `q` parameter of the project list (docs/api.md §4).
//!
//! This module owns the search *language* and nothing else: it turns the text a
//! client sends in `q` into a list of [`Term`]s, or into a [`SearchError`] that
//! names the offending term. Applying the terms to projects is the catalog's job,
//! and turning an error into an HTTP 400 (or a GraphQL error) is the shim's. Keeping
//! the grammar here, in one pure function with no I/O, means every front end
//! accepts exactly the same queries and reports exactly the same messages, and the
//! grammar can be tested exhaustively on its own.
//!
//! # Grammar
//!
//! `q` is a list of terms separated by whitespace (any Unicode whitespace, as
//! defined by [`char::is_whitespace`]). The terms are ANDed; an empty or all-blank
//! `q` parses to an empty list, which means "no filter".
//!
//! * `name:TEXT` — the project name contains `TEXT`, case-insensitively.
//! * `stars:N`, `stars:>N`, `stars:<N`, `stars:>=N`, `stars:<=N` — compare the
//!   star count with the integer `N`.
//! * `TEXT` (a bare word, or a bare quoted phrase such as `"juice shop"`) — the
//!   same as `name:TEXT`.
//!
//! Details:
//!
//! * **Field names** are matched ASCII case-insensitively: `NAME:x` and `Stars:5`
//!   are accepted.
//! * **Field separator.** A term is a `field:value` term when its first `:` comes
//!   before any `"`; only that first colon separates, so `name:a:b` searches for
//!   `a:b`. A term with no colon, or whose first colon comes after a quote (such as
//!   `"a:b"` or `"name":x`), is a bare name term. A term starting with `:` (an
//!   empty field name) is an error.
//! * **Quotes.** A `"` opens a quoted section that runs to the next unescaped `"`;
//!   inside it whitespace, `:`, `>` and `<` are ordinary characters, `\"` is a
//!   literal quote and `\\` a literal backslash (any other backslash is kept as
//!   is). Quoted and unquoted pieces of a term are joined: `name:"a b"c` searches
//!   for `a bc`. Outside quotes a backslash is an ordinary character. A quote that
//!   is never closed is an error naming the term from its start to the end of `q`.
//! * **Operators** are recognised only unquoted, right after the colon. On `name`
//!   they are an error (`name:>x`); write `name:">x"` to search for the literal
//!   text. `=` is not an operator: `stars:=5` is an error, `name:=x` searches for
//!   `=x`.
//! * **Numbers** are an optional `-` followed by one or more ASCII digits, of any
//!   size. `+5`, `5.0`, `1e3` and non-ASCII digits are errors. The number may be
//!   quoted (`stars:"5"`), the operator may not. Star counts are 64-bit integers, so
//!   a number past that range compares as integers do: `stars:<99999999999999999999`
//!   keeps every project and `stars:99999999999999999999` none.
//! * **Empty values** are errors: `name:`, `name:""`, `stars:`, `stars:>=` and a
//!   bare `""`.
//! * **Length.** A `q` longer than [`MAX_QUERY_CHARS`] characters (Unicode scalar
//!   values, not bytes) is an error, checked before anything else, including before
//!   blank queries are accepted.
//! * **Errors** report the first offending term, in the order the terms are
//!   written.
//!
//! # The pattern
//!
//! [`pattern`] is the grammar as a regular expression (ECMA-262, the dialect of JSON
//! Schema's `pattern`, written in the part of it that Rust's `regex` and Python's
//! `re` read the same way): with the length limit, it accepts exactly the queries
//! [`parse`] accepts. The OpenAPI document gives it to clients and test generators,
//! so that every `q` the schema allows is answered. Everything it checks is regular
//! because nothing in the grammar counts: quotes pair up, and numbers have no bound.

use std::fmt;

/// How a numeric field is compared with the value in a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `stars:N` — the field equals `N`.
    Eq,
    /// `stars:>N` — the field is greater than `N`.
    Gt,
    /// `stars:<N` — the field is less than `N`.
    Lt,
    /// `stars:>=N` — the field is greater than or equal to `N`.
    Ge,
    /// `stars:<=N` — the field is less than or equal to `N`.
    Le,
}

/// One parsed search term. A query matches a project when every term does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// name contains (value already lower-cased with Rust's `str::to_lowercase`)
    ///
    /// The value is never empty. To match, lower-case the project name the same
    /// way and test `name.contains(value)`.
    NameContains(String),
    /// The star count compared with the value: `Stars(Cmp::Ge, 10)` is `stars >= 10`.
    Stars(Cmp, i64),
}

/// Why a `q` could not be parsed. Shown to clients as-is (the shim answers 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchError {
    /// the offending term as written by the client (for the too-long case: the first 20 characters followed by "…")
    pub term: String,
    /// a sentence a person can act on, naming the term, e.g. "unknown field 'foo' in term 'foo:bar'; allowed fields are name and stars"
    pub message: String,
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SearchError {}

/// The longest `q` accepted, in characters (Unicode scalar values), not bytes.
pub const MAX_QUERY_CHARS: usize = 256;

/// How many characters of an over-long `q` are quoted back in the error.
const TOO_LONG_PREFIX_CHARS: usize = 20;

/// Parses a `q` parameter into the terms it ANDs together.
///
/// An empty or all-blank `q` gives an empty `Vec` (no filter). See the module
/// documentation for the grammar; errors name the first offending term.
pub fn parse(q: &str) -> Result<Vec<Term>, SearchError> {
    let len = q.chars().count();
    if len > MAX_QUERY_CHARS {
        return Err(too_long(q, len));
    }
    let mut terms = Vec::new();
    let raw_terms = RawTerms { q, pos: 0 };
    for raw in raw_terms {
        terms.push(parse_term(raw?)?);
    }
    Ok(terms)
}

/// Splits a query into the terms as written, honouring quotes. Yields an error
/// (and then stops) when a quote is never closed.
struct RawTerms<'a> {
    q: &'a str,
    /// Byte offset where scanning resumes; `q.len()` once finished.
    pos: usize,
}

impl<'a> Iterator for RawTerms<'a> {
    type Item = Result<&'a str, SearchError>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = &self.q[self.pos..];
        let skipped = rest.len() - rest.trim_start().len();
        let start = self.pos + skipped;
        if start >= self.q.len() {
            self.pos = self.q.len();
            return None;
        }
        let mut in_quotes = false;
        let mut end = self.q.len();
        let mut chars = self.q[start..].char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if in_quotes {
                match c {
                    '\\' => {
                        if matches!(chars.peek(), Some(&(_, '"' | '\\'))) {
                            chars.next();
                        }
                    }
                    '"' => in_quotes = false,
                    _ => {}
                }
            } else if c == '"' {
                in_quotes = true;
            } else if c.is_whitespace() {
                end = start + i;
                break;
            }
        }
        self.pos = end;
        let raw = &self.q[start..end];
        if in_quotes {
            // Only the end of `q` stops a quoted section, so `raw` runs to the
            // end; drop trailing blanks so the reported term is what was typed.
            self.pos = self.q.len();
            return Some(Err(unterminated(raw.trim_end())));
        }
        Some(Ok(raw))
    }
}

/// Parses one term as written (non-empty, no unquoted whitespace, quotes closed).
fn parse_term(raw: &str) -> Result<Term, SearchError> {
    match raw.find([':', '"']) {
        Some(colon) if raw.as_bytes()[colon] == b':' => {
            let field = &raw[..colon];
            let value = &raw[colon + 1..];
            if field.is_empty() {
                Err(error(
                    raw,
                    format!(
                        "term '{raw}' has no field name before ':'; \
                         allowed fields are name and stars"
                    ),
                ))
            } else if field.eq_ignore_ascii_case("name") {
                name_term(raw, value)
            } else if field.eq_ignore_ascii_case("stars") {
                stars_term(raw, value)
            } else {
                Err(error(
                    raw,
                    format!(
                        "unknown field '{field}' in term '{raw}'; \
                         allowed fields are name and stars"
                    ),
                ))
            }
        }
        _ => {
            let text = unquote(raw);
            if text.is_empty() {
                return Err(error(
                    raw,
                    format!(
                        "term '{raw}' is an empty phrase; \
                         put the text to search for between the quotes"
                    ),
                ));
            }
            Ok(Term::NameContains(text.to_lowercase()))
        }
    }
}

/// `name:` followed by `value` (as written); `raw` is the whole term.
fn name_term(raw: &str, value: &str) -> Result<Term, SearchError> {
    if let Some((_, op, _)) = split_operator(value) {
        return Err(error(
            raw,
            format!(
                "operator '{op}' is not allowed on the text field name in term '{raw}'; \
                 name matches part of the project name, quote the value to search \
                 for a literal '{op}'"
            ),
        ));
    }
    let text = unquote(value);
    if text.is_empty() {
        return Err(error(
            raw,
            format!("term '{raw}' has no value; write name:TEXT to search project names"),
        ));
    }
    Ok(Term::NameContains(text.to_lowercase()))
}

/// `stars:` followed by `value` (as written); `raw` is the whole term.
fn stars_term(raw: &str, value: &str) -> Result<Term, SearchError> {
    let (cmp, op, number) = split_operator(value).unwrap_or((Cmp::Eq, "", value));
    let number = unquote(number);
    if number.is_empty() {
        let message = if op.is_empty() {
            format!("term '{raw}' has no value; write stars:N, or stars:>N, stars:<N, stars:>=N, stars:<=N")
        } else {
            format!("term '{raw}' has no number after '{op}'; write stars:{op}N")
        };
        return Err(error(raw, message));
    }
    let negative = number.starts_with('-');
    let digits = number.strip_prefix('-').unwrap_or(&number);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error(
            raw,
            format!("stars expects an integer, got '{number}' in term '{raw}'"),
        ));
    }
    Ok(match number.parse::<i64>() {
        Ok(n) => Term::Stars(cmp, n),
        Err(_) => beyond_i64(cmp, negative),
    })
}

/// The comparison of a star count with an integer past the 64-bit range, as one
/// within it that gives the same answer for every count: every count is below a
/// larger number and above a smaller one, and equals neither.
fn beyond_i64(cmp: Cmp, negative: bool) -> Term {
    match (cmp, negative) {
        (Cmp::Lt | Cmp::Le, false) | (Cmp::Gt | Cmp::Ge, true) => Term::Stars(Cmp::Ge, i64::MIN),
        _ => Term::Stars(Cmp::Gt, i64::MAX),
    }
}

/// Splits a leading unquoted comparison operator off a value as written.
fn split_operator(value: &str) -> Option<(Cmp, &str, &str)> {
    const OPERATORS: [(&str, Cmp); 4] = [
        (">=", Cmp::Ge),
        ("<=", Cmp::Le),
        (">", Cmp::Gt),
        ("<", Cmp::Lt),
    ];
    OPERATORS
        .iter()
        .find_map(|&(op, cmp)| value.strip_prefix(op).map(|rest| (cmp, op, rest)))
}

/// Removes quoting from text as written, starting outside quotes: `"` toggles
/// quoting, and inside quotes `\"` and `\\` stand for `"` and `\`.
fn unquote(written: &str) -> String {
    let mut out = String::with_capacity(written.len());
    let mut in_quotes = false;
    let mut chars = written.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => in_quotes = !in_quotes,
            '\\' if in_quotes => match chars.peek() {
                Some(&next @ ('"' | '\\')) => {
                    out.push(next);
                    chars.next();
                }
                _ => out.push('\\'),
            },
            _ => out.push(c),
        }
    }
    out
}

/// The characters of [`char::is_whitespace`], the separators of terms, as the inside
/// of a character class: `\t` to `\r`, the space, U+0085, U+00A0, U+1680, U+2000 to
/// U+200A, U+2028, U+2029, U+202F, U+205F and U+3000.
const WHITESPACE_CLASS: &str =
    r"\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000";

/// The grammar as a regular expression (ECMA-262, anchored): with the length limit
/// ([`MAX_QUERY_CHARS`] characters), a `q` matches it exactly when [`parse`] accepts
/// it. Each piece below is one rule of the module documentation.
pub fn pattern() -> String {
    let w = WHITESPACE_CLASS;
    // Inside quotes: any character but `"` and `\`, or a backslash with the character
    // after it (an escaped `"` or `\`, or a character the backslash is kept before).
    let quoted_char = r#"(?:[^"\\]|\\[\s\S])"#;
    let quoted = format!(r#""{quoted_char}*""#);
    // The rest of a term: unquoted characters but whitespace and `"`, and quoted
    // sections, whitespace included, each closed.
    let rest = format!(r#"(?:[^"{w}]|{quoted})*"#);
    // Text that is not only quotes, starting with a quote: empty quoted sections,
    // then a quoted section with text or an unquoted character, then anything.
    let quoted_text = format!(r#"(?:"")*"{quoted_char}+"{rest}|(?:"")+[^"{w}]{rest}"#);
    // A bare term: no `:` before its first quote, and not only quotes.
    let bare = format!(r#"[^":{w}]+(?:{quoted}{rest})?|{quoted_text}"#);
    // After `name:`: no unquoted operator first, and not only quotes.
    let name_value = format!(r#"[^"<>{w}]{rest}|{quoted_text}"#);
    // After `stars:` and its operator: digits and at most a leading `-`, quoted or not,
    // the quotes in pairs; at least one digit.
    let unit = r#"(?:[0-9]|"[0-9]*")"#;
    let digits = format!(r#"{unit}*(?:[0-9]|"[0-9]+"){unit}*"#);
    let number = format!(r#"(?:"")*(?:-?{digits}|"-(?:[0-9]+"{unit}*|"{digits}))"#);
    let term = format!(
        "{bare}|[Nn][Aa][Mm][Ee]:(?:{name_value})|[Ss][Tt][Aa][Rr][Ss]:(?:[<>]=?)?{number}"
    );
    format!("^[{w}]*(?:(?:{term})(?:[{w}]+(?:{term}))*[{w}]*)?$")
}

fn error(term: &str, message: String) -> SearchError {
    SearchError {
        term: term.to_owned(),
        message,
    }
}

fn unterminated(term: &str) -> SearchError {
    error(
        term,
        format!(
            "unterminated quote in term '{term}'; close it with '\"' \
             (write \\\" for a quote inside quoted text)"
        ),
    )
}

fn too_long(q: &str, len: usize) -> SearchError {
    let mut term: String = q.chars().take(TOO_LONG_PREFIX_CHARS).collect();
    term.push('…');
    let message = format!(
        "query '{term}' is {len} characters long; \
         the limit is {MAX_QUERY_CHARS} characters, use fewer or shorter terms"
    );
    SearchError { term, message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn name(s: &str) -> Term {
        Term::NameContains(s.to_owned())
    }

    fn ok(q: &str) -> Vec<Term> {
        match parse(q) {
            Ok(terms) => terms,
            Err(e) => panic!("parse({q:?}) failed: {}", e.message),
        }
    }

    /// Asserts `q` fails on `term`, that the message names it and contains `needle`.
    fn err(q: &str, term: &str, needle: &str) -> SearchError {
        let e = match parse(q) {
            Ok(terms) => panic!("parse({q:?}) should fail, got {terms:?}"),
            Err(e) => e,
        };
        assert_eq!(e.term, term, "offending term for {q:?}");
        assert!(
            e.message.contains(&format!("'{term}'")),
            "message {:?} should name term {term:?}",
            e.message
        );
        assert!(
            e.message.contains(needle),
            "message {:?} should contain {needle:?}",
            e.message
        );
        assert_eq!(e.to_string(), e.message);
        e
    }

    #[test]
    fn empty_and_blank_queries_are_no_filter() {
        assert_eq!(ok(""), vec![]);
        assert_eq!(ok("   "), vec![]);
        assert_eq!(ok("\t\n\r "), vec![]);
        assert_eq!(ok("\u{3000}\u{a0}\u{2003}\u{85}"), vec![]);
    }

    #[test]
    fn name_is_case_insensitive_substring_lowercased() {
        assert_eq!(ok("name:JuiceShop"), vec![name("juiceshop")]);
        assert_eq!(ok("name:ÄÖÜ"), vec![name("äöü")]);
        assert_eq!(ok("name:ΣΑΣ"), vec![name("σας")]);
    }

    #[test]
    fn field_names_are_case_insensitive() {
        assert_eq!(ok("NAME:x"), vec![name("x")]);
        assert_eq!(ok("Name:X"), vec![name("x")]);
        assert_eq!(ok("STARS:5"), vec![Term::Stars(Cmp::Eq, 5)]);
        assert_eq!(ok("sTaRs:>=5"), vec![Term::Stars(Cmp::Ge, 5)]);
    }

    #[test]
    fn bare_word_and_bare_phrase_mean_name_contains() {
        assert_eq!(ok("Juice"), vec![name("juice")]);
        assert_eq!(ok("\"Juice Shop\""), vec![name("juice shop")]);
        assert_eq!(ok("  juice   shop "), vec![name("juice"), name("shop")]);
        // Operators are only special after `stars:`/`name:`.
        assert_eq!(ok(">5"), vec![name(">5")]);
        assert_eq!(ok("a\\b"), vec![name("a\\b")]);
    }

    #[test]
    fn quoted_values() {
        assert_eq!(ok("name:\"juice shop\""), vec![name("juice shop")]);
        assert_eq!(ok("name:\"a b\"c"), vec![name("a bc")]);
        assert_eq!(ok("name:a\"b c\""), vec![name("ab c")]);
        assert_eq!(ok("name:\"a\tb\""), vec![name("a\tb")]);
        assert_eq!(ok("name:\"x:y\""), vec![name("x:y")]);
        assert_eq!(ok("stars:\"5\""), vec![Term::Stars(Cmp::Eq, 5)]);
        assert_eq!(ok("stars:>=\"-5\""), vec![Term::Stars(Cmp::Ge, -5)]);
    }

    #[test]
    fn escapes_inside_quotes() {
        assert_eq!(ok(r#"name:"say \"hi\"""#), vec![name("say \"hi\"")]);
        assert_eq!(ok(r#"name:"a\\b""#), vec![name("a\\b")]);
        assert_eq!(ok(r#""a\\""#), vec![name("a\\")]);
        // Other backslashes are kept as written.
        assert_eq!(ok(r#"name:"a\nb""#), vec![name("a\\nb")]);
        // Outside quotes a backslash is an ordinary character.
        assert_eq!(ok(r#"name:a\b"#), vec![name("a\\b")]);
        assert_eq!(ok(r#"a\"b c""#), vec![name("a\\b c")]);
    }

    #[test]
    fn stars_comparisons() {
        assert_eq!(ok("stars:5"), vec![Term::Stars(Cmp::Eq, 5)]);
        assert_eq!(ok("stars:>5"), vec![Term::Stars(Cmp::Gt, 5)]);
        assert_eq!(ok("stars:<5"), vec![Term::Stars(Cmp::Lt, 5)]);
        assert_eq!(ok("stars:>=5"), vec![Term::Stars(Cmp::Ge, 5)]);
        assert_eq!(ok("stars:<=5"), vec![Term::Stars(Cmp::Le, 5)]);
        assert_eq!(ok("stars:-3"), vec![Term::Stars(Cmp::Eq, -3)]);
        assert_eq!(ok("stars:<-3"), vec![Term::Stars(Cmp::Lt, -3)]);
        assert_eq!(ok("stars:007"), vec![Term::Stars(Cmp::Eq, 7)]);
        assert_eq!(ok("stars:-0"), vec![Term::Stars(Cmp::Eq, 0)]);
        assert_eq!(
            ok("stars:9223372036854775807"),
            vec![Term::Stars(Cmp::Eq, i64::MAX)]
        );
        assert_eq!(
            ok("stars:>=-9223372036854775808"),
            vec![Term::Stars(Cmp::Ge, i64::MIN)]
        );
    }

    #[test]
    fn numbers_past_64_bits_compare_as_integers() {
        let always = Term::Stars(Cmp::Ge, i64::MIN);
        let never = Term::Stars(Cmp::Gt, i64::MAX);
        let huge = "99999999999999999999";
        assert_eq!(ok(&format!("stars:{huge}")), vec![never.clone()]);
        assert_eq!(ok(&format!("stars:-{huge}")), vec![never.clone()]);
        assert_eq!(ok("stars:9223372036854775808"), vec![never.clone()]);
        assert_eq!(ok("stars:>9223372036854775808"), vec![never.clone()]);
        assert_eq!(ok("stars:>=\"9223372036854775808\""), vec![never.clone()]);
        assert_eq!(ok("stars:<9223372036854775808"), vec![always.clone()]);
        assert_eq!(ok(&format!("stars:<={huge}")), vec![always.clone()]);
        assert_eq!(ok("stars:<-9223372036854775809"), vec![never.clone()]);
        assert_eq!(ok(&format!("stars:<=-{huge}")), vec![never]);
        assert_eq!(ok("stars:>-9223372036854775809"), vec![always.clone()]);
        assert_eq!(ok(&format!("stars:>=-{huge}")), vec![always]);
        // Leading zeros do not make a number large.
        assert_eq!(
            ok("stars:>=000000000000000000000000005"),
            vec![Term::Stars(Cmp::Ge, 5)]
        );
    }

    /// Malformed terms: (query, the term named, part of the message).
    const MALFORMED: &[(&str, &str, &str)] = &[
        // stars takes an integer, and nothing else.
        (
            "stars:abc",
            "stars:abc",
            "stars expects an integer, got 'abc'",
        ),
        ("stars:+5", "stars:+5", "got '+5'"),
        ("stars:5.0", "stars:5.0", "got '5.0'"),
        ("stars:1e3", "stars:1e3", "got '1e3'"),
        ("stars:-", "stars:-", "got '-'"),
        ("stars:--5", "stars:--5", "got '--5'"),
        ("stars:٣", "stars:٣", "got '٣'"),
        ("stars:=5", "stars:=5", "got '=5'"),
        ("stars:>>5", "stars:>>5", "got '>5'"),
        ("stars:=>5", "stars:=>5", "got '=>5'"),
        ("stars:\">5\"", "stars:\">5\"", "got '>5'"),
        ("stars:\" 5\"", "stars:\" 5\"", "got ' 5'"),
        ("stars:5:6", "stars:5:6", "got '5:6'"),
        // Empty values.
        ("name:", "name:", "term 'name:' has no value"),
        ("name:\"\"", "name:\"\"", "has no value"),
        ("stars:", "stars:", "has no value"),
        ("stars:>=", "stars:>=", "no number after '>='"),
        ("stars:<\"\"", "stars:<\"\"", "no number after '<'"),
        ("\"\"", "\"\"", "empty phrase"),
        ("a \"\"\"\" b", "\"\"\"\"", "empty phrase"),
        // Unterminated quotes.
        ("name:\"abc", "name:\"abc", "unterminated quote"),
        ("foo \"bar baz", "\"bar baz", "unterminated quote"),
        ("foo \"bar baz  \t", "\"bar baz", "unterminated quote"),
        ("\"abc\\\"", "\"abc\\\"", "unterminated quote"),
        ("x name:a\"b c", "name:a\"b c", "unterminated quote"),
        ("\"", "\"", "unterminated quote"),
    ];

    #[test]
    fn malformed_terms_are_errors_naming_the_term() {
        for (query, term, needle) in MALFORMED {
            err(query, term, needle);
        }
    }

    #[test]
    fn operators_on_name_are_errors() {
        err(
            "name:>x",
            "name:>x",
            "operator '>' is not allowed on the text field name",
        );
        err("name:<x", "name:<x", "operator '<'");
        err("name:>=x", "name:>=x", "operator '>='");
        err("NAME:<=x", "NAME:<=x", "operator '<='");
        err("name:>", "name:>", "operator '>'");
        // Quoted, or after other text, they are ordinary characters.
        assert_eq!(ok("name:\">x\""), vec![name(">x")]);
        assert_eq!(ok("name:x>y"), vec![name("x>y")]);
        assert_eq!(ok("name:=x"), vec![name("=x")]);
    }

    #[test]
    fn unknown_and_empty_fields_are_errors() {
        let e = err("foo:bar", "foo:bar", "unknown field 'foo'");
        assert_eq!(
            e.message,
            "unknown field 'foo' in term 'foo:bar'; allowed fields are name and stars"
        );
        err("a stars:1 Level:3", "Level:3", "unknown field 'Level'");
        err("names:x", "names:x", "unknown field 'names'");
        err(":x", ":x", "no field name");
        err(":", ":", "no field name");
        err("::", "::", "no field name");
    }

    #[test]
    fn only_the_first_colon_separates() {
        assert_eq!(ok("name:a:b"), vec![name("a:b")]);
        assert_eq!(ok("name::"), vec![name(":")]);
        // A colon after a quote does not start a field.
        assert_eq!(ok("\"name\":x"), vec![name("name:x")]);
        assert_eq!(ok("\"a:b\""), vec![name("a:b")]);
        assert_eq!(ok("a\"b:c\""), vec![name("ab:c")]);
    }

    #[test]
    fn terms_are_anded_in_order() {
        assert_eq!(
            ok("name:owasp stars:>=10 Juice \"web app\" stars:<100"),
            vec![
                name("owasp"),
                Term::Stars(Cmp::Ge, 10),
                name("juice"),
                name("web app"),
                Term::Stars(Cmp::Lt, 100),
            ]
        );
    }

    #[test]
    fn any_unicode_whitespace_separates() {
        assert_eq!(
            ok("a\u{3000}b\u{a0}c\td\ne"),
            ["a", "b", "c", "d", "e"].map(name)
        );
        assert_eq!(ok("name:\"a\u{3000}b\""), vec![name("a\u{3000}b")]);
    }

    #[test]
    fn first_bad_term_is_reported() {
        err("foo:1 bar:2", "foo:1", "unknown field 'foo'");
        err("stars:x \"open", "stars:x", "integer");
        err("ok name:>x foo:1", "name:>x", "operator");
    }

    #[test]
    fn length_limit_counts_characters() {
        let at_limit = "a".repeat(MAX_QUERY_CHARS);
        assert_eq!(ok(&at_limit).len(), 1);
        let wide = "é".repeat(MAX_QUERY_CHARS); // 512 bytes, 256 characters
        assert_eq!(ok(&wide).len(), 1);

        let over = "a".repeat(MAX_QUERY_CHARS + 1);
        let e = parse(&over).unwrap_err();
        assert_eq!(e.term, format!("{}…", "a".repeat(20)));
        assert!(e.message.contains(&e.term));
        assert!(e.message.contains("257"), "{}", e.message);
        assert!(e.message.contains("256"), "{}", e.message);

        let wide_over = "é".repeat(MAX_QUERY_CHARS + 1);
        let e = parse(&wide_over).unwrap_err();
        assert_eq!(e.term, format!("{}…", "é".repeat(20)));

        // Checked before anything else, blank or not.
        let blank_over = " ".repeat(MAX_QUERY_CHARS + 1);
        assert!(parse(&blank_over).is_err());
    }

    #[test]
    fn display_prints_the_message() {
        let e = parse("foo:bar").unwrap_err();
        assert_eq!(format!("{e}"), e.message);
        let boxed: Box<dyn std::error::Error> = Box::new(e.clone());
        assert_eq!(boxed.to_string(), e.message);
    }

    /// The invariants every call must keep: no panic, and a usable error.
    fn check_invariants(q: &str) -> Result<(), TestCaseError> {
        match parse(q) {
            Ok(terms) => {
                prop_assert!(q.chars().count() <= MAX_QUERY_CHARS);
                for term in terms {
                    if let Term::NameContains(text) = term {
                        prop_assert!(!text.is_empty());
                    }
                }
            }
            Err(e) => {
                prop_assert!(!e.term.is_empty());
                prop_assert!(
                    e.message.contains(&e.term),
                    "message {:?} lacks term {:?}",
                    e.message,
                    e.term
                );
                let len = q.chars().count();
                if len > MAX_QUERY_CHARS {
                    let prefix: String = q.chars().take(20).collect();
                    prop_assert_eq!(e.term, format!("{prefix}…"));
                } else {
                    prop_assert!(q.contains(&e.term), "term {:?} not in {:?}", e.term, q);
                }
            }
        }
        Ok(())
    }

    /// Query-like strings from the characters and words the grammar cares about.
    fn query_like() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "name", "stars", "NAME", ":", "\"", "\\", ">", "<", "=", "-", "+", " ", " ", "\t",
            "\u{3000}", "0", "1", "5", "9", "a", "b", "z", "é", "Σ",
        ]);
        prop::collection::vec(pieces, 0..120).prop_map(|v| v.concat())
    }

    /// A term rendered the way a client would write it, with the term it means.
    fn written_term() -> impl Strategy<Value = (String, Term)> {
        let cmp = prop::sample::select(vec![
            ("", Cmp::Eq),
            (">", Cmp::Gt),
            ("<", Cmp::Lt),
            (">=", Cmp::Ge),
            ("<=", Cmp::Le),
        ]);
        prop_oneof![
            (cmp, any::<i64>())
                .prop_map(|((op, cmp), n)| (format!("stars:{op}{n}"), Term::Stars(cmp, n))),
            "[a-z0-9 :\"\\\\<>=é\u{3000}-]{1,12}".prop_map(|text| {
                let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
                (format!("name:\"{escaped}\""), Term::NameContains(text))
            }),
            "[a-z0-9][a-z0-9=é-]{0,8}".prop_map(|word| (word.clone(), Term::NameContains(word))),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn arbitrary_unicode_never_panics(q in any::<String>()) {
            check_invariants(&q)?;
        }

        #[test]
        fn long_arbitrary_unicode_never_panics(q in ".{200,300}") {
            check_invariants(&q)?;
        }

        #[test]
        fn query_like_strings_never_panic(q in query_like()) {
            check_invariants(&q)?;
        }

        #[test]
        fn written_terms_parse_back(terms in prop::collection::vec(written_term(), 0..6)) {
            let q = terms.iter().map(|(w, _)| w.as_str()).collect::<Vec<_>>().join(" ");
            let expected: Vec<Term> = terms.into_iter().map(|(_, t)| t).collect();
            prop_assert_eq!(parse(&q), Ok(expected));
        }
    }
}
