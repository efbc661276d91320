//! How one GraphQL request runs: checked on one schema, executed on another.
//!
//! async-graphql calls every installed extension around every field it resolves (a
//! `ResolveInfo`, a path and a boxed future per field, per extension), and it does
//! so for all fields once any extension is installed. roost's extensions only need
//! the document: the limits of [`super::limits::Guard`] (after parsing and in
//! validation) and the parsed document, kept for the response's key order
//! ([`super::order`]). So a request goes through two schemas built from the same
//! types:
//!
//! 1. the **checking** schema, with the guard and [`CheckOnly`]: it parses, applies
//!    the limits, validates and measures the complexity, keeps the parsed document,
//!    and stops where execution would begin (no resolver runs, nothing is read);
//! 2. the **executing** schema, without extensions, takes that parsed document and
//!    resolves the fields; the response's objects are then put in the document's
//!    order once, over the whole response.
//!
//! On the snapshot page of the frontend (about 6,700 fields at `nest`) this halves
//! the time spent outside SQLite; see bench/RESULTS.md.

use std::sync::{Arc, Mutex};

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextExecute, NextParseQuery,
};
use async_graphql::parser::types::ExecutableDocument;
use async_graphql::{
    EmptyMutation, EmptySubscription, Request, Response, Schema, ServerResult, Variables,
};

use super::limits::{Guard, OperationName};
use super::order::KeyOrder;
use super::query::Query;
use super::RoostSchema;

/// The two schemas of one set of GraphQL routes.
pub struct Schemas {
    checking: RoostSchema,
    executing: RoostSchema,
}

/// What a request asks for, before it becomes an async-graphql request.
#[derive(Debug, Clone)]
pub struct Params {
    pub query: String,
    pub variables: Variables,
    pub operation_name: Option<String>,
}

/// The outcome of [`Schemas::run`].
pub enum Outcome {
    /// The document was refused before execution: its errors, no `data`.
    Rejected(Response),
    /// The document ran: the response, objects in query order.
    Executed(Response),
}

impl Schemas {
    /// The schemas for `guard`; introspection is refused by both unless `introspection`.
    pub fn new(guard: Guard, introspection: bool) -> Schemas {
        let build = || Schema::build(Query, EmptyMutation, EmptySubscription);
        let mut checking = build().extension(guard).extension(CheckOnly);
        let mut executing = build();
        if !introspection {
            checking = checking.disable_introspection();
            executing = executing.disable_introspection();
        }
        Schemas {
            checking: checking.finish(),
            executing: executing.finish(),
        }
    }

    /// Checks `params`, then executes them with `with_data` adding the request's data
    /// (dataset handles, loaders) to the executing request. `execute` wraps the
    /// execution (the loader's waves).
    pub async fn run<F, Fut>(
        &self,
        params: Params,
        with_data: impl FnOnce(Request) -> Request,
        execute: F,
    ) -> Outcome
    where
        F: FnOnce(RoostSchema, Request) -> Fut,
        Fut: std::future::Future<Output = Response>,
    {
        let document = Arc::new(Document::default());
        let mut checked = Request::new(params.query.clone())
            .variables(params.variables.clone())
            .data(Arc::new(OperationName(params.operation_name.clone())))
            .data(Arc::clone(&document));
        if let Some(name) = &params.operation_name {
            checked = checked.operation_name(name.clone());
        }
        // The checking schema executes nothing: an error there is a refusal.
        let response = self.checking.execute(checked).await;
        let parsed = match document.take() {
            Some(parsed) if response.errors.is_empty() => parsed,
            _ => return Outcome::Rejected(response),
        };
        let order = KeyOrder::of_operation(&parsed, params.operation_name.as_deref());
        let mut request = Request::new(params.query).variables(params.variables);
        if let Some(name) = params.operation_name {
            request = request.operation_name(name);
        }
        request.set_parsed_query(parsed);
        let mut response = execute(self.executing.clone(), with_data(request)).await;
        if let Some(order) = order {
            order.apply(&mut response.data);
        }
        Outcome::Executed(response)
    }
}

/// The parsed document of a checked request.
#[derive(Default)]
struct Document(Mutex<Option<ExecutableDocument>>);

impl Document {
    fn take(&self) -> Option<ExecutableDocument> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The checking schema's last extension: keeps the parsed document in the request's
/// [`Document`] and ends the request where execution would start.
struct CheckOnly;

impl ExtensionFactory for CheckOnly {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(CheckOnly)
    }
}

#[async_graphql::async_trait::async_trait]
impl Extension for CheckOnly {
    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        let document = next.run(ctx, query, variables).await?;
        if let Some(slot) = ctx.data_opt::<Arc<Document>>() {
            *slot.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(document.clone());
        }
        Ok(document)
    }

    async fn execute(
        &self,
        _ctx: &ExtensionContext<'_>,
        _operation_name: Option<&str>,
        _next: NextExecute<'_>,
    ) -> Response {
        Response::default()
    }
}
