/**
 * The security engine core through the real engine against a small Express-shaped app
 * (test/fixtures/core-targets/things-app.ts): discovery with real ids, the scan's own resources
 * (marker, clean-up by their owner), the order that keeps the target alive, safe_mode,
 * public-by-design operations, coverage and warnings, and timing checks running alone.
 *
 * Nothing here measures time: concurrency is proven with request barriers in the target, order
 * with the target's request log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { CheckContext, CheckDefinition, Identity, Operation, SecurityTuning, TargetResponse } from '../../../src/engines/security/types.js';
import type { SecurityOutcome, TargetAuth } from '../../../src/domain/scan.js';
import {
  TOKENS,
  startThingsApp,
  thingsSpec,
  type AppOptions,
  type LoggedRequest,
  type SpecOptions,
  type ThingsApp,
} from '../../fixtures/core-targets/things-app.js';
import { makeCtx } from './helpers.js';

const TWO_IDENTITIES: TargetAuth & { secondary?: TargetAuth } = { type: 'bearer', token: TOKENS.alice, secondary: { type: 'bearer', token: TOKENS.bob } };
const ONE_IDENTITY: TargetAuth = { type: 'bearer', token: TOKENS.alice };
/** Production checks, with probes made small (no assertion here depends on their timing). */
const FAST: Partial<SecurityTuning> = { timeDelayMs: 300, rateLimitBurst: 5, oversizeBodyBytes: 64 * 1024, redosThresholdMs: 300 };
const SCAN_TIMEOUT = 180_000;

const apps: ThingsApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});
async function app(options?: AppOptions): Promise<ThingsApp> {
  const a = await startThingsApp(options);
  apps.push(a);
  return a;
}

/** An operation check that takes the engine's baseline for every operation and identity, and keeps them. */
function baselineRecorder(skip: string[] = []): { check: CheckDefinition; seen: Map<string, Partial<Record<Identity, TargetResponse>>> } {
  const seen = new Map<string, Partial<Record<Identity, TargetResponse>>>();
  const check: CheckDefinition = {
    id: 'test-baseline-recorder',
    title: 'Records baselines',
    owasp: 'API8:2023',
    cwe: 'CWE-16',
    scope: 'operation',
    applies: (op) => !skip.includes(op.method) || 'skipped by the test',
    async run(ctx: CheckContext, op: Operation) {
      const entry = seen.get(op.key) ?? {};
      seen.set(op.key, entry);
      for (const identity of ctx.hasSecondary ? (['primary', 'secondary'] as const) : (['primary'] as const))
        entry[identity] = await ctx.baseline(op, identity);
      return [{ status: 'passed', name: 'baseline recorded', severity: 'info' }];
    },
  };
  return { check, seen };
}

async function scan(
  a: ThingsApp,
  o: { spec?: SpecOptions; auth?: TargetAuth; checks?: CheckDefinition[]; tuning?: Partial<SecurityTuning>; options?: Record<string, unknown>; path?: string },
) {
  const engine = createSecurityEngine({ checks: o.checks, tuning: { ...FAST, ...o.tuning } });
  const out = await engine.run(
    makeCtx({ url: a.url + (o.path ?? ''), spec_text: thingsSpec(o.spec), auth: o.auth ?? TWO_IDENTITIES, options: (o.options ?? {}) as never }),
  );
  return { tasks: out.tasks, security: out.security as SecurityOutcome };
}

const idOf = (path: string) => decodeURIComponent(path.split('/').pop() ?? '');
const isThingItem = (r: LoggedRequest) => /^\/things\/[^/]+$/.test(r.path);
/** Things the scan created, per creating user, from the target's log (201 + Location). */
function createdThings(a: ThingsApp): { id: string; user: string; body: string }[] {
  return a.log
    .filter((r) => r.method === 'POST' && r.path === '/things' && r.status === 201)
    .map((r) => ({ id: idOf(r.location ?? ''), user: r.user ?? '', body: r.body }));
}
const opCoverage = (s: SecurityOutcome, endpoint: string) => s.coverage.operations.find((o) => o.endpoint === endpoint);

