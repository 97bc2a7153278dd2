/**
 * Visual change detection on the fixture pages of test/fixtures/visual-site: text-rendering noise
 * is no diff, a changed heading word is (on a normal and on a tall page), each region has its box,
 * the diff image and its thumbnail are stored, per-page thresholds and ignore rectangles apply, and
 * pages that keep moving are reported unstable with the element to mask.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import type { ScanOptions } from '../../../src/domain/scan.js';
import { LAUNCH_ARGS, resolveChromium } from '../../../src/engines/functional/browser.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { stableCapture } from '../../../src/engines/functional/visual/capture.js';
import { comparePngs, decodePng } from '../../../src/engines/functional/visual/diff.js';
import { startVisualSite, type Variant, type VisualSite } from '../../fixtures/visual-site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

let site: VisualSite;
let browser: Browser;
const engine = createFunctionalEngine();
const artifacts = new MemoryArtifacts();
const baselines = new MemoryBaselines();
/** The API's defaults (http/scan-request.ts). */
const DEFAULTS = { thresholdPercent: 0.5, minRegionPx: 150 };

beforeAll(async () => {
  site = await startVisualSite();
  browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
});
afterAll(async () => {
  await browser.close();
  await engine.close();
  await site.close();
});

async function capture(path: string, variant: Variant): Promise<Buffer> {
  site.setVariant(variant);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
  try {
    const page = await context.newPage();
    await page.goto(site.url + path, { waitUntil: 'load' });
    return (await stableCapture(page, {})).png;
  } finally {
    await context.close();
  }
}

function scan(pages: string[], options: Partial<ScanOptions> = {}, resetBaseline = false) {
  return engine.run(functionalContext({ url: site.url, reset_baseline: resetBaseline, options: { pages, ...options } }, { artifacts, baselines }));
}

describe('visual change detection on rendered pages', () => {
  for (const path of ['/article', '/tall', '/app']) {
    it(`${path}: text-rendering noise is no diff, a recoloured or reworded heading word is, in one region around it`, async () => {
      const base = await capture(path, 'base');
      for (const noise of ['subpixel', 'shift', 'precision'] as const) {
        const r = comparePngs(base, await capture(path, noise), DEFAULTS);
        expect({ noise, detected: r.diffDetected, percentOver: r.diffPercent > 0.5 }).toEqual({ noise, detected: false, percentOver: false });
        expect(r.regions[0]?.changedPixels ?? 0).toBeLessThan(DEFAULTS.minRegionPx / 2);
      }
      const headingY = path === '/tall' ? 5824 : 104;
      for (const change of ['recolour', 'reword'] as const) {
        const r = comparePngs(base, await capture(path, change), DEFAULTS);
        expect({ change, detected: r.diffDetected }).toEqual({ change, detected: true });
        // Far under the percent threshold (0.06% on the article, 0.007% on the tall page): the region rule finds it.
        expect(r.diffPercent).toBeLessThan(0.5);
        const top = r.regions[0]!;
        expect(top.changedPixels).toBeGreaterThan(DEFAULTS.minRegionPx * 5);
        expect(Math.abs(top.y - headingY)).toBeLessThan(20);
        expect(top.height).toBeLessThan(60);
      }
    }, 300_000); // six full-page captures of an 11 600 px page on a shared 2-core machine
  }
});

