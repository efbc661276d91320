//! The Rust side of the edge canonicaliser's tests (`edge/canonical.js`).
//!
//! * `edge_corpus tables` prints the generated block of `edge/canonical.js`: the
//!   catalog's lists, snapshot lists and details as the URL → file mapping needs
//!   them (parameter kinds, orderings, id rules, bounds), and Rust's own lower-casing
//!   (`str::to_lowercase`) as tables, so the JavaScript cannot drift from it. CI
//!   compares the block with the file.
//! * `edge_corpus corpus OUT [--site DIR] [--seed N]` writes a JSON Lines corpus of
//!   request URLs with the file [`roost::tree::file_for_request`] gives each (the very
//!   function the shim uses), or `null`: every list and detail file of the sample
//!   tree spelled many ways (parameters shuffled and repeated, defaults spelled out,
//!   mixed case, percent-encoding variants, `/` in release tags, unknown parameters)
//!   and requests that are not pre-rendered or are invalid. Each line is
//!   `{"url": …, "file": …, "canonical": …}`, `canonical` being the tree file the URL
//!   was derived from (absent for URLs not derived from one). The same seed gives the
//!   same corpus. Without `--site` the sample tree is generated in a temporary folder.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use roost::catalog::{self, IdRule, ListSpec, ParamKind};
use roost::tree::{self, Target};

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("edge_corpus: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("tables") => {
            print!("{}", tables()?);
            Ok(())
        }
        Some("corpus") => {
            let out = args.get(1).ok_or_else(|| anyhow!("corpus needs OUT"))?;
            let mut site = None;
            let mut seed = 13u64;
            let mut rest = args[2..].iter();
            while let Some(flag) = rest.next() {
                let value = rest.next().ok_or_else(|| anyhow!("{flag} needs a value"))?;
                match flag.as_str() {
                    "--site" => site = Some(PathBuf::from(value)),
                    "--seed" => seed = value.parse().context("--seed")?,
                    _ => bail!("unknown flag {flag}"),
                }
            }
            let count = corpus(Path::new(out), site.as_deref(), seed)?;
            eprintln!("edge_corpus: {count} requests written to {out}");
            Ok(())
        }
        _ => bail!("usage: edge_corpus tables | edge_corpus corpus OUT [--site DIR] [--seed N]"),
    }
}

// ----------------------------------------------------------------------------------
// The generated block of edge/canonical.js

fn kind(kind: ParamKind) -> Value {
    match kind {
        ParamKind::Text => json!({"kind": "text"}),
        ParamKind::Exact => json!({"kind": "exact"}),
        ParamKind::Choice(vocab) => json!({"kind": "choice", "values": vocab.values}),
        ParamKind::Choices(vocab) => json!({"kind": "choices", "values": vocab.values}),
        ParamKind::Bool => json!({"kind": "bool"}),
        ParamKind::Gte | ParamKind::Lte => json!({"kind": "range"}),
        ParamKind::Upcoming => json!({"kind": "upcoming"}),
        ParamKind::Search => json!({"kind": "search"}),
    }
}

fn list(spec: &ListSpec) -> Value {
    let params: Vec<Value> = spec
        .params
        .iter()
        .map(|p| {
            let mut v = kind(p.kind);
            v["name"] = json!(p.name);
            v
        })
        .collect();
    let orderings: Vec<&str> = spec.orderings.iter().map(|o| o.name).collect();
    json!({"path": spec.path, "params": params, "orderings": orderings})
}

fn catalog_json() -> Value {
    let details: Vec<Value> = catalog::DETAILS
        .iter()
        .map(|d| {
            let ids: Vec<Value> = d
                .ids
                .iter()
                .map(|rule| match rule {
                    IdRule::Prefixed(prefix) => json!({"rule": "prefixed", "prefix": prefix}),
                    IdRule::Ci => json!({"rule": "ci"}),
                    IdRule::Exact => json!({"rule": "exact"}),
                    IdRule::Number => json!({"rule": "number"}),
                })
                .collect();
            json!({"path": d.path, "ids": ids})
        })
        .collect();
    json!({
        "api_prefix": tree::API_PREFIX,
        "api_dir": tree::API_DIR,
        "max_name": tree::MAX_NAME,
        "page_size": catalog::PAGE_SIZE,
        "page_max": catalog::PAGE_MAX.to_string(),
        "search_max_chars": roost::search::MAX_QUERY_CHARS,
        "lists": catalog::LISTS.iter().map(list).collect::<Vec<_>>(),
        "snapshot_lists": catalog::SNAPSHOT_LISTS.iter().map(list).collect::<Vec<_>>(),
        "details": details,
    })
}

