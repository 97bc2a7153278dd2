/**
 * Server-side suppressions (triage): created by a unique fingerprint prefix, tenant-scoped, recorded in
 * the audit log, and applied once by the report model so the results body, HTML, CSV, SARIF and JUnit
 * all show the finding as suppressed and it does not reach the threshold; an expired one no longer
 * applies. Runs on the store the environment selects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingFingerprint } from '../../src/domain/fingerprint.js';
import type { EngineOutcome, Task } from '../../src/domain/scan.js';
import type { ScanEngine } from '../../src/engines/engine.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';

const BOLA: Task = {
  task_id: 'bola',
  name: 'Broken object level authorization',
  status: 'failed',
  severity: 'low',
  check: 'bola',
  endpoint: 'GET /users/{id}',
  parameter: 'id',
  evidence: 'GET /users/2 as alice: 200',
};
const PASSED: Task = { task_id: 'auth', name: 'Authentication enforced', status: 'passed', check: 'auth', endpoint: 'GET /users/{id}' };

/** Two findings whose fingerprints share their first 8 characters (found by a birthday search over titles). */
function twinFindings(): [Task, Task] {
  const seen = new Map<string, string>();
  const word = (n: number) => {
    let s = '';
    do {
      s += String.fromCharCode(97 + (n % 26));
      n = Math.floor(n / 26);
    } while (n > 0);
    return s;
  };
  for (let i = 0; ; i++) {
    const name = `Probe ${word(i)}`;
    const prefix = findingFingerprint({ name, check: 'probe', endpoint: 'GET /probe' }).slice(0, 8);
    const other = seen.get(prefix);
    if (other)
      return [other, name].map(
        (n, k) => ({ task_id: `probe-${k}`, name: n, status: 'failed', severity: 'info', check: 'probe', endpoint: 'GET /probe' }) as Task,
      ) as [Task, Task];
    seen.set(prefix, name);
  }
}

const TWINS = twinFindings();
const fingerprintOf = (t: Task) => findingFingerprint({ name: t.name, check: t.check, endpoint: t.endpoint, parameter: t.parameter });

const findingsEngine: ScanEngine = {
  kind: 'security',
  async run(): Promise<EngineOutcome> {
    return { tasks: [BOLA, PASSED, ...TWINS], agent_count: 1 };
  },
};

