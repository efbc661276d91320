// Opens every public page of the community's web frontend, served against `roost
// serve`, in Debian's Chromium (playwright-core, no browser download) and reports per
// page: the HTTP status, GraphQL answers with errors (asked by the frontend's server
// while it renders, and by the browser), failed `/idx/` requests, console errors
// (those of external resources that fail offline apart) and a screenshot.
// Started by run.sh; docs/frontend.md.
//
//   node pages.mjs keys --roost URL --out keys.json
//       picks the detail pages' keys from roost's data (roost in e2e mode)
//   node pages.mjs run --mode MODE --frontend URL --roost URL --proxy-port N
//       --keys keys.json --out DIR [--app-dir frontend/src/app] [--only REGEX]
//       [--renderer-address 127.0.0.2]
//       the frontend's server must send its GraphQL and CSRF requests to
//       http://127.0.0.1:N (this script forwards them to roost and records them).
//       Writes DIR/report.md, DIR/report.tsv, DIR/results.json, DIR/*.png.
//       Exit status 0: no page has a roost-caused error; 1: some page has; 2: the run failed.
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--no-first-run",
  "--disable-quic",
  "--disable-component-update",
  "--disable-sync",
];

function parseArgs(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith("--")) {
      const value = argv[i + 1];
      if (value === undefined) throw new Error(`${argv[i]} needs a value`);
      out[argv[i].slice(2)] = value;
      i++;
    } else out._.push(argv[i]);
  }
  return out;
}

function need(args, name) {
  if (!args[name]) throw new Error(`--${name} is missing`);
  return args[name];
}

// --- Talking to roost directly (key discovery). --------------------------------------

async function csrfPair(roost) {
  const response = await fetch(`${roost}/csrf/`);
  const token = (await response.json()).csrftoken;
  return { token, cookie: `csrftoken=${token}` };
}

async function graphql(roost, query, variables = {}) {
  const { token, cookie } = await csrfPair(roost);
  const response = await fetch(`${roost}/graphql/`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRFToken": token, Cookie: cookie },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: { errors: [{ message: text.slice(0, 300) }] } };
  }
}

async function idx(roost, request) {
  const { token, cookie } = await csrfPair(roost);
  const response = await fetch(`${roost}/idx/`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRFToken": token, Cookie: cookie },
    body: JSON.stringify(request),
  });
  const text = await response.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, body, text: text.slice(0, 300) };
}

function errorText(answer) {
  if (answer.body?.errors?.length) return `${answer.status} ${answer.body.errors.map((e) => e.message).join("; ")}`;
  return `${answer.status}`;
}

