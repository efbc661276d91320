//! Rendering one unit of the plan into files through the writer: the fixed documents
//! (`_headers`, the API root, `openapi.json`, the docs page), every page of every
//! filter combination of a list, every record of a detail resource.

use std::path::{Path, PathBuf};

use anyhow::Context;
use rayon::prelude::*;

use crate::catalog::{self, FilterValue, ListQuery, ListSpec, OrderChoice, ParamKind};
use crate::manifest::{ManifestEntry, MANIFEST};
use crate::{store, tree};

use super::plan::{partition, Unit};
use super::write::Writer;
use super::Options;

/// Every page of every filter combination of one list in one scope and ordering.
fn render_list_unit(
    w: &Writer,
    conn: &rusqlite::Connection,
    spec: &'static ListSpec,
    snapshot: &Option<(i64, String)>,
    upcoming: bool,
    ordering: Option<OrderChoice>,
    today: &str,
) -> anyhow::Result<Vec<ManifestEntry>> {
    let rows = catalog::sorted_rows(
        conn,
        spec,
        snapshot.as_ref().map(|s| s.0),
        upcoming,
        ordering,
        today,
    )
    .with_context(|| format!("reading {}", spec.operation_id))?;
    let dir: Vec<String> = match snapshot {
        Some((_, key)) => tree::snapshot_list_dir(key, spec),
        None => vec![spec.path.to_string()],
    };
    let upcoming_param = spec
        .params
        .iter()
        .position(|p| p.kind == ParamKind::Upcoming);
    let groups = partition(spec, &rows);
    groups
        .par_iter()
        .map(|(filters, members)| -> anyhow::Result<Vec<ManifestEntry>> {
            let mut out = Vec::new();
            let mut query = ListQuery {
                ordering,
                filters: filters.clone(),
                ..ListQuery::default()
            };
            if upcoming {
                if let Some(i) = upcoming_param {
                    query.filters.push((i, FilterValue::Bool(true)));
                    query.filters.sort_by_key(|(i, _)| *i);
                }
            }
            let total = members.len() as u64;
            let pages = catalog::total_pages(total, catalog::PAGE_SIZE);
            for page in 1..=pages {
                query.page = page;
                let Some(rel) = tree::list_file(&dir, &query.canonical(spec)) else {
                    continue;
                };
                let start = ((page - 1) * catalog::PAGE_SIZE) as usize;
                let end = (start + catalog::PAGE_SIZE as usize).min(members.len());
                let items = members[start..end]
                    .iter()
                    .map(|&r| rows.items[r as usize].as_slice());
                let body = catalog::render_page(items, page, catalog::PAGE_SIZE, total);
                w.put(&rel, &body, &mut out)?;
            }
            Ok(out)
        })
        .collect::<anyhow::Result<Vec<_>>>()
        .map(|v| v.into_iter().flatten().collect())
}

/// The docs page, rendered once every unit is written: its examples are files of the
/// new generation (`crate::docs::samples`).
pub(super) fn render_docs(w: &Writer) -> anyhow::Result<Vec<ManifestEntry>> {
    let openapi = crate::openapi::document_json().context("serialising the OpenAPI document")?;
    let samples = crate::docs::tree_samples(&openapi, &w.root)?;
    let mut out = Vec::new();
    for (rel, bytes) in crate::docs::render_with(&openapi, &samples)? {
        w.put(
            &PathBuf::from(tree::API_DIR).join("docs").join(rel),
            &bytes,
            &mut out,
        )?;
    }
    Ok(out)
}

/// Renders one unit of the plan through the writer; the files it placed.
pub(super) fn render_unit(
    w: &Writer,
    opts: &Options,
    unit: &Unit,
) -> anyhow::Result<Vec<ManifestEntry>> {
    let mut out = Vec::new();
    match unit {
        Unit::Fixed => {
            w.put_one(Path::new(PAGES_HEADERS), &pages_headers(), &mut out)?;
            w.put(
                &PathBuf::from(tree::API_DIR).join("index.json"),
                &catalog::root(&format!(
                    "{}{}/docs",
                    opts.public_url.as_deref().unwrap_or(""),
                    tree::API_PREFIX
                )),
                &mut out,
            )?;
            let openapi =
                crate::openapi::document_json().context("serialising the OpenAPI document")?;
            w.put(
                &PathBuf::from(tree::API_DIR).join("openapi.json"),
                &openapi,
                &mut out,
            )?;
        }
        Unit::List {
            spec,
            snapshot,
            upcoming,
            ordering,
        } => {
            let conn = store::open_read(&opts.db)?;
            out = render_list_unit(w, &conn, spec, snapshot, *upcoming, *ordering, &opts.today)?;
        }
        Unit::Details { spec } => {
            let conn = store::open_read(&opts.db)?;
            catalog::all_details(&conn, spec, |ids, body| {
                if let Some(rel) = tree::detail_file_for(spec, &ids) {
                    w.put(&rel, &body, &mut out)?;
                }
                Ok(())
            })
            .with_context(|| format!("rendering {}", spec.operation_id))?;
        }
    }
    Ok(out)
}

/// The headers file of Pages-style static hosts (Netlify, Cloudflare Pages), at the
/// root of the tree.
pub const PAGES_HEADERS: &str = "_headers";

/// `_headers`: the lists and details (one pattern per resource folder), the root
/// documents and the manifest are JSON, kept by shared caches for five minutes (the
/// policy of the nginx configuration and the edge function too).
fn pages_headers() -> Vec<u8> {
    let mut patterns = vec![
        format!("/{MANIFEST}"),
        format!("{}/index.json", tree::API_PREFIX),
        format!("{}/openapi.json", tree::API_PREFIX),
    ];
    patterns.extend(
        catalog::LISTS
            .iter()
            .map(|spec| format!("{}/{}/*", tree::API_PREFIX, spec.path)),
    );
    let mut text = String::from(
        "# Response headers for Pages-style static hosts, written by roost generate.\n",
    );
    for pattern in patterns {
        text.push_str(&pattern);
        text.push_str("\n  Content-Type: application/json\n  Cache-Control: public, max-age=300\n");
    }
    text.into_bytes()
}
