/**
 * Text-rendering noise: a pixel pixelmatch flags (colour distance over its threshold, not
 * anti-aliased) is still noise when each image's colour at that pixel can be made from the other
 * image's colours within one pixel: the same colour (text moved by one pixel), or a blend of the
 * pixel's colour and a neighbour's (glyph edges rasterised at another sub-pixel offset or with
 * other smoothing). A recoloured or reworded word has pixels whose new colour is no such blend (a
 * pink letter is not a mix of black ink and white paper), so its pixels stay changed.
 */

/** pixelmatch's maximum YIQ distance for a per-pixel threshold (0..1). */
export function maxColorDelta(pixelThreshold: number): number {
  return 35215 * pixelThreshold * pixelThreshold;
}

/** pixelmatch's YIQ colour distance (squared, unsigned) between pixel i of `a` and pixel j of `b`; alpha over white. */
export function colorDelta(a: Buffer, i: number, b: Buffer, j: number): number {
  let r1 = a[i]!,
    g1 = a[i + 1]!,
    b1 = a[i + 2]!;
  let r2 = b[j]!,
    g2 = b[j + 1]!,
    b2 = b[j + 2]!;
  const a1 = a[i + 3]!,
    a2 = b[j + 3]!;
  if (r1 === r2 && g1 === g2 && b1 === b2 && a1 === a2) return 0;
  if (a1 < 255) {
    r1 = 255 + ((r1 - 255) * a1) / 255;
    g1 = 255 + ((g1 - 255) * a1) / 255;
    b1 = 255 + ((b1 - 255) * a1) / 255;
  }
  if (a2 < 255) {
    r2 = 255 + ((r2 - 255) * a2) / 255;
    g2 = 255 + ((g2 - 255) * a2) / 255;
    b2 = 255 + ((b2 - 255) * a2) / 255;
  }
  return yiqDelta(r1 - r2, g1 - g2, b1 - b2);
}

/** pixelmatch's weighting of an RGB difference in YIQ space. */
function yiqDelta(dr: number, dg: number, db: number): number {
  const y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
  const iq = dr * 0.59597799 - dg * 0.2741761 - db * 0.32180189;
  const q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
  return 0.5053 * y * y + 0.299 * iq * iq + 0.1957 * q * q;
}

/** The Y (brightness) of YIQ, as pixelmatch weighs it. */
function luma(img: Buffer, i: number): number {
  return img[i]! * 0.29889531 + img[i + 1]! * 0.58662247 + img[i + 2]! * 0.11448223;
}

/** YIQ distance between colour (r, g, b) and the closest point of the segment from pixel i to pixel j of `img` (opaque colours). */
function segmentDelta(r: number, g: number, b: number, img: Buffer, i: number, j: number): number {
  const r1 = img[i]!,
    g1 = img[i + 1]!,
    b1 = img[i + 2]!;
  const dr = img[j]! - r1,
    dg = img[j + 1]! - g1,
    db = img[j + 2]! - b1;
  const len = dr * dr + dg * dg + db * db;
  let t = len === 0 ? 0 : ((r - r1) * dr + (g - g1) * dg + (b - b1) * db) / len;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  return yiqDelta(r - (r1 + t * dr), g - (g1 + t * dg), b - (b1 + t * db));
}

/**
 * Whether pixel (x, y) of `from` matches, within maxDelta, a colour of the 3x3 neighbourhood of
 * (x, y) in `to`, or a blend of `to`'s pixel there with one of its neighbours.
 */
function foundNearby(from: Buffer, to: Buffer, x: number, y: number, width: number, height: number, maxDelta: number): boolean {
  const i = (y * width + x) * 4;
  const y0 = y > 0 ? y - 1 : 0;
  const y1 = y < height - 1 ? y + 1 : y;
  const x0 = x > 0 ? x - 1 : 0;
  const x1 = x < width - 1 ? x + 1 : x;
  let minY = 255;
  let maxY = 0;
  for (let ny = y0; ny <= y1; ny++) {
    for (let nx = x0; nx <= x1; nx++) {
      const j = (ny * width + nx) * 4;
      if (colorDelta(from, i, to, j) <= maxDelta) return true;
      const l = luma(to, j);
      if (l < minY) minY = l;
      if (l > maxY) maxY = l;
    }
  }
  if (from[i + 3] !== 255 || to[i + 3] !== 255) return false;
  // A blend's brightness lies between its ends': too dark or too bright for every blend, no need to try them.
  const l = luma(from, i);
  const reach = Math.sqrt(maxDelta / 0.5053);
  if (l < minY - reach || l > maxY + reach) return false;
  const r = from[i]!,
    g = from[i + 1]!,
    b = from[i + 2]!;
  for (let ny = y0; ny <= y1; ny++) {
    for (let nx = x0; nx <= x1; nx++) {
      const j = (ny * width + nx) * 4;
      if (j !== i && to[j + 3] === 255 && segmentDelta(r, g, b, to, i, j) <= maxDelta) return true;
    }
  }
  return false;
}

/** True when the change at (x, y) between two equally sized images is a shift of at most one pixel. */
export function isShiftNoise(a: Buffer, b: Buffer, x: number, y: number, width: number, height: number, maxDelta: number): boolean {
  return foundNearby(b, a, x, y, width, height, maxDelta) && foundNearby(a, b, x, y, width, height, maxDelta);
}