// Each key: { value, found, source } — `found: false` when roost could not give one and
// a stand-in is used (the page is still opened: its errors show what roost lacks).
async function discoverKeys(roost) {
  const keys = {};
  const set = (name, value, source, found = true) => (keys[name] = { value, found, source });
  const short = (key, prefix) => (key.startsWith(prefix) ? key.slice(prefix.length) : key);

  const first = await graphql(
    roost,
    `{ recentChapters(limit: 1) { key } recentProjects(limit: 1) { key }
       topContributors(limit: 1) { login } snapshots(limit: 1) { key }
       recentPullRequests(limit: 1) { organizationName } }`,
  );
  const d = first.body?.data ?? {};
  if (!d.recentChapters) throw new Error(`roost's GraphQL gave no data for the key query: ${errorText(first)}`);
  // The frontend's own links use the short keys (`/chapters/london`).
  const chapter = d.recentChapters[0]?.key;
  if (chapter) set("chapter", short(chapter, "www-chapter-"), `recentChapters: ${chapter}`);
  const project = d.recentProjects[0]?.key;
  if (project) set("project", short(project, "www-project-"), `recentProjects: ${project}`);
  const member = d.topContributors[0]?.login;
  if (member) set("member", member, "topContributors");
  const snapshot = d.snapshots[0]?.key;
  if (snapshot) set("snapshot", snapshot, "snapshots");
  const org = d.recentPullRequests[0]?.organizationName;
  if (org) {
    set("organization", org, "recentPullRequests");
    const repos = await graphql(roost, `query($o: String!) { repositories(organization: $o, limit: 1) { key } }`, { o: org });
    const repo = repos.body?.data?.repositories?.[0]?.key;
    if (repo) set("repository", repo, `repositories(organization: ${org})`);
  }

  // No GraphQL list of committees: the REST list (no key needed in e2e).
  const committees = await fetch(`${roost}/api/v0/committees/?page_size=1`).then((r) => r.json()).catch(() => null);
  const committee = committees?.items?.[0]?.key;
  if (committee) set("committee", short(committee, "www-committee-"), `REST committees: ${committee}`);

  // Board candidates: the newest year roost has a board for.
  const year = new Date().getUTCFullYear();
  let boardError = null;
  for (let y = year; y >= year - 5 && !keys.board_year; y--) {
    const board = await graphql(roost, `query($y: Int!) { boardOfDirectors(year: $y) { year } }`, { y });
    if (board.body?.data?.boardOfDirectors) set("board_year", String(y), "boardOfDirectors");
    else if (board.body?.errors) {
      boardError = errorText(board);
      break;
    }
  }
  if (!keys.board_year) set("board_year", String(year - 1), `stand-in: boardOfDirectors gave ${boardError ?? "no board"}`, false);

  // The health dashboard's project page: the project with the best newest measurement.
  const measured = await graphql(
    roost,
    `{ projectHealthMetrics(filters: {}, pagination: { offset: 0, limit: 1 }, ordering: [{ score: DESC_NULLS_LAST }]) { projectKey } }`,
  );
  const measuredKey = measured.body?.data?.projectHealthMetrics?.[0]?.projectKey;
  if (measuredKey) set("measured_project", measuredKey, "projectHealthMetrics");
  else set("measured_project", keys.project?.value ?? "no-project-in-roost", `stand-in: projectHealthMetrics gave ${errorText(measured)}`, false);

  // Mentorship: a program from the `programs` search index, a module of it.
  const programs = await idx(roost, { indexName: "programs", query: "", page: 1, hitsPerPage: 1, facetFilters: [] });
  const program = programs.body?.hits?.[0]?.key;
  if (program) set("program", program, "/idx/ programs");
  else set("program", "no-program-in-roost", `stand-in: /idx/ programs gave ${programs.status} ${programs.text}`, false);
  const modules = await graphql(roost, `query($p: String!) { getProgramModules(programKey: $p) { key } }`, { p: keys.program.value });
  const module = modules.body?.data?.getProgramModules?.[0]?.key;
  if (module) set("module", module, "getProgramModules");
  else set("module", "no-module-in-roost", `stand-in: getProgramModules gave ${errorText(modules)}`, false);

  for (const name of ["chapter", "project", "member", "snapshot", "organization", "repository", "committee"]) {
    if (!keys[name]) set(name, `no-${name}-in-roost`, "stand-in: roost's data has none", false);
  }
  return keys;
}

// --- The pages. -----------------------------------------------------------------------

// Every public page of frontend/src/app/ (the account pages under my/ and settings/
// need a login roost does not make). `staff`: the projects health dashboard is shown
// to OWASP staff only; its login (next-auth's session and the backend session sync)
// is mocked in the browser, every other request goes to roost.
function pageList(k) {
  const v = (name) => encodeURIComponent(k[name].value);
  return [
    { name: "home", path: "/" },
    { name: "about", path: "/about" },
    { name: "login", path: "/auth/login" },
    { name: "chapters", path: "/chapters" },
    { name: "chapter", path: `/chapters/${v("chapter")}`, key: "chapter" },
    { name: "projects", path: "/projects" },
    { name: "project", path: `/projects/${v("project")}`, key: "project" },
    { name: "committees", path: "/committees" },
    { name: "committee", path: `/committees/${v("committee")}`, key: "committee" },
    { name: "organizations", path: "/organizations" },
    { name: "organization", path: `/organizations/${v("organization")}`, key: "organization" },
    {
      name: "repository",
      path: `/organizations/${v("organization")}/repositories/${v("repository")}`,
      key: "repository",
    },
    { name: "members", path: "/members" },
    { name: "member", path: `/members/${v("member")}`, key: "member" },
    { name: "contribute", path: "/contribute" },
    { name: "community", path: "/community" },
    { name: "snapshots", path: "/community/snapshots" },
    { name: "snapshot", path: `/community/snapshots/${v("snapshot")}`, key: "snapshot" },
    { name: "board-candidates", path: `/board/${v("board_year")}/candidates`, key: "board_year" },
    { name: "programs", path: "/mentorship/programs" },
    { name: "program", path: `/mentorship/programs/${v("program")}`, key: "program" },
    { name: "module", path: `/mentorship/programs/${v("program")}/modules/${v("module")}`, key: "module" },
    { name: "health-dashboard", path: "/projects/dashboard", staff: true },
    { name: "health-metrics", path: "/projects/dashboard/metrics", staff: true },
    { name: "health-metrics-project", path: `/projects/dashboard/metrics/${v("measured_project")}`, key: "measured_project", staff: true },
  ];
}