/// Every scalar value whose lower case (alone, as `str::to_lowercase` maps it) is not
/// itself.
struct LowerTables {
    /// Single-character mappings as runs `[start, count, delta, stride]`.
    runs: Vec<[i64; 4]>,
    /// Longer mappings: (code point, its lower case).
    long: Vec<(u32, Vec<u32>)>,
}

fn lower_tables() -> LowerTables {
    let mut runs: Vec<[i64; 4]> = Vec::new();
    let mut long = Vec::new();
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        // Σ alone lower-cases to σ; its final form is the SIGMA table's concern.
        let lower: Vec<u32> = c
            .to_string()
            .to_lowercase()
            .chars()
            .map(u32::from)
            .collect();
        if lower == [u32::from(c)] {
            continue;
        }
        if lower.len() != 1 {
            long.push((u32::from(c), lower));
            continue;
        }
        let (cp, delta) = (
            i64::from(u32::from(c)),
            i64::from(lower[0]) - i64::from(u32::from(c)),
        );
        if let Some(run) = runs.last_mut() {
            let next = run[0] + run[1] * run[3];
            if run[2] == delta && next == cp {
                run[1] += 1;
                continue;
            }
            if run[1] == 1 && run[2] == delta && cp - run[0] == 2 {
                run[1] = 2;
                run[3] = 2;
                continue;
            }
        }
        runs.push([cp, 1, delta, 1]);
    }
    LowerTables { runs, long }
}

/// How each scalar value takes part in the final-sigma rule of `str::to_lowercase`,
/// observed from Rust itself: 1 = skipped (case-ignorable), 2 = a cased letter that is
/// not skipped; as ranges `[first, last, class]` (class 0 left out).
fn sigma_table() -> Vec<[u32; 3]> {
    let mut ranges: Vec<[u32; 3]> = Vec::new();
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let final_after = |prefix: String| prefix.to_lowercase().ends_with('ς');
        let alone = final_after(format!("{c}Σ"));
        let after_cased = final_after(format!("A{c}Σ"));
        let class = if alone {
            2
        } else if after_cased {
            1
        } else {
            0
        };
        if class == 0 {
            continue;
        }
        let cp = u32::from(c);
        match ranges.last_mut() {
            Some(r) if r[2] == class && r[1] + 1 == cp => r[1] = cp,
            _ => ranges.push([cp, cp, class]),
        }
    }
    ranges
}

fn tables() -> anyhow::Result<String> {
    let mut out = String::new();
    out.push_str(
        "// BEGIN GENERATED by `cargo run --example edge_corpus -- tables`; do not edit.\n",
    );
    // One line per field, and per list or detail.
    out.push_str("var CATALOG = {\n");
    if let Value::Object(fields) = catalog_json() {
        for (name, value) in fields {
            let _ = write!(out, "  {}: ", serde_json::to_string(&name)?);
            match value {
                Value::Array(items) => {
                    out.push_str("[\n");
                    for item in items {
                        let _ = writeln!(out, "    {},", serde_json::to_string(&item)?);
                    }
                    out.push_str("  ],\n");
                }
                other => {
                    let _ = writeln!(out, "{},", serde_json::to_string(&other)?);
                }
            }
        }
    }
    out.push_str("};\n");
    let LowerTables { runs, long } = lower_tables();
    out.push_str("// [start, count, delta, stride] runs of single-character lower cases.\n");
    out.push_str("var LOWER = [");
    for (i, r) in runs.iter().enumerate() {
        if i % 8 == 0 {
            out.push_str("\n  ");
        } else {
            out.push(' ');
        }
        let _ = write!(out, "{},{},{},{},", r[0], r[1], r[2], r[3]);
    }
    out.push_str("\n];\n");
    out.push_str("// Lower cases longer than one character: [code point, [lower case]].\n");
    out.push_str("var LOWER_LONG = [");
    for (i, (cp, lower)) in long.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "[{cp}, {lower:?}]");
    }
    out.push_str("];\n");
    out.push_str("// [first, last, class] ranges for final sigma: 1 case-ignorable, 2 cased.\n");
    out.push_str("var SIGMA = [");
    for (i, r) in sigma_table().iter().enumerate() {
        if i % 8 == 0 {
            out.push_str("\n  ");
        } else {
            out.push(' ');
        }
        let _ = write!(out, "{},{},{},", r[0], r[1], r[2]);
    }
    out.push_str("\n];\n");
    let white: Vec<u32> = (0..=0x10FFFFu32)
        .filter_map(char::from_u32)
        .filter(|c| c.is_whitespace())
        .map(u32::from)
        .collect();
    out.push_str("// Code points `char::is_whitespace` accepts (a blank `q` is absent).\n");
    let _ = writeln!(out, "var WHITE_SPACE = {white:?};");
    out.push_str("// END GENERATED\n");
    Ok(out)
}

