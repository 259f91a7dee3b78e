// Read a rendered pto-avs Allure 3 report back from headless Chromium and print what a
// person would see, as JSON: the summary cards, and per view (adr, suites) the header
// counts, the metadata (environment.properties) and every tree group (depth, title,
// status counts) with all groups expanded,
// plus the text of the first failed (or broken) test's page (parameters, links, attachments).
//
//   node read_report.mjs http://127.0.0.1:PORT/
//
// Chromium is Debian's (/usr/bin/chromium, or $PTO_AVS_CHROMIUM), driven by
// playwright-core; no browser is downloaded. It runs with an empty profile directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const base = process.argv[2];
if (!base) {
  console.error('usage: node read_report.mjs BASE_URL');
  process.exit(2);
}
const executablePath = process.env.PTO_AVS_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWS = ['adr', 'suites'];
const TIMEOUT_MS = 20000;

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

async function readView(page, name) {
  await page.goto(new URL(`${name}/index.html`, base).href);
  await page.waitForSelector('[data-testid="tree-section"]', { timeout: TIMEOUT_MS });
  await expandAll(page);
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

async function readFailedTest(page) {
  await page.goto(new URL('adr/index.html', base).href);
  await page.waitForSelector('[data-testid="tree-section"]', { timeout: TIMEOUT_MS });
  await expandAll(page);
  const failed = page.locator('[data-testid="tree-leaf"]:has([data-testid="tree-leaf-status-failed"], '
    + '[data-testid="tree-leaf-status-broken"])').first();
  if (await failed.count() === 0) return null;
  const title = (await failed.locator('[data-testid="tree-leaf-title"]').textContent()).trim();
  await failed.click();
  await page.waitForSelector('[data-testid="test-result-info-title"]', { timeout: TIMEOUT_MS });
  // Open the collapsed panels (parameters, links, attachments) so their text is in the DOM.
  await page.waitForTimeout(300);
  // The description (markdown) is rendered in a srcdoc frame of its own.
  const frames = page.frames().filter((f) => f !== page.mainFrame());
  const description = (await Promise.all(frames.map((f) => f.locator('body').innerText().catch(() => ''))))
    .join('\n').trim();
  return { title, url: page.url(), text: await page.locator('body').innerText(), description };
}

const profile = mkdtempSync(join(tmpdir(), 'pto-avs-chromium-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath, headless: true, args: ARGS,
  });
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(new URL('index.html', base).href);
  await page.waitForSelector('a[href$="/"]', { timeout: TIMEOUT_MS });
  const summary = await page.evaluate(() => [...document.querySelectorAll('a[href$="/"]')]
    .map((a) => ({ href: a.getAttribute('href'), text: a.innerText.replace(/\s+/g, ' ').trim() })));
  const views = {};
  for (const name of VIEWS) views[name] = await readView(page, name);
  const failedTest = await readFailedTest(page);
  console.log(JSON.stringify({ summary, views, failedTest, pageErrors: errors }, null, 1));
} finally {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
}
