/**
 * A test-only engine for queue and API tests, steered by the scan URL's query string:
 *   delay_ms=N   how long the run takes (progress reported along the way)
 *   outcome=     pass (default) | findings | fail (EngineFailure) | crash (unexpected error) | hang (ignores the clock, honours abort)
 *   tasks=N      number of tasks (default 3)
 *   phase=NAME   also report this phase and the findings so far (1 for outcome=findings, else 0) with every progress, from the start
 *   busy_ms=N    first hold the event loop for N ms of synchronous work (an engine busy on CPU: parsing, diffing)
 * It records every run, so tests can see which scans ran, how often, and whether abort arrived; `observer`
 * hears each run start and end (a worker process prints them, so a test sees runs across processes).
 */
import { EngineFailure, type EngineContext, type ScanEngine } from '../../src/engines/engine.js';
import type { EngineOutcome, Task } from '../../src/domain/scan.js';

export interface RunRecord {
  scanId: string;
  kind: string;
  aborted: boolean;
  authSeen: unknown;
}

export interface RunObserver {
  started?(record: RunRecord): void;
  ended?(record: RunRecord): void;
}

export function testEngine(kind: 'security' | 'functional', runs: RunRecord[] = [], observer: RunObserver = {}): ScanEngine & { runs: RunRecord[] } {
  return {
    kind,
    runs,
    async run(ctx: EngineContext): Promise<EngineOutcome> {
      const record: RunRecord = { scanId: ctx.scanId, kind, aborted: false, authSeen: ctx.input.auth };
      runs.push(record);
      observer.started?.(record);
      try {
        return await runSteps(ctx, kind, record);
      } finally {
        observer.ended?.(record);
      }
    },
  };
}

async function runSteps(ctx: EngineContext, kind: 'security' | 'functional', record: RunRecord): Promise<EngineOutcome> {
  const params = new URL(ctx.input.url).searchParams;
  const busy = Number(params.get('busy_ms') ?? 0);
  for (const until = Date.now() + busy; Date.now() < until; );
  const delay = Number(params.get('delay_ms') ?? 50);
  const outcome = params.get('outcome') ?? 'pass';
  const count = Number(params.get('tasks') ?? 3);
  const steps = 5;
  const phase = params.get('phase');
  const detail = phase ? { phase, findings: outcome === 'findings' ? 1 : 0 } : undefined;
  if (detail) ctx.progress(1, detail);
  for (let i = 1; i <= steps; i += 1) {
    await sleep(outcome === 'hang' ? 3_600_000 : delay / steps, ctx.signal).catch(() => {
      record.aborted = true;
    });
    if (ctx.signal.aborted) {
      record.aborted = true;
      throw new Error('aborted');
    }
    ctx.progress((i / steps) * 100, detail);
  }
  if (outcome === 'fail') throw new EngineFailure('TARGET_UNREACHABLE', 'The target did not answer (test engine)');
  if (outcome === 'crash') throw new TypeError('boom (test engine)');
  const tasks: Task[] = Array.from({ length: count }, (_, i) => ({
    task_id: `${kind}-${i + 1}`,
    // The second task's name looks like a spreadsheet formula, to prove exports neutralise it.
    name: i === 1 ? '=HYPERLINK("http://evil.test","click")' : `${kind} check ${i + 1}`,
    status: outcome === 'findings' && i === 0 ? 'failed' : 'passed',
    ...(kind === 'security'
      ? { severity: i === 0 ? 'critical' : 'low', evidence: `GET /thing/${i} -> 200 "=cmd|' /C calc'!A0"`, owasp: 'API1:2023', cwe: 'CWE-639', check: 'test' }
      : { duration_ms: 10 + i, ...(outcome === 'findings' && i === 0 ? { error: 'diff above threshold' } : {}) }),
  }));
  return { tasks, agent_count: kind === 'security' ? ctx.input.options.concurrency : 1 };
}

export function testEngines(runs: RunRecord[] = [], observer: RunObserver = {}) {
  return { security: testEngine('security', runs, observer), functional: testEngine('functional', runs, observer) };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