// --- Recording the frontend server's requests to roost. -----------------------------

// The answer's text, whatever compression roost chose for it.
function decode(bytes, encoding) {
  try {
    switch ((encoding ?? "identity").trim()) {
      case "identity":
        return bytes.toString("utf8");
      case "gzip":
        return zlib.gunzipSync(bytes).toString("utf8");
      case "br":
        return zlib.brotliDecompressSync(bytes).toString("utf8");
      case "deflate":
        return zlib.inflateSync(bytes).toString("utf8");
      case "zstd":
        return zlib.zstdDecompressSync(bytes).toString("utf8");
      default:
        return `(answer in ${encoding}, not decoded)`;
    }
  } catch (e) {
    return `(answer in ${encoding} that did not decode: ${e.message})`;
  }
}

// A pass-through proxy: the frontend's server renders with its GraphQL and CSRF URLs
// pointing here; each exchange is forwarded to roost unchanged, from the renderer's
// own address (`from`, a loopback address of its own, which roost trusts as an
// operator lists the renderer's host), and recorded for the page being opened (pages
// are opened one after another). The browser's requests reach roost from 127.0.0.1,
// an anonymous visitor's address, as in a deployment.
function startProxy(port, roost, from) {
  const target = new URL(roost);
  const state = { page: null, exchanges: [] };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers, host: target.host };
      delete headers.connection;
      const upstream = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, localAddress: from },
        (up) => {
          const upChunks = [];
          up.on("data", (c) => upChunks.push(c));
          up.on("end", () => {
            const answer = Buffer.concat(upChunks);
            const upHeaders = { ...up.headers };
            delete upHeaders.connection;
            delete upHeaders["transfer-encoding"];
            res.writeHead(up.statusCode, upHeaders);
            res.end(answer);
            state.exchanges.push({
              page: state.page,
              method: req.method,
              path: req.url,
              request: body.toString("utf8"),
              status: up.statusCode,
              answer: decode(answer, up.headers["content-encoding"]),
            });
          });
        },
      );
      upstream.on("error", (e) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(`proxy: ${e.message}`);
        state.exchanges.push({ page: state.page, method: req.method, path: req.url, request: body.toString("utf8"), status: 0, answer: `roost unreachable: ${e.message}` });
      });
      upstream.end(body);
    });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => resolve({ server, state }));
  });
}

// --- Classifying what went wrong. ----------------------------------------------------

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

// A GraphQL exchange with a problem: not 200, or `errors` in the answer.
function graphqlProblem(where, requestText, status, answerText) {
  const request = parseJson(requestText) ?? {};
  const answer = parseJson(answerText);
  const errors = answer?.errors ?? null;
  if (status === 200 && !errors?.length) return null;
  const operation = request.operationName ?? (request.query?.match(/(?:query|mutation)\s+(\w+)/)?.[1] ?? "(anonymous)");
  return {
    where,
    operation,
    status,
    messages: errors?.length
      ? errors.map((e) => (e.extensions?.code ? `${e.extensions.code}: ` : "") + e.message)
      : [answerText.slice(0, 300)],
    query: request.query ?? requestText.slice(0, 2000),
    variables: request.variables ?? null,
    answer: answerText.length > 4000 ? `${answerText.slice(0, 4000)}…` : answerText,
  };
}

function isLocal(url, local) {
  return local.some((origin) => url.startsWith(origin));
}

// External: requests (and the console errors they cause) to anything but the
// frontend and roost — GitHub avatars, map tiles, analytics — which fail offline;
// also the frontend's image optimizer fetching such an image for the page.
function isExternalUrl(url, local) {
  if (!url || url.startsWith("data:") || url.startsWith("blob:")) return false;
  if (!isLocal(url, local)) return true;
  try {
    const u = new URL(url);
    if (u.pathname === "/_next/image") {
      const inner = u.searchParams.get("url") ?? "";
      return /^https?:/.test(inner) && !isLocal(inner, local);
    }
  } catch {
    /* not a URL */
  }
  return false;
}

// The frontend's page routes (frontend/src/app/**/page.tsx), to tell a link to a page
// that does not exist (a breadcrumb's parent segment: the frontend's own 404) from a
// page that exists but 404s for want of roost's data.
async function appRoutes(appDir) {
  if (!appDir) return null;
  const routes = [];
  async function walk(dir, segments) {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) await walk(path.join(dir, entry.name), [...segments, entry.name]);
      else if (/^page\.(tsx|ts|jsx|js)$/.test(entry.name)) {
        const parts = segments
          .filter((seg) => !/^\(.*\)$/.test(seg))
          .map((seg) => (/^\[.*\]$/.test(seg) ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
        routes.push(new RegExp(`^/${parts.join("/")}/?$`));
      }
    }
  }
  await walk(appDir, []);
  return routes;
}