describe('discovery: checks address resources the target really has', () => {
  it(
    'item reads and updates use ids from the list or a create, never the spec example',
    async () => {
      const a = await app();
      const seeded = new Set(a.seededThingIds);
      const { check, seen } = baselineRecorder();
      const { security } = await scan(a, { checks: [check] });

      const created = createdThings(a);
      const createdBy = (user: string) => new Set(created.filter((c) => c.user === user).map((c) => c.id));
      expect(createdBy('alice').size).toBeGreaterThan(0);
      expect(createdBy('bob').size).toBeGreaterThan(0);
      expect(a.log.some((r) => r.path.includes('example-thing-id'))).toBe(false);

      // The target's log: every item request went to a thing that existed (seeded or created by the scan).
      const existing = new Set([...seeded, ...created.map((c) => c.id)]);
      const itemRequests = a.log.filter(isThingItem);
      expect(itemRequests.map((r) => r.method)).toEqual(expect.arrayContaining(['GET', 'PUT']));
      for (const r of itemRequests) expect(existing.has(idOf(r.path)), `${r.method} ${r.path}`).toBe(true);

      // Each identity addresses what it created itself first, and the target agrees (200).
      for (const [identity, user] of [
        ['primary', 'alice'],
        ['secondary', 'bob'],
      ] as const) {
        for (const key of ['GET /things/{thingId}', 'PUT /things/{thingId}']) {
          const res = seen.get(key)?.[identity];
          expect(res?.status, `${key} as ${identity}`).toBe(200);
          expect(createdBy(user).has(idOf(new URL(res!.request.url).pathname))).toBe(true);
        }
      }
      // `{id}` on /notes is a note's id, not the id of a thing the scan owns.
      expect(new URL(seen.get('GET /notes/{id}')!.primary!.request.url).pathname).toBe('/notes/501');
      expect(new URL(seen.get('GET /notes/{id}')!.secondary!.request.url).pathname).toBe('/notes/502');

      expect(opCoverage(security, 'GET /things/{thingId}')?.reached_2xx).toEqual({ primary: true, secondary: true, anonymous: false });
      expect(opCoverage(security, 'PUT /things/{thingId}')?.reached_2xx).toEqual({ primary: true, secondary: true, anonymous: false });
      expect(opCoverage(security, 'GET /notes/{id}')?.reached_2xx).toEqual({ primary: true, secondary: true, anonymous: false });
      expect(security.coverage.operations.filter((o) => o.invented_values)).toEqual([]);
    },
    SCAN_TIMEOUT,
  );

  it(
    'a create answering 201 with only a Location: its id is read from the header, used, and deleted at the end',
    async () => {
      const a = await app({ emptyCreate: true });
      const { check, seen } = baselineRecorder(['DELETE']);
      const { security } = await scan(a, { checks: [check], auth: ONE_IDENTITY });
      const created = createdThings(a);
      expect(created).toHaveLength(1);
      const res = seen.get('GET /things/{thingId}')!.primary!;
      expect(new URL(res.request.url).pathname).toBe(`/things/${created[0].id}`);
      expect(res.status).toBe(200);
      // The clean-up deleted it (nothing else sent a DELETE), as alice.
      expect(a.log.filter((r) => r.method === 'DELETE').map((r) => `${r.path} ${r.user} ${r.status}`)).toEqual([`/things/${created[0].id} alice 204`]);
      expect(a.things.has(created[0].id)).toBe(false);
      expect(security.coverage.resources_deleted).toBe(1);
    },
    SCAN_TIMEOUT,
  );

  it(
    'what the scan creates carries its marker and is deleted at the end by the identity that created it',
    async () => {
      const a = await app();
      const seeded = [...a.seededThingIds];
      const { check } = baselineRecorder();
      const { security } = await scan(a, { checks: [check] });

      const created = createdThings(a);
      expect(created.length).toBeGreaterThanOrEqual(2);
      const markers = new Set(created.map((c) => (JSON.parse(c.body) as { title: string }).title.replace(/-\d+$/, '')));
      expect(markers.size).toBe(1);
      expect([...markers][0]).toMatch(/^vigil-[0-9a-f]{6}$/);

      expect(security.coverage.resources_created).toBe(created.length);
      expect(security.coverage.resources_deleted).toBe(created.length);
      for (const c of created) {
        const deletes = a.log.filter((r) => r.method === 'DELETE' && r.path === `/things/${c.id}`);
        expect(deletes.length, c.id).toBeGreaterThan(0);
        for (const d of deletes) expect(d.user, `DELETE ${c.id}`).toBe(c.user);
        expect(a.things.has(c.id)).toBe(false);
      }
      // What the target had before is still there.
      for (const id of seeded) expect(a.things.has(id), id).toBe(true);
    },
    SCAN_TIMEOUT,
  );

  it(
    'with every production check: what the scan tracked as created is deleted, the seeded data is intact, and only secured operations get credentials',
    async () => {
      const a = await app();
      const seeded = [...a.seededThingIds];
      const { security } = await scan(a, { options: { safe_mode: true } });
      const created = createdThings(a);
      expect(created.length).toBeGreaterThan(0);
      expect(security.coverage.resources_created).toBeGreaterThan(0);
      expect(security.coverage.resources_deleted).toBe(security.coverage.resources_created);
      for (const id of seeded) expect(a.things.has(id), id).toBe(true);

      // `security: []` on /health: the scan's credentials never go there; secured operations get them.
      const health = a.log.filter((r) => r.path === '/health');
      expect(health.length).toBeGreaterThan(0);
      expect(health.filter((r) => r.authorization !== undefined).map((r) => `${r.method} ${r.authorization}`)).toEqual([]);
      const lists = a.log.filter((r) => r.method === 'GET' && r.path === '/things');
      expect(lists.map((r) => r.authorization)).toEqual(expect.arrayContaining([`Bearer ${TOKENS.alice}`, `Bearer ${TOKENS.bob}`]));
      expect(opCoverage(security, 'GET /health')?.reached_2xx).toEqual({ primary: false, secondary: false, anonymous: true });
    },
    SCAN_TIMEOUT,
  );
});

