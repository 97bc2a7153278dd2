/**
 * API benchmark (issue 3). In one run, on this machine:
 *  - requests/s and p99 of authenticated GET /usage and GET /scan/{id} next to a bare Fastify route,
 *    in interleaved rounds (target: at least 55% of bare Fastify on the embedded store, issue 14);
 *  - POST /scan admissions per second at concurrency 50, and whether the final count is exact;
 *  - GET /scans p95 with 100,000 scans across 1,000 tenants (target under 20 ms), on SQLite and,
 *    when reachable, PostgreSQL.
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { newId } from '../src/domain/ids.js';
import { dropTestSchemas } from '../test/helpers/global-setup.js';
import { startServer } from '../test/helpers/server.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Load {
  rps: number;
  p99: number;
  errors: number;
  /** CPU time of this process (server and load generator) per request, in microseconds. */
  cpuPerRequest: number;
}

async function load(url: string, headers: Record<string, string> = {}, connections = 20, duration = DURATION): Promise<Load> {
  const cpu = process.cpuUsage();
  const result = await autocannon({ url, headers, connections, duration, pipelining: 1 });
  const used = process.cpuUsage(cpu);
  const requests = Math.max(1, result.requests.total);
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.non2xx + result.errors, cpuPerRequest: (used.user + used.system) / requests };
}

function row(name: string, l: Load, base?: Load, ratioOfBase = base ? l.rps / base.rps : undefined): string {
  const ratio = ratioOfBase === undefined ? '' : `${(ratioOfBase * 100).toFixed(0)}%`;
  return `${name.padEnd(38)} ${l.rps.toFixed(0).padStart(8)} req/s  p99 ${String(l.p99).padStart(4)} ms  ${ratio.padStart(5)}${l.errors ? `  (${l.errors} errors)` : ''}`;
}

async function bareFastify(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ status: 'ok', scans_used: 1, scans_limit: 500 }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/bare`, close: () => app.close() };
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Bare route, GET /usage and GET /scan/{id} take turns for ROUNDS rounds after a short warm-up; each
 * route's ratio is taken within its round and the median round is printed, so a burst of load from
 * elsewhere on the machine moves one round, not the result.
 */
async function throughput(): Promise<void> {
  const bare = await bareFastify();
  const server = await startServer({ env: { VIGIL_ROLE: 'api' } });
  try {
    const { apiKey } = await server.createTenant('enterprise');
    const headers = { 'X-API-Key': apiKey };
    const started = await fetch(`${server.api}/scan`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://target.example' }) });
    const { scan_id } = (await started.json()) as { scan_id: string };
    const routes = [
      { name: 'GET /usage (authenticated)', url: `${server.api}/usage`, headers },
      { name: 'GET /scan/{id} (authenticated)', url: `${server.api}/scan/${scan_id}`, headers },
    ];
    for (const target of [{ url: bare.url, headers: {} }, ...routes]) await load(target.url, target.headers, 20, 1);
    const rounds: Array<{ base: Load; routes: Load[] }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const base = await load(bare.url);
      const measured: Load[] = [];
      for (const route of routes) measured.push(await load(route.url, route.headers));
      rounds.push({ base, routes: measured });
    }
    const typical = (pick: (r: { base: Load; routes: Load[] }) => Load): Load => {
      const loads = rounds.map(pick);
      return {
        rps: median(loads.map((l) => l.rps)),
        p99: median(loads.map((l) => l.p99)),
        errors: loads.reduce((n, l) => n + l.errors, 0),
        cpuPerRequest: median(loads.map((l) => l.cpuPerRequest)),
      };
    };
    process.stdout.write(`\nThroughput (${ROUNDS} rounds of ${DURATION}s per route, 20 connections, embedded store; medians):\n`);
    const base = typical((r) => r.base);
    process.stdout.write(`${row('bare Fastify route (baseline)', base)}  cpu ${base.cpuPerRequest.toFixed(0)} us/req\n`);
    routes.forEach((route, i) => {
      const ratios = rounds.map((r) => r.routes[i]!.rps / r.base.rps);
      const cpuRatios = rounds.map((r) => r.base.cpuPerRequest / r.routes[i]!.cpuPerRequest);
      const measured = typical((r) => r.routes[i]!);
      const percent = (x: number) => `${(x * 100).toFixed(0)}%`;
      process.stdout.write(
        `${row(route.name, measured, undefined, median(ratios))}  cpu ${measured.cpuPerRequest.toFixed(0)} us/req (${percent(median(cpuRatios))} of the bare route's rate)` +
          `  rounds ${ratios.map(percent).join(' ')}\n`,
      );
    });
    process.stdout.write('target: each at least 55% of the bare route\n');
  } finally {
    await server.stop();
    await bare.close();
  }
}

