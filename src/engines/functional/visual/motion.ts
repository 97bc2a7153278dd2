/**
 * Areas of a page that keep changing between screenshots (a carousel, a ticker, a video), and the
 * element to mask for each (its CSS selector, for `options.mask`).
 */
import type { Page } from 'playwright-core';
import { comparePngs, type Rect } from './diff.js';

export interface MovingArea extends Rect {
  /** A CSS selector of the smallest element covering the area, or null if none was found. */
  selector: string | null;
}

/** Areas where two screenshots differ (text-rendering noise left out; none: the same page). */
export function changedAreas(before: Buffer, after: Buffer): Rect[] {
  return comparePngs(before, after, { thresholdPercent: 100 }).regions.map(({ x, y, width, height }) => ({ x, y, width, height }));
}

/** Joins overlapping or touching rectangles until none overlap. */
export function mergeRects(rects: readonly Rect[], gap = 8): Rect[] {
  const out = rects.map((r) => ({ ...r }));
  for (let merged = true; merged; ) {
    merged = false;
    for (let i = 0; i < out.length && !merged; i++) {
      for (let j = i + 1; j < out.length; j++) {
        const p = out[i]!,
          q = out[j]!;
        if (p.x - gap < q.x + q.width && q.x - gap < p.x + p.width && p.y - gap < q.y + q.height && q.y - gap < p.y + p.height) {
          const x = Math.min(p.x, q.x),
            y = Math.min(p.y, q.y);
          out[i] = { x, y, width: Math.max(p.x + p.width, q.x + q.width) - x, height: Math.max(p.y + p.height, q.y + q.height) - y };
          out.splice(j, 1);
          merged = true;
          break;
        }
      }
    }
  }
  return out;
}

/** Whether two rectangles share at least one pixel. */
export function intersects(p: Rect, q: Rect): boolean {
  return p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height;
}

/** Runs in the page: for each page-coordinate rectangle, a selector of the smallest element covering it. */
const SELECTORS = `(rects) => {
  const sx = window.scrollX, sy = window.scrollY;
  const all = Array.from(document.body ? document.body.querySelectorAll('*') : []).slice(0, 20000);
  const boxes = all.map((el) => { const b = el.getBoundingClientRect(); return { el, x: b.left + sx, y: b.top + sy, w: b.width, h: b.height }; });
  const esc = (s) => (window.CSS && CSS.escape ? CSS.escape(s) : s);
  const selectorOf = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
      if (e.id) { parts.unshift('#' + esc(e.id)); break; }
      let part = e.tagName.toLowerCase();
      const cls = Array.from(e.classList).filter((c) => /^[A-Za-z_-][\\w-]*$/.test(c)).slice(0, 2);
      if (cls.length) part += '.' + cls.join('.');
      const parent = e.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.tagName === e.tagName && (!cls.length || cls.every((k) => c.classList.contains(k))));
        if (same.length > 1) part += ':nth-of-type(' + (Array.from(parent.children).filter((c) => c.tagName === e.tagName).indexOf(e) + 1) + ')';
      }
      parts.unshift(part);
      if (e === document.body || parts.length >= 4) break;
    }
    return parts.join(' > ');
  };
  return rects.map((r) => {
    let best = null;
    for (const b of boxes) {
      if (b.w * b.h <= 0) continue;
      if (b.x <= r.x + 2 && b.y <= r.y + 2 && b.x + b.w >= r.x + r.width - 2 && b.y + b.h >= r.y + r.height - 2) {
        if (!best || b.w * b.h < best.w * best.h) best = b;
      }
    }
    if (!best || best.el === document.body) return null;
    // The element the animation lives in: a child that is only a frame of it (one slide, one digit) keeps changing identity.
    return selectorOf(best.el);
  });
}`;

/** Each area with the selector of the element covering it (read in the page as it is now). */
export async function withSelectors(page: Page, areas: readonly Rect[]): Promise<MovingArea[]> {
  if (areas.length === 0) return [];
  const selectors = (await page.evaluate(`(${SELECTORS})(${JSON.stringify(areas)})`).catch(() => [])) as Array<string | null>;
  return areas.map((a, i) => ({ x: a.x, y: a.y, width: a.width, height: a.height, selector: selectors[i] ?? null }));
}

/**
 * Screenshots `shots` more times, `intervalMs` apart, and returns the areas that changed between
 * any two consecutive ones (starting from `last`), merged, with their selectors.
 */
export async function watchForMotion(
  page: Page,
  last: Buffer,
  shoot: () => Promise<Buffer>,
  opts: { shots: number; intervalMs: number; until?: (moving: Rect[]) => boolean },
): Promise<MovingArea[]> {
  let moving: Rect[] = [];
  let prev = last;
  for (let i = 0; i < opts.shots; i++) {
    await page.waitForTimeout(opts.intervalMs);
    const next = await shoot();
    moving = mergeRects([...moving, ...changedAreas(prev, next)]);
    prev = next;
    if (opts.until?.(moving)) break;
  }
  return withSelectors(page, moving);
}

/** The hint a page with moving areas gets. */
export function maskHint(areas: readonly MovingArea[]): string {
  const selectors = [...new Set(areas.map((a) => a.selector).filter((s): s is string => !!s))];
  const where = areas
    .map((a) => `${a.width}x${a.height} at ${a.x},${a.y}`)
    .slice(0, 3)
    .join('; ');
  return selectors.length
    ? `content keeps changing between screenshots (${where}); mask it with options.mask: ${JSON.stringify(selectors.slice(0, 5))}`
    : `content keeps changing between screenshots (${where}); mask it with options.mask (a selector) or options.ignore_regions`;
}
