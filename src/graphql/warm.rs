//! What a set of GraphQL routes builds before `roost serve` calls it ready
//! ([`Service::warm`]): the facts kept per dataset file ([`super::totals`]), then the
//! operations the caller names (the web frontend's page operations) run once each as
//! a request runs them. A fresh process's first requests otherwise paid for all of
//! it: the documents parsed and checked, each statement prepared on its connection,
//! the answers executed, while every other request of the same page waited beside
//! them (bench/history/2026-11.md, "A fresh replica's first second").

use std::sync::Arc;

use async_graphql::Variables;

use super::http::{execute, Media};
use super::run::Params;
use super::Service;

/// One operation to run while warming: its document's text and its variables.
#[derive(Debug, Clone)]
pub struct Operation {
    pub query: &'static str,
    pub variables: serde_json::Value,
}

impl Service {
    /// Computes the facts of the current dataset file, unless they are kept.
    pub async fn build_facts(&self) -> anyhow::Result<()> {
        self.db.build_facts().await
    }

    /// Runs each of `operations` once for each media type a response is kept under,
    /// all at once, as requests run them: parsed and checked (both kept by their
    /// text), executed and their answers kept per dataset file. Returns how many were
    /// answered without errors; the others are left to the requests, which report
    /// what fails.
    pub async fn warm(self: &Arc<Self>, operations: &[Operation]) -> usize {
        let runs = operations.iter().flat_map(|op| {
            [Media::Json, Media::GraphqlResponseJson].map(|media| {
                let params = Params {
                    query: op.query.to_string(),
                    variables: Variables::from_json(op.variables.clone()),
                    operation_name: None,
                };
                async move {
                    match execute(self, params, media).await {
                        Ok(response) => response.status().is_success(),
                        Err(_) => false,
                    }
                }
            })
        });
        futures_util::future::join_all(runs)
            .await
            .into_iter()
            .filter(|answered| *answered)
            .count()
    }
}
