//! The OpenAPI document of REST v0.
//!
//! Placeholder until the OpenAPI issue lands: a minimal, valid document naming the
//! API; the README says so.

/// The document as served at `/api/v0/openapi.json`.
pub fn document_json() -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "openapi": "3.1.0",
        "info": {"title": "roost REST API v0", "version": "0", "description": "Placeholder document."},
        "paths": {}
    }))
    .unwrap_or_default()
}
