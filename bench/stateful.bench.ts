/**
 * Stateful security scan cost: requests and time of a full scan (discovery, two identities,
 * authorization checks, clean-up) of the Flask- and FastAPI-shaped vulnerable fixtures, next to a
 * baseline measured in the same run: the same engine with one identity and the stateful checks
 * (bola, bfla, mass-assignment) off, i.e. what a stateless scan sends. Prints flaws found,
 * requests per flaw found, and the request and time ratios (target: at most 2x the requests).
 * Then the verdicts of the full scan on each fixture and on its fixed twin: flaws found of the
 * documented ones, false positives (high or critical findings on the fixed twin, where every
 * documented flaw is fixed; and all its findings), and the check runs not tested, by reason code.
 */
import { createSecurityEngine } from '../src/engines/security/index.js';
import { CHECKS } from '../src/engines/security/checks/index.js';
import type { SecurityOutcome, Task } from '../src/domain/scan.js';
import { makeCtx } from '../test/engines/security/helpers.js';
import { FLASK_GROUND_TRUTH, flaskSpec, loginTokens as flaskTokens, startFlaskFixture } from '../test/fixtures/stateful-flask/index.js';
import { FASTAPI_GROUND_TRUTH, fastapiSpec, loginTokens as fastapiTokens, startFastapiFixture } from '../test/fixtures/stateful-fastapi/index.js';

const TUNING = {
  timeDelayMs: 300,
  rateLimitBurst: 20,
  oversizeBodyBytes: 256 * 1024,
  redosLengths: [18, 24] as [number, number],
  redosThresholdMs: 300,
  jwtSecretSearchMs: 15_000,
};
const STATEFUL = new Set(['bola', 'bfla', 'mass-assignment']);

interface Target {
  name: string;
  truth: readonly { check: string; endpoint: string; alsoFoundBy?: string[] }[];
  start(
    vulnerable?: boolean,
  ): Promise<{ url: string; close(): Promise<void>; count(): number; tokens(): Promise<{ primary: string; secondary: string }>; spec(): unknown }>;
}

const TARGETS: Target[] = [
  {
    name: 'flask',
    truth: FLASK_GROUND_TRUTH,
    async start(vulnerable = true) {
      const fx = await startFlaskFixture({ vulnerable });
      return { url: fx.url, close: () => fx.close(), count: () => fx.requests().length, tokens: () => flaskTokens(fx), spec: () => flaskSpec(fx.url) };
    },
  },
  {
    name: 'fastapi',
    truth: FASTAPI_GROUND_TRUTH,
    async start(vulnerable = true) {
      const fx = await startFastapiFixture({ vulnerable });
      return { url: fx.url, close: () => fx.close(), count: () => fx.requestLog().length, tokens: () => fastapiTokens(fx), spec: () => fastapiSpec(fx.url) };
    },
  },
];

function found(tasks: Task[], truth: Target['truth']): number {
  return truth.filter((f) =>
    tasks.some(
      (t) =>
        t.status === 'failed' &&
        [f.check, ...(f.alsoFoundBy ?? [])].includes(t.check ?? '') &&
        (f.check === 'jwt' || t.endpoint === f.endpoint || (t.endpoints ?? []).includes(f.endpoint)),
    ),
  ).length;
}

async function scan(target: Target, stateful: boolean, vulnerable = true) {
  const fx = await target.start(vulnerable);
  try {
    const ids = await fx.tokens();
    const before = fx.count();
    const engine = createSecurityEngine({ tuning: { ...TUNING, onlyChecks: CHECKS.map((c) => c.id).filter((id) => stateful || !STATEFUL.has(id)) } });
    const auth = stateful
      ? { type: 'bearer' as const, token: ids.primary, secondary: { type: 'bearer' as const, token: ids.secondary } }
      : { type: 'bearer' as const, token: ids.primary };
    const started = performance.now();
    const out = await engine.run(makeCtx({ url: fx.url, spec_text: JSON.stringify(fx.spec()), auth }));
    return { ms: performance.now() - started, requests: fx.count() - before, flaws: found(out.tasks, target.truth), tasks: out.tasks, security: out.security };
  } finally {
    await fx.close();
  }
}

/** Check runs not tested, summed by reason code ("never_authorised 12, validation_refused 3"). */
function notTestedByReason(security: SecurityOutcome | undefined): string {
  const byCode = new Map<string, number>();
  for (const c of security?.coverage.checks ?? []) {
    for (const n of c.not_run) {
      if (n.reason_code === 'not_applicable' || n.reason_code === 'excluded') continue;
      byCode.set(n.reason_code ?? 'uncoded', (byCode.get(n.reason_code ?? 'uncoded') ?? 0) + n.count);
    }
  }
  const parts = [...byCode].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code} ${n}`);
  return parts.length ? parts.join(', ') : 'none';
}

async function verdicts(): Promise<void> {
  process.stdout.write(`\nVerdicts of the full (stateful) scan, fixture and fixed twin\n`);
  process.stdout.write(
    `${'target'.padEnd(9)}${'twin'.padStart(12)}${'flaws found'.padStart(13)}${'high+ findings'.padStart(16)}${'all findings'.padStart(14)}  not tested (check runs, by reason)\n`,
  );
  for (const target of TARGETS) {
    for (const vulnerable of [true, false]) {
      const r = await scan(target, true, vulnerable);
      const failed = r.tasks.filter((t) => t.status === 'failed');
      const high = failed.filter((t) => t.severity === 'high' || t.severity === 'critical');
      const flaws = vulnerable ? `${r.flaws}/${target.truth.length}` : '-';
      process.stdout.write(
        `${target.name.padEnd(9)}${(vulnerable ? 'vulnerable' : 'fixed').padStart(12)}${flaws.padStart(13)}${String(high.length).padStart(16)}${String(failed.length).padStart(14)}  ${notTestedByReason(r.security)}\n`,
      );
      if (!vulnerable) for (const t of high) process.stdout.write(`${''.padEnd(9)}  false positive? ${t.severity} ${t.check} ${t.endpoint ?? ''}: ${t.name}\n`);
    }
  }
}

export async function run(): Promise<void> {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  process.stdout.write(`${'target'.padEnd(9)}${pad('mode', 10)}${pad('requests', 10)}${pad('time s', 9)}${pad('flaws', 8)}${pad('req/flaw', 10)}\n`);
  for (const target of TARGETS) {
    const base = await scan(target, false);
    const full = await scan(target, true);
    for (const [mode, r] of [
      ['stateless', base],
      ['stateful', full],
    ] as const) {
      process.stdout.write(
        `${target.name.padEnd(9)}${pad(mode, 10)}${pad(r.requests, 10)}${pad((r.ms / 1000).toFixed(1), 9)}${pad(`${r.flaws}/${target.truth.length}`, 8)}${pad(r.flaws ? (r.requests / r.flaws).toFixed(0) : '-', 10)}\n`,
      );
    }
    process.stdout.write(
      `${target.name.padEnd(9)} stateful/stateless: ${(full.requests / base.requests).toFixed(2)}x requests, ${(full.ms / base.ms).toFixed(2)}x time\n`,
    );
  }
  await verdicts();
}
