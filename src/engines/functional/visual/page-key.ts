/**
 * Which baseline a page is compared against (docs/functional-testing.md, Baselines): the key is the
 * page's label or its path and query (never its host) + viewport (the one rendered: the mobile
 * preset's screen on mobile) + device + branch. A branch without
 * the page's baseline falls back to the default branch's; the branch keeps its own copy once the page
 * matches it (or when there was none at all), so a diff keeps being compared with the default branch
 * until it is approved.
 */
import { defaultBranchOf, pagePathKey, scanBranch, viewportKey, type BaselineKey, type BaselineStore } from '../../../domain/artifacts.js';
import type { ScanInput, ScanOptions } from '../../../domain/scan.js';
import { normalizePage } from '../crawl.js';
import { effectiveViewport } from '../throttling/emulation.js';

/** The key of `url`, a page of the scan that started at `start`. */
export function baselineKey(url: string, start: string, options: ScanOptions): BaselineKey {
  const label = options.page_labels?.find((entry) => normalizePage(entry.url, start) === url)?.label;
  return {
    page_key: label ?? pagePathKey(url),
    viewport: viewportKey(effectiveViewport(options)),
    device: options.device,
    branch: scanBranch(options),
  };
}

export interface FoundBaseline {
  artifact_id: string;
  /** The branch it belongs to: the scan's, or the default branch it fell back to. */
  branch: string;
}

/** The baseline `key` is compared against: the branch's own, else the default branch's. */
export async function findBaseline(store: BaselineStore, tenantId: string, key: BaselineKey, options: ScanOptions): Promise<FoundBaseline | undefined> {
  const own = await store.get(tenantId, key);
  if (own) return { artifact_id: own, branch: key.branch };
  const fallback = defaultBranchOf(options);
  if (key.branch === fallback) return undefined;
  const shared = await store.get(tenantId, { ...key, branch: fallback });
  return shared ? { artifact_id: shared, branch: fallback } : undefined;
}

/** After a comparison: the branch adopts the screenshot when it matched the default branch's baseline. */
export function adoptsCurrent(found: FoundBaseline, key: BaselineKey, diffDetected: boolean): boolean {
  return found.branch !== key.branch && !diffDetected;
}

/** A page's baseline key and the baseline it is compared against (none under `reset_baseline`). */
export async function lookupBaseline(
  scan: { tenantId: string; input: Pick<ScanInput, 'url' | 'reset_baseline'>; options: ScanOptions; baselines: BaselineStore },
  url: string,
): Promise<{ key: BaselineKey; found?: FoundBaseline }> {
  const key = baselineKey(url, scan.input.url, scan.options);
  if (scan.input.reset_baseline) return { key };
  return { key, found: await findBaseline(scan.baselines, scan.tenantId, key, scan.options) };
}
