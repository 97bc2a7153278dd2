import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

const TARGET = 'http://target.test/app';

function wsUrl(api: string): string {
  return `${api.replace(/^http/, 'ws').replace(/\/api\/v1$/, '')}/ws/live`;
}

function connect(url: string, headers: Record<string, string> = {}, autoPong = true): Promise<{ socket: WebSocket; messages: any[] }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, autoPong });
    const messages: any[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.once('open', () => resolve({ socket, messages }));
    socket.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused ${res.statusCode}`), { statusCode: res.statusCode })));
    socket.once('error', reject);
  });
}

describe(`live usage socket (${storeLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.stop());

  it('refuses the upgrade with 401 for a missing, malformed or unknown key', async () => {
    for (const url of [wsUrl(server.api), `${wsUrl(server.api)}?api_key=nope`, `${wsUrl(server.api)}?api_key=svc_pk_${'A'.repeat(43)}`]) {
      await expect(connect(url)).rejects.toMatchObject({ statusCode: 401 });
    }
  });

  it('every socket of the tenant gets exactly one usage_update per finished scan, with the counts after it; other tenants get none', async () => {
    const t = await server.createTenant('pro');
    const other = await server.createTenant('pro');
    const a = await connect(`${wsUrl(server.api)}?api_key=${t.apiKey}`);
    const b = await connect(wsUrl(server.api), { 'X-API-Key': t.apiKey });
    const c = await connect(`${wsUrl(server.api)}?api_key=${other.apiKey}`);
    try {
      const ids: string[] = [];
      ids.push((await call(`${server.api}/scan`, { headers: { 'X-API-Key': t.apiKey }, json: { url: TARGET, mode: 'functional' } })).body.scan_id);
      await waitForScan(server.api, t.apiKey, ids[0]!);
      ids.push((await call(`${server.api}/scan`, { headers: { 'X-API-Key': t.apiKey }, json: { url: `${TARGET}?outcome=fail`, mode: 'full' } })).body.scan_id);
      await waitForScan(server.api, t.apiKey, ids[1]!);
      const hang = (await call(`${server.api}/scan`, { headers: { 'X-API-Key': t.apiKey }, json: { url: `${TARGET}?outcome=hang` } })).body.scan_id;
      await waitForScan(server.api, t.apiKey, hang, ['running']);
      await call(`${server.api}/scan/${hang}/cancel`, { method: 'POST', headers: { 'X-API-Key': t.apiKey } });
      await new Promise((r) => setTimeout(r, 500));
      for (const { messages } of [a, b]) {
        const updates = messages.filter((m) => m.type === 'usage_update');
        expect(updates).toHaveLength(3);
        expect(updates.map((u) => u.scan_id)).toEqual([...ids, hang]);
        expect(updates[0]).toMatchObject({
          tenant_id: t.tenantId,
          scan_count: 1,
          monthly_scan_quota: 500,
          security_scan_count: 0,
          monthly_security_scan_quota: 100,
          approaching_limit: false,
        });
        expect(updates[1]).toMatchObject({ scan_count: 2, security_scan_count: 1, scan_status: 'failed' });
        expect(updates[2]).toMatchObject({ scan_count: 2, security_scan_count: 2, scan_status: 'cancelled' });
        expect(new Date(updates[0].quota_reset_date).getTime()).toBeGreaterThan(Date.now());
        expect(typeof updates[0].timestamp).toBe('string');
      }
      expect(c.messages.filter((m) => m.type === 'usage_update')).toHaveLength(0);
    } finally {
      for (const s of [a, b, c]) s.socket.close();
    }
  });

  it('drops a socket that stops answering pings', async () => {
    const quick = await startServer({ env: { VIGIL_WS_PING_SECONDS: '1' } });
    try {
      const t = await quick.createTenant('pro');
      const { socket } = await connect(`${wsUrl(quick.api)}?api_key=${t.apiKey}`, {}, false);
      const closed = await new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      expect(closed).toBeGreaterThan(0);
    } finally {
      await quick.stop();
    }
  });
});

describe(`usage periods (${storeLabel})`, () => {
  it('rolls over lazily with an injected clock: counts reset, quota_reset fires once, history keeps both periods', async () => {
    let now = new Date('2026-03-20T12:00:00.000Z');
    const server = await startServer({ clock: () => now });
    try {
      const t = await server.createTenant('pro');
      const headers = { 'X-API-Key': t.apiKey };
      const s = await call(`${server.api}/scan`, { headers, json: { url: TARGET, mode: 'full' } });
      expect(s.status).toBe(202);
      let usage = (await call(`${server.api}/usage`, { headers })).body;
      expect(usage).toMatchObject({
        scans_used: 1,
        security_scan_count: 1,
        period_start: '2026-03-01T00:00:00.000Z',
        period_end: '2026-04-01T00:00:00.000Z',
        quota_reset_date: '2026-04-01T00:00:00.000Z',
      });
      now = new Date('2026-04-02T08:00:00.000Z');
      usage = (await call(`${server.api}/usage`, { headers })).body;
      expect(usage).toMatchObject({
        scans_used: 0,
        security_scan_count: 0,
        period_start: '2026-04-01T00:00:00.000Z',
        quota_reset_date: '2026-05-01T00:00:00.000Z',
      });
      await call(`${server.api}/usage`, { headers });
      // Reads only show the new period; storing it (and its quota_reset alert) is the sweep's write.
      await server.vigil.services.usage.sweep();
      const alerts = (await call(`${server.api}/usage/alerts?type=quota_reset`, { headers })).body;
      expect(alerts.total).toBe(1);
      const history = (await call(`${server.api}/usage/history`, { headers })).body;
      expect(history.total).toBe(2);
      expect(history.periods[0]).toMatchObject({ current: true, period_start: '2026-04-01T00:00:00.000Z', functional_scans_used: 0 });
      expect(history.periods[1]).toMatchObject({
        current: false,
        period_start: '2026-03-01T00:00:00.000Z',
        functional_scans_used: 1,
        security_scans_used: 1,
        functional_scans_limit: 500,
      });
      // The periodic sweep rolls tenants nobody asked about.
      const idle = await server.createTenant('free');
      await server.vigil.services.usage.currentPeriod(idle.tenantId, 'free');
      now = new Date('2026-05-03T00:00:00.000Z');
      expect(await server.vigil.services.usage.sweep()).toBeGreaterThanOrEqual(2);
      const idleAlerts = (await call(`${server.api}/usage/alerts`, { headers: { 'X-API-Key': idle.apiKey } })).body;
      expect(idleAlerts.alerts.map((a: { type: string }) => a.type)).toEqual(['quota_reset']);
    } finally {
      await server.stop();
    }
  });

  it('a plan change applies to limits at once', async () => {
    const server = await startServer();
    try {
      const t = await server.createTenant('free');
      const headers = { 'X-API-Key': t.apiKey };
      expect((await call(`${server.api}/usage`, { headers })).body).toMatchObject({ plan: 'free', scans_limit: 50, monthly_security_scan_quota: 0 });
      await server.vigil.services.tenants.setPlan(t.tenantId, 'enterprise');
      expect((await call(`${server.api}/usage`, { headers })).body).toMatchObject({
        plan: 'enterprise',
        scans_limit: null,
        monthly_security_scan_quota: null,
        scans_remaining: null,
      });
      expect((await call(`${server.api}/scan`, { headers, json: { url: TARGET } })).status).toBe(202);
    } finally {
      await server.stop();
    }
  });
});