// ----------------------------------------------------------------------------------
// The corpus

/// Characters the request target may hold raw (besides unreserved ones) without
/// changing its structure, in a path segment and in a query name or value.
const RAW_IN_SEGMENT: &str = "!$'()*,;:@=&+";
const RAW_IN_QUERY: &str = "!$'()*,;:@/?";

struct Corpus {
    rng: ChaCha8Rng,
    out: std::io::BufWriter<std::fs::File>,
    count: u64,
}

impl Corpus {
    /// Writes one request, when it is a valid request target (as the shim would parse it).
    fn emit(&mut self, url: &str, canonical: Option<&str>) -> anyhow::Result<()> {
        let Ok(uri) = url.parse::<axum::http::Uri>() else {
            return Ok(());
        };
        if uri.scheme().is_some() || !url.starts_with('/') {
            return Ok(());
        }
        let file = tree::file_for_request(uri.path(), uri.query());
        let mut line = json!({"url": url, "file": file});
        if let Some(c) = canonical {
            line["canonical"] = json!(c);
        }
        serde_json::to_writer(&mut self.out, &line)?;
        self.out.write_all(b"\n")?;
        self.count += 1;
        Ok(())
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100u32) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.random_range(0..items.len())]
    }

    /// One spelling of `text` in a URL: characters percent-encoded or not (upper or
    /// lower hex), spaces as `+` or `%20` in a query, non-ASCII raw or encoded.
    fn spell(&mut self, text: &str, in_query: bool) -> String {
        let raw_ok = if in_query {
            RAW_IN_QUERY
        } else {
            RAW_IN_SEGMENT
        };
        let mut out = String::new();
        for c in text.chars() {
            let unreserved = c.is_ascii_alphanumeric() || "-._~".contains(c);
            let raw = if unreserved {
                !self.chance(10)
            } else if c == ' ' && in_query && self.chance(60) {
                out.push('+');
                continue;
            } else if c.is_ascii() {
                raw_ok.contains(c) && self.chance(50)
            } else {
                self.chance(20)
            };
            if raw {
                out.push(c);
            } else {
                let lower_hex = self.chance(20);
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    if lower_hex {
                        let _ = write!(out, "%{b:02x}");
                    } else {
                        let _ = write!(out, "%{b:02X}");
                    }
                }
            }
        }
        out
    }

    /// `text` with some letters in upper case.
    fn mixed_case(&mut self, text: &str) -> String {
        let mut out = String::new();
        for c in text.chars() {
            if self.chance(40) {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
        }
        out
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.rng.random_range(0..=i);
            items.swap(i, j);
        }
    }
}

fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// Text values the corpus writes for case-insensitive filters and ids that the sample
/// does not hold: case mappings that differ between Unicode versions and runtimes.
const UNICODE: &[&str] = &[
    "ΟΔΥΣΣΕΥΣ",
    "ΣΑΣ",
    "Σ",
    "aΣ",
    "AΣ'B",
    "A\u{345}Σ",
    "AΣ\u{345}",
    "A.Σ.",
    "İSTANBUL",
    "ǅUNGLA",
    "ＡＢＣ",
    "ẞTRASSE",
    "ﬃ",
    "ᎠᎡᏴ",
    "ᲐᲑᲒ",
    "\u{10D50}\u{10D51}",
    "\u{1E900}",
    "\u{A7CB}\u{A7CC}",
    "KELVIN \u{212A}",
    "Ω \u{2126}",
    "e\u{301}\u{E9}",
    "😀 emoji",
    "\u{FEFF}bom",
    "tab\there",
    "line\nfeed",
    "nul\0byte",
    "a/b",
    "..",
    ".hidden",
    "index",
    "INDEX",
    "index@x",
    "%",
    "&=+#?",
];

