// Read a rendered pto-avs Allure 3 report back from headless Chromium and print what a
// person would see, as JSON: the summary cards (and the pages they link), and per view
// (adr, suites) the header counts, the metadata (environment.properties) and every tree
// group (depth, title, status counts) with all groups expanded; the ADR view's leaves
// when its search box holds an ADR ID; the first failed (or broken) test's page (its text,
// labels with whether a chip is cut short, description); requests that left the report;
// and whether the loading spinner was still up when the reading ended.
//
//   node read_report.mjs BASE_URL [SEARCH] [SCREENSHOT_DIR]
//
// BASE_URL is the report folder, served (http://127.0.0.1:PORT/) or on disk
// (file:///path/to/report/). SEARCH (default 'ADR-0047 Numeric rounding semantics') is typed into the ADR view's search
// box. With SCREENSHOT_DIR, summary.png, adr.png and failed-test.png are written there.
// Chromium is Debian's (/usr/bin/chromium, or $PTO_AVS_CHROMIUM), driven by
// playwright-core; no browser is downloaded. It runs with an empty profile directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [base, search = 'ADR-0047 Numeric rounding semantics', shots] = process.argv.slice(2);
if (!base) {
  console.error('usage: node read_report.mjs BASE_URL [SEARCH] [SCREENSHOT_DIR]');
  process.exit(2);
}
const executablePath = process.env.PTO_AVS_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// How long to wait for a page or an element: generous by default, since a loaded machine (a CI
// runner, the whole test suite on every core) is slow; $PTO_AVS_BROWSER_TIMEOUT_MS sets it.
const TIMEOUT_MS = Number(process.env.PTO_AVS_BROWSER_TIMEOUT_MS || 300000);

// Status counts of a tree group, from the coloured segments of its status bar.
const STATUS_RE = /(?:^|\s)styles_(failed|broken|passed|skipped|unknown)__/;

async function expandAll(page) {
  // Click every collapsed group arrow until none is left (groups render children lazily).
  for (let round = 0; round < 20; round++) {
    const clicked = await page.evaluate(() => {
      const closed = [...document.querySelectorAll('[data-testid="tree-section"] > [data-testid="tree-arrow"]')]
        .filter((b) => !b.querySelector('svg')?.getAttribute('class')?.includes('opened'));
      closed.forEach((b) => b.click());
      return closed.length;
    });
    if (clicked === 0) return;
    await page.waitForTimeout(100);
  }
  throw new Error('tree groups kept collapsing');
}

async function openView(page, href) {
  await page.goto(new URL(href, base).href);
  await page.waitForSelector('[data-testid="tree-section"]', { timeout: TIMEOUT_MS });
  await expandAll(page);
}

const leafTitles = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid="tree-leaf-title"]')]
  .map((e) => e.textContent.trim()));

async function readView(page, href) {
  await openView(page, href);
  return page.evaluate((statusSource) => {
    const statusRe = new RegExp(statusSource);
    const metric = (id) => document.querySelector(`[data-testid="metadata-item-${id}"] [data-testid="metadata-value"]`)?.textContent?.trim();
    const sections = [...document.querySelectorAll('[data-testid="tree-section"]')].map((s) => {
      let depth = 0;
      for (let e = s.parentElement; e; e = e.parentElement) {
        if (e.getAttribute('data-testid') === 'tree-content') depth++;
      }
      const counts = {};
      for (const seg of s.querySelectorAll(':scope > div > div')) {
        const m = (seg.getAttribute('class') || '').match(statusRe);
        if (m) counts[m[1]] = Number(seg.textContent.trim());
      }
      return { depth, title: s.querySelector('[data-testid="tree-section-title"]').textContent.trim(), counts };
    });
    const leaves = [...document.querySelectorAll('[data-testid="tree-leaf-title"]')].map((e) => e.textContent.trim());
    const metadata = Object.fromEntries([...document.querySelectorAll('[data-testid="metadata-item"]')].map((e) => [
      e.querySelector('[data-testid="metadata-item-key"]')?.textContent?.trim(),
      e.querySelector('[data-testid="metadata-item-value"]')?.textContent?.trim()]));
    return {
      reportTitle: document.querySelector('[data-testid="report-title"]')?.textContent?.trim(),
      total: metric('total'), failed: metric('failed'), passed: metric('passed'), skipped: metric('skipped'),
      broken: metric('broken'), metadata, sections, leaves,
    };
  }, STATUS_RE.source);
}

