/**
 * One page's work: the registered gatherers in order, each audit as soon as the artifacts it
 * requires are there. What the page contributed is kept in its PageRecord, so audits that ran
 * before a failure keep their results and only the others fail.
 */
import type { Visit } from './page-runner.js';
import { AUDITS, GATHERERS } from './registry.js';
import type { Artifacts, Audit, PageEnv } from './types.js';

/** One audit's verdict on one page, or the reason it could not judge it. */
export interface AuditOutcome {
  audit: Audit;
  /** Absent when the audit could not run (the page failed before its artifacts were gathered). */
  result?: unknown;
  failure?: string;
  /** Time the page worked for it since the previous audit (waits for the CPU lock not counted). */
  durationMs: number;
}

/** What one page contributed; committed to the scan's results once the page is finished. */
export interface PageRecord {
  url: string;
  outcomes: AuditOutcome[];
  /** What the gatherers and audits noted about the page (shown with the scan's results). */
  warnings: string[];
}

export function newPageRecord(url: string): PageRecord {
  return { url, outcomes: [], warnings: [] };
}

/** Gathers and audits one page, recording each audit's outcome in `rec` as it is known. */
export async function auditPage(env: PageEnv, visit: Visit, rec: PageRecord): Promise<void> {
  const got: Partial<Artifacts> = {};
  const pending = [...AUDITS];
  let worked = 0;
  for (const gatherer of GATHERERS) if (!gatherer.skip?.(env)) await gatherer.prepare?.(env);
  for (const gatherer of GATHERERS) {
    if (gatherer.skip?.(env)) continue;
    await visit.withLock(!!gatherer.exclusive, async () => {
      let since = performance.now();
      (got as Record<string, unknown>)[gatherer.artifact] = await gatherer.gather(env, got);
      for (const audit of pending.filter((a) => a.requires.every((k) => got[k] !== undefined))) {
        pending.splice(pending.indexOf(audit), 1);
        const verdict = await audit.run(got as Artifacts, env);
        const now = performance.now();
        rec.outcomes.push({ audit, result: verdict.result, failure: verdict.failure, durationMs: worked + now - since });
        worked = 0;
        since = now;
      }
      worked += performance.now() - since;
    });
  }
}

/** Fails every audit that has no outcome on the page yet, with `reason`. */
export function failRemaining(rec: PageRecord, reason: string, durationMs: number): void {
  for (const audit of AUDITS) if (!rec.outcomes.some((o) => o.audit === audit)) rec.outcomes.push({ audit, failure: reason, durationMs });
}