fn corpus(out: &Path, site: Option<&Path>, seed: u64) -> anyhow::Result<u64> {
    // The sample tree, generated here when no site is given (removed on return).
    let tmp = tempfile::tempdir()?;
    let site = match site {
        Some(site) => site.to_path_buf(),
        None => {
            let db = tmp.path().join("roost.db");
            roost::store::init_db(&db, true, roost::idx::build)?;
            let site = tmp.path().join("site");
            roost::generate::generate(&roost::generate::Options {
                db,
                out: site.clone(),
                jobs: None,
                precompress: roost::generate::Precompress::NONE,
                today: "2026-01-15".to_string(),
                progress: false,
                public_url: None,
                wait: false,
                manifest_json: true,
            })?;
            site
        }
    };
    let root = site.canonicalize()?;
    let manifest = roost::generate::read_manifest(&root)
        .ok_or_else(|| anyhow!("{}: no manifest", root.display()))?;
    let mut c = Corpus {
        rng: ChaCha8Rng::seed_from_u64(seed),
        out: std::io::BufWriter::new(std::fs::File::create(out)?),
        count: 0,
    };
    let mut text_values: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut lists = Vec::new();
    let mut details = Vec::new();
    for entry in &manifest.files {
        let Some(rel) = entry.path.strip_prefix("api/v0/") else {
            continue;
        };
        let Some(stem) = rel.strip_suffix(".json") else {
            continue;
        };
        if stem == "index" || stem == "openapi" || rel.starts_with("docs/") {
            continue;
        }
        let (dir, name) = stem.rsplit_once('/').unwrap_or(("", stem));
        if name == "index" || name.starts_with("index@") {
            let query = name.strip_prefix("index@").unwrap_or("");
            let pairs: Vec<(String, String)> = query
                .split('&')
                .filter(|p| !p.is_empty())
                .filter_map(|p| p.split_once('='))
                .map(|(k, v)| (decode(k), decode(v)))
                .collect();
            let url = format!("/api/v0/{dir}/");
            let Some(Target::List { spec, .. }) = tree::split_path(&url).map(|s| tree::route(&s))
            else {
                bail!("{url} is not a list");
            };
            for (k, v) in &pairs {
                if let Some(p) = spec.params.iter().find(|p| p.name == k) {
                    if p.kind == ParamKind::Text {
                        text_values.entry(p.name).or_default().push(v.clone());
                    }
                }
            }
            lists.push((entry.path.clone(), dir.to_string(), spec, pairs));
        } else {
            details.push((entry.path.clone(), stem.to_string()));
        }
    }
    for values in text_values.values_mut() {
        values.sort();
        values.dedup();
    }
    for (file, dir, spec, pairs) in &lists {
        list_variants(&mut c, file, dir, spec, pairs)?;
    }
    for (file, stem) in &details {
        detail_variants(&mut c, file, stem)?;
    }
    let list_names: Vec<&str> = catalog::LISTS.iter().map(|s| s.path).collect();
    for _ in 0..6000 {
        invented_list(&mut c, &list_names, &text_values)?;
    }
    for _ in 0..4000 {
        invented_detail(&mut c)?;
    }
    edge_cases(&mut c)?;
    c.out.flush()?;
    Ok(c.count)
}

/// Extra parameters that do not change the answer.
fn harmless_extra(c: &mut Corpus, spec: &ListSpec, pairs: &[(String, String)]) -> String {
    let has = |name: &str| pairs.iter().any(|(k, _)| k == name);
    let mut options: Vec<String> = vec![
        "utm_source=newsletter".into(),
        "foo".into(),
        "Page=3".into(),
        "ORDERING=bogus".into(),
        "x=%FF".into(),
        "%FF=1".into(),
        "=".into(),
        "a=b=c".into(),
        "callback=%E2%9C%93".into(),
        "state=".into(),
        "q=".into(),
        "page_size=".into(),
        "ordering=".into(),
        "is_upcoming=false".into(),
        "is_upcoming=0".into(),
        "level=".into(),
        "nul=%00".into(),
    ];
    if !has("page") {
        options.extend(["page=1", "page=%2B1", "page=0001", "page="].map(String::from));
    }
    options.extend(["page_size=100", "page_size=%2B100", "page_size=0100"].map(String::from));
    if spec.params.iter().any(|p| p.kind == ParamKind::Search) {
        options.extend(["q=+", "q=%20%09", "q=%E3%80%80", "q=%C2%85"].map(String::from));
    }
    // An extra naming a parameter of the request would change its answer.
    options.retain(|o| {
        let (name, value) = o.split_once('=').unwrap_or((o, ""));
        value.is_empty() || !has(name)
    });
    c.pick(&options).clone()
}

