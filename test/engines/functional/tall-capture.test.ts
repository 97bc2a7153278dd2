/**
 * Tall pages and the page's time limit: the capture is bounded by options.timeout (not
 * Playwright's fixed 30 s screenshot timeout), and a 32,000 px page is captured whole, its
 * baseline set.
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

describe('capturing a 32,000 px page', () => {
  it('the screenshot is bounded by the time it is given, and the failure says which option to raise', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.addInitScript(CAPTURE_GUARD_INIT);
      await page.goto(`${site.url}tall`);
      const err = await stableCapture(page, { settleMs: 1000, shotTimeoutMs: 1 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.name).toBe('TimeoutError');
      expect(captureFailure(err, 5)).toContain('options.timeout (5 s)');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a scan captures the whole page and sets its baseline', async () => {
    const artifacts = new MemoryArtifacts();
    const url = `${site.url}tall`;
    const out = await engine.run(
      functionalContext({ url, options: { pages: [url], throttling: 'none', timeout: 120 } }, { artifacts, baselines: new MemoryBaselines() }),
    );
    const task = out.tasks.find((t) => t.name.startsWith('Visual regression'));
    expect(task?.error).toBeUndefined();
    const page = out.functional!.visual[0];
    expect(page.baseline_created).toBe(true);
    const png = PNG.sync.read(artifacts.items.get(`t1/${page.current_artifact}`)!.bytes);
    expect(png.height).toBeGreaterThan(31_000);
    console.log(`32,000 px page: visual task ${task?.duration_ms} ms, capture ${png.width}x${png.height}`);
  }, 300_000);
});
