//! The file tree contract (docs/architecture.md §4): how a REST v0 request maps to a file
//! under `site/`, and how a URL path is routed to a list, a detail or a fixed
//! document. The generator writes files at these paths and the shim reads them, so a
//! CDN rewrite rule or a mirror can rely on them. [`file_for_request`] is the whole
//! request URL → file decision the shim makes; the edge canonicaliser
//! (`edge/canonical.js`) is tested against it.

use std::path::PathBuf;

use crate::catalog::{self, DetailSpec, FieldError, ListQuery, ListSpec};

/// The URL prefix of the REST API and the tree folder that mirrors it.
pub const API_PREFIX: &str = "/api/v0";
pub const API_DIR: &str = "api/v0";
/// Longest file name written; longer canonical names are answered live.
pub const MAX_NAME: usize = 255;

/// A canonical id segment: percent-encoded like query values; a segment that would
/// read as `index`, `index@…` or start with `.` has its first character encoded.
pub fn encode_id(id: &str) -> String {
    let encoded = catalog::encode(id);
    if encoded == "index" || encoded.starts_with("index@") || encoded.starts_with('.') {
        let first = encoded.as_bytes()[0];
        format!("%{first:02X}{}", &encoded[1..])
    } else {
        encoded
    }
}

/// The tree path of a list page: `<dir>/index.json` or `<dir>/index@<query>.json`.
/// `dir` are the URL segments after `/api/v0/` (already canonical). `None` when the
/// file name would exceed [`MAX_NAME`] bytes (such a query is answered live).
pub fn list_file(dir: &[String], canonical_query: &str) -> Option<PathBuf> {
    let name = if canonical_query.is_empty() {
        "index.json".to_string()
    } else {
        format!("index@{canonical_query}.json")
    };
    if name.len() > MAX_NAME {
        return None;
    }
    let mut path = PathBuf::from(API_DIR);
    path.extend(dir);
    path.push(name);
    Some(path)
}

/// The tree path of a detail: `<resource>/<id>/…/<last id>.json`, ids canonical.
pub fn detail_file(resource: &str, ids: &[String]) -> Option<PathBuf> {
    let mut path = PathBuf::from(API_DIR);
    path.push(resource);
    for (i, id) in ids.iter().enumerate() {
        let mut segment = encode_id(id);
        if i + 1 == ids.len() {
            segment.push_str(".json");
        }
        if segment.len() > MAX_NAME {
            return None;
        }
        path.push(segment);
    }
    Some(path)
}

/// The tree path of the detail of `spec` with `ids`, when a request can name it: the
/// URL built from the file's path routes back to exactly these ids. `None` (the record
/// is answered live, or not at all) when an id holds a character no request carries
/// (a NUL), or when that URL would name other ids (`www-chapter-x` is the chapter
/// `x`): a request for one record is never answered by another's file.
pub fn detail_file_for(spec: &DetailSpec, ids: &[String]) -> Option<PathBuf> {
    let url = detail_url(spec.path, ids);
    let routed = match route(&split_path(&url)?) {
        Target::Detail {
            spec: s,
            ids: routed,
        } if std::ptr::eq(s, spec) => routed,
        _ => return None,
    };
    if routed != ids {
        return None;
    }
    detail_file(spec.path, ids)
}

/// The canonical URL path of a detail (`/api/v0/<resource>/<id>/…`).
pub fn detail_url(resource: &str, ids: &[String]) -> String {
    let mut url = format!("{API_PREFIX}/{resource}");
    for id in ids {
        url.push('/');
        url.push_str(&encode_id(id));
    }
    url
}

/// The tree file of a validated list request, or `None` when the tree does not hold
/// its answer (not pre-rendered, or a file name over [`MAX_NAME`] bytes).
pub fn list_request_file(
    spec: &ListSpec,
    snapshot: Option<&str>,
    query: &ListQuery,
) -> Option<PathBuf> {
    if !query.prerenderable(spec) {
        return None;
    }
    let dir = match snapshot {
        Some(key) => snapshot_list_dir(key, spec),
        None => vec![spec.path.to_string()],
    };
    list_file(&dir, &query.canonical(spec))
}

