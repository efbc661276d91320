//! Reading the JSON Lines interchange format: one file per record type in a folder,
//! parsed strictly into [`crate::records`] types. Every syntax and type error of every
//! file is collected as `file:line: what is wrong` (physical line numbers) before
//! anything is returned; blank lines are skipped. `community.json` is the one file
//! holding a single JSON object; its errors name the line too.
//!
//! Only regular files are read: a FIFO, a device, a folder or a symbolic link leading
//! out of the folder is refused by name (a FIFO would block the import, `/dev/zero`
//! would fill the memory). A file's errors past the first [`KEPT_PER_FILE`] are
//! counted, not kept.

use std::fs;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::ImportErrors;
use crate::records::{Community, Dataset, Origin, Records};

/// The one interchange file that is a single JSON object, not JSON Lines.
pub const COMMUNITY: &str = "community.json";

pub use crate::records::KINDS;

/// Every name in `dir` that is not an interchange file (hidden names, starting with
/// `.`, aside): `Name: not a file roost imports; did you mean name?`, naming the
/// closest known file (compared without case, by edit distance).
fn unknown_names(dir: &Path, errors: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let known: Vec<String> = KINDS
        .iter()
        .map(|k| format!("{k}.jsonl"))
        .chain([COMMUNITY.to_string()])
        .collect();
    let mut unknown: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && !known.contains(name))
        .collect();
    unknown.sort();
    for name in unknown {
        let lower = name.to_lowercase();
        let closest = known
            .iter()
            .min_by_key(|k| strsim::levenshtein(&lower, k))
            .map(|k| format!("; did you mean {k}?"))
            .unwrap_or_default();
        errors.push(format!(
            "{name}: not a file roost imports (KIND.jsonl or {COMMUNITY}, in lower \
             case){closest}"
        ));
    }
}

/// Reads a folder of interchange files. Syntax and type errors are collected for all
/// files before returning.
pub fn read_dir(dir: &Path) -> Result<Dataset, ImportErrors> {
    if !dir.is_dir() {
        return Err(ImportErrors(
            vec![format!(
                "{}: not a directory of JSON Lines files",
                dir.display()
            )],
            0,
        ));
    }
    let mut errors = Vec::new();
    unknown_names(dir, &mut errors);
    let mut omitted = 0;
    let inside = dir.canonicalize().ok();
    let mut files = Files {
        dir,
        inside: inside.as_deref(),
        omitted: &mut omitted,
    };
    let ds = read_all(&mut files, &mut errors);
    if errors.is_empty() && omitted == 0 {
        Ok(ds)
    } else {
        Err(ImportErrors(errors, omitted))
    }
}

/// Errors of one file kept in memory; the rest are counted.
pub const KEPT_PER_FILE: usize = 1000;

/// The folder being read.
struct Files<'a> {
    dir: &'a Path,
    /// The folder's canonical path (symbolic links must stay inside it).
    inside: Option<&'a Path>,
    omitted: &'a mut usize,
}

macro_rules! read_kinds {
    ($($field:ident: $ty:ty),* $(,)?) => {
        fn read_all(f: &mut Files, errors: &mut Vec<String>) -> Dataset {
            Dataset {
                $($field: read_file(f, concat!(stringify!($field), ".jsonl"), errors),)*
                community: read_community(f, errors),
            }
        }
    };
}
crate::with_kinds!(read_kinds);