// Who a console error is about: `external` (a resource outside the frontend and roost,
// failing offline), `frontend` (the frontend's own resources: a static image it lacks,
// a prefetch of a path it has no page for), or `roost` (everything else).
function classifyConsole(text, url, env) {
  if (isExternalUrl(url, env.local) || /avatars\.githubusercontent\.com|tile\.openstreetmap\.org|posthog|googletagmanager|google-analytics|sentry\.io/.test(text)) return "external";
  if (text.startsWith("Failed to load resource") && url.startsWith(env.frontend)) {
    const u = new URL(url);
    if (u.pathname === "/_next/image") return "frontend";
    if (u.searchParams.has("_rsc") && env.routes && !env.routes.some((r) => r.test(u.pathname))) return "frontend";
  }
  return "roost";
}

// Root fields of an answer without errors that came back null (a record roost does not
// have: the page then shows "not found"), with the operation and variables that asked.
function nullRoots(where, requestText, status, answerText) {
  if (status !== 200) return [];
  const answer = parseJson(answerText);
  if (!answer?.data || answer.errors?.length) return [];
  const request = parseJson(requestText) ?? {};
  const operation = request.operationName ?? "(anonymous)";
  const fields = Object.entries(answer.data).filter(([, value]) => value === null).map(([field]) => field);
  return fields.length ? [{ where, operation, fields, variables: request.variables ?? null }] : [];
}

// --- Opening the pages. --------------------------------------------------------------

// A promise bounded in time: its value, or `fallback` after `ms` (a page that keeps a
// response open, or a browser that stops answering, must not stop the run).
function bounded(promise, ms, fallback) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
const LATE = Symbol("late");

