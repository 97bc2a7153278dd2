import pixelmatch from 'pixelmatch';
import { downscale, drawBoxes, fitScale } from './draw.js';
import { colorDelta, isShiftNoise, maxColorDelta } from './noise.js';
import { decodePng, decodePngAsync, encodePng, encodePngAsync, pngSize, type RawImage } from './png.js';
import { addArea, ChangeGrid, insideAny, type Rect, type Region } from './regions.js';

/**
 * Image comparison for visual regression: pixelmatch 7 (anti-aliasing detection on) with Vigil's noise
 * and region rules, over libvips (sharp) for PNG decode and encode on the asynchronous path the engine
 * uses. The codec is libvips because decoding and encoding were most of the time on text-rich full
 * pages; the comparison stays here because its rules (text-rendering noise, ignore rectangles, regions,
 * the size-change strip) are what decide whether a page changed, and no codec library has them. Measured
 * beside odiff and pixelmatch + pngjs in bench/image-diff.bench.ts (3000x10000, text on every row).
 *
 * Speed-ups that do not change the result: identical rows are found with memcmp and skipped;
 * pixelmatch only runs on bands of changed rows (plus a 2-row margin so its anti-aliasing
 * detection sees the same neighbourhood), and the faded background of the diff image is drawn
 * with a lookup table.
 *
 * What counts as changed: pixels pixelmatch flags, minus text-rendering noise (a pixel whose
 * colour is found within one pixel in the other image, noise.ts: sub-pixel glyph positions, text
 * moved by one pixel) and minus `ignore` rectangles; the area only one image covers counts as
 * changed. Changed pixels are grouped into regions (regions.ts). A diff is detected when the
 * changed share of the page is over `thresholdPercent` or one region has more than `minRegionPx`
 * changed pixels; the diff image then marks each region with a box, and a thumbnail of it is made.
 */

export type { RawImage } from './png.js';
export { decodePng, decodePngAsync, encodePng, encodePngAsync, pngSize } from './png.js';
export type { Rect, Region } from './regions.js';

export interface DiffOptions {
  /** Per-pixel colour distance (0..1) under which two pixels count as equal. Default 0.1. */
  pixelThreshold?: number;
  /** Percent of pixels above which a diff is "detected" and a diff image is produced. */
  thresholdPercent: number;
  /** Changed pixels in one region above which a diff is detected, whatever the percent. Default: no such rule. */
  minRegionPx?: number;
  /** Rectangles (page coordinates) whose pixels are never counted as changed. */
  ignore?: readonly Rect[];
}

/** Regions listed in a result at most (the largest). */
export const MAX_REGIONS = 50;
/** Thumbnail bounds: the diff image scaled down to fit, aspect kept. */
export const THUMBNAIL_MAX_WIDTH = 320;
export const THUMBNAIL_MAX_HEIGHT = 2400;

export interface DiffResult {
  width: number;
  height: number;
  /** Pixels that differ (anti-aliased pixels excluded, size-change area included). */
  changedPixels: number;
  /** changedPixels / (width * height) * 100, over the union of both sizes. */
  diffPercent: number;
  sizeChanged: boolean;
  diffDetected: boolean;
  /** Groups of changed pixels, largest first (at most MAX_REGIONS). */
  regions: Region[];
  /** Regions found in all (regions may be cut to MAX_REGIONS). */
  regionCount: number;
  /** Pixels pixelmatch flagged that were taken as text-rendering noise (not counted as changed). */
  noisePixels: number;
  /** Highlighted diff image (PNG) with a box around each region when diffDetected, else null. */
  diffImage: Buffer | null;
  /** The diff image scaled to fit THUMBNAIL_MAX_WIDTH x THUMBNAIL_MAX_HEIGHT (PNG), when diffImage. */
  diffThumbnail: Buffer | null;
}

const DIFF_COLOR: [number, number, number] = [255, 0, 0];
const DIFF_COLOR_ALT: [number, number, number] = [0, 120, 255];
const AA_COLOR: [number, number, number] = [255, 220, 120];
const FADE_ALPHA = 0.15;
const MARGIN = 2;

