//! Request limits and the classification of document errors (docs/api.md §6).
//!
//! Checked after parsing, before any resolver runs, so an expensive or malformed query
//! is refused without reading data ([`Guard`]):
//!
//! - the operation to run: an unknown `operationName`, or several operations and no
//!   `operationName`, is refused (async-graphql alone would answer an uncoded error);
//! - width: at most `max_root_fields` root fields (aliases count: 1,000 aliases of one
//!   aggregate are 1,000 statements) and `max_fields` selected fields in all, fragments
//!   expanded;
//! - depth: nested fields (`{ a { b } }` is 2) through fragments;
//! - variables: every non-null variable without a default must be given;
//! - complexity (in validation): each field 1, list fields multiply their children,
//!   aggregates cost what their SQL reads (see [`super::query`]).
//!
//! The introspection fields `__schema` and `__type` count for neither depth nor width,
//! so the explorer's introspection query works where introspection is enabled (its cost
//! is still bounded by the complexity limit). Where it is disabled (production,
//! staging), a document selecting them is refused with an error; async-graphql alone
//! would answer with a silent `null`.
//!
//! Messages quoting the document are clipped: a parse error of a 60 KB query does not
//! send the query back.
//!
//! The guard runs on the checking schema of [`super::run`], which never executes: any
//! error there is a refusal, answered without `data` (and with 400 under
//! `application/graphql-response+json`, GraphQL over HTTP).
//!
//! Also here: [`ClientLimiter`], the requests per second of one anonymous client
//! address, and the larger budget of one trusted caller (a session, or a listed
//! address such as the frontend's server-side renderer).

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextParseQuery, NextValidation,
};
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, OperationDefinition, Selection, SelectionSet,
};
use async_graphql::{Name, Positioned, ServerError, ServerResult, ValidationResult, Variables};

use crate::guard::client::canonical;
use crate::guard::{RateCheck, RateLimited};
use crate::limits::{Kind, RedisLimits, Subject};

/// The limits of one set of GraphQL routes.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Deepest field nesting allowed.
    pub max_depth: usize,
    /// Highest query complexity allowed (each field costs 1; a list field multiplies
    /// its children's cost by its `limit` or its stated size; aggregates cost more).
    pub max_complexity: usize,
    /// Most root fields (aliases included) in the operation.
    pub max_root_fields: usize,
    /// Most selections in the operation (fields, introspection included, and fragment
    /// spreads), fragments expanded at each use.
    pub max_fields: usize,
    /// Largest request body, and largest GET query string, in bytes.
    pub max_body_bytes: usize,
    /// Longest time a request may take.
    pub timeout: Duration,
    /// Database time one request may use, over all its dataset calls; the calls of a
    /// request past it are interrupted and fail with `DATABASE_TIME_EXCEEDED`.
    pub db_budget: Duration,
    /// Calls of one request that may hold a read-pool permit at once; `None` = half
    /// the pool (at least one), so that other requests keep being answered.
    pub pool_share: Option<usize>,
    /// Requests per second per client address of anonymous callers (every caller in
    /// local and e2e), and of `/idx/` searches; 0 = no limit.
    pub rate_limit: u32,
    /// Requests an anonymous address may send at once after a quiet spell (refilled
    /// at [`Limits::rate_limit`] a second): the browser's share of the frontend's
    /// heaviest page, loaded twice, fits (docs/api.md §6); 0 = as large as the rate.
    pub burst: u32,
    /// Requests per second (burst as large) of a trusted caller: per session in
    /// production and staging, per address for [`Limits::trusted_clients`]; 0 = no
    /// limit.
    pub trusted_rate_limit: u32,
    /// Addresses whose requests are counted with [`Limits::trusted_rate_limit`] instead
    /// of the anonymous budget: the frontend's server-side renderer, which sends every
    /// page's queries from one address and cannot send a session cookie.
    pub trusted_clients: Vec<ipnet::IpNet>,
    /// Production and staging: refuse every request without a valid session (a private
    /// deployment) instead of serving anonymous callers.
    pub require_session: bool,
    /// Where the rate limit is kept: Redis (shared by every shim using it) or, for
    /// `None`, this process.
    pub shared: Option<RedisLimits>,
}

