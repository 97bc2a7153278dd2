/**
 * PostgreSQL restarted under an api and a worker process (its own instance, never the shared one): a
 * fast restart and an immediate stop and start while requests and scans stream. No process may exit,
 * every answer meanwhile is a success or a 503 in the error shape (never a 500 or a closed socket), both
 * processes serve again once the database is back, and every admitted scan ends exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.js';
import { TenantRepository } from '../../src/store/tenants.js';
import { runScript, runVigil, type VigilProcess } from '../helpers/process.js';
import { call, TEST_ENCRYPTION_KEY, usingPostgres } from '../helpers/server.js';
import { ownPostgres, ownPostgresUnavailable, type OwnPostgres } from './own-services.js';

const unavailable = usingPostgres
  ? ownPostgresUnavailable()
  : 'runs in the PostgreSQL pass (DATABASE_URL set); the embedded store has no database server to restart';
if (unavailable) console.log(`[faults] PostgreSQL restart test skipped: ${unavailable}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(Boolean(unavailable))('PostgreSQL restarts under an api and a worker process', () => {
  let pg: OwnPostgres;
  let dataDir: string;
  let api: string;
  let apiKey: string;
  const processes: VigilProcess[] = [];
  const admitted: string[] = [];

  beforeAll(async () => {
    pg = await ownPostgres();
    dataDir = mkdtempSync(join(tmpdir(), 'vigil-faults-'));
    const env = {
      DATABASE_URL: pg.url,
      REDIS_URL: undefined,
      VIGIL_DATA_DIR: dataDir,
      PORT: '0',
      VIGIL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      VIGIL_SCAN_LEASE_SECONDS: '10',
      VIGIL_LOG_LEVEL: 'warn',
    };
    const apiProcess = runVigil(['serve', '--role', 'api'], env);
    processes.push(apiProcess);
    api = (await apiProcess.waitFor(/listening on (http:\/\/\S+\/api\/v1)/, 90_000))[1]!;
    const worker = runScript('test/helpers/test-worker.ts', [], { ...env, VIGIL_ROLE: 'worker' });
    processes.push(worker);
    await worker.waitFor(/test worker ready/, 90_000);
    const store = await openStore({ dataDir, databaseUrl: pg.url });
    ({ apiKey } = await new TenantRepository(store.db).create({ plan: 'enterprise' }));
    await store.close();
  }, 240_000);

  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await pg?.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Requests in a loop until `stop()`: reads and scan starts, four at a time. Returns every outcome. */
  function stream() {
    let running = true;
    const outcomes: Array<{ status: number; body: any; text: string } | { error: string }> = [];
    const loop = async (n: number) => {
      while (running) {
        try {
          const res =
            n % 2 === 0
              ? await call(`${api}/usage`, { headers: { 'X-API-Key': apiKey } })
              : await call(`${api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'http://target.test/app?delay_ms=300', mode: 'functional' } });
          outcomes.push(res);
          if (res.status === 202) admitted.push(res.body.scan_id);
        } catch (error) {
          outcomes.push({ error: (error as Error).message });
        }
        await sleep(50);
      }
    };
    const loops = [0, 1, 2, 3].map(loop);
    return {
      outcomes,
      async stop() {
        running = false;
        await Promise.all(loops);
        return outcomes;
      },
    };
  }

  function expectOnlySuccessOr503(outcomes: ReturnType<typeof stream>['outcomes']) {
    const bad = outcomes.filter(
      (o) =>
        'error' in o ||
        !(o.status < 300 || (o.status === 503 && o.body?.error && o.body?.status === 503) || (o.status === 429 && o.body?.error === 'CONCURRENT_LIMIT')),
    );
    expect(bad.map((o) => ('error' in o ? o.error : `${o.status} ${o.text}`))).toEqual([]);
  }

  async function servedAgain(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await call(`${api}/usage`, { headers: { 'X-API-Key': apiKey } }).catch(() => undefined);
      if (res?.status === 200) return;
      if (Date.now() > deadline) throw new Error(`api not serving 60 s after PostgreSQL came back: ${res?.status} ${res?.text}`);
      await sleep(250);
    }
  }

  /** A scan started after the fault runs to completion (waiting for a slot while the stream's scans drain). */
  async function scanCompletes(): Promise<void> {
    const deadline = Date.now() + 90_000;
    let start;
    for (;;) {
      start = await call(`${api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'http://target.test/app?delay_ms=100', mode: 'functional' } });
      if (start.status !== 429 || Date.now() > deadline) break;
      await sleep(500);
    }
    expect(start.status, start.text).toBe(202);
    admitted.push(start.body.scan_id);
    for (;;) {
      const res = await call(`${api}/scan/${start.body.scan_id}`, { headers: { 'X-API-Key': apiKey } });
      if (res.body?.status === 'completed') return;
      if (Date.now() > deadline) throw new Error(`scan after the restart not completed in 90 s: ${res.text}`);
      await sleep(300);
    }
  }

  for (const mode of ['fast', 'immediate'] as const) {
    it(`survives a ${mode} restart mid-stream: no exit, 503 meanwhile, served again after`, async () => {
      const traffic = stream();
      await sleep(1500);
      if (mode === 'fast') {
        await pg.restart('fast');
      } else {
        await pg.stop('immediate');
        await sleep(2000);
        await pg.start();
      }
      await sleep(1500);
      const outcomes = await traffic.stop();
      const tally: Record<string, number> = {};
      for (const o of outcomes) tally['error' in o ? 'socket error' : String(o.status)] = (tally['error' in o ? 'socket error' : String(o.status)] ?? 0) + 1;
      console.log(`[faults] PostgreSQL ${mode} restart: answers by status ${JSON.stringify(tally)}`);
      for (const p of processes) expect(p.child.exitCode, p.output()).toBeNull();
      expectOnlySuccessOr503(outcomes);
      expect(outcomes.some((o) => 'status' in o && o.status < 300)).toBe(true);
      await servedAgain();
      await scanCompletes();
      for (const p of processes) expect(p.child.exitCode, p.output()).toBeNull();
    }, 240_000);
  }

  it('ends every admitted scan exactly once', async () => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const states = await Promise.all(admitted.map((id) => call(`${api}/scan/${id}`, { headers: { 'X-API-Key': apiKey } })));
      const open = states.filter((s) => !['completed', 'failed', 'cancelled'].includes(s.body?.status));
      if (open.length === 0) break;
      if (Date.now() > deadline) throw new Error(`${open.length} of ${admitted.length} scans not final: ${open.map((s) => s.text).join('\n')}`);
      await sleep(500);
    }
    for (const p of processes) expect(p.child.exitCode, p.output()).toBeNull();
  }, 180_000);
});
