/** Everything `vigil scan` and `vigil scans wait` share once the scan has an id: follow, judge, report, notify, print, exit. */
import { ApiFailure } from '../client.js';
import { printApiError } from '../common.js';
import { followScan, type ScanResults } from '../follow.js';
import { judge } from '../gate.js';
import { SCAN_EXIT } from './exit-codes.js';
import { accessibilityScores, loadBaseline } from './gate-inputs.js';
import { notifyScanEnd } from './notify.js';
import { progressPrinter } from './progress.js';
import type { RunSettings } from './run-settings.js';
import { printSummary } from './summary.js';
import { writeOutputs } from './write-reports.js';

/** Follows `scanId` to its end, judges it, writes the reports, notifies and prints; returns the exit code. */
export async function followAndJudge(s: RunSettings, scanId: string, log: (line: string) => void): Promise<number> {
  const progress = progressPrinter(Boolean(process.stderr.isTTY) && !s.json, log);
  let results: ScanResults;
  try {
    results = await followScan(s.client, scanId, s.pollMs, s.patience, (body) => progress.update(body));
    progress.end();
  } catch (error) {
    progress.end();
    if (error instanceof ApiFailure) {
      printApiError(error, s.json);
      return error.status === 401 || error.status === 403 || error.status === 429
        ? SCAN_EXIT.refused
        : error.status === 404
          ? SCAN_EXIT.usage
          : SCAN_EXIT.scanFailed;
    }
    throw error;
  }

  const warnings: string[] = Array.isArray(results.warnings) ? results.warnings.filter((w: unknown): w is string => typeof w === 'string') : [];
  for (const warning of warnings) log(`warning: ${warning}\n`);

  const baseline = results.status === 'completed' ? await loadBaseline(s, results) : null;
  const gate = judge(results, {
    failOn: s.failOn,
    failOnA11y: s.failOnA11y,
    failOnVisual: s.failOnVisual,
    budgets: s.budgets,
    suppressions: s.suppressions,
    baseline: baseline?.keys ?? null,
    today: new Date().toISOString().slice(0, 10),
    accessibilityScores: results.status === 'completed' ? await accessibilityScores(s, results) : undefined,
    failOnCoverage: s.failOnCoverage,
  });
  for (const note of gate.notes) log(`note: ${note}\n`);
  const { written, failed: writeFailures } = await writeOutputs(s, results, gate);
  const exit = gate.exit === 2 ? SCAN_EXIT.scanFailed : writeFailures.length ? SCAN_EXIT.output : gate.exit;
  const deliveries = await notifyScanEnd(s, results, gate.exit === 1, log);
  printSummary(s, { scanId, results, gate, baselineLabel: baseline?.label ?? null, exit, warnings, written, writeFailures, deliveries });
  return exit;
}