describe(`suppressions API and reports (${storeLabel})`, () => {
  let server: TestServer;
  let offsetMs = 0;
  let a: { tenantId: string; apiKey: string };
  let b: { tenantId: string; apiKey: string };
  let scanA: string;
  let scanB: string;
  const as = (apiKey: string) => ({ 'X-API-Key': apiKey });
  const create = (apiKey: string, json: unknown, headers: Record<string, string> = {}) =>
    call(`${server.api}/suppressions`, { method: 'POST', headers: { ...as(apiKey), ...headers }, json });
  const results = async (apiKey: string, id: string) => (await call(`${server.api}/scan/${id}/results`, { headers: as(apiKey) })).body;
  const bolaOf = (body: { tasks: Task[] }) =>
    body.tasks.find((t) => t.task_id === 'bola') as Task & { fingerprint?: string; suppressed?: Record<string, unknown> };
  const report = async (apiKey: string, id: string, format: string) =>
    (await fetch(`${server.api}/scan/${id}/reports/${format}`, { headers: as(apiKey) })).text();
  async function scan(apiKey: string, url: string): Promise<string> {
    const res = await call(`${server.api}/scan`, { headers: as(apiKey), json: { url, mode: 'security', options: { fail_on: 'low' } } });
    expect(res.status, res.text).toBe(202);
    await waitForScan(server.api, apiKey, res.body.scan_id);
    return res.body.scan_id;
  }

  beforeAll(async () => {
    server = await startServer({ engines: { security: findingsEngine, functional: testEngine('functional') }, clock: () => new Date(Date.now() + offsetMs) });
    a = await server.createTenant('enterprise');
    b = await server.createTenant('enterprise');
    scanA = await scan(a.apiKey, 'https://api.a.test');
    scanB = await scan(b.apiKey, 'https://api.a.test');
  });
  afterAll(async () => server?.stop());

  it("results carry each finding's fingerprint; before any suppression the low finding reaches fail_on low", async () => {
    const body = await results(a.apiKey, scanA);
    expect(bolaOf(body).fingerprint).toBe(fingerprintOf(BOLA));
    expect(bolaOf(body).suppressed).toBeUndefined();
    expect(body.tasks.find((t: Task) => t.task_id === 'auth').fingerprint).toBeUndefined();
    expect(body.threshold_reached).toBe(true);
  });

  it('refuses an unknown, an ambiguous, a short prefix and a bad reason or expiry with 422', async () => {
    const unknown = await create(a.apiKey, { fingerprint: 'ffffffffffff0000', reason: 'x' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ error: 'FINGERPRINT_UNKNOWN', status: 422 });
    const ambiguous = await create(a.apiKey, { fingerprint: fingerprintOf(TWINS[0]).slice(0, 8), reason: 'which one?' });
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.body).toMatchObject({ error: 'FINGERPRINT_AMBIGUOUS', status: 422 });
    expect(ambiguous.body.message).toContain(fingerprintOf(TWINS[1]).slice(0, 12));
    const bolaPrefix = fingerprintOf(BOLA).slice(0, 12);
    for (const body of [
      { fingerprint: fingerprintOf(BOLA).slice(0, 7), reason: 'too short' },
      { fingerprint: bolaPrefix, reason: '' },
      { fingerprint: bolaPrefix, reason: '   ' },
      { fingerprint: bolaPrefix, reason: 'r'.repeat(501) },
      { fingerprint: bolaPrefix },
      { fingerprint: bolaPrefix, reason: 'past', expires_at: '2020-01-01T00:00:00Z' },
      { fingerprint: bolaPrefix, reason: 'bad date', expires_at: 'tomorrow' },
    ]) {
      const res = await create(a.apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toMatch(/^VALIDATION_ERROR$/);
    }
    expect((await call(`${server.api}/suppressions`, { headers: as(a.apiKey) })).body.total).toBe(0);
  });

  let suppressionId: string;
  it('creates by a unique 12-character prefix: the full fingerprint is stored, the author is the actor, the audit log records it', async () => {
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const res = await create(
      a.apiKey,
      { fingerprint: fingerprintOf(BOLA).slice(0, 12).toUpperCase(), reason: ' Public profiles by design (SEC-142) ', expires_at: expiresAt },
      { 'Idempotency-Key': 'sup-1' },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      fingerprint: fingerprintOf(BOLA),
      reason: 'Public profiles by design (SEC-142)',
      target: null,
      expires_at: expiresAt,
      active: true,
    });
    suppressionId = res.body.suppression_id;
    const replay = await create(
      a.apiKey,
      { fingerprint: fingerprintOf(BOLA).slice(0, 12).toUpperCase(), reason: ' Public profiles by design (SEC-142) ', expires_at: expiresAt },
      { 'Idempotency-Key': 'sup-1' },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.suppression_id).toBe(suppressionId);

    const list = await call(`${server.api}/suppressions`, { headers: as(a.apiKey) });
    expect(list.body).toMatchObject({ total: 1, page: 1, per_page: 20, total_pages: 1 });
    expect(list.body.suppressions[0]).toEqual(res.body);
    const audit = await call(`${server.api}/audit-log?action=suppression.created`, { headers: as(a.apiKey) });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.entries).toHaveLength(1);
    expect(audit.body.entries[0]).toMatchObject({
      action: 'suppression.created',
      target: suppressionId,
      actor: res.body.author,
      detail: { fingerprint: fingerprintOf(BOLA) },
    });
  });

  it('marks the finding in the results body and every report; it no longer reaches fail_on', async () => {
    const body = await results(a.apiKey, scanA);
    const bola = bolaOf(body);
    expect(bola.suppressed).toEqual({
      reason: 'Public profiles by design (SEC-142)',
      author: expect.any(String),
      expires_at: expect.any(String),
      source: 'server',
    });
    expect(body.threshold_reached).toBe(false);

    const exported = await (await fetch(`${server.api}/scan/${scanA}/export?format=json`, { headers: as(a.apiKey) })).json();
    expect(bolaOf(exported).suppressed).toEqual(bola.suppressed);

    const html = await report(a.apiKey, scanA, 'html');
    expect(html).toMatch(/<tr class="finding suppressed" data-task-ref="bola"[^>]*data-suppressed="server"/);
    expect(html).toContain('Public profiles by design (SEC-142)');

    const csv = await report(a.apiKey, scanA, 'csv');
    const bolaLine = csv.split('\r\n').find((l) => l.includes(',bola,Broken object'))!;
    expect(bolaLine).toContain(`${fingerprintOf(BOLA)},Public profiles by design (SEC-142),`);

    const sarif = JSON.parse(await report(a.apiKey, scanA, 'sarif'));
    const sarifResults = sarif.runs[0].results as Array<Record<string, any>>;
    const bolaResult = sarifResults.find((r) => r.properties?.fingerprint === fingerprintOf(BOLA))!;
    expect(bolaResult.suppressions).toEqual([
      {
        kind: 'external',
        status: 'accepted',
        justification: expect.stringMatching(/^Public profiles by design \(SEC-142\)/),
        properties: { source: 'server', author: bola.suppressed!.author },
      },
    ]);
    expect(sarifResults.filter((r) => r.suppressions)).toHaveLength(1);

    const junit = await report(a.apiKey, scanA, 'junit');
    const bolaCase = /<testcase [^>]*>[\s\S]*?<\/testcase>|<testcase [^>]*\/>/g;
    const cases = junit.match(bolaCase)!.filter((c) => c.includes('classname="vigil.security.bola"'));
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      expect(c).not.toContain('<failure');
      expect(c).toContain('suppressed: Public profiles by design (SEC-142)');
    }
    expect(junit).toMatch(/<failure/); // the twin findings still fail
  });

  it('another tenant neither sees nor deletes it (404), and its own results are not marked', async () => {
    const list = await call(`${server.api}/suppressions`, { headers: as(b.apiKey) });
    expect(list.body).toMatchObject({ suppressions: [], total: 0 });
    const del = await call(`${server.api}/suppressions/${suppressionId}`, { method: 'DELETE', headers: as(b.apiKey) });
    expect(del.status).toBe(404);
    expect(del.body).toMatchObject({ error: 'NOT_FOUND', status: 404 });
    expect(bolaOf(await results(b.apiKey, scanB)).suppressed).toBeUndefined();
    expect((await call(`${server.api}/suppressions`, { headers: as(a.apiKey) })).body.total).toBe(1);
  });

  it('a suppression scoped to another target does not apply', async () => {
    const res = await create(a.apiKey, { fingerprint: fingerprintOf(TWINS[0]), reason: 'only elsewhere', target: 'https://other.test' });
    expect(res.status, res.text).toBe(201);
    const twin = (await results(a.apiKey, scanA)).tasks.find((t: Task) => t.task_id === 'probe-0');
    expect(twin.suppressed).toBeUndefined();
    expect((await call(`${server.api}/suppressions/${res.body.suppression_id}`, { method: 'DELETE', headers: as(a.apiKey) })).status).toBe(204);
  });

  it('once expired it no longer applies, and the list says it is inactive', async () => {
    offsetMs = 2 * 3600_000;
    try {
      const body = await results(a.apiKey, scanA);
      expect(bolaOf(body).suppressed).toBeUndefined();
      expect(body.threshold_reached).toBe(true);
      expect(JSON.parse(await report(a.apiKey, scanA, 'sarif')).runs[0].results.some((r: Record<string, unknown>) => r.suppressions)).toBe(false);
      const list = await call(`${server.api}/suppressions`, { headers: as(a.apiKey) });
      expect(list.body.suppressions[0]).toMatchObject({ suppression_id: suppressionId, active: false });
    } finally {
      offsetMs = 0;
    }
  });

  it('DELETE un-suppresses (204), is recorded, and a second DELETE is 404', async () => {
    expect(bolaOf(await results(a.apiKey, scanA)).suppressed).toBeDefined();
    const del = await call(`${server.api}/suppressions/${suppressionId}`, { method: 'DELETE', headers: as(a.apiKey) });
    expect(del.status).toBe(204);
    expect(bolaOf(await results(a.apiKey, scanA)).suppressed).toBeUndefined();
    expect((await call(`${server.api}/suppressions/${suppressionId}`, { method: 'DELETE', headers: as(a.apiKey) })).status).toBe(404);
    const audit = await call(`${server.api}/audit-log?action=suppression.deleted`, { headers: as(a.apiKey) });
    expect(audit.body.entries.map((e: { target: string }) => e.target)).toContain(suppressionId);
  });
});
