/** What the gate compares a scan's results with: the baseline's findings, and each page's accessibility score. */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { getPatiently, type ScanResults } from '../follow.js';
import { baselineKeys } from '../gate.js';
import { isObject } from '../unchecked.js';
import { UsageError } from '../usage-error.js';
import type { RunSettings } from './run-settings.js';

/** The keys of the baseline's findings, and a label for it; null when there is no baseline to compare with. */
export async function loadBaseline(s: RunSettings, results: ScanResults): Promise<{ keys: Set<string>; label: string } | null> {
  const b = s.baseline;
  if (!b) return null;
  if (b.kind === 'file') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(b.path, 'utf8'));
    } catch (error) {
      throw new UsageError(`--baseline ${b.path}: ${(error as Error).message}`);
    }
    // Saved results, or the output of vigil scan --json (the results under "results").
    const body = isObject(parsed) && isObject(parsed.results) ? parsed.results : parsed;
    if (!isObject(body) || !Array.isArray(body.tasks))
      throw new UsageError(`--baseline ${b.path}: not scan results (no "tasks"); save GET /scan/{id}/results, vigil scan --json or a .json export`);
    return { keys: baselineKeys(body), label: basename(b.path) };
  }
  let id: string;
  if (b.kind === 'scan') id = b.id;
  else {
    const target = s.target ?? results.url;
    const { body } = await getPatiently(s.client, '/scans', s.patience, { query: { status: 'completed', per_page: '100' } });
    const prev = (body?.scans ?? []).find(
      (x) =>
        x.scan_id !== results.scan_id &&
        x.url === target &&
        (!results.created_at || !x.created_at || x.created_at <= results.created_at) &&
        (!results.mode || !x.mode || x.mode === results.mode),
    );
    if (!prev) {
      process.stderr.write(`note: no earlier completed scan of ${target}: every finding counts as new\n`);
      return { keys: new Set(), label: '(none: first scan)' };
    }
    id = prev.scan_id;
  }
  const { body } = await getPatiently(s.client, '/scan/{id}/results', s.patience, { path: { id } });
  if (body?.status !== 'completed') throw new UsageError(`--baseline ${id}: the scan is ${body?.status}, not completed`);
  return { keys: baselineKeys(body), label: id };
}

export async function accessibilityScores(s: RunSettings, results: ScanResults): Promise<Map<string, number> | undefined> {
  if (!s.budgets.some((b) => b.metric === 'accessibility')) return undefined;
  try {
    const { body } = await s.client.call('get', '/scan/{id}/accessibility', { path: { id: results.scan_id } });
    return new Map((body?.pages ?? []).filter((p) => typeof p.compliance_score === 'number').map((p) => [String(p.page_url), p.compliance_score as number]));
  } catch {
    return undefined; // the scan's score is used for every page
  }
}