// KNOWN BUG (checks/auth-enforcement.ts, not the core): it sends `buildRequest(op)` through
// `scan.send`: the request has no `op`, so a 201 it gets is not tracked as created (a thing titled
// with the spec example "Example thing", no marker, stays on the target), its path ids are the spec
// examples (`PUT /things/example-thing-id`), and it re-sends its own baseline. Fix: `scan.request(op)`
// and `scan.baseline(op)`. Remove `.fails` then.
it(
  'with every production check, nothing the scan created is left on the target',
  async () => {
    const a = await app();
    const { security } = await scan(a, { options: { safe_mode: true } });
    const created = createdThings(a);
    expect(security.coverage.resources_created).toBe(created.length);
    expect(created.filter((c) => a.things.has(c.id)).map((c) => c.body)).toEqual([]);
  },
  SCAN_TIMEOUT,
);

describe('order that keeps the target alive', () => {
  it(
    'a database reset in the spec runs after every other operation',
    async () => {
      const a = await app();
      const { security } = await scan(a, { spec: { reset: true } });
      const firstReset = a.log.findIndex((r) => r.method === 'POST' && r.path === '/admin/reset');
      expect(firstReset).toBeGreaterThan(0);
      // After it: only the reset itself (the clean-up of what the scan created went before it).
      const after = a.log.slice(firstReset).filter((r) => r.path !== '/admin/reset');
      expect(after.map((r) => `${r.method} ${r.path}`)).toEqual([]);
      // (Not the spec-example thing auth-enforcement creates untracked: see its KNOWN BUG test.)
      const createdIds = new Set(
        createdThings(a)
          .filter((c) => !c.body.includes('"Example thing"'))
          .map((c) => c.id),
      );
      expect(createdIds.size).toBeGreaterThan(0);
      for (const id of createdIds)
        expect(
          a.log.slice(0, firstReset).some((r) => r.method === 'DELETE' && r.path === `/things/${id}`),
          id,
        ).toBe(true);
      // Before it, the other operations were reached with the target's data in place.
      const before = a.log.slice(0, firstReset);
      for (const [method, re] of [
        ['GET', /^\/things$/],
        ['POST', /^\/things$/],
        ['GET', /^\/things\/[^/]+$/],
        ['PUT', /^\/things\/[^/]+$/],
        ['DELETE', /^\/things\/[^/]+$/],
        ['GET', /^\/notes\/[^/]+$/],
      ] as const) {
        expect(
          before.some((r) => r.method === method && re.test(r.path) && r.status >= 200 && r.status < 300),
          `${method} ${re}`,
        ).toBe(true);
      }
      expect(opCoverage(security, 'POST /admin/reset')?.skipped).toBeUndefined();
    },
    SCAN_TIMEOUT,
  );

  // KNOWN BUG (core: target checks run in the read phase over ctx.model.operations, destructive ones
  // included): the http-methods target check sends `TRACE /admin/reset` at the start of the scan.
  // An app that routes every method to the handler (`app.all`, a PHP script) is wiped before the
  // other checks ran. Fix: give CheckContext the scanned operations without destructive ones for
  // target checks (checks/per-target.ts scannedOperations has a TODO for it). Remove `.fails` then.
  it(
    'no request of any method reaches the reset before the other operations are done',
    async () => {
      const a = await app();
      await scan(a, { spec: { reset: true } });
      const firstTouch = a.log.findIndex((r) => r.path === '/admin/reset');
      const createdIds = new Set(createdThings(a).map((c) => c.id));
      const lastOther = a.log.findLastIndex((r) => r.path !== '/admin/reset' && !(r.method === 'DELETE' && createdIds.has(idOf(r.path))));
      expect(firstTouch).toBeGreaterThan(lastOther);
    },
    SCAN_TIMEOUT,
  );

  it(
    'safe_mode never sends the reset and says why in coverage',
    async () => {
      const a = await app();
      const { security } = await scan(a, { spec: { reset: true }, options: { safe_mode: true } });
      expect(a.log.filter((r) => r.path === '/admin/reset').map((r) => r.method)).toEqual([]);
      expect(opCoverage(security, 'POST /admin/reset')).toMatchObject({ skipped: expect.stringMatching(/^safe mode/), requests: 0, statuses: [] });
      const reasons = security.coverage.checks.flatMap((c) => c.not_run.filter((n) => n.endpoints.includes('POST /admin/reset')).map((n) => n.reason));
      expect(reasons.length).toBeGreaterThan(0);
      expect(reasons.every((r) => /safe mode/.test(r))).toBe(true);
      const codes = security.coverage.checks.flatMap((c) => c.not_run.filter((n) => n.endpoints.includes('POST /admin/reset')).map((n) => n.reason_code));
      expect(new Set(codes)).toEqual(new Set(['safe_mode']));
      expect(security.coverage.operations_total).toBe(security.coverage.operations.length - 1);
      expect(a.things.size).toBeGreaterThan(0);
    },
    SCAN_TIMEOUT,
  );
});

