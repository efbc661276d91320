// Drives Debian's Chromium (playwright-core, no browser download) through GraphiQL,
// which `roost serve` shows at /graphql/ in local and e2e, as a new user would:
//  - the page loads from roost alone (no request to another host, no script error);
//  - the headers pane holds the CSRF pair: the token of the `csrftoken` cookie that
//    GET /csrf/ set, under X-CSRFToken;
//  - typing in the editor offers the schema's root fields (read by introspection),
//    and inside a field's parentheses its arguments;
//  - the docs explorer lists the root fields and opens one;
//  - a page query from the Examples list opens in a new tab with its variables and
//    runs with the CSRF header; its data matches the sample; an unknown field is
//    marked as typed and its error shown when run; the runs are in the history.
//
// Usage: node explorer.mjs BASE_URL SAMPLE_DIR SCREENSHOT_DIR
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { openPage } from "./browser.mjs";

const [base, sampleDir, shots] = process.argv.slice(2);
const pages = JSON.parse(readFileSync("tests/graphql/pages/pages.json", "utf8"));
const chapterKey = pages["chapter-metadata.graphql"].variables.key;
const chapter = readFileSync(`${sampleDir}/chapters.jsonl`, "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line))
  .find((c) => c.key === `www-chapter-${chapterKey}`);
assert.ok(chapter, `the sample has the chapter ${chapterKey}`);

const { context, page, foreign, consoleErrors } = await openPage(base, `${shots}/explorer-profile`);

// The text a Monaco editor shows (its visible lines).
const editorText = (selector) =>
  page.locator(`${selector} .view-lines`).first().evaluate((e) => e.innerText.replace(/\u00a0/g, " "));
// The labels of the suggestions Monaco shows.
async function suggestions() {
  const rows = page.locator(".suggest-widget.visible .monaco-list-row");
  await rows.first().waitFor({ timeout: 15000 });
  return rows.evaluateAll((els) => els.map((e) => e.querySelector(".label-name")?.textContent?.trim() ?? ""));
}

let step = "load";
try {
  const response = await page.goto(`${base}/graphql/`, { waitUntil: "load" });
  assert.equal(response.status(), 200);
  assert.match(response.headers()["content-type"], /^text\/html/);
  assert.equal(await page.title(), "roost GraphiQL");
  await page.locator(".graphiql-query-editor .view-lines").waitFor({ timeout: 20000 });

  step = "headers pane";
  const cookie = (await context.cookies(base)).find((c) => c.name === "csrftoken");
  assert.ok(cookie?.value, "GET /csrf/ set the csrftoken cookie");
  await page.getByRole("button", { name: "Headers" }).click();
  const headers = await editorText(".graphiql-editor-tool .graphiql-editor:not(.hidden)");
  assert.match(headers, /"X-CSRFToken"\s*:\s*"([^"]+)"/);
  assert.equal(headers.match(/"X-CSRFToken"\s*:\s*"([^"]+)"/)[1], cookie.value, "the header holds the cookie's token");

  step = "root field completions";
  const editor = page.locator(".graphiql-query-editor .monaco-editor").first();
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type("{ chap", { delay: 30 });
  let offered = await suggestions();
  assert.ok(offered.includes("chapter"), `root fields offered: ${offered}`);
  assert.ok(offered.includes("chapterCountries"), `root fields offered: ${offered}`);
  await page.keyboard.press("Escape");

  step = "argument completions";
  await page.keyboard.type("ter(", { delay: 30 });
  await page.keyboard.press("Control+Space");
  offered = await suggestions();
  assert.ok(offered.includes("key"), `chapter's arguments offered: ${offered}`);
  await page.keyboard.press("Escape");

  step = "docs explorer";
  await page.getByRole("button", { name: /Show Documentation Explorer/i }).click();
  const docs = page.locator(".graphiql-doc-explorer");
  await docs.getByRole("link", { name: "Query" }).first().click();
  await docs.locator(".graphiql-doc-explorer-field-name", { hasText: /^chapterCountries$/ }).waitFor({ timeout: 15000 });
  await docs.locator(".graphiql-doc-explorer-field-name", { hasText: /^chapter$/ }).click();
  await docs.locator(".graphiql-doc-explorer-title", { hasText: /^chapter$/ }).waitFor();

  step = "an example runs with the CSRF header";
  await page.getByRole("button", { name: /Show Examples/i }).click();
  const examples = page.locator(".roost-examples button");
  assert.equal(await examples.count(), Object.keys(pages).length, "every page query is offered");
  await page.locator(".roost-examples button", { hasText: /^ChapterMetadata/ }).click();
  await page.locator(".graphiql-tab", { hasText: "ChapterMetadata" }).waitFor();
  assert.match(await editorText(".graphiql-query-editor"), /query ChapterMetadata\(\$key: String!\)/);
  const sent = page.waitForRequest((r) => r.url() === `${base}/graphql/` && r.method() === "POST");
  const answered = page.waitForResponse((r) => r.url() === `${base}/graphql/` && r.request().method() === "POST");
  await page.locator(".graphiql-query-editor .monaco-editor").first().click();
  await page.keyboard.press("Control+Enter");
  const request = await sent;
  assert.equal(request.headers()["x-csrftoken"], cookie.value, "the run carried the CSRF header");
  assert.match(request.headers().cookie ?? (await request.allHeaders()).cookie ?? "", /csrftoken=/);
  const body = request.postDataJSON();
  assert.equal(body.operationName, "ChapterMetadata");
  assert.deepEqual(body.variables, { key: chapterKey });
  const reply = await (await answered).json();
  assert.equal(reply.errors, undefined, JSON.stringify(reply.errors));
  assert.equal(reply.data.chapter.name, chapter.name);
  await page.locator(".graphiql-response .view-lines", { hasText: chapter.name }).waitFor({ timeout: 15000 });

  step = "an error is shown";
  await page.locator(".graphiql-tab-add").click();
  await page.locator(".graphiql-query-editor .monaco-editor").first().click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type("{ nosuchfield", { delay: 10 });
  // The editor marks the unknown field as it is typed (validation against the schema).
  await page.locator(".graphiql-query-editor .squiggly-error").first().waitFor({ timeout: 15000 });
  await page.keyboard.press("Control+Enter");
  await page.locator(".graphiql-response .view-lines", { hasText: "nosuchfield" }).waitFor({ timeout: 15000 });

  step = "history";
  await page.getByRole("button", { name: /Show History/i }).click();
  await page.locator(".graphiql-history-item", { hasText: "ChapterMetadata" }).waitFor({ timeout: 15000 });

  step = "checks";
  assert.deepEqual(foreign, [], "no request left the server under test");
  assert.deepEqual(consoleErrors.filter((e) => !/status of 4\d\d/.test(e)), [], "no script errors");
  await page.locator(".graphiql-tab", { hasText: "ChapterMetadata" }).click();
  await page.getByRole("button", { name: /Show Examples/i }).click();
  await page.locator(".graphiql-response .view-lines", { hasText: chapter.name }).waitFor({ timeout: 15000 });
  await page.screenshot({ path: `${shots}/graphiql.png` });
  console.log(`GraphiQL: root fields and arguments completed from introspection, docs opened, the ChapterMetadata example run with the CSRF header, an error shown, history kept, nothing fetched from another host; screenshot in ${shots}`);
} catch (error) {
  await page.screenshot({ path: `${shots}/explorer-failure.png` }).catch(() => {});
  console.error(`GraphiQL check failed at step "${step}": ${error.stack || error}`);
  if (consoleErrors.length) console.error(`console errors: ${consoleErrors.join("\n")}`);
  process.exitCode = 1;
} finally {
  await context.close();
}
