/** What `vigil scan` and `vigil scans wait` print at the end: the JSON document (--json), or the summary table, the gate's detail and the verdict. */
import type { DeliveryResult } from '../../notifications/index.js';
import { printJson } from '../common.js';
import type { ScanResults } from '../follow.js';
import type { GateResult } from '../gate.js';
import { failureSummary, painter, renderGate, renderNotTested, table } from '../render.js';
import { SCAN_EXIT } from './exit-codes.js';
import type { RunSettings } from './run-settings.js';

/** A judged scan: its results, the gate's verdict and what was done about it. */
export interface JudgedScan {
  scanId: string;
  results: ScanResults;
  gate: GateResult;
  /** The baseline the gate compared with (a scan id or a file name), or null. */
  baselineLabel: string | null;
  exit: number;
  warnings: string[];
  written: string[];
  writeFailures: Array<{ path: string; error: string }>;
  deliveries: DeliveryResult[];
}

export function printSummary(s: RunSettings, judged: JudgedScan): void {
  const { scanId, results, gate, baselineLabel, exit, warnings, written, writeFailures, deliveries } = judged;
  const gateJson = {
    fail_on: s.failOn,
    fail_on_a11y: s.failOnA11y,
    fail_on_visual: s.failOnVisual,
    failing: gate.failing,
    below_threshold: gate.below,
    suppressed: gate.suppressed.map(({ item, suppression }) => ({ ...item, suppression })),
    expired_suppressions: gate.expired.map(({ item, suppression }) => ({ ...item, suppression })),
    known: gate.known,
    baseline: baselineLabel,
    budget_violations: gate.budgetViolations,
    notes: gate.notes,
  };
  if (s.json) {
    printJson({
      scan_id: scanId,
      status: results.status,
      exit_code: exit,
      gate_failed: gate.exit === 1,
      threshold_reached: gate.exit === 1,
      fail_on: s.failOn,
      severity_counts: results.severity_counts,
      passed: results.passed,
      failed: results.failed,
      total: results.total,
      elapsed_seconds: results.elapsed_seconds,
      failure_reason: results.failure_reason ?? null,
      warnings,
      gate: gateJson,
      outputs: written,
      output_errors: writeFailures,
      output: written[0] ?? null,
      notifications: deliveries,
      results,
    });
    return;
  }
  const paint = painter(s.color);
  const counts: Partial<NonNullable<ScanResults['severity_counts']>> = results.severity_counts ?? {};
  const sevColor = { critical: 'magenta', high: 'red', medium: 'yellow', low: 'blue', info: 'gray' } as const;
  const rows = [
    ['scan', scanId],
    ['status', results.status === 'completed' ? paint('green', results.status) : paint('red', String(results.status))],
    ['tasks', `${results.passed ?? 0} passed, ${results.failed ?? 0} failed, ${results.total ?? 0} total`],
    [
      'findings',
      (['critical', 'high', 'medium', 'low', 'info'] as const).map((sv) => (counts[sv] ? paint(sevColor[sv], `${sv} ${counts[sv]}`) : `${sv} 0`)).join(', '),
    ],
    [
      'gate',
      `fail on ${s.failOn}, accessibility ${s.failOnA11y}, visual ${s.failOnVisual ? 'on' : 'off'}${s.budgets.length ? `, ${s.budgets.length} budget(s)` : ''}${s.suppressions.length ? `, ${s.suppressions.length} suppression(s)` : ''}${baselineLabel ? `, baseline ${baselineLabel}` : ''}`,
    ],
    ['duration', `${results.elapsed_seconds ?? 0} s`],
  ];
  if (results.failure_reason) rows.push(['reason', String(results.failure_reason)]);
  if (warnings.length) rows.push(['warnings', `${warnings.length} (see above)`]);
  if (written.length) rows.push(['reports', written.join(', ')]);
  if (writeFailures.length) rows.push(['not written', paint('red', writeFailures.map((f) => f.path).join(', '))]);
  // What was not tested leads the summary: a scan that reached little is never read as a clean one.
  const untested = renderNotTested(results.not_tested, paint);
  if (untested) process.stdout.write(`${untested}\n\n`);
  process.stdout.write(`${table(rows)}\n`);
  const detail = renderGate(gate, paint, baselineLabel);
  if (detail) process.stdout.write(`${detail}\n`);
  const verdict =
    exit === SCAN_EXIT.scanFailed
      ? paint('red', `SCAN ${String(results.status).toUpperCase()}`)
      : exit === SCAN_EXIT.output
        ? paint(
            'red',
            `FAILED: ${writeFailures.length} report(s) could not be written${gate.exit === 1 ? `; and the gate failed: ${failureSummary(gate, s.failOn, s.failOnA11y)}` : ''}`,
          )
        : exit === SCAN_EXIT.gate
          ? paint('red', `FAILED: ${failureSummary(gate, s.failOn, s.failOnA11y)}`)
          : paint('green', 'PASSED');
  process.stdout.write(`\n${verdict}\n`);
}