/// The file (relative to the site root, `/`-separated) that answers a request for
/// `path` (raw, still percent-encoded) with `query` (the raw query string), exactly as
/// the shim decides it; `None` when the answer is not pre-rendered: an unknown path,
/// the root, `openapi.json`, the docs, a query that is invalid or not rendered, an
/// over-long name. Whether the file exists is not checked: a missing page or record
/// is answered live.
pub fn file_for_request(path: &str, query: Option<&str>) -> Option<String> {
    let file = match route(&split_path(path)?) {
        Target::List { spec, snapshot } => {
            let query = list_query(spec, query).ok()?;
            list_request_file(spec, snapshot.as_deref(), &query)?
        }
        Target::Detail { spec, ids } => detail_file(spec.path, &ids)?,
        _ => return None,
    };
    file.to_str().map(str::to_string)
}

/// Query string → validated list query. Pairs are form-decoded (`+` is a space);
/// a known parameter whose value is not UTF-8 once decoded is an error, an unknown
/// one (or a name that is not UTF-8) is ignored.
pub fn list_query(spec: &ListSpec, raw: Option<&str>) -> Result<ListQuery, Vec<FieldError>> {
    let mut pairs = Vec::new();
    let mut errors = Vec::new();
    for part in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').unwrap_or((part, ""));
        let Some(name) = form_decode(name) else {
            continue;
        };
        match form_decode(value) {
            Some(value) => pairs.push((name, value)),
            None if is_known(spec, &name) => errors.push(FieldError {
                msg: format!(
                    "{name} must be UTF-8 text once percent-decoded; got '{}'",
                    value.chars().take(100).collect::<String>()
                ),
                param: name,
                kind: "value_error",
            }),
            None => {}
        }
    }
    match catalog::parse_query(spec, &pairs) {
        Ok(query) if errors.is_empty() => Ok(query),
        Ok(_) => Err(errors),
        Err(more) => {
            errors.extend(more);
            Err(errors)
        }
    }
}

fn form_decode(text: &str) -> Option<String> {
    let text = text.replace('+', " ");
    percent_encoding::percent_decode_str(&text)
        .decode_utf8()
        .ok()
        .map(|s| s.into_owned())
}

fn is_known(spec: &ListSpec, name: &str) -> bool {
    matches!(name, "page" | "page_size" | "ordering") || spec.params.iter().any(|p| p.name == name)
}

/// The URL segments of a snapshot sub-list's folder.
pub fn snapshot_list_dir(snapshot_key: &str, spec: &ListSpec) -> Vec<String> {
    vec![
        "snapshots".to_string(),
        encode_id(snapshot_key),
        spec.path.to_string(),
    ]
}

/// What a path under `/api/v0/` names.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Root,
    OpenApi,
    /// The docs page or one of its assets (path below `docs/`).
    Docs(String),
    List {
        spec: &'static ListSpec,
        /// Canonical snapshot key for a snapshot sub-list.
        snapshot: Option<String>,
    },
    Detail {
        spec: &'static DetailSpec,
        /// Canonical ids.
        ids: Vec<String>,
    },
    Unknown,
}

