/**
 * The visual audit: the page's screenshot against its baseline. The baseline decision: none stored
 * (or `reset_baseline`) sets this screenshot as the baseline; otherwise the two are compared and a
 * diff image is stored when a diff is detected.
 */
import type { VisualPage } from '../../../domain/scan.js';
import { comparePngsAsync } from '../visual/diff.js';
import { adoptsCurrent, lookupBaseline } from '../visual/page-key.js';
import type { Audit } from '../types.js';

export const visualAudit: Audit<VisualPage> = {
  id: 'visual',
  title: () => 'Visual regression',
  requires: ['screenshot'],
  async run({ screenshot }, { url, scan }) {
    const { tenantId, artifacts, baselines, options } = scan;
    const viewport = options.viewport;
    const current = await artifacts.put(tenantId, screenshot.png, 'image/png');
    const { key, found } = await lookupBaseline(scan, url);
    const base = found ? await artifacts.get(tenantId, found.artifact_id) : undefined;
    if (!base || !found) {
      await baselines.set(tenantId, key, current, { page_url: url });
      return {
        result: { page_url: url, page_key: key.page_key, baseline_branch: key.branch, viewport, diff_detected: false, diff_percent: 0, baseline_artifact: current, current_artifact: current, diff_artifact: null, baseline_created: true },
      };
    }
    const d = await comparePngsAsync(base.bytes, screenshot.png, { thresholdPercent: options.diff_threshold_percent });
    const diffId = d.diffImage ? await artifacts.put(tenantId, d.diffImage, 'image/png') : null;
    if (adoptsCurrent(found, key, d.diffDetected)) await baselines.set(tenantId, key, current, { page_url: url });
    return {
      result: {
        page_url: url,
        page_key: key.page_key,
        baseline_branch: found.branch,
        viewport,
        diff_detected: d.diffDetected,
        diff_percent: Math.round(d.diffPercent * 1000) / 1000,
        baseline_artifact: found.artifact_id,
        current_artifact: current,
        diff_artifact: diffId,
        baseline_created: false,
      },
      failure: d.diffDetected ? `${d.diffPercent.toFixed(2)}% of pixels changed` : undefined,
    };
  },
  summarize(pages, scan) {
    return { diff_threshold_percent: scan.options.diff_threshold_percent, visual: pages };
  },
};
