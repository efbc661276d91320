//! Response fields in the order the query asked for them.
//!
//! The GraphQL specification (§7.2.2, serialized map ordering) wants every object of
//! a response to list its fields in the order `CollectFields` gathers them: the
//! selection set's order, fragments expanded where they are spread. async-graphql
//! resolves a query's root fields concurrently and writes each one when it completes,
//! so without this pass the same query could answer `{"sponsors": …, "statsOverview":
//! …}` once and the other way round the next time: different bytes for the same
//! answer (caches and ETags see a change), and a client that reads the response as a
//! stream cannot anticipate it.
//!
//! [`KeyOrder`] is read from the parsed document of a request and, once the operation
//! has run ([`super::run`]), sorts every object of `data` by the position of its keys
//! in the document. Keys the document does not know (none are expected) keep their
//! place after the known ones.

use std::collections::HashMap;

use async_graphql::parser::types::{DocumentOperations, ExecutableDocument, SelectionSet};
use async_graphql::{Name, Value};

/// The response keys of one selection set in query order, and the order of each
/// key's own selection (merged over every place the key is selected), at the key's
/// position: a response object is ordered with one comparison of names per key and
/// no hashing (the snapshot page has 6,000 keys).
#[derive(Default, Debug, PartialEq)]
pub struct KeyOrder {
    keys: Vec<Name>,
    children: Vec<KeyOrder>,
    /// Where each key is in `keys`, while the order is collected.
    index: HashMap<Name, usize>,
    /// Whether a selection set here or below selects one response key twice.
    repeats: bool,
}

impl KeyOrder {
    /// The order of the operation `name` (or the document's only one).
    pub fn of_operation(document: &ExecutableDocument, name: Option<&str>) -> Option<KeyOrder> {
        let operation = match (&document.operations, name) {
            (DocumentOperations::Single(op), _) => op,
            (DocumentOperations::Multiple(ops), Some(name)) => ops.get(name)?,
            (DocumentOperations::Multiple(ops), None) if ops.len() == 1 => ops.values().next()?,
            (DocumentOperations::Multiple(_), None) => return None,
        };
        let mut order = KeyOrder::default();
        order.collect(
            document,
            &operation.node.selection_set.node,
            &mut Vec::new(),
        );
        Some(order)
    }

    /// Adds the keys of `set` (fragments expanded in place) in first-appearance order.
    /// `open` holds the fragments being expanded, so a cycle (which validation
    /// refuses anyway) cannot recurse forever.
    fn collect<'d>(
        &mut self,
        document: &'d ExecutableDocument,
        set: &'d SelectionSet,
        open: &mut Vec<&'d Name>,
    ) {
        use async_graphql::parser::types::Selection;
        for selection in &set.items {
            match &selection.node {
                Selection::Field(field) => {
                    let key = &field.node.response_key().node;
                    let at = match self.index.get(key) {
                        Some(&at) => {
                            self.repeats = true;
                            at
                        }
                        None => {
                            self.index.insert(key.clone(), self.keys.len());
                            self.keys.push(key.clone());
                            self.children.push(KeyOrder::default());
                            self.keys.len() - 1
                        }
                    };
                    let child = &mut self.children[at];
                    child.collect(document, &field.node.selection_set.node, open);
                    self.repeats |= child.repeats;
                }
                Selection::InlineFragment(fragment) => {
                    self.collect(document, &fragment.node.selection_set.node, open);
                }
                Selection::FragmentSpread(spread) => {
                    let name = &spread.node.fragment_name.node;
                    if open.contains(&name) {
                        continue;
                    }
                    if let Some(fragment) = document.fragments.get(name) {
                        open.push(name);
                        self.collect(document, &fragment.node.selection_set.node, open);
                        open.pop();
                    }
                }
            }
        }
    }

    /// Whether some selection set of the operation selects one response key twice
    /// (directly, or through fragments expanded in place).
    pub fn repeats(&self) -> bool {
        self.repeats
    }

    /// Sorts every object in `value` by this order, recursively (lists element by
    /// element).
    pub fn apply(&self, value: &mut Value) {
        match value {
            Value::Object(map) => {
                if self.keys.is_empty() {
                    return;
                }
                // Unknown keys after the known ones, in their place. A key is looked
                // for from where the previous one was found, so an object already in
                // order (most are) costs one comparison per key.
                let mut from = 0;
                let mut rank = |key: &Name| {
                    let found = (from..self.keys.len())
                        .chain(0..from)
                        .find(|&at| self.keys[at] == *key);
                    if let Some(at) = found {
                        from = at;
                    }
                    found.unwrap_or(usize::MAX)
                };
                let mut in_order = true;
                let mut last = 0;
                for (key, child) in map.iter_mut() {
                    let at = rank(key);
                    in_order &= at >= last;
                    last = at;
                    if let Some(order) = self.children.get(at) {
                        order.apply(child);
                    }
                }
                if !in_order {
                    let rank = |key: &Name| {
                        self.keys
                            .iter()
                            .position(|k| k == key)
                            .unwrap_or(usize::MAX)
                    };
                    map.sort_by(|a, _, b, _| rank(a).cmp(&rank(b)));
                }
            }
            Value::List(items) => {
                for item in items {
                    self.apply(item);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;

    fn order(query: &str, name: Option<&str>) -> KeyOrder {
        KeyOrder::of_operation(&parse_query(query).unwrap(), name).unwrap()
    }

    #[test]
    fn a_key_selected_twice_anywhere_is_a_repeat() {
        let repeats = |query: &str| order(query, None).repeats();
        assert!(!repeats("{ a { b c } d: a { b } }"));
        assert!(!repeats("{ a { ...F } } fragment F on T { b c }"));
        assert!(repeats("{ a { b } a { c } }"));
        assert!(repeats("{ a { b b } }"));
        assert!(repeats("{ x { a { b ... on T { b } } } }"));
        assert!(repeats("{ a { b ...F } } fragment F on T { b }"));
    }

    fn keys(value: &Value) -> Vec<String> {
        match value {
            Value::Object(map) => map.keys().map(|k| k.to_string()).collect(),
            _ => panic!("not an object: {value}"),
        }
    }

    #[test]
    fn objects_follow_the_query_with_fragments_aliases_and_lists() {
        let order = order(
            "query A { b: sponsors { url name } ...F stats { x } } \
             fragment F on Query { stats { y ... on Stats { z } } recent { name id } }",
            None,
        );
        let mut data = Value::from_json(serde_json::json!({
            "recent": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
            "stats": {"z": 1, "y": 2, "x": 3},
            "b": [{"name": "n", "url": "u"}],
        }))
        .unwrap();
        order.apply(&mut data);
        // `stats` is first selected inside F, so its fields from F come first.
        assert_eq!(keys(&data), ["b", "stats", "recent"]);
        let Value::Object(map) = &data else {
            unreachable!()
        };
        assert_eq!(keys(&map["stats"]), ["y", "z", "x"]);
        let Value::List(sponsors) = &map["b"] else {
            unreachable!()
        };
        assert_eq!(keys(&sponsors[0]), ["url", "name"]);
        let Value::List(recent) = &map["recent"] else {
            unreachable!()
        };
        for item in recent {
            assert_eq!(keys(item), ["name", "id"]);
        }
    }

    #[test]
    fn the_named_operation_is_chosen_and_fragment_cycles_end() {
        let doc = "query A { a } query B { b ...F } fragment F on Query { c ...F }";
        assert_eq!(order(doc, Some("B")).keys, [Name::new("b"), Name::new("c")]);
        assert!(KeyOrder::of_operation(&parse_query(doc).unwrap(), None).is_none());
    }
}
