// Builds assets/graphiql/ from the installed packages (tools/graphiql/build.sh runs
// `npm ci` first): the page's module bundle and stylesheet, Monaco's three workers,
// and THIRD-PARTY-LICENSES.txt with the licence of every package bundled.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, readdirSync, rmSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "..", "assets", "graphiql");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const common = {
  bundle: true,
  minify: true,
  legalComments: "none",
  target: "es2022",
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
  metafile: true,
};
const page = await build({
  ...common,
  entryPoints: { graphiql: join(here, "src", "main.jsx") },
  outdir: out,
  format: "esm",
  jsx: "automatic",
  loader: { ".ttf": "dataurl" },
  // One file: no chunks to fetch.
  splitting: false,
});
const workers = await build({
  ...common,
  entryPoints: {
    "editor.worker": join(here, "node_modules/monaco-editor/esm/vs/editor/editor.worker.js"),
    "json.worker": join(here, "node_modules/monaco-editor/esm/vs/language/json/json.worker.js"),
    "graphql.worker": join(here, "node_modules/monaco-graphql/esm/graphql.worker.js"),
  },
  outdir: out,
  format: "iife",
});

// GraphiQL's stylesheet carries its fonts (Roboto, Fira Code: every subset) as data
// URLs; written out as files, the browser fetches only the subsets a page uses.
mkdirSync(join(out, "fonts"));
const cssPath = join(out, "graphiql.css");
const css = readFileSync(cssPath, "utf8").replace(
  /url\(["']?data:font\/(woff2?|ttf);base64,([A-Za-z0-9+/=]+)["']?\)/g,
  (_, ext, data) => {
    const bytes = Buffer.from(data, "base64");
    const name = `fonts/${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.${ext}`;
    writeFileSync(join(out, name), bytes);
    return `url(${name})`;
  },
);
writeFileSync(cssPath, css);

// The list roost embeds (src/graphql/explorer.rs includes it).
const files = ["graphiql.js", "graphiql.css", "editor.worker.js", "json.worker.js", "graphql.worker.js",
  ...readdirSync(join(out, "fonts")).sort().map((f) => `fonts/${f}`)];
writeFileSync(join(out, "files.rs"),
  "// Written by tools/graphiql/build.mjs: the files of the vendored GraphiQL, as served\n" +
  "// under /graphql/.\n&[\n" + files.map((f) => `    ("${f}", include_bytes!("${f}")),\n`).join("") + "]\n");

// The licence of every package a bundle holds.
const packages = new Map();
for (const input of [...Object.keys(page.metafile.inputs), ...Object.keys(workers.metafile.inputs)]) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) packages.set(m[1], join(here, "node_modules", m[1]));
}
let text = "Third-party software in assets/graphiql/ (built by tools/graphiql/build.sh)\n";
for (const name of [...packages.keys()].sort()) {
  const dir = packages.get(name);
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  text += `\n${"=".repeat(78)}\n${name} ${meta.version} (${meta.license ?? "see below"})\n${"=".repeat(78)}\n`;
  text += file ? readFileSync(join(dir, file), "utf8").trim() + "\n" : `No licence file; package.json says: ${meta.license}\n`;
}
writeFileSync(join(out, "THIRD-PARTY-LICENSES.txt"), text);
const version = JSON.parse(readFileSync(join(here, "node_modules/graphiql/package.json"), "utf8")).version;
writeFileSync(join(out, "VERSION"), `graphiql ${version}\n`);
console.log(`assets/graphiql: graphiql ${version}, ${packages.size} packages bundled`);