/** pixelmatch's faded grey background: 255 + (luma - 255) * alpha, for opaque pixels. */
const FADE_LUT = (() => {
  const lut = new Uint8Array(256);
  for (let y = 0; y < 256; y++) lut[y] = Math.round(255 + (y - 255) * FADE_ALPHA);
  return lut;
})();

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** pixelmatch's luma weights in 16.16 fixed point, one table per channel. */
const LUMA_R = Uint32Array.from({ length: 256 }, (_, v) => Math.round(v * 0.29889531 * 65536));
const LUMA_G = Uint32Array.from({ length: 256 }, (_, v) => Math.round(v * 0.58662247 * 65536));
const LUMA_B = Uint32Array.from({ length: 256 }, (_, v) => Math.round(v * 0.11448223 * 65536));

function fadePixel(r: number, g: number, b: number, a: number): number {
  const luma = Math.min(255, (LUMA_R[r]! + LUMA_G[g]! + LUMA_B[b]!) >>> 16);
  return a === 255 ? FADE_LUT[luma]! : Math.round(255 + (luma - 255) * ((FADE_ALPHA * a) / 255));
}

function fadeRows(src: Buffer, out: Buffer, width: number, y0: number, y1: number): void {
  const start = y0 * width * 4;
  const end = y1 * width * 4;
  if (LITTLE_ENDIAN && src.byteOffset % 4 === 0 && out.byteOffset % 4 === 0) {
    // A word per pixel (the shifts read r, g, b, a as a little-endian machine stores them), and the
    // last result reused: screenshots are mostly runs of identical pixels.
    const s32 = new Uint32Array(src.buffer, src.byteOffset + start, (end - start) / 4);
    const o32 = new Uint32Array(out.buffer, out.byteOffset + start, (end - start) / 4);
    let lastIn = -1;
    let lastOut = 0;
    for (let i = 0; i < s32.length; i++) {
      const w = s32[i]!;
      if (w !== lastIn) {
        const v = fadePixel(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);
        lastIn = w;
        lastOut = (0xff000000 | (v << 16) | (v << 8) | v) >>> 0;
      }
      o32[i] = lastOut;
    }
    return;
  }
  for (let i = start; i < end; i += 4) {
    const v = fadePixel(src[i]!, src[i + 1]!, src[i + 2]!, src[i + 3]!);
    out[i] = v;
    out[i + 1] = v;
    out[i + 2] = v;
    out[i + 3] = 255;
  }
}

/** Row ranges [start, end) that differ, merged when close, widened by MARGIN. */
function changedBands(a: Buffer, b: Buffer, width: number, height: number): Array<[number, number]> {
  const rb = width * 4;
  const bands: Array<[number, number]> = [];
  let start = -1;
  let last = -1;
  for (let y = 0; y < height; y++) {
    const o = y * rb;
    if (a.compare(b, o, o + rb, o, o + rb) !== 0) {
      if (start < 0) start = y;
      else if (y - last > 2 * MARGIN + 1) {
        bands.push([start, last + 1]);
        start = y;
      }
      last = y;
    }
  }
  if (start >= 0) bands.push([start, last + 1]);
  return bands.map(([s, e]) => [Math.max(0, s - MARGIN), Math.min(height, e + MARGIN)]);
}

/** Compares two equally sized images: changed pixels (noise and `ignore` left out) into `grid`, and the diff canvas. */
function compareSameSize(
  a: Buffer,
  b: Buffer,
  width: number,
  height: number,
  pixelThreshold: number,
  ignore: readonly Rect[],
  grid: ChangeGrid,
): { changed: number; noise: number; out: Buffer | null; bands: Array<[number, number]> } {
  const bands = changedBands(a, b, width, height);
  if (bands.length === 0) return { changed: 0, noise: 0, out: null, bands };
  const out = Buffer.allocUnsafe(width * height * 4);
  const rb = width * 4;
  const maxDelta = maxColorDelta(pixelThreshold);
  let changed = 0;
  let noise = 0;
  for (const [s, e] of bands) {
    const flagged = pixelmatch(a.subarray(s * rb, e * rb), b.subarray(s * rb, e * rb), out.subarray(s * rb, e * rb), width, e - s, {
      threshold: pixelThreshold,
      includeAA: false,
      alpha: FADE_ALPHA,
      diffColor: DIFF_COLOR,
      diffColorAlt: DIFF_COLOR_ALT,
      aaColor: AA_COLOR,
    });
    if (flagged === 0) continue;
    // Sort pixelmatch's verdicts (its diff colours in `out`) into noise, ignored and changed.
    for (let y = s; y < e; y++) {
      for (let x = 0, i = y * rb; x < width; x++, i += 4) {
        const r = out[i]!,
          g = out[i + 1]!,
          bl = out[i + 2]!;
        const isDiff = (r === 255 && g === 0 && bl === 0) || (r === 0 && g === 120 && bl === 255);
        if (!isDiff) continue;
        if (ignore.length && insideAny(ignore, x, y)) {
          const v = fadePixel(a[i]!, a[i + 1]!, a[i + 2]!, a[i + 3]!);
          out[i] = v;
          out[i + 1] = v;
          out[i + 2] = v;
          out[i + 3] = 255;
        } else if (isShiftNoise(a, b, x, y, width, height, maxDelta)) {
          noise++;
          out[i] = AA_COLOR[0];
          out[i + 1] = AA_COLOR[1];
          out[i + 2] = AA_COLOR[2];
        } else {
          changed++;
          grid.add(x, y);
        }
      }
    }
  }
  return { changed, noise, out, bands };
}

