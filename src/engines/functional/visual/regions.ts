/**
 * Changed pixels grouped into regions: the image is cut into CELL x CELL cells, each cell counts
 * its changed pixels and their bounding box, and cells touching (8-neighbours) form one region.
 * Changes up to about one cell apart (the letters and words of a line of text) end up in one
 * region. Linear in the number of cells (a 1280x10000 page is 200 000 cells), whatever the
 * number of changed pixels.
 */

export const CELL = 8;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Region extends Rect {
  /** Changed pixels inside the region. */
  changedPixels: number;
}

/** Per-cell counts and bounding boxes of changed pixels, filled by add(). */
export class ChangeGrid {
  readonly cols: number;
  readonly rows: number;
  private readonly count: Uint32Array;
  private readonly minX: Int32Array;
  private readonly minY: Int32Array;
  private readonly maxX: Int32Array;
  private readonly maxY: Int32Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.cols = Math.ceil(width / CELL);
    this.rows = Math.ceil(height / CELL);
    const n = this.cols * this.rows;
    this.count = new Uint32Array(n);
    this.minX = new Int32Array(n);
    this.minY = new Int32Array(n);
    this.maxX = new Int32Array(n);
    this.maxY = new Int32Array(n);
  }

  /** One changed pixel. */
  add(x: number, y: number): void {
    this.addRect(x, y, 1, 1);
  }

  /** A changed rectangle lying inside one cell (every pixel of it changed). */
  addRect(x: number, y: number, w: number, h: number): void {
    const c = ((y / CELL) | 0) * this.cols + ((x / CELL) | 0);
    if (this.count[c] === 0) {
      this.minX[c] = x;
      this.minY[c] = y;
      this.maxX[c] = x + w - 1;
      this.maxY[c] = y + h - 1;
    } else {
      if (x < this.minX[c]!) this.minX[c] = x;
      if (y < this.minY[c]!) this.minY[c] = y;
      if (x + w - 1 > this.maxX[c]!) this.maxX[c] = x + w - 1;
      if (y + h - 1 > this.maxY[c]!) this.maxY[c] = y + h - 1;
    }
    this.count[c] += w * h;
  }

  /** Connected groups of changed cells, largest (most changed pixels) first. */
  regions(): Region[] {
    const { cols, rows, count } = this;
    const seen = new Uint8Array(count.length);
    const stack: number[] = [];
    const out: Region[] = [];
    for (let start = 0; start < count.length; start++) {
      if (count[start] === 0 || seen[start]) continue;
      let changed = 0;
      let x0 = Infinity,
        y0 = Infinity,
        x1 = -1,
        y1 = -1;
      seen[start] = 1;
      stack.push(start);
      while (stack.length) {
        const c = stack.pop()!;
        changed += count[c]!;
        if (this.minX[c]! < x0) x0 = this.minX[c]!;
        if (this.minY[c]! < y0) y0 = this.minY[c]!;
        if (this.maxX[c]! > x1) x1 = this.maxX[c]!;
        if (this.maxY[c]! > y1) y1 = this.maxY[c]!;
        const cx = c % cols;
        const cy = (c - cx) / cols;
        for (let dy = -1; dy <= 1; dy++) {
          const ny = cy + dy;
          if (ny < 0 || ny >= rows) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const nx = cx + dx;
            if (nx < 0 || nx >= cols) continue;
            const n = ny * cols + nx;
            if (count[n] !== 0 && !seen[n]) {
              seen[n] = 1;
              stack.push(n);
            }
          }
        }
      }
      out.push({ x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1, changedPixels: changed });
    }
    return out.sort((p, q) => q.changedPixels - p.changedPixels || p.y - q.y || p.x - q.x);
  }
}

/** Whether (x, y) lies in one of the rectangles. */
export function insideAny(rects: readonly Rect[], x: number, y: number): boolean {
  for (const r of rects) if (x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height) return true;
  return false;
}

/** Counts every pixel of the rectangle [x0, x1) x [y0, y1) as changed, except those in `ignore`. */
export function addArea(grid: ChangeGrid, x0: number, y0: number, x1: number, y1: number, ignore: readonly Rect[]): number {
  let added = 0;
  for (let cy = Math.floor(y0 / CELL) * CELL; cy < y1; cy += CELL) {
    for (let cx = Math.floor(x0 / CELL) * CELL; cx < x1; cx += CELL) {
      const ax = Math.max(cx, x0),
        ay = Math.max(cy, y0);
      const bx = Math.min(cx + CELL, x1),
        by = Math.min(cy + CELL, y1);
      if (ax >= bx || ay >= by) continue;
      const touched = ignore.some((r) => r.x < bx && r.x + r.width > ax && r.y < by && r.y + r.height > ay);
      if (!touched) {
        grid.addRect(ax, ay, bx - ax, by - ay);
        added += (bx - ax) * (by - ay);
        continue;
      }
      for (let y = ay; y < by; y++)
        for (let x = ax; x < bx; x++)
          if (!insideAny(ignore, x, y)) {
            grid.add(x, y);
            added++;
          }
    }
  }
  return added;
}
