/**
 * Lab metrics of one page load: what the page reports through PerformanceObserver, observed from
 * before its first script until it has gone quiet, and Lighthouse's formulas over the long tasks.
 */
import type { Page } from 'playwright-core';
import type { PerformancePage } from '../../../domain/scan.js';
import type { ScreencastRecorder } from './speed-index.js';

/** Main-thread quiet (no long task) that ends the observation, as Lighthouse's cpuQuietThresholdMs. */
export const QUIET_WINDOW_MS = 1000;
/** A long task blocks input for its time beyond this (Lighthouse's blocking threshold). */
const BLOCKING_THRESHOLD_MS = 50;

/**
 * Installed with addInitScript, so it runs in every document before any of the page's scripts.
 * `flush()` moves entries Chromium has recorded but not yet delivered to the callbacks (delivery
 * is an asynchronous task), so a read right after a long task still sees it. The paint observer is
 * not flushed: `fcpSeenAt` is the moment FCP is delivered, the same task in which the page's own
 * paint observers hear of it.
 */
export const METRICS_INIT = `(() => {
  const m = (window.__vigil = { fcp: 0, fcpSeenAt: 0, lcp: 0, cls: 0, longtasks: [], flushed: [] });
  const watch = (type, onEntry, flushable) => {
    try {
      const o = new PerformanceObserver((l) => { for (const e of l.getEntries()) onEntry(e); });
      o.observe({ type, buffered: true });
      if (flushable) m.flushed.push(() => { for (const e of o.takeRecords()) onEntry(e); });
    } catch {}
  };
  watch('paint', (e) => { if (e.name === 'first-contentful-paint') { m.fcp = e.startTime; m.fcpSeenAt = performance.now(); } }, false);
  watch('largest-contentful-paint', (e) => { m.lcp = e.startTime; }, true);
  watch('layout-shift', (e) => { if (!e.hadRecentInput) m.cls += e.value; }, true);
  watch('longtask', (e) => { m.longtasks.push([e.startTime, e.duration]); }, true);
  m.flush = () => { for (const f of m.flushed) f(); };
})();`;

export interface RawMetrics {
  fcp: number;
  lcp: number;
  cls: number;
  longtasks: Array<[start: number, duration: number]>;
  dcl: number;
  timeOrigin: number;
  /** The page never went quiet within the cap: TTI and TBT cover what was seen until then. */
  capped: boolean;
}

/**
 * Runs in the page after load: waits until QUIET_WINDOW_MS of page time have passed since the last
 * of the load event, the delivery of FCP and the end of the last long task, then reads the metrics.
 * The decision is taken in a timer whose deadline is at or after the end of that window, so any
 * timer the page set to fire within the window has run (and its long task is recorded) first,
 * however slowly the machine runs; a rendering update follows, so a layout shift of the last task
 * is recorded too. Gives up `capMs` after it starts.
 */
function collectScript(quietMs: number, capMs: number): string {
  return `(async () => {
  const m = window.__vigil;
  const nav = performance.getEntriesByType('navigation')[0];
  const giveUpAt = performance.now() + ${capMs};
  // The browser's own timers (activity.ts counts the page's calls, not Vigil's).
  const T = window.__vigilActivity?.native ?? { setTimeout: setTimeout.bind(window), clearTimeout: clearTimeout.bind(window), requestAnimationFrame: requestAnimationFrame.bind(window) };
  const frame = () => new Promise((r) => { const t = T.setTimeout(r, 1000); T.requestAnimationFrame(() => T.setTimeout(() => { T.clearTimeout(t); r(); }, 0)); });
  const busyUntil = () => {
    m?.flush();
    let t = Math.max(nav ? nav.loadEventEnd : 0, m ? m.fcpSeenAt : 0);
    for (const [s, d] of m ? m.longtasks : []) t = Math.max(t, s + d);
    return t;
  };
  let capped = false;
  for (;;) {
    const wait = Math.max(0, Math.min(busyUntil() + ${quietMs}, giveUpAt) - performance.now());
    const deadline = performance.now() + wait;
    await new Promise((r) => T.setTimeout(r, wait));
    await frame();
    if (m && m.fcpSeenAt > 0 && busyUntil() + ${quietMs} <= deadline) break;
    if (performance.now() >= giveUpAt) { capped = true; break; }
  }
  m?.flush();
  const fcp = m?.fcp || performance.getEntriesByName('first-contentful-paint')[0]?.startTime || 0;
  return { fcp, lcp: m ? m.lcp : 0, cls: m ? m.cls : 0, longtasks: m ? m.longtasks : [], dcl: nav ? nav.domContentLoadedEventEnd : 0, timeOrigin: performance.timeOrigin, capped };
})()`;
}

/**
 * Lighthouse's formulas over the long tasks seen. TTI: the end of the last long task before the
 * quiet window, at least FCP and DOMContentLoaded. TBT: each long task ending after FCP is clipped
 * to [FCP, TTI] and counts its part beyond 50 ms (a task straddling FCP counts from FCP). FID (max
 * potential FID): the longest task ending after FCP.
 */
export function blockingMetrics(longtasks: Array<[number, number]>, fcp: number, dcl: number): { tbt: number; fid: number; tti: number } {
  const tti = longtasks.reduce((acc, [s, d]) => Math.max(acc, s + d), Math.max(fcp, dcl));
  let tbt = 0;
  let fid = 0;
  for (const [start, duration] of longtasks) {
    const end = start + duration;
    if (end < fcp || start > tti) continue;
    fid = Math.max(fid, duration);
    const blocking = Math.min(end, tti) - Math.max(start, fcp) - BLOCKING_THRESHOLD_MS;
    if (blocking > 0) tbt += blocking;
  }
  return { tbt, fid, tti };
}

export type Metrics = Omit<PerformancePage, 'page_url' | 'performance_score' | 'rating'>;

/**
 * The load's metrics, once the page is quiet (at most `capMs` more); SI comes from the screencast
 * frames (FCP when none were painted). `quietMs` 0: the page was proven quiet (activity.ts), read now.
 */
export async function measure(
  page: Page,
  ttfb: number,
  rec: ScreencastRecorder | undefined,
  capMs: number,
  quietMs: number = QUIET_WINDOW_MS,
): Promise<{ metrics: Metrics; capped: boolean }> {
  const raw = (await page.evaluate(collectScript(quietMs, capMs))) as RawMetrics;
  await rec?.stop();
  const { tbt, fid, tti } = blockingMetrics(raw.longtasks, raw.fcp, raw.dcl);
  const si = rec?.speedIndex(raw.timeOrigin);
  const metrics: Metrics = {
    fcp_ms: Math.round(raw.fcp),
    lcp_ms: Math.round(Math.max(raw.lcp, raw.fcp)),
    cls: Math.round(raw.cls * 1000) / 1000,
    ttfb_ms: Math.round(ttfb),
    tbt_ms: Math.round(tbt),
    fid_ms: Math.round(fid),
    // FCP is the floor, as Lighthouse's speed index has it: screencast frames are stamped by the compositor,
    // FCP by paint timing, and on a loaded machine the two clocks drift apart by more than a frame.
    si_ms: Math.round(Math.max(si ?? raw.fcp, raw.fcp)),
    tti_ms: Math.round(tti),
  };
  return { metrics, capped: raw.capped };
}
