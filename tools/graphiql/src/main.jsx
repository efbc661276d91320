// roost's GraphQL explorer: GraphiQL (the `graphiql` package) on the page that
// `roost serve` shows at /graphql/ in local and e2e. Everything it loads comes from
// roost itself: this bundle, its stylesheet and the editor's web workers, built by
// tools/graphiql/build.sh into assets/graphiql/.
//
// - The schema (autocomplete, validation, docs) is read by introspection from
//   /graphql/.
// - The headers pane starts with the CSRF pair: GET /csrf/ sets the `csrftoken`
//   cookie and answers the token, which goes into `X-CSRFToken` (production asks for
//   the pair on every POST; local and e2e accept it).
// - The "Examples" plugin lists the web frontend's page queries
//   (/graphql/examples.json); a click opens one in a new tab with its variables.
// - History, tabs, prettify, copy and the dark theme are GraphiQL's own.
import { createRoot } from "react-dom/client";
import { GraphiQL, HISTORY_PLUGIN } from "graphiql";
import { useGraphiQL, useGraphiQLActions } from "@graphiql/react";
import { createGraphiQLFetcher } from "@graphiql/toolkit";
import "graphiql/style.css";
import "./roost.css";

// Monaco's workers: files beside this bundle.
globalThis.MonacoEnvironment = {
  getWorker(_id, label) {
    const file = label === "json" ? "json.worker.js" : label === "graphql" ? "graphql.worker.js" : "editor.worker.js";
    return new Worker(new URL(file, import.meta.url));
  },
};

const ENDPOINT = "/graphql/";

const DEFAULT_QUERY = `# roost's GraphQL API, read-only.
# Ctrl+Space completes, Ctrl+Enter runs.
# Sidebar: the schema's docs, history and
# the web frontend's page queries (Examples).
query Overview {
  statsOverview {
    activeChaptersStats
    activeProjectsStats
    contributorsStats
    countriesStats
  }
}
`;

async function csrfToken() {
  try {
    const reply = await fetch("/csrf/", { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!reply.ok) return null;
    return (await reply.json()).csrftoken ?? null;
  } catch {
    return null;
  }
}

async function examples() {
  try {
    const reply = await fetch("/graphql/examples.json", { headers: { Accept: "application/json" } });
    return reply.ok ? await reply.json() : [];
  } catch {
    return [];
  }
}

function ExamplesIcon() {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
      <path d="M4 6h16M4 12h16M4 18h10" strokeLinecap="round" />
    </svg>
  );
}

function examplesPlugin(list) {
  function Examples() {
    const queryEditor = useGraphiQL((s) => s.queryEditor);
    const variableEditor = useGraphiQL((s) => s.variableEditor);
    const { addTab } = useGraphiQLActions();
    const open = (example) => {
      addTab();
      queryEditor?.setValue(example.query);
      variableEditor?.setValue(JSON.stringify(example.variables, null, 2));
    };
    return (
      <section className="roost-examples" aria-label="Examples">
        <div className="graphiql-doc-explorer-title">Examples</div>
        <p>The web frontend's page queries, with variables from the sample data. A click opens one in a new tab.</p>
        <ul>
          {list.map((example) => (
            <li key={example.name}>
              <button type="button" onClick={() => open(example)} title={example.name}>
                <span className="roost-example-name">{example.operation || example.name}</span>
                {example.title ? <span className="roost-example-title">{example.title}</span> : null}
              </button>
            </li>
          ))}
        </ul>
      </section>
    );
  }
  return { title: "Examples", icon: ExamplesIcon, content: Examples };
}

const [token, list] = await Promise.all([csrfToken(), examples()]);
const headers = token ? JSON.stringify({ "X-CSRFToken": token }, null, 2) : "";
const fetcher = createGraphiQLFetcher({ url: ENDPOINT });

createRoot(document.getElementById("graphiql")).render(
  <GraphiQL
    fetcher={fetcher}
    defaultQuery={DEFAULT_QUERY}
    defaultHeaders={headers}
    initialHeaders={headers}
    shouldPersistHeaders={false}
    isHeadersEditorEnabled
    defaultEditorToolsVisibility="headers"
    plugins={list.length ? [HISTORY_PLUGIN, examplesPlugin(list)] : [HISTORY_PLUGIN]}
  >
    <GraphiQL.Logo>roost</GraphiQL.Logo>
  </GraphiQL>,
);
