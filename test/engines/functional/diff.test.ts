import { describe, expect, it } from 'vitest';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import {
  compareImages,
  comparePngs,
  comparePngsAsync,
  decodePng,
  decodePngAsync,
  encodePng,
  encodePngAsync,
} from '../../../src/engines/functional/visual/diff.js';
import { pixelmatchIndexed } from '../../../src/engines/functional/visual/pixelmatch-band.js';
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

  it('the asynchronous codec (libvips) decodes RGB and RGBA of every filter as the synchronous one does, and round-trips', async () => {
    const png = new PNG({ width: 131, height: 40 });
    let seed = 11;
    for (let i = 0; i < png.data.length; i++) png.data[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    for (const filterType of [0, 1, 2, 3, 4]) {
      const rgba = PNG.sync.write(png, { filterType });
      expect((await decodePngAsync(rgba)).data.equals(decodePng(rgba).data), `RGBA filter ${filterType}`).toBe(true);
      const rgb = PNG.sync.write(png, { filterType, colorType: 2 });
      expect(rgb[25]).toBe(2);
      expect((await decodePngAsync(rgb)).data.equals(decodePng(rgb).data), `RGB filter ${filterType}`).toBe(true);
    }
    const encoded = await encodePngAsync({ width: 131, height: 40, data: png.data });
    expect(PNG.sync.read(encoded).data.equals(png.data)).toBe(true);
    // A format libvips is not given (palette) still decodes, through the fallback.
    const grey = PNG.sync.write(png, { colorType: 0 });
    expect((await decodePngAsync(grey)).data.equals(decodePng(grey).data)).toBe(true);
  });
});

