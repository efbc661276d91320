//! The `q` parameter of the project list against the search parser (docs/api.md §4):
//! a value the document's schema allows (its `pattern` and `maxLength`) is a value
//! `search::parse` accepts, and a value it rejects is one the parser rejects, over
//! hand-picked queries, every Unicode character in a few positions, and generated
//! ones.

use std::sync::OnceLock;

use proptest::prelude::*;
use regex::Regex;
use roost::search::{self, MAX_QUERY_CHARS};

use super::{doc, param};

/// The schema of `q` in the document: (pattern, maxLength).
fn q_schema() -> (String, usize) {
    let doc = doc();
    let q = param(&doc["paths"]["/api/v0/projects/"]["get"], "q")["schema"].clone();
    let pattern = q["pattern"].as_str().expect("q has a pattern").to_string();
    let max = q["maxLength"].as_u64().expect("q has a maxLength") as usize;
    (pattern, max)
}

struct Schema {
    pattern: Regex,
    max: usize,
}

impl Schema {
    /// The document's schema of `q`, compiled once.
    fn get() -> &'static Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            let (pattern, max) = q_schema();
            Schema {
                pattern: Regex::new(&pattern).expect("the pattern compiles"),
                max,
            }
        })
    }

    fn allows(&self, q: &str) -> bool {
        q.chars().count() <= self.max && self.pattern.is_match(q)
    }

    /// `None` when the schema and the parser agree on `q`, else what each said.
    fn disagreement(&self, q: &str) -> Option<String> {
        let allowed = self.allows(q);
        let parsed = search::parse(q);
        (allowed != parsed.is_ok()).then(|| {
            format!(
                "{q:?}: the schema {} it, the parser says {:?}",
                if allowed { "allows" } else { "rejects" },
                parsed.map_err(|e| e.message)
            )
        })
    }

    fn assert_agrees(&self, q: &str) {
        if let Some(problem) = self.disagreement(q) {
            panic!("{problem}");
        }
    }
}

#[test]
fn q_has_the_parser_s_pattern_and_length() {
    let (pattern, max) = q_schema();
    assert_eq!(pattern, search::pattern());
    assert_eq!(max, MAX_QUERY_CHARS);
    assert!(
        pattern.starts_with('^') && pattern.ends_with('$'),
        "{pattern}"
    );
}

/// Valid and invalid queries of docs/api.md §4 and src/search.rs, each with the
/// verdict the parser gives it.
const HAND_PICKED: &[(&str, bool)] = &[
    ("", true),
    ("   ", true),
    ("\t\n\r \u{3000}\u{a0}\u{2003}\u{85}", true),
    ("juice", true),
    ("JUICE shop", true),
    ("name:juice stars:>=100", true),
    ("name:\"juice shop\"", true),
    ("\"web security\"", true),
    ("name:\"a b\"c", true),
    ("name:a\"b c\"", true),
    ("name:\"x:y\"", true),
    ("name:a:b", true),
    ("name::", true),
    ("name:=x", true),
    ("name:x>y", true),
    ("name:\">x\"", true),
    ("name:\"\">x", true),
    ("name:\"say \\\"hi\\\"\"", true),
    ("name:\"a\\\\b\"", true),
    ("name:\"a\\nb\"", true),
    ("name:a\\b", true),
    ("a\\\"b c\"", true),
    ("\"a\\\\\"", true),
    ("\"name\":x", true),
    ("\"a:b\"", true),
    ("a\"b:c\"", true),
    ("\"\":x", true),
    ("\"\"a", true),
    ("\"\" a", false),
    (">5", true),
    ("NAME:Juice STARS:>0", true),
    ("sTaRs:>=5", true),
    ("stars:5", true),
    ("stars:<5", true),
    ("stars:<=5", true),
    ("stars:-3", true),
    ("stars:<-3", true),
    ("stars:007", true),
    ("stars:-0", true),
    ("stars:\"5\"", true),
    ("stars:>=\"-5\"", true),
    ("stars:\"-\"5", true),
    ("stars:-\"5\"", true),
    ("stars:1\"2\"3", true),
    ("stars:\"\"5", true),
    ("stars:5\"\"", true),
    ("stars:\"1\"\"2\"", true),
    ("stars:9223372036854775807", true),
    ("stars:9223372036854775808", true),
    ("stars:<-99999999999999999999999", true),
    ("é", true),
    ("日本", true),
    ("name:ÄÖÜ", true),
    ("\u{feff}", true),
    ("a\u{1F600}b \"\u{1F600}\" name:\u{1F600}", true),
    // Errors.
    ("x:y", false),
    ("foo:bar", false),
    ("names:x", false),
    ("a stars:1 Level:3", false),
    (":x", false),
    (":", false),
    ("::", false),
    ("name:", false),
    ("name:\"\"", false),
    ("name:>x", false),
    ("name:<x", false),
    ("name:>=x", false),
    ("NAME:<=x", false),
    ("name:>", false),
    ("stars:", false),
    ("stars:>=", false),
    ("stars:<\"\"", false),
    ("stars:abc", false),
    ("stars:+5", false),
    ("stars:5.0", false),
    ("stars:1e3", false),
    ("stars:-", false),
    ("stars:--5", false),
    ("stars:5-", false),
    ("stars:\"-\"", false),
    ("stars:٣", false),
    ("stars:=5", false),
    ("stars:>>5", false),
    ("stars:=>5", false),
    ("stars:<>5", false),
    ("stars:\">5\"", false),
    ("stars:\" 5\"", false),
    ("stars:5:6", false),
    ("stars:1\"2", false),
    ("stars:\"5\\\"\"", false),
    ("\"\"", false),
    ("a \"\"\"\" b", false),
    ("name:\"abc", false),
    ("foo \"bar baz", false),
    ("\"abc\\\"", false),
    ("x name:a\"b c", false),
    ("\"", false),
];

