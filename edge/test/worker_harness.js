/*
 * edge/worker.js under Node 20: every pre-rendered file of the tree is asked for
 * through the edge function (with a spelling of its URL from the corpus) and straight
 * from the shim; status, Content-Type and body bytes must be equal, tree files must
 * come from the origin (with the edge's Cache-Control), and requests the tree does not
 * answer must come from the shim.
 *
 *   node edge/test/worker_harness.js CORPUS SITE ORIGIN_URL SHIM_URL
 */
import fs from "node:fs";
import path from "node:path";
import worker from "../worker.js";

const [corpusPath, site, origin, shim] = process.argv.slice(2);
const env = { ORIGIN: origin, SHIM: shim };
const EDGE = "http://edge.invalid";

const manifest = JSON.parse(fs.readFileSync(path.join(site, "manifest.json"), "utf8"));
const inTree = new Set(manifest.files.map((f) => f.path));
const corpus = fs.readFileSync(corpusPath, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

// One spelling per tree file (the corpus gives the canonical URL first, with and
// without a trailing slash, then other spellings: the first of those), and a
// deterministic sample of requests the tree does not answer.
const spellings = new Map();
const dynamic = [];
corpus.forEach((entry, i) => {
  if (entry.file !== null && inTree.has(entry.file)) {
    const list = spellings.get(entry.file) || [];
    if (list.length < 3) list.push(entry);
    spellings.set(entry.file, list);
  } else if (i % 40 === 0) {
    dynamic.push(entry);
  }
});
const byFile = new Map([...spellings].map(([file, list]) => [file, list[list.length - 1]]));
const cases = [...byFile.values()].map((e) => ({ ...e, tree: true }))
  .concat(dynamic.map((e) => ({ ...e, tree: false })));

async function direct(url) {
  const u = new URL(url, EDGE);
  return fetch(shim.replace(/\/+$/, "") + u.pathname + u.search, { redirect: "manual" });
}

const failures = [];
let fromTree = 0;
let fromShim = 0;

async function check(c) {
  let edge;
  try {
    edge = await worker.fetch(new Request(EDGE + c.url), env);
  } catch (e) {
    failures.push({ url: c.url, error: String(e) });
    return;
  }
  const want = await direct(c.url);
  const [got, expected] = await Promise.all([edge.arrayBuffer(), want.arrayBuffer()]);
  const servedByTree = edge.headers.get("cache-control") === "public, max-age=300";
  if (servedByTree) {
    fromTree++;
  } else {
    fromShim++;
  }
  const problems = [];
  if (edge.status !== want.status) problems.push(`status ${edge.status} != ${want.status}`);
  if (edge.headers.get("content-type") !== want.headers.get("content-type")) {
    problems.push(`content-type ${edge.headers.get("content-type")} != ${want.headers.get("content-type")}`);
  }
  if (Buffer.compare(Buffer.from(got), Buffer.from(expected)) !== 0) problems.push("body differs");
  if (c.tree && !servedByTree) problems.push("not served from the tree");
  if (!c.tree && servedByTree && c.file === null) problems.push("served from the tree");
  if (problems.length) failures.push({ url: c.url, problems });
}

const started = Date.now();
let next = 0;
async function lane() {
  while (next < cases.length) {
    await check(cases[next++]);
  }
}
await Promise.all(Array.from({ length: 12 }, lane));
const secs = ((Date.now() - started) / 1000).toFixed(1);
console.log(`worker: ${cases.length} requests (${byFile.size} tree files, ${dynamic.length} others) in ${secs} s: ` +
  `${fromTree} from the origin, ${fromShim} from the shim, ${failures.length} mismatches`);
for (const f of failures.slice(0, 10)) console.log("  " + JSON.stringify(f));
if (failures.length || byFile.size === 0) process.exit(1);
