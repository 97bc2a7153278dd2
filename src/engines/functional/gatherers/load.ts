/**
 * The load gatherer: navigates to the page once, recording screencast frames from before the
 * navigation, and measures the load's metrics until the page is quiet (performance/metrics.ts).
 *
 * A page whose load event has not come by options.timeout (a subresource that never finishes) is
 * measured and audited as it is then, with a warning, as Lighthouse does past its load wait. A
 * main response that is not HTML (a PDF, JSON, an image) is refused: there is no page to audit.
 */
import type { Response } from 'playwright-core';
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
  /** The load event had not come by options.timeout: measured as the page was then. */
  loadTimedOut: boolean;
}

/** The main response is not an HTML document: the page is reported and not audited. */
export class NotHtmlPage extends Error {
  constructor(readonly contentType: string) {
    super(`not an HTML page (${contentType}); not audited`);
  }
}

const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;

/** The main response's media type, without parameters ("" when it names none). */
function mediaType(resp: Response): string {
  return (resp.headers()['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

export const loadGatherer: Gatherer<'load'> = {
  artifact: 'load',
  exclusive: true,
  async gather({ page, url, scan, warn }) {
    const timeoutMs = scan.timeoutMs;
    await page.addInitScript(METRICS_INIT);
    const screencast = await ScreencastRecorder.start(page).catch(() => undefined);
    let main: Response | undefined;
    page.on('response', (r) => {
      if (r.frame() === page.mainFrame() && r.request().isNavigationRequest()) main = r;
    });
    let loadTimedOut = false;
    try {
      const resp = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
      if (resp) main = resp;
    } catch (err) {
      // Chromium refuses to render some error responses (an empty 404): the status is reported
      // below. A document that arrived but never finished loading is measured as it is.
      const arrived = main !== undefined;
      if (arrived && (err as Error).name === 'TimeoutError') loadTimedOut = true;
      else if (!arrived || main!.status() < 400) {
        await screencast?.stop();
        throw err;
      }
    }
    const status = main?.status() ?? 0;
    if (status >= 400) {
      await screencast?.stop();
      throw new Error(`HTTP ${status}`);
    }
    const type = main ? mediaType(main) : '';
    // No content type: Chromium sniffed it and rendered a document; audit it.
    if (type && !HTML_TYPE.test(type)) {
      await screencast?.stop();
      throw new NotHtmlPage(type);
    }
    if (loadTimedOut) {
      warn(`the page did not finish loading within ${timeoutMs / 1000} s (options.timeout); it was measured and audited as it was then`);
      scan.logger.warn({ page: url }, 'page not loaded by options.timeout; measured and audited as it is');
    } else await page.waitForLoadState('networkidle', { timeout: Math.min(5000, timeoutMs) }).catch(() => undefined);
    const timing = main?.request().timing();
    const ttfb = timing && timing.responseStart >= 0 ? timing.responseStart : 0;
    // Observed until the main thread is quiet, within a quarter of the page's time budget.
    const { metrics, capped } = await measure(page, ttfb, screencast, Math.min(5000, timeoutMs / 4));
    if (capped) {
      const note = 'the page did not go quiet (long tasks, or no contentful paint) before its metrics were read; TTI and TBT cover the load until then';
      warn(note);
      scan.logger.warn({ page: url }, note);
    }
    return { status, finalUrl: page.url(), metrics, capped, loadTimedOut };
  },
};