fn spell_pair(c: &mut Corpus, spec: &ListSpec, name: &str, value: &str) -> String {
    let kind = spec.params.iter().find(|p| p.name == name).map(|p| p.kind);
    let value = match kind {
        Some(ParamKind::Text) if c.chance(50) => c.mixed_case(value),
        Some(ParamKind::Bool) => {
            let spellings: &[&str] = if value == "true" {
                &["true", "TRUE", "True", "1"]
            } else {
                &["false", "FALSE", "False", "0"]
            };
            c.pick(spellings).to_string()
        }
        _ => value.to_string(),
    };
    let name = if c.chance(15) {
        c.spell(name, true)
    } else {
        name.to_string()
    };
    format!("{name}={}", c.spell(&value, true))
}

fn list_variants(
    c: &mut Corpus,
    file: &str,
    dir: &str,
    spec: &ListSpec,
    pairs: &[(String, String)],
) -> anyhow::Result<()> {
    let base = format!("/api/v0/{dir}");
    let canon = file
        .rsplit_once('/')
        .and_then(|(_, n)| n.strip_prefix("index@"))
        .and_then(|n| n.strip_suffix(".json"))
        .unwrap_or("")
        .to_string();
    let canonical = Some(file);
    if canon.is_empty() {
        c.emit(&format!("{base}/"), canonical)?;
        c.emit(&base, canonical)?;
    } else {
        c.emit(&format!("{base}/?{canon}"), canonical)?;
        c.emit(&format!("{base}?{canon}"), canonical)?;
    }
    // Spellings with the same answer.
    for _ in 0..14 {
        let mut parts: Vec<String> = pairs
            .iter()
            .map(|(k, v)| spell_pair(c, spec, k, v))
            .collect();
        for _ in 0..c.rng.random_range(0..3) {
            let extra = harmless_extra(c, spec, pairs);
            parts.push(extra);
        }
        c.shuffle(&mut parts);
        if !pairs.is_empty() && c.chance(30) {
            // A repeated single-valued parameter: the last non-empty value wins.
            let (k, _) = c.pick(pairs).clone();
            let is_choices = spec
                .params
                .iter()
                .any(|p| p.name == k && matches!(p.kind, ParamKind::Choices(_)));
            if !is_choices {
                let earlier = match k.as_str() {
                    "page" => "7".to_string(),
                    "ordering" => format!("-{}", spec.orderings[0].name),
                    _ => "earlier".to_string(),
                };
                parts.insert(0, format!("{k}={earlier}"));
            } else {
                let same: Vec<&(String, String)> = pairs.iter().filter(|(n, _)| *n == k).collect();
                let (_, v) = (*c.pick(&same)).clone();
                parts.push(format!("{k}={v}"));
            }
        }
        if c.chance(10) {
            parts.insert(c.rng.random_range(0..=parts.len()), String::new());
        }
        let slash = if c.chance(50) { "/" } else { "" };
        c.emit(&format!("{base}{slash}?{}", parts.join("&")), canonical)?;
    }
    // Spellings the tree does not answer, or answers with another file.
    let mut different: Vec<String> = vec![
        "page_size=7".into(),
        "page_size=101".into(),
        "page_size=0".into(),
        "page=0".into(),
        "page=-1".into(),
        "page=abc".into(),
        "page=+1".into(),
        "page=9223372036854775807".into(),
        "page=9223372036854775808".into(),
        "page=18446744073709551616".into(),
        "ordering=nope".into(),
        "ordering=--created_at".into(),
        format!("ordering=-{}", spec.orderings[0].name),
    ];
    for p in spec.params {
        let v = match p.kind {
            ParamKind::Text => "Ünknown Välue".to_string(),
            ParamKind::Exact => "V1.0/RC".to_string(),
            ParamKind::Choice(vocab) | ParamKind::Choices(vocab) => vocab.values[0].to_uppercase(),
            ParamKind::Bool => "yes".to_string(),
            ParamKind::Gte | ParamKind::Lte => "12.5".to_string(),
            ParamKind::Upcoming => "true".to_string(),
            ParamKind::Search => "name:juice stars:>5".to_string(),
        };
        different.push(format!("{}={}", p.name, c.spell(&v, true)));
        different.push(format!("{}=%FF", p.name));
    }
    for _ in 0..6 {
        let mut parts: Vec<String> = pairs
            .iter()
            .map(|(k, v)| spell_pair(c, spec, k, v))
            .collect();
        parts.push(c.pick(&different).clone());
        c.shuffle(&mut parts);
        c.emit(&format!("{base}/?{}", parts.join("&")), None)?;
    }
    Ok(())
}

