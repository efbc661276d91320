//! The keys records are known by outside the dataset: the lower case that
//! case-insensitive keys compare in, and GraphQL's opaque node ids built from natural
//! keys.

use async_graphql::ID;
use base64::Engine as _;

/// `text` in lower case: how the dataset keeps a case-insensitive key or filter value,
/// and every case-insensitive comparison in roost.
pub fn lc(text: &str) -> String {
    text.to_lowercase()
}

/// The key without its prefix (`www-chapter-london` → `london`, any case of the prefix),
/// as the REST paths take it and the frontend links with it; a key without the prefix
/// is returned whole.
pub fn short_key<'a>(key: &'a str, prefix: &str) -> &'a str {
    match key.get(..prefix.len()) {
        Some(p) if p.eq_ignore_ascii_case(prefix) => &key[prefix.len()..],
        _ => key,
    }
}

/// The `id` of a record: `Type:naturalkey` in base64 (standard alphabet, padded).
///
/// The natural key is what identifies the record in the dataset's own files (a key, a
/// login, organization/repository plus number or tag), in lower case where the dataset
/// compares it case-insensitively, never a database row id: row ids follow the order
/// of the records in their files, which a regeneration may change. The type name makes
/// the id unique across types.
pub fn node_id(kind: &str, key: &str) -> ID {
    node_id_with(kind, |raw| raw.push_str(key), id)
}

/// The [`node_id`] of a record whose natural key is `text` in lower case (a login).
pub fn lc_node_id(kind: &str, text: &str) -> ID {
    node_id_with(kind, |raw| push_lc(raw, text), id)
}

/// The [`node_id`] of a record whose natural key is `scope:` and `text` in lower
/// case (a contributor: what the contributions are summed over, and the login).
pub fn scoped_lc_node_id(kind: &str, scope: &str, text: &str) -> ID {
    node_id_with(
        kind,
        |raw| {
            raw.push_str(scope);
            raw.push(':');
            push_lc(raw, text);
        },
        id,
    )
}

/// Appends [`lc_node_id`]`(kind, text)` to `out`: for JSON written by hand (base64
/// needs no escaping).
pub fn write_lc_node_id(out: &mut Vec<u8>, kind: &str, text: &str) {
    node_id_with(kind, |raw| push_lc(raw, text), |raw| encode_to(raw, out))
}

/// The [`node_id`] of a record of a repository: its natural key is [`repo_key`]`(
/// organization, repository, suffix)`, the suffix given in parts (`["@", tag]`).
pub fn repo_node_id(kind: &str, organization: &str, repository: &str, suffix: &[&str]) -> ID {
    node_id_with(
        kind,
        |raw| repo_raw(raw, organization, repository, suffix),
        id,
    )
}

/// Appends [`repo_node_id`]`(kind, organization, repository, suffix)` to `out`.
pub fn write_repo_node_id(
    out: &mut Vec<u8>,
    kind: &str,
    organization: &str,
    repository: &str,
    suffix: &[&str],
) {
    node_id_with(
        kind,
        |raw| repo_raw(raw, organization, repository, suffix),
        |raw| encode_to(raw, out),
    )
}

/// The beginning of node ids, encoded once: `Type:` and the first parts of the
/// natural key, as many whole groups of three bytes as they hold in base64, and the
/// one or two bytes left. Base64 encodes each group of three bytes on its own, so an
/// id is the encoded groups, then the rest and the key's end encoded: a release's id
/// is its repository's kept prefix (`Release:org/repo@`) and its tag, with no copy
/// of the repository's key or UTF-8 check per id.
///
/// `B` holds the two parts: owned, or borrowed from where they are kept packed
/// ([`NodeIdPrefix::parts`], [`NodeIdPrefix::from_parts`]).
#[derive(Debug, Clone)]
pub struct NodeIdPrefix<B = Box<[u8]>> {
    encoded: B,
    rest: B,
}

impl NodeIdPrefix {
    /// The prefix of `kind`'s ids whose natural key starts with `key` (as it stands
    /// in the key: in lower case where the key is).
    pub fn new(kind: &str, key: &str) -> NodeIdPrefix {
        let raw = format!("{kind}:{key}");
        let whole = raw.len() / 3 * 3;
        let mut encoded = Vec::new();
        encode_bytes_to(&raw.as_bytes()[..whole], &mut encoded);
        NodeIdPrefix {
            encoded: encoded.into_boxed_slice(),
            rest: raw.as_bytes()[whole..].into(),
        }
    }
}

