/**
 * The HTML report rendered in Chromium (offline, from a file): the embedded screenshots and diff
 * image are present and decoded (naturalWidth > 0), the before / after slider moves the edge, the
 * inline script runs under the report's own CSP (no violation), and no request leaves the page.
 * Then through the API: two real functional scans (baseline, then a changed layout), the HTML export
 * embeds that scan's before / after / diff images, and they decode in Chromium too.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { renderHtmlReport } from '../../src/reports/html.js';
import { startSite } from '../fixtures/site/server.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { embeddedFullReport, fullReport } from './fixtures.js';

let browser: Browser;
const dir = mkdtempSync(join(tmpdir(), 'vigil-html-'));

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
});
afterAll(async () => {
  await browser?.close();
});

interface Opened {
  page: Page;
  requests: string[];
  cspViolations: string[];
  errors: string[];
}

/** Opens a report from a file with no network: every request other than the file and data: URIs is recorded and aborted. */
async function open(html: string, name: string): Promise<Opened> {
  const file = join(dir, name);
  writeFileSync(file, html);
  const context = await browser.newContext({ offline: true });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.addInitScript(() => {
    (window as unknown as { __csp: string[] }).__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  const cspViolations = await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
  return { page, requests, cspViolations, errors };
}

/** Nothing left the page, the CSP blocked nothing, no script error. */
function expectQuiet(opened: Pick<Opened, 'requests' | 'cspViolations' | 'errors'>): void {
  expect(opened.requests).toEqual([]);
  expect(opened.cspViolations).toEqual([]);
  expect(opened.errors).toEqual([]);
}

/** Every <img> of the report: its class, whether it decoded and its natural size. */
async function images(page: Page) {
  return page.$$eval('img', (imgs) =>
    imgs.map((i) => ({ cls: i.className, complete: i.complete, width: i.naturalWidth, height: i.naturalHeight, data: i.src.startsWith('data:image/') })),
  );
}

/** Where the edge between before and after is, as a fraction of the compare box (from the after layer's clip). */
async function edge(page: Page, id: string): Promise<number> {
  return page.$eval(`#${id}`, (el) => {
    const layer = el.querySelector('.after-layer') as HTMLElement;
    const box = el.getBoundingClientRect();
    const clip = getComputedStyle(layer).clipPath; // inset(0px 0px 0px 80px) or a percentage
    const m = /inset\(([^)]*)\)/.exec(clip);
    const left = m ? (m[1]!.trim().split(/\s+/)[3] ?? '0') : '0';
    return left.endsWith('%') ? parseFloat(left) / 100 : parseFloat(left) / box.width;
  });
}

describe('HTML report in Chromium', () => {
  it('embedded before, after and diff images decode; the slider moves the edge; nothing is requested', async () => {
    const report = embeddedFullReport();
    const { page, requests, cspViolations, errors } = await open(renderHtmlReport(report), 'embedded.html');
    try {
      const imgs = await images(page);
      // Cart: before, after, diff; home (no diff): before, after; search (baseline set by this scan): one shot.
      expect(imgs.filter((i) => i.cls === 'before')).toHaveLength(2);
      expect(imgs.filter((i) => i.cls === 'after')).toHaveLength(2);
      expect(imgs.filter((i) => i.cls === 'shot diff')).toHaveLength(1);
      expect(imgs).toHaveLength(6);
      for (const img of imgs) {
        expect(img.data).toBe(true);
        expect(img.complete).toBe(true);
        expect(img.width).toBeGreaterThan(0);
      }
      expect(imgs.find((i) => i.cls === 'shot diff')).toMatchObject({ width: 160, height: 120 });

      // The slider of the page with a diff: the script set the edge at 50%, moving the range moves it.
      const slider = page.locator('section.visual-page[data-page-diff="true"] input.compare-slider');
      const id = (await slider.getAttribute('aria-controls'))!;
      expect(await edge(page, id)).toBeCloseTo(0.5, 1);
      await slider.fill('20');
      expect(await edge(page, id)).toBeCloseTo(0.2, 1);
      await slider.focus();
      await page.keyboard.press('End');
      expect(await edge(page, id)).toBeCloseTo(1, 1);
      // At the right end only "before" shows: the after layer is clipped away entirely.
      expect(await page.$eval(`#${id} .after-layer`, (el) => getComputedStyle(el).clipPath)).toMatch(/inset\(0px 0px 0px (100%|160px)\)/);

      // The collapsed page (no diff) opens on click and its images are decoded too.
      const collapsed = page.locator('details.visual-page[data-page-diff="false"]').first();
      expect(await collapsed.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await collapsed.locator('summary').click();
      expect(await collapsed.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);

      expectQuiet({ requests, cspViolations, errors });
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it('hostile text stays text, passed tasks are collapsed, and a report with signed links loads nothing', async () => {
    const { page, requests, cspViolations, errors } = await open(renderHtmlReport(fullReport()), 'linked.html');
    try {
      expect(await page.$$eval('img', (i) => i.length)).toBe(0);
      expect(await page.$$eval('script', (s) => s.length)).toBe(0);
      // The snippet an axe node carried is shown as its source text, not as an element.
      const snippet = await page.locator('.snippet').first().textContent();
      expect(snippet).toContain('<img class="product"');
      expect(await page.$$eval('img.product', (i) => i.length)).toBe(0);
      // Passed tasks sit in closed <details>: not visible until opened.
      const passedRow = page.locator('details.passed-tasks tr.task-passed').first();
      expect(await passedRow.isVisible()).toBe(false);
      await page.locator('details.passed-tasks > summary').first().click();
      expect(await passedRow.isVisible()).toBe(true);
      // Findings grouped by check are visible at once.
      expect(await page.locator('section.finding-group').count()).toBeGreaterThan(0);
      expectQuiet({ requests, cspViolations, errors });
    } finally {
      await page.context().close();
    }
  }, 60_000);
});

describe(`HTML export through the API embeds the scan's images (${storeLabel})`, () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    site = await startSite();
    site.setLayout(0);
    server = await startServer({ engines: 'real' });
    key = (await server.createTenant('team')).apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((r) => site?.server.close(r));
  });

  async function functionalScan(): Promise<string> {
    const start = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': key },
      json: { url: site.url, mode: 'functional', options: { pages: ['/clean', '/changing'], viewport: { width: 800, height: 600 } } },
    });
    expect(start.status, start.text).toBe(202);
    const status = await waitForScan(server.api, key, start.body.scan_id, undefined, 120_000);
    expect(status.status, status.failure_reason).toBe('completed');
    return start.body.scan_id as string;
  }

  it('a scan with a visual diff exports HTML whose before, after and diff images decode offline', async () => {
    await functionalScan();
    site.setLayout(1);
    const scanId = await functionalScan();
    site.setLayout(0);
    const res = await fetch(`${server.api}/scan/${scanId}/export?format=html`, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain('/artifacts/');
    const { page, requests, cspViolations, errors } = await open(html, `${scanId}.html`);
    try {
      const changed = page.locator('section.visual-page[data-page-diff="true"]');
      expect(await changed.count()).toBe(1);
      expect(await changed.textContent()).toContain('/changing');
      const imgs = await changed.evaluate((s) =>
        Array.from(s.querySelectorAll('img')).map((i) => ({ cls: i.className, width: i.naturalWidth, data: i.src.startsWith('data:image/png;base64,') })),
      );
      expect(imgs.map((i) => i.cls)).toEqual(['before', 'after', 'shot diff']);
      for (const img of imgs) {
        expect(img.data).toBe(true);
        expect(img.width).toBe(800);
      }
      expect(await page.locator('input.compare-slider').count()).toBeGreaterThanOrEqual(1);
      expectQuiet({ requests, cspViolations, errors });
    } finally {
      await page.context().close();
    }
  }, 300_000);
});
