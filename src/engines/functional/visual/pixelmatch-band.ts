/**
 * pixelmatch 7.2's comparison loop (anti-aliasing detection on, includeAA false, checkerboard blending),
 * copied so that its verdict on each pixel goes straight to the caller instead of through a drawn RGBA
 * image the caller reads back: on a text-rich full page that image and the second pass over it were a
 * third of the comparison's time. The arithmetic is pixelmatch's, line for line, and
 * test/engines/functional/diff.test.ts checks the verdicts against the pixelmatch package on the same
 * pixels. Copyright (c) 2025, Mapbox; ISC License (https://github.com/mapbox/pixelmatch/blob/main/LICENSE):
 * permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is
 * hereby granted, provided that the above copyright notice and this permission notice appear in all copies.
 */

/** Palette entries pixelmatchIndexed writes for the pixels it does not draw grey. */
export interface Marks {
  antialiased: number;
  /** Different, the second image's pixel not darker (pixelmatch's diffColor). */
  different: number;
  /** Different, the second image's pixel darker (pixelmatch's diffColorAlt). */
  darker: number;
}

/**
 * pixelmatch(img1, img2, output, width, height, { threshold, alpha, includeAA: false }) drawing into a
 * palette image: `out` gets, for each pixel, the grey pixelmatch draws (entry v for grey v; 216-255 for
 * alpha 0.15) or the entry in `marks`; the offsets of different pixels are pushed onto `different`.
 * Returns their number.
 */
export function pixelmatchIndexed(
  img1: Uint8Array,
  img2: Uint8Array,
  out: Uint8Array,
  width: number,
  height: number,
  threshold: number,
  alpha: number,
  marks: Marks,
  different: number[],
): number {
  const len = width * height;
  const a32 = new Uint32Array(img1.buffer, img1.byteOffset, len);
  const b32 = new Uint32Array(img2.buffer, img2.byteOffset, len);
  const maxDelta = 35215 * threshold * threshold;
  let diff = 0;
  // The last similar pixel's colour and grey: screenshots are mostly runs of one colour.
  let lastColour = -1;
  let lastGrey = 0;
  for (let i = 0, pos = 0; i < len; i++, pos += 4) {
    const w = a32[i]!;
    if (w === b32[i] && w === lastColour) {
      out[i] = lastGrey;
      continue;
    }
    const delta = w === b32[i] ? 0 : colorDelta(img1, img2, pos, pos);
    if (Math.abs(delta) > maxDelta) {
      const x = i % width;
      const y = (i / width) | 0;
      if (antialiased(img1, x, y, width, height, a32, b32) || antialiased(img2, x, y, width, height, b32, a32)) out[i] = marks.antialiased;
      else {
        out[i] = delta < 0 ? marks.darker : marks.different;
        different.push(i);
        diff++;
      }
    } else {
      // drawGrayPixel, stored as pixelmatch's Uint8 output stores it (truncated).
      lastGrey = (255 + ((img1[pos]! * 0.29889531 + img1[pos + 1]! * 0.58662247 + img1[pos + 2]! * 0.11448223 - 255) * alpha * img1[pos + 3]!) / 255) & 0xff;
      lastColour = w;
      out[i] = lastGrey;
    }
  }
  return diff;
}