describe('coverage', () => {
  it(
    'per operation statuses and 2xx per identity; no few-2xx warning on a healthy target',
    async () => {
      const a = await app();
      const { check } = baselineRecorder();
      const { security } = await scan(a, { checks: [check], auth: ONE_IDENTITY });
      const ops = security.coverage.operations;
      expect(ops.map((o) => o.endpoint)).toEqual([
        'GET /health',
        'GET /things',
        'POST /things',
        'GET /things/{thingId}',
        'PUT /things/{thingId}',
        'DELETE /things/{thingId}',
        'GET /notes',
        'GET /notes/{id}',
      ]);
      expect(opCoverage(security, 'POST /things')).toMatchObject({ statuses: [201], reached_2xx: { primary: true, secondary: null, anonymous: false } });
      // The recorder's DELETE removed one thing; the clean-up then finds it gone (404).
      expect(opCoverage(security, 'DELETE /things/{thingId}')?.statuses).toEqual([204, 404]);
      for (const o of ops) expect(o.requests, o.endpoint).toBe(a.log.filter((r) => `${r.method} ${templateOf(r.path)}` === o.endpoint).length);
      const reached = ops.filter((o) => !o.skipped && (o.reached_2xx.primary || o.reached_2xx.secondary || o.reached_2xx.anonymous)).length;
      expect(security.coverage.operations_2xx).toBe(reached);
      expect(security.coverage.operations_2xx).toBe(8);
      expect(security.coverage.operations_total).toBe(8);
      expect(security.warnings.filter((w) => /answered 2xx/.test(w))).toEqual([]);
      expect(security.warnings.some((w) => /^No second identity \(auth\.secondary\)/.test(w))).toBe(true);
    },
    SCAN_TIMEOUT,
  );

  it(
    'warns "0 of N operations answered 2xx" when the base URL is wrong',
    async () => {
      const a = await app();
      const { check } = baselineRecorder();
      const { security } = await scan(a, { checks: [check], path: '/api/v9' });
      expect(a.log.length).toBeGreaterThan(0);
      expect(a.log.every((r) => r.status === 404)).toBe(true);
      expect(security.coverage.operations_2xx).toBe(0);
      expect(security.coverage.operations_total).toBe(8);
      expect(security.warnings[0]).toMatch(/^0 of 8 operations answered 2xx: is the base URL right and are the credentials valid\?/);
      for (const o of security.coverage.operations) expect(o.statuses, o.endpoint).toEqual(o.requests ? [404] : []);
    },
    SCAN_TIMEOUT,
  );

  it(
    'a check that throws is not tested (check_error) where it threw, never "nothing to test", and passes nothing',
    async () => {
      const a = await app();
      const broken: CheckDefinition = {
        id: 'broken',
        title: 'Broken check',
        owasp: 'API8:2023',
        cwe: 'CWE-16',
        scope: 'operation',
        applies: (op) => op.method === 'GET' || 'not a read',
        async run(_ctx: CheckContext, op: Operation) {
          if (op.path.includes('{')) throw new Error('a bug in the check');
          return [{ status: 'passed', name: 'read answered', severity: 'info' }];
        },
      };
      const { tasks, security } = await scan(a, { checks: [broken] });
      const cov = security.coverage.checks.find((c) => c.check === 'broken')!;
      const errored = cov.not_run.filter((n) => n.reason_code === 'check_error');
      const where = errored.flatMap((n) => n.endpoints);
      expect(where).toContain('GET /things/{thingId}');
      expect(where.every((e) => e.startsWith('GET ') && e.includes('{'))).toBe(true);
      expect(errored[0]!.reason).toMatch(/the check failed to run/);
      expect(cov.not_run.filter((n) => n.reason_code === 'not_applicable').flatMap((n) => n.endpoints)).not.toContain('GET /things/{thingId}');
      expect(tasks.filter((t) => t.check === 'broken' && t.endpoint === 'GET /things/{thingId}')).toEqual([]);
      expect(tasks.some((t) => t.check === 'broken' && t.endpoint === 'GET /things' && t.status === 'passed')).toBe(true);
    },
    SCAN_TIMEOUT,
  );

  it(
    'check coverage says why a check did not run: no second identity, no JWT',
    async () => {
      const a = await app();
      const { security } = await scan(a, { auth: ONE_IDENTITY, tuning: { onlyChecks: ['bola', 'jwt'] } });
      const bola = security.coverage.checks.find((c) => c.check === 'bola');
      expect(bola?.ran).toBe(0);
      const noSecond = bola?.not_run.find((n) => /second identity/.test(n.reason));
      // The collection read too: what it lists to the second identity is judged (list-level BOLA).
      expect(noSecond?.endpoints).toEqual(
        expect.arrayContaining(['GET /things', 'GET /things/{thingId}', 'PUT /things/{thingId}', 'DELETE /things/{thingId}']),
      );
      expect(noSecond?.reason_code).toBe('prerequisite_missing');
      // What does not apply says so as a code too: a create has no object id for BOLA.
      expect(bola?.not_run.find((n) => n.endpoints.includes('POST /things'))?.reason_code).toBe('not_applicable');
      const jwt = security.coverage.checks.find((c) => c.check === 'jwt');
      expect(jwt?.ran).toBe(0);
      expect(jwt?.not_run.map((n) => n.reason)).toEqual([expect.stringMatching(/JWT/)]);
      expect(security.checks.map((c) => c.id).sort()).toEqual(['bola', 'jwt']);
    },
    SCAN_TIMEOUT,
  );
});