/// The bytes of `file` in the folder: `Ok(None)` when it is absent, an error (naming
/// it) when it is not a regular file or a symbolic link to one inside the folder, or
/// cannot be read.
fn read_regular(f: &Files, file: &str) -> Result<Option<Vec<u8>>, String> {
    let path = f.dir.join(file);
    let meta = match fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{file}: cannot read {}: {e}", path.display())),
    };
    if meta.file_type().is_symlink() {
        let target = path.canonicalize().map_err(|e| {
            format!(
                "{file}: a symbolic link that cannot be followed ({}): {e}",
                path.display()
            )
        })?;
        if !f.inside.is_some_and(|inside| target.starts_with(inside)) {
            return Err(format!(
                "{file}: a symbolic link to {}, outside the folder; only the folder's own \
                 files are read",
                target.display()
            ));
        }
    }
    let kind = |m: &fs::Metadata| -> Option<&'static str> {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        match () {
            _ if t.is_file() => None,
            _ if t.is_dir() => Some("a folder"),
            _ if t.is_fifo() => Some("a FIFO"),
            _ if t.is_char_device() || t.is_block_device() => Some("a device"),
            _ if t.is_socket() => Some("a socket"),
            _ => Some("not a regular file"),
        }
    };
    let not_regular = |what: &str| {
        format!(
            "{file}: {} is {what}; only regular files are read",
            path.display()
        )
    };
    if let Ok(target) = fs::metadata(&path) {
        if let Some(what) = kind(&target) {
            return Err(not_regular(what));
        }
    }
    let read = || -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        let mut opened = fs::File::open(&path)?;
        // What was opened, not what the name held a moment before.
        if let Some(what) = kind(&opened.metadata()?) {
            return Err(std::io::Error::other(not_regular(what)));
        }
        let mut bytes = Vec::new();
        opened.read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    read()
        .map(Some)
        .map_err(|e| format!("{file}: cannot read {}: {e}", path.display()))
}

fn read_file<T: DeserializeOwned>(
    f: &mut Files,
    file: &'static str,
    errors: &mut Vec<String>,
) -> Records<T> {
    match read_regular(f, file) {
        Ok(Some(bytes)) => {
            let (records, omitted) = parse_lines_bounded(file, &bytes, errors, KEPT_PER_FILE);
            *f.omitted += omitted;
            records
        }
        Ok(None) => Vec::new(),
        Err(e) => {
            errors.push(e);
            Vec::new()
        }
    }
}

/// `community.json`: one JSON object (all defaults when the file is missing).
fn read_community(f: &mut Files, errors: &mut Vec<String>) -> Community {
    match read_regular(f, COMMUNITY) {
        Ok(Some(bytes)) => parse_community(&bytes, errors),
        Ok(None) => Community::default(),
        Err(e) => {
            errors.push(e);
            Community::default()
        }
    }
}

/// Parses `community.json`; an error names the file's line.
pub fn parse_community(bytes: &[u8], errors: &mut Vec<String>) -> Community {
    match serde_json::from_slice::<Community>(bytes) {
        Ok(community) => community,
        Err(e) => {
            errors.push(format!(
                "{COMMUNITY}:{}: {}",
                e.line(),
                describe_json_error(&e)
            ));
            Community::default()
        }
    }
}

/// Parses the lines of one interchange file.
pub fn parse_lines<T: DeserializeOwned>(
    file: &'static str,
    bytes: &[u8],
    errors: &mut Vec<String>,
) -> Records<T> {
    parse_lines_bounded(file, bytes, errors, usize::MAX).0
}

/// Parses the lines of one interchange file, keeping its first `kept` errors; returns
/// the records and how many errors were counted but not kept.
fn parse_lines_bounded<T: DeserializeOwned>(
    file: &'static str,
    bytes: &[u8],
    all_errors: &mut Vec<String>,
    kept: usize,
) -> (Records<T>, usize) {
    let mut errors = Bounded {
        list: all_errors,
        kept,
        seen: 0,
    };
    let errors = &mut errors;
    let mut out = Vec::new();
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let origin = Origin {
            file,
            line: index + 1,
        };
        let Ok(line) = std::str::from_utf8(raw) else {
            errors.push(format!("{origin}: not valid UTF-8"));
            continue;
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<T>(line) {
            Ok(record) => out.push((origin, record)),
            Err(e) => errors.push(format!("{origin}: {}", describe_json_error(&e))),
        }
    }
    (out, errors.seen.saturating_sub(errors.kept))
}

/// A file's errors: the first `kept` pushed to `list`, the rest counted.
struct Bounded<'a> {
    list: &'a mut Vec<String>,
    kept: usize,
    seen: usize,
}

impl Bounded<'_> {
    fn push(&mut self, error: String) {
        if self.seen < self.kept {
            self.list.push(error);
        }
        self.seen += 1;
    }
}

/// serde_json's message without its "at line 1 column N" (the line is the file's),
/// keeping the column.
pub(super) fn describe_json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    let message = message.replace("struct ", "record ");
    match e.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            format!("invalid JSON: {message} (column {})", e.column())
        }
        _ => format!("{message} (column {})", e.column()),
    }
}