function antialiased(img: Uint8Array, x1: number, y1: number, width: number, height: number, a32: Uint32Array, b32: Uint32Array): boolean {
  const x0 = Math.max(x1 - 1, 0);
  const y0 = Math.max(y1 - 1, 0);
  const x2 = Math.min(x1 + 1, width - 1);
  const y2 = Math.min(y1 + 1, height - 1);
  const pos4 = (y1 * width + x1) * 4;
  const cr = img[pos4]!;
  const cg = img[pos4 + 1]!;
  const cb = img[pos4 + 2]!;
  const ca = img[pos4 + 3]!;
  let zeroes = x1 === x0 || x1 === x2 || y1 === y0 || y1 === y2 ? 1 : 0;
  let min = 0;
  let max = 0;
  let minX = 0;
  let minY = 0;
  let maxX = 0;
  let maxY = 0;
  for (let x = x0; x <= x2; x++) {
    for (let y = y0; y <= y2; y++) {
      if (x === x1 && y === y1) continue;
      const delta = brightnessDelta(img, pos4, (y * width + x) * 4, cr, cg, cb, ca);
      if (delta === 0) {
        zeroes++;
        if (zeroes > 2) return false;
      } else if (delta < min) {
        min = delta;
        minX = x;
        minY = y;
      } else if (delta > max) {
        max = delta;
        maxX = x;
        maxY = y;
      }
    }
  }
  if (min === 0 || max === 0) return false;
  return (
    (hasManySiblings(a32, minX, minY, width, height) && hasManySiblings(b32, minX, minY, width, height)) ||
    (hasManySiblings(a32, maxX, maxY, width, height) && hasManySiblings(b32, maxX, maxY, width, height))
  );
}

function hasManySiblings(img: Uint32Array, x1: number, y1: number, width: number, height: number): boolean {
  const x0 = Math.max(x1 - 1, 0);
  const y0 = Math.max(y1 - 1, 0);
  const x2 = Math.min(x1 + 1, width - 1);
  const y2 = Math.min(y1 + 1, height - 1);
  const val = img[y1 * width + x1];
  let zeroes = x1 === x0 || x1 === x2 || y1 === y0 || y1 === y2 ? 1 : 0;
  for (let x = x0; x <= x2; x++) {
    for (let y = y0; y <= y2; y++) {
      if (x === x1 && y === y1) continue;
      zeroes += +(val === img[y * width + x]);
      if (zeroes > 2) return true;
    }
  }
  return false;
}

/** Checkerboard background of pixelmatch for a semi-transparent pixel at byte offset k. */
function background(k: number): [number, number, number] {
  return [48 + 159 * (k % 2), 48 + 159 * (((k / 1.618033988749895) | 0) % 2), 48 + 159 * (((k / 2.618033988749895) | 0) % 2)];
}

function colorDelta(img1: Uint8Array, img2: Uint8Array, k: number, m: number): number {
  const r1 = img1[k]!;
  const g1 = img1[k + 1]!;
  const b1 = img1[k + 2]!;
  const a1 = img1[k + 3]!;
  const r2 = img2[m]!;
  const g2 = img2[m + 1]!;
  const b2 = img2[m + 2]!;
  const a2 = img2[m + 3]!;
  let dr = r1 - r2;
  let dg = g1 - g2;
  let db = b1 - b2;
  const da = a1 - a2;
  if (a1 < 255 || a2 < 255) {
    const [rb, gb, bb] = background(k);
    dr = (r1 * a1 - r2 * a2 - rb * da) / 255;
    dg = (g1 * a1 - g2 * a2 - gb * da) / 255;
    db = (b1 * a1 - b2 * a2 - bb * da) / 255;
  }
  const y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
  const i = dr * 0.59597799 - dg * 0.2741761 - db * 0.32180189;
  const q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
  const delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
  return y > 0 ? -delta : delta;
}

function brightnessDelta(img: Uint8Array, k: number, m: number, r1: number, g1: number, b1: number, a1: number): number {
  const r2 = img[m]!;
  const g2 = img[m + 1]!;
  const b2 = img[m + 2]!;
  const a2 = img[m + 3]!;
  let dr = r1 - r2;
  let dg = g1 - g2;
  let db = b1 - b2;
  const da = a1 - a2;
  if (!dr && !dg && !db && !da) return 0;
  if (a1 < 255 || a2 < 255) {
    const [rb, gb, bb] = background(k);
    dr = (r1 * a1 - r2 * a2 - rb * da) / 255;
    dg = (g1 * a1 - g2 * a2 - gb * da) / 255;
    db = (b1 * a1 - b2 * a2 - bb * da) / 255;
  }
  return dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
}