/** "GET /things/{thingId}" for a logged request path (the app's routes). */
function templateOf(path: string): string {
  if (/^\/things\/[^/]+\/parts\/[^/]+$/.test(path)) return '/things/{thingId}/parts/{partId}';
  if (/^\/things\/[^/]+\/parts$/.test(path)) return '/things/{thingId}/parts';
  if (/^\/things\/[^/]+$/.test(path)) return '/things/{thingId}';
  if (/^\/notes\/[^/]+$/.test(path)) return '/notes/{id}';
  return path;
}

describe('timing checks run alone', () => {
  it(
    'a timing check sees no other request of the scan in flight, while normal checks ran concurrently',
    async () => {
      const a = await app();
      const collections = (op: Operation) => op.method === 'GET' && !op.path.includes('{') && op.secured;
      // Two normal checks per collection read; each request waits in the target until all four are in flight.
      const busy = (id: string, hold = 'busy:4'): CheckDefinition => ({
        id,
        title: id,
        owasp: 'API8:2023',
        cwe: 'CWE-16',
        scope: 'operation',
        applies: (op) => collections(op) || 'not a collection read',
        async run(ctx, op) {
          await ctx.send({ ...ctx.request(op), headers: { 'x-hold': hold, 'x-probe': id } });
          return [{ status: 'passed', name: id, severity: 'info' }];
        },
      });
      const timing: CheckDefinition = {
        id: 'test-timing',
        title: 'Fake timing probe',
        owasp: 'API4:2023',
        cwe: 'CWE-400',
        scope: 'operation',
        timing: true,
        applies: (op) => collections(op) || 'not a collection read',
        async run(ctx, op) {
          await ctx.send({ ...ctx.request(op), headers: { 'x-probe': 'timing' } });
          return [{ status: 'passed', name: 'timed', severity: 'info' }];
        },
      };
      // A normal check of a later phase (creates), listed first.
      const later = busy('test-busy-create', 'create:1');
      const laterCheck: CheckDefinition = {
        ...later,
        applies: (op: Operation) => (op.method === 'POST' && op.path === '/things') || 'not the create',
      } as CheckDefinition;
      await scan(a, { checks: [laterCheck, timing, busy('test-busy-a'), busy('test-busy-b')], auth: ONE_IDENTITY });

      const busyReqs = a.log.filter((r) => r.probe === 'test-busy-a' || r.probe === 'test-busy-b');
      const timingReqs = a.log.filter((r) => r.probe === 'timing');
      expect(busyReqs).toHaveLength(4);
      expect(Math.max(...busyReqs.map((r) => r.inFlightAtArrival))).toBeGreaterThanOrEqual(4);
      expect(timingReqs).toHaveLength(2);
      expect(timingReqs.map((r) => r.inFlightAtArrival)).toEqual([1, 1]);
      // Timing probes of the read phase come after its normal checks and before the next phase.
      const createReq = a.log.find((r) => r.probe === 'test-busy-create');
      for (const t of timingReqs) {
        expect(t.seq).toBeGreaterThan(Math.max(...busyReqs.map((r) => r.seq)));
        expect(t.seq).toBeLessThan(createReq!.seq);
      }
    },
    SCAN_TIMEOUT,
  );
});

