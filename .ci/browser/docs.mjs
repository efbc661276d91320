// Drives Debian's Chromium (playwright-core, no browser download) through the docs
// page served by `roost serve`: every operation is listed, the API key is filled and
// remembered, operations run from their forms and show status, headers and JSON.
// Nothing may be requested from anywhere but the server under test.
//
// Usage: node docs.mjs BASE_URL API_KEY SCREENSHOT_DIR
import assert from "node:assert/strict";
import { openPage } from "./browser.mjs";

const [base, key, shots] = process.argv.slice(2);
const { context, page, foreign, consoleErrors } = await openPage(base, `${shots}/profile`);
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

  step = "key sent";
  assert.ok(keyHeaders.length >= 5, `requests seen: ${keyHeaders.length}`);
  assert.ok(keyHeaders.every((k) => k === key), "every request carried the API key");
  assert.deepEqual(foreign, [], "no request left the server under test");
  assert.deepEqual(consoleErrors.filter((e) => !/status of 4\d\d/.test(e)), [], "no script errors");

  step = "screenshots";
  await page.locator("#op-list_chapters").scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/docs-desktop.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/api/v0/docs/`, { waitUntil: "load" });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways on a phone by ${overflow}px`);
  await page.screenshot({ path: `${shots}/docs-phone.png` });
  console.log(`docs page: ${operations} operations listed; list_chapters, get_chapter (200 and 404) and list_projects (repeated type, then a 400) run from the page in Chromium; screenshots in ${shots}`);
} catch (error) {
  await page.screenshot({ path: `${shots}/docs-failure.png`, fullPage: false }).catch(() => {});
  console.error(`docs page check failed at step "${step}": ${error.stack || error}`);
  if (consoleErrors.length) console.error(`console errors: ${consoleErrors.join("\n")}`);
  process.exitCode = 1;
} finally {
  await context.close();
}
