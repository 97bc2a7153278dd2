import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { RunRecord } from '../helpers/test-engine.js';
import { testEngines } from '../helpers/test-engine.js';
import { until } from '../helpers/until.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

const TARGET = 'http://target.test/app';

describe(`scans API (${storeLabel})`, () => {
  let server: TestServer;
  const runs: RunRecord[] = [];
  let pro: { tenantId: string; apiKey: string };
  let free: { tenantId: string; apiKey: string };
  const as = (key: string) => ({ 'X-API-Key': key });
  const start = (key: string, json: unknown, path = '/scan') => call(`${server.api}${path}`, { headers: as(key), json });

  beforeAll(async () => {
    // 200 starts at once from one tenant: the cap on request bodies still being received (16 per tenant by default, tested
    // in open-bodies.test.ts) would refuse some with 429 depending on timing; the admission tests count quotas.
    server = await startServer({
      engines: testEngines(runs),
      env: { VIGIL_CONCURRENT_SCANS: 'free=1,pro=3,team=10,enterprise=25', VIGIL_OPEN_BODIES_PER_TENANT: '1000', VIGIL_OPEN_BODIES_PER_ADDRESS: '1000' },
    });
    pro = await server.createTenant('pro');
    free = await server.createTenant('free');
  });
  afterAll(async () => server?.stop());

  describe('validation: 422 with the field named, and nothing counted', () => {
    const cases: Array<[string, unknown, string]> = [
      ['url missing', { mode: 'security' }, 'url'],
      ['url not a URL', { url: 'not a url' }, 'url'],
      ['url not http(s)', { url: 'ftp://example.com' }, 'url'],
      ['spec_url not a URL', { url: TARGET, spec_url: '::' }, 'spec_url'],
      ['spec_content not base64', { url: TARGET, spec_content: 'not base64 !!!' }, 'spec_content'],
      ['spec_url with spec_content', { url: TARGET, spec_url: 'http://x.test/o.json', spec_content: 'e30=' }, 'spec_content'],
      ['unknown mode', { url: TARGET, mode: 'deep' }, 'mode'],
      ['bearer without token', { url: TARGET, auth: { type: 'bearer' } }, 'auth.token'],
      ['header without value', { url: TARGET, auth: { type: 'header', header_name: 'X-Key' } }, 'auth.header_value'],
      ['basic without password', { url: TARGET, auth: { type: 'basic', username: 'u' } }, 'auth.password'],
      [
        'oauth2 without client id',
        { url: TARGET, auth: { type: 'oauth2', oauth2_token_url: 'http://idp.test/token', oauth2_client_secret: 's' } },
        'auth.oauth2_client_id',
      ],
      [
        'oauth2 token url not a URL',
        { url: TARGET, auth: { type: 'oauth2', oauth2_token_url: 'nope', oauth2_client_id: 'c', oauth2_client_secret: 's' } },
        'auth.oauth2_token_url',
      ],
      ['secondary identity incomplete', { url: TARGET, auth: { type: 'none', secondary: { type: 'bearer' } } }, 'auth.secondary.token'],
      ['unknown auth type', { url: TARGET, auth: { type: 'kerberos' } }, 'auth.type'],
      ['concurrency 0', { url: TARGET, options: { concurrency: 0 } }, 'options.concurrency'],
      ['concurrency 51', { url: TARGET, options: { concurrency: 51 } }, 'options.concurrency'],
      ['timeout 0', { url: TARGET, options: { timeout: 0 } }, 'options.timeout'],
      ['fail_on unknown', { url: TARGET, options: { fail_on: 'severe' } }, 'options.fail_on'],
      ['exclude not strings', { url: TARGET, options: { exclude: [{}] } }, 'options.exclude.0'],
      ['unknown option', { url: TARGET, options: { turbo: true } }, 'options.turbo'],
      ['page not a path or URL', { url: TARGET, mode: 'functional', options: { pages: ['about'] } }, 'options.pages.0'],
      ['reset_baseline not boolean', { url: TARGET, reset_baseline: 'yes' }, 'reset_baseline'],
    ];
    for (const [name, body, field] of cases) {
      it(name, async () => {
        const res = await start(pro.apiKey, body);
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
        expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
      });
    }

    it('spec_content above the size limit', async () => {
      const big = Buffer.alloc(server.config.specMaxBytes + 1, 'a').toString('base64');
      const res = await start(pro.apiKey, { url: TARGET, spec_content: big });
      expect([413, 422]).toContain(res.status);
    });

    it('body that is not JSON is 400, a JSON array is 400', async () => {
      const res = await call(`${server.api}/scan`, { headers: { ...as(pro.apiKey), 'content-type': 'application/json' }, body: '{"url":' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_REQUEST');
      const arr = await call(`${server.api}/scan`, { headers: as(pro.apiKey), json: [TARGET] });
      expect(arr.status).toBe(400);
    });

    it('refused requests consumed nothing', async () => {
      const untouched = await server.createTenant('pro');
      for (const [, body] of cases) expect((await start(untouched.apiKey, body)).status).toBe(422);
      const usage = await call(`${server.api}/usage`, { headers: as(untouched.apiKey) });
      expect(usage.body.scans_used).toBe(0);
      expect(usage.body.security_scan_count).toBe(0);
    });
  });

  describe('admission', () => {
    it('free plan: security and full scans are 402 FEATURE_NOT_AVAILABLE with upgrade_url', async () => {
      for (const body of [{ url: TARGET }, { url: TARGET, mode: 'full' }]) {
        const res = await start(free.apiKey, body);
        expect(res.status).toBe(402);
        expect(res.body.error).toBe('FEATURE_NOT_AVAILABLE');
        expect(res.body.upgrade_url).toMatch(/^https?:\/\/.*pro/);
      }
      const viaSecurityRoute = await start(free.apiKey, { url: TARGET }, '/security-scan');
      expect(viaSecurityRoute.status).toBe(402);
    });

    it('wcag22aa and section508 profiles need the team plan (402 on pro)', async () => {
      const res = await start(pro.apiKey, { url: TARGET, mode: 'functional', options: { accessibility_profile: 'section508' } });
      expect(res.status).toBe(402);
      expect(res.body.error).toBe('FEATURE_NOT_AVAILABLE');
    });

    it('tenant concurrency: 429 CONCURRENT_LIMIT beyond the plan, and nothing counted for the refused one', async () => {
      const t = await server.createTenant('free');
      const first = await start(t.apiKey, { url: `${TARGET}?delay_ms=1500`, mode: 'functional' });
      expect(first.status).toBe(202);
      const second = await start(t.apiKey, { url: TARGET, mode: 'functional' });
      expect(second.status).toBe(429);
      expect(second.body.error).toBe('CONCURRENT_LIMIT');
      // Every 429 carries Retry-After (the contract's rule 4), and the same seconds in retry_after.
      expect(second.body.retry_after).toBeGreaterThanOrEqual(1);
      expect(second.headers.get('retry-after')).toBe(String(second.body.retry_after));
      const usage = await call(`${server.api}/usage`, { headers: as(t.apiKey) });
      expect(usage.body.scans_used).toBe(1);
      await waitForScan(server.api, t.apiKey, first.body.scan_id);
      const third = await start(t.apiKey, { url: TARGET, mode: 'functional' });
      expect(third.status).toBe(202);
    });

    it('quota used up: 402 QUOTA_EXCEEDED with quota_reset_date; a full scan counts one of each', async () => {
      const t = await server.createTenant('pro');
      // Use up the security quota (100) directly in the store, as 100 earlier scans would have.
      await server.vigil.services.usage.currentPeriod(t.tenantId, 'pro');
      await server.vigil.services.store.db.updateTable('usage_periods').set({ security_used: 99 }).where('tenant_id', '=', t.tenantId).execute();
      const full = await start(t.apiKey, { url: TARGET, mode: 'full' });
      expect(full.status).toBe(202);
      const usage = await call(`${server.api}/usage`, { headers: as(t.apiKey) });
      expect(usage.body).toMatchObject({ scans_used: 1, security_scan_count: 100, monthly_security_scan_quota: 100, approaching_limit: true });
      await waitForScan(server.api, t.apiKey, full.body.scan_id);
      const refused = await start(t.apiKey, { url: TARGET, mode: 'security' });
      expect(refused.status).toBe(402);
      expect(refused.body.error).toBe('QUOTA_EXCEEDED');
      expect(new Date(refused.body.quota_reset_date).getTime()).toBeGreaterThan(Date.now());
      expect(refused.body.quota_reset_date).toBe(usage.body.quota_reset_date);
      // functional scans still go through
      expect((await start(t.apiKey, { url: TARGET, mode: 'functional' })).status).toBe(202);
    });

    it('200 concurrent starts against a quota of 50 admit exactly 50, and alerts fire once each', async () => {
      const t = await server.createTenant('free');
      await server.vigil.services.store.db.updateTable('tenants').set({ plan: 'free' }).where('id', '=', t.tenantId).execute();
      const limits = server.config.concurrentScans;
      const saved = limits.free;
      limits.free = 1000;
      try {
        const results = await Promise.all(Array.from({ length: 200 }, () => start(t.apiKey, { url: `${TARGET}?delay_ms=10`, mode: 'functional' })));
        const statuses = results.map((r) => r.status);
        expect(statuses.filter((s) => s === 202)).toHaveLength(50);
        expect(statuses.filter((s) => s === 402)).toHaveLength(150);
        expect(results.find((r) => r.status === 402)?.body.error).toBe('QUOTA_EXCEEDED');
        const usage = await call(`${server.api}/usage`, { headers: as(t.apiKey) });
        expect(usage.body).toMatchObject({ scans_used: 50, scans_limit: 50, scans_remaining: 0, approaching_limit: true });
        const count = await server.vigil.services.store.db
          .selectFrom('scans')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', t.tenantId)
          .executeTakeFirstOrThrow();
        expect(Number(count.n)).toBe(50);
        const alerts = await call(`${server.api}/usage/alerts?per_page=100`, { headers: as(t.apiKey) });
        expect(alerts.body.alerts.map((a: { type: string }) => a.type).sort()).toEqual(['approaching_limit', 'quota_exceeded']);
        const approaching = alerts.body.alerts.find((a: { type: string }) => a.type === 'approaching_limit');
        expect(approaching).toMatchObject({ scans_used: 41, scans_limit: 50, quota: 'functional' });
        const filtered = await call(`${server.api}/usage/alerts?type=quota_exceeded`, { headers: as(t.apiKey) });
        expect(filtered.body.total).toBe(1);
        expect((await call(`${server.api}/usage/alerts?type=nope`, { headers: as(t.apiKey) })).status).toBe(422);
      } finally {
        limits.free = saved;
      }
    });
  });

  describe('lifecycle, results, list', () => {
    it('runs to completion; status, results and counts follow the contract', async () => {
      const res = await start(pro.apiKey, { url: `${TARGET}?outcome=findings&tasks=4`, options: { fail_on: 'high', concurrency: 7 } });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: expect.stringMatching(/^(queued|running)$/), mode: 'security' });
      expect(res.body.scan_id).toMatch(/^scn_/);
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
      const done = await waitForScan(server.api, pro.apiKey, res.body.scan_id);
      expect(done).toMatchObject({ scan_id: res.body.scan_id, status: 'completed', progress_percent: 100 });
      expect(done.updated_at >= done.created_at).toBe(true);
      const results = await call(`${server.api}/scan/${res.body.scan_id}/results`, { headers: as(pro.apiKey) });
      expect(results.body).toMatchObject({
        status: 'completed',
        mode: 'security',
        url: `${TARGET}?outcome=findings&tasks=4`,
        spec_url: null,
        passed: 3,
        failed: 1,
        total: 4,
        agent_count: 7,
        threshold_reached: true,
        fail_on: 'high',
      });
      expect(results.body.severity_counts.critical).toBe(1);
      expect(results.body.tasks).toHaveLength(4);
      expect(results.body.tasks[0]).toMatchObject({ task_id: expect.any(String), name: expect.any(String), status: 'failed', severity: 'critical' });
      expect(typeof results.body.elapsed_seconds).toBe('number');
    });

    it('in-progress results carry progress_percent', async () => {
      const res = await start(pro.apiKey, { url: `${TARGET}?delay_ms=1500` });
      await new Promise((r) => setTimeout(r, 700));
      const mid = await call(`${server.api}/scan/${res.body.scan_id}/results`, { headers: as(pro.apiKey) });
      expect(['queued', 'running']).toContain(mid.body.status);
      expect(Number.isInteger(mid.body.progress_percent)).toBe(true);
      expect(mid.body.tasks).toBeUndefined();
      await waitForScan(server.api, pro.apiKey, res.body.scan_id);
    });

    it("a running scan's status and in-progress results carry the phase and findings its engine reports; none once it ended", async () => {
      // The engine reports phase "probe" with 1 finding at once, then takes 10 minutes (the test cancels it).
      const res = await start(pro.apiKey, { url: `${TARGET}?outcome=findings&phase=probe&delay_ms=600000` });
      const id = res.body.scan_id;
      let status: any;
      for (let i = 0; i < 600 && status?.phase === undefined; i += 1) {
        status = (await call(`${server.api}/scan/${id}`, { headers: as(pro.apiKey) })).body;
        if (status.phase === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toMatchObject({ scan_id: id, status: 'running', phase: 'probe', findings: 1 });
      const results = await call(`${server.api}/scan/${id}/results`, { headers: as(pro.apiKey) });
      expect(results.body).toEqual({
        scan_id: id,
        status: 'running',
        mode: 'security',
        url: status.url,
        progress_percent: expect.any(Number),
        phase: 'probe',
        findings: 1,
      });
      const cancelled = await call(`${server.api}/scan/${id}/cancel`, { method: 'POST', headers: as(pro.apiKey) });
      expect(cancelled.body.status).toBe('cancelled');
      expect(cancelled.body.phase).toBeUndefined();
      expect(cancelled.body.findings).toBeUndefined();
      // A scan whose engine reports no detail has neither while it runs.
      const plain = await start(pro.apiKey, { url: `${TARGET}?outcome=hang` });
      const running = await waitForScan(server.api, pro.apiKey, plain.body.scan_id, ['running']);
      expect(running.phase).toBeUndefined();
      expect(running.findings).toBeUndefined();
      await call(`${server.api}/scan/${plain.body.scan_id}/cancel`, { method: 'POST', headers: as(pro.apiKey) });
    });

    it('an engine failure fails the scan with its reason; a crash with a generic one; quota stays counted', async () => {
      const before = (await call(`${server.api}/usage`, { headers: as(pro.apiKey) })).body.security_scan_count;
      const failing = await start(pro.apiKey, { url: `${TARGET}?outcome=fail` });
      const crashing = await start(pro.apiKey, { url: `${TARGET}?outcome=crash` });
      const a = await waitForScan(server.api, pro.apiKey, failing.body.scan_id);
      const b = await waitForScan(server.api, pro.apiKey, crashing.body.scan_id);
      expect(a).toMatchObject({ status: 'failed', failure_reason: 'The target did not answer (test engine)' });
      expect(b.status).toBe('failed');
      expect(b.failure_reason).toMatch(/unexpected error/);
      expect(b.failure_reason).not.toMatch(/boom|TypeError/);
      const after = (await call(`${server.api}/usage`, { headers: as(pro.apiKey) })).body.security_scan_count;
      expect(after).toBe(before + 2);
    });

    it('cancel stops the running engine promptly and keeps the scan counted', async () => {
      const res = await start(pro.apiKey, { url: `${TARGET}?outcome=hang` });
      await waitForScan(server.api, pro.apiKey, res.body.scan_id, ['running']);
      // `running` is written at the claim, before the worker's first lease renewal and the engine's start: a cancel in
      // between is refused by that renewal and no engine ever runs. This test is about stopping one that runs.
      await until(() => runs.some((r) => r.scanId === res.body.scan_id), 'the engine run to start');
      const t0 = Date.now();
      const cancelled = await call(`${server.api}/scan/${res.body.scan_id}/cancel`, { method: 'POST', headers: as(pro.apiKey) });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      for (let i = 0; i < 100 && !runs.find((r) => r.scanId === res.body.scan_id)?.aborted; i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(runs.find((r) => r.scanId === res.body.scan_id)?.aborted).toBe(true);
      expect(Date.now() - t0).toBeLessThan(2000);
      const again = await call(`${server.api}/scan/${res.body.scan_id}/cancel`, { method: 'POST', headers: as(pro.apiKey) });
      expect(again.body.status).toBe('cancelled');
      expect((await call(`${server.api}/scan/${res.body.scan_id}`, { headers: as(pro.apiKey) })).body.status).toBe('cancelled');
    });

    it('target credentials reach the engine, are encrypted at rest, never returned, and removed at the end', async () => {
      const token = 'super-secret-target-token-123';
      const res = await start(pro.apiKey, { url: `${TARGET}?delay_ms=600`, auth: { type: 'bearer', token } });
      const row = await server.vigil.services.store.db
        .selectFrom('scans')
        .select(['secret', 'input'])
        .where('id', '=', res.body.scan_id)
        .executeTakeFirstOrThrow();
      expect(row.secret).toBeTruthy();
      expect(row.secret).not.toContain(token);
      expect(row.input).not.toContain(token);
      await waitForScan(server.api, pro.apiKey, res.body.scan_id);
      expect(runs.find((r) => r.scanId === res.body.scan_id)?.authSeen).toMatchObject({ type: 'bearer', token });
      const after = await server.vigil.services.store.db.selectFrom('scans').select('secret').where('id', '=', res.body.scan_id).executeTakeFirstOrThrow();
      expect(after.secret).toBeNull();
      for (const path of ['', '/results', '/export?format=json', '/export?format=csv', '/export?format=html']) {
        const body = await call(`${server.api}/scan/${res.body.scan_id}${path}`, { headers: as(pro.apiKey) });
        expect(body.text).not.toContain(token);
      }
    });

    it("another tenant's scan is 404 on every scan endpoint", async () => {
      const res = await start(pro.apiKey, { url: TARGET });
      const other = await server.createTenant('team');
      for (const path of ['', '/results', '/export', '/functional-results', '/accessibility']) {
        const got = await call(`${server.api}/scan/${res.body.scan_id}${path}`, { headers: as(other.apiKey) });
        expect(got.status).toBe(404);
        expect(got.body.error).toBe('NOT_FOUND');
      }
      const cancel = await call(`${server.api}/scan/${res.body.scan_id}/cancel`, { method: 'POST', headers: as(other.apiKey) });
      expect(cancel.status).toBe(404);
      expect((await call(`${server.api}/scan/scn_nope`, { headers: as(pro.apiKey) })).status).toBe(404);
    });

    it('lists most recent first with pagination and a status filter', async () => {
      const t = await server.createTenant('enterprise');
      const ids: string[] = [];
      for (let i = 0; i < 7; i += 1) ids.push((await start(t.apiKey, { url: `${TARGET}?n=${i}`, mode: 'functional' })).body.scan_id);
      const failedOne = (await start(t.apiKey, { url: `${TARGET}?outcome=fail`, mode: 'functional' })).body.scan_id;
      for (const id of [...ids, failedOne]) await waitForScan(server.api, t.apiKey, id);
      const page1 = await call(`${server.api}/scans?per_page=3`, { headers: as(t.apiKey) });
      expect(page1.body).toMatchObject({ total: 8, page: 1, per_page: 3, total_pages: 3 });
      expect(page1.body.scans[0].scan_id).toBe(failedOne);
      const all = [];
      for (let p = 1; p <= 3; p += 1) all.push(...(await call(`${server.api}/scans?per_page=3&page=${p}`, { headers: as(t.apiKey) })).body.scans);
      expect(all.map((s: { scan_id: string }) => s.scan_id)).toEqual(
        [failedOne, ...ids].sort((a, b) => [failedOne, ...ids.slice().reverse()].indexOf(a) - [failedOne, ...ids.slice().reverse()].indexOf(b)),
      );
      expect(all[1]).toMatchObject({ status: 'completed', url: `${TARGET}?n=6`, passed: 3, failed: 0, total: 3, completed_at: expect.any(String) });
      const failed = await call(`${server.api}/scans?status=failed`, { headers: as(t.apiKey) });
      expect(failed.body.total).toBe(1);
      expect(failed.body.scans[0].scan_id).toBe(failedOne);
      for (const q of ['per_page=0', 'per_page=101', 'page=0', 'status=done', 'page=x']) {
        const bad = await call(`${server.api}/scans?${q}`, { headers: as(t.apiKey) });
        expect(bad.status, q).toBe(422);
        expect(bad.body.error).toBe('VALIDATION_ERROR');
      }
      const beyond = await call(`${server.api}/scans?page=9`, { headers: as(t.apiKey) });
      expect(beyond.body.scans).toEqual([]);
      // The page and the total come from one statement: past the end, the total is still the tenant's count.
      expect(beyond.body).toMatchObject({ total: 8, page: 9, total_pages: 1 });
      const none = await call(`${server.api}/scans?status=running&mode=functional`, { headers: as(t.apiKey) });
      expect(none.body).toMatchObject({ scans: [], total: 0 });
      const filtered = await call(`${server.api}/scans?status=completed&mode=functional&per_page=2&page=2`, { headers: as(t.apiKey) });
      expect(filtered.body).toMatchObject({ total: 7, total_pages: 4 });
      expect(filtered.body.scans.map((s: { scan_id: string }) => s.scan_id)).toEqual([ids[4], ids[3]]);
    });

    it('POST /functional/run starts a functional scan and returns mode; multipart upload starts a security scan', async () => {
      const run = await start(pro.apiKey, { url: TARGET, mode: 'security' }, '/functional/run');
      expect(run.status).toBe(202);
      expect(run.body.mode).toBe('functional');
      const form = new FormData();
      form.append('base_url', `${TARGET}?tasks=2`);
      form.append('spec_file', new Blob(['openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths: {}\n']), 'openapi.yaml');
      form.append('options', JSON.stringify({ fail_on: 'critical' }));
      form.append('timeout', '12');
      form.append('auth.type', 'bearer');
      form.append('auth.token', 'tkn');
      const res = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: as(pro.apiKey), body: form });
      const body = (await res.json()) as { scan_id: string; mode: string };
      expect(res.status).toBe(202);
      expect(body.mode).toBe('security');
      const row = await server.vigil.services.store.db.selectFrom('scans').select('input').where('id', '=', body.scan_id).executeTakeFirstOrThrow();
      const input = JSON.parse(row.input);
      expect(input.spec_text).toContain('openapi: 3.0.0');
      expect(input.options).toMatchObject({ fail_on: 'critical', timeout: 12 });
      const bad = new FormData();
      bad.append('base_url', 'nope');
      bad.append('spec_file', new Blob(['{}']), 'x.json');
      const badRes = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: as(pro.apiKey), body: bad });
      expect(badRes.status).toBe(422);
      const missing = new FormData();
      missing.append('base_url', TARGET);
      expect((await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: as(pro.apiKey), body: missing })).status).toBe(422);
    });

    it('a scan whose engine is missing fails with a clear reason', async () => {
      const bare = await startServer({ engines: {} });
      try {
        const t = await bare.createTenant('pro');
        const res = await call(`${bare.api}/scan`, { headers: as(t.apiKey), json: { url: TARGET } });
        const done = await waitForScan(bare.api, t.apiKey, res.body.scan_id);
        expect(done.status).toBe('failed');
        expect(done.failure_reason).toMatch(/security engine is not available/);
      } finally {
        await bare.stop();
      }
    });
  });

  describe('functional sub-reports', () => {
    it('409 NOT_A_FUNCTIONAL_SCAN for security scans, 409 SCAN_NOT_COMPLETE while running, 402 on free', async () => {
      const sec = await start(pro.apiKey, { url: TARGET });
      await waitForScan(server.api, pro.apiKey, sec.body.scan_id);
      for (const path of ['functional-results', 'visual-regression', 'accessibility', 'performance']) {
        const res = await call(`${server.api}/scan/${sec.body.scan_id}/${path}`, { headers: as(pro.apiKey) });
        expect(res.status).toBe(409);
        expect(res.body.error).toBe('NOT_A_FUNCTIONAL_SCAN');
      }
      const running = await start(pro.apiKey, { url: `${TARGET}?delay_ms=1500`, mode: 'functional' });
      const early = await call(`${server.api}/scan/${running.body.scan_id}/performance`, { headers: as(pro.apiKey) });
      expect(early.status).toBe(409);
      expect(early.body.error).toBe('SCAN_NOT_COMPLETE');
      const polling = await call(`${server.api}/scan/${running.body.scan_id}/functional-results`, { headers: as(pro.apiKey) });
      expect(polling.status).toBe(200);
      expect(polling.body).toHaveProperty('progress_percent');
      await waitForScan(server.api, pro.apiKey, running.body.scan_id);
      const f = await server.createTenant('free');
      const fs = await start(f.apiKey, { url: TARGET, mode: 'functional' });
      await waitForScan(server.api, f.apiKey, fs.body.scan_id);
      const gated = await call(`${server.api}/scan/${fs.body.scan_id}/accessibility`, { headers: as(f.apiKey) });
      expect(gated.status).toBe(402);
      expect(gated.body.upgrade_url).toBeTruthy();
      const summary = await call(`${server.api}/scan/${fs.body.scan_id}/functional-results`, { headers: as(f.apiKey) });
      expect(summary.body).toMatchObject({ status: 'completed', mode: 'functional', total: 3, visual_regression: { diff_threshold_percent: 0.5 } });
    });
  });

  it('usage history lists the current period with both quotas and the plan', async () => {
    const res = await call(`${server.api}/usage/history`, { headers: as(pro.apiKey) });
    expect(res.status).toBe(200);
    expect(res.body.periods[0]).toMatchObject({ current: true, plan: 'pro', functional_scans_limit: 500, security_scans_limit: 100 });
    expect(res.body.periods[0].security_scans_used).toBeGreaterThan(0);
    expect((await call(`${server.api}/usage/history?per_page=500`, { headers: as(pro.apiKey) })).status).toBe(422);
    void sql;
  });
});
