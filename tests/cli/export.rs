//! `roost db export`: the dataset back out in the interchange format. Importing an
//! export renders the same tree byte for byte (the sample and `synth --scale small`),
//! and the export of the committed sample holds its records (normalised as the
//! export module says: every field written, timestamps in UTC).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{generate, Sample};

/// The paths of every file of a tree (through its `site` symlink), sorted.
fn files(site: &Path) -> (PathBuf, Vec<PathBuf>) {
    let root = std::fs::canonicalize(site).unwrap();
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(&root).unwrap().to_path_buf())
        .collect();
    files.sort();
    (root, files)
}

/// Both trees hold the same files with the same bytes (read one pair at a time: a
/// `small` tree is 130 MB); the number of files.
fn assert_same_tree(a: &Path, b: &Path) -> usize {
    let ((a_root, a_files), (b_root, b_files)) = (files(a), files(b));
    assert!(a_files.len() > 100, "{} files", a_files.len());
    assert!(a_files == b_files, "the trees hold different files");
    for path in &a_files {
        let same =
            std::fs::read(a_root.join(path)).unwrap() == std::fs::read(b_root.join(path)).unwrap();
        assert!(same, "{} differs after export and import", path.display());
    }
    a_files.len()
}

/// Exports `original`, imports the export, renders both datasets: the same tree.
fn round_trip(original: &Path, dir: &Path) -> usize {
    let exported = dir.join("export");
    let conn = roost::store::open_read(original).unwrap();
    roost::store::export::export_dir(&conn, &exported, false).unwrap();
    let again = dir.join("again.db");
    roost::store::import_dir(&exported, &again, roost::idx::build).unwrap();
    let (a, b) = (dir.join("site-a"), dir.join("site-b"));
    generate(original, &a, false);
    generate(&again, &b, false);
    assert_same_tree(&a, &b)
}

#[test]
fn import_of_the_export_renders_the_same_tree_for_the_sample() {
    let Sample { dir, db } = Sample::new();
    round_trip(&db, dir.path());
}

/// Every row of every table, in rowid order (primary key order for a table without
/// rowids: the search index's), as text.
fn dump(db: &Path) -> BTreeMap<String, Vec<String>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<(String, bool)> = conn
        .prepare(
            "SELECT name, sql LIKE '%WITHOUT ROWID%' FROM sqlite_master WHERE type = 'table' \
             ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables
        .into_iter()
        .map(|(table, without_rowid)| {
            let order = if without_rowid { "" } else { " ORDER BY rowid" };
            let mut stmt = conn
                .prepare(&format!("SELECT * FROM \"{table}\"{order}"))
                .unwrap();
            let n = stmt.column_count();
            let rows = stmt
                .query_map([], |r| {
                    Ok((0..n)
                        .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                        .collect::<Vec<_>>()
                        .join("|"))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            (table, rows)
        })
        .collect()
}

/// At `small` scale (59,000 files): the same tree, and the same rows in every table.
#[test]
fn import_of_the_export_renders_the_same_tree_for_synthetic_data() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    roost::synth::synth(roost::synth::Scale::Small, 7, &db).unwrap();
    let files = round_trip(&db, dir.path());
    assert!(files > 50_000, "{files} files");
    let (a, b) = (dump(&db), dump(&dir.path().join("again.db")));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    assert!(a["issues"].len() >= 1000, "{} issues", a["issues"].len());
    for (table, rows) in &a {
        assert_eq!(rows.len(), b[table].len(), "{table}: row count");
        for (i, (x, y)) in rows.iter().zip(&b[table]).enumerate() {
            assert_eq!(x, y, "{table} row {}", i + 1);
        }
    }
}

/// `sample` holds as `exported` does, field by field; a field the sample leaves out is
/// exported with its default; timestamps compare as instants.
fn assert_holds(context: &str, sample: &Value, exported: &Value) {
    match (sample, exported) {
        (Value::Object(s), Value::Object(e)) => {
            for (key, value) in s {
                let got = e
                    .get(key)
                    .unwrap_or_else(|| panic!("{context}: {key} is not exported"));
                assert_holds(&format!("{context}.{key}"), value, got);
            }
            for (key, value) in e {
                if !s.contains_key(key) {
                    let default = matches!(value, Value::Null)
                        || value == &Value::from("")
                        || value == &Value::from(0)
                        || value == &Value::Bool(false)
                        || value == &Value::Array(vec![])
                        || (key == "url"
                            && value.as_str().is_some_and(|u| u.starts_with("https://")))
                        || (key == "is_active" && value == &Value::Bool(true));
                    assert!(default, "{context}.{key}: {value} is not a default");
                }
            }
        }
        (Value::Array(s), Value::Array(e)) => {
            assert_eq!(s.len(), e.len(), "{context}");
            for (i, (s, e)) in s.iter().zip(e).enumerate() {
                assert_holds(&format!("{context}[{i}]"), s, e);
            }
        }
        (Value::String(s), Value::String(e)) if s != e => {
            let (s, e) = (roost::records::Ts::parse(s), roost::records::Ts::parse(e));
            assert!(s.is_ok() && s == e, "{context}: {sample} became {exported}");
        }
        (Value::Number(s), Value::Number(e)) => {
            assert_eq!(s.as_f64(), e.as_f64(), "{context}");
        }
        _ => assert_eq!(sample, exported, "{context}"),
    }
}

#[test]
fn the_export_of_the_sample_holds_its_records_in_order() {
    let Sample { dir, db } = Sample::new();
    let out = dir.path().join("out");
    let conn = roost::store::open_read(&db).unwrap();
    let counts = roost::store::export::export_dir(&conn, &out, false).unwrap();
    assert_eq!(counts.len(), roost::store::SAMPLE.len());
    for (file, text) in roost::store::SAMPLE {
        let sample: Vec<Value> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let exported: Vec<Value> = std::fs::read_to_string(out.join(file))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(sample.len(), exported.len(), "{file}: record count");
        assert!(!sample.is_empty(), "{file} has records");
        for (i, (s, e)) in sample.iter().zip(&exported).enumerate() {
            assert_holds(&format!("{file}:{}", i + 1), s, e);
        }
    }
}

#[test]
fn an_export_replaces_a_folder_only_when_asked_and_leaves_nothing_behind() {
    let Sample { dir, db } = Sample::new();
    let conn = roost::store::open_read(&db).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let err = roost::store::export::export_dir(&conn, &out, false).unwrap_err();
    assert!(err.to_string().contains("--force"), "{err}");
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
    roost::store::export::export_dir(&conn, &out, true).unwrap();
    assert!(!out.join("notes.txt").exists());
    assert!(out.join("issues.jsonl").is_file());
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "left behind: {names:?}");
}
