// roost GraphQL explorer: a small, dependency-free playground served by roost itself
// (local and e2e only). It reads the schema by introspection, lists the queries and
// types, writes example queries, and runs queries with fetch.
"use strict";

(function () {
  const ENDPOINT = "/graphql/";
  const STORAGE_KEY = "roost-explorer";

  const INTROSPECTION = `query ExplorerIntrospection {
  __schema {
    queryType { name }
    types {
      kind name description
      fields {
        name description
        args { name description defaultValue type { ...TypeRef } }
        type { ...TypeRef }
      }
    }
  }
}
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }
}`;

  const $ = (id) => document.getElementById(id);
  let types = new Map();

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "onclick") node.addEventListener("click", value);
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  // `[Issue!]!` from a type reference.
  function typeName(ref) {
    if (!ref) return "";
    if (ref.kind === "NON_NULL") return typeName(ref.ofType) + "!";
    if (ref.kind === "LIST") return "[" + typeName(ref.ofType) + "]";
    return ref.name;
  }

  function namedType(ref) {
    while (ref && ref.ofType) ref = ref.ofType;
    return ref ? ref.name : null;
  }

  function typeLink(ref) {
    const name = namedType(ref);
    const text = typeName(ref);
    const target = types.get(name);
    if (!target || !target.fields) return el("span", { class: "sig" }, text);
    return el("a", { class: "type sig", href: "#" + name, onclick: (e) => { e.preventDefault(); showType(name); } }, text);
  }

  function argList(args) {
    if (!args || args.length === 0) return null;
    const parts = [];
    args.forEach((arg, i) => {
      if (i > 0) parts.push(", ");
      parts.push(arg.name + ": " + typeName(arg.type));
      if (arg.defaultValue !== null && arg.defaultValue !== undefined) parts.push(" = " + arg.defaultValue);
    });
    return el("span", { class: "args" }, "(", ...parts, ")");
  }

  function showType(name) {
    const type = types.get(name);
    if (!type) return;
    $("type-panel").hidden = false;
    $("type-name").textContent = name;
    $("type-description").textContent = type.description || "";
    const list = $("type-fields");
    list.replaceChildren();
    for (const field of type.fields || []) {
      list.append(el("li", {},
        el("span", { class: "sig" }, field.name), argList(field.args), el("span", { class: "sig" }, ": "), typeLink(field.type),
        field.description ? el("span", { class: "desc" }, field.description) : null));
    }
    $("type-panel").scrollIntoView({ block: "nearest" });
  }

  // Scalar fields of a type, for example selections.
  function scalarFields(name) {
    const type = types.get(name);
    if (!type || !type.fields) return [];
    return type.fields
      .filter((f) => f.args.length === 0)
      .filter((f) => {
        const kind = types.get(namedType(f.type));
        return kind && (kind.kind === "SCALAR" || kind.kind === "ENUM");
      })
      .map((f) => f.name);
  }

  function exampleFor(field) {
    const required = field.args.filter((a) => a.type.kind === "NON_NULL");
    const defs = required.map((a) => "$" + a.name + ": " + typeName(a.type));
    const call = required.map((a) => a.name + ": $" + a.name);
    const target = namedType(field.type);
    const scalars = scalarFields(target);
    const selection = scalars.length ? " {\n    " + scalars.join("\n    ") + "\n  }" : "";
    const name = field.name.charAt(0).toUpperCase() + field.name.slice(1);
    const query = "query " + name + (defs.length ? "(" + defs.join(", ") + ")" : "") +
      " {\n  " + field.name + (call.length ? "(" + call.join(", ") + ")" : "") + selection + "\n}\n";
    const variables = {};
    for (const arg of required) variables[arg.name] = "";
    $("query").value = query;
    $("variables").value = JSON.stringify(variables, null, 2);
    save();
    $("query").focus();
  }

  function renderSchema(schema) {
    types = new Map(schema.types.map((t) => [t.name, t]));
    const root = types.get(schema.queryType.name);
    const list = $("queries");
    list.replaceChildren();
    for (const field of root.fields) {
      list.append(el("li", {},
        el("a", { class: "field", href: "#", onclick: (e) => { e.preventDefault(); exampleFor(field); } }, field.name),
        argList(field.args), el("span", { class: "sig" }, ": "), typeLink(field.type),
        field.description ? el("span", { class: "desc" }, field.description) : null));
    }
  }

  async function post(query, variables) {
    const response = await fetch(ENDPOINT, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/graphql-response+json, application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    let body;
    try { body = JSON.parse(text); } catch (_) { body = text; }
    return { status: response.status, body };
  }

  async function loadSchema() {
    try {
      const { body } = await post(INTROSPECTION, {});
      if (body && body.data && body.data.__schema) {
        renderSchema(body.data.__schema);
      } else {
        $("queries").replaceChildren(el("li", { class: "error" }, "Introspection failed: " + JSON.stringify(body)));
      }
    } catch (e) {
      $("queries").replaceChildren(el("li", { class: "error" }, "Introspection failed: " + e));
    }
  }

  async function run() {
    let variables = {};
    const text = $("variables").value.trim();
    if (text) {
      try { variables = JSON.parse(text); } catch (e) {
        $("status").textContent = "Variables are not valid JSON: " + e.message;
        return;
      }
    }
    save();
    $("run").disabled = true;
    $("status").textContent = "Running\u2026";
    const started = performance.now();
    try {
      const { status, body } = await post($("query").value, variables);
      const ms = Math.round(performance.now() - started);
      $("status").textContent = "HTTP " + status + " in " + ms + " ms";
      $("result").textContent = typeof body === "string" ? body : JSON.stringify(body, null, 2);
    } catch (e) {
      $("status").textContent = "Request failed: " + e;
    } finally {
      $("run").disabled = false;
    }
  }

  function save() {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ query: $("query").value, variables: $("variables").value }));
    } catch (_) { /* storage may be unavailable */ }
  }

  function restore() {
    try {
      const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null");
      if (saved) {
        $("query").value = saved.query || "";
        $("variables").value = saved.variables || "{}";
        return;
      }
    } catch (_) { /* ignore */ }
    $("query").value = "query Home {\n  statsOverview {\n    activeChaptersStats\n    activeProjectsStats\n    contributorsStats\n    countriesStats\n  }\n  recentProjects(limit: 3) {\n    key\n    name\n    level\n  }\n}\n";
  }

  document.addEventListener("DOMContentLoaded", () => {
    restore();
    $("run").addEventListener("click", run);
    $("prettify").addEventListener("click", () => {
      try { $("variables").value = JSON.stringify(JSON.parse($("variables").value || "{}"), null, 2); }
      catch (e) { $("status").textContent = "Variables are not valid JSON: " + e.message; }
    });
    for (const id of ["query", "variables"]) {
      $(id).addEventListener("keydown", (e) => {
        if ((e.ctrlKey || e.metaKey) && e.key === "Enter") { e.preventDefault(); run(); }
      });
      $(id).addEventListener("input", save);
    }
    loadSchema();
  });
})();
