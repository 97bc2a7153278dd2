/**
 * The visual verdict on one page, once its baseline is known: the thresholds that apply to it, the
 * comparison (regions, noise left out), the areas that keep moving (not a diff: reported as
 * unstable with the element to mask), and the diff image and thumbnail to store.
 */
import type { Page } from 'playwright-core';
import type { MovingRegion, ScanOptions, VisualLayoutMove, VisualPage, VisualRegion, VisualTextChange } from '../../../domain/scan.js';
import type { Capture } from './capture.js';
import { comparePngsAsync, type DiffResult, type Rect } from './diff.js';
import { intersects, maskHint, watchForMotion } from './motion.js';
import { compareLayout } from './layout-moves.js';
import { compareText, describeTextChange, readTextSnapshot, stripTextSnapshot, type TextChange } from './text-snapshot.js';

export interface VisualThresholds {
  diffThresholdPercent: number;
  minRegionPx: number;
  ignore: Rect[];
}

/** More screenshots taken, INTERVAL_MS apart, to tell a diff from content that moves on its own. */
export const MOTION_SHOTS = 3;
export const MOTION_INTERVAL_MS = 800;

function pathAndQuery(url: string, base: string): string | undefined {
  try {
    const u = new URL(url, base);
    return u.pathname + u.search;
  } catch {
    return undefined;
  }
}

/** The scan's thresholds, with the page's own from its options.pages object (matched by path and query). */
export function visualThresholds(options: ScanOptions, pageUrl: string): VisualThresholds {
  const key = pathAndQuery(pageUrl, pageUrl);
  const own = options.page_thresholds?.find((p) => pathAndQuery(p.url, pageUrl) === key);
  return {
    diffThresholdPercent: own?.diff_threshold_percent ?? options.diff_threshold_percent,
    minRegionPx: own?.min_region_px ?? options.min_region_px,
    ignore: options.ignore_regions ?? [],
  };
}

/** The fields of a VisualPage this module decides. */
export type VisualFields = Pick<
  VisualPage,
  | 'diff_detected'
  | 'diff_percent'
  | 'diff_artifact'
  | 'diff_thumbnail_artifact'
  | 'diff_threshold_percent'
  | 'min_region_px'
  | 'regions'
  | 'region_count'
  | 'unstable'
  | 'moving_regions'
  | 'hint'
  | 'text_changes'
  | 'layout_moves'
>;

/** Text changes listed in a result at most (the first, in page order). */
export const MAX_TEXT_CHANGES = 50;

export interface VisualJudgement {
  fields: VisualFields;
  /** Why the page's visual task fails (a diff), if it does. */
  failure?: string;
  /** The unstable page's hint, to note on its task. */
  warning?: string;
}

const regionOf = (r: { x: number; y: number; width: number; height: number; changedPixels: number }): VisualRegion => ({
  x: r.x,
  y: r.y,
  width: r.width,
  height: r.height,
  changed_pixels: r.changedPixels,
});
const movingOf = (m: MovingRegion): MovingRegion => ({ x: m.x, y: m.y, width: m.width, height: m.height, selector: m.selector });

function unstableFields(moving: readonly MovingRegion[]): Pick<VisualFields, 'unstable' | 'moving_regions' | 'hint'> {
  return moving.length ? { unstable: true, moving_regions: moving.map(movingOf), hint: maskHint(moving) } : { unstable: false };
}

function failureOf(d: DiffResult, t: VisualThresholds, text: readonly TextChange[], moves: readonly VisualLayoutMove[]): string {
  if (text.length) {
    const more = text.length > 3 ? `; and ${text.length - 3} more text change(s)` : '';
    return `${text.slice(0, 3).map(describeTextChange).join('; ')}${more} (${d.diffPercent.toFixed(2)}% of pixels changed)`;
  }
  const top = d.regions[0];
  const largest = top ? `; largest region ${top.width}x${top.height} at ${top.x},${top.y} (${top.changedPixels} px changed)` : '';
  const why = d.diffPercent > t.diffThresholdPercent ? `over ${t.diffThresholdPercent}%` : `a region over ${t.minRegionPx} px`;
  const moved = moves.length
    ? `; layout: ${moves
        .slice(0, 2)
        .map((m) => m.description)
        .join('; ')}${moves.length > 2 ? `; and ${moves.length - 2} more move(s)` : ''}`
    : '';
  return `${d.diffPercent.toFixed(2)}% of pixels changed in ${d.regionCount} region(s), ${why}${largest}${moved}`;
}

