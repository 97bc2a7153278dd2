import { performance } from 'node:perf_hooks';
import pixelmatch from 'pixelmatch';
import { chromium, type Browser } from 'playwright-core';
import { LAUNCH_ARGS, resolveChromium } from '../src/engines/functional/browser.js';
import { stableCapture } from '../src/engines/functional/visual/capture.js';
import { comparePngsAsync, decodePng, encodePng, type DiffResult } from '../src/engines/functional/visual/diff.js';
import { startVisualSite, type Variant } from '../test/fixtures/visual-site/server.js';

/**
 * Visual change detection, in two parts:
 *  1. what the fixture pages' variants change (test/fixtures/visual-site): per page and variant,
 *     the changed percent, the largest region's changed pixels, the pixels taken as text noise.
 *     This is the measurement `options.min_region_px`'s default comes from: every noise variant's
 *     largest region must stay under it and every changed heading's above it;
 *  2. the diff's speed on a 1280x10000 page (decode + compare + regions + diff image + thumbnail),
 *     for a changed heading and for a page whose every row changed, next to pixelmatch alone over
 *     the decoded pair (no decode, no regions, no image encoding) in the same run.
 */

const PAGES = ['/article', '/app', '/tall'];
const VARIANTS: Variant[] = ['subpixel', 'shift', 'precision', 'recolour', 'reword'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function capture(browser: Browser, url: string): Promise<Buffer> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    return (await stableCapture(page, {})).png;
  } finally {
    await context.close();
  }
}

export async function detection(): Promise<Array<{ page: string; variant: Variant; result: DiffResult }>> {
  const site = await startVisualSite();
  const browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
  const rows: Array<{ page: string; variant: Variant; result: DiffResult }> = [];
  try {
    for (const path of PAGES) {
      site.setVariant('base');
      const base = await capture(browser, site.url + path);
      for (const variant of VARIANTS) {
        site.setVariant(variant);
        const result = await comparePngsAsync(base, await capture(browser, site.url + path), { thresholdPercent: 0.5 });
        rows.push({ page: path, variant, result });
      }
    }
  } finally {
    await browser.close();
    await site.close();
  }
  return rows;
}

function syntheticPage(width: number, height: number): Buffer {
  // Text-like rows: dark strokes on white, 24 px lines.
  const a = Buffer.alloc(width * height * 4, 255);
  for (let y = 0; y < height; y++) {
    if (y % 24 >= 16) continue;
    for (let x = 40; x < width - 40; x++) {
      if ((x * 7 + (y >> 1) * 3) % 11 < 3) {
        const i = (y * width + x) * 4;
        a[i] = a[i + 1] = a[i + 2] = 30;
      }
    }
  }
  return a;
}

async function speed(): Promise<void> {
  const width = 1280;
  const height = 10000;
  const a = syntheticPage(width, height);
  const heading = Buffer.from(a);
  for (let y = 5000; y < 5040; y++) for (let x = 200; x < 520; x++) if (a[(y * width + x) * 4] === 30) heading[(y * width + x) * 4] = 200; // recoloured strokes
  const shifted = Buffer.alloc(a.length, 255);
  a.copy(shifted, 30 * width * 4, 0, (height - 30) * width * 4); // everything 30 px down
  const pa = encodePng({ width, height, data: a });
  for (const [label, b] of [
    ['changed heading', heading],
    ['every row changed', shifted],
  ] as const) {
    const pb = encodePng({ width, height, data: b });
    const ours: number[] = [];
    let r = await comparePngsAsync(pa, pb, { thresholdPercent: 0.5, minRegionPx: 200 });
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      r = await comparePngsAsync(pa, pb, { thresholdPercent: 0.5, minRegionPx: 200 });
      ours.push(performance.now() - t0);
    }
    const da = decodePng(pa).data;
    const db = decodePng(pb).data;
    const plain: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      pixelmatch(da, db, Buffer.allocUnsafe(da.length), width, height, { threshold: 0.1 });
      plain.push(performance.now() - t0);
    }
    console.log(
      `diff ${width}x${height}, ${label}: ${median(ours).toFixed(0)} ms (decode+compare+regions+image+thumbnail), pixelmatch alone ${median(plain).toFixed(0)} ms; ` +
        `${r.diffPercent.toFixed(3)}% changed, ${r.regionCount} region(s), largest ${r.regions[0]?.changedPixels ?? 0} px, detected ${r.diffDetected}`,
    );
  }
}

export async function run(): Promise<void> {
  console.log('page       variant    changed%  largest region px  regions  noise px');
  for (const { page, variant, result: r } of await detection()) {
    console.log(
      `${page.padEnd(10)} ${variant.padEnd(10)} ${r.diffPercent.toFixed(4).padStart(8)}  ${String(r.regions[0]?.changedPixels ?? 0).padStart(17)}  ${String(r.regionCount).padStart(7)}  ${String(r.noisePixels).padStart(8)}`,
    );
  }
  await speed();
}
