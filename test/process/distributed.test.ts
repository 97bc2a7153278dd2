import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openStore, type Store } from '../../src/store/database.js';
import { TenantRepository } from '../../src/store/tenants.js';
import { runScript, runVigil, type VigilProcess } from '../helpers/process.js';
import { call, freshStore, TEST_ENCRYPTION_KEY, usingPostgres, usingRedis, waitForScan, type TestStore } from '../helpers/server.js';

const distributed = usingPostgres && usingRedis;
if (!distributed) {
  console.log('[skip] distributed test: needs DATABASE_URL and REDIS_URL (CI runs it in its PostgreSQL + Redis pass)');
}

/** Two api processes and one worker process on PostgreSQL and Redis, talking real HTTP. */
describe.skipIf(!distributed)('distributed: two api processes and a worker on PostgreSQL + Redis', () => {
  let store: TestStore;
  let db: Store;
  const procs: VigilProcess[] = [];
  let apiA: string;
  let apiB: string;

  const env = () => ({
    ...store.env,
    REDIS_URL: process.env.REDIS_URL,
    PORT: '0',
    VIGIL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    VIGIL_RATE_LIMITS: 'pro=15',
    VIGIL_LOG_LEVEL: 'warn',
  });
  const startApi = async () => {
    const p = runVigil(['serve', '--role', 'api'], env());
    procs.push(p);
    const match = await p.waitFor(/listening on (http:\/\/\S+\/api\/v1)/, 60_000);
    return match[1]!;
  };

  beforeAll(async () => {
    store = await freshStore();
    db = await openStore({ dataDir: store.env.VIGIL_DATA_DIR!, databaseUrl: store.env.DATABASE_URL });
    [apiA, apiB] = await Promise.all([startApi(), startApi()]);
    const worker = runScript('test/helpers/test-worker.ts', [], { ...env(), VIGIL_ROLE: 'worker' });
    procs.push(worker);
    await worker.waitFor(/test worker ready/, 60_000);
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exited));
    await db?.close();
    await store?.dispose();
  });

  it('a scan started on api A runs on the worker and a socket on api B gets its usage_update', async () => {
    const { apiKey, tenant } = await new TenantRepository(db.db).create({ plan: 'enterprise' });
    const socket = new WebSocket(`${apiB.replace(/^http/, 'ws').replace(/\/api\/v1$/, '')}/ws/live?api_key=${apiKey}`);
    const messages: any[] = [];
    socket.on('message', (d) => messages.push(JSON.parse(String(d))));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    try {
      const res = await call(`${apiA}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'http://target.test/app?tasks=5', mode: 'full' } });
      expect(res.status).toBe(202);
      const done = await waitForScan(apiB, apiKey, res.body.scan_id);
      expect(done.status).toBe('completed');
      const results = await call(`${apiB}/scan/${res.body.scan_id}/results`, { headers: { 'X-API-Key': apiKey } });
      expect(results.body.total).toBe(10);
      for (let i = 0; i < 50 && messages.length === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 300));
      const updates = messages.filter((m) => m.type === 'usage_update');
      expect(updates).toHaveLength(1);
      expect(updates[0]).toMatchObject({ tenant_id: tenant.id, scan_id: res.body.scan_id, scan_count: 1, security_scan_count: 1 });
    } finally {
      socket.close();
    }
  });

  it('the rate limit is shared by both api processes', async () => {
    const { apiKey } = await new TenantRepository(db.db).create({ plan: 'pro' });
    const statuses: number[] = [];
    const remaining: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await call(`${i % 2 === 0 ? apiA : apiB}/usage`, { headers: { 'X-API-Key': apiKey } });
      statuses.push(res.status);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    expect(statuses.slice(15).every((s) => s === 429)).toBe(true);
    expect(remaining.slice(0, 15)).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it('a key rotated through api A is refused by api B on the next request', async () => {
    const { apiKey } = await new TenantRepository(db.db).create({ plan: 'enterprise' });
    expect((await call(`${apiB}/usage`, { headers: { 'X-API-Key': apiKey } })).status).toBe(200);
    const rotated = await call(`${apiA}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': apiKey } });
    expect(rotated.status).toBe(200);
    const old = await call(`${apiB}/usage`, { headers: { 'X-API-Key': apiKey } });
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('INVALID_API_KEY');
    expect((await call(`${apiB}/usage`, { headers: { 'X-API-Key': rotated.body.api_key } })).status).toBe(200);
  });
});
