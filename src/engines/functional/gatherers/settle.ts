/**
 * The settle gatherer: waits until the route has finished its client-side rendering before links,
 * axe and the screenshot read the page. After the load (which already waited for the load event
 * and network idle), the page is settled when no fetch or XHR is in flight and the DOM has not
 * changed (nodes or text) for QUIET_MS, measured by the page's own clock; the wait is capped.
 * Server-rendered pages are usually quiet already, so it costs them nothing.
 */
import type { RouteSettle } from '../artifacts.js';
import type { Gatherer } from '../types.js';

export type { RouteSettle };
import { ROUTES_INIT } from './routes.js';

/** A quiet window: no DOM change and no request in flight for this long. */
export const QUIET_MS = 300;
/** Longest wait for a route to settle (a page that never stops changing is read as it is). */
export const SETTLE_CAP_MS = 3000;

const WAIT_QUIET = `async ({ quietMs, capMs }) => {
  const state = window.__vigilSpa;
  const t0 = performance.now();
  if (!state) return { settled: true, waitedMs: 0 };
  for (;;) {
    const now = performance.now();
    const quietFor = now - state.lastMutation;
    if (state.inflight === 0 && quietFor >= quietMs) return { settled: true, waitedMs: now - t0 };
    if (now - t0 >= capMs) return { settled: false, waitedMs: now - t0 };
    await new Promise((r) => setTimeout(r, Math.max(25, Math.min(quietMs - quietFor, capMs - (now - t0)))));
  }
}`;

export const settleGatherer: Gatherer<'settle'> = {
  artifact: 'settle',
  async prepare({ page }) {
    await page.addInitScript(ROUTES_INIT);
  },
  async gather({ page, url, scan }) {
    const capMs = Math.min(SETTLE_CAP_MS, scan.timeoutMs / 4);
    const result = (await page
      .evaluate(`(${WAIT_QUIET})(${JSON.stringify({ quietMs: QUIET_MS, capMs })})`)
      .catch(() => ({ settled: false, waitedMs: 0 }))) as RouteSettle;
    if (!result.settled) scan.logger.debug({ page: url, waitedMs: Math.round(result.waitedMs) }, 'page still changing after the settle cap; read as it is');
    return result;
  },
};
