/**
 * The stateful engine against two apps shaped like real small APIs (Flask, FastAPI), each with a
 * fixed twin: every documented flaw is found on the vulnerable instance, nothing on the fixed one
 * beyond the flaws both share, and the scan leaves the target usable (a database reset in the spec
 * runs after everything else, or never in safe mode).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { EngineOutcome, Task } from '../../../src/domain/scan.js';
import {
  FLASK_BY_DESIGN,
  FLASK_GROUND_TRUTH,
  FLASK_SHARED_FLAWS,
  flaskSpec,
  loginTokens as flaskTokens,
  startFlaskFixture,
  type FlaskFixture,
} from '../../fixtures/stateful-flask/index.js';
import {
  FASTAPI_GROUND_TRUTH,
  fastapiSpec,
  loginTokens as fastapiTokens,
  startFastapiFixture,
  type FastapiFixture,
} from '../../fixtures/stateful-fastapi/index.js';
import { makeCtx } from './helpers.js';

// The secret search stops when it finds the key (both fixtures use a 6-digit one, about 1.3M candidates in),
// so the budget only bounds a search that finds nothing; it is generous because a loaded 2-core machine
// needed more than 15 s to reach the FastAPI fixture's key.
const TUNING = {
  timeDelayMs: 300,
  rateLimitBurst: 20,
  oversizeBodyBytes: 256 * 1024,
  redosLengths: [18, 24] as [number, number],
  redosThresholdMs: 300,
  jwtSecretSearchMs: 300_000,
};

/** JWT flaws are target-wide: told apart by the finding's name. */
const JWT_NAMES: Record<string, RegExp> = {
  'jwt-signature-not-verified': /signature/i,
  'jwt-weak-secret': /weak|secret/i,
  'jwt-alg-none': /none/i,
  'jwt-expired-accepted': /expired/i,
};

interface Truth {
  id: string;
  check: string;
  endpoint: string;
  alsoFoundBy?: string[];
}

function found(tasks: Task[], flaw: Truth): boolean {
  const checks = [flaw.check, ...(flaw.alsoFoundBy ?? [])];
  return tasks.some(
    (t) =>
      t.status === 'failed' &&
      checks.includes(t.check ?? '') &&
      (flaw.check === 'jwt' ? (JWT_NAMES[flaw.id] ?? /./).test(t.name) : t.endpoint === flaw.endpoint || (t.endpoints ?? []).includes(flaw.endpoint)),
  );
}

/** Failed tasks of a fixed twin that are not flaws both instances really share. */
function falsePositives(tasks: Task[], shared: (t: Task) => boolean): Task[] {
  return tasks.filter((t) => t.status === 'failed' && !shared(t));
}

const report = (label: string, truth: readonly Truth[], vuln: Task[], fixedFps: Task[]) => {
  const hits = truth.filter((f) => found(vuln, f));
  const missed = truth.filter((f) => !found(vuln, f)).map((f) => f.id);
  console.log(
    `${label}: detected ${hits.length}/${truth.length}${missed.length ? ` (missed: ${missed.join(', ')})` : ''}, false positives on the fixed twin: ${fixedFps.length}${fixedFps.length ? ` (${fixedFps.map((t) => `${t.check} ${t.endpoint} ${t.name}`).join('; ')})` : ''}`,
  );
};

