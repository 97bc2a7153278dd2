import { BOX_COLOR, downscale, drawBoxes, drawBoxesIndexed, fitScale } from './draw.js';
import { colorDelta, isShiftNoise, maxColorDelta } from './noise.js';
import { pixelmatchIndexed } from './pixelmatch-band.js';
import {
  decodePng,
  decodePngAsync,
  encodeIndexedPng,
  encodeIndexedPngAsync,
  encodePng,
  encodePngAsync,
  type IndexedImage,
  pngSize,
  type RawImage,
} from './png.js';
import { addArea, ChangeGrid, insideAny, type Rect, type Region } from './regions.js';

/**
 * Image comparison for visual regression: pixelmatch 7 (anti-aliasing detection on; its loop copied in
 * pixelmatch-band.ts to draw palette indices) with Vigil's noise
 * and region rules, over libvips (sharp) for PNG decode and encode on the asynchronous path the engine
 * uses. The codec is libvips because decoding and encoding were most of the time on text-rich full
 * pages; the comparison stays here because its rules (text-rendering noise, ignore rectangles, regions,
 * the size-change strip) are what decide whether a page changed, and no codec library has them. Measured
 * beside odiff and pixelmatch + pngjs in bench/image-diff.bench.ts (3000x10000, text on every row).
 *
 * Speed-ups that do not change the result: identical rows are found with memcmp and skipped;
 * pixelmatch only runs on bands of changed rows (plus a 2-row margin so its anti-aliasing
 * detection sees the same neighbourhood), drawing the band's part of the diff image directly. The diff image is a
 * palette image (one byte a pixel): every pixel of it is one of the 40 greys of the faded
 * background (216-255) or one of four marking colours, so nothing is lost, and there is a quarter
 * of the bytes to write and to deflate. The faded background is drawn through a lookup table
 * indexed by colour.
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

/**
 * The diff image's palette: entry v is the grey (v, v, v), which the faded background uses as is (its
 * greys are 216-255), except the first four, the marking colours.
 */
const DIFF_INDEX = 0;
const DIFF_ALT_INDEX = 1;
const AA_INDEX = 2;
const BOX_INDEX = 3;
const PALETTE = (() => {
  const p = Buffer.alloc(256 * 3);
  for (let v = 0; v < 256; v++) p.fill(v, v * 3, v * 3 + 3);
  for (const [i, c] of [DIFF_COLOR, DIFF_COLOR_ALT, AA_COLOR, BOX_COLOR].entries()) p.set(c, i * 3);
  return p;
})();

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

/**
 * Faded greys of pixels [from, to) of `src` (`s32`: the same pixels a word each) into `out` from `at`, one byte a pixel. Opaque colours go through
 * `cache` (faded grey by 24-bit colour, 0 for not yet computed: every faded grey is over 215).
 */