async function openOne(context, spec, env, state) {
  const { frontend, roost, local, out } = env;
  const page = await context.newPage();
  const result = {
    name: spec.name,
    path: spec.path,
    staff: Boolean(spec.staff),
    key: spec.key ? env.keys[spec.key] : null,
    status: null,
    title: "",
    heading: "",
    graphql: [],
    idx: [],
    csrf: [],
    roostRequests: [],
    console: [],
    external: [],
    frontendErrors: [],
    shownBlank: [],
    nullData: [],
    notes: [],
    screenshot: `${spec.name}.png`,
  };
  const pending = [];

  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const url = m.location()?.url ?? "";
    const text = m.text();
    // "Failed to load resource" does not name the resource: its location does.
    const named = url && text.startsWith("Failed to load resource") ? `${text} (${url})` : text;
    const kind = classifyConsole(text, url, env);
    (kind === "external" ? result.external : kind === "frontend" ? result.frontendErrors : result.console).push(named);
  });
  page.on("pageerror", (e) => result.console.push(`uncaught: ${e.message}`));
  const inFlight = new Set();
  page.on("request", (request) => inFlight.add(request));
  page.on("requestfinished", (request) => inFlight.delete(request));
  page.on("requestfailed", (request) => {
    inFlight.delete(request);
    const url = request.url();
    const reason = request.failure()?.errorText ?? "failed";
    if (isExternalUrl(url, local)) return;
    if (reason === "net::ERR_ABORTED") {
      // Cancelled by the page itself (a prefetch or query superseded, a navigation): no answer to judge.
      if (/^\/(graphql|idx|csrf)/.test(new URL(url).pathname)) result.notes.push(`cancelled by the page: ${request.method()} ${new URL(url).pathname}`);
      return;
    }
    const { pathname } = new URL(url);
    const entry = { method: request.method(), url, status: 0, failure: reason, request: request.postData() ?? "" };
    if (pathname.startsWith("/idx")) result.idx.push(entry);
    else if (pathname.startsWith("/csrf")) result.csrf.push(entry);
    else if (pathname.startsWith("/graphql")) result.graphql.push({ where: "browser", operation: "?", status: 0, messages: [reason], query: entry.request, variables: null, answer: "" });
    else if (url.startsWith(roost)) result.roostRequests.push(entry);
  });
  page.on("response", (response) => {
    const request = response.request();
    const url = response.url();
    if (isExternalUrl(url, local)) return;
    const { pathname } = new URL(url);
    const status = response.status();
    const work = (async () => {
      if (pathname.startsWith("/graphql")) {
        if (request.method() === "OPTIONS") return;
        const text = await bounded(response.text(), 15_000, "(body not complete after 15 s)").catch((e) => `(no body: ${e.message})`);
        const sent = request.postData() ?? decodeURIComponent(new URL(url).search);
        const problem = graphqlProblem("browser", sent, status, text);
        if (problem) result.graphql.push(problem);
        result.nullData.push(...nullRoots("browser", sent, status, text));
      } else if (pathname.startsWith("/idx")) {
        if (status >= 200 && status < 300 && request.method() !== "OPTIONS") {
          const text = await bounded(response.text(), 15_000, "(body not complete after 15 s)").catch(() => "");
          const body = parseJson(text);
          if (!body || !Array.isArray(body.hits)) {
            result.idx.push({ method: request.method(), url, status, failure: "answer without hits", request: request.postData() ?? "", answer: text.slice(0, 1000) });
          }
        } else if (status >= 400) {
          const text = await bounded(response.text(), 15_000, "(body not complete after 15 s)").catch(() => "");
          result.idx.push({ method: request.method(), url, status, failure: "", request: request.postData() ?? "", answer: text.slice(0, 1000) });
        }
      } else if (pathname.startsWith("/csrf")) {
        if (status >= 400) result.csrf.push({ method: request.method(), url, status, failure: "", request: "", answer: (await bounded(response.text(), 15_000, "(body not complete after 15 s)").catch(() => "")).slice(0, 300) });
      } else if (url.startsWith(roost) && status >= 400) {
        result.roostRequests.push({ method: request.method(), url, status, failure: "", request: request.postData() ?? "", answer: (await bounded(response.text(), 15_000, "(body not complete after 15 s)").catch(() => "")).slice(0, 300) });
      }
    })();
    pending.push(work);
  });

  state.page = spec.name;
  const firstExchange = state.exchanges.length;
  try {
    const response = await page.goto(`${frontend}${spec.path}`, { waitUntil: "load", timeout: 90_000 });
    result.status = response ? response.status() : null;
  } catch (e) {
    result.notes.push(`navigation: ${e.message.split("\n")[0]}`);
  }
  // Client-side queries and searches run after the load event.
  try {
    await page.waitForLoadState("networkidle", { timeout: 15_000 });
  } catch {
    const open = [...inFlight].map((r) => `${r.method()} ${r.url().slice(0, 120)}`);
    result.notes.push(`network not idle after 15 s${open.length ? `; open: ${open.slice(0, 5).join(", ")}` : ""}`);
  }
  await page.waitForTimeout(500);
  if ((await bounded(Promise.allSettled(pending), 20_000, LATE)) === LATE) {
    result.notes.push("response bodies still being read after 20 s (left unread)");
  }
  result.title = await page.title().catch(() => "");
  result.heading = ((await page.locator("h1").first().textContent({ timeout: 1000 }).catch(() => "")) ?? "").trim().slice(0, 100);
  // The frontend's error pages answer 200 and say 404 or 500 in their heading.
  if (/^(404|500)$/.test(result.heading)) result.shownBlank.push(`error page ${result.heading}`);
  // Data roost did not give, shown as such ("Size: null KB").
  const text = await page.locator("main").first().innerText({ timeout: 2000 }).catch(() => "");
  for (const m of text.matchAll(/[^\n]{0,40}\b(null|undefined|NaN)\b[^\n]{0,40}/g)) result.shownBlank.push(m[0].trim());
  // Links to detail pages with roost's long keys, where the original's are short.
  const longKeys = await page.locator('a[href^="/chapters/www-"], a[href^="/projects/www-"], a[href^="/committees/www-"]').evaluateAll((as) => as.map((a) => a.getAttribute("href"))).catch(() => []);
  if (longKeys.length) result.notes.push(`links with long keys (${longKeys.length}), e.g. ${longKeys[0]}`);
  const toasts = await page.locator('[role="alert"], [data-toast]').allInnerTexts().catch(() => []);
  for (const t of toasts) if (t.trim()) result.notes.push(`shown: ${t.trim().split(/\s*\n\s*/).join(" — ").slice(0, 200)}`);
  await page.screenshot({ path: path.join(out, result.screenshot), fullPage: true, timeout: 30_000 }).catch((e) => {
    result.notes.push(`screenshot: ${e.message.split("\n")[0]}`);
    result.screenshot = null;
  });
  if ((await bounded(page.close().then(() => null, () => null), 10_000, LATE)) === LATE) {
    result.notes.push("the page did not close within 10 s");
  }

  // The frontend server's own requests to roost while it rendered this page.
  state.page = null;
  for (const x of state.exchanges.slice(firstExchange)) {
    if (x.path.startsWith("/graphql")) {
      const sent = x.method === "GET" ? decodeURIComponent(x.path) : x.request;
      const problem = graphqlProblem("server", sent, x.status, x.answer);
      if (problem) result.graphql.push(problem);
      result.nullData.push(...nullRoots("server", sent, x.status, x.answer));
    } else if (x.path.startsWith("/csrf") && x.status !== 200) {
      result.csrf.push({ method: x.method, url: `(server) ${x.path}`, status: x.status, failure: "", request: "", answer: x.answer.slice(0, 300) });
    }
  }
  result.serverRequests = state.exchanges.length - firstExchange;

  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  result.roostCaused = !ok || result.graphql.length > 0 || result.idx.length > 0 || result.csrf.length > 0 || result.roostRequests.length > 0 || result.console.length > 0 || result.shownBlank.length > 0;
  return result;
}