impl<'a> NodeIdPrefix<&'a [u8]> {
    /// The prefix whose [`NodeIdPrefix::parts`] these are.
    pub fn from_parts(encoded: &'a [u8], rest: &'a [u8]) -> Self {
        NodeIdPrefix { encoded, rest }
    }
}

impl<B: AsRef<[u8]>> NodeIdPrefix<B> {
    /// The whole groups encoded, then the one or two bytes left as they are.
    pub fn parts(&self) -> (&[u8], &[u8]) {
        (self.encoded.as_ref(), self.rest.as_ref())
    }

    /// Appends the id whose natural key continues with `end` to `out`.
    pub fn write(&self, out: &mut Vec<u8>, end: &[u8]) {
        let (encoded, rest) = self.parts();
        out.extend_from_slice(encoded);
        let mut raw = [0u8; 64];
        match raw.get_mut(..rest.len() + end.len()) {
            Some(raw) => {
                raw[..rest.len()].copy_from_slice(rest);
                raw[rest.len()..].copy_from_slice(end);
                encode_bytes_to(raw, out);
            }
            None => encode_bytes_to(&[rest, end].concat(), out),
        }
    }
}

/// Appends [`lc_node_id`]`(kind, text)` for `text` as SQLite holds it, or fails as
/// reading it into a `String` does when it is not UTF-8.
pub fn write_lc_node_id_of(
    out: &mut Vec<u8>,
    kind: &str,
    text: &[u8],
) -> Result<(), std::str::Utf8Error> {
    if text.is_ascii() {
        let mut raw = Vec::with_capacity(kind.len() + 1 + text.len());
        raw.extend_from_slice(kind.as_bytes());
        raw.push(b':');
        raw.extend_from_slice(text);
        raw[kind.len() + 1..].make_ascii_lowercase();
        encode_bytes_to(&raw, out);
    } else {
        write_lc_node_id(out, kind, std::str::from_utf8(text)?);
    }
    Ok(())
}

/// Appends [`repo_key`]`(organization, repository, suffix)`, the suffix in parts.
fn repo_raw(raw: &mut String, organization: &str, repository: &str, suffix: &[&str]) {
    push_lc(raw, organization);
    raw.push('/');
    push_lc(raw, repository);
    suffix.iter().for_each(|part| raw.push_str(part));
}

/// `Type:` and the natural key `key` writes, encoded by `encode`. Long lists make
/// thousands of ids a request, so the raw text is assembled in one buffer kept by the
/// thread and the encoding is the only text made.
fn node_id_with<T>(kind: &str, key: impl FnOnce(&mut String), encode: impl FnOnce(&str) -> T) -> T {
    thread_local! {
        static RAW: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    RAW.with_borrow_mut(|raw| {
        raw.clear();
        raw.push_str(kind);
        raw.push(':');
        key(raw);
        encode(raw)
    })
}

/// The id of the raw text `raw`: base64, standard alphabet, padded.
fn id(raw: &str) -> ID {
    let mut id = String::with_capacity(base64::encoded_len(raw.len(), true).unwrap_or(0));
    base64::engine::general_purpose::STANDARD.encode_string(raw.as_bytes(), &mut id);
    ID(id)
}

/// Appends [`id`]`(raw)` to `out`.
fn encode_to(raw: &str, out: &mut Vec<u8>) {
    encode_bytes_to(raw.as_bytes(), out)
}

/// Appends the base64 of `raw` (standard alphabet, padded) to `out`.
fn encode_bytes_to(raw: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + base64::encoded_len(raw.len(), true).unwrap_or(0), 0);
    let written = base64::engine::general_purpose::STANDARD
        .encode_slice(raw, &mut out[start..])
        .unwrap_or(0);
    out.truncate(start + written);
}

/// The natural key of a record of a repository: `organization/repository` in lower
/// case, then `suffix` (`#number` or `@tag`).
pub fn repo_key(organization: &str, repository: &str, suffix: &str) -> String {
    let mut key = String::with_capacity(organization.len() + 1 + repository.len() + suffix.len());
    repo_raw(&mut key, organization, repository, &[suffix]);
    key
}

