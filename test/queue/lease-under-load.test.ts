/**
 * Scan leases at their minimum (VIGIL_SCAN_LEASE_SECONDS=2) with two real worker processes on the shared
 * store: a worker whose event loop is held by synchronous engine work for longer than the lease keeps its
 * lease (the heartbeat thread renews it), so the other worker never takes the scan; and a worker that
 * really loses its lease (stopped by SIGSTOP past it, the scan taken by the other worker) stops its run
 * when it resumes and writes nothing: the scan ends exactly once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runScript, type VigilProcess } from '../helpers/process.js';
import { call, freshStore, startServer, storeLabel, TEST_ENCRYPTION_KEY, waitForScan, type TestServer, type TestStore } from '../helpers/server.js';

const LEASE_SECONDS = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`scan leases under load and on loss (${storeLabel})`, () => {
  let store: TestStore;
  let api: TestServer;
  let key: string;
  let workers: VigilProcess[] = [];

  const startWorker = async () => {
    const worker = runScript('test/helpers/test-worker.ts', [], {
      ...store.env,
      VIGIL_ROLE: 'worker',
      VIGIL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      VIGIL_SCAN_LEASE_SECONDS: String(LEASE_SECONDS),
      REDIS_URL: process.env.REDIS_URL,
      VIGIL_LOG_LEVEL: 'info',
    });
    workers.push(worker);
    await worker.waitFor(/test worker ready/, 60_000);
    return worker;
  };
  const startScan = async (url: string) => {
    const res = await call(`${api.api}/scan`, { headers: { 'X-API-Key': key }, json: { url, mode: 'functional' } });
    expect(res.status, res.text).toBe(202);
    return res.body.scan_id as string;
  };
  const row = (id: string) =>
    api.vigil.services.store.db
      .selectFrom('scans')
      .select(['status', 'attempts', 'completed_at', 'passed', 'total'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, 'g'))?.length ?? 0;
  /** Every engine run of `id` in a worker's output, and its `scan completed` log lines. */
  const runsOf = (w: VigilProcess, id: string) => count(w.output(), new RegExp(`test engine run ${id} started`));
  const completionsOf = (w: VigilProcess, id: string) => count(w.output(), new RegExp(`"scan_id":"${id}"[^\\n]*"msg":"scan completed"`));

  beforeAll(async () => {
    store = await freshStore();
    api = await startServer({ store, env: { VIGIL_ROLE: 'api' } });
    key = (await api.createTenant('enterprise')).apiKey;
  });
  afterEach(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    workers = [];
  });
  afterAll(async () => {
    await api?.stop();
    await store?.dispose();
  });

  it('a worker whose event loop is blocked for 3.5 leases keeps its lease: the scan runs once and completes', async () => {
    const [a, b] = await Promise.all([startWorker(), startWorker()]);
    const busyMs = 3.5 * LEASE_SECONDS * 1000;
    const id = await startScan(`http://target.test/app?busy_ms=${busyMs}&delay_ms=200`);
    const done = await waitForScan(api.api, key, id, ['completed', 'failed'], 60_000);
    // Give a second run (the other worker taking the lapsed scan) time to show before counting.
    await sleep(LEASE_SECONDS * 1000);
    const runs = runsOf(a, id) + runsOf(b, id);
    const { attempts } = await row(id);
    console.log(`[leases] event loop blocked ${busyMs} ms with a ${LEASE_SECONDS} s lease: ${done.status}, ${runs} engine run(s), ${attempts} claim(s)`);
    expect(done.status, done.failure_reason).toBe('completed');
    expect(runs).toBe(1);
    expect(attempts).toBe(1);
    expect(a.output() + b.output()).not.toMatch(/re-queued|lease lost/);
    expect(completionsOf(a, id) + completionsOf(b, id)).toBe(1);
  }, 90_000);

  it('a worker stopped past its lease, its scan taken by another, stops its run on resuming and writes nothing', async () => {
    const pair = await Promise.all([startWorker(), startWorker()]);
    const id = await startScan(`http://target.test/app?delay_ms=10000`);
    const first = await Promise.race(pair.map((w) => w.waitFor(new RegExp(`test engine run ${id} started`), 30_000).then(() => w)));
    const second = pair.find((w) => w !== first)!;
    first.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    try {
      for (let i = 0; (await row(id)).attempts < 2; i++) {
        if (i > 600) throw new Error(`the scan was not taken over in 60 s: ${JSON.stringify(await row(id))}`);
        await sleep(100);
      }
    } finally {
      first.child.kill('SIGCONT');
    }
    const takenAfterMs = Date.now() - stoppedAt;
    // The resumed worker learns at its next renewal that the lease is gone, and stops the engine.
    await first.waitFor(new RegExp(`test engine run ${id} aborted`), 30_000);
    const done = await waitForScan(api.api, key, id, ['completed', 'failed'], 60_000);
    const final = await row(id);
    await sleep(LEASE_SECONDS * 1000);
    console.log(
      `[leases] worker stopped: scan taken over after ${takenAfterMs} ms, ended ${done.status} by the other worker; the stopped one logged its loss and aborted`,
    );
    expect(done.status, done.failure_reason).toBe('completed');
    expect(first.output()).toMatch(new RegExp(`"scan_id":"${id}"[^\\n]*lease lost`));
    expect(completionsOf(first, id)).toBe(0);
    expect(completionsOf(second, id)).toBe(1);
    expect(runsOf(second, id)).toBe(1);
    // Nothing the first run did after resuming reached the scan: its final state is the second run's, unchanged.
    expect(await row(id)).toEqual(final);
    expect(final).toMatchObject({ status: 'completed', attempts: 2 });
  }, 90_000);
});
