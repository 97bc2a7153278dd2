import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { insertUnannouncedCompletedScan } from '../helpers/scan-rows.js';
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
    const row = await insertUnannouncedCompletedScan(server, tenant.tenantId, 'team');
    await until(() => eventsOf(row.id).length >= 1, `the late notification of ${row.id}`);
    // Several more maintenance turns: it was recorded as announced, nothing is sent again.
    await new Promise((r) => setTimeout(r, 3 * server.vigil.maintenance!.intervalMs));
    await server.vigil.scanFinished.settled();
    expect(eventsOf(row.id)).toEqual(['scan_complete:completed']);
  });
});