async function admissions(label: string, env: Record<string, string>): Promise<void> {
  const server = await startServer({ env: { VIGIL_ROLE: 'api', VIGIL_CONCURRENT_SCANS: 'pro=100000', ...env } });
  try {
    const { apiKey, tenantId } = await server.createTenant('pro');
    let admitted = 0;
    let refused = 0;
    const total = 600;
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < total) {
        next += 1;
        const res = await fetch(`${server.api}/scan`, {
          method: 'POST',
          headers: { 'X-API-Key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ url: 'https://target.example', mode: 'functional' }),
        });
        await res.arrayBuffer();
        if (res.status === 202) admitted += 1;
        else refused += 1;
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    const seconds = (performance.now() - t0) / 1000;
    const used = (await server.vigil.services.usage.view(tenantId, 'pro')).scans_used;
    const rows = await server.vigil.services.store.db.selectFrom('scans').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow();
    const exact = admitted === 500 && used === 500 && Number(rows.n) === 500;
    process.stdout.write(
      `POST /scan at concurrency 50 (${label}): ${(total / seconds).toFixed(0)} starts/s, ${admitted} admitted, ${refused} refused (quota 500), ` +
        `usage ${used}, rows ${rows.n} -> ${exact ? 'exact' : 'NOT EXACT'}\n`,
    );
  } finally {
    await server.stop();
  }
}

async function listLatency(label: string, env: Record<string, string>): Promise<void> {
  const server = await startServer({ env: { VIGIL_ROLE: 'api', ...env } });
  try {
    const db = server.vigil.services.store.db;
    const tenants: Array<{ tenantId: string; apiKey: string }> = [];
    for (let i = 0; i < 1000; i += 1) tenants.push(await server.createTenant('pro', `bench-${i}`));
    const t0 = performance.now();
    const statuses = ['completed', 'completed', 'completed', 'failed', 'cancelled'] as const;
    const base = Date.UTC(2026, 0, 1);
    for (let batch = 0; batch < 100; batch += 1) {
      const rows = Array.from({ length: 1000 }, (_, j) => {
        const n = batch * 1000 + j;
        const at = new Date(base + n * 1000).toISOString();
        return {
          id: newId('scn'),
          tenant_id: tenants[n % 1000]!.tenantId,
          mode: 'security' as const,
          status: statuses[n % statuses.length]!,
          url: `https://target-${n % 97}.example`,
          spec_url: null,
          input: '{"options":{}}',
          secret: null,
          progress: 100,
          attempts: 1,
          lease_owner: null,
          lease_expires_at: null,
          last_progress_at: at,
          failure_reason: null,
          passed: 40,
          failed: 3,
          total: 43,
          elapsed_seconds: 12.5,
          agent_count: 5,
          results: null,
          period_start: '2026-01-01T00:00:00.000Z',
          created_at: at,
          updated_at: at,
          started_at: at,
          completed_at: at,
        };
      });
      await db.insertInto('scans').values(rows).execute();
    }
    const seeded = (performance.now() - t0) / 1000;
    const times: number[] = [];
    for (let i = 0; i < 300; i += 1) {
      const t = tenants[(i * 37) % 1000]!;
      const query = i % 3 === 0 ? '?status=completed&per_page=50' : i % 3 === 1 ? '?page=2&per_page=20' : '';
      const s = performance.now();
      const res = await fetch(`${server.api}/scans${query}`, { headers: { 'X-API-Key': t.apiKey } });
      await res.arrayBuffer();
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    const p = (q: number) => times[Math.floor(q * (times.length - 1))]!.toFixed(1);
    process.stdout.write(`GET /scans with 100,000 scans / 1,000 tenants (${label}, seeded in ${seeded.toFixed(1)} s): p50 ${p(0.5)} ms, p95 ${p(0.95)} ms, p99 ${p(0.99)} ms (target p95 < 20 ms)\n`);
  } finally {
    await server.stop();
  }
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

export async function run(): Promise<void> {
  process.env.VIGIL_TEST_RUN = Date.now().toString(36);
  const saved = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  try {
    await throughput();
    if (process.env.BENCH_ONLY_THROUGHPUT) return;
    process.stdout.write('\n');
    await admissions('sqlite', {});
    await listLatency('sqlite', {});
    if (await postgresReachable()) {
      process.env.DATABASE_URL = PG_URL;
      await admissions('postgres', {});
      await listLatency('postgres', {});
    } else {
      process.stdout.write(`PostgreSQL at ${PG_URL} not reachable: the PostgreSQL rows are left out of this run\n`);
    }
  } finally {
    if (process.env.DATABASE_URL) await dropTestSchemas((_, run) => run === process.env.VIGIL_TEST_RUN);
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}