function crop(img: RawImage, width: number, height: number): Buffer {
  if (img.width === width) return img.data.subarray(0, width * height * 4);
  const out = Buffer.allocUnsafe(width * height * 4);
  for (let y = 0; y < height; y++) img.data.copy(out, y * width * 4, y * img.width * 4, y * img.width * 4 + width * 4);
  return out;
}

/** A comparison whose diff image and thumbnail (when a diff is detected) are still raw pixels. */
interface RawComparison {
  result: DiffResult;
  images?: { image: RawImage; thumbnail: RawImage };
}

export function compareImages(baseline: RawImage, current: RawImage, opts: DiffOptions): DiffResult {
  const { result, images } = compareRaw(baseline, current, opts);
  if (!images) return result;
  return { ...result, diffImage: encodePng(images.image), diffThumbnail: encodePng(images.thumbnail) };
}

/** compareImages with the diff image and thumbnail encoded on libuv's thread pool (libvips). */
export async function compareImagesAsync(baseline: RawImage, current: RawImage, opts: DiffOptions): Promise<DiffResult> {
  const { result, images } = compareRaw(baseline, current, opts);
  if (!images) return result;
  const [diffImage, diffThumbnail] = await Promise.all([encodePngAsync(images.image), encodePngAsync(images.thumbnail)]);
  return { ...result, diffImage, diffThumbnail };
}

function compareRaw(baseline: RawImage, current: RawImage, opts: DiffOptions): RawComparison {
  const width = Math.max(baseline.width, current.width);
  const height = Math.max(baseline.height, current.height);
  const sizeChanged = baseline.width !== current.width || baseline.height !== current.height;
  const total = width * height;
  const none: DiffResult = {
    width,
    height,
    changedPixels: 0,
    diffPercent: 0,
    sizeChanged,
    diffDetected: false,
    regions: [],
    regionCount: 0,
    noisePixels: 0,
    diffImage: null,
    diffThumbnail: null,
  };
  if (total === 0) return { result: none };
  const ignore = opts.ignore ?? [];
  const ow = Math.min(baseline.width, current.width);
  const oh = Math.min(baseline.height, current.height);
  const a = crop(baseline, ow, oh);
  const b = crop(current, ow, oh);
  const grid = new ChangeGrid(width, height);
  const { changed: inside, noise, out, bands } = compareSameSize(a, b, ow, oh, opts.pixelThreshold ?? 0.1, ignore, grid);
  // The area only one image covers: right of the overlap, then below it. A one-pixel strip that
  // continues the other image's edge is a fractional page size rounded the other way (noise).
  const maxDelta = maxColorDelta(opts.pixelThreshold ?? 0.1);
  const wider = baseline.width > current.width ? baseline : current;
  const taller = baseline.height > current.height ? baseline : current;
  const otherThan = (img: RawImage) => (img === current ? a : b);
  const right = edgeStrip(grid, wider, width - ow === 1 ? { data: otherThan(wider), width: ow, height: oh } : undefined, ow, 0, width, oh, ignore, maxDelta);
  const below = edgeStrip(
    grid,
    taller,
    height - oh === 1 ? { data: otherThan(taller), width: ow, height: oh } : undefined,
    0,
    oh,
    width,
    height,
    ignore,
    maxDelta,
  );
  const changed = inside + right.changed + below.changed;
  const noisePixels = noise + right.noise + below.noise;
  if (changed === 0) return { result: { ...none, noisePixels } };
  const diffPercent = (changed / total) * 100;
  const allRegions = grid.regions();
  const minRegionPx = opts.minRegionPx ?? Infinity;
  const diffDetected = diffPercent > opts.thresholdPercent || (allRegions[0]?.changedPixels ?? 0) > minRegionPx;
  const regions = allRegions.slice(0, MAX_REGIONS);
  const result: DiffResult = {
    width,
    height,
    changedPixels: changed,
    diffPercent,
    sizeChanged,
    diffDetected,
    regions,
    regionCount: allRegions.length,
    noisePixels,
    diffImage: null,
    diffThumbnail: null,
  };
  if (!diffDetected) return { result };
  // Overlap: pixelmatch output in the bands, faded baseline elsewhere.
  const overlap = out ?? Buffer.allocUnsafe(ow * oh * 4);
  let y = 0;
  for (const [s, e] of bands) {
    fadeRows(a, overlap, ow, y, s);
    y = e;
  }
  fadeRows(a, overlap, ow, y, oh);
  let canvas = overlap;
  if (sizeChanged) {
    // The area only one image covers is painted in the diff colour.
    canvas = Buffer.allocUnsafe(total * 4);
    for (let i = 0; i < total * 4; i += 4) {
      canvas[i] = DIFF_COLOR[0];
      canvas[i + 1] = DIFF_COLOR[1];
      canvas[i + 2] = DIFF_COLOR[2];
      canvas[i + 3] = 255;
    }
    for (let row = 0; row < oh; row++) overlap.copy(canvas, row * width * 4, row * ow * 4, (row + 1) * ow * 4);
  }
  const image: RawImage = { width, height, data: canvas };
  const scale = fitScale(width, height, THUMBNAIL_MAX_WIDTH, THUMBNAIL_MAX_HEIGHT);
  const small = downscale(image, scale);
  drawBoxes(image, regions, 2);
  drawBoxes(
    small,
    regions.map((r) => scaleRect(r, scale)),
    1,
  );
  return { result, images: { image, thumbnail: small } };
}

