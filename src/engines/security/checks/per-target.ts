/**
 * Findings that are the same on every operation (a missing header, TRACE, a version banner) are
 * one result per target listing the operations affected, not one per operation.
 *
 * Convention: a failed per-target result names the operations affected in `endpoints` (spec
 * order) and sets `endpoint` to the first of them, whose request and response the evidence shows;
 * a passed one names no operation.
 */
import type { CheckContext, CheckResult, Operation, TargetResponse } from '../types.js';
import { phaseOf } from '../phases.js';
import { fail, pass } from './util.js';

/** One operation on which a per-target finding was seen. */
export interface Affected {
  op: Operation;
  res: TargetResponse;
  /** What proves it there, e.g. "server: nginx/1.18.0". */
  detail: string;
  severity: CheckResult['severity'];
}

/** At most this many affected operations are named in the evidence text (all are in `endpoints`). */
const NAMED_IN_EVIDENCE = 10;

const RANK: Record<CheckResult['severity'], number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

/**
 * The operations a target check looks at: in safe mode, not the destructive ones.
 * TODO(engine): the model still holds the operations options.exclude removes (the engine keeps
 * that list to itself); use the engine's list of scanned operations once the context exposes one.
 */
export function scannedOperations(ctx: CheckContext): Operation[] {
  // Never a destructive one: target checks run early, and a TRACE to a reset route may run the reset.
  return ctx.operations.filter((op) => phaseOf(op) !== 'destructive');
}

/** Operations that only read and do not look destructive: safe to send at any point of the scan. */
export function readOperations(ctx: CheckContext): Operation[] {
  return scannedOperations(ctx).filter((op) => op.method === 'GET' && phaseOf(op) === 'read');
}

/** Runs `fn` over `items` with at most `limit` in flight, results in input order. */
export async function mapLimit<T, R>(items: T[], limit: number, signal: AbortSignal, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      signal.throwIfAborted();
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * One result for the whole target: failed when at least one operation is affected (severity the
 * worst seen), passed otherwise. `affected` must be in spec order; `probed` says what was looked
 * at, for the evidence ("23 operations", "12 paths").
 */
export function perTargetResult(ctx: CheckContext, name: string, affected: Affected[], probed: string, extra: Partial<CheckResult> = {}): CheckResult {
  if (affected.length === 0) return pass(name, extra);
  const first = affected[0];
  const severity = affected.reduce<CheckResult['severity']>((worst, a) => (RANK[a.severity] > RANK[worst] ? a.severity : worst), 'info');
  // Each operation named once; its own detail only where it differs from the first's (shown above the list).
  const named = affected.slice(0, NAMED_IN_EVIDENCE).map((a) => (a.detail === first.detail ? a.op.key : `${a.op.key}: ${a.detail}`));
  const more = affected.length > NAMED_IN_EVIDENCE ? `\n... and ${affected.length - NAMED_IN_EVIDENCE} more` : '';
  const proof = `${first.detail}\nAffected: ${affected.length} of ${probed} probed\n${named.join('\n')}${more}`;
  return fail(name, severity, ctx.evidence(first.res, proof), { ...extra, endpoint: first.op.key, endpoints: affected.map((a) => a.op.key) });
}
