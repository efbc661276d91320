//! The docs page under `/api/v0/docs/`.
//!
//! Placeholder until the OpenAPI issue lands: one static page pointing at
//! `openapi.json`; the README says so.

/// Files of the docs folder (relative path, bytes).
pub fn render(_openapi: &[u8]) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let page = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>roost API v0</title></head><body><h1>roost API v0</h1>\
<p>The interactive reference is not built yet; see <a href=\"../openapi.json\">openapi.json</a>.</p>\
</body></html>\n";
    Ok(vec![("index.html".to_string(), page.as_bytes().to_vec())])
}
