// Drives Debian's Chromium (playwright-core, no browser download) through the GraphQL
// explorer that `roost serve` shows at /graphql/ in local and e2e: the schema is read
// by introspection and listed, a type can be opened, and every query of the schema is
// written from its link, given arguments taken from the sample, run from the page and
// its result checked against the sample's records. Nothing may be requested from
// anywhere but the server under test.
//
// Usage: node explorer.mjs BASE_URL SAMPLE_DIR SCREENSHOT_DIR
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { openPage } from "./browser.mjs";

const [base, sampleDir, shots] = process.argv.slice(2);

// The sample's records, to choose arguments and to know the right answers.
const records = (name) =>
  readFileSync(`${sampleDir}/${name}.jsonl`, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
const active = (r) => r.is_active !== false;
const chapter = records("chapters").find(active);
const committee = records("committees").find(active);
const event = records("events")[0];
const project = records("projects").find(active);
const snapshot = records("snapshots").find((s) => s.status === "completed");
const organization = records("organizations").find((o) => o.is_affiliated !== false);
const repository = records("repositories").find((r) => r.organization === organization.login);
const contribution = records("repository_contributors")[0];
const member = records("members").find((m) => m.login === contribution.member);
const search = project.name.slice(0, 4);
const bare = (key, prefix) => key.slice(prefix.length);

// Per query: the variables the page is given for its required arguments, and a check
// of the data it shows. Queries the schema has and this table lacks fail the run.
const lookup = (field, value) => (data) => assert.equal(data?.[field], value, `${field}: ${JSON.stringify(data)}`);
const list = (atLeast = 1) => (data) => {
  assert.ok(Array.isArray(data), "a list");
  assert.ok(data.length >= atLeast, `at least ${atLeast} item(s), got ${data.length}`);
};
// A list that holds exactly `n` records: a query's default limit, or all there are.
const exactly = (n) => (data) => {
  assert.ok(Array.isArray(data), "a list");
  assert.equal(data.length, n);
};
const today = new Date().toISOString().slice(0, 10); // the server's "today" is UTC too
const upcoming = records("events").filter((e) => e.start_date >= today).length;
const queries = {
  chapter: [{ key: bare(chapter.key, "www-chapter-").toUpperCase() }, lookup("name", chapter.name)],
  chapterCountries: [{}, (data) => {
    const expected = [...new Set(records("chapters").filter(active).map((c) => c.country).filter(Boolean))];
    assert.equal(data.length, expected.length);
  }],
  recentChapters: [{}, exactly(Math.min(8, records("chapters").filter(active).length))],
  committee: [{ key: committee.key }, lookup("name", committee.name)],
  upcomingEvents: [{}, exactly(Math.min(6, upcoming))],
  event: [{ key: event.key }, lookup("name", event.name)],
  project: [{ key: bare(project.key, "www-project-") }, lookup("name", project.name)],
  recentProjects: [{}, exactly(Math.min(8, records("projects").filter(active).length))],
  searchProjects: [{ query: search }, (data) => {
    list(1)(data);
    assert.ok(data.every((p) => p.name.toLowerCase().includes(search.toLowerCase())));
  }],
  snapshot: [{ key: snapshot.key }, lookup("title", snapshot.title)],
  snapshots: [{}, list(1)],
  sponsors: [{}, exactly(records("sponsors").length)],
  statsOverview: [{}, (data) => assert.ok(data.activeChaptersStats > 0)],
  organization: [{ login: organization.login.toUpperCase() }, lookup("login", organization.login)],
  repository: [{ organizationKey: organization.login, repositoryKey: repository.name }, lookup("name", repository.name)],
  repositories: [{ organization: organization.login }, list(1)],
  recentIssues: [{}, exactly(Math.min(5, records("issues").length))],
  recentMilestones: [{}, exactly(Math.min(5, records("milestones").length))],
  recentReleases: [{}, exactly(Math.min(6, records("releases").filter((r) => r.published_at).length))],
  recentPullRequests: [{}, exactly(Math.min(5, records("pull_requests").length))],
  recentPosts: [{}, exactly(Math.min(5, records("posts").length))],
  user: [{ login: member.login }, lookup("login", member.login)],
  topContributedRepositories: [{ login: member.login }, list(1)],
  topContributors: [{}, list(1)],
};

const { context, page, foreign, consoleErrors } = await openPage(base, `${shots}/explorer-profile`);

// Runs what the editor holds and returns the status line and the parsed result.
async function runShown(how) {
  await page.evaluate(() => { document.getElementById("status").textContent = ""; });
  await how();
  await page.locator("#status").filter({ hasText: /^HTTP \d{3} / }).waitFor({ timeout: 15000 });
  return {
    status: await page.locator("#status").textContent(),
    result: JSON.parse(await page.locator("#result").textContent()),
  };
}

let step = "load";
try {
  const response = await page.goto(`${base}/graphql/`, { waitUntil: "load" });
  assert.equal(response.status(), 200);
  assert.match(response.headers()["content-type"], /^text\/html/);
  assert.equal(await page.title(), "roost GraphQL explorer");
  const links = page.locator("#queries a.field");
  await links.first().waitFor({ timeout: 15000 });
  const listed = await links.allTextContents();
  assert.deepEqual([...listed].sort(), Object.keys(queries).sort(), "the explorer lists exactly the schema's queries");

  step = "the default query";
  const home = await runShown(() => page.getByRole("button", { name: "Run" }).click());
  assert.match(home.status, /^HTTP 200 /);
  assert.equal(home.result.errors, undefined);
  assert.ok(home.result.data.statsOverview.activeChaptersStats > 0);

  step = "a type";
  await page.locator("#queries li", { has: page.locator("a.field", { hasText: /^chapter$/ }) })
    .locator("a.type").click();
  await page.locator("#type-name").filter({ hasText: /^Chapter$/ }).waitFor();
  const fields = await page.locator("#type-fields li").allTextContents();
  for (const name of ["geoLocation", "leaders", "entityLeaders", "url"]) {
    assert.ok(fields.some((f) => f.startsWith(name)), `Chapter shows ${name}`);
  }

  for (const [name, [variables, check]] of Object.entries(queries)) {
    step = `query ${name}`;
    await page.locator("#queries a.field", { hasText: new RegExp(`^${name}$`) }).click();
    const written = await page.locator("#query").inputValue();
    assert.match(written, new RegExp(`\\b${name}\\b`), "the example names the query");
    const required = Object.keys(JSON.parse(await page.locator("#variables").inputValue()));
    assert.deepEqual(required.sort(), Object.keys(variables).sort(), "the example asks for the required arguments");
    await page.locator("#variables").fill(JSON.stringify(variables));
    // Half the queries from the keyboard, half with the button.
    const shown = await runShown(async () => {
      if (required.length % 2) {
        await page.locator("#query").focus();
        await page.keyboard.press("Control+Enter");
      } else {
        await page.getByRole("button", { name: "Run" }).click();
      }
    });
    assert.match(shown.status, /^HTTP 200 /);
    assert.equal(shown.result.errors, undefined, JSON.stringify(shown.result.errors));
    check(shown.result.data[name]);
  }

  step = "an error is shown";
  await page.locator("#query").fill("{ nosuchfield }");
  await page.locator("#variables").fill("{}");
  const bad = await runShown(() => page.getByRole("button", { name: "Run" }).click());
  assert.match(bad.status, /^HTTP (200|400) /);
  assert.ok(bad.result.errors?.[0]?.message.includes("nosuchfield"));

  step = "checks";
  assert.deepEqual(foreign, [], "no request left the server under test");
  assert.deepEqual(consoleErrors.filter((e) => !/status of 4\d\d/.test(e)), [], "no script errors");
  await page.screenshot({ path: `${shots}/explorer.png` });
  console.log(`GraphQL explorer: ${listed.length} queries listed, a type opened, every query written from its link and run from the page in Chromium; screenshot in ${shots}`);
} catch (error) {
  await page.screenshot({ path: `${shots}/explorer-failure.png` }).catch(() => {});
  console.error(`explorer check failed at step "${step}": ${error.stack || error}`);
  if (consoleErrors.length) console.error(`console errors: ${consoleErrors.join("\n")}`);
  process.exitCode = 1;
} finally {
  await context.close();
}