function fadeInto(src: Buffer, s32: Uint32Array | undefined, from: number, to: number, out: Buffer, at: number, cache: Uint8Array): void {
  if (s32) {
    for (let i = from, o = at; i < to; i++, o++) {
      const w = s32[i]!;
      if (w >>> 24 === 255) {
        const c = w & 0xffffff;
        let v = cache[c]!;
        if (v === 0) v = cache[c] = FADE_LUT[Math.min(255, (LUMA_R[c & 0xff]! + LUMA_G[(c >>> 8) & 0xff]! + LUMA_B[c >>> 16]!) >>> 16)]!;
        out[o] = v;
      } else out[o] = fadePixel(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);
    }
    return;
  }
  for (let i = from * 4, o = at; i < to * 4; i += 4, o++) out[o] = fadePixel(src[i]!, src[i + 1]!, src[i + 2]!, src[i + 3]!);
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

/** A band of changed rows [start, end) and its part of the diff image (palette indices, the band's width). */
interface Band {
  start: number;
  end: number;
  indices: Buffer;
}

/** Compares two equally sized images: changed pixels (noise and `ignore` left out) into `grid`, and the diff image of each band. */
function compareSameSize(
  a: Buffer,
  b: Buffer,
  width: number,
  height: number,
  pixelThreshold: number,
  ignore: readonly Rect[],
  grid: ChangeGrid,
): { changed: number; noise: number; bands: Band[] } {
  const rb = width * 4;
  const maxDelta = maxColorDelta(pixelThreshold);
  let changed = 0;
  let noise = 0;
  const bands: Band[] = [];
  const marks = { antialiased: AA_INDEX, different: DIFF_INDEX, darker: DIFF_ALT_INDEX };
  const different: number[] = [];
  for (const [s, e] of changedBands(a, b, width, height)) {
    // pixelmatch's verdicts drawn as palette indices: greys (faded, unchanged), anti-aliasing, different;
    // the different pixels are then sorted into ignored, noise and changed.
    const indices = Buffer.allocUnsafe((e - s) * width);
    different.length = 0;
    pixelmatchIndexed(a.subarray(s * rb, e * rb), b.subarray(s * rb, e * rb), indices, width, e - s, pixelThreshold, FADE_ALPHA, marks, different);
    for (const k of different) {
      const x = k % width;
      const y = s + (k - x) / width;
      if (ignore.length && insideAny(ignore, x, y)) {
        const j = (y * width + x) * 4;
        indices[k] = fadePixel(a[j]!, a[j + 1]!, a[j + 2]!, a[j + 3]!);
      } else if (isShiftNoise(a, b, x, y, width, height, maxDelta)) {
        noise++;
        indices[k] = AA_INDEX;
      } else {
        changed++;
        grid.add(x, y);
      }
    }
    bands.push({ start: s, end: e, indices });
  }
  return { changed, noise, bands };
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
  images?: { image: IndexedImage; thumbnail: RawImage };
}

export function compareImages(baseline: RawImage, current: RawImage, opts: DiffOptions, scratch = false): DiffResult {
  const { result, images } = compareRaw(baseline, current, opts, scratch);
  if (!images) return result;
  return { ...result, diffImage: encodeIndexedPng(images.image), diffThumbnail: encodePng(images.thumbnail) };
}

/** compareImages with the diff image and thumbnail encoded on libuv's thread pool (libvips). */
export async function compareImagesAsync(baseline: RawImage, current: RawImage, opts: DiffOptions, scratch = false): Promise<DiffResult> {
  const { result, images } = compareRaw(baseline, current, opts, scratch);
  if (!images) return result;
  const [diffImage, diffThumbnail] = await Promise.all([encodeIndexedPngAsync(images.image), encodePngAsync(images.thumbnail)]);
  return { ...result, diffImage, diffThumbnail };
}

/**
 * `scratch`: the baseline's pixels are the caller's to lose (decoded for this comparison only); the diff
 * image is then drawn over them, a byte a pixel from the start, which spares a fresh buffer of a quarter of
 * the image (page faults that cost as much as drawing it).
 */
function compareRaw(baseline: RawImage, current: RawImage, opts: DiffOptions, scratch: boolean): RawComparison {
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
  const { changed: inside, noise, bands } = compareSameSize(a, b, ow, oh, opts.pixelThreshold ?? 0.1, ignore, grid);
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
  // Overlap: the bands' pixelmatch output, the faded baseline elsewhere; the area only one image
  // covers is painted in the diff colour. Drawn in place over the baseline, row after row: row r's indices go to bytes [r * width, (r + 1) *
  // width), which only hold pixels of rows before r (four bytes a pixel), all read by then.
  const inPlace = scratch && !sizeChanged;
  const canvas = inPlace ? a.subarray(0, total) : Buffer.allocUnsafe(total);
  if (sizeChanged) canvas.fill(DIFF_INDEX);
  const cache = new Uint8Array(1 << 24);
  // A word per pixel (r, g, b, a as a little-endian machine reads them), when the buffer is aligned.
  const a32 = LITTLE_ENDIAN && a.byteOffset % 4 === 0 ? new Uint32Array(a.buffer, a.byteOffset, ow * oh) : undefined;
  const rb = ow * 4;
  const faded = (y0: number, y1: number) => {
    for (let row = y0; row < y1; row++) {
      // A row like the one above (most rows of a page: margins, gaps between lines, flat boxes) is a copy.
      // In place, row 0's pixels are partly overwritten by then (by its own indices): row 1 is drawn.
      if (row > y0 && (!inPlace || row > 1) && a.compare(a, row * rb, row * rb + rb, row * rb - rb, row * rb) === 0)
        canvas.copyWithin(row * width, row * width - width, row * width - width + ow);
      else fadeInto(a, a32, row * ow, (row + 1) * ow, canvas, row * width, cache);
    }
  };
  let y = 0;
  for (const { start, end, indices } of bands) {
    faded(y, start);
    if (width === ow) indices.copy(canvas, start * width);
    else for (let row = start; row < end; row++) indices.copy(canvas, row * width, (row - start) * ow, (row - start + 1) * ow);
    y = end;
  }
  faded(y, oh);
  const image: IndexedImage = { width, height, data: canvas, palette: PALETTE };
  const scale = fitScale(width, height, THUMBNAIL_MAX_WIDTH, THUMBNAIL_MAX_HEIGHT);
  const small = downscale(image, scale);
  drawBoxesIndexed(image, regions, 2, BOX_INDEX);
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
  return identical(baselinePng, currentPng) ?? compareImages(decodePng(baselinePng), decodePng(currentPng), opts, true);
}

/** comparePngs with both images decoded in parallel and the diff encoded on the thread pool (what the engine uses). */
export async function comparePngsAsync(baselinePng: Buffer, currentPng: Buffer, opts: DiffOptions): Promise<DiffResult> {
  const same = identical(baselinePng, currentPng);
  if (same) return same;
  const [baseline, current] = await Promise.all([decodePngAsync(baselinePng), decodePngAsync(currentPng)]);
  return compareImagesAsync(baseline, current, opts, true);
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