/// The default burst of an anonymous address ([`Limits::burst`]): the frontend's
/// heaviest page (a board's candidates: one request, then one per candidate and one
/// per chapter or project each leads) is 33 requests on the sample and about 100 for
/// a board of 15 candidates leading five each; 200 loads such a page twice in a row.
pub const DEFAULT_BURST: u32 = 200;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 5,
            max_complexity: 20_000,
            max_root_fields: 50,
            max_fields: 500,
            max_body_bytes: 64 * 1024,
            timeout: Duration::from_secs(10),
            db_budget: Duration::from_secs(5),
            pool_share: None,
            rate_limit: 20,
            burst: DEFAULT_BURST,
            trusted_rate_limit: 500,
            trusted_clients: Vec::new(),
            require_session: false,
            shared: None,
        }
    }
}

/// The complexity of aggregate fields: what their SQL reads, in units of an ordinary
/// field (1). A plain field or a row of a list costs 1; an aggregate reads many rows
/// for one value, and costs in proportion to what it took at `nest` scale (2 cores,
/// release build): an unfiltered `topContributors` groups all ~91,000 contributions
/// (0.3 to 1 s), so it costs half the limit of 20,000 and a request holds at most one;
/// `statsOverview` counts distinct contributors (5 to 25 ms); filtered aggregates and
/// per-record counts read a few hundred rows at most (about 1 ms).
pub mod cost {
    /// `topContributors` over every repository: a GROUP BY of all contributions.
    pub const ALL_CONTRIBUTORS: usize = 10_000;
    /// `topContributors` of an organization, a project or a repository name.
    pub const SOME_CONTRIBUTORS: usize = 100;
    /// `statsOverview`: distinct contributors over all contributions, and counts.
    pub const STATS_OVERVIEW: usize = 500;
    /// `Organization.stats`: five aggregates over the organization's repositories.
    pub const ORGANIZATION_STATS: usize = 100;
    /// `chapterCountries`: a GROUP BY over the chapters.
    pub const CHAPTER_COUNTRIES: usize = 20;
    /// A count over a project's repositories or a member's issues and releases.
    pub const TOTALS: usize = 10;

    /// `topContributors(limit, ...)` with or without a filter.
    pub fn top_contributors(limit: usize, filtered: bool, child_complexity: usize) -> usize {
        let scan = if filtered {
            SOME_CONTRIBUTORS
        } else {
            ALL_CONTRIBUTORS
        };
        scan.saturating_add(limit.saturating_mul(child_complexity))
    }
}

/// Who a GraphQL rate limit counts: an anonymous caller's address, or a trusted
/// caller (a session, or an address listed as trusted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Caller {
    Anonymous(IpAddr),
    Session(i64),
    TrustedAddress(IpAddr),
}

impl Caller {
    /// The anonymous caller at `ip`, or a trusted one when `ip` is listed.
    pub fn from_address(ip: IpAddr, trusted: &[ipnet::IpNet]) -> Caller {
        let ip = canonical(ip);
        if trusted.iter().any(|net| net.contains(&ip)) {
            Caller::TrustedAddress(ip)
        } else {
            Caller::Anonymous(ip)
        }
    }
}

/// Requests per second per [`Caller`]: two budgets ([`RateCheck`]), of kinds
/// `graphql` (anonymous addresses) and `graphql_trusted` (sessions and trusted
/// addresses), in the process or in Redis ([`Limits::shared`]).
pub struct ClientLimiter {
    anonymous: Option<RateCheck>,
    trusted: Option<RateCheck>,
}

impl ClientLimiter {
    /// The two budgets of `limits`, kept where `limits.shared` says; a rate of 0 is no
    /// limit for its callers.
    pub fn new(limits: &Limits) -> ClientLimiter {
        ClientLimiter {
            anonymous: RateCheck::with_burst(
                Kind::Graphql,
                limits.rate_limit,
                limits.burst,
                limits.shared.clone(),
            ),
            trusted: RateCheck::per_second(
                Kind::GraphqlTrusted,
                limits.trusted_rate_limit,
                limits.shared.clone(),
            ),
        }
    }