async function staffLogin(context, local) {
  // What the frontend's e2e tests do for the dashboard (e2e/helpers/mockDashboardCookies.ts),
  // the login only: next-auth's session and the backend session sync are answered here.
  await context.route("**/api/auth/session", (route) =>
    route.fulfill({
      status: 200,
      json: { accessToken: "roost-frontend-check", expires: "2125-01-01T00:00:00.000Z", user: { image: "/img/favicon.ico", isOwaspStaff: true, login: "roost-frontend-check", name: "roost check" } },
    }),
  );
  await context.route("**/graphql/", (route, request) => {
    const body = parseJson(request.postData() ?? "");
    if (body?.operationName === "SyncDjangoSession") {
      return route.fulfill({ status: 200, json: { data: { githubAuth: { message: "", ok: true, user: { id: "1", isOwaspStaff: true } } } } });
    }
    return route.fallback();
  });
  const host = new URL(local[0]).hostname;
  await context.addCookies(
    ["next-auth.session-token", "next-auth.csrf-token"].map((name) => ({ name, value: "roost-frontend-check", domain: host, path: "/" })),
  );
}

// A `/idx/` request the browser could not complete (a CORS failure hides roost's answer
// from the page): sent again from here, with the browser's origin and the CSRF pair, so
// the report shows what roost answers to the preflight and to the request itself.
async function replayIdx(roost, frontend, body) {
  const show = (r, text) => {
    const h = ["access-control-allow-origin", "access-control-allow-credentials", "access-control-allow-headers", "access-control-allow-methods"]
      .map((name) => (r.headers.get(name) !== null ? `${name}: ${r.headers.get(name)}` : null))
      .filter(Boolean);
    return `${r.status}${h.length ? ` [${h.join("; ")}]` : " [no Access-Control-Allow-* headers]"} ${text.slice(0, 300)}`.trim();
  };
  try {
    const preflight = await fetch(`${roost}/idx/`, {
      method: "OPTIONS",
      headers: { Origin: frontend, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-csrftoken" },
    });
    const { token, cookie } = await csrfPair(roost);
    const post = await fetch(`${roost}/idx/`, {
      method: "POST",
      headers: { Origin: frontend, "Content-Type": "application/json", "X-CSRFToken": token, Cookie: cookie },
      body,
    });
    return `preflight OPTIONS → ${show(preflight, await preflight.text())}; POST → ${show(post, await post.text())}`;
  } catch (e) {
    return `replay failed: ${e.message}`;
  }
}

// --- Reports. --------------------------------------------------------------------------

const cell = (s) => String(s).replace(/\|/g, "\\|").replace(/\s+/g, " ");

function summaryRow(r) {
  const ssr = r.graphql.filter((g) => g.where === "server").length;
  const browser = r.graphql.length - ssr;
  const verdict = r.roostCaused ? "FAIL" : "ok";
  const key = r.key ? (r.key.found ? r.key.value : `${r.key.value} (stand-in)`) : "";
  return { verdict, ssr, browser, key };
}

function renderReports(mode, results, env) {
  const tsv = [["page", "path", "status", "heading", "graphql_errors_server", "graphql_errors_browser", "idx_errors", "csrf_errors", "console_errors_roost", "console_errors_frontend", "console_errors_external", "shows_null_or_error_page", "verdict", "screenshot"].join("\t")];
  const md = [];
  md.push(`## ${mode}: the frontend against \`roost serve --env ${mode}\``, "");
  md.push(`Frontend ${env.frontend}, roost ${env.roost}. GraphQL errors are counted per answer with \`errors\` or a status other than 200, as the frontend's server (SSR) and the browser asked. Console errors of external resources (GitHub avatars, map tiles, analytics: offline here) and of the frontend's own resources (a static image it lacks, a prefetch of a path it has no page for) are counted apart and never fail a page.`, "");
  md.push("| page | path | status | heading | GraphQL errors (server / browser) | `/idx/` errors | console errors (roost / frontend / external) | shows `null` / error page | verdict | screenshot |");
  md.push("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const s = summaryRow(r);
    const label = `${r.name}${r.staff ? " (staff login mocked)" : ""}`;
    md.push(`| ${cell(label)} | \`${cell(r.path)}\` | ${r.status ?? "—"} | ${cell(r.heading.slice(0, 40)) || "—"} | ${s.ssr} / ${s.browser} | ${r.idx.length} | ${r.console.length + r.csrf.length + r.roostRequests.length} / ${r.frontendErrors.length} / ${r.external.length} | ${r.shownBlank.length} | ${s.verdict} | ${r.screenshot ?? "—"} |`);
    tsv.push([r.name, r.path, r.status ?? "", r.heading.replace(/\s+/g, " "), s.ssr, s.browser, r.idx.length, r.csrf.length, r.console.length + r.roostRequests.length, r.frontendErrors.length, r.external.length, r.shownBlank.length, s.verdict, r.screenshot ?? ""].join("\t"));
  }
  const failing = results.filter((r) => r.roostCaused);
  md.push("", `${results.length} pages, ${failing.length} with a roost-caused error.`, "");

  const stand = Object.entries(env.keys).filter(([, k]) => !k.found);
  if (stand.length) {
    md.push("Keys roost could not give (the pages were opened with a stand-in):", "");
    for (const [name, k] of stand) md.push(`- ${name}: \`${k.value}\` — ${cell(k.source)}`);
    md.push("");
  }

  // Distinct failures across pages: what roost lacks.
  const groups = new Map();
  const add = (kind, sig, pageName, detail, more = "") => {
    const id = `${kind}\u0000${sig}\u0000${more}`;
    const g = groups.get(id) ?? { kind, sig, pages: new Set(), detail };
    g.pages.add(pageName);
    groups.set(id, g);
  };
  for (const r of results) {
    for (const g of r.graphql) {
      const messages = [...new Set(g.messages)].sort();
      const head = messages.length === 1 ? messages[0] : `${messages.length} errors`;
      add("GraphQL", `${g.operation} (${g.where}) → ${g.status} ${head}`, r.name, g, messages.join("\n"));
    }
    for (const i of r.idx) {
      const req = parseJson(i.request);
      add("/idx/", `${i.method} ${req?.indexName ?? ""} → ${i.status || i.failure} ${i.failure && i.status ? i.failure : ""}`.trim(), r.name, i);
    }
    for (const c of r.csrf) add("/csrf/", `${c.method} ${c.url} → ${c.status || c.failure}`, r.name, c);
    for (const q of r.roostRequests) add("roost request", `${q.method} ${q.url} → ${q.status || q.failure}`, r.name, q);
    for (const c of r.console) add("console", c.slice(0, 300), r.name, null);
    for (const c of r.frontendErrors) add("console (frontend's own, not counted)", c.slice(0, 300), r.name, null);
    if (!(r.status >= 200 && r.status < 300)) add("status", `page status ${r.status ?? "none"}`, r.name, null);
    for (const t of r.shownBlank) add("shown", t.startsWith("error page") ? `the page shows its ${t}` : `the page shows "${t}"`, r.name, null);
    for (const n of r.nullData) add("null data", `${n.operation} (${n.where}): ${n.fields.map((f) => `\`${f}\``).join(", ")} null for ${JSON.stringify(n.variables)}`, r.name, null);
    for (const n of r.notes) add("note", n, r.name, null);
  }
  if (groups.size) {
    md.push("### Failures, distinct", "");
    for (const g of groups.values()) {
      md.push(`- **${g.kind}** ${cell(g.sig.slice(0, 400))} — pages: ${[...g.pages].join(", ")}`);
      if (g.detail && g.kind === "GraphQL") {
        md.push("", "  ```graphql", ...String(g.detail.query).trim().split("\n").map((l) => `  ${l}`), "  ```");
        if (g.detail.variables && Object.keys(g.detail.variables).length) md.push(`  variables: \`${JSON.stringify(g.detail.variables)}\``);
        const messages = [...new Set(g.detail.messages)].sort();
        if (messages.length > 1) md.push("  errors:", ...messages.map((m) => `  - ${cell(m)}`));
        md.push(`  roost answered ${g.detail.status}: \`${cell(g.detail.answer.slice(0, 400))}\``, "");
      } else if (g.detail && !g.kind.startsWith("console")) {
        if (g.detail.request) md.push(`  request: \`${cell(g.detail.request.slice(0, 600))}\``);
        if (g.detail.answer) md.push(`  roost answered: \`${cell(g.detail.answer.slice(0, 600))}\``);
      }
    }
    md.push("");
  }
  return { md: md.join("\n"), tsv: `${tsv.join("\n")}\n` };
}

