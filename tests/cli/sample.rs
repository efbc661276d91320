//! `roost db sample`: the committed sample is what its generator writes, byte for
//! byte, and the command refuses a folder it cannot or must not replace, leaving it
//! as it was.

use std::fs;
use std::path::Path;

use crate::support::roost;

/// The committed sample's files, sorted by name.
fn committed() -> Vec<(String, Vec<u8>)> {
    files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample"))
}

/// The files of `dir` with their bytes, sorted by name.
fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_generator_writes_the_committed_sample_byte_for_byte() {
    let mut made: Vec<(String, Vec<u8>)> = roost::synth::sample::files()
        .into_iter()
        .map(|(name, text)| (name, text.into_bytes()))
        .collect();
    made.sort();
    let committed = committed();
    let names = |files: &[(String, Vec<u8>)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&made), names(&committed));
    for ((name, got), (_, want)) in made.iter().zip(&committed) {
        let (got, want) = (String::from_utf8_lossy(got), String::from_utf8_lossy(want));
        let first = got.lines().zip(want.lines()).position(|(a, b)| a != b);
        assert!(
            got == want,
            "{name} differs from data/sample/{name} (first at line {first:?} of {} vs {})",
            got.lines().count(),
            want.lines().count()
        );
    }
}

#[test]
fn db_sample_writes_and_replaces_a_sample_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("nested/sample");
    for _ in 0..2 {
        let run = roost()
            .args(["db", "sample", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(String::from_utf8_lossy(&run.stdout).contains("wrote the sample (23 files)"));
    }
    let written = files_in(&out);
    assert!(
        written == committed(),
        "the written sample differs from data/sample/"
    );
    // Nothing left beside it.
    let beside: Vec<_> = fs::read_dir(tmp.path().join("nested")).unwrap().collect();
    assert_eq!(beside.len(), 1);
}

#[track_caller]
fn refused(out: &Path, cwd: &Path) -> String {
    let run = roost()
        .current_dir(cwd)
        .args(["db", "sample", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    String::from_utf8_lossy(&run.stderr).into_owned()
}

#[test]
fn db_sample_refuses_a_path_under_a_file_a_file_and_a_foreign_folder() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("notes.txt"), "mine").unwrap();

    let err = refused(Path::new("notes.txt/sample"), tmp.path());
    assert!(
        err.contains("cannot write the sample at notes.txt"),
        "{err}"
    );

    let err = refused(Path::new("notes.txt"), tmp.path());
    assert!(err.contains("notes.txt is not a folder"), "{err}");
    assert_eq!(
        fs::read_to_string(tmp.path().join("notes.txt")).unwrap(),
        "mine"
    );

    let mine = tmp.path().join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("members.jsonl"), "old\n").unwrap();
    fs::write(mine.join("thesis.tex"), "mine").unwrap();
    let err = refused(&mine, tmp.path());
    assert!(
        err.contains("holds thesis.tex, which is not a file of the sample"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(mine.join("members.jsonl")).unwrap(),
        "old\n"
    );
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        2,
        "nothing written beside"
    );
}
