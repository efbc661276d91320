//! The REST API's error bodies as roost words them (docs/api.md §2 "Errors"): the one
//! place the shim's answers ([`crate::shim::respond`]) and the docs page's examples
//! ([`crate::docs`]) take them from, so the page shows what the API sends.

use crate::catalog::FieldError;
use crate::model::{ErrorDetail, NotFoundMessage, ValidationErrorItem, ValidationErrorSchema};

/// The 401's detail.
pub const UNAUTHORIZED: &str = "Missing or invalid API key in 'X-API-Key' header";
/// The 429's detail.
pub const TOO_MANY_REQUESTS: &str = "Too many requests.";
/// The detail of a 404 for a path that names nothing.
pub const NOT_FOUND: &str = "Not Found";
/// The 405's detail.
pub const METHOD_NOT_ALLOWED: &str = "Method Not Allowed";

/// `{"detail": text}`.
pub fn detail(text: &str) -> ErrorDetail {
    ErrorDetail {
        detail: text.to_string(),
    }
}

/// `{"message": "<Name> not found"}`: no such record.
pub fn record_not_found(name: &str) -> NotFoundMessage {
    NotFoundMessage {
        message: format!("{name} not found"),
    }
}

/// The 400: one entry per bad query parameter.
pub fn invalid(errors: Vec<FieldError>) -> ValidationErrorSchema {
    ValidationErrorSchema {
        message: "Invalid request".to_string(),
        errors: errors
            .into_iter()
            .map(|e| ValidationErrorItem {
                loc: vec!["query".to_string(), e.param],
                msg: e.msg,
                kind: e.kind.to_string(),
            })
            .collect(),
    }
}
