/**
 * Capture any site: a page sending a strict Content-Security-Policy (no inline style or script, no
 * data: images, no connections) is captured like any other. Vigil's own freezing styles reach the
 * page without weakening its policy for its own scripts (its eval stays refused, no violation is
 * caused by Vigil), and a failed capture is explained in Vigil's words.
 */
import { chromium, type Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../../src/engines/functional/browser.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { captureFailure } from '../../../src/engines/functional/visual/capture-errors.js';
import { CAPTURE_GUARD_INIT, stableCapture } from '../../../src/engines/functional/visual/capture.js';
import { startCspSite, type CspSite } from '../../fixtures/csp-site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

let site: CspSite;
let browser: Browser;
const engine = createFunctionalEngine();

beforeAll(async () => {
  site = await startCspSite();
  browser = await chromium.launch({ executablePath: resolveChromium(), args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser.close();
  await engine.close();
  await site.close();
});

const rgbAt = (png: PNG, x: number, y: number) => Array.from(png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3));

describe('visual capture under a strict Content-Security-Policy', () => {
  it('freezes the page with its policy intact: animations stopped, its images kept, its eval still refused', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.addInitScript(CAPTURE_GUARD_INIT);
      const response = await page.goto(site.url);
      // As the screenshot gatherer does: the main response's policy (from the load) is handed over.
      const shot = await stableCapture(page, { settleMs: 2000, contentSecurityPolicy: response!.headers()['content-security-policy'] });
      const state = await page.evaluate(() => {
        const w = window as unknown as { __violations: string[]; __pageEvalAllowed: boolean };
        const h1 = document.querySelector('h1')!;
        const hero = document.querySelector('img.hero') as HTMLImageElement;
        return {
          violations: w.__violations,
          pageEval: w.__pageEvalAllowed,
          paused: getComputedStyle(h1).animationPlayState,
          heroSrc: hero.getAttribute('src'),
          heroLoaded: hero.complete && hero.naturalWidth > 0,
        };
      });
      // The only violation is the page's own eval, refused as its policy says.
      expect(state.violations).toEqual(['script-src']);
      expect(state.pageEval).toBe(false);
      expect(state.paused).toBe('paused');
      // The policy refuses data: images: the image the capture could not freeze stays the page's own.
      expect(state.heroSrc).toBe('/hero.png');
      expect(state.heroLoaded).toBe(true);
      const png = PNG.sync.read(shot.png);
      const box = await page.locator('img.hero').boundingBox();
      expect(rgbAt(png, Math.round(box!.x + 10), Math.round(box!.y + 10))).toEqual([0x2e, 0x7d, 0x32]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('paints options.mask over its element under the policy, causes no violation, and takes its boxes away afterwards', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.addInitScript(CAPTURE_GUARD_INIT);
      const response = await page.goto(site.url);
      const shot = await stableCapture(page, { mask: ['img.hero'], settleMs: 2000, contentSecurityPolicy: response!.headers()['content-security-policy'] });
      const box = (await page.locator('img.hero').boundingBox())!;
      const png = PNG.sync.read(shot.png);
      // The mask's magenta where the page's own image was green (the test above).
      expect(rgbAt(png, Math.round(box.x + 10), Math.round(box.y + 10))).toEqual([0xff, 0x00, 0xff]);
      expect(rgbAt(png, Math.round(box.x + box.width - 3), Math.round(box.y + box.height - 3))).toEqual([0xff, 0x00, 0xff]);
      const after = await page.evaluate(() => ({
        violations: (window as unknown as { __violations: string[] }).__violations,
        boxes: document.querySelectorAll('x-vigil-mask').length,
      }));
      expect(after).toEqual({ violations: ['script-src'], boxes: 0 });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('scans the page: the baseline is set, and a re-scan of the unchanged page finds no diff', async () => {
    const artifacts = new MemoryArtifacts();
    const baselines = new MemoryBaselines();
    const scan = () => engine.run(functionalContext({ url: site.url, options: { pages: [site.url], throttling: 'none' } }, { artifacts, baselines }));
    const first = await scan();
    const visualTask = first.tasks.find((t) => t.name.startsWith('Visual regression'));
    expect(visualTask?.error).toBeUndefined();
    expect(visualTask?.status).toBe('passed');
    const page = first.functional!.visual[0];
    expect(page.baseline_created).toBe(true);
    expect(PNG.sync.read(artifacts.items.get(`t1/${page.current_artifact}`)!.bytes).width).toBe(1280);

    const second = await scan();
    expect(second.tasks.find((t) => t.name.startsWith('Visual regression'))?.status).toBe('passed');
    expect(second.functional!.visual[0].diff_detected).toBe(false);
  }, 120_000);
});

describe('capture failures in Vigil words', () => {
  it('never passes a raw Playwright message on', () => {
    const cases = [
      new Error('page.screenshot: Timeout 30000ms exceeded.\nCall log:\n  - taking page screenshot'),
      new Error("page.addStyleTag: Applying inline style violates the following Content Security Policy directive 'style-src 'self''."),
      new Error('page.evaluate: Execution context was destroyed, most likely because of a navigation'),
      new Error('page.screenshot: Target page, context or browser has been closed'),
      new Error('page.screenshot: Protocol error (Page.captureScreenshot): Unable to capture screenshot'),
    ];
    const said = cases.map((e) => captureFailure(e, 45));
    for (const s of said) expect(s).not.toMatch(/^page\.|Call log|Protocol error \(|Timeout \d+ms/);
    expect(said[0]).toContain('options.timeout (45 s)');
    expect(said[1]).toContain('Content-Security-Policy');
    expect(said[2]).toContain('navigated away');
    expect(said[3]).toContain('closed or crashed');
    expect(said[4]).toMatch(/^the page could not be captured/);
  });
});
