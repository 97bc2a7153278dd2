/**
 * What changed between two finished scans of one target: findings that are new, fixed (found by the
 * previous scan, not by this one) and still open, matched by finding fingerprint (domain/fingerprint.ts,
 * the key suppressions, SARIF and the CLI's baselines use), each with its triage mark. Both scans are read
 * through the report model with the same (current) suppressions, so a finding reads the same in both.
 */
import type { ReportTask } from '../domain/results.js';
import type { ScanCi } from '../domain/ci.js';
import type { ReportModel } from './model.js';

export interface ChangedFinding {
  fingerprint: string;
  name: string;
  kind?: ReportTask['kind'];
  severity?: ReportTask['severity'];
  check?: string;
  endpoint?: string;
  parameter?: string;
  /** The task of the scan it was found in (the previous scan for a fixed finding). */
  task_id: string;
  suppressed?: NonNullable<ReportTask['suppressed']> & { suppression_id?: string };
}

export interface PreviousScanRef {
  scan_id: string;
  completed_at: string | null;
  branch: string | null;
  commit: string | null;
  /** same_branch: the latest completed scan of the target on the same branch; base_branch: on the pull request's target branch; target: on any branch. */
  basis: 'same_branch' | 'base_branch' | 'target';
}

export interface ScanChanges {
  scan_id: string;
  url: string;
  mode: ReportModel['mode'];
  branch: string | null;
  commit: string | null;
  previous: PreviousScanRef | null;
  counts: { new: number; fixed: number; still_open: number; suppressed: number };
  new: ChangedFinding[];
  fixed: ChangedFinding[];
  still_open: ChangedFinding[];
}

/** The failed tasks of a report that have a fingerprint, once each (the first task of a fingerprint stands for it). */
function findings(report: ReportModel, suppressionIds: ReadonlyMap<string, string>): Map<string, ChangedFinding> {
  const out = new Map<string, ChangedFinding>();
  for (const task of report.tasks) {
    if (task.status !== 'failed' || !task.fingerprint || out.has(task.fingerprint)) continue;
    const id = suppressionIds.get(task.fingerprint);
    out.set(task.fingerprint, {
      fingerprint: task.fingerprint,
      name: task.name,
      ...(task.kind ? { kind: task.kind } : {}),
      ...(task.severity ? { severity: task.severity } : {}),
      ...(task.check ? { check: task.check } : {}),
      ...(task.endpoint ? { endpoint: task.endpoint } : {}),
      ...(task.parameter ? { parameter: task.parameter } : {}),
      task_id: task.task_id,
      ...(task.suppressed ? { suppressed: { ...task.suppressed, ...(id ? { suppression_id: id } : {}) } } : {}),
    });
  }
  return out;
}

const ci = (report: ReportModel): ScanCi | null => report.ci ?? null;

/**
 * New, fixed and still-open findings of `current` against `previous` (none: every finding is new).
 * `suppressionIds`: fingerprint -> id of the active suppression that marks it, for un-suppress actions.
 */
export function scanChanges(
  current: ReportModel,
  previous: { report: ReportModel; basis: PreviousScanRef['basis'] } | undefined,
  suppressionIds: ReadonlyMap<string, string> = new Map(),
): ScanChanges {
  const now = findings(current, suppressionIds);
  const before = previous ? findings(previous.report, suppressionIds) : new Map<string, ChangedFinding>();
  const added = [...now.values()].filter((f) => !before.has(f.fingerprint));
  const open = [...now.values()].filter((f) => before.has(f.fingerprint));
  const fixed = [...before.values()].filter((f) => !now.has(f.fingerprint));
  return {
    scan_id: current.scan_id,
    url: current.url,
    mode: current.mode,
    branch: ci(current)?.branch ?? null,
    commit: ci(current)?.commit ?? null,
    previous: previous
      ? {
          scan_id: previous.report.scan_id,
          completed_at: previous.report.completed_at,
          branch: ci(previous.report)?.branch ?? null,
          commit: ci(previous.report)?.commit ?? null,
          basis: previous.basis,
        }
      : null,
    counts: { new: added.length, fixed: fixed.length, still_open: open.length, suppressed: [...added, ...open].filter((f) => f.suppressed).length },
    new: added,
    fixed,
    still_open: open,
  };
}