    /// Takes one request of `caller`; refused when its budget is spent.
    pub async fn check(&self, caller: Caller) -> Result<(), RateLimited> {
        let (budget, subject) = match caller {
            Caller::Anonymous(ip) => (&self.anonymous, Subject::Addr(ip)),
            Caller::Session(id) => (&self.trusted, Subject::Id(id)),
            Caller::TrustedAddress(ip) => (&self.trusted, Subject::Addr(ip)),
        };
        match budget {
            Some(budget) => budget.take(subject).await.map(drop),
            None => Ok(()),
        }
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
    pub max_root_fields: usize,
    pub max_fields: usize,
    pub introspection: bool,
}

impl Guard {
    /// Everything checked on the parsed document before async-graphql sees it.
    fn check(
        &self,
        ctx: &ExtensionContext<'_>,
        doc: &ExecutableDocument,
        variables: &Variables,
    ) -> Result<(), ServerError> {
        if !self.introspection && uses_introspection(doc) {
            return Err(refusal(
                "Introspection is disabled in this environment; the schema is published as \
                 schema.graphql"
                    .to_string(),
                "INTROSPECTION_DISABLED",
            ));
        }
        let name = ctx
            .data_opt::<Arc<OperationName>>()
            .and_then(|n| n.0.as_deref());
        let operation = selected_operation(doc, name)
            .map_err(|message| refusal(message, "GRAPHQL_VALIDATION_FAILED"))?;
        let mut width = Width::new(doc);
        let roots = width.roots(&operation.node.selection_set.node);
        if roots > self.max_root_fields {
            return Err(refusal(
                format!(
                    "Too many root fields: {roots} (aliases included) exceed the limit of {}; \
                     send fewer per request",
                    self.max_root_fields
                ),
                "TOO_MANY_ROOT_FIELDS",
            ));
        }
        let fields = width.selections(&operation.node.selection_set.node);
        if fields > self.max_fields {
            return Err(refusal(
                format!(
                    "Too many fields: {fields} selections (fragments expanded) exceed the \
                     limit of {}",
                    self.max_fields
                ),
                "TOO_MANY_FIELDS",
            ));
        }
        let depth = depth(doc);
        if depth > self.max_depth {
            return Err(refusal(
                format!(
                    "Query is nested too deep: depth {depth} exceeds the limit of {}",
                    self.max_depth
                ),
                "QUERY_TOO_DEEP",
            ));
        }
        if let Some(message) = missing_variable(&operation.node, variables) {
            return Err(refusal(message, "GRAPHQL_VALIDATION_FAILED"));
        }
        Ok(())
    }