describe('visual results of a functional scan', () => {
  it('reports the changed heading with its region, a boxed diff image and a thumbnail, and the thresholds applied', async () => {
    site.setVariant('base');
    await scan(['/article'], {}, true);
    site.setVariant('recolour');
    const out = await scan(['/article']);
    const v = out.functional!.visual[0]!;
    expect(v).toMatchObject({ diff_detected: true, diff_threshold_percent: 0.5, min_region_px: 150, region_count: 1, unstable: false });
    expect(v.diff_percent).toBeLessThan(0.5);
    expect(v.regions![0]).toMatchObject({ x: expect.any(Number), y: expect.any(Number), width: expect.any(Number), height: expect.any(Number) });
    expect(v.regions![0]!.changed_pixels).toBeGreaterThan(150);
    const diff = decodePng((await artifacts.get('t1', v.diff_artifact!))!.bytes);
    const thumb = decodePng((await artifacts.get('t1', v.diff_thumbnail_artifact!))!.bytes);
    expect(thumb.width).toBe(320);
    expect(thumb.height).toBe(Math.round((diff.height * 320) / diff.width));
    const r = v.regions![0]!;
    const i = ((r.y + 2) * diff.width + (r.x - 1)) * 4;
    expect(Array.from(diff.data.subarray(i, i + 3))).toEqual([255, 0, 255]);
    const task = out.tasks.find((t) => t.name.startsWith('Visual'))!;
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/1 region\(s\), a region over 150 px; largest region \d+x\d+ at \d+,\d+/);
  }, 120_000);

  it("a page's own thresholds (options.pages objects) make a recoloured word no diff, not a reworded one; ignore rectangles over the heading make it no diff", async () => {
    site.setVariant('base');
    await scan(['/article'], {}, true);
    site.setVariant('recolour');
    const own = await scan(['/article'], { page_thresholds: [{ url: '/article', min_region_px: 100_000 }] });
    expect(own.functional!.visual[0]).toMatchObject({ diff_detected: false, min_region_px: 100_000, diff_threshold_percent: 0.5 });
    // A changed text is a change whatever its pixel count (text-changes.test.ts).
    site.setVariant('reword');
    const reworded = await scan(['/article'], { page_thresholds: [{ url: '/article', min_region_px: 100_000 }] });
    expect(reworded.functional!.visual[0]).toMatchObject({ diff_detected: true, min_region_px: 100_000 });
    expect(reworded.functional!.visual[0]!.text_changes?.map((c) => [c.tag, c.kind, c.after])).toEqual([
      ['h1', 'changed', 'Release notes for the summer edition'],
    ]);
    const ignored = await scan(['/article'], { ignore_regions: [{ x: 0, y: 80, width: 1280, height: 80 }] });
    expect(ignored.functional!.visual[0]).toMatchObject({ diff_detected: false, diff_percent: 0, region_count: 0 });
    const plain = await scan(['/article']);
    expect(plain.functional!.visual[0]!.diff_detected).toBe(true);
  }, 120_000);

  it('a carousel is unstable, not a diff: its area is left out and the hint names the element to mask', async () => {
    site.setVariant('base');
    await scan(['/carousel'], {}, true);
    const out = await scan(['/carousel']);
    const v = out.functional!.visual[0]!;
    expect(v).toMatchObject({ diff_detected: false, unstable: true });
    expect(v.moving_regions!.map((m) => m.selector)).toContain('#carousel');
    expect(v.hint).toMatch(/options\.mask: \["#carousel"\]/);
    expect(out.tasks.find((t) => t.name.startsWith('Visual'))!.status).toBe('passed');
    // A real change beside it is still a diff.
    site.setVariant('reword');
    const beside = await scan(['/carousel']);
    site.setVariant('base');
    expect(beside.functional!.visual[0]).toMatchObject({ diff_detected: true, unstable: true });
    expect(beside.functional!.visual[0]!.regions![0]!.y).toBeGreaterThan(380);
    // Masked as the hint says, the page is stable.
    const masked = await scan(['/carousel'], { mask: ['#carousel'] }, true);
    expect(masked.functional!.visual[0]!.unstable).toBe(false);
  }, 120_000);

  it('a page that never gives two equal screenshots is unstable from its first scan, with the element that moves', async () => {
    const out = await scan(['/ticker'], {}, true);
    const v = out.functional!.visual[0]!;
    expect(v).toMatchObject({ baseline_created: true, diff_detected: false, unstable: true });
    expect(v.moving_regions!.map((m) => m.selector)).toContain('#count');
    expect(v.hint).toContain('#count');
  }, 120_000);
});
