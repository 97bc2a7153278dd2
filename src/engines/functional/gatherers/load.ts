/**
 * The load gatherer: navigates to the page once, recording screencast frames from before the
 * navigation, and measures the load's metrics until the page is quiet (performance/metrics.ts).
 */
import { ScreencastRecorder } from '../performance/speed-index.js';
import { measure, METRICS_INIT, type Metrics } from '../performance/metrics.js';
import type { Gatherer } from '../types.js';

export interface PageLoad {
  /** HTTP status of the main document. */
  status: number;
  /** The page's URL after redirects. */
  finalUrl: string;
  metrics: Metrics;
  /** The page never went quiet within the cap: TTI and TBT cover the load until then. */
  capped: boolean;
}

export const loadGatherer: Gatherer<'load'> = {
  artifact: 'load',
  exclusive: true,
  async gather({ page, url, scan }) {
    const timeoutMs = scan.timeoutMs;
    await page.addInitScript(METRICS_INIT);
    const screencast = await ScreencastRecorder.start(page).catch(() => undefined);
    let navStatus = 0;
    page.on('response', (r) => {
      if (r.frame() === page.mainFrame() && r.request().isNavigationRequest()) navStatus = r.status();
    });
    const resp = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs }).catch((err: Error) => {
      // Chromium refuses to render some error responses (an empty 404): report the status.
      if (navStatus >= 400) return null;
      throw err;
    });
    const status = resp?.status() ?? navStatus;
    if (status >= 400) {
      await screencast?.stop();
      throw new Error(`HTTP ${status}`);
    }
    await page.waitForLoadState('networkidle', { timeout: Math.min(5000, timeoutMs) }).catch(() => undefined);
    const timing = resp?.request().timing();
    const ttfb = timing && timing.responseStart >= 0 ? timing.responseStart : 0;
    // Observed until the main thread is quiet, within a quarter of the page's time budget.
    const { metrics, capped } = await measure(page, ttfb, screencast, Math.min(5000, timeoutMs / 4));
    if (capped) scan.logger.warn({ page: url }, 'page not quiet (long tasks, or no contentful paint) when its metrics were read; TTI and TBT cover the load until then');
    return { status, finalUrl: page.url(), metrics, capped };
  },
};
