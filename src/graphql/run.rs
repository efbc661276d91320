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
//! 1. the **checking** schema, with the guard and [`CheckOnly`]: it applies the
//!    limits to the document (parsed once, before either schema sees it), validates
//!    it and measures the complexity, and stops where execution would begin (no
//!    resolver runs, nothing is read);
//! 2. the **executing** schema, without extensions, takes the same parsed document,
//!    validated again only for what execution needs (async-graphql's fast mode: the
//!    full rules already passed on the checking schema), and resolves the fields;
//!    the response's objects are then put in the document's order once, over the
//!    whole response.
//!
//! On the snapshot page of the frontend (about 6,700 fields at `nest`) this halves
//! the time spent outside SQLite; see bench/RESULTS.md.

use std::sync::Arc;

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextExecute};
use async_graphql::parser::types::ExecutableDocument;
use async_graphql::{
    EmptyMutation, EmptySubscription, Request, Response, Schema, ValidationMode, Variables,
};

use super::limits::{Guard, OperationName, Parsed};
use super::order::KeyOrder;
use super::root::Query;
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
        let build = || Schema::build(Query::default(), EmptyMutation, EmptySubscription);
        let mut checking = build().extension(guard).extension(CheckOnly);
        let mut executing = build().validation_mode(ValidationMode::Fast);
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
        // A document that does not parse is parsed again by the guard, which words
        // the error.
        let parsed = async_graphql::parser::parse_query(&params.query)
            .ok()
            .map(Arc::new);
        let mut checked = Request::new(params.query.clone())
            .variables(params.variables.clone())
            .data(Arc::new(OperationName(params.operation_name.clone())));
        if let Some(doc) = &parsed {
            checked.set_parsed_query(ExecutableDocument::clone(doc));
            checked = checked.data(Parsed(Arc::clone(doc)));
        }
        if let Some(name) = &params.operation_name {
            checked = checked.operation_name(name.clone());
        }
        // The checking schema executes nothing: an error there is a refusal.
        let response = self.checking.execute(checked).await;
        let parsed = match parsed {
            // The checking request's handle is gone with it.
            Some(doc) if response.errors.is_empty() => {
                Arc::try_unwrap(doc).unwrap_or_else(|shared| ExecutableDocument::clone(&shared))
            }
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
        code_argument_errors(&mut response);
        Outcome::Executed(response)
    }
}

/// An argument value the schema's type cannot take (an `Int` past 32 bits) is found
/// when the field runs, with no code: it is the client's mistake, `BAD_USER_INPUT`.
fn code_argument_errors(response: &mut async_graphql::Response) {
    for error in &mut response.errors {
        let coded = (error.extensions.as_ref()).is_some_and(|e| e.get("code").is_some());
        if !coded && error.message.starts_with("Failed to parse ") {
            error
                .extensions
                .get_or_insert_with(Default::default)
                .set("code", "BAD_USER_INPUT");
        }
    }
}

/// The checking schema's last extension: ends the request where execution would
/// start.
struct CheckOnly;

impl ExtensionFactory for CheckOnly {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(CheckOnly)
    }
}

#[async_graphql::async_trait::async_trait]
impl Extension for CheckOnly {
    async fn execute(
        &self,
        _ctx: &ExtensionContext<'_>,
        _operation_name: Option<&str>,
        _next: NextExecute<'_>,
    ) -> Response {
        Response::default()
    }
}
