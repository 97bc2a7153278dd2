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
import { highFindings, type RealApp, startRealApp } from '../engines/security/real-apps.js';
import type { CorpusApp, Edit, Flaw, ScanSetup } from './apps.js';

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

export interface RunningVariant {
  target: RealApp;
  setup: ScanSetup;
}

/** Starts `app` (with `flaw` injected, or unpatched) in a temporary copy and makes its accounts: the target, and what the scan is given. */
export async function startVariant(app: CorpusApp, flaw?: Flaw): Promise<RunningVariant> {
  const target = await startRealApp(`${app.name}-${flaw?.id ?? 'twin'}`, app.start, app.ready, (dir) => {
    const appDir = join(dir, 'app');
    cpSync(app.source, appDir, { recursive: true });
    for (const edit of flaw?.edits ?? []) applyEdit(appDir, edit);
    app.prepare?.(dir);
  });
  try {
    return { target, setup: await app.setup(target.url) };
  } catch (error) {
    await target.close();
    throw error;
  }
}

/** Scans a running app with what its setup gave, with the tuning every real-app scan here uses (short delays, 1 MiB bodies). */
export async function scanTarget(url: string, setup: ScanSetup): Promise<EngineOutcome> {
  const engine = createSecurityEngine({
    tuning: { timeDelayMs: 500, rateLimitBurst: 20, oversizeBodyBytes: 1024 * 1024, jwtSecretSearchMs: 5000, recoveryWaitMs: 5000 },
  });
  return engine.run(makeCtx({ url, spec_url: setup.spec_url, spec_text: setup.spec_text, auth: setup.auth, options: { timeout: 5 } as never }));
}

/** Starts `app` (with `flaw` injected, or unpatched), scans it, stops it. */
export async function scanVariant(app: CorpusApp, flaw?: Flaw): Promise<VariantRun> {
  const started = Date.now();
  const { target, setup } = await startVariant(app, flaw);
  try {
    const outcome = await scanTarget(target.url, setup);
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

const findingKey = (t: Task) => `${t.severity} ${t.check} ${t.endpoint ?? ''}`;

/** High or critical findings on the unpatched twin that are not true of the app (its `trueFindings`), as "severity check endpoint: name". */
export function twinHighs(outcome: EngineOutcome, app: CorpusApp): string[] {
  return highFindings(outcome)
    .filter((t) => !app.trueFindings?.includes(findingKey(t)))
    .map((t) => `${findingKey(t)}: ${t.name}`);
}

/** The app's true findings (`trueFindings`) the scan of the twin raised, and those it did not. */
export function trueFindingsOf(outcome: EngineOutcome, app: CorpusApp): { raised: string[]; missed: string[] } {
  const keys = new Set(highFindings(outcome).map(findingKey));
  const known = app.trueFindings ?? [];
  return { raised: known.filter((k) => keys.has(k)), missed: known.filter((k) => !keys.has(k)) };
}
