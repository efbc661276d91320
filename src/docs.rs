//! The docs page under `/api/v0/docs/` (docs/api.md §7): an interactive reference
//! rendered with askama from the OpenAPI document (`templates/docs/index.html`), plus
//! its stylesheet and script (`docs-assets/`), all local: no CDN, no external font.
//!
//! The page groups operations by tag and shows, for each, its parameters (type, enum,
//! default, bounds), its responses with their schemas, an example body and a form that
//! sends the request from the browser (API key remembered in `localStorage`, base URL
//! configurable, same origin by default) and shows status, headers and the formatted
//! JSON body. Everything the form needs is in the HTML (`data-` attributes), so the
//! page works on the static tree alone as well as through the shim.
//!
//! Here: [`render`], the one entry. Beside it: `reader` (the OpenAPI document into the
//! view model), `view` (the view model and its template), `example` (example bodies)
//! and `markdown` (descriptions as HTML via pulldown-cmark, raw HTML escaped).

use askama::Template;
use utoipa::openapi::OpenApi;

mod example;
mod markdown;
mod reader;
pub mod samples;
mod view;

pub use samples::Samples;

/// The stylesheet, written beside `index.html`.
pub const CSS: &str = include_str!("../docs-assets/docs.css");
/// The script, written beside `index.html`.
pub const JS: &str = include_str!("../docs-assets/docs.js");

/// Why the docs page could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    #[error("reading the OpenAPI document for the docs")]
    Read(#[source] serde_json::Error),
    #[error("rendering the docs page")]
    Render(#[source] askama::Error),
}

/// Files of the docs folder (relative path, bytes), rendered from the OpenAPI
/// document's bytes, with examples made from the schemas alone.
pub fn render(openapi: &[u8]) -> Result<Vec<(String, Vec<u8>)>, DocsError> {
    render_with(openapi, &Samples::default())
}

/// The operations of the OpenAPI document (operation id, path template), for
/// [`Samples::from_tree`].
pub fn operations(openapi: &[u8]) -> Result<Vec<(String, String)>, DocsError> {
    let doc: OpenApi = serde_json::from_slice(openapi).map_err(DocsError::Read)?;
    Ok(doc
        .paths
        .paths
        .iter()
        .filter_map(|(path, item)| {
            let id = item.get.as_ref()?.operation_id.clone()?;
            Some((id, path.clone()))
        })
        .collect())
}

/// The examples of a generated tree (the folder holding `api/v0/`).
pub fn tree_samples(openapi: &[u8], site: &std::path::Path) -> Result<Samples, DocsError> {
    Ok(Samples::from_tree(site, &operations(openapi)?))
}

/// As [`tree_samples`], with the first record of each folder found by `first`
/// ([`Samples::from_listed_tree`]) rather than by reading the folder.
pub fn listed_tree_samples(
    openapi: &[u8],
    site: &std::path::Path,
    first: &dyn Fn(&std::path::Path, bool) -> Option<String>,
) -> Result<Samples, DocsError> {
    Ok(Samples::from_listed_tree(
        site,
        &operations(openapi)?,
        first,
    ))
}

/// As [`render`], with the answers of `samples` as the examples (real records from a
/// tree) where it has them.
pub fn render_with(openapi: &[u8], samples: &Samples) -> Result<Vec<(String, Vec<u8>)>, DocsError> {
    let doc: OpenApi = serde_json::from_slice(openapi).map_err(DocsError::Read)?;
    let page = view::Page::new(&doc, samples).map_err(DocsError::Read)?;
    let html = page.render().map_err(DocsError::Render)?;
    Ok(vec![
        ("index.html".to_string(), html.into_bytes()),
        ("docs.css".to_string(), CSS.as_bytes().to_vec()),
        ("docs.js".to_string(), JS.as_bytes().to_vec()),
    ])
}
