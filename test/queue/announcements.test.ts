import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { insertUnannouncedCompletedScan } from '../helpers/scan-rows.js';
import { until } from '../helpers/until.js';

function connect(server: TestServer, apiKey: string): Promise<{ socket: WebSocket; messages: any[] }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server.api.replace(/^http/, 'ws').replace(/\/api\/v1$/, '')}/ws/live?api_key=${apiKey}`);
    const messages: any[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.once('open', () => resolve({ socket, messages }));
    socket.once('error', reject);
  });
}

/**
 * A worker that writes a scan's final state and dies before publishing its usage_update (SIGKILL
 * between the two, found by test/process/chaos.test.ts) must not leave the scan unannounced; and an
 * announcement made twice must reach each socket once.
 */
describe(`finish announcements survive a finisher that dies (${storeLabel})`, () => {
  let server: TestServer;
  let tenant: { tenantId: string; apiKey: string };
  let live: { socket: WebSocket; messages: any[] };
  const updates = () => live.messages.filter((m) => m.type === 'usage_update');
  const announcedAt = async (id: string) =>
    (await server.vigil.services.store.db.selectFrom('scans').select('announced_at').where('id', '=', id).executeTakeFirstOrThrow()).announced_at;

  beforeAll(async () => {
    server = await startServer({ env: { VIGIL_SCAN_LEASE_SECONDS: '2' } });
    tenant = await server.createTenant('pro');
    live = await connect(server, tenant.apiKey);
  });
  afterAll(async () => {
    live?.socket.close();
    await server?.stop();
  });

  it('a scan finished normally is announced once and recorded as announced', async () => {
    const id = (await call(`${server.api}/scan`, { headers: { 'X-API-Key': tenant.apiKey }, json: { url: 'http://target.test/app', mode: 'functional' } })).body
      .scan_id;
    await waitForScan(server.api, tenant.apiKey, id);
    await until(() => updates().some((u) => u.scan_id === id), `the usage_update of ${id}`);
    await until(async () => (await announcedAt(id)) !== null, 'announced_at');
    expect(updates().filter((u) => u.scan_id === id)).toHaveLength(1);
  });

  it("a final state left unannounced by a dead worker is announced by a live worker's reaper, exactly once", async () => {
    const row = await insertUnannouncedCompletedScan(server, tenant.tenantId, 'pro');

    await until(() => updates().some((u) => u.scan_id === row.id), `a usage_update for ${row.id}`);
    await until(async () => (await announcedAt(row.id)) !== null, 'announced_at');
    expect(updates().filter((u) => u.scan_id === row.id)).toEqual([expect.objectContaining({ tenant_id: tenant.tenantId, scan_status: 'completed' })]);
    expect(await server.vigil.services.store.db.selectFrom('scans').select('id').where('id', '=', row.id).where('announced_at', 'is', null).execute()).toEqual(
      [],
    );
  });

  it('the same scan announced twice (finisher published, died before recording it, reaper published again) reaches the socket once', async () => {
    const first = (await call(`${server.api}/scan`, { headers: { 'X-API-Key': tenant.apiKey }, json: { url: 'http://target.test/app' } })).body.scan_id;
    await waitForScan(server.api, tenant.apiKey, first);
    await until(() => updates().some((u) => u.scan_id === first), `the usage_update of ${first}`);
    await server.vigil.scanFinished.publish({ id: first, tenant_id: tenant.tenantId, status: 'completed' });
    // A later scan's update arrives after the repeat (the bus keeps order), so the repeat had its chance.
    const second = (await call(`${server.api}/scan`, { headers: { 'X-API-Key': tenant.apiKey }, json: { url: 'http://target.test/app' } })).body.scan_id;
    await waitForScan(server.api, tenant.apiKey, second);
    await until(() => updates().some((u) => u.scan_id === second), `the usage_update of ${second}`);
    expect(updates().filter((u) => u.scan_id === first)).toHaveLength(1);
    expect(updates().filter((u) => u.scan_id === second)).toHaveLength(1);
  });
});
