import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { comparePngs, comparePngsAsync, decodePng, encodePng } from '../../../src/engines/functional/visual/diff.js';
import { findChromium, resolveChromium } from '../../../src/engines/functional/browser.js';

function image(width: number, height: number, paint: (x: number, y: number) => [number, number, number]): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const [r, g, b] = paint(x, y);
      const i = (y * width + x) * 4;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = 255;
    }
  return PNG.sync.write(png);
}

const white = (): [number, number, number] => [255, 255, 255];

describe('PNG codec', () => {
  it('round-trips RGBA pixels through encode and decode, and decodes pngjs output', () => {
    const src = image(37, 11, (x, y) => [x * 5, y * 20, (x + y) % 256]);
    const raw = decodePng(src);
    expect(raw.width).toBe(37);
    expect(raw.height).toBe(11);
    expect(raw.data.equals(PNG.sync.read(src).data)).toBe(true);
    const again = decodePng(encodePng(raw));
    expect(again.data.equals(raw.data)).toBe(true);
  });

  it('decodes every PNG filter type (word-at-a-time Sub and Up included) and round-trips noisy pixels with alpha', () => {
    const png = new PNG({ width: 257, height: 64 });
    let seed = 7;
    for (let i = 0; i < png.data.length; i++) png.data[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    for (const filterType of [0, 1, 2, 3, 4]) {
      const decoded = decodePng(PNG.sync.write(png, { filterType }));
      expect(decoded.data.equals(png.data), `filter ${filterType}`).toBe(true);
    }
    const ours = encodePng({ width: 257, height: 64, data: png.data });
    expect(PNG.sync.read(ours).data.equals(png.data)).toBe(true);
    expect(decodePng(ours).data.equals(png.data)).toBe(true);
  });
});

describe('image diff', () => {
  it('the async comparison (inflating both images on the thread pool) gives exactly the sync result', async () => {
    const a = image(120, 90, white);
    const b = image(120, 90, (x, y) => (x > 30 && x < 60 && y > 20 && y < 50 ? [0, 0, 0] : [255, 255, 255]));
    const sync = comparePngs(a, b, { thresholdPercent: 0.5 });
    const async = await comparePngsAsync(a, b, { thresholdPercent: 0.5 });
    expect(async.diffPercent).toBe(sync.diffPercent);
    expect(async.diffDetected).toBe(true);
    expect(async.diffImage!.equals(sync.diffImage!)).toBe(true);
    expect((await comparePngsAsync(a, a, { thresholdPercent: 0.5 })).diffImage).toBeNull();
  });

  it('identical images: 0%, no diff image', () => {
    const a = image(100, 100, white);
    const r = comparePngs(a, Buffer.from(a), { thresholdPercent: 0.5 });
    expect(r.diffPercent).toBe(0);
    expect(r.diffDetected).toBe(false);
    expect(r.diffImage).toBeNull();
  });

  it('a 10x10 black block in 100x100 is 1% changed and produces a diff image', () => {
    const a = image(100, 100, white);
    const b = image(100, 100, (x, y) => (x >= 20 && x < 30 && y >= 50 && y < 60 ? [0, 0, 0] : [255, 255, 255]));
    const r = comparePngs(a, b, { thresholdPercent: 0.5 });
    expect(r.changedPixels).toBe(100);
    expect(r.diffPercent).toBeCloseTo(1, 5);
    expect(r.diffDetected).toBe(true);
    const d = decodePng(r.diffImage!);
    expect([d.width, d.height]).toEqual([100, 100]);
    const i = (55 * 100 + 25) * 4;
    // pixelmatch paints darkened pixels in the alternate colour (blue), brightened in red.
    expect([d.data[i], d.data[i + 1], d.data[i + 2]]).toEqual([0, 120, 255]);
    const j = (5 * 100 + 5) * 4; // unchanged: faded grey
    expect(d.data[j]).toBe(d.data[j + 2]);
  });

  it('below the threshold: measured but not detected, no image', () => {
    const a = image(100, 100, white);
    const b = image(100, 100, (x, y) => (x < 4 && y < 10 ? [0, 0, 0] : [255, 255, 255]));
    const r = comparePngs(a, b, { thresholdPercent: 0.5 });
    expect(r.diffPercent).toBeCloseTo(0.4, 5);
    expect(r.diffDetected).toBe(false);
    expect(r.diffImage).toBeNull();
  });

  it('size change counts the uncovered area as changed', () => {
    const a = image(100, 100, white);
    const b = image(100, 120, white);
    const r = comparePngs(a, b, { thresholdPercent: 0.5 });
    expect(r.sizeChanged).toBe(true);
    expect(r.changedPixels).toBe(2000);
    expect(r.diffPercent).toBeCloseTo((2000 / 12000) * 100, 5);
    expect(decodePng(r.diffImage!).height).toBe(120);
  });
});

describe('findChromium', () => {
  it('returns undefined for a bad CHROMIUM_PATH and resolveChromium throws BROWSER_UNAVAILABLE', () => {
    expect(findChromium({ CHROMIUM_PATH: '/nonexistent/chrome' })).toBeUndefined();
    expect(() => resolveChromium({ CHROMIUM_PATH: '/nonexistent/chrome' })).toThrow(/CHROMIUM_PATH/);
  });
  it('finds the system chromium', () => {
    expect(findChromium({})).toMatch(/chrom/);
  });
});
