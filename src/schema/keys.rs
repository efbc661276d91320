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
    let mut raw = String::with_capacity(kind.len() + 1 + key.len());
    raw.push_str(kind);
    raw.push(':');
    raw.push_str(key);
    ID(base64::engine::general_purpose::STANDARD.encode(raw))
}

/// The natural key of a record of a repository: `organization/repository` in lower
/// case, then `suffix` (`#number` or `@tag`).
pub fn repo_key(organization: &str, repository: &str, suffix: &str) -> String {
    let mut key = String::with_capacity(organization.len() + 1 + repository.len() + suffix.len());
    push_lc(&mut key, organization);
    key.push('/');
    push_lc(&mut key, repository);
    key.push_str(suffix);
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
