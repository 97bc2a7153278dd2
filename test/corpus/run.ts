/**
 * Runs one variant of a corpus app (the unpatched twin, or one injected flaw) and scans it: the app
 * copied into a temporary directory, the flaw's edits applied there, started in its own process on
 * loopback (test/engines/security/real-apps.ts), scanned by the security engine with the app's own
 * OpenAPI document and two identities. Used by the CI test and `npm run bench security-corpus`.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineOutcome, Task } from '../../src/domain/scan.js';
import { createSecurityEngine } from '../../src/engines/security/index.js';
import { makeCtx } from '../engines/security/helpers.js';
import { highFindings, startRealApp } from '../engines/security/real-apps.js';
import { type CorpusApp, type Edit, FIXTURES, type Flaw } from './apps.js';

/** Applies `edit` to the copy in `appDir`: its `from` must occur exactly once (a patch that no longer applies fails loudly). */
export function applyEdit(appDir: string, edit: Edit): void {
  const path = join(appDir, edit.file);
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(edit.from);
  if (at < 0 || text.indexOf(edit.from, at + 1) >= 0) throw new Error(`${edit.file}: the text to replace occurs ${at < 0 ? 'nowhere' : 'more than once'}`);
  writeFileSync(path, text.slice(0, at) + edit.to + text.slice(at + edit.from.length));
}

export interface VariantRun {
  outcome: EngineOutcome;
  seconds: number;
}

/** Starts `app` (with `flaw` injected, or unpatched), scans it, stops it. */
export async function scanVariant(app: CorpusApp, flaw?: Flaw): Promise<VariantRun> {
  const started = Date.now();
  const target = await startRealApp(`${app.name}-${flaw?.id ?? 'twin'}`, { ...app.start }, app.ready, (dir) => {
    const appDir = join(dir, 'app');
    cpSync(join(FIXTURES, app.fixture), appDir, { recursive: true });
    for (const edit of flaw?.edits ?? []) applyEdit(appDir, edit);
    app.prepare?.(dir);
  });
  try {
    const setup = await app.setup(target.url);
    const engine = createSecurityEngine({
      tuning: { timeDelayMs: 500, rateLimitBurst: 20, oversizeBodyBytes: 1024 * 1024, jwtSecretSearchMs: 5000, recoveryWaitMs: 5000 },
    });
    const outcome = await engine.run(makeCtx({ url: target.url, spec_url: setup.spec_url, auth: setup.auth, options: { timeout: 5 } as never }));
    return { outcome, seconds: (Date.now() - started) / 1000 };
  } finally {
    await target.close();
  }
}

/** The failed tasks that find `flaw`: one of its checks, on one of its operations. */
export function findingsOf(outcome: EngineOutcome, flaw: Flaw): Task[] {
  return outcome.tasks.filter((t) => t.status === 'failed' && flaw.checks.includes(t.check ?? '') && flaw.endpoints.includes(t.endpoint ?? ''));
}

/** Coverage: operations some identity (or none) got a 2xx from, of those the document declares. */
export function coverageOf(outcome: EngineOutcome): { reached: number; total: number } {
  const cov = outcome.security!.coverage;
  return { reached: cov.operations_2xx, total: cov.operations_total };
}

/** High or critical findings on the unpatched twin, as "severity check endpoint: name". */
export function twinHighs(outcome: EngineOutcome): string[] {
  return highFindings(outcome).map((t) => `${t.severity} ${t.check} ${t.endpoint ?? ''}: ${t.name}`);
}
