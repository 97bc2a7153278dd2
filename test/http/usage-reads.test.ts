import { describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

const TARGET = 'http://target.test/app';

/** Every usage period and alert row, in a stable order. */
async function usageTables(server: TestServer) {
  const db = server.vigil.services.store.db;
  return {
    periods: await db.selectFrom('usage_periods').selectAll().orderBy('tenant_id').orderBy('period_start').execute(),
    alerts: await db.selectFrom('usage_alerts').selectAll().orderBy('id').execute(),
  };
}

describe(`usage reads write nothing (${storeLabel})`, () => {
  it('GET /usage, /usage/history and /usage/alerts show the new period after the old one ended without storing it; the sweep stores what they showed', async () => {
    let now = new Date('2026-03-20T12:00:00.000Z');
    // The api role runs no maintenance job, so no sweep runs between the reads.
    const server = await startServer({ clock: () => now, env: { VIGIL_ROLE: 'api' } });
    try {
      const t = await server.createTenant('pro');
      const headers = { 'X-API-Key': t.apiKey };
      const fresh = await server.createTenant('free');
      const freshHeaders = { 'X-API-Key': fresh.apiKey };
      expect((await call(`${server.api}/scan`, { headers, json: { url: TARGET, mode: 'full' } })).status).toBe(202);
      now = new Date('2026-04-02T08:00:00.000Z');
      const before = await usageTables(server);
      expect(before.periods.map((p) => [p.tenant_id, p.period_start])).toEqual([[t.tenantId, '2026-03-01T00:00:00.000Z']]);
      expect(before.alerts).toEqual([]);

      const usage = await call(`${server.api}/usage`, { headers });
      expect(usage.status).toBe(200);
      expect(usage.body).toEqual({
        tenant_id: t.tenantId,
        plan: 'pro',
        scans_used: 0,
        scans_limit: 500,
        scans_remaining: 500,
        security_scan_count: 0,
        monthly_security_scan_quota: 100,
        security_scans_remaining: 100,
        api_specifications_used: 0,
        api_specifications_limit: 5,
        approaching_limit: false,
        quota_reset_date: '2026-05-01T00:00:00.000Z',
        period_start: '2026-04-01T00:00:00.000Z',
        period_end: '2026-05-01T00:00:00.000Z',
      });
      const history = await call(`${server.api}/usage/history`, { headers });
      expect(history.body.total).toBe(2);
      expect(history.body.periods).toEqual([
        {
          period_start: '2026-04-01T00:00:00.000Z',
          period_end: '2026-05-01T00:00:00.000Z',
          current: true,
          plan: 'pro',
          functional_scans_used: 0,
          functional_scans_limit: 500,
          security_scans_used: 0,
          security_scans_limit: 100,
          api_specifications_used: 0,
          api_specifications_limit: 5,
        },
        {
          period_start: '2026-03-01T00:00:00.000Z',
          period_end: '2026-04-01T00:00:00.000Z',
          current: false,
          plan: 'pro',
          functional_scans_used: 1,
          functional_scans_limit: 500,
          security_scans_used: 1,
          security_scans_limit: 100,
          api_specifications_used: 1,
          api_specifications_limit: 5,
        },
      ]);
      const secondPage = await call(`${server.api}/usage/history?page=2&per_page=1`, { headers });
      expect(secondPage.body).toMatchObject({ total: 2, page: 2, per_page: 1, total_pages: 2 });
      expect(secondPage.body.periods).toEqual([history.body.periods[1]]);
      expect((await call(`${server.api}/usage/alerts`, { headers })).body.total).toBe(0);
      // A tenant that never scanned has no period row; reads show the calendar month and store none.
      expect((await call(`${server.api}/usage`, { headers: freshHeaders })).body).toMatchObject({
        scans_used: 0,
        scans_limit: 50,
        period_start: '2026-04-01T00:00:00.000Z',
      });
      expect((await call(`${server.api}/usage/history`, { headers: freshHeaders })).body).toMatchObject({
        total: 1,
        periods: [{ current: true, period_start: '2026-04-01T00:00:00.000Z' }],
      });

      expect(await usageTables(server)).toEqual(before);

      expect(await server.vigil.services.usage.sweep()).toBe(1);
      expect((await call(`${server.api}/usage`, { headers })).body).toEqual(usage.body);
      expect((await call(`${server.api}/usage/history`, { headers })).body).toEqual(history.body);
      const alerts = (await call(`${server.api}/usage/alerts`, { headers })).body;
      expect(alerts.alerts.map((a: { type: string; period_start: string }) => [a.type, a.period_start])).toEqual([['quota_reset', '2026-04-01T00:00:00.000Z']]);
    } finally {
      await server.stop();
    }
  });
});