describe('stateful scan of a Flask-shaped API', () => {
  let vulnFx: FlaskFixture;
  let fixedFx: FlaskFixture;
  let vuln: EngineOutcome;
  let fixed: EngineOutcome;
  // One spec describes both instances: the fixed one has no debug route, so its 404 there is
  // rightly undeclared (the documentation drifted from the app), not a twin's false positive.
  const sharedFlask = (t: Task) =>
    (t.check === 'schema-conformance' && t.endpoint === 'GET /users/v1/_debug') ||
    [...FLASK_SHARED_FLAWS, ...FLASK_BY_DESIGN].some(
      (s) => s.check === t.check && (s.endpoint === '*' || s.endpoint === t.endpoint || (t.endpoints ?? []).includes(s.endpoint)),
    );

  beforeAll(async () => {
    [vulnFx, fixedFx] = await Promise.all([startFlaskFixture({ vulnerable: true }), startFlaskFixture({ vulnerable: false, authLimitPerMinute: 10 })]);
    const engine = createSecurityEngine({ tuning: TUNING });
    const scan = async (fx: FlaskFixture) => {
      const ids = await flaskTokens(fx);
      return engine.run(
        makeCtx({
          url: fx.url,
          spec_text: JSON.stringify(flaskSpec(fx.url)),
          auth: { type: 'bearer', token: ids.primary, secondary: { type: 'bearer', token: ids.secondary } },
        }),
      );
    };
    [vuln, fixed] = await Promise.all([scan(vulnFx), scan(fixedFx)]);
  }, 600_000);

  afterAll(async () => {
    if (vuln && fixed) report('flask fixture', FLASK_GROUND_TRUTH, vuln.tasks, falsePositives(fixed.tasks, sharedFlask));
    await Promise.all([vulnFx?.close(), fixedFx?.close()]);
  });

  it.each(FLASK_GROUND_TRUTH.map((f) => [f.id, f] as const))('finds %s on the vulnerable instance', (_id, flaw) => {
    expect(found(vuln.tasks, flaw), JSON.stringify(vuln.tasks.filter((t) => t.check === flaw.check).map((t) => [t.endpoint, t.name, t.status]))).toBe(true);
  });

  it('reports nothing on the fixed twin beyond the flaws both share', () => {
    expect(falsePositives(fixed.tasks, sharedFlask).map((t) => `${t.check} ${t.endpoint} ${t.name}: ${t.evidence?.slice(0, 300)}`)).toEqual([]);
  });

  it('runs the database reset after every other operation', () => {
    for (const fx of [vulnFx, fixedFx]) {
      expect(fx.resetCount()).toBeGreaterThan(0);
      const after = fx.requests().filter((r) => r.afterReset && r.path !== '/createdb');
      expect(after.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    }
  });

  it('reports coverage: operations reached with each identity, checks and why they did not run', () => {
    const cov = vuln.security!.coverage;
    expect(cov.operations_total).toBe(flaskSpecOps());
    expect(cov.operations_2xx).toBeGreaterThan(cov.operations_total / 2);
    const book = cov.operations.find((o) => o.endpoint === 'GET /books/v1/{title}')!;
    expect(book.reached_2xx.primary).toBe(true);
    expect(book.invented_values).toBeUndefined();
    expect(cov.resources_created).toBeGreaterThan(0);
    const bola = cov.checks.find((c) => c.check === 'bola')!;
    expect(bola.ran).toBeGreaterThan(0);
    expect(bola.not_run.some((n) => /public by design/.test(n.reason))).toBe(true);
    expect(vuln.security!.warnings).toEqual([]);
    expect(vuln.security!.checks.find((c) => c.id === 'bola')!.remediation.length).toBeGreaterThan(40);
  });
});

function flaskSpecOps(): number {
  const spec = flaskSpec('http://x') as { paths: Record<string, Record<string, unknown>> };
  return Object.values(spec.paths).reduce(
    (n, item) => n + Object.keys(item).filter((k) => /^(get|put|post|delete|patch|head|options|trace)$/.test(k)).length,
    0,
  );
}

describe('stateful scan of a FastAPI-shaped API', () => {
  let vulnFx: FastapiFixture;
  let fixedFx: FastapiFixture;
  let vuln: EngineOutcome;
  let fixed: EngineOutcome;
  let safe: EngineOutcome;
  let safeFx: FastapiFixture;
  // Both instances are FastAPI apps without security headers or a login rate limit: real on both, not twins.
  // Both twins take FastAPI's `limit: int = 100` with no upper bound (`le=`): a page size 1,000 times
  // the default is accepted, a flaw the fixed twin shares.
  const sharedFastapi = (t: Task) =>
    ['misconfiguration', 'rate-limit', 'http-methods'].includes(t.check ?? '') || (t.check === 'resource-consumption' && /^Oversized page size/.test(t.name));

  beforeAll(async () => {
    [vulnFx, fixedFx, safeFx] = await Promise.all([
      startFastapiFixture({ vulnerable: true }),
      startFastapiFixture({ vulnerable: false }),
      startFastapiFixture({ vulnerable: true }),
    ]);
    const engine = createSecurityEngine({ tuning: TUNING });
    const scan = async (fx: FastapiFixture, safeMode = false) => {
      const ids = await fastapiTokens(fx);
      return engine.run(
        makeCtx({
          url: fx.url,
          spec_text: JSON.stringify(fastapiSpec(fx.url)),
          auth: { type: 'bearer', token: ids.primary, secondary: { type: 'bearer', token: ids.secondary } },
          options: { safe_mode: safeMode } as never,
        }),
      );
    };
    [vuln, fixed, safe] = await Promise.all([scan(vulnFx), scan(fixedFx), scan(safeFx, true)]);
  }, 600_000);

  afterAll(async () => {
    if (vuln && fixed) report('fastapi fixture', FASTAPI_GROUND_TRUTH, vuln.tasks, falsePositives(fixed.tasks, sharedFastapi));
    await Promise.all([vulnFx?.close(), fixedFx?.close(), safeFx?.close()]);
  });

  it.each(FASTAPI_GROUND_TRUTH.map((f) => [f.id, f] as const))('finds %s on the vulnerable instance', (_id, flaw) => {
    expect(found(vuln.tasks, flaw), JSON.stringify(vuln.tasks.filter((t) => t.check === flaw.check).map((t) => [t.endpoint, t.name, t.status]))).toBe(true);
  });

  it('reports nothing on the fixed twin beyond the flaws both share', () => {
    expect(falsePositives(fixed.tasks, sharedFastapi).map((t) => `${t.check} ${t.endpoint} ${t.name}: ${t.evidence?.slice(0, 300)}`)).toEqual([]);
  });

  it('runs the database reset last, and never in safe mode', () => {
    // Only an admin may reset the fixed twin; the vulnerable one lets the scan's identities do it.
    expect(vulnFx.resetCount()).toBeGreaterThan(0);
    for (const fx of [vulnFx, fixedFx]) {
      expect(
        fx
          .requestLog()
          .filter((r) => r.afterReset && !/reset-database/.test(r.path))
          .map((r) => `${r.method} ${r.path}`),
      ).toEqual([]);
    }
    expect(safeFx.resetCount()).toBe(0);
    expect(safe.security!.coverage.operations.find((o) => o.endpoint === 'POST /admin/reset-database')!.skipped).toMatch(/safe mode/);
  });

  it('sends no credentials to operations that are public by design', () => {
    const publicCalls = vulnFx.requestLog().filter((r) => r.path === '/health' || r.path === '/public/stats');
    expect(publicCalls.length).toBeGreaterThan(0);
    expect(publicCalls.filter((r) => r.sentCredentials)).toEqual([]);
  });

  it('cleans up what it created', () => {
    const cov = vuln.security!.coverage;
    expect(cov.resources_created).toBeGreaterThan(0);
    expect(fixed.security!.coverage.resources_deleted).toBeGreaterThan(0);
  });
});
