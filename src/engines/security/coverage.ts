/**
 * Coverage bookkeeping: per operation the statuses reached and whether a 2xx was reached with
 * each identity; per check where it ran and, where it did not, why. A `passed` must mean tested:
 * this is what tells the reader what was not.
 */
import type { CheckCoverage, NotRunReason, OperationCoverage } from '../../domain/scan.js';
import type { Identity, NotApplicable, Operation } from './types.js';

/** A check's `applies` answer other than true as a not-run reason: a text alone means it does not apply there. */
export function notApplicable(verdict: false | NotApplicable): NotRunReason {
  return typeof verdict === 'object' ? verdict : { code: 'not_applicable', text: verdict || 'not applicable' };
}

interface OpStats {
  statuses: Set<number>;
  ok: Record<Identity, boolean>;
  requests: number;
  skipped?: string;
  invented: boolean;
}

export class CoverageRecorder {
  private ops = new Map<string, OpStats>();
  private checks = new Map<string, { title: string; ran: number; notRun: Map<string, { reason: NotRunReason; endpoints: string[] }> }>();

  constructor(private readonly hasSecondary: boolean) {}

  private stats(key: string): OpStats {
    let s = this.ops.get(key);
    if (!s) this.ops.set(key, (s = { statuses: new Set(), ok: { primary: false, secondary: false, none: false }, requests: 0, invented: false }));
    return s;
  }

  /** Registers the operations of the scan in spec order (so every one is listed, reached or not). */
  operations(ops: Operation[]): void {
    for (const op of ops) this.stats(op.key);
  }

  response(op: Operation, identity: Identity, status: number): void {
    const s = this.stats(op.key);
    s.requests++;
    s.statuses.add(status);
    if (status >= 200 && status < 300) s.ok[identity] = true;
  }

  /** True when the operation answered 2xx to some identity (or without credentials) so far. */
  answered2xx(op: Operation): boolean {
    const s = this.ops.get(op.key);
    return !!s && (s.ok.primary || s.ok.secondary || s.ok.none);
  }

  skipped(op: Operation, reason: string): void {
    this.stats(op.key).skipped = reason;
  }

  invented(op: Operation): void {
    this.stats(op.key).invented = true;
  }

  check(id: string, title: string): void {
    if (!this.checks.has(id)) this.checks.set(id, { title, ran: 0, notRun: new Map() });
  }

  ran(id: string): void {
    this.checks.get(id)!.ran++;
  }

  /** The check did not run (or ran untested) on `endpoint` (none: a check of the whole target), with its code and reason. */
  notRun(id: string, reason: NotRunReason, endpoint?: string): void {
    const c = this.checks.get(id)!;
    const key = `${reason.code}\u0000${reason.text}`;
    let entry = c.notRun.get(key);
    if (!entry) c.notRun.set(key, (entry = { reason, endpoints: [] }));
    if (endpoint) entry.endpoints.push(endpoint);
  }

  /** Operations that answered 2xx with some identity, and how many were tested (not skipped). */
  reached(): { ok: number; total: number } {
    let ok = 0;
    let total = 0;
    for (const s of this.ops.values()) {
      if (s.skipped) continue;
      total++;
      if (s.ok.primary || s.ok.secondary || s.ok.none) ok++;
    }
    return { ok, total };
  }

  operationCoverage(): OperationCoverage[] {
    return [...this.ops].map(([endpoint, s]) => ({
      endpoint,
      statuses: [...s.statuses].sort((a, b) => a - b),
      reached_2xx: { primary: s.ok.primary, secondary: this.hasSecondary ? s.ok.secondary : null, anonymous: s.ok.none },
      requests: s.requests,
      ...(s.skipped ? { skipped: s.skipped } : {}),
      ...(s.invented ? { invented_values: true } : {}),
    }));
  }

  checkCoverage(): CheckCoverage[] {
    return [...this.checks].map(([check, c]) => ({
      check,
      title: c.title,
      ran: c.ran,
      not_run: [...c.notRun.values()].map(({ reason, endpoints }) => ({
        reason: reason.text,
        reason_code: reason.code,
        count: Math.max(endpoints.length, 1),
        endpoints,
      })),
    }));
  }
}