/**
 * Counts the area [x0, x1) x [y0, y1) that only `img` covers as changed. When `overlap` (the
 * other image cut to the common size) is given, the area is a one-pixel strip and its pixels
 * matching the overlap's nearest edge pixel are noise instead.
 */
function edgeStrip(
  grid: ChangeGrid,
  img: RawImage,
  overlap: RawImage | undefined,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  ignore: readonly Rect[],
  maxDelta: number,
): { changed: number; noise: number } {
  if (x0 >= x1 || y0 >= y1) return { changed: 0, noise: 0 };
  if (!overlap) return { changed: addArea(grid, x0, y0, x1, y1, ignore), noise: 0 };
  const { width: ow, height: oh } = overlap;
  let changed = 0;
  let noise = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (ignore.length && insideAny(ignore, x, y)) continue;
      const edge = (Math.min(y, oh - 1) * ow + Math.min(x, ow - 1)) * 4;
      if (colorDelta(img.data, (y * img.width + x) * 4, overlap.data, edge) <= maxDelta) noise++;
      else {
        changed++;
        grid.add(x, y);
      }
    }
  }
  return { changed, noise };
}

function scaleRect(r: Rect, scale: number): Rect {
  const x = Math.floor(r.x * scale);
  const y = Math.floor(r.y * scale);
  return { x, y, width: Math.max(1, Math.ceil((r.x + r.width) * scale) - x), height: Math.max(1, Math.ceil((r.y + r.height) * scale) - y) };
}

/** Decode, compare, and encode the diff: the whole cost of one visual comparison. */
export function comparePngs(baselinePng: Buffer, currentPng: Buffer, opts: DiffOptions): DiffResult {
  return identical(baselinePng, currentPng) ?? compareImages(decodePng(baselinePng), decodePng(currentPng), opts);
}

/** comparePngs with both images decoded in parallel and the diff encoded on the thread pool (what the engine uses). */
export async function comparePngsAsync(baselinePng: Buffer, currentPng: Buffer, opts: DiffOptions): Promise<DiffResult> {
  const same = identical(baselinePng, currentPng);
  if (same) return same;
  const [baseline, current] = await Promise.all([decodePngAsync(baselinePng), decodePngAsync(currentPng)]);
  return compareImagesAsync(baseline, current, opts);
}

function identical(baselinePng: Buffer, currentPng: Buffer): DiffResult | undefined {
  if (!baselinePng.equals(currentPng)) return undefined;
  const { width, height } = pngSize(currentPng);
  return {
    width,
    height,
    changedPixels: 0,
    diffPercent: 0,
    sizeChanged: false,
    diffDetected: false,
    regions: [],
    regionCount: 0,
    noisePixels: 0,
    diffImage: null,
    diffThumbnail: null,
  };
}
