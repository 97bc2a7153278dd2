/** Marking regions on a diff image and shrinking it to a thumbnail. */
import type { IndexedImage, RawImage } from './png.js';
import type { Rect } from './regions.js';

/** Box outline colour: magenta, apart from the red and blue of changed pixels and the yellow of noise. */
export const BOX_COLOR: [number, number, number] = [255, 0, 255];

/** Draws each rectangle's outline, `thickness` pixels wide just outside it (clipped to the image). */
export function drawBoxes(img: RawImage, rects: readonly Rect[], thickness: number, color = BOX_COLOR): void {
  const { width, data } = img;
  forEachBoxEdge(img, rects, thickness, (x0, y0, x1, y1) => {
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const i = (y * width + x) * 4;
        data[i] = color[0];
        data[i + 1] = color[1];
        data[i + 2] = color[2];
        data[i + 3] = 255;
      }
    }
  });
}

/** drawBoxes on a palette image: the outlines get palette entry `index`. */
export function drawBoxesIndexed(img: IndexedImage, rects: readonly Rect[], thickness: number, index: number): void {
  const { width, data } = img;
  forEachBoxEdge(img, rects, thickness, (x0, y0, x1, y1) => {
    for (let y = y0; y < y1; y++) data.fill(index, y * width + x0, y * width + x1);
  });
}

/** The four edges of each rectangle's outline, `thickness` wide just outside it, clipped to the image. */
function forEachBoxEdge(
  img: { width: number; height: number },
  rects: readonly Rect[],
  thickness: number,
  fill: (x0: number, y0: number, x1: number, y1: number) => void,
): void {
  const { width, height } = img;
  const clipped = (x0: number, y0: number, x1: number, y1: number) => {
    x0 = Math.max(0, x0);
    y0 = Math.max(0, y0);
    x1 = Math.min(width, x1);
    y1 = Math.min(height, y1);
    if (x0 < x1 && y0 < y1) fill(x0, y0, x1, y1);
  };
  for (const r of rects) {
    const x0 = r.x - thickness,
      y0 = r.y - thickness;
    const x1 = r.x + r.width + thickness,
      y1 = r.y + r.height + thickness;
    clipped(x0, y0, x1, r.y); // top
    clipped(x0, r.y + r.height, x1, y1); // bottom
    clipped(x0, r.y, r.x, r.y + r.height); // left
    clipped(r.x + r.width, r.y, x1, r.y + r.height); // right
  }
}

/** Scale factor that fits an image into maxWidth x maxHeight (never enlarges). */
export function fitScale(width: number, height: number, maxWidth: number, maxHeight: number): number {
  return Math.min(1, maxWidth / width, maxHeight / height);
}

/**
 * Area-average downscale by `scale` (<= 1); the result is opaque. Above a 4:1 reduction only every
 * `step`-th row and column is read (each output pixel still averages at least 2x2 samples of its area).
 */
export function downscale(img: RawImage | IndexedImage, scale: number): RawImage {
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const out = Buffer.alloc(w * h * 4);
  // Integer sums per output column; a source column maps to one output column.
  const sumR = new Uint32Array(w),
    sumG = new Uint32Array(w),
    sumB = new Uint32Array(w);
  const step = Math.max(1, Math.floor(1 / scale / 2));
  const colOf = new Int32Array(img.width);
  for (let x = 0; x < img.width; x++) colOf[x] = Math.min(w - 1, Math.floor((x * w) / img.width));
  const colCount = new Uint32Array(w);
  for (let x = 0; x < img.width; x += step) colCount[colOf[x]!]++;
  const src = img.data;
  const palette = 'palette' in img ? img.palette : undefined;
  let greyFrom = 256;
  while (
    palette &&
    greyFrom > 0 &&
    palette[greyFrom * 3 - 3] === greyFrom - 1 &&
    palette[greyFrom * 3 - 2] === greyFrom - 1 &&
    palette[greyFrom * 3 - 1] === greyFrom - 1
  )
    greyFrom--;
  const sumV = new Uint32Array(w);
  // colOf never decreases: the sampled columns of output column ox end before colEnd[ox].
  const colEnd = new Int32Array(w).fill(img.width);
  for (let x = 0; x < img.width; x += step) if (colOf[x]! > 0) colEnd[colOf[x]! - 1] = Math.min(colEnd[colOf[x]! - 1]!, x);
  for (let ox = w - 2; ox >= 0; ox--) colEnd[ox] = Math.min(colEnd[ox]!, colEnd[ox + 1]!);
  let sy = 0;
  for (let oy = 0; oy < h; oy++) {
    const syEnd = oy === h - 1 ? img.height : Math.floor(((oy + 1) * img.height) / h);
    sumR.fill(0);
    sumG.fill(0);
    sumB.fill(0);
    sumV.fill(0);
    let rowsHere = 0;
    for (let y = sy; y < syEnd; y += step, rowsHere++) {
      if (palette) {
        // Entries from `greyFrom` up are greys (v, v, v): one sum for them, kept in a local per output
        // column, and the three sums for the rest.
        for (let ox = 0, x = 0, base = y * img.width; ox < w; ox++) {
          let grey = 0;
          for (const end = colEnd[ox]!; x < end; x += step) {
            const v = src[base + x]!;
            if (v >= greyFrom) grey += v;
            else {
              sumR[ox] += palette[v * 3]!;
              sumG[ox] += palette[v * 3 + 1]!;
              sumB[ox] += palette[v * 3 + 2]!;
            }
          }
          sumV[ox] += grey;
        }
        continue;
      }
      let i = y * img.width * 4;
      for (let x = 0; x < img.width; x += step, i += 4 * step) {
        const c = colOf[x]!;
        sumR[c] += src[i]!;
        sumG[c] += src[i + 1]!;
        sumB[c] += src[i + 2]!;
      }
    }
    for (let ox = 0, o = oy * w * 4; ox < w; ox++, o += 4) {
      const n = rowsHere * colCount[ox]! || 1;
      out[o] = Math.round((sumR[ox]! + sumV[ox]!) / n);
      out[o + 1] = Math.round((sumG[ox]! + sumV[ox]!) / n);
      out[o + 2] = Math.round((sumB[ox]! + sumV[ox]!) / n);
      out[o + 3] = 255;
    }
    sy = syEnd;
  }
  return { width: w, height: h, data: out };
}
