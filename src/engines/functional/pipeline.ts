/**
 * One page's work: the registered gatherers in order, each audit as soon as the artifacts it
 * requires are there. What the page contributed is kept in its PageRecord, so audits that ran
 * before a failure keep their results and only the others fail.
 */
import type { Visit } from './page-runner.js';
import { AUDITS, GATHERERS } from './registry.js';
import type { ArtifactName, Artifacts, Audit, PageEnv } from './types.js';

/** One audit's verdict on one page, or the reason it could not judge it. */
export interface AuditOutcome {
  audit: Audit;
  /** Absent when the audit could not run (the page failed before its artifacts were gathered). */
  result?: unknown;
  failure?: string;
  /** Time spent gathering what it required and judging it (waits for the CPU lock not counted). */
  durationMs: number;
}

/** What one page contributed; committed to the scan's results once the page is finished. */
export interface PageRecord {
  url: string;
  outcomes: AuditOutcome[];
  /** What the gatherers and audits noted about the page (shown with the scan's results). */
  warnings: string[];
  /**
   * Once the page failed (its time ran out, an audit's gathering threw): gathers what can still be
   * had without the page (e.g. the simulation of a load already made) and runs the audits that
   * then have their artifacts, so a page's metrics are kept when its accessibility run hangs.
   */
  salvage?: () => Promise<void>;
}

export function newPageRecord(url: string): PageRecord {
  return { url, outcomes: [], warnings: [] };
}

/**
 * Gathers and audits one page, recording each audit's outcome in `rec` as it is known. An audit's
 * duration is the time spent gathering the artifacts it requires (those no earlier audit was
 * charged with) and judging them; gatherers no audit requires are charged to none.
 */
export async function auditPage(env: PageEnv, visit: Visit, rec: PageRecord): Promise<void> {
  const got: Partial<Artifacts> = {};
  const spent = new Map<ArtifactName, number>();
  const pending = [...AUDITS];
  const auditReady = async () => {
    for (const audit of pending.filter((a) => a.requires.every((k) => got[k] !== undefined))) {
      pending.splice(pending.indexOf(audit), 1);
      const started = performance.now();
      const verdict = await audit.run(got as Artifacts, env);
      const gathering = audit.requires.reduce((sum, k) => sum + (spent.get(k) ?? 0), 0);
      for (const k of audit.requires) spent.set(k, 0);
      rec.outcomes.push({ audit, result: verdict.result, failure: verdict.failure, durationMs: gathering + performance.now() - started });
    }
  };
  rec.salvage = async () => {
    for (const gatherer of GATHERERS) {
      if (got[gatherer.artifact] !== undefined || !gatherer.salvage || gatherer.skip?.(env)) continue;
      const artifact = await gatherer.salvage(env, got).catch(() => undefined);
      if (artifact === undefined) continue;
      (got as Record<string, unknown>)[gatherer.artifact] = artifact;
      await auditReady().catch(() => undefined);
    }
  };
  for (const gatherer of GATHERERS) if (!gatherer.skip?.(env)) await gatherer.prepare?.(env);
  for (const gatherer of GATHERERS) {
    if (gatherer.skip?.(env)) continue;
    const asked = performance.now();
    const decide = gatherer.exclusive;
    const exclusive = typeof decide === 'function' ? await visit.withLock(false, () => decide(env, got)) : !!decide;
    const waited = performance.now() - asked;
    const background = gatherer.background ? (a: unknown) => gatherer.background!(a as never) : undefined;
    await visit.withLock(
      exclusive,
      async () => {
        const since = performance.now();
        (got as Record<string, unknown>)[gatherer.artifact] = await gatherer.gather(env, got);
        spent.set(gatherer.artifact, waited + performance.now() - since);
        await auditReady();
        return got[gatherer.artifact];
      },
      background,
    );
  }
}

/** Fails every audit that has no outcome on the page yet, with `reason`. */
export function failRemaining(rec: PageRecord, reason: string, durationMs: number): void {
  for (const audit of AUDITS) if (!rec.outcomes.some((o) => o.audit === audit)) rec.outcomes.push({ audit, failure: reason, durationMs });
}
