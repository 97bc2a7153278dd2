/**
 * Honest verdicts against a DRF-shaped API in its own single-threaded process (test/fixtures/drf-tokens):
 * a `passed` only where the check's requests reached the code it tests; operations no identity
 * is allowed to call, bodies the spec under-describes and 5xx answers are `not_tested` with the
 * reason; the size probe pads free text, not the validated email whose backtracking freezes the worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { NOT_RUN_CODES, type EngineOutcome } from '../../../src/domain/scan.js';
import { drfSpec, startDrfFixture, type DrfFixture } from '../../fixtures/drf-tokens/index.js';
import { makeCtx } from './helpers.js';

const TUNING = {
  timeDelayMs: 300,
  rateLimitBurst: 10,
  oversizeBodyBytes: 256 * 1024,
  redosLengths: [18, 26] as [number, number],
  redosThresholdMs: 400,
  jwtSecretSearchMs: 2000,
};

const tokenAuth = (fx: DrfFixture) => ({
  type: 'header' as const,
  header_name: 'Authorization',
  header_value: `Token ${fx.tokens.alice}`,
  secondary: { type: 'header' as const, header_name: 'Authorization', header_value: `Token ${fx.tokens.bob}` },
});

function scan(fx: DrfFixture): Promise<EngineOutcome> {
  const engine = createSecurityEngine({ tuning: TUNING });
  return engine.run(makeCtx({ url: fx.url, spec_text: JSON.stringify(drfSpec()), auth: tokenAuth(fx), options: { timeout: 4 } as never }));
}

/** Reasons the coverage gives for a check not tested on an operation. */
function notTestedReasons(outcome: EngineOutcome, endpoint: string): string[] {
  return outcome.security!.coverage.checks.flatMap((c) => c.not_run.filter((n) => n.endpoints.includes(endpoint)).map((n) => `${c.check}: ${n.reason}`));
}

/** The same as codes: `check: reason_code`. */
function notTestedCodes(outcome: EngineOutcome, endpoint: string): string[] {
  return outcome.security!.coverage.checks.flatMap((c) => c.not_run.filter((n) => n.endpoints.includes(endpoint)).map((n) => `${c.check}: ${n.reason_code}`));
}