fn detail_variants(c: &mut Corpus, file: &str, stem: &str) -> anyhow::Result<()> {
    let segments: Vec<&str> = stem.split('/').collect();
    let spec = catalog::detail_spec(segments[0]).ok_or_else(|| anyhow!("{stem}: no detail"))?;
    let ids: Vec<String> = segments[1..].iter().map(|s| decode(s)).collect();
    let canonical = Some(file);
    c.emit(&format!("/api/v0/{stem}"), canonical)?;
    c.emit(&format!("/api/v0/{stem}/"), canonical)?;
    for round in 0..10 {
        let mut parts = vec![spec.path.to_string()];
        for (rule, id) in spec.ids.iter().zip(&ids) {
            let id = match rule {
                IdRule::Prefixed(prefix) => {
                    let with = if c.chance(50) {
                        format!("{prefix}{id}")
                    } else {
                        id.clone()
                    };
                    c.mixed_case(&with)
                }
                IdRule::Ci => c.mixed_case(id),
                IdRule::Exact => id.clone(),
                IdRule::Number => {
                    let zeros = "0".repeat(c.rng.random_range(0..3));
                    let plus = if c.chance(20) { "+" } else { "" };
                    format!("{plus}{zeros}{id}")
                }
            };
            if *rule == IdRule::Exact && id.contains('/') && c.chance(50) {
                // A client that decoded the tag's `/`: several segments.
                let spelled: Vec<String> = id.split('/').map(|s| c.spell(s, false)).collect();
                parts.push(spelled.join("/"));
            } else {
                parts.push(c.spell(&id, false));
            }
        }
        let slash = if c.chance(30) { "/" } else { "" };
        let query = match round % 4 {
            0 => "?page=2&utm_source=x",
            1 => "?",
            _ => "",
        };
        c.emit(
            &format!("/api/v0/{}{slash}{query}", parts.join("/")),
            canonical,
        )?;
    }
    // Other answers: case changed on an exact id, bad numbers, empty segments.
    let mut parts: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
    let last = parts.len() - 1;
    let variants = [
        format!("/api/v0/{}/", parts.join("//")),
        format!("/api/v0/{}/extra", parts.join("/")),
        format!("/api/v0/{}", parts[..last].join("/")),
        {
            parts[last] = c.mixed_case(&format!("{}x", parts[last]));
            format!("/api/v0/{}", parts.join("/"))
        },
        {
            parts[last] = "1.5".to_string();
            format!("/api/v0/{}", parts.join("/"))
        },
        {
            parts[last] = "%FF".to_string();
            format!("/api/v0/{}", parts.join("/"))
        },
        {
            parts[last] = "a%00b".to_string();
            format!("/api/v0/{}", parts.join("/"))
        },
    ];
    for url in variants {
        c.emit(&url, None)?;
    }
    Ok(())
}

