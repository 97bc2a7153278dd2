/** Marking regions on a diff image and shrinking it to a thumbnail. */
import type { RawImage } from './png.js';
import type { Rect } from './regions.js';

/** Box outline colour: magenta, apart from the red and blue of changed pixels and the yellow of noise. */
export const BOX_COLOR: [number, number, number] = [255, 0, 255];

/** Draws each rectangle's outline, `thickness` pixels wide just outside it (clipped to the image). */
export function drawBoxes(img: RawImage, rects: readonly Rect[], thickness: number, color = BOX_COLOR): void {
  const { width, height, data } = img;
  const fill = (x0: number, y0: number, x1: number, y1: number) => {
    x0 = Math.max(0, x0);
    y0 = Math.max(0, y0);
    x1 = Math.min(width, x1);
    y1 = Math.min(height, y1);
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const i = (y * width + x) * 4;
        data[i] = color[0];
        data[i + 1] = color[1];
        data[i + 2] = color[2];
        data[i + 3] = 255;
      }
    }
  };
  for (const r of rects) {
    const x0 = r.x - thickness,
      y0 = r.y - thickness;
    const x1 = r.x + r.width + thickness,
      y1 = r.y + r.height + thickness;
    fill(x0, y0, x1, r.y); // top
    fill(x0, r.y + r.height, x1, y1); // bottom
    fill(x0, r.y, r.x, r.y + r.height); // left
    fill(r.x + r.width, r.y, x1, r.y + r.height); // right
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
export function downscale(img: RawImage, scale: number): RawImage {
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
  let sy = 0;
  for (let oy = 0; oy < h; oy++) {
    const syEnd = oy === h - 1 ? img.height : Math.floor(((oy + 1) * img.height) / h);
    sumR.fill(0);
    sumG.fill(0);
    sumB.fill(0);
    let rowsHere = 0;
    for (let y = sy; y < syEnd; y += step, rowsHere++) {
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
      out[o] = Math.round(sumR[ox]! / n);
      out[o + 1] = Math.round(sumG[ox]! / n);
      out[o + 2] = Math.round(sumB[ox]! / n);
      out[o + 3] = 255;
    }
    sy = syEnd;
  }
  return { width: w, height: h, data: out };
}