/** A page just set as its baseline: nothing compared, but an unstable capture is still reported. */
export function baselineFields(capture: Capture, t: VisualThresholds): VisualJudgement {
  const fields: VisualFields = {
    diff_detected: false,
    diff_percent: 0,
    diff_artifact: null,
    diff_thumbnail_artifact: null,
    diff_threshold_percent: t.diffThresholdPercent,
    min_region_px: t.minRegionPx,
    regions: [],
    region_count: 0,
    ...unstableFields(capture.moving),
  };
  return { fields, warning: fields.hint };
}

/**
 * Compares the capture with the baseline. Areas the capture saw moving are left out; when the
 * rest still differs and the page is open, it is watched a little longer (MOTION_SHOTS more
 * screenshots) and regions that move on their own are left out too (a carousel between slides).
 */
export async function judgeAgainstBaseline(
  baseline: Buffer,
  capture: Capture,
  t: VisualThresholds,
  opts: { page?: Page; store(png: Buffer): Promise<string> },
): Promise<VisualJudgement> {
  let moving: MovingRegion[] = capture.moving;
  const before = readTextSnapshot(baseline);
  baseline = stripTextSnapshot(baseline);
  const textChanges = () => (before && capture.text ? compareText(before, capture.text, [...t.ignore, ...moving]) : []);
  const compare = () =>
    comparePngsAsync(baseline, capture.png, { thresholdPercent: t.diffThresholdPercent, minRegionPx: t.minRegionPx, ignore: [...t.ignore, ...moving] });
  let d = await compare();
  let text = textChanges();
  if ((d.diffDetected || text.length) && opts.page && !opts.page.isClosed()) {
    // A text that changes by itself (a carousel's caption, a ticker) is content that moves, not a diff.
    const regions = [...d.regions, ...text.map((c) => c.box)];
    const more = await watchForMotion(opts.page, capture.png, capture.shoot, {
      shots: MOTION_SHOTS,
      intervalMs: MOTION_INTERVAL_MS,
      until: (areas) => regions.every((r) => areas.some((a) => intersects(a, r))),
    }).catch(() => []);
    const relevant = more.filter((a) => regions.some((r) => intersects(a, r)));
    if (relevant.length) {
      moving = [...moving, ...relevant];
      d = await compare();
      text = textChanges();
    }
  }
  // A text change under the pixel thresholds still gets its diff image (every changed pixel marked).
  if (text.length && !d.diffDetected)
    d = { ...(await comparePngsAsync(baseline, capture.png, { thresholdPercent: -1, ignore: [...t.ignore, ...moving] })), diffDetected: false };
  const detected = d.diffDetected || text.length > 0;
  // What moved, by element, explains a pixel diff (a move alone, under the pixel rules, is not one).
  const moves = d.diffDetected && before && capture.text ? compareLayout(before, capture.text, [...t.ignore, ...moving]) : [];
  const diffArtifact = detected && d.diffImage ? await opts.store(d.diffImage) : null;
  const thumbnail = detected && d.diffThumbnail ? await opts.store(d.diffThumbnail) : null;
  const fields: VisualFields = {
    diff_detected: detected,
    diff_percent: Math.round(d.diffPercent * 1000) / 1000,
    diff_artifact: diffArtifact,
    diff_thumbnail_artifact: thumbnail,
    diff_threshold_percent: t.diffThresholdPercent,
    min_region_px: t.minRegionPx,
    regions: d.regions.map(regionOf),
    region_count: d.regionCount,
    ...unstableFields(moving),
    ...(text.length ? { text_changes: text.slice(0, MAX_TEXT_CHANGES).map((c): VisualTextChange => ({ ...c, description: describeTextChange(c) })) } : {}),
    ...(moves.length ? { layout_moves: moves } : {}),
  };
  return { fields, ...(detected ? { failure: failureOf(d, t, text, moves) } : {}), ...(fields.hint ? { warning: fields.hint } : {}) };
}