impl PartialEq for ListSpec {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl PartialEq for DetailSpec {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

/// Routes the decoded segments of a path below `/api/v0/` (a trailing empty segment
/// means a trailing slash; lists and details are served with or without it). Release tags may arrive with `/` encoded (`%2F`, one
/// segment) or, when a client decoded it, as several segments: both name the tag.
pub fn route(segments: &[String]) -> Target {
    let mut segs: Vec<&str> = segments.iter().map(|s| s.as_str()).collect();
    if segs.last() == Some(&"") {
        segs.pop();
    }
    if segs.iter().any(|s| s.is_empty()) {
        return Target::Unknown;
    }
    match segs.as_slice() {
        [] => Target::Root,
        ["openapi.json"] => Target::OpenApi,
        ["docs", rest @ ..] => Target::Docs(rest.join("/")),
        [list] => match catalog::list_spec(list) {
            Some(spec) => Target::List {
                spec,
                snapshot: None,
            },
            None => Target::Unknown,
        },
        ["snapshots", key, sub] => match catalog::snapshot_list_spec(sub) {
            Some(spec) => Target::List {
                spec,
                snapshot: Some(crate::store::lc(key)),
            },
            None => Target::Unknown,
        },
        [resource, ids @ ..] => {
            let Some(spec) = catalog::detail_spec(resource) else {
                return Target::Unknown;
            };
            let mut ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
            if spec.path == "releases" && ids.len() > 3 {
                let tag = ids[2..].join("/");
                ids.truncate(2);
                ids.push(tag);
            }
            match catalog::canonical_ids(spec, &ids) {
                Some(ids) => Target::Detail { spec, ids },
                None => Target::Unknown,
            }
        }
    }
}

/// Splits a raw URL path (still percent-encoded) below `/api/v0` into decoded
/// segments. `None` when it is not under the API or a segment is not UTF-8 once
/// decoded or holds a NUL.
pub fn split_path(raw: &str) -> Option<Vec<String>> {
    let rest = raw.strip_prefix(API_PREFIX)?;
    let rest = if rest.is_empty() {
        ""
    } else {
        rest.strip_prefix('/')?
    };
    let mut out = Vec::new();
    if rest.is_empty() {
        return Some(out);
    }
    for seg in rest.split('/') {
        let decoded = percent_encoding::percent_decode_str(seg)
            .decode_utf8()
            .ok()?
            .into_owned();
        if decoded.contains('\0') {
            return None;
        }
        out.push(decoded);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(path: &str) -> Vec<String> {
        split_path(path).unwrap()
    }

    #[test]
    fn ids_that_look_like_index_or_hidden_files_are_encoded() {
        assert_eq!(encode_id("index"), "%69ndex");
        assert_eq!(encode_id("index2"), "index2");
        assert_eq!(encode_id(".hidden"), "%2Ehidden");
        assert_eq!(encode_id(".."), "%2E.");
        assert_eq!(encode_id("release/2.0"), "release%2F2.0");
        assert_eq!(encode_id("a b&c%"), "a%20b%26c%25");
        assert_eq!(encode_id("zürich"), "z%C3%BCrich");
    }

    proptest::proptest! {
        /// Canonical ids are injective and filesystem-safe.
        #[test]
        fn canonical_ids_are_injective_and_safe(a in "\\PC{0,12}", b in "(index|\\.|[a-z%@/& ]){0,6}") {
            let (ea, eb) = (encode_id(&a), encode_id(&b));
            proptest::prop_assert_eq!(ea == eb, a == b);
            for e in [&ea, &eb] {
                proptest::prop_assert!(!e.contains('/') && !e.starts_with('.'));
                proptest::prop_assert!(e != "index" && !e.starts_with("index@"));
            }
            let decoded = percent_encoding::percent_decode_str(&ea).decode_utf8().unwrap();
            proptest::prop_assert_eq!(decoded, a.as_str());
        }
    }

    #[test]
    fn hostile_ids_map_one_to_one_or_not_at_all() {
        let hostile = [
            "nul\u{0}byte",
            "nul",
            "a/b",
            "a%2Fb",
            "%00",
            "..",
            ".",
            "%2E%2E",
            "index",
            "index@x",
            "a\\b",
            "tab\there",
            "line\nbreak",
            " ",
            "é",
            "E\u{301}",
            "www-chapter-nul",
            "x?y#z",
            "a;b",
        ];
        for resource in ["chapters", "members", "events"] {
            let spec = catalog::detail_spec(resource).unwrap();
            let mut seen: std::collections::HashMap<PathBuf, String> = Default::default();
            for raw in hostile {
                let id = if resource == "events" {
                    raw.to_string()
                } else {
                    crate::store::lc(raw)
                };
                let ids = vec![id.clone()];
                let Some(file) = detail_file_for(spec, &ids) else {
                    continue;
                };
                assert!(!id.contains('\0'), "{id:?}");
                // The request for the file's own URL reads this file.
                let url = detail_url(resource, &ids);
                assert_eq!(
                    file_for_request(&url, None).as_deref(),
                    file.to_str(),
                    "{id:?}"
                );
                // One file inside the resource's folder.
                let rel = file.strip_prefix(API_DIR).unwrap();
                assert_eq!(rel.components().count(), 2, "{id:?} → {}", file.display());
                assert!(!rel.to_string_lossy().contains("/."), "{id:?}");
                if let Some(other) = seen.insert(file.clone(), id.clone()) {
                    panic!("{id:?} and {other:?} map to {}", file.display());
                }
            }
        }
        // A NUL never reaches a file; the part before it is another id's file.
        let chapters = catalog::detail_spec("chapters").unwrap();
        assert_eq!(detail_file_for(chapters, &["nul\u{0}byte".into()]), None);
        assert_eq!(file_for_request("/api/v0/chapters/nul%00byte", None), None);
        assert_eq!(
            detail_file_for(chapters, &["nul".into()]).unwrap(),
            PathBuf::from("api/v0/chapters/nul.json")
        );
        // A chapter keyed `www-chapter-www-chapter-x`: its URL names the chapter `x`.
        assert_eq!(detail_file_for(chapters, &["www-chapter-x".into()]), None);
        // Release tags with `/` route back to themselves.
        let releases = catalog::detail_spec("releases").unwrap();
        let ids: Vec<String> = vec!["org".into(), "repo".into(), "release/2.0".into()];
        assert_eq!(
            detail_file_for(releases, &ids).unwrap(),
            PathBuf::from("api/v0/releases/org/repo/release%2F2.0.json")
        );
        let ids: Vec<String> = vec!["org".into(), "repo".into(), "a/../b".into()];
        let file = detail_file_for(releases, &ids).unwrap();
        assert_eq!(
            file,
            PathBuf::from("api/v0/releases/org/repo/a%2F..%2Fb.json")
        );
    }

    #[test]
    fn list_and_detail_files() {
        assert_eq!(
            list_file(&["issues".into()], "").unwrap(),
            PathBuf::from("api/v0/issues/index.json")
        );
        assert_eq!(
            list_file(&["issues".into()], "page=2&state=open").unwrap(),
            PathBuf::from("api/v0/issues/index@page=2&state=open.json")
        );
        assert_eq!(
            detail_file("releases", &["org".into(), "repo".into(), "v1/rc".into()]).unwrap(),
            PathBuf::from("api/v0/releases/org/repo/v1%2Frc.json")
        );
        assert!(list_file(&["issues".into()], &"x".repeat(300)).is_none());
        assert!(detail_file("members", &["x".repeat(300)]).is_none());
    }

    #[test]
    fn requests_map_to_the_files_the_shim_reads() {
        let file = |path: &str, query: Option<&str>| file_for_request(path, query);
        assert_eq!(
            file("/api/v0/issues/", Some("state=open&page=2&page_size=100")).as_deref(),
            Some("api/v0/issues/index@page=2&state=open.json")
        );
        assert_eq!(
            file("/api/v0/snapshots/2026-07/issues", None).as_deref(),
            Some("api/v0/snapshots/2026-07/issues/index.json")
        );
        assert_eq!(
            file("/api/v0/releases/Org/Repo/v1/rc", Some("x=1")).as_deref(),
            Some("api/v0/releases/org/repo/v1%2Frc.json")
        );
        for (path, query) in [
            ("/api/v0/projects/", Some("q=juice")),
            ("/api/v0/issues/", Some("page_size=7")),
            ("/api/v0/issues/", Some("state=OPEN")),
            ("/api/v0/events/", Some("is_upcoming=true")),
            ("/api/v0/chapters/", Some("latitude_gte=1")),
            ("/api/v0/", None),
            ("/api/v0/openapi.json", None),
            ("/api/v0/members/a%00b", None),
        ] {
            assert_eq!(file(path, query), None, "{path}?{query:?}");
        }
    }

    #[test]
    fn routing() {
        assert_eq!(route(&segs("/api/v0/")), Target::Root);
        assert_eq!(route(&segs("/api/v0")), Target::Root);
        assert!(matches!(
            route(&segs("/api/v0/chapters/")),
            Target::List { snapshot: None, .. }
        ));
        assert!(matches!(
            route(&segs("/api/v0/chapters")),
            Target::List { snapshot: None, .. }
        ));
        match route(&segs("/api/v0/chapters/WWW-Chapter-London")) {
            Target::Detail { spec, ids } => {
                assert_eq!(spec.path, "chapters");
                assert_eq!(ids, vec!["london".to_string()]);
            }
            other => panic!("{other:?}"),
        }
        match route(&segs("/api/v0/snapshots/2025-02/issues/")) {
            Target::List { spec, snapshot } => {
                assert_eq!(spec.operation_id, "list_snapshot_issues");
                assert_eq!(snapshot.as_deref(), Some("2025-02"));
            }
            other => panic!("{other:?}"),
        }
        match route(&segs("/api/v0/releases/Org/Repo/release%2F2.0")) {
            Target::Detail { ids, .. } => assert_eq!(ids, ["org", "repo", "release/2.0"]),
            other => panic!("{other:?}"),
        }
        match route(&segs("/api/v0/releases/Org/Repo/release/2.0")) {
            Target::Detail { ids, .. } => assert_eq!(ids, ["org", "repo", "release/2.0"]),
            other => panic!("{other:?}"),
        }
        assert_eq!(route(&segs("/api/v0/issues/o/r/abc")), Target::Unknown);
        assert_eq!(route(&segs("/api/v0/nothing/")), Target::Unknown);
        assert_eq!(route(&segs("/api/v0/labels/x")), Target::Unknown);
        assert!(split_path("/api/v0/members/%FF").is_none());
        assert!(split_path("/api/v0/members/a%00b").is_none());
        assert!(split_path("/api/v01").is_none());
    }
}