/// A list request made up from the catalog: any parameters and values, often valid.
fn invented_list(
    c: &mut Corpus,
    list_names: &[&str],
    text_values: &BTreeMap<&'static str, Vec<String>>,
) -> anyhow::Result<()> {
    let snapshot = c.chance(15);
    let (base, spec): (String, &ListSpec) = if snapshot {
        let spec = c.pick(catalog::SNAPSHOT_LISTS);
        let key = c
            .pick(&["2025-02", "2026-07", "2026-07", "NOPE", "2026%2D07"])
            .to_string();
        let key = c.mixed_case(&key);
        (format!("/api/v0/snapshots/{key}/{}", spec.path), spec)
    } else {
        let name = *c.pick(list_names);
        let spec = catalog::list_spec(name).ok_or_else(|| anyhow!("{name}"))?;
        (format!("/api/v0/{name}"), spec)
    };
    let mut parts = Vec::new();
    for _ in 0..c.rng.random_range(0..6) {
        let roll = c.rng.random_range(0..10u32);
        let pair = if roll < 6 && !spec.params.is_empty() {
            let p = c.pick(spec.params);
            let value = match p.kind {
                ParamKind::Text => {
                    let from_data = text_values.get(p.name).filter(|v| !v.is_empty());
                    match from_data {
                        Some(values) if c.chance(60) => c.pick(values).clone(),
                        _ => c.pick(UNICODE).to_string(),
                    }
                }
                ParamKind::Exact => c.pick(&["v1.0", "release/2.0", "V1.0", "ü/ß"]).to_string(),
                ParamKind::Choice(values) | ParamKind::Choices(values) => {
                    let v = c.pick(values.values).to_string();
                    if c.chance(10) {
                        c.mixed_case(&v)
                    } else {
                        v
                    }
                }
                ParamKind::Bool => c
                    .pick(&["true", "False", "1", "0", "yes", "TRUE"])
                    .to_string(),
                ParamKind::Gte | ParamKind::Lte => {
                    c.pick(&["1", "-2.5", "nan", "inf", "x"]).to_string()
                }
                ParamKind::Upcoming => c.pick(&["true", "false", "0", "1", "maybe"]).to_string(),
                ParamKind::Search => c
                    .pick(&[
                        "", " ", "\u{3000}", "\u{85}", "\u{FEFF}", "juice", "stars:>5", "name:\"x",
                    ])
                    .to_string(),
            };
            let value = if c.chance(20) {
                c.mixed_case(&value)
            } else {
                value
            };
            format!("{}={}", c.spell(p.name, true), c.spell(&value, true))
        } else if roll < 8 {
            let o = c.pick(spec.orderings).name;
            let v = c
                .pick(&[
                    o.to_string(),
                    format!("-{o}"),
                    format!("+{o}"),
                    o.to_uppercase(),
                ])
                .clone();
            format!("ordering={}", c.spell(&v, true))
        } else {
            let v = c
                .pick(&[
                    "1",
                    "2",
                    "3",
                    "+2",
                    "02",
                    "0",
                    "",
                    "9223372036854775807",
                    "1e2",
                    " 2",
                ])
                .to_string();
            let name = *c.pick(&["page", "page", "page_size"]);
            format!("{name}={}", c.spell(&v, true))
        };
        parts.push(pair);
    }
    let slash = if c.chance(50) { "/" } else { "" };
    c.emit(&format!("{base}{slash}?{}", parts.join("&")), None)
}

/// A detail request made up of ids from anywhere.
fn invented_detail(c: &mut Corpus) -> anyhow::Result<()> {
    let spec = c.pick(catalog::DETAILS);
    let n = if c.chance(90) {
        spec.ids.len()
    } else {
        c.rng.random_range(0..5)
    };
    let mut parts = vec![spec.path.to_string()];
    for _ in 0..n {
        let id = match c.rng.random_range(0..4u32) {
            0 => c.pick(UNICODE).to_string(),
            1 => c
                .pick(&["42", "+7", "007", "-1", "9223372036854775808", "1e3", "0"])
                .to_string(),
            2 => {
                let prefix = c
                    .pick(&["www-chapter-", "WWW-Project-", "www-committee-", ""])
                    .to_string();
                format!("{prefix}{}", c.pick(&["london", "Zap", "", "İzmir"]))
            }
            _ => {
                let len = c.rng.random_range(240..262);
                "x".repeat(len)
            }
        };
        let id = if c.chance(30) { c.mixed_case(&id) } else { id };
        parts.push(c.spell(&id, false));
    }
    c.emit(&format!("/api/v0/{}", parts.join("/")), None)
}