describe('known bugs in session / index / discovery (marked .fails; see the comment of each)', () => {
  // KNOWN BUG (index.ts): the reachability probe is `session.baseline(firstRead)`, the first read in
  // spec order. When that is an item read (`/things/{thingId}` listed first, as specs sorted by path
  // often are), its baseline is sent before discovery with the spec's example id and cached: every
  // check gets a 404 baseline for it. Fix: probe with a read without path parameters
  // (`ops.find((op) => phaseOf(op) === 'read' && op.method === 'GET' && !op.params.some((p) => p.in === 'path'))`),
  // or send the probe uncached (`session.send(session.request(firstRead))`, not `baseline`).
  it(
    'an item read listed first in the spec still gets a baseline with a real id',
    async () => {
      const a = await app();
      const { check, seen } = baselineRecorder();
      await scan(a, { checks: [check], spec: { itemFirst: true }, auth: ONE_IDENTITY });
      const res = seen.get('GET /things/{thingId}')!.primary!;
      expect(new URL(res.request.url).pathname).not.toBe('/things/example-thing-id');
      expect(res.status).toBe(200);
    },
    SCAN_TIMEOUT,
  );

  // KNOWN BUG (discovery.ts): discovery runs reads without path parameters, creates without, then ALL
  // reads with path parameters at once, then creates with path parameters. A nested item
  // (`/things/{thingId}/parts/{partId}`) is read in the same batch as its collection
  // (`/things/{thingId}/parts`), before any part id is known, and before `POST /things/{thingId}/parts`
  // created one; its baseline is cached with the example id (404). Fix: rounds by depth (number of
  // path parameters): round d = item reads and nested collection reads with d parameters, then
  // creates with d parameters; round d+1 after. Here: GET+POST /things, then GET /things/{id},
  // GET+POST /things/{id}/parts, then GET /things/{id}/parts/{partId}.
  it(
    'a nested item is read after its collection and its create (real part id, 200)',
    async () => {
      const a = await app();
      const { check, seen } = baselineRecorder();
      await scan(a, { checks: [check], spec: { parts: true }, auth: ONE_IDENTITY });
      const res = seen.get('GET /things/{thingId}/parts/{partId}')!.primary!;
      expect(new URL(res.request.url).pathname).not.toMatch(/example-part-id$/);
      expect(res.status).toBe(200);
    },
    SCAN_TIMEOUT,
  );

  // KNOWN BUG (index.ts): the clean-up is `cleanUp(session, model.operations)`, so it sends DELETEs to
  // operations that options.exclude removed from the scan. Fix: `cleanUp(session, ops)`.
  it(
    'options.exclude "DELETE *" means no DELETE at all, clean-up included',
    async () => {
      const a = await app();
      const { check } = baselineRecorder();
      const { security } = await scan(a, { checks: [check], options: { exclude: ['DELETE *'] } });
      expect(createdThings(a).length).toBeGreaterThan(0);
      expect(a.log.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([]);
      expect(security.coverage.resources_deleted).toBe(0);
    },
    SCAN_TIMEOUT,
  );
});
