// Drives Debian's Chromium (playwright-core, no browser download) through the docs
// page served by `roost serve`: every operation is listed; the search finds an
// operation by a word of its summary and a schema by a field; the examples are real
// answers per status; the example curl names this server; a deep link opens what it
// names; the API key is filled and remembered; operations run from their forms and
// show status, headers, JSON and the request as curl, which, copied and run here,
// answers the same body; the API's own 400 for page=0 is shown. Then the same page
// from the static tree, served by a plain file server: it loads, searches and names
// that server in its curl. Nothing may be requested from anywhere but the server
// under test.
//
// Usage: node docs.mjs BASE_URL API_KEY SCREENSHOT_DIR [STATIC_URL]
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { openPage } from "./browser.mjs";

const [base, key, shots, staticBase] = process.argv.slice(2);
const { context, page, foreign, consoleErrors } = await openPage(base, `${shots}/profile`);
await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });

// Visible operations and schemas (ids).
const shown = (kind) => page.locator(`article.${kind}:visible`).evaluateAll((els) => els.map((e) => e.id));
const keyHeaders = [];
page.on("request", (request) => {
  if (request.resourceType() === "fetch") {
    keyHeaders.push(request.headers()["x-api-key"]);
  }
});

let step = "load";
try {
  // Without the trailing slash the shim redirects to the folder.
  const response = await page.goto(`${base}/api/v0/docs`, { waitUntil: "load" });
  assert.equal(response.status(), 200);
  assert.equal(new URL(page.url()).pathname, "/api/v0/docs/");
  assert.match(await page.title(), /reference/);
  const operations = await page.locator("article.op").count();
  assert.equal(operations, 30, "every operation is listed");
  assert.equal(await page.locator("form.try").count(), 30);
  assert.ok((await page.locator("article.schema").count()) > 40);
  // The stylesheet and the script are the page's own and were applied.
  const verbColor = await page.locator(".op .verb").first().evaluate((e) => getComputedStyle(e).color);
  assert.notEqual(verbColor, "rgb(0, 0, 0)", "docs.css is applied");

  step = "search";
  const search = page.getByLabel("Search operations and schemas");
  await page.keyboard.press("/");
  assert.equal(await page.evaluate(() => document.activeElement.id), "search", "/ focuses the search");
  // "List sponsors": a word of its summary.
  await search.fill("sponsors");
  assert.deepEqual(await shown("op"), ["op-list_sponsors", "op-get_sponsor"]);
  assert.match(await page.locator("#search-count").textContent(), /^2 operations, \d+ schemas?$/);
  await search.fill("new in a snapshot");
  assert.equal((await shown("op")).length, 5, "the snapshot sub-lists");
  await search.fill("milestone");
  const results = page.locator("#search-results a");
  assert.ok((await results.allTextContents()).some((t) => t.startsWith("Get a milestone")));
  // A schema by one of its fields.
  await search.fill("tag_name");
  assert.ok((await shown("schema")).includes("schema-Release"), "a schema by a field");
  await search.fill("milestone");
  await results.filter({ hasText: /^Get a milestone/ }).click();
  assert.equal(new URL(page.url()).hash, "#op-get_milestone");
  assert.ok(await page.locator("#op-get_milestone").isVisible());
  await search.press("Escape").catch(() => {});
  await search.fill("");
  assert.equal(await page.locator("article.op:visible").count(), 30, "an empty search shows all");

  step = "examples per status";
  for (const status of ["200", "400", "401", "404", "429"]) {
    assert.equal(await page.locator(`#op-list_chapters-${status}`).count(), 1, `list_chapters has a ${status} example`);
  }
  const example = async (id) => JSON.parse(await page.locator(`#${id} pre`).textContent());
  const first = await example("op-list_chapters-200");
  assert.equal(first.items.length, 2);
  assert.ok(first.total_count > 2, "the example keeps the real totals");
  assert.equal((await example("op-list_chapters-400")).message, "Invalid request");
  assert.match((await example("op-list_chapters-401")).detail, /API key/);
  assert.match((await example("op-list_chapters-404")).detail, /^Page \d+ not found/);
  assert.ok((await example("op-list_chapters-429")).detail);
  assert.match((await example("op-get_chapter-404")).message, /not found$/);
  const exampleChapter = await example("op-get_chapter-200");
  assert.ok(exampleChapter.key.startsWith("www-chapter-"));
  const curlExample = await page.locator("#op-list_chapters-curl code").textContent();
  assert.equal(curlExample, `curl -H "X-API-Key: $API_KEY" '${base}/api/v0/chapters/'`);

  step = "deep link";
  await page.goto(`${base}/api/v0/docs/#op-get_chapter-404`, { waitUntil: "load" });
  assert.ok(await page.locator("#op-get_chapter-404").evaluate((d) => d.open), "the linked example is open");
  assert.ok(await page.locator("#op-get_chapter-404 pre").isVisible());

  step = "api key";
  await page.getByLabel("API key").fill(key);
  await page.reload({ waitUntil: "load" });
  assert.equal(await page.getByLabel("API key").inputValue(), key, "the key is remembered");

  step = "list_chapters";
  const list = page.locator("#op-list_chapters form.try");
  await list.getByLabel("page_size").fill("5");
  await list.getByLabel("ordering").selectOption("-updated_at");
  // Keyboard: focus the button and press Enter.
  await list.getByRole("button", { name: "Send request" }).focus();
  await page.keyboard.press("Enter");
  const status = list.locator(".result-status");
  await status.filter({ hasText: /^\d{3} / }).waitFor({ timeout: 15000 });
  assert.match(await status.textContent(), /^200 /);
  assert.match(await list.locator(".result-url").textContent(), /\/api\/v0\/chapters\/\?ordering=-updated_at&page_size=5$/);
  assert.match(await list.locator(".result-headers").textContent(), /etag: "/i);
  const body = JSON.parse(await list.locator(".result-body").textContent());
  assert.equal(body.current_page, 1);
  assert.equal(body.items.length, 5);
  assert.ok(body.total_count > 5);
  const updated = body.items.map((c) => c.updated_at);
  assert.deepEqual(updated, [...updated].sort().reverse(), "ordered by -updated_at");
  assert.ok(body.items[0].key.startsWith("www-chapter-"));
  await list.locator(".result-body .j-key").first().waitFor();

  step = "the request as curl";
  const curl = await list.locator(".result-curl").textContent();
  assert.equal(curl, `curl -H 'Accept: application/json' -H 'X-API-Key: ${key}' '${base}/api/v0/chapters/?ordering=-updated_at&page_size=5'`);
  await list.getByRole("button", { name: "Copy curl" }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, curl, "Copy curl copies the command");
  const byCurl = JSON.parse(execFileSync("bash", ["-c", `${copied} --silent --show-error --fail`], { encoding: "utf8" }));
  assert.deepEqual(byCurl, body, "the copied curl answers the body the page shows");
  await page.locator("#op-list_chapters").screenshot({ path: `${shots}/docs-list-chapters.png` });

  step = "get_chapter";
  const id = body.items[0].key;
  const get = page.locator("#op-get_chapter form.try");
  await get.getByLabel("chapter_id").fill(id.replace("www-chapter-", ""));
  await get.getByRole("button", { name: "Send request" }).click();
  await get.locator(".result-status").filter({ hasText: /^\d{3} / }).waitFor({ timeout: 15000 });
  assert.match(await get.locator(".result-status").textContent(), /^200 /);
  const chapter = JSON.parse(await get.locator(".result-body").textContent());
  assert.equal(chapter.key, id);
  assert.equal(typeof chapter.country, "string");

  step = "get_chapter 404";
  await get.getByLabel("chapter_id").fill("no-such-chapter");
  await get.getByRole("button", { name: "Send request" }).click();
  await get.locator(".result-status").filter({ hasText: /^404 / }).waitFor({ timeout: 15000 });
  assert.deepEqual(JSON.parse(await get.locator(".result-body").textContent()), { message: "Chapter not found" });

  step = "list_projects (repeated type)";
  const projects = page.locator("#op-list_projects form.try");
  await projects.getByLabel("code").check();
  await projects.getByLabel("tool").check();
  await projects.getByRole("button", { name: "Send request" }).click();
  await projects.locator(".result-status").filter({ hasText: /^\d{3} / }).waitFor({ timeout: 15000 });
  assert.match(await projects.locator(".result-url").textContent(), /\?type=code&type=tool$/);
  const found = JSON.parse(await projects.locator(".result-body").textContent());
  assert.ok(found.items.length > 0 && found.items.every((p) => p.type === "code" || p.type === "tool"));

  step = "400 shown";
  await projects.getByLabel("code").uncheck();
  await projects.getByLabel("tool").uncheck();
  await projects.getByLabel("q", { exact: true }).fill("color:red");
  await projects.getByRole("button", { name: "Send request" }).click();
  await projects.locator(".result-status").filter({ hasText: /^400 / }).waitFor({ timeout: 15000 });
  const invalid = JSON.parse(await projects.locator(".result-body").textContent());
  assert.equal(invalid.message, "Invalid request");
  assert.deepEqual(invalid.errors[0].loc, ["query", "q"]);

  step = "page=0 reaches the API";
  await list.getByLabel("page", { exact: true }).fill("0");
  await list.getByRole("button", { name: "Send request" }).click();
  await list.locator(".result-status").filter({ hasText: /^400 / }).waitFor({ timeout: 15000 });
  assert.deepEqual(JSON.parse(await list.locator(".result-body").textContent()).errors[0].loc, ["query", "page"]);
  await list.getByLabel("page", { exact: true }).fill("");

  step = "key sent";
  assert.ok(keyHeaders.length >= 5, `requests seen: ${keyHeaders.length}`);
  assert.ok(keyHeaders.every((k) => k === key), "every request carried the API key");
  assert.deepEqual(foreign, [], "no request left the server under test");
  assert.deepEqual(consoleErrors.filter((e) => !/status of 4\d\d/.test(e)), [], "no script errors");

  step = "screenshots";
  await page.locator("#op-list_chapters").scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/docs-desktop.png` });
  // The README's picture: a search, its results, and an operation with its examples.
  await page.goto("about:blank");
  await page.goto(`${base}/api/v0/docs/`, { waitUntil: "load" });
  await page.getByLabel("Search operations and schemas").fill("chapters");
  await page.locator("#op-list_chapters-200").evaluate((d) => { d.open = false; });
  await page.locator("#op-list_chapters-404").evaluate((d) => { d.open = true; });
  await page.setViewportSize({ width: 1280, height: 1700 });
  await page.screenshot({ path: `${shots}/api-docs.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/api/v0/docs/`, { waitUntil: "load" });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways on a phone by ${overflow}px`);
  await page.screenshot({ path: `${shots}/docs-phone.png` });
  if (staticBase) {
    step = "the static tree";
    const fromTree = await openPage(staticBase, `${shots}/static-profile`);
    try {
      const reply = await fromTree.page.goto(`${staticBase}/api/v0/docs/index.html`, { waitUntil: "load" });
      assert.equal(reply.status(), 200);
      assert.equal(await fromTree.page.locator("article.op").count(), 30);
      await fromTree.page.getByLabel("Search operations and schemas").fill("sponsors");
      assert.equal(await fromTree.page.locator("article.op:visible").count(), 2);
      assert.equal(await fromTree.page.locator("#op-list_chapters-curl code").textContent(),
        `curl -H "X-API-Key: $API_KEY" '${staticBase}/api/v0/chapters/'`);
      const verb = await fromTree.page.locator(".op .verb").first().evaluate((e) => getComputedStyle(e).color);
      assert.notEqual(verb, "rgb(0, 0, 0)", "docs.css is applied on the static host");
      assert.deepEqual(fromTree.foreign, [], "no request left the static host");
      assert.deepEqual(fromTree.consoleErrors, [], "no script errors on the static host");
    } finally {
      await fromTree.context.close();
    }
  }
  console.log(`docs page: ${operations} operations listed; search by summary and by field, examples per status, deep link, curl with this host; list_chapters (its curl copied and run: same body), get_chapter (200 and 404), list_projects (repeated type, then a 400) and page=0 (400) run from the page in Chromium${staticBase ? "; the static tree's copy loads and searches" : ""}; screenshots in ${shots}`);
} catch (error) {
  await page.screenshot({ path: `${shots}/docs-failure.png`, fullPage: false }).catch(() => {});
  console.error(`docs page check failed at step "${step}": ${error.stack || error}`);
  if (consoleErrors.length) console.error(`console errors: ${consoleErrors.join("\n")}`);
  process.exitCode = 1;
} finally {
  await context.close();
}
