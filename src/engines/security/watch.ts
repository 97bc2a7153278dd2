/**
 * Watching the target: a liveness probe (a cheap read that answered 2xx in discovery) after every
 * timing or size probe, after any check that got no answer, and every so often. When the target
 * stops answering, the scan waits for recovery with a bounded back-off. A target that comes back is
 * given the same unit again: only a second stall makes it a denial-of-service finding (its request
 * as evidence), so a pause of the target or of a loaded scanning machine is not reported. If the
 * target does not come back, that is the finding, and the scan stops: what remains is `not_tested` with the reason, and the results say at the top
 * that the target went down, when, and after what.
 */
import { phaseOf } from './phases.js';
import { isAuthOperation } from './unique-values.js';
import type { ScanSession } from './session.js';
import type { CheckResult, Identity, Operation, TargetResponse } from './types.js';
import type { NotRunReason } from '../../domain/scan.js';

export interface TargetDown {
  /** When the liveness probe first got no answer (ISO 8601). */
  at: string;
  /** The check and operation whose probe preceded it. */
  check: string;
  endpoint?: string;
  /** How long the scan waited for recovery (ms). */
  waitedMs: number;
}

/** A time the liveness probe got no answer: when, how long the scan waited, and whether the target came back. */
export interface Stall {
  at: string;
  waitedMs: number;
  recovered: boolean;
}

export class TargetWatch {
  private live?: { op: Operation; identity: Identity };
  private pending?: Promise<boolean>;
  /** Set once the target went down and did not recover: the scan stops. */
  down?: TargetDown;
  /** Units run since the last probe (a periodic probe every `every`). */
  private sinceProbe = 0;

  constructor(
    private readonly session: ScanSession,
    private readonly opts: { recoveryWaitMs: number; probeTimeoutMs: number; every: number },
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Picks the liveness operation after discovery: a read without path parameters that answered 2xx. */
  choose(ops: Operation[]): void {
    const cov = this.session.coverage.operationCoverage();
    const candidates = ops.filter(
      (op) => op.method === 'GET' && phaseOf(op) === 'read' && !op.params.some((p) => p.in === 'path' || p.required) && !isAuthOperation(op),
    );
    for (const op of candidates) {
      const c = cov.find((x) => x.endpoint === op.key);
      if (!c) continue;
      const identity: Identity | undefined =
        c.reached_2xx.anonymous || op.publicByDesign ? 'none' : c.reached_2xx.primary ? 'primary' : c.reached_2xx.secondary ? 'secondary' : undefined;
      if (!identity) continue;
      // Public operations first: the cheapest, and they do not depend on an identity still being valid.
      if (!this.live || (identity === 'none' && this.live.identity !== 'none')) this.live = { op, identity };
    }
  }

  get operation(): string | undefined {
    return this.live?.op.key;
  }

  /** True when the target answers the liveness probe (any status: it answered). */
  private probe(): Promise<boolean> {
    if (!this.live) return Promise.resolve(true);
    if (!this.pending) {
      const { op, identity } = this.live;
      const req = { ...this.session.request(op, undefined, identity), op: undefined, identity, timeoutMs: this.opts.probeTimeoutMs };
      // A probe withheld because its identity was lost says nothing about the target: asked again without credentials (any answer counts).
      this.pending = this.session
        .send(req)
        .then((r) => (r.error === 'withheld' && identity !== 'none' ? this.session.send({ ...req, identity: 'none' }) : r))
        .then((r) => r.status > 0);
      void this.pending.finally(() => (this.pending = undefined));
    }
    return this.pending;
  }

  /** Whether a probe is due after a unit: timing checks always, a unit that got no answer, and every `every` units. */
  due(timing: boolean, noAnswer: boolean): boolean {
    this.sinceProbe++;
    return timing || noAnswer || this.sinceProbe >= this.opts.every;
  }

  /**
   * After a unit: probe; when the target does not answer, wait with back-off (1 s, 2 s, 4 s...) up to
   * the bound. Returns the stall, if any; one the target did not recover from stops the scan.
   */
  async after(check: string, op: Operation | undefined): Promise<Stall | undefined> {
    if (this.down) return undefined;
    this.sinceProbe = 0;
    if (await this.probe()) return undefined;
    const at = new Date().toISOString();
    const started = Date.now();
    let wait = 1000;
    let recovered = false;
    while (Date.now() - started < this.opts.recoveryWaitMs) {
      await this.sleep(Math.min(wait, Math.max(0, this.opts.recoveryWaitMs - (Date.now() - started))));
      wait *= 2;
      if (this.session.signal.aborted) break;
      if (await this.probe()) {
        recovered = true;
        break;
      }
    }
    const waitedMs = Date.now() - started;
    if (!recovered) this.down = { at, check, endpoint: op?.key, waitedMs };
    return { at, waitedMs, recovered };
  }

  /**
   * The denial-of-service finding for a stall after `last`: one the target did not recover from, or
   * one that came back when the unit was run again (`again`). A stall the repeat did not bring back
   * (a pause of the target or of the scanning machine) is no finding.
   */
  finding(first: Stall, last: TargetResponse | undefined, again?: Stall): CheckResult {
    const probe = `${this.live!.op.key} (the liveness probe)`;
    const what = !first.recovered
      ? `${probe} got no answer after this request, at ${first.at}; it did not answer again within ${Math.round(first.waitedMs / 1000)} s and the scan stopped.`
      : `${probe} got no answer after this request, at ${first.at}, and answered again ${Math.round(first.waitedMs / 1000)} s later; the same requests sent again stopped it again at ${again?.at}${again?.recovered ? ` (for ${Math.round(again.waitedMs / 1000)} s)` : ', and it did not answer again: the scan stopped'}.`;
    return {
      status: 'failed',
      name: 'The target stopped answering after this probe (denial of service)',
      severity: 'high',
      cwe: 'CWE-400',
      invented: false,
      evidence: last ? this.session.evidence(last, what) : what,
    };
  }

  /** The reason every unit not run after the target went down carries. */
  reason(): NotRunReason {
    const d = this.down!;
    return {
      code: 'target_down',
      text: `the target stopped answering at ${d.at} (after ${d.check}${d.endpoint ? ` on ${d.endpoint}` : ''}) and did not recover`,
    };
  }
}
