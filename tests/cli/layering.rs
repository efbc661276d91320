//! The module graph of `src/`: imports flow one way (docs/architecture.md, "Modules").
//!
//! Reads every source file, collects the `crate::…`, `super::…` and `self::…` paths it
//! names (grouped `use crate::{a, b::c}` included), resolves each to the source file
//! of the module it names, and checks that
//! - no module but `main` imports `cli` (clap types stop there);
//! - the files form no import circle. A module and its submodules are one unit: a
//!   submodule may use what its parent declares (`super::`), so the edges from a
//!   parent to its own submodules (declaring, re-exporting or calling into them) do
//!   not count; every other edge does, between siblings and cousins included;
//! - the top-level modules form no circle either.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `src/a/b.rs` → `a::b`; `src/a/mod.rs` → `a`; `src/lib.rs` → `` (the crate root).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Drops `//` comments (doc comments included) so prose naming a module is no import.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a `use` tree or expression names after a `crate::`/`super::`/`self::`
/// prefix at `rest`: `a::b::C` → [`a::b::C`]; `{a, b::{c, d}}` → [`a`, `b::c`, `b::d`].
fn paths_after(rest: &str) -> Vec<String> {
    let rest = rest.trim_start();
    if let Some(inner) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut end = inner.len();
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    end = i;
                    break;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        let body = &inner[..end];
        let mut items = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&body[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&body[start..]);
        return items
            .into_iter()
            .map(str::trim)
            .filter(|s| !s.is_empty() && *s != "self")
            .flat_map(|item| {
                let (head, tail) = match item.find("::") {
                    Some(i) => (&item[..i], Some(&item[i + 2..])),
                    None => (item, None),
                };
                let head = head.split_whitespace().next().unwrap_or("").to_string();
                match tail {
                    Some(t) => paths_after(t)
                        .into_iter()
                        .map(|p| format!("{head}::{p}"))
                        .collect(),
                    None => vec![head],
                }
            })
            .collect();
    }
    let path: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    let path = path.trim_end_matches(':').to_string();
    if let Some(i) = path.rfind("::") {
        if rest[path.len()..].trim_start().starts_with('{') || rest[i..].starts_with("::{") {
            let base = &path[..i];
            return paths_after(&rest[i + 2..])
                .into_iter()
                .map(|p| format!("{base}::{p}"))
                .collect();
        }
    }
    if rest[path.len()..].starts_with("::{") {
        return paths_after(&rest[path.len() + 2..])
            .into_iter()
            .map(|p| format!("{path}::{p}"))
            .collect();
    }
    vec![path]
}

/// The modules `text` (the source of module `module`) refers to, as absolute paths.
fn references(module: &str, text: &str) -> BTreeSet<String> {
    let text = strip_comments(text);
    let parent = match module.rfind("::") {
        Some(i) => module[..i].to_string(),
        None => String::new(),
    };
    let join = |base: &str, p: &str| {
        if base.is_empty() {
            p.to_string()
        } else {
            format!("{base}::{p}")
        }
    };
    let mut out = BTreeSet::new();
    for (prefix, base) in [
        ("crate::", String::new()),
        ("super::", parent),
        ("self::", module.to_string()),
    ] {
        let mut from = 0;
        while let Some(i) = text[from..].find(prefix) {
            let at = from + i;
            from = at + prefix.len();
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            for p in paths_after(&text[from..]) {
                if !p.is_empty() {
                    out.insert(join(&base, &p));
                }
            }
        }
    }
    out
}

/// The longest known module that `path` starts with.
fn resolve<'a>(modules: &'a BTreeSet<String>, path: &str) -> Option<&'a String> {
    let mut best: Option<&String> = None;
    for m in modules {
        let hit = !m.is_empty() && (path == m || path.starts_with(&format!("{m}::")));
        if hit && best.is_none_or(|b| m.len() > b.len()) {
            best = Some(m);
        }
    }
    best
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let texts: Vec<(String, String)> = files
        .iter()
        .filter(|f| !f.ends_with("main.rs"))
        .map(|f| (module_of(&src, f), std::fs::read_to_string(f).unwrap()))
        .collect();
    let modules: BTreeSet<String> = texts.iter().map(|(m, _)| m.clone()).collect();
    let mut graph = BTreeMap::new();
    for (module, text) in &texts {
        let mut edges = BTreeSet::new();
        for r in references(module, text) {
            if let Some(target) = resolve(&modules, &r) {
                let own_submodule = target.starts_with(&format!("{module}::"));
                if target != module && !own_submodule && !module.is_empty() {
                    edges.insert(target.clone());
                }
            }
        }
        graph.insert(module.clone(), edges);
    }
    graph
}

/// One circle of `graph`, if it has any.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let start = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node) {
            let mut stack = Vec::new();
            if let Some(c) = visit(node, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn reads_grouped_and_relative_paths() {
    let text = "use crate::{generate, records::{Date, Dataset}, store};\n\
                use super::db::Pool; // crate::cli in a comment\n\
                let x = crate::config::today();";
    let refs = references("graphql::query", text);
    let want: BTreeSet<String> = [
        "generate",
        "records::Date",
        "records::Dataset",
        "store",
        "graphql::db::Pool",
        "config::today",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(refs, want);
}

#[test]
fn finds_a_circle() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        find_cycle(&g).map(|c| c.len()),
        Some(4),
        "a → b → c → a is a circle"
    );
    g.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&g), None);
}

#[test]
fn nothing_below_cli_imports_it() {
    let importers: Vec<String> = graph()
        .into_iter()
        .filter(|(m, edges)| m != "cli" && !m.starts_with("cli::") && edges.contains("cli"))
        .map(|(m, _)| m)
        .collect();
    assert!(
        importers.is_empty(),
        "these modules import cli: {importers:?}"
    );
}

#[test]
fn source_files_form_no_import_circle() {
    let g = graph();
    assert!(g.len() > 20, "read {} modules", g.len());
    if let Some(cycle) = find_cycle(&g) {
        panic!("import circle: {}", cycle.join(" → "));
    }
}

#[test]
fn top_level_modules_form_no_import_circle() {
    let top = |m: &str| m.split("::").next().unwrap().to_string();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, edges) in graph() {
        let from = top(&module);
        let entry = g.entry(from.clone()).or_default();
        entry.extend(edges.iter().map(|e| top(e)).filter(|e| *e != from));
    }
    if let Some(cycle) = find_cycle(&g) {
        panic!(
            "import circle between top-level modules: {}",
            cycle.join(" → ")
        );
    }
}
