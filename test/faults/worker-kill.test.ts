/**
 * A worker SIGKILLed mid-scan in the distributed configuration (the test's own PostgreSQL and Redis; an
 * api and two worker processes). The scans it was running are taken over by the other worker once their
 * leases lapse and end exactly once; no process other than the killed one exits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/database.js';
import { call, usingPostgres } from '../helpers/server.js';
import { sleep, startCluster, waitAllFinal, type Cluster } from './cluster.js';
import { ownPostgres, ownPostgresUnavailable, ownRedis, type OwnPostgres, type OwnRedis } from './own-services.js';

const unavailable = usingPostgres ? ownPostgresUnavailable() : 'runs in the PostgreSQL pass (DATABASE_URL set): two worker processes share one database';
if (unavailable) console.log(`[faults] worker SIGKILL test skipped: ${unavailable}`);

const LEASE_SECONDS = 5;
const SCANS = 6;
const SCAN_MS = 6000;

describe.skipIf(Boolean(unavailable))('a worker SIGKILLed mid-scan', () => {
  let pg: OwnPostgres;
  let redis: OwnRedis;
  let cluster: Cluster;
  let apiKey: string;
  let store: Store;

  beforeAll(async () => {
    [pg, redis] = await Promise.all([ownPostgres(), ownRedis()]);
    cluster = await startCluster({
      databaseUrl: pg.url,
      redisUrl: redis.url,
      workers: 2,
      env: { VIGIL_SCAN_LEASE_SECONDS: String(LEASE_SECONDS), VIGIL_WORKER_CONCURRENCY: '2', VIGIL_LOG_LEVEL: 'info' },
    });
    apiKey = await cluster.tenant('enterprise');
    store = await openStore({ dataDir: cluster.dataDir, databaseUrl: pg.url });
  }, 240_000);

  afterAll(async () => {
    await store?.close();
    await cluster?.dispose();
    await redis?.dispose();
    await pg?.dispose();
  });

  it('the other worker takes its scans over after the lease; each ends once; nothing else exits', async () => {
    const api = cluster.apis[0]!;
    const [doomed, survivor] = cluster.workers as [(typeof cluster.workers)[0], (typeof cluster.workers)[0]];
    const ids: string[] = [];
    for (let i = 0; i < SCANS; i++) {
      const res = await call(`${api}/scan`, {
        headers: { 'X-API-Key': apiKey },
        json: { url: `http://target.test/app?delay_ms=${SCAN_MS}&n=${i}`, mode: 'functional' },
      });
      expect(res.status, res.text).toBe(202);
      ids.push(res.body.scan_id);
    }
    const started = (w: typeof doomed, id: string) => w.output().includes(`test engine run ${id} started`);
    const doomedId = (await doomed.waitFor(/test worker ready (\S+)/))[1]!;
    // The kill lands while the doomed worker is a second into its scans.
    await doomed.waitFor(/test engine run \S+ started/, 60_000);
    await sleep(1000);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const killedAt = Date.now();
    // Its scans: those still under its lease (claimed, whether or not their engine had started).
    const orphans = (await store.db.selectFrom('scans').select('id').where('lease_owner', '=', doomedId).where('status', '=', 'running').execute()).map(
      (r) => r.id,
    );

    const takenOver = new Map<string, number>();
    for (const deadline = Date.now() + 60_000; takenOver.size < orphans.length && Date.now() < deadline; await sleep(100)) {
      for (const id of orphans) if (!takenOver.has(id) && started(survivor, id)) takenOver.set(id, Date.now() - killedAt);
    }
    const finals = await waitAllFinal(api, apiKey, ids, 90_000);
    const recoveryMs = Math.max(0, ...takenOver.values());

    const rows = await store.db.selectFrom('scans').select(['id', 'status', 'attempts']).where('id', 'in', ids).execute();
    const attempts = Object.fromEntries(rows.map((r) => [r.id, r.attempts]));
    const completions = (id: string) =>
      cluster.workers.reduce((n, w) => n + (w.output().match(new RegExp(`"scan_id":"${id}"[^\\n]*"msg":"scan completed"`, 'g'))?.length ?? 0), 0);
    const lost = ids.filter((id) => finals[id] !== 'completed');
    const doubled = ids.filter((id) => completions(id) !== 1);
    const usage = await call(`${api}/usage`, { headers: { 'X-API-Key': apiKey } });
    const exits = cluster.processes.filter((p) => p !== doomed && p.child.exitCode !== null).length;
    console.log(
      `[faults] worker SIGKILL mid-scan (lease ${LEASE_SECONDS} s): ${SCANS} scans, ${orphans.length} running on the killed worker; ` +
        `attempts ${JSON.stringify(Object.values(attempts))}; taken over after ${orphans.map((id) => takenOver.get(id)).join(', ')} ms; ` +
        `${lost.length} lost, ${doubled.length} doubled, ${usage.body.scans_used} charged; exits other than the killed one: ${exits}; recovery ${recoveryMs} ms`,
    );

    expect(orphans.length).toBeGreaterThan(0);
    expect(takenOver.size).toBe(orphans.length);
    expect(lost).toEqual([]);
    expect(doubled).toEqual([]);
    for (const id of ids) expect(attempts[id], id).toBe(orphans.includes(id) ? 2 : 1);
    expect(usage.body.scans_used).toBe(SCANS);
    for (const p of cluster.processes) if (p !== doomed) expect(p.child.exitCode, p.output()).toBeNull();
  }, 150_000);
});
