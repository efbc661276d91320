//! Request limits and the classification of document errors.
//!
//! Depth and complexity are checked after parsing and validation, before any resolver
//! runs, so an expensive query is refused without reading data. The depth counts
//! nested fields (`{ a { b } }` is 2) through fragments; the introspection fields
//! `__schema` and `__type` are not counted, so the explorer's introspection query works
//! where introspection is enabled (its cost is still bounded by the complexity limit).
//!
//! Where introspection is disabled (production, staging), a document selecting
//! `__schema` or `__type` is refused with an error; async-graphql alone would answer
//! with a silent `null`.
//!
//! The extension also records, per request, that the document was rejected (syntax,
//! validation, introspection, depth or complexity), which decides the HTTP status under
//! `application/graphql-response+json` (GraphQL over HTTP: 400 for a document that was
//! never executed).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextParseQuery, NextValidation,
};
use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{Name, ServerError, ServerResult, ValidationResult, Variables};

/// The limits of one set of GraphQL routes.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Deepest field nesting allowed.
    pub max_depth: usize,
    /// Highest query complexity allowed (each field costs 1; a list field multiplies
    /// its children's cost by its `limit` or its stated size).
    pub max_complexity: usize,
    /// Largest request body, and largest GET query string, in bytes.
    pub max_body_bytes: usize,
    /// Longest time a request may take.
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 5,
            max_complexity: 20_000,
            max_body_bytes: 64 * 1024,
            timeout: Duration::from_secs(10),
        }
    }
}

/// Per-request flag: the document was rejected before execution.
#[derive(Debug, Default)]
pub struct Rejected(AtomicBool);

impl Rejected {
    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

fn reject(ctx: &ExtensionContext<'_>) {
    if let Some(flag) = ctx.data_opt::<Arc<Rejected>>() {
        flag.0.store(true, Ordering::Relaxed);
    }
}

fn with_code(mut error: ServerError, code: &str) -> ServerError {
    error
        .extensions
        .get_or_insert_with(Default::default)
        .set("code", code);
    error
}

/// The extension enforcing depth and complexity, and refusing introspection where it
/// is disabled (async-graphql alone would answer `__schema` with a silent `null`).
#[derive(Debug, Clone, Copy)]
pub struct Guard {
    pub max_depth: usize,
    pub max_complexity: usize,
    pub introspection: bool,
}

impl ExtensionFactory for Guard {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(*self)
    }
}

fn refusal(message: String, code: &str) -> ServerError {
    with_code(ServerError::new(message, None), code)
}

#[async_graphql::async_trait::async_trait]
impl Extension for Guard {
    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        let doc = next.run(ctx, query, variables).await.map_err(|e| {
            reject(ctx);
            with_code(e, "GRAPHQL_PARSE_FAILED")
        })?;
        if !self.introspection && uses_introspection(&doc) {
            reject(ctx);
            return Err(refusal(
                "Introspection is disabled in this environment; the schema is published as \
                 schema.graphql"
                    .to_string(),
                "INTROSPECTION_DISABLED",
            ));
        }
        let depth = depth(&doc);
        if depth > self.max_depth {
            reject(ctx);
            return Err(refusal(
                format!(
                    "Query is nested too deep: depth {depth} exceeds the limit of {}",
                    self.max_depth
                ),
                "QUERY_TOO_DEEP",
            ));
        }
        Ok(doc)
    }

    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        match next.run(ctx).await {
            Err(errors) => {
                reject(ctx);
                Err(errors
                    .into_iter()
                    .map(|e| with_code(e, "GRAPHQL_VALIDATION_FAILED"))
                    .collect())
            }
            Ok(result) if result.complexity > self.max_complexity => {
                reject(ctx);
                Err(vec![refusal(
                    format!(
                        "Query is too complex: complexity {} exceeds the limit of {}",
                        result.complexity, self.max_complexity
                    ),
                    "QUERY_TOO_COMPLEX",
                )])
            }
            Ok(result) => Ok(result),
        }
    }
}

fn is_introspection(name: &str) -> bool {
    name == "__schema" || name == "__type"
}

/// Whether any operation or fragment of the document selects `__schema` or `__type`.
pub fn uses_introspection(doc: &ExecutableDocument) -> bool {
    fn in_set(set: &SelectionSet) -> bool {
        set.items.iter().any(|item| match &item.node {
            Selection::Field(field) => {
                is_introspection(field.node.name.node.as_str())
                    || in_set(&field.node.selection_set.node)
            }
            Selection::InlineFragment(inline) => in_set(&inline.node.selection_set.node),
            Selection::FragmentSpread(_) => false,
        })
    }
    doc.operations
        .iter()
        .any(|(_, op)| in_set(&op.node.selection_set.node))
        || doc
            .fragments
            .values()
            .any(|f| in_set(&f.node.selection_set.node))
}

/// The deepest field nesting of any operation of the document.
pub fn depth(doc: &ExecutableDocument) -> usize {
    let mut walk = DepthWalk {
        doc,
        memo: HashMap::new(),
        path: Vec::new(),
    };
    doc.operations
        .iter()
        .map(|(_, op)| walk.set(&op.node.selection_set.node))
        .max()
        .unwrap_or(0)
}

struct DepthWalk<'a> {
    doc: &'a ExecutableDocument,
    /// Depth of each fragment's selection set (fragments are used many times).
    memo: HashMap<&'a Name, usize>,
    /// Fragments being expanded (a cycle is a validation error; it must not loop here).
    path: Vec<&'a Name>,
}

impl<'a> DepthWalk<'a> {
    fn set(&mut self, set: &'a SelectionSet) -> usize {
        set.items
            .iter()
            .map(|item| match &item.node {
                Selection::Field(field) => {
                    if is_introspection(field.node.name.node.as_str()) {
                        0
                    } else {
                        1 + self.set(&field.node.selection_set.node)
                    }
                }
                Selection::InlineFragment(inline) => self.set(&inline.node.selection_set.node),
                Selection::FragmentSpread(spread) => self.fragment(&spread.node.fragment_name.node),
            })
            .max()
            .unwrap_or(0)
    }

    fn fragment(&mut self, name: &'a Name) -> usize {
        if let Some(depth) = self.memo.get(name) {
            return *depth;
        }
        if self.path.contains(&name) {
            return 0;
        }
        let Some(fragment) = self.doc.fragments.get(name) else {
            return 0;
        };
        self.path.push(name);
        let depth = self.set(&fragment.node.selection_set.node);
        self.path.pop();
        self.memo.insert(name, depth);
        depth
    }
}
