/**
 * Real open-source API applications (npm packages nobody here wrote) as scan targets: each runs in
 * its own child process, on loopback and a port the system picks, with its data in a temporary
 * directory. What every test of them asserts about a scan's outcome lives here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineOutcome, Task } from '../../../src/domain/scan.js';
import { runCommand, runScript, type VigilProcess } from '../../helpers/process.js';

export interface RealApp {
  url: string;
  dir: string;
  process: VigilProcess;
  close(): Promise<void>;
}

/**
 * How an app starts, in the temporary directory, with its environment (REAL_APP_DIR, that directory, is added):
 * a script of this repository (test/fixtures/real-apps/*.ts, run by Node with tsx), or any command (an app
 * written in another language).
 */
export type AppStart = { script: string; env?: Record<string, string> } | AppCommand;

export interface AppCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** Starts the app in a fresh temporary directory prepared by `prepare`; `ready` matches the port or URL it prints. */
export async function startRealApp(name: string, start: AppStart, ready: RegExp, prepare: (dir: string) => void): Promise<RealApp> {
  const dir = mkdtempSync(join(tmpdir(), `vigil-${name}-`));
  prepare(dir);
  const env = { ...start.env, REAL_APP_DIR: dir };
  const proc = 'script' in start ? runScript(start.script, [], env, { cwd: dir }) : runCommand(start.command, start.args, env, dir);
  const [, found] = await proc.waitFor(ready, 60_000);
  const url = /^\d+$/.test(found) ? `http://127.0.0.1:${found}` : found.replace(/\/$/, '');
  return {
    url,
    dir,
    process: proc,
    async close() {
      proc.child.kill('SIGKILL');
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Operations some identity (or none) got a 2xx from. */
export function reachedOperations(outcome: EngineOutcome): Set<string> {
  return new Set(
    outcome.security!.coverage.operations.filter((o) => o.reached_2xx.primary || o.reached_2xx.secondary || o.reached_2xx.anonymous).map((o) => o.endpoint),
  );
}

/** Passed tasks on an operation of the spec that never answered 2xx to anyone: each one a verdict the scan has no ground for. */
export function passedOnUnreached(outcome: EngineOutcome): string[] {
  const reached = reachedOperations(outcome);
  const known = new Set(outcome.security!.coverage.operations.map((o) => o.endpoint));
  return outcome.tasks
    .filter((t) => t.status === 'passed' && t.endpoint && known.has(t.endpoint) && !reached.has(t.endpoint))
    .map((t) => `${t.check} ${t.endpoint}: ${t.name}`);
}

/** Failed tasks of severity high or critical, as "check endpoint: name". */
export function highFindings(outcome: EngineOutcome): Task[] {
  return outcome.tasks.filter((t) => t.status === 'failed' && (t.severity === 'high' || t.severity === 'critical'));
}

/** Not-tested counts by reason, over every check. */
export function notTestedByReason(outcome: EngineOutcome): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of outcome.security!.coverage.checks) for (const n of c.not_run) out[n.reason] = (out[n.reason] ?? 0) + n.count;
  return out;
}

/** One line: operations reached, findings by severity, not-tested by reason. */
export function summaryLine(app: string, outcome: EngineOutcome): string {
  const cov = outcome.security!.coverage;
  const bySeverity: Record<string, number> = {};
  for (const t of outcome.tasks) if (t.status === 'failed') bySeverity[t.severity ?? 'none'] = (bySeverity[t.severity ?? 'none'] ?? 0) + 1;
  const reasons = Object.entries(notTestedByReason(outcome))
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${n}× ${r}`)
    .join('; ');
  return `${app}: ${cov.operations_2xx}/${cov.operations_total} operations reached 2xx; findings ${JSON.stringify(bySeverity)}; not tested: ${reasons || 'none'}`;
}

/** Every finding, for the test's own output when an assertion on them fails. */
export function describeFindings(tasks: Task[]): string {
  return tasks.map((t) => `[${t.severity}] ${t.check} ${t.endpoint ?? ''} ${t.name}\n  ${(t.evidence ?? '').slice(0, 400).replace(/\n/g, '\n  ')}`).join('\n');
}
