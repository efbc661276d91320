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
//! A page of thousands of fields (the frontend's snapshot page) then spends most of
//! its time in SQLite rather than in field resolvers; the measurements are in
//! bench/history/2026-11.md ("The executed `snapshot` page").
//!
//! A document is parsed once per text ([`Documents`]): the frontend sends the same
//! few documents with other variables, and parsing is a sizeable share of a small
//! page's request. A request that passed the checking schema is not checked again
//! when it comes back with the same text, operation name and variables
//! ([`Checked`]): the frontend's page requests repeat, and checking one
//! (async-graphql's validation rules and the guard) is work the answer does not need
//! twice.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextExecute};
use async_graphql::parser::types::{DocumentOperations, ExecutableDocument};
use async_graphql::{
    EmptyMutation, EmptySubscription, Request, Response, Schema, ValidationMode, Variables,
};

use super::limits::{Guard, OperationName, Parsed};
use super::order::KeyOrder;
use super::plain::Direct;
use super::root::Query;
use super::RoostSchema;

/// The two schemas of one set of GraphQL routes.
pub struct Schemas {
    checking: RoostSchema,
    executing: RoostSchema,
    documents: Documents,
    checked: Checked,
}

/// Documents kept parsed, by their text: at most [`Documents::MAX_DOCUMENTS`]
/// documents of at most [`Documents::MAX_BYTES`] bytes of text in all; when full,
/// every one is forgotten (the frontend's few documents come back at once, while
/// a stream of one-off documents cannot keep anything out for long). A document that
/// does not parse is never kept (the guard parses it again to word its error).
#[derive(Default)]
pub struct Documents {
    kept: Mutex<(HashMap<String, Arc<Document>>, usize)>,
}

/// A parsed document and the key order of its operations ([`KeyOrder`]), each read
/// from the document the first time a request runs it: the order depends on the
/// document and the operation's name alone.
pub struct Document {
    pub doc: Arc<ExecutableDocument>,
    /// By operation name as requested: none, or the name of one of the document's
    /// operations (so at most one more than it has).
    orders: Mutex<Vec<(Option<String>, SharedOrder)>>,
}

/// An operation's key order, shared by its requests (`None`: no such operation).
type SharedOrder = Arc<Option<KeyOrder>>;

impl Document {
    /// The key order of the operation `name` (or of the document's only one).
    fn order(&self, name: Option<&str>) -> SharedOrder {
        let mut orders = self.orders.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, order)) = orders.iter().find(|(n, _)| n.as_deref() == name) {
            return Arc::clone(order);
        }
        let order = Arc::new(KeyOrder::of_operation(&self.doc, name));
        let named = |name: &str| match &self.doc.operations {
            DocumentOperations::Single(_) => false,
            DocumentOperations::Multiple(ops) => ops.contains_key(name),
        };
        if name.is_none_or(named) {
            orders.push((name.map(str::to_string), Arc::clone(&order)));
        }
        order
    }
}

impl Documents {
    const MAX_DOCUMENTS: usize = 256;
    const MAX_BYTES: usize = 1 << 20;

    /// The document `query` parses to, parsed now unless it is kept.
    pub fn parse(&self, query: &str) -> Option<Arc<Document>> {
        let lock = || self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(doc) = lock().0.get(query) {
            return Some(Arc::clone(doc));
        }
        let doc = Arc::new(Document {
            doc: Arc::new(async_graphql::parser::parse_query(query).ok()?),
            orders: Mutex::default(),
        });
        let mut kept = lock();
        let (docs, bytes) = &mut *kept;
        if docs.len() >= Self::MAX_DOCUMENTS || *bytes + query.len() > Self::MAX_BYTES {
            docs.clear();
            *bytes = 0;
        }
        if query.len() <= Self::MAX_BYTES && !docs.contains_key(query) {
            *bytes += query.len();
            docs.insert(query.to_string(), Arc::clone(&doc));
        }
        Some(doc)
    }
}

/// The requests the checking schema let through, by their document's text, operation
/// name and variables: checking is a function of those alone (the guard's limits and
/// async-graphql's rules), so a request asked again is not checked again. Kept within
/// the bounds of [`Documents`], and forgotten all at once the same way; a refused
/// request is never kept (it is checked again to word its errors).
#[derive(Default)]
pub struct Checked {
    kept: Mutex<(HashSet<String>, usize)>,
}

impl Checked {
    const MAX_REQUESTS: usize = 4096;
    const MAX_BYTES: usize = 4 << 20;

    /// The text that identifies a request's check, or `None` when its variables
    /// cannot be written (it is then checked every time).
    fn key(params: &Params) -> Option<String> {
        let variables = serde_json::to_string(&params.variables).ok()?;
        let name = params.operation_name.as_deref();
        serde_json::to_string(&(name, variables, &params.query)).ok()
    }

    fn passed(&self, key: &str) -> bool {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.0.contains(key)
    }