describe.each([
  ['vulnerable', true],
  ['fixed', false],
])('verdicts on the DRF-shaped API (%s)', (_label, vulnerable) => {
  let fx: DrfFixture;
  let outcome: EngineOutcome;

  beforeAll(async () => {
    fx = await startDrfFixture({ vulnerable });
    outcome = await scan(fx);
  }, 600_000);
  afterAll(async () => {
    await fx?.close();
  });

  it('passes nothing on operations no identity reached', () => {
    const reached = new Set(
      outcome.security!.coverage.operations.filter((o) => o.reached_2xx.primary || o.reached_2xx.secondary || o.reached_2xx.anonymous).map((o) => o.endpoint),
    );
    for (const endpoint of ['GET /api/admin/users/', 'POST /api/admin/users/{username}/role/', 'POST /api/reports/']) {
      expect(reached.has(endpoint), endpoint).toBe(false);
      const passed = outcome.tasks.filter((t) => t.status === 'passed' && t.endpoint === endpoint);
      expect(
        passed.map((t) => `${t.check}: ${t.name}`),
        endpoint,
      ).toEqual([]);
    }
    // The invariant, whole: a pass only on an operation that answered 2xx to someone (or whose check saw its own evidence).
    const passedUnreached = outcome.tasks.filter(
      (t) => t.status === 'passed' && t.endpoint && !reached.has(t.endpoint) && outcome.security!.coverage.operations.some((o) => o.endpoint === t.endpoint),
    );
    expect(passedUnreached.map((t) => `${t.check} ${t.endpoint}: ${t.name}`)).toEqual([]);
  });

  it('says why: never authorised, and a body that could not be made valid', () => {
    const admin = notTestedReasons(outcome, 'GET /api/admin/users/');
    expect(
      admin.some((r) => /^bfla: never authorised/.test(r)),
      admin.join('\n'),
    ).toBe(true);
    const reports = notTestedReasons(outcome, 'POST /api/reports/');
    expect(
      reports.some((r) => /every attempt answered 400: the body could not be made valid/.test(r)),
      reports.join('\n'),
    ).toBe(true);
    // And as codes, set where the verdict is made: every not-run entry carries one.
    expect(notTestedCodes(outcome, 'GET /api/admin/users/')).toContain('bfla: never_authorised');
    expect(notTestedCodes(outcome, 'POST /api/reports/').some((r) => / validation_refused$/.test(r))).toBe(true);
    const codes = outcome.security!.coverage.checks.flatMap((c) => c.not_run.map((n) => n.reason_code));
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.filter((c) => !(NOT_RUN_CODES as readonly (string | undefined)[]).includes(c))).toEqual([]);
  });

  it("leaves the user's account as it was: its token still works, its login attributes were never sent", async () => {
    const me = await fetch(`${fx.url}/api/users/me/`, { headers: { authorization: `Token ${fx.tokens.alice}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe('alice');
    const ids = outcome.security!.coverage.identities!;
    expect(ids.find((i) => i.identity === 'primary')).toMatchObject({ verified: true, verified_on: 'GET /api/users/me/' });
    expect(ids.find((i) => i.identity === 'primary')?.lost_at).toBeUndefined();
    expect(outcome.security!.warnings.filter((w) => /identity/.test(w) && !/second identity \(auth.secondary\): object/.test(w))).toEqual([]);
  });

  it('reads the JWT in an `Authorization: Token <jwt>` identity: the JWT checks run with it, in its own scheme', () => {
    const jwt = outcome.security!.coverage.checks.find((c) => c.check === 'jwt')!;
    expect(jwt.not_run.map((n) => n.reason)).not.toContain('no JWT seen');
    expect(jwt.ran).toBeGreaterThan(0);
    // The forged tokens travel as the identity's own did: nothing the fixture accepts, so no finding.
    expect(outcome.tasks.filter((t) => t.check === 'jwt' && t.status === 'failed')).toEqual([]);
  });

  it('pads free text in the size probe, finds the backtracking email and leaves the worker answering', async () => {
    expect(await fx.alive()).toBe(true);
    const redos = outcome.tasks.find((t) => t.check === 'resource-consumption' && t.endpoint === 'POST /api/newsletter/' && /Backtracking/.test(t.name));
    expect(redos?.status).toBe(vulnerable ? 'failed' : 'passed');
    const oversize = outcome.tasks.find(
      (t) => t.check === 'resource-consumption' && t.endpoint === 'POST /api/newsletter/' && /Oversized request body/.test(t.name),
    );
    expect(oversize?.status).toBe('passed');
  });
});

describe('a target that stops answering mid-scan (a huge page size freezes the worker)', () => {
  let fx: DrfFixture;
  let outcome: EngineOutcome;

  beforeAll(async () => {
    fx = await startDrfFixture({ vulnerable: true, fragile: true });
    const engine = createSecurityEngine({ tuning: { ...TUNING, recoveryWaitMs: 3000 } });
    outcome = await engine.run(makeCtx({ url: fx.url, spec_text: JSON.stringify(drfSpec()), auth: tokenAuth(fx), options: { timeout: 3 } as never }));
  }, 600_000);
  afterAll(async () => {
    await fx?.close();
  });

  it('reports the outage as a finding on the operation whose probe caused it, with that request', () => {
    expect(stillRunning(fx)).toBe(true);
    const dos = outcome.tasks.find((t) => t.status === 'failed' && /stopped answering/.test(t.name));
    expect(dos?.endpoint).toBe('GET /api/search/');
    expect(dos?.check).toBe('resource-consumption');
    expect(dos?.evidence).toMatch(/page_size=\d{6}/);
  });

  it('says at the top that the target went down, when, and stops: the rest is not tested with that reason', () => {
    const security = outcome.security!;
    expect(security.target_down?.endpoint).toBe('GET /api/search/');
    expect(Date.parse(security.target_down!.at)).toBeGreaterThan(0);
    expect(security.warnings[0]).toMatch(/^The target stopped answering at .* after the resource-consumption check's probe on GET \/api\/search\//);
    const reasons = security.coverage.checks.flatMap((c) =>
      c.not_run.filter((n) => /^the target stopped answering at/.test(n.reason)).flatMap((n) => n.endpoints),
    );
    expect(reasons).toContain('POST /api/newsletter/');
    const down = security.coverage.checks.flatMap((c) => c.not_run.filter((n) => n.reason_code === 'target_down').flatMap((n) => n.endpoints));
    expect(down.sort()).toEqual(reasons.sort());
    // Nothing on an operation of a later phase passed: it was never tested.
    expect(outcome.tasks.filter((t) => t.status === 'passed' && (t.endpoint === 'POST /api/newsletter/' || t.endpoint === 'PATCH /api/users/me/'))).toEqual([]);
  });
});

/** The frozen fixture process is still running (frozen, not crashed): the outage is the target's, not the test's. */
function stillRunning(fx: DrfFixture): boolean {
  return fx.process.child.exitCode === null;
}
