import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import type { ScanRow } from '../../src/store/scans.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** One announcement of a final state, whoever ended the scan: the tenant's notifications go out once from it. */
describe(`scan finished announcements notify once, whoever ended the scan (${storeLabel})`, () => {
  let server: TestServer;
  let tenant: { tenantId: string; apiKey: string };
  const hits: Array<{ event: string; scan_id: string; status: string }> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push(JSON.parse(body));
      res.end();
    });
  });
  const eventsOf = (id: string) =>
    hits
      .filter((h) => h.scan_id === id)
      .map((h) => `${h.event}:${h.status}`)
      .sort();

  beforeAll(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    server = await startServer({ env: { VIGIL_SCAN_LEASE_SECONDS: '2' } });
    tenant = await server.createTenant('team');
    const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const put = await call(`${server.api}/notifications`, {
      method: 'PUT',
      headers: { 'X-API-Key': tenant.apiKey },
      json: { channels: [{ kind: 'webhook', url: hook }] },
    });
    expect(put.status, put.text).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    receiver.close();
  });

  it('a cancelled scan notifies its channels (scan_complete and scan_failed, status cancelled), once', async () => {
    const id = (await call(`${server.api}/scan`, { headers: { 'X-API-Key': tenant.apiKey }, json: { url: 'http://target.test/app?delay_ms=20000' } })).body
      .scan_id as string;
    await waitForScan(server.api, tenant.apiKey, id, ['running']);
    const cancelled = await call(`${server.api}/scan/${id}/cancel`, { method: 'POST', headers: { 'X-API-Key': tenant.apiKey } });
    expect(cancelled.body.status).toBe('cancelled');
    await until(() => eventsOf(id).length >= 2, `the notifications of ${id}`);
    // A repeated announcement (a second cancel is a no-op; a publisher repeating itself) sends nothing more.
    await call(`${server.api}/scan/${id}/cancel`, { method: 'POST', headers: { 'X-API-Key': tenant.apiKey } });
    await server.vigil.scanFinished.publish({ id, tenant_id: tenant.tenantId, status: 'cancelled' });
    await server.vigil.scanFinished.settled();
    expect(eventsOf(id)).toEqual(['scan_complete:cancelled', 'scan_failed:cancelled']);
  });

  it('a final state its finisher died before announcing is announced late by the maintenance job, and notifies once', async () => {
    const period = await server.vigil.services.usage.currentPeriod(tenant.tenantId, 'team');
    const ended = new Date(Date.now() - 10_000).toISOString();
    const row: ScanRow = {
      id: newId('scn'),
      tenant_id: tenant.tenantId,
      mode: 'functional',
      status: 'completed',
      url: 'http://target.test/app',
      spec_url: null,
      input: JSON.stringify({ url: 'http://target.test/app', mode: 'functional', options: {} }),
      secret: null,
      progress: 100,
      attempts: 1,
      lease_owner: null,
      lease_expires_at: null,
      last_progress_at: ended,
      failure_reason: null,
      passed: 3,
      failed: 0,
      total: 3,
      elapsed_seconds: 1,
      agent_count: 1,
      results: JSON.stringify({ tasks: [], agent_count: 1, elapsed_seconds: 1 }),
      period_start: period.period_start,
      created_at: ended,
      updated_at: ended,
      started_at: ended,
      completed_at: ended,
      announced_at: null,
    };
    await server.vigil.services.store.db.insertInto('scans').values(row).execute();
    await until(() => eventsOf(row.id).length >= 1, `the late notification of ${row.id}`);
    // Several more maintenance turns: it was recorded as announced, nothing is sent again.
    await new Promise((r) => setTimeout(r, 3 * server.vigil.maintenance!.intervalMs));
    await server.vigil.scanFinished.settled();
    expect(eventsOf(row.id)).toEqual(['scan_complete:completed']);
  });
});
