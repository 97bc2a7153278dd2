import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript, type VigilProcess } from '../helpers/process.js';
import { call, freshStore, startServer, storeLabel, TEST_ENCRYPTION_KEY, waitForScan, type TestServer, type TestStore } from '../helpers/server.js';

const TARGET = 'http://target.test/app';

/** Workers are real processes on the shared store; the api is in this process with no worker of its own. */
describe(`worker crashes and shutdown (${storeLabel})`, () => {
  let store: TestStore;
  let api: TestServer;
  let key: string;
  const workers: VigilProcess[] = [];
  const workerEnv = () => ({
    ...store.env,
    VIGIL_ROLE: 'worker',
    VIGIL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    VIGIL_SCAN_LEASE_SECONDS: '2',
    VIGIL_SHUTDOWN_GRACE_SECONDS: '1',
    REDIS_URL: process.env.REDIS_URL,
    VIGIL_LOG_LEVEL: 'warn',
  });
  const startWorker = async () => {
    const worker = runScript('test/helpers/test-worker.ts', [], workerEnv());
    workers.push(worker);
    await worker.waitFor(/test worker ready/);
    return worker;
  };
  const attempts = async (id: string) =>
    (await api.vigil.services.store.db.selectFrom('scans').select('attempts').where('id', '=', id).executeTakeFirstOrThrow()).attempts;

  beforeAll(async () => {
    store = await freshStore();
    api = await startServer({ store, env: { VIGIL_ROLE: 'api' } });
    key = (await api.createTenant('enterprise')).apiKey;
  });
  afterAll(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await api?.stop();
    await store?.dispose();
  });

  const startScan = async (url: string) => (await call(`${api.api}/scan`, { headers: { 'X-API-Key': key }, json: { url } })).body.scan_id as string;

  it("a killed worker's scan is re-queued once and completed by another worker", async () => {
    const first = await startWorker();
    const id = await startScan(`${TARGET}?delay_ms=3000`);
    await waitForScan(api.api, key, id, ['running']);
    first.child.kill('SIGKILL');
    await first.exited;
    await startWorker();
    const done = await waitForScan(api.api, key, id, ['completed', 'failed'], 30_000);
    expect(done.status).toBe('completed');
    expect(await attempts(id)).toBe(2);
  });

  it('a scan whose worker dies twice fails with a reason', async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    const id = await startScan(`${TARGET}?delay_ms=20000`);
    for (let i = 0; i < 2; i += 1) {
      const worker = await startWorker();
      await waitForScan(api.api, key, id, ['running'], 20_000);
      for (let n = 0; n < 100 && (await attempts(id)) < i + 1; n += 1) await new Promise((r) => setTimeout(r, 50));
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    await startWorker();
    const done = await waitForScan(api.api, key, id, ['completed', 'failed'], 30_000);
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/stopped responding 2 times/);
  });

  it('SIGTERM: the worker stops claiming, waits its grace period, re-queues what is left and exits 0', async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    const worker = await startWorker();
    const id = await startScan(`${TARGET}?delay_ms=20000`);
    await waitForScan(api.api, key, id, ['running']);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    const row = await api.vigil.services.store.db
      .selectFrom('scans')
      .select(['status', 'attempts', 'lease_owner'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'queued', attempts: 0, lease_owner: null });
    await call(`${api.api}/scan/${id}/cancel`, { method: 'POST', headers: { 'X-API-Key': key } });
  });
});

describe(`stalled scans (${storeLabel})`, () => {
  it('a running scan with no progress for VIGIL_SCAN_STALL_SECONDS is failed as timed out and its engine stopped', async () => {
    const server = await startServer({ env: { VIGIL_SCAN_STALL_SECONDS: '5', VIGIL_SCAN_LEASE_SECONDS: '2' } });
    try {
      const t = await server.createTenant('pro');
      const res = await call(`${server.api}/scan`, { headers: { 'X-API-Key': t.apiKey }, json: { url: `${TARGET}?outcome=hang` } });
      const done = await waitForScan(server.api, t.apiKey, res.body.scan_id, ['failed', 'completed'], 20_000);
      expect(done.status).toBe('failed');
      expect(done.failure_reason).toMatch(/Timed out: no progress/);
      for (let i = 0; i < 50 && server.vigil.worker!.runningScans.length > 0; i += 1) await new Promise((r) => setTimeout(r, 100));
      expect(server.vigil.worker!.runningScans).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
