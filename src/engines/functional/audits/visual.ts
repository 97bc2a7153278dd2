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
import { embedTextSnapshot } from '../visual/text-snapshot.js';
import type { Audit, ScanEnv } from '../types.js';

/** A first scan's result says what happened to the page. */
export const BASELINE_RECORDED = 'baseline recorded: this screenshot (and its visible text) is what later scans of the page are compared with';

/** A diff's result says how to accept the change as the page's new baseline (API, CLI, dashboard). */
export function approveMessage(scan: ScanEnv, page: string): string {
  const body = JSON.stringify({ scan_id: scan.scanId, page });
  const quoted = `'${page.replace(/'/g, `'\\''`)}'`;
  return `if this change is intended, approve it as the page's baseline: vigil baselines approve ${scan.scanId} --page ${quoted} (the CLI), POST /api/v1/baselines/approve with ${body}, or "Approve current as baseline" on this scan's page of the dashboard`;
}

export const visualAudit: Audit<VisualPage> = {
  id: 'visual',
  title: () => 'Visual regression',
  requires: ['screenshot'],
  async run({ screenshot }, { url, scan, page, warn }) {
    const { tenantId, artifacts, baselines, options } = scan;
    const viewport = effectiveViewport(options);
    // The visible text travels inside the PNG, so a baseline set or approved from it carries its text.
    const current = await artifacts.put(tenantId, screenshot.text ? embedTextSnapshot(screenshot.png, screenshot.text) : screenshot.png, 'image/png');
    const snapshot = screenshot.text
      ? { dom_snapshot_artifact: await artifacts.put(tenantId, Buffer.from(JSON.stringify({ page_url: url, ...screenshot.text })), 'application/json') }
      : {};
    const { key, found } = await lookupBaseline(scan, url);
    const base = found ? await artifacts.get(tenantId, found.artifact_id) : undefined;
    const thresholds = visualThresholds(options, url);
    if (!base || !found) {
      await baselines.set(tenantId, key, current, { page_url: url });
      const v = baselineFields(screenshot, thresholds);
      if (v.warning) warn(v.warning);
      return {
        result: {
          page_url: url,
          page_key: key.page_key,
          baseline_branch: key.branch,
          viewport,
          baseline_artifact: current,
          current_artifact: current,
          baseline_created: true,
          ...v.fields,
          ...snapshot,
          message: BASELINE_RECORDED,
        },
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
        ...snapshot,
        ...(v.fields.diff_detected ? { message: approveMessage(scan, key.page_key) } : {}),
      },
      failure: v.failure,
    };
  },
  summarize(pages, scan) {
    return { diff_threshold_percent: scan.options.diff_threshold_percent, visual: pages };
  },
};