    pub fn new(limits: &Limits, introspection: bool) -> Guard {
        Guard {
            max_depth: limits.max_depth,
            max_complexity: limits.max_complexity,
            max_root_fields: limits.max_root_fields,
            max_fields: limits.max_fields,
            introspection,
        }
    }
}

/// The `operationName` of a request, handed to the [`Guard`] as request data.
#[derive(Debug, Default)]
pub struct OperationName(pub Option<String>);

/// The request's document, parsed once before it is checked; without it (a document
/// that does not parse) the guard parses the query text itself and reports the error.
pub struct Parsed(pub Arc<ExecutableDocument>);

/// Longest error message quoting the document, in characters.
const MAX_MESSAGE_CHARS: usize = 300;

/// `text` cut to `max` characters, with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// A parse error's message without the echo of the query: pest's
/// ` --> 1:18 | <the line> | ^--- = expected ...` becomes
/// `Syntax error at 1:18: expected ...`.
fn parse_message(message: &str) -> String {
    let location = message
        .strip_prefix(" --> ")
        .and_then(|rest| rest.lines().next())
        .filter(|l| l.len() < 32);
    let reason = message
        .lines()
        .rev()
        .find_map(|l| l.trim_start().strip_prefix("= "));
    match (location, reason) {
        (Some(location), Some(reason)) => clip(
            &format!("Syntax error at {location}: {reason}"),
            MAX_MESSAGE_CHARS,
        ),
        _ => clip(message, MAX_MESSAGE_CHARS),
    }
}

fn clipped(mut error: ServerError) -> ServerError {
    error.message = clip(&error.message, MAX_MESSAGE_CHARS);
    error
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
        let parse_failed = |e: ServerError| {
            let message = parse_message(&e.message);
            with_code(ServerError { message, ..e }, "GRAPHQL_PARSE_FAILED")
        };
        // Checked here first: async-graphql's own parse step then walks the document
        // expanding every fragment at every use, which a chain of fragments spreading
        // the next one twice makes exponential; the width checked below bounds that
        // walk. The document was parsed once by the caller ([`Parsed`], also handed
        // to async-graphql as the request's parsed query), else it is parsed here.
        let parsed_here;
        let doc = match ctx.data_opt::<Parsed>() {
            Some(Parsed(doc)) => doc.as_ref(),
            None => {
                parsed_here = async_graphql::parser::parse_query(query)
                    .map_err(|e| parse_failed(ServerError::from(e)))?;
                &parsed_here
            }
        };
        self.check(ctx, doc, variables)?;
        next.run(ctx, query, variables).await.map_err(parse_failed)
    }

    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        match next.run(ctx).await {
            Err(errors) => Err(errors
                .into_iter()
                .map(|e| with_code(clipped(e), "GRAPHQL_VALIDATION_FAILED"))
                .collect()),
            Ok(result) if result.complexity > self.max_complexity => Err(vec![refusal(
                format!(
                    "Query is too complex: complexity {} exceeds the limit of {}",
                    result.complexity, self.max_complexity
                ),
                "QUERY_TOO_COMPLEX",
            )]),
            Ok(result) => Ok(result),
        }
    }
}

/// The operation a request runs, chosen as async-graphql chooses it, or why none.
fn selected_operation<'a>(
    doc: &'a ExecutableDocument,
    name: Option<&str>,
) -> Result<&'a Positioned<OperationDefinition>, String> {
    let unknown = |name: &str| format!("Unknown operation named \"{}\"", clip(name, 100));
    match (&doc.operations, name) {
        (DocumentOperations::Single(op), None) => Ok(op),
        (DocumentOperations::Single(_), Some(name)) => Err(unknown(name)),
        (DocumentOperations::Multiple(ops), Some(name)) => {
            ops.get(name).ok_or_else(|| unknown(name))
        }
        (DocumentOperations::Multiple(ops), None) if ops.len() == 1 => ops
            .values()
            .next()
            .ok_or_else(|| "The document has no operation".to_string()),
        (DocumentOperations::Multiple(_), None) => Err(
            "The document has several operations: name the one to run in 'operationName'"
                .to_string(),
        ),
    }
}

/// The first non-null variable without a default that the request does not give.
fn missing_variable(operation: &OperationDefinition, variables: &Variables) -> Option<String> {
    operation.variable_definitions.iter().find_map(|def| {
        let def = &def.node;
        let given = variables
            .get(&def.name.node)
            .is_some_and(|v| *v != async_graphql::Value::Null);
        (!def.var_type.node.nullable && def.default_value.is_none() && !given).then(|| {
            format!(
                "Variable \"${}\" of required type \"{}\" was not provided",
                clip(&def.name.node, 100),
                clip(&def.var_type.node.to_string(), 100)
            )
        })
    })
}

/// Counts what an operation selects, fragments expanded (memoised, so a chain of
/// fragments that doubles at each step is counted, not walked).
struct Width<'a> {
    /// Each fragment's count, of its fields directly in it (`true`) or of every
    /// selection under it (`false`).
    fragments: Fragments<'a, bool>,
}

