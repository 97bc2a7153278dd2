/**
 * The visual audit: the page's screenshot against its baseline. The baseline decision: none stored
 * (or `reset_baseline`) sets this screenshot as the baseline; otherwise the two are compared
 * (visual/judge.ts: regions, thresholds, moving areas) and a diff image and its thumbnail are
 * stored when a diff is detected.
 */
import type { VisualPage } from '../../../domain/scan.js';
import { baselineFields, judgeAgainstBaseline, visualThresholds } from '../visual/judge.js';
import { effectiveViewport } from '../throttling/emulation.js';
import { adoptsCurrent, lookupBaseline } from '../visual/page-key.js';
import type { Audit } from '../types.js';

export const visualAudit: Audit<VisualPage> = {
  id: 'visual',
  title: () => 'Visual regression',
  requires: ['screenshot'],
  async run({ screenshot }, { url, scan, page, warn }) {
    const { tenantId, artifacts, baselines, options } = scan;
    const viewport = effectiveViewport(options);
    const current = await artifacts.put(tenantId, screenshot.png, 'image/png');
    const { key, found } = await lookupBaseline(scan, url);
    const base = found ? await artifacts.get(tenantId, found.artifact_id) : undefined;
    const thresholds = visualThresholds(options, url);
    if (!base || !found) {
      await baselines.set(tenantId, key, current, { page_url: url });
      const v = baselineFields(screenshot, thresholds);
      if (v.warning) warn(v.warning);
      return {
        result: { page_url: url, page_key: key.page_key, baseline_branch: key.branch, viewport, baseline_artifact: current, current_artifact: current, baseline_created: true, ...v.fields },
      };
    }
    const v = await judgeAgainstBaseline(base.bytes, screenshot, thresholds, { page, store: (png) => artifacts.put(tenantId, png, 'image/png') });
    if (v.warning) warn(v.warning);
    if (adoptsCurrent(found, key, v.fields.diff_detected)) await baselines.set(tenantId, key, current, { page_url: url });
    return {
      result: {
        page_url: url,
        page_key: key.page_key,
        baseline_branch: found.branch,
        viewport,
        baseline_artifact: found.artifact_id,
        current_artifact: current,
        baseline_created: false,
        ...v.fields,
      },
      failure: v.failure,
    };
  },
  summarize(pages, scan) {
    return { diff_threshold_percent: scan.options.diff_threshold_percent, visual: pages };
  },
};