// --- Commands. -------------------------------------------------------------------------

// The result of a page that did not finish within its time: a failure of the run, not
// of roost (the page's own notes say what was seen).
function stalled(spec, env) {
  return {
    name: spec.name, path: spec.path, staff: Boolean(spec.staff), key: spec.key ? env.keys[spec.key] : null,
    status: null, title: "", heading: "", graphql: [], idx: [], csrf: [], roostRequests: [], console: [],
    frontendErrors: [], external: [], shownBlank: [], nullData: [], notes: ["the page did not finish within 240 s"],
    screenshot: null, serverRequests: 0, roostCaused: true,
  };
}

async function runPages(args) {
  const { chromium } = await import("playwright-core");
  const mode = need(args, "mode");
  const frontend = need(args, "frontend").replace(/\/$/, "");
  const roost = need(args, "roost").replace(/\/$/, "");
  const out = need(args, "out");
  const proxyPort = Number(need(args, "proxy-port"));
  const keys = JSON.parse(await fs.readFile(need(args, "keys"), "utf8"));
  const only = args.only ? new RegExp(args.only) : null;
  await fs.mkdir(out, { recursive: true });
  for (const f of await fs.readdir(out)) if (f.endsWith(".png")) await fs.rm(path.join(out, f));

  const { server, state } = await startProxy(proxyPort, roost, args["renderer-address"] || "127.0.0.2");
  const local = [frontend, roost];
  const routes = await appRoutes(args["app-dir"]);
  const env = { frontend, roost, local, out, keys, routes };
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: ARGS });
  const results = [];
  try {
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const staff = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await staffLogin(staff, local);
    for (const context of [visitor, staff]) {
      // Offline as on this machine, but at once: anything but the frontend and roost is refused.
      await context.route((url) => !isLocal(url.href, local), (route) => route.abort("internetdisconnected"));
    }
    for (const spec of pageList(keys)) {
      if (only && !only.test(spec.name)) continue;
      const started = Date.now();
      // A page that stops answering is reported as such and the run goes on.
      const r = await bounded(openOne(spec.staff ? staff : visitor, spec, env, state), 240_000, null) ?? {
        ...stalled(spec, env),
      };
      r.seconds = (Date.now() - started) / 1000;
      results.push(r);
      const s = summaryRow(r);
      process.stderr.write(`  ${mode} ${r.name.padEnd(24)} ${String(r.status ?? "—").padEnd(4)} graphql ${s.ssr}/${s.browser} idx ${r.idx.length} console ${r.console.length}/${r.frontendErrors.length}/${r.external.length} ${s.verdict} (${r.seconds.toFixed(1)} s)\n`);
    }
  } finally {
    await browser.close();
    server.close();
  }
  const replays = new Map();
  for (const r of results) {
    for (const i of r.idx) {
      if (i.status !== 0) continue;
      if (!replays.has(i.request)) replays.set(i.request, await replayIdx(roost, frontend, i.request));
      i.answer = `(replayed) ${replays.get(i.request)}`;
    }
  }
  const { md, tsv } = renderReports(mode, results, env);
  await fs.writeFile(path.join(out, "report.md"), `${md}\n`);
  await fs.writeFile(path.join(out, "report.tsv"), tsv);
  await fs.writeFile(path.join(out, "results.json"), `${JSON.stringify({ mode, frontend, roost, keys, results }, null, 2)}\n`);
  await fs.writeFile(path.join(out, "server-requests.json"), `${JSON.stringify(state.exchanges, null, 2)}\n`);
  process.stdout.write(`${md}\n`);
  return results.some((r) => r.roostCaused) ? 1 : 0;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const command = args._[0];
  if (command === "keys") {
    const keys = await discoverKeys(need(args, "roost").replace(/\/$/, ""));
    await fs.writeFile(need(args, "out"), `${JSON.stringify(keys, null, 2)}\n`);
    for (const [name, k] of Object.entries(keys)) process.stderr.write(`  key ${name.padEnd(13)} ${k.value}${k.found ? "" : "  (stand-in)"}  [${k.source}]\n`);
    return 0;
  }
  if (command === "run") return runPages(args);
  throw new Error("usage: pages.mjs keys|run ... (see the top of this file)");
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`pages.mjs: ${e.stack ?? e}\n`);
    process.exit(2);
  },
);
