// The browser the CI page checks share: Debian's Chromium through playwright-core (no
// browser download), started headless with a fresh profile and without background
// networking, and watchers that collect every request that leaves the server under
// test and every script error.
import { chromium } from "playwright-core";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

// Opens a page; `foreign` and `consoleErrors` fill up as it is used.
export async function openPage(base, profileDir) {
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const foreign = [];
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(base) && !url.startsWith("data:")) foreign.push(url);
  });
  const consoleErrors = [];
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  return { context, page, foreign, consoleErrors };
}