async function searchLeaves(page, href, text) {
  await openView(page, href);
  await page.fill('[data-testid="search-input"]', text);
  await page.waitForTimeout(1000);  // the search is debounced
  await expandAll(page);
  return leafTitles(page);
}

async function readFailedTest(page, href) {
  await openView(page, href);
  const failed = page.locator('[data-testid="tree-leaf"]:has([data-testid="tree-leaf-status-failed"], '
    + '[data-testid="tree-leaf-status-broken"])').first();
  if (await failed.count() === 0) return null;
  const title = (await failed.locator('[data-testid="tree-leaf-title"]').textContent()).trim();
  await failed.click();
  await page.waitForSelector('[data-testid="test-result-info-title"]', { timeout: TIMEOUT_MS });
  await page.waitForTimeout(300);
  // Show every label and link ("Show more" under each list).
  for (const more of await page.getByRole('button', { name: 'Show more' }).all()) await more.click();
  await page.waitForTimeout(100);
  // Every label, with its chips' text and whether a chip's text is cut short (ellipsis).
  const labels = await page.evaluate(() => [...document.querySelectorAll('[data-testid="metadata-item"]')]
    .map((item) => {
      const chips = [...item.querySelectorAll('[data-testid="metadata-item-value"] span')];
      return {
        key: item.querySelector('[data-testid="metadata-item-key"]')?.textContent?.trim(),
        values: chips.map((c) => c.textContent.trim()),
        cut: [...item.querySelectorAll('[data-testid="metadata-item-value"] *')]
          .some((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1),
      };
    }));
  // The description (markdown) is rendered in a srcdoc frame of its own.
  const frames = page.frames().filter((f) => f !== page.mainFrame());
  const description = (await Promise.all(frames.map((f) => f.locator('body').innerText().catch(() => ''))))
    .join('\n').trim();
  return { title, url: page.url(), text: await page.locator('body').innerText(), labels, description };
}

const spinnerUp = (page) => page.evaluate(() => Boolean(document.querySelector(
  '#allure-app-loader, [data-testid="loader"]')));

const profile = mkdtempSync(join(tmpdir(), 'pto-avs-chromium-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath, headless: true, args: ARGS, viewport: { width: 1400, height: 1000 },
  });
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  const outside = [];
  const origin = new URL(base).origin;
  page.on('pageerror', (e) => errors.push(String(e)));
  context.on('request', (r) => {
    const url = new URL(r.url());
    if (!['file:', 'data:', 'blob:', 'about:'].includes(url.protocol) && url.origin !== origin) {
      outside.push(r.url());
    }
  });
  const shot = async (name) => { if (shots) await page.screenshot({ path: join(shots, name) }); };

  await page.goto(new URL('index.html', base).href);
  await page.waitForSelector('a[href$="/index.html"]', { timeout: TIMEOUT_MS });
  const summary = await page.evaluate(() => [...document.querySelectorAll('a[href$="/index.html"]')]
    .map((a) => ({ href: a.getAttribute('href'), text: a.innerText.replace(/\s+/g, ' ').trim() })));
  await shot('summary.png');
  // Follow the first card as a person would click it (it opens a new tab).
  const [opened] = await Promise.all([context.waitForEvent('page'),
    page.locator('a[href$="/index.html"]').first().click()]);
  await opened.waitForSelector('[data-testid="tree-section"]', { timeout: TIMEOUT_MS });
  const firstCardOpens = opened.url();
  await opened.close();

  const views = {};
  for (const card of summary) views[card.href.split('/')[0]] = await readView(page, card.href);
  await openView(page, 'adr/index.html');
  const spinner = await spinnerUp(page);
  await shot('adr.png');
  const searched = { text: search, leaves: await searchLeaves(page, 'adr/index.html', search) };
  const failedTest = await readFailedTest(page, 'adr/index.html');
  await shot('failed-test.png');
  console.log(JSON.stringify({
    summary, firstCardOpens, views, searched, failedTest, spinner, outsideRequests: outside, pageErrors: errors,
  }, null, 1));
} finally {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
}