describe('image diff', () => {
  it('the async comparison (libvips codec on the thread pool) gives exactly the sync result and the same diff pixels', async () => {
    const a = image(120, 90, white);
    const b = image(120, 90, (x, y) => (x > 30 && x < 60 && y > 20 && y < 50 ? [0, 0, 0] : [255, 255, 255]));
    const sync = comparePngs(a, b, { thresholdPercent: 0.5 });
    const async = await comparePngsAsync(a, b, { thresholdPercent: 0.5 });
    expect(async.diffPercent).toBe(sync.diffPercent);
    expect(async.diffDetected).toBe(true);
    expect(async.regions).toEqual(sync.regions);
    expect(decodePng(async.diffImage!).data.equals(decodePng(sync.diffImage!).data)).toBe(true);
    expect(decodePng(async.diffThumbnail!).data.equals(decodePng(sync.diffThumbnail!).data)).toBe(true);
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

describe('pixelmatch loop drawing palette indices', () => {
  it('gives each pixel the verdict and the grey the pixelmatch package draws, transparent pixels and anti-aliasing included', () => {
    const width = 97;
    const height = 41;
    // Anti-aliased strokes, a shifted copy, recoloured and semi-transparent patches.
    const paint = (changed: boolean, x: number, y: number, out: Uint8Array, i: number) => {
      const shift = changed && y > 15 && y < 25 ? 1 : 0;
      const d = Math.abs(((x + shift) % 13) - 6);
      const v = d < 2 ? 20 : d < 3 ? 140 : 250;
      out[i] = v;
      out[i + 1] = changed && y > 30 && x > 60 ? 40 : v;
      out[i + 2] = changed && y < 5 && x > 80 ? 255 - v : v;
      out[i + 3] = x < 10 && y < 10 ? (changed ? 130 : 90) : 255;
    };
    const a = new Uint8Array(width * height * 4);
    const b = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        paint(false, x, y, a, (y * width + x) * 4);
        paint(true, x, y, b, (y * width + x) * 4);
      }
    const drawn = new Uint8Array(width * height * 4);
    const flagged = pixelmatch(a, b, drawn, width, height, {
      threshold: 0.1,
      alpha: 0.15,
      aaColor: [255, 220, 120],
      diffColor: [255, 0, 0],
      diffColorAlt: [0, 120, 255],
    });
    const out = new Uint8Array(width * height);
    const different: number[] = [];
    const n = pixelmatchIndexed(a, b, out, width, height, 0.1, 0.15, { antialiased: 2, different: 0, darker: 1 }, different);
    expect(n).toBe(flagged);
    expect(flagged).toBeGreaterThan(50);
    const kinds = [0, 0, 0]; // different, darker, anti-aliased
    let mismatches = 0;
    for (let i = 0; i < width * height; i++) {
      const [r, g, bl] = [drawn[i * 4]!, drawn[i * 4 + 1]!, drawn[i * 4 + 2]!];
      const expected = r === g && g === bl ? r : g === 220 ? 2 : r === 255 ? 0 : 1;
      if (expected < 3) kinds[expected]!++;
      if (out[i] !== expected) mismatches++;
    }
    expect(mismatches).toBe(0);
    expect(kinds.every((k) => k > 5)).toBe(true);
    expect(different.length).toBe(flagged);
  });
});

describe('diff image', () => {
  it('is an 8-bit palette PNG of greys and the marking colours', async () => {
    const a = image(120, 90, (x) => [x * 2, 200, 255 - x]);
    const b = image(120, 90, (x, y) => (x > 30 && x < 60 && y > 20 && y < 50 ? [0, 0, 0] : [x * 2, 200, 255 - x]));
    const r = await comparePngsAsync(a, b, { thresholdPercent: 0.5 });
    expect([r.diffImage![24], r.diffImage![25]]).toEqual([8, 3]); // bit depth 8, colour type palette
    const d = decodePng(r.diffImage!);
    const colours = new Set<string>();
    for (let i = 0; i < d.data.length; i += 4) {
      if (d.data[i] === d.data[i + 1] && d.data[i + 1] === d.data[i + 2]) expect(d.data[i]).toBeGreaterThanOrEqual(216);
      else colours.add(`${d.data[i]},${d.data[i + 1]},${d.data[i + 2]}`);
    }
    expect([...colours].sort()).toEqual(['0,120,255', '255,0,255']); // darker pixels, region box
  });

  it("compareImages leaves the caller's pixels as they were (only comparePngs draws over its own decode)", () => {
    const a = decodePng(image(64, 64, (x, y) => [x * 3, y * 3, 90]));
    const b = decodePng(image(64, 64, (x, y) => (x > 10 && x < 40 && y > 10 && y < 40 ? [0, 0, 0] : [x * 3, y * 3, 90])));
    const before = Buffer.from(a.data);
    const r = compareImages(a, b, { thresholdPercent: 0.5 });
    expect(r.diffDetected).toBe(true);
    expect(a.data.equals(before)).toBe(true);
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

describe('regions, noise and the detection rule', () => {
  const page = (w: number, h: number, paint: (x: number, y: number) => [number, number, number]) => image(w, h, paint);
  /** Dark text-like strokes on white: 2 px wide vertical bars every 5 px in rows 20-35. */
  const text =
    (dx: number, dy: number) =>
    (x: number, y: number): [number, number, number] =>
      y - dy >= 20 && y - dy < 36 && (x - dx) % 5 < 2 && x - dx >= 10 && x - dx < 190 ? [20, 20, 20] : [255, 255, 255];

  it('groups changed pixels into regions with their box and count, and boxes them on the diff image', () => {
    const a = page(200, 200, white);
    const b = page(200, 200, (x, y) =>
      (x >= 10 && x < 30 && y >= 10 && y < 20) || (x >= 150 && x < 160 && y >= 150 && y < 190) ? [0, 0, 0] : [255, 255, 255],
    );
    const r = comparePngs(a, b, { thresholdPercent: 100, minRegionPx: 150 });
    expect(r.regions.map(({ x, y, width, height, changedPixels }) => ({ x, y, width, height, changedPixels }))).toEqual(
      [
        { x: 10, y: 10, width: 20, height: 10, changedPixels: 200 },
        { x: 150, y: 150, width: 10, height: 40, changedPixels: 400 },
      ].sort((p, q) => q.changedPixels - p.changedPixels),
    );
    expect(r.regionCount).toBe(2);
    // 600 of 40 000 pixels is 1.5%, under the 100% threshold: detected by the region rule alone.
    expect(r.diffDetected).toBe(true);
    const d = decodePng(r.diffImage!);
    const at = (x: number, y: number) => Array.from(d.data.subarray((y * 200 + x) * 4, (y * 200 + x) * 4 + 3));
    expect(at(9, 15)).toEqual([255, 0, 255]); // box just left of the first region
    expect(at(149, 170)).toEqual([255, 0, 255]);
    expect(at(100, 100)[0]).toBe(at(100, 100)[2]); // untouched: faded grey
  });

  it('changes about 8 px apart form one region; farther apart, two', () => {
    const a = page(120, 40, white);
    const near = page(120, 40, (x, y) => (y >= 10 && y < 20 && ((x >= 10 && x < 20) || (x >= 26 && x < 36)) ? [0, 0, 0] : [255, 255, 255]));
    const far = page(120, 40, (x, y) => (y >= 10 && y < 20 && ((x >= 10 && x < 20) || (x >= 60 && x < 70)) ? [0, 0, 0] : [255, 255, 255]));
    expect(comparePngs(a, near, { thresholdPercent: 100 }).regions).toHaveLength(1);
    expect(comparePngs(a, far, { thresholdPercent: 100 }).regions).toHaveLength(2);
  });

  it('a region at or under minRegionPx, and a percent at or under the threshold, is no diff', () => {
    const a = page(200, 200, white);
    const b = page(200, 200, (x, y) => (x >= 10 && x < 20 && y >= 10 && y < 25 ? [0, 0, 0] : [255, 255, 255])); // 150 px
    expect(comparePngs(a, b, { thresholdPercent: 0.5, minRegionPx: 150 }).diffDetected).toBe(false);
    expect(comparePngs(a, b, { thresholdPercent: 0.5, minRegionPx: 149 }).diffDetected).toBe(true);
    expect(comparePngs(a, b, { thresholdPercent: 0.3 }).diffDetected).toBe(true); // 0.375%
  });

  it('text moved by one pixel, or blended at another sub-pixel offset, is noise; recoloured text is not', () => {
    const a = page(200, 60, text(0, 0));
    for (const [dx, dy] of [
      [1, 0],
      [0, 1],
      [1, 1],
    ]) {
      const r = comparePngs(a, page(200, 60, text(dx, dy)), { thresholdPercent: 0.5, minRegionPx: 150 });
      expect({ dx, dy, changed: r.changedPixels, detected: r.diffDetected }).toEqual({ dx, dy, changed: 0, detected: false });
      expect(r.noisePixels).toBeGreaterThan(0);
    }
    // Sub-pixel: each stroke's edge columns become blends of ink and paper.
    const blended = page(200, 60, (x, y) => {
      const [v] = text(0, 0)(x, y);
      const [left] = text(0, 0)(x - 1, y);
      const mix = Math.round(v * 0.6 + left * 0.4);
      return [mix, mix, mix];
    });
    expect(comparePngs(a, blended, { thresholdPercent: 0.5, minRegionPx: 150 }).changedPixels).toBe(0);
    const pink = page(200, 60, (x, y) => (text(0, 0)(x, y)[0] === 20 ? [194, 24, 91] : [255, 255, 255]));
    const r = comparePngs(a, pink, { thresholdPercent: 0.5, minRegionPx: 150 });
    expect(r.changedPixels).toBe(36 * 2 * 16);
    expect(r.diffDetected).toBe(true);
  });

  it('ignore rectangles are never counted, inside or outside the common area', () => {
    const a = page(100, 100, white);
    const b = page(100, 120, (x, y) => (x < 20 && y < 20 ? [0, 0, 0] : [255, 255, 255]));
    const r = comparePngs(a, b, {
      thresholdPercent: 0,
      ignore: [
        { x: 0, y: 0, width: 20, height: 20 },
        { x: 0, y: 100, width: 100, height: 20 },
      ],
    });
    expect(r.changedPixels).toBe(0);
    expect(r.diffDetected).toBe(false);
  });

  it('a page one pixel taller that only continues its edge is noise; a taller page with content is not', () => {
    const a = page(100, 100, white);
    expect(comparePngs(a, page(100, 101, white), { thresholdPercent: 0 }).changedPixels).toBe(0);
    const more = comparePngs(a, page(100, 140, white), { thresholdPercent: 0.5, minRegionPx: 150 });
    expect(more.changedPixels).toBe(4000);
    expect(more.regions[0]).toMatchObject({ x: 0, y: 100, width: 100, height: 40, changedPixels: 4000 });
  });

  it('stores a thumbnail of the diff image at most 320 px wide, with the regions boxed', () => {
    const a = page(1280, 900, white);
    const b = page(1280, 900, (x, y) => (x >= 400 && x < 800 && y >= 300 && y < 340 ? [0, 0, 0] : [255, 255, 255]));
    const r = comparePngs(a, b, { thresholdPercent: 0.5, minRegionPx: 150 });
    const t = decodePng(r.diffThumbnail!);
    expect([t.width, t.height]).toEqual([320, 225]);
    const at = (x: number, y: number) => Array.from(t.data.subarray((y * 320 + x) * 4, (y * 320 + x) * 4 + 3));
    expect(at(99, 80)).toEqual([255, 0, 255]);
    expect(comparePngs(a, a, { thresholdPercent: 0.5 }).diffThumbnail).toBeNull();
  });
});
