/**
 * Stateful security scan cost: requests and time of a full scan (discovery, two identities,
 * authorization checks, clean-up) of the Flask- and FastAPI-shaped vulnerable fixtures, next to a
 * baseline measured in the same run: the same engine with one identity and the stateful checks
 * (bola, bfla, mass-assignment) off, i.e. what a stateless scan sends. Prints flaws found,
 * requests per flaw found, and the request and time ratios (target: at most 2x the requests).
 */
import { createSecurityEngine } from '../src/engines/security/index.js';
import { CHECKS } from '../src/engines/security/checks/index.js';
import type { Task } from '../src/domain/scan.js';
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
  start(): Promise<{ url: string; close(): Promise<void>; count(): number; tokens(): Promise<{ primary: string; secondary: string }>; spec(): unknown }>;
}

const TARGETS: Target[] = [
  {
    name: 'flask',
    truth: FLASK_GROUND_TRUTH,
    async start() {
      const fx = await startFlaskFixture({ vulnerable: true });
      return { url: fx.url, close: () => fx.close(), count: () => fx.requests().length, tokens: () => flaskTokens(fx), spec: () => flaskSpec(fx.url) };
    },
  },
  {
    name: 'fastapi',
    truth: FASTAPI_GROUND_TRUTH,
    async start() {
      const fx = await startFastapiFixture({ vulnerable: true });
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

async function scan(target: Target, stateful: boolean) {
  const fx = await target.start();
  try {
    const ids = await fx.tokens();
    const before = fx.count();
    const engine = createSecurityEngine({ tuning: { ...TUNING, onlyChecks: CHECKS.map((c) => c.id).filter((id) => stateful || !STATEFUL.has(id)) } });
    const auth = stateful
      ? { type: 'bearer' as const, token: ids.primary, secondary: { type: 'bearer' as const, token: ids.secondary } }
      : { type: 'bearer' as const, token: ids.primary };
    const started = performance.now();
    const out = await engine.run(makeCtx({ url: fx.url, spec_text: JSON.stringify(fx.spec()), auth }));
    return { ms: performance.now() - started, requests: fx.count() - before, flaws: found(out.tasks, target.truth) };
  } finally {
    await fx.close();
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
}
