//! GraphQL answers kept in memory, per dataset file.
//!
//! The frontend asks the same page operations with the same variables for every
//! visitor, and an answer depends only on the request (document, variables, operation
//! name, response media type), the dataset file and, for `upcomingEvents`, the day.
//! So an executed answer without errors is kept, as its bytes, in a store the shim
//! hands over ([`Answers`]: its bounded response store, the `--live-cache-mb` budget,
//! held apart from the REST answers): a repeated request is answered without parsing,
//! checking or executing anything. Sessions, CSRF and the GraphQL rate limit are still
//! applied to every request before the store is looked at.
//!
//! The generation is the dataset file's identity ([`FileId`]), read before the request
//! runs: an import that replaces the file empties the store on the next look-up, and
//! an answer whose file changed while it was made is not kept.

use bytes::Bytes;

use crate::store::FileId;

use super::run::Params;

/// Where GraphQL answers are kept: response bodies by dataset file and [`key`].
pub trait Answers: Send + Sync + std::fmt::Debug {
    /// The body kept for `key` of `dataset`; seeing another dataset than the one held
    /// forgets every answer of the older one.
    fn lookup(&self, dataset: &FileId, key: &str) -> Option<Bytes>;
    /// Keeps `body` (of media type `content_type`) for `key` of `dataset`, if it fits.
    fn remember(&self, dataset: &FileId, key: String, content_type: &'static str, body: Bytes);
}

/// A store that keeps nothing: every request is executed.
#[derive(Debug)]
pub struct NoAnswers;

impl Answers for NoAnswers {
    fn lookup(&self, _: &FileId, _: &str) -> Option<Bytes> {
        None
    }

    fn remember(&self, _: &FileId, _: String, _: &'static str, _: Bytes) {}
}

/// What an answer depends on besides the dataset file, as one key.
pub fn key(params: &Params, media: &str, today: &str) -> String {
    let variables = serde_json::to_string(&params.variables).unwrap_or_default();
    format!(
        "{media}\u{1f}{today}\u{1f}{}\u{1f}{variables}\u{1f}{}",
        params.operation_name.as_deref().unwrap_or(""),
        params.query
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::Variables;

    fn params(query: &str, variables: serde_json::Value, name: Option<&str>) -> Params {
        Params {
            query: query.to_string(),
            variables: Variables::from_json(variables),
            operation_name: name.map(str::to_string),
        }
    }

    #[test]
    fn every_part_of_a_request_is_in_its_key() {
        let base = params("{ a }", serde_json::json!({"k": 1}), None);
        let key0 = key(&base, "application/json", "2026-11-23");
        assert_eq!(key0, key(&base.clone(), "application/json", "2026-11-23"));
        let others = [
            key(
                &params("{ b }", serde_json::json!({"k": 1}), None),
                "application/json",
                "2026-11-23",
            ),
            key(
                &params("{ a }", serde_json::json!({"k": 2}), None),
                "application/json",
                "2026-11-23",
            ),
            key(
                &params("{ a }", serde_json::json!({"k": 1}), Some("A")),
                "application/json",
                "2026-11-23",
            ),
            key(&base, "application/graphql-response+json", "2026-11-23"),
            key(&base, "application/json", "2026-11-24"),
        ];
        for other in others {
            assert_ne!(key0, other);
        }
    }
}
