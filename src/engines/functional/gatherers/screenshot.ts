/** The screenshot gatherer: a deterministic full-page capture (visual/capture.ts), after metrics and axe. */
import { CAPTURE_GUARD_INIT, MAX_CAPTURES, stableCapture } from '../visual/capture.js';
import { captureFailure } from '../visual/capture-errors.js';
import { compactPngAsync } from '../visual/png.js';
import { snapshotText } from '../visual/text-snapshot.js';
import type { Gatherer } from '../types.js';

export const screenshotGatherer: Gatherer<'screenshot'> = {
  artifact: 'screenshot',
  async prepare({ page }) {
    await page.addInitScript(CAPTURE_GUARD_INIT);
  },
  async gather({ page, url, scan }, got) {
    // Fonts and images are awaited before the capture; on a page whose load never finished, what
    // blocked the load will not arrive now either: a short wait only.
    const settleMs = Math.min(got.load?.loadTimedOut ? 1000 : 5000, scan.timeoutMs);
    const shot = await stableCapture(page, {
      mask: scan.options.mask,
      settleMs,
      contentSecurityPolicy: got.load?.contentSecurityPolicy,
      shotTimeoutMs: scan.timeoutMs,
    }).catch((err: unknown) => {
      throw new Error(captureFailure(err, scan.options.timeout));
    });
    // The visible text and boxes, read while the page is still frozen as captured.
    shot.text = await snapshotText(page, scan.options.mask).catch(() => undefined);
    shot.png = await compactPngAsync(shot.png);
    scan.logger.debug({ page: url, captures: shot.captures, stable: shot.stable }, 'page captured');
    if (!shot.stable) scan.logger.warn({ page: url, captures: MAX_CAPTURES }, 'page still changing after the last capture; using the last one');
    return shot;
  },
};