/// Appends [`lc`]`(text)`, without a copy of its own when `text` is ASCII.
fn push_lc(out: &mut String, text: &str) {
    if text.is_ascii() {
        let start = out.len();
        out.push_str(text);
        out[start..].make_ascii_lowercase();
    } else {
        out.push_str(&lc(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoped_ids_are_the_ids_of_their_keys() {
        for (scope, login) in [
            ("project=www-project-x", "Ana-B"),
            ("repository=o/r", "ÉLODIE"),
            ("", ""),
        ] {
            assert_eq!(
                scoped_lc_node_id("Contributor", scope, login),
                node_id("Contributor", &format!("{scope}:{}", lc(login)))
            );
        }
    }

    /// The ids assembled in the thread's buffer are the ids of the natural keys
    /// written out whole, whatever the buffer held before (a longer id, non-ASCII).
    #[test]
    fn ids_from_parts_are_the_ids_of_their_keys() {
        let decoded = |id: ID| {
            let raw = base64::engine::general_purpose::STANDARD
                .decode(id.0)
                .unwrap();
            String::from_utf8(raw).unwrap()
        };
        assert_eq!(
            decoded(node_id("Chapter", "www-chapter-x")),
            "Chapter:www-chapter-x"
        );
        let long = "a".repeat(300);
        assert_eq!(
            decoded(node_id("Project", &long)),
            format!("Project:{long}")
        );
        assert_eq!(decoded(lc_node_id("User", "ÉLodie")), "User:élodie");
        assert_eq!(
            repo_node_id("Release", "Org", "Repo-É", &["@", "V1.0"]),
            node_id("Release", &repo_key("Org", "Repo-É", "@V1.0"))
        );
        assert_eq!(
            decoded(repo_node_id("Issue", "O", "R", &["#", "7"])),
            "Issue:o/r#7"
        );
        assert_eq!(
            decoded(repo_node_id("Repository", "O", "R", &[])),
            "Repository:o/r"
        );
    }

    /// The ids written to a buffer are the ids returned, after what the buffer held,
    /// for keys of every length modulo three.
    #[test]
    fn written_ids_are_the_returned_ids() {
        for (org, repo, tag) in [
            ("Org", "Repo", "V1.0"),
            ("Org", "Repo", "V1.01"),
            ("Org", "Repo", "V1.012"),
            ("ÉOrg", "Repo-É", "ü/1"),
        ] {
            let mut out = b"x".to_vec();
            write_repo_node_id(&mut out, "Release", org, repo, &["@", tag]);
            let id = repo_node_id("Release", org, repo, &["@", tag]);
            assert_eq!(out, [b"x", id.0.as_bytes()].concat());
            let mut out = b"y".to_vec();
            write_lc_node_id(&mut out, "User", tag);
            let id = lc_node_id("User", tag);
            assert_eq!(out, [b"y", id.0.as_bytes()].concat());
            let mut out = b"z".to_vec();
            write_lc_node_id_of(&mut out, "User", tag.as_bytes()).unwrap();
            assert_eq!(out, [b"z", id.0.as_bytes()].concat());
        }
        // Prefixes of every length modulo three, ends short and long.
        for (org, repo) in [("O", "R"), ("Or", "R"), ("Org", "R"), ("ÉOrg", "Repo-É")] {
            let prefix = NodeIdPrefix::new("Release", &repo_key(org, repo, "@"));
            for tag in ["", "v", "v1", "v1.0", "ü/1", &"t".repeat(100)] {
                let mut out = b"w".to_vec();
                prefix.write(&mut out, tag.as_bytes());
                let id = repo_node_id("Release", org, repo, &["@", tag]);
                assert_eq!(out, [b"w", id.0.as_bytes()].concat(), "{org} {repo} {tag}");
            }
        }
        // A long login, and one that is not UTF-8.
        let long = "Ab".repeat(200);
        let mut out = Vec::new();
        write_lc_node_id_of(&mut out, "User", long.as_bytes()).unwrap();
        assert_eq!(out, lc_node_id("User", &long).0.as_bytes());
        assert!(write_lc_node_id_of(&mut Vec::new(), "User", b"\xC3(").is_err());
    }
}
