// How long each page of a rendered pto-avs Allure 3 report takes to open in headless Chromium:
// the summary page until its view cards are shown, each view until its tree of groups is shown
// (its data decompressed and handed to Allure). Prints JSON {page: {ms, errors}}.
//
//   node open_time.mjs BASE_URL [TIMEOUT_MS]
//
// BASE_URL is the report folder (file:///path/to/report/ or http://...). TIMEOUT_MS (default
// 120000) bounds each page; a page past it is reported with "ms": null. Chromium is Debian's
// (/usr/bin/chromium, or $PTO_AVS_CHROMIUM), driven by playwright-core.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [base, timeoutText = '120000'] = process.argv.slice(2);
if (!base) {
  console.error('usage: node open_time.mjs BASE_URL [TIMEOUT_MS]');
  process.exit(2);
}
const timeout = Number(timeoutText);
const executablePath = process.env.PTO_AVS_CHROMIUM || '/usr/bin/chromium';
const profile = mkdtempSync(join(tmpdir(), 'pto-avs-open-time-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath, headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const pages = { summary: ['index.html', 'a[href$="index.html"]'],
  adr: ['adr/index.html', '[data-testid="tree-section"]'],
  suites: ['suites/index.html', '[data-testid="tree-section"]'] };
const out = {};
try {
  for (const [name, [path, selector]] of Object.entries(pages)) {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const start = Date.now();
    let ms = null;
    try {
      await page.goto(new URL(path, base).href, { timeout });
      await page.waitForSelector(selector, { state: 'visible', timeout: Math.max(1, timeout - (Date.now() - start)) });
      ms = Date.now() - start;
    } catch (e) {
      errors.push(String(e.message).split('\n')[0]);
    }
    out[name] = { ms, errors };
    await page.close();
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