impl<'a> Width<'a> {
    fn new(doc: &'a ExecutableDocument) -> Width<'a> {
        Width {
            fragments: Fragments::new(doc),
        }
    }

    /// Fields directly in `set` (through fragments), each alias one.
    fn roots(&mut self, set: &'a SelectionSet) -> usize {
        set.items.iter().fold(0usize, |n, item| {
            n.saturating_add(match &item.node {
                Selection::Field(_) => 1,
                Selection::InlineFragment(inline) => self.roots(&inline.node.selection_set.node),
                Selection::FragmentSpread(spread) => {
                    self.fragment(&spread.node.fragment_name.node, true)
                }
            })
        })
    }

    /// Every selection under `set` (fields, introspection included, and fragments),
    /// each fragment counted at every use: the size of the walk that executes it.
    fn selections(&mut self, set: &'a SelectionSet) -> usize {
        set.items.iter().fold(0usize, |n, item| {
            let inner = match &item.node {
                Selection::Field(field) => self.selections(&field.node.selection_set.node),
                Selection::InlineFragment(inline) => {
                    self.selections(&inline.node.selection_set.node)
                }
                Selection::FragmentSpread(spread) => {
                    self.fragment(&spread.node.fragment_name.node, false)
                }
            };
            n.saturating_add(1).saturating_add(inner)
        })
    }
}

impl<'a> FragmentWalk<'a> for Width<'a> {
    type Measure = bool;
    fn fragments(&mut self) -> &mut Fragments<'a, bool> {
        &mut self.fragments
    }
    fn measure(&mut self, set: &'a SelectionSet, roots: bool) -> usize {
        if roots {
            self.roots(set)
        } else {
            self.selections(set)
        }
    }
}

/// The fragments a walk of an operation's selection sets has expanded: each one's
/// measure, and those being expanded.
struct Fragments<'a, M> {
    doc: &'a ExecutableDocument,
    /// Each fragment's measures (fragments are used many times: a chain of fragments
    /// that doubles at each step is measured, not walked).
    memo: HashMap<(&'a Name, M), usize>,
    /// Fragments being expanded (a cycle is a validation error; it must not loop here).
    path: Vec<&'a Name>,
}

impl<'a, M> Fragments<'a, M> {
    fn new(doc: &'a ExecutableDocument) -> Fragments<'a, M> {
        Fragments {
            doc,
            memo: HashMap::new(),
            path: Vec::new(),
        }
    }
}

/// A walk of selection sets that measures fragments once each ([`Fragments`]).
trait FragmentWalk<'a> {
    /// Which measure of a selection set the walk takes.
    type Measure: Copy + Eq + Hash;
    fn fragments(&mut self) -> &mut Fragments<'a, Self::Measure>;
    /// The measure `m` of a selection set.
    fn measure(&mut self, set: &'a SelectionSet, m: Self::Measure) -> usize;

    /// The measure `m` of fragment `name`'s selection set; 0 for an unknown fragment
    /// or one met again while it is expanded.
    fn fragment(&mut self, name: &'a Name, m: Self::Measure) -> usize {
        let fragments = self.fragments();
        if let Some(n) = fragments.memo.get(&(name, m)) {
            return *n;
        }
        if fragments.path.contains(&name) {
            return 0;
        }
        let doc = fragments.doc;
        let Some(fragment) = doc.fragments.get(name) else {
            return 0;
        };
        fragments.path.push(name);
        let n = self.measure(&fragment.node.selection_set.node, m);
        let fragments = self.fragments();
        fragments.path.pop();
        fragments.memo.insert((name, m), n);
        n
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
        fragments: Fragments::new(doc),
    };
    doc.operations
        .iter()
        .map(|(_, op)| walk.set(&op.node.selection_set.node))
        .max()
        .unwrap_or(0)
}

struct DepthWalk<'a> {
    /// Depth of each fragment's selection set.
    fragments: Fragments<'a, ()>,
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
                Selection::FragmentSpread(spread) => {
                    self.fragment(&spread.node.fragment_name.node, ())
                }
            })
            .max()
            .unwrap_or(0)
    }
}

impl<'a> FragmentWalk<'a> for DepthWalk<'a> {
    type Measure = ();
    fn fragments(&mut self) -> &mut Fragments<'a, ()> {
        &mut self.fragments
    }
    fn measure(&mut self, set: &'a SelectionSet, (): ()) -> usize {
        self.set(set)
    }
}
