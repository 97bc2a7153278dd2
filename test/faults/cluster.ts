/**
 * A distributed Vigil of a fault test's own: api and worker processes (real child processes, the test
 * engine in the workers) on the test's own PostgreSQL and optionally Redis (own-services.ts). Helpers to
 * create tenants, stream requests, tally answers and wait for every admitted scan to end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/database.js';
import { TenantRepository } from '../../src/store/tenants.js';
import type { Plan } from '../../src/domain/plans.js';
import { runScript, runVigil, type VigilProcess } from '../helpers/process.js';
import { call, TEST_ENCRYPTION_KEY } from '../helpers/server.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Cluster {
  apis: string[];
  apiProcesses: VigilProcess[];
  workers: VigilProcess[];
  processes: VigilProcess[];
  env: Record<string, string | undefined>;
  dataDir: string;
  tenant(plan: Plan): Promise<string>;
  startApi(): Promise<{ url: string; process: VigilProcess }>;
  dispose(): Promise<void>;
}

export async function startCluster(options: {
  databaseUrl: string;
  redisUrl?: string;
  apis?: number;
  workers?: number;
  env?: Record<string, string>;
}): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-faults-'));
  const env: Record<string, string | undefined> = {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    VIGIL_DATA_DIR: dataDir,
    PORT: '0',
    VIGIL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    VIGIL_SCAN_LEASE_SECONDS: '10',
    VIGIL_LOG_LEVEL: 'warn',
    ...options.env,
  };
  const cluster: Cluster = {
    apis: [],
    apiProcesses: [],
    workers: [],
    processes: [],
    env,
    dataDir,
    async tenant(plan) {
      const store = await openStore({ dataDir, databaseUrl: options.databaseUrl });
      try {
        return (await new TenantRepository(store.db).create({ plan })).apiKey;
      } finally {
        await store.close();
      }
    },
    async startApi() {
      const process = runVigil(['serve', '--role', 'api'], env);
      cluster.processes.push(process);
      cluster.apiProcesses.push(process);
      const url = (await process.waitFor(/listening on (http:\/\/\S+\/api\/v1)/, 90_000))[1]!;
      cluster.apis.push(url);
      return { url, process };
    },
    async dispose() {
      for (const p of cluster.processes) p.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  // The first api migrates the schema; the other processes start once it is done.
  await cluster.startApi();
  await Promise.all([
    ...Array.from({ length: (options.apis ?? 1) - 1 }, () => cluster.startApi()),
    ...Array.from({ length: options.workers ?? 1 }, async () => {
      const worker = runScript('test/helpers/test-worker.ts', [], { ...env, VIGIL_ROLE: 'worker' });
      cluster.processes.push(worker);
      cluster.workers.push(worker);
      await worker.waitFor(/test worker ready/, 90_000);
    }),
  ]);
  return cluster;
}

export type Outcome = { status: number; body: any; text: string; headers?: Headers } | { error: string };

/** Answers counted by status ('socket error' for a request that got no answer). */
export function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key = 'error' in o ? 'socket error' : String(o.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Polls every scan until each is in a final state; returns the final statuses. Throws after `timeoutMs`. */
export async function waitAllFinal(api: string, apiKey: string, ids: string[], timeoutMs = 120_000): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(ids.map((id) => call(`${api}/scan/${id}`, { headers: { 'X-API-Key': apiKey } }).catch(() => undefined)));
    const open = ids.filter((_, i) => !['completed', 'failed', 'cancelled'].includes(states[i]?.body?.status));
    if (open.length === 0) return Object.fromEntries(ids.map((id, i) => [id, states[i]!.body.status as string]));
    if (Date.now() > deadline) throw new Error(`${open.length} of ${ids.length} scans not final after ${timeoutMs} ms: ${open.join(', ')}`);
    await sleep(500);
  }
}

/** Waits until `GET /usage` answers 200 on `api`; returns how long that took. */
export async function servedAgain(api: string, apiKey: string, timeoutMs = 60_000): Promise<number> {
  const since = Date.now();
  for (;;) {
    const res = await call(`${api}/usage`, { headers: { 'X-API-Key': apiKey } }).catch(() => undefined);
    if (res?.status === 200) return Date.now() - since;
    if (Date.now() - since > timeoutMs) throw new Error(`api not serving ${timeoutMs} ms after the fault: ${res?.status} ${res?.text}`);
    await sleep(250);
  }
}