/// Fixed requests at the contract's corners.
fn edge_cases(c: &mut Corpus) -> anyhow::Result<()> {
    let mut urls: Vec<String> = [
        "/api/v0",
        "/api/v0/",
        "/api/v0?page=2",
        "/api/v01",
        "/api/v0//",
        "/api/v0/openapi.json",
        "/api/v0/openapi.json/",
        "/api/v0/docs",
        "/api/v0/docs/",
        "/api/v0/docs/index.html",
        "/api/v0/issues#frag",
        "/api/v0/issues/?state=open#frag",
        "/api/v0/issues/#?state=open",
        "/api/v0/issues/?state=open&state=#x",
        "/api/v0/%69ssues/",
        "/api/v0/Issues/",
        "/api/v0/issues%2F",
        "/api/v0/issues/%",
        "/api/v0/issues/?%",
        "/api/v0/issues/?state=%zz",
        "/api/v0/issues/?state=open%",
        "/api/v0/members/%",
        "/api/v0/members/%zz",
        "/api/v0/members/%2",
        "/api/v0/members/%E2%82",
        "/api/v0/members/%C0%AF",
        "/api/v0/members/%ED%A0%80",
        "/api/v0/members/%F4%90%80%80",
        "/api/v0/members/%EF%BF%BF",
        "/api/v0/members/%F0%9F%98%80",
        "/api/v0/members/zü",
        "/api/v0/members/%CE%A3",
        "/api/v0/members/a%CE%A3",
        "/api/v0/members/index",
        "/api/v0/members/Index",
        "/api/v0/members/index@x",
        "/api/v0/members/.x",
        "/api/v0/members/..",
        "/api/v0/members/%2E%2E",
        "/api/v0/members/a.json",
        "/api/v0/members/constructor",
        "/api/v0/__proto__",
        "/api/v0/constructor/",
        "/api/v0/hasOwnProperty/x",
        "/api/v0/toString",
        "/api/v0/issues/?__proto__=1&constructor=2",
        "/api/v0/issues/?state=constructor",
        "/api/v0/snapshots/2026-07/issues",
        "/api/v0/snapshots/2026-07/issues/extra",
        "/api/v0/snapshots/2026-07/labels",
        "/api/v0/snapshots/2026-07",
        "/api/v0/snapshots/.x/issues",
        "/api/v0/snapshots/index/issues/",
        "/api/v0/releases/a/b/c/d/e",
        "/api/v0/releases/a/b/c//e",
        "/api/v0/releases/a/b/c/d/",
        "/api/v0/releases/a/b/index",
        "/api/v0/releases/a/b/.well-known/x",
        "/api/v0/issues/a/b/18446744073709551615",
        "/api/v0/issues/a/b/9223372036854775807",
        "/api/v0/issues/a/b/+",
        "/api/v0/issues/a/b/",
        "/api/v0/chapters/www-chapter-",
        "/api/v0/chapters/WWW-CHAPTER-",
        "/api/v0/chapters/www-chapter-www-chapter-x",
        "/api/v0/events/?is_upcoming=TRUE",
        "/api/v0/events/?is_upcoming=False",
        "/api/v0/projects/?q=%20%20",
        "/api/v0/projects/?q=%E2%80%8B",
        "/api/v0/projects/?q=%EF%BB%BF",
        "/api/v0/sponsors/?is_member=TrUe",
        "/api/v0/sponsors/?is_member=%C4%B0",
        "/api/v0/issues/?page=%2B2",
        "/api/v0/issues/?page=2+",
        "/api/v0/issues/?page=+2",
        "/api/v0/issues/?page_size=100&page_size=",
        "/api/v0/issues/?page_size=7&page_size=100",
        "/api/v0/issues/?ordering=created_at&ordering=",
        "/api/v0/releases/?tag_name=release%2F2.0",
        "/api/v0/releases/?tag_name=Release/2.0",
        "/api/v0/projects/?type=tool&type=code&type=tool",
        "/api/v0/projects/?type=tool&type=&type=code",
        "/api/v0/projects/?type=tool&type=Code",
    ]
    .map(String::from)
    .to_vec();
    // Names around the 255-byte limit.
    for n in 230..260 {
        urls.push(format!("/api/v0/sponsors/?sponsor_type={}", "s".repeat(n)));
        urls.push(format!(
            "/api/v0/sponsors/?sponsor_type={}",
            "é".repeat(n / 6)
        ));
        urls.push(format!("/api/v0/members/{}", "m".repeat(n)));
        urls.push(format!("/api/v0/releases/o/r/{}", "%2F".repeat(n / 3)));
        urls.push(format!("/api/v0/snapshots/{}/issues", "k".repeat(n)));
    }
    // Long search queries: blank ones count as absent up to the length limit.
    for n in [255, 256, 257] {
        urls.push(format!("/api/v0/projects/?q={}", "+".repeat(n)));
        urls.push(format!("/api/v0/projects/?q={}", "%E3%80%80".repeat(n)));
    }
    for url in urls {
        c.emit(&url, None)?;
    }
    Ok(())
}