#[test]
fn hand_picked_queries_agree() {
    let schema = Schema::get();
    for (q, valid) in HAND_PICKED {
        assert_eq!(search::parse(q).is_ok(), *valid, "the parser on {q:?}");
        schema.assert_agrees(q);
    }
    // The length limit is the schema's maxLength, in characters.
    schema.assert_agrees(&"a".repeat(MAX_QUERY_CHARS));
    schema.assert_agrees(&"é".repeat(MAX_QUERY_CHARS));
    schema.assert_agrees(&"a".repeat(MAX_QUERY_CHARS + 1));
    schema.assert_agrees(&" ".repeat(MAX_QUERY_CHARS + 1));
}

/// Every Unicode character between two words (only whitespace separates terms),
/// and the characters the grammar names, Latin-1 and a stride over the rest in the
/// other places where it treats characters differently: alone, in a field name,
/// after an operator, in a number, inside and after quotes.
#[test]
fn characters_agree_in_every_place() {
    let schema = Schema::get();
    let places = [
        "{}",
        "stars:1{}2",
        "stars:>{}1",
        "stars:\"1{}\"",
        "name:{}",
        "name:\"\"{}",
        "na{}me:x",
        "\"{}\"",
        "\"\\{}\"",
        "\"\"{}",
        "x\"{}",
        "{}:x",
    ];
    let mut problems = Vec::new();
    let mut check = |q: String| {
        if problems.len() < 20 {
            problems.extend(schema.disagreement(&q));
        }
    };
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        check(format!("a{c}b"));
        if c <= '\u{ff}' || c.is_whitespace() || u32::from(c) % 97 == 0 {
            for place in places {
                check(place.replace("{}", c.encode_utf8(&mut [0; 4])));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Query-like strings from the characters and words the grammar cares about.
fn query_like() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "name",
        "stars",
        "NAME",
        "Stars",
        "nam",
        "starsx",
        ":",
        ":",
        "\"",
        "\"",
        "\"\"",
        "\\",
        "\\\"",
        ">",
        "<",
        ">=",
        "<=",
        "=",
        "-",
        "+",
        ".",
        " ",
        " ",
        "\t",
        "\u{3000}",
        "\u{85}",
        "\u{feff}",
        "0",
        "1",
        "5",
        "9",
        "007",
        "99999999999999999999",
        "a",
        "b",
        "z",
        "é",
        "Σ",
        "٣",
        "\u{1F600}",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
}

/// Well-formed terms, and terms one mistake away from it, joined by whitespace.
fn near_terms() -> impl Strategy<Value = String> {
    let term = prop_oneof![
        "(name|NAME|stars|Stars|x|)?:?(>=|<=|>|<|=)?\"?-?[0-9]{0,3}\"?[0-9]{0,2}\"?",
        "(name:)?\"[a-z \\\\\":<>]{0,6}\"?[a-z:]{0,3}",
        "\"{0,4}[a-z]{0,3}\"{0,4}",
        "stars:(>=|<=|>|<)?\"{0,2}-?\"{0,2}[0-9]{1,22}\"{0,2}",
    ];
    let blank = "[ \t\u{3000}]{1,2}";
    prop::collection::vec((term, blank), 0..5).prop_map(|v| {
        v.into_iter()
            .map(|(t, b)| format!("{t}{b}"))
            .collect::<String>()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn arbitrary_strings_agree(q in any::<String>()) {
        let schema = Schema::get();
        prop_assert!(schema.disagreement(&q).is_none(), "{}", schema.disagreement(&q).unwrap());
    }

    #[test]
    fn query_like_strings_agree(q in query_like()) {
        let schema = Schema::get();
        prop_assert!(schema.disagreement(&q).is_none(), "{}", schema.disagreement(&q).unwrap());
    }

    #[test]
    fn near_terms_agree(q in near_terms()) {
        let schema = Schema::get();
        prop_assert!(schema.disagreement(&q).is_none(), "{}", schema.disagreement(&q).unwrap());
    }

    #[test]
    fn long_strings_agree(q in "[a \"]{250,260}") {
        let schema = Schema::get();
        prop_assert!(schema.disagreement(&q).is_none(), "{}", schema.disagreement(&q).unwrap());
    }
}