    fn pass(&self, key: String) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let (keys, bytes) = &mut *kept;
        if keys.len() >= Self::MAX_REQUESTS || *bytes + key.len() > Self::MAX_BYTES {
            keys.clear();
            *bytes = 0;
        }
        if key.len() <= Self::MAX_BYTES && !keys.contains(&key) {
            *bytes += key.len();
            keys.insert(key);
        }
    }
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
            documents: Documents::default(),
            checked: Checked::default(),
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
        let parsed = self.documents.parse(&params.query);
        let key = parsed.as_ref().and_then(|_| Checked::key(&params));
        let parsed = match (parsed, &key) {
            (Some(doc), Some(key)) if self.checked.passed(key) => doc,
            (parsed, _) => {
                let mut checked = Request::new(params.query.clone())
                    .variables(params.variables.clone())
                    .data(Arc::new(OperationName(params.operation_name.clone())));
                if let Some(doc) = &parsed {
                    checked.set_parsed_query(ExecutableDocument::clone(&doc.doc));
                    checked = checked.data(Parsed(Arc::clone(&doc.doc)));
                }
                if let Some(name) = &params.operation_name {
                    checked = checked.operation_name(name.clone());
                }
                // The checking schema executes nothing: an error there is a refusal.
                let response = self.checking.execute(checked).await;
                match parsed {
                    // The checking request's handle is gone with it.
                    Some(doc) if response.errors.is_empty() => {
                        if let Some(key) = key {
                            self.checked.pass(key);
                        }
                        doc
                    }
                    _ => return Outcome::Rejected(response),
                }
            }
        };
        let order = parsed.order(params.operation_name.as_deref());
        let mut request = Request::new(params.query).variables(params.variables);
        if let Some(name) = params.operation_name {
            request = request.operation_name(name);
        }
        request.set_parsed_query(ExecutableDocument::clone(&parsed.doc));
        if Option::as_ref(&order).is_some_and(|order| !order.repeats()) {
            request = request.data(Direct);
        }
        let mut response = execute(self.executing.clone(), with_data(request)).await;
        if let Some(order) = Option::as_ref(&order) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A request is known as checked only with its own text, operation name and
    /// variables; a full store starts again.
    #[test]
    fn checks_are_kept_per_text_operation_and_variables() {
        let params = |query: &str, name: Option<&str>, limit: i64| Params {
            query: query.to_string(),
            variables: Variables::from_json(serde_json::json!({ "limit": limit })),
            operation_name: name.map(str::to_string),
        };
        let checked = Checked::default();
        let key = |p: &Params| Checked::key(p).unwrap();
        let first = params("query Q($limit: Int) { a(limit: $limit) }", None, 5);
        checked.pass(key(&first));
        assert!(checked.passed(&key(&first)));
        for other in [
            params("query Q($limit: Int) { a(limit: $limit) }", None, 50_000),
            params("query Q($limit: Int) { a(limit: $limit) }", Some("Q"), 5),
            params("query Q($limit: Int) { b(limit: $limit) }", None, 5),
        ] {
            assert!(!checked.passed(&key(&other)), "{other:?}");
        }
        for i in 0..Checked::MAX_REQUESTS {
            checked.pass(key(&params("{ a }", None, i as i64)));
        }
        let kept = checked.kept.lock().unwrap();
        assert!(kept.0.len() <= Checked::MAX_REQUESTS);
        assert!(!kept.0.contains(&key(&first)));
        assert_eq!(kept.1, kept.0.iter().map(String::len).sum::<usize>());
    }

    /// An operation's key order is read once per document and operation name; a
    /// name the document does not have is answered but not kept.
    #[test]
    fn key_orders_are_kept_per_document_and_operation() {
        let documents = Documents::default();
        let doc = documents
            .parse("query A { a { b } } query B { c }")
            .unwrap();
        let a = doc.order(Some("A"));
        assert!(Arc::ptr_eq(&a, &doc.order(Some("A"))));
        assert!(!Arc::ptr_eq(&a, &doc.order(Some("B"))));
        assert_eq!(
            Option::as_ref(&a),
            KeyOrder::of_operation(&doc.doc, Some("A")).as_ref()
        );
        assert!(doc.order(None).is_none());
        assert!(doc.order(Some("C")).is_none());
        assert_eq!(doc.orders.lock().unwrap().len(), 3);
        let single = documents.parse("{ a }").unwrap();
        assert!(single.order(None).is_some());
        assert!(single.order(Some("X")).is_some());
        assert_eq!(single.orders.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_text_is_parsed_once_and_a_full_store_starts_again() {
        let documents = Documents::default();
        let first = documents.parse("{ sponsors { name } }").unwrap();
        let again = documents.parse("{ sponsors { name } }").unwrap();
        assert!(Arc::ptr_eq(&first, &again), "parsed twice");
        // Not kept: a document that does not parse.
        assert!(documents.parse("{ sponsors { name }").is_none());
        assert_eq!(documents.kept.lock().unwrap().0.len(), 1);
        for i in 0..Documents::MAX_DOCUMENTS {
            documents.parse(&format!("{{ a{i}: sponsors {{ name }} }}"));
        }
        let kept = documents.kept.lock().unwrap();
        assert!(kept.0.len() <= Documents::MAX_DOCUMENTS);
        assert!(!kept.0.contains_key("{ sponsors { name } }"));
        assert_eq!(kept.1, kept.0.keys().map(String::len).sum::<usize>());
    }
}
