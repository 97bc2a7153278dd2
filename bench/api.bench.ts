/**
 * API benchmark: authenticated reads as users get them, beside a bare Fastify route.
 *
 * Every server runs in its own process, started as an operator starts it (`node dist/operator/main.js serve`,
 * default configuration: log level info, role all, logs written to a file), with a tuned row beside it
 * (VIGIL_LOG_LEVEL=silent, VIGIL_ROLE=api) and, on the embedded store, a logging row (VIGIL_ROLE=api at the
 * default level: against the tuned row, what logging alone costs); the bare Fastify route runs in a process of its own too, and
 * autocannon (the load generator) in this one. Both stores: embedded (SQLite in a fresh data dir) and
 * distributed (PostgreSQL in a fresh schema of BENCH_DATABASE_URL, Redis db BENCH_REDIS_DB, flushed before
 * and after). Each route is loaded in turn, ROUNDS rounds of DURATION seconds; a round's ratio is its
 * rate over the bare route's rate in the same round. Printed: req/s, p99, the CPU time the server process
 * spent per request (from /proc, so the load generator's CPU is not in it), ratios, medians with the
 * spread (min-max) over the rounds, and the load average.
 *
 * Then: POST /scan admissions at concurrency 50 (exact count under the quota) and GET /scans latency with
 * 100,000 scans across 1,000 tenants, on both stores (in-process servers: these measure correctness and
 * query plans, not throughput).
 *
 * Not measured: TLS, a proxy in front, requests from many client addresses, keys of many tenants at once
 * (one key per row), the dashboard, and anything a worker does while a scan runs.
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { openStore } from '../src/store/database.js';
import { dropTestSchemas } from '../test/helpers/global-setup.js';
import { startServer } from '../test/helpers/server.js';
import { freePort, loadLine, median, processCpuUs, runToEnd, selfCpuUs, spread, startProcess, waitForUrl, type Child } from './lib/procs.js';
import { seededScan } from './lib/seeded-scans.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** A Redis database no test uses (tests use db 0 with their own key prefixes); flushed before and after. */
const REDIS_DB = Number(process.env.BENCH_REDIS_DB ?? 9);
const REDIS_URL = `${process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'}/${REDIS_DB}`;
const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist/operator/main.js');

interface Load {
  rps: number;
  p99: number;
  errors: number;
  /** CPU time of the server process per request, in microseconds. */
  serverCpu: number;
  /** CPU time of the load generator (this process) per request, in microseconds. */
  clientCpu: number;
}

async function load(url: string, headers: Record<string, string>, pid: number, duration = DURATION): Promise<Load> {
  const server0 = processCpuUs(pid);
  const client0 = selfCpuUs();
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration, pipelining: 1 });
  const requests = Math.max(1, result.requests.total);
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    serverCpu: (processCpuUs(pid) - server0) / requests,
    clientCpu: (selfCpuUs() - client0) / requests,
  };
}

interface Server {
  name: string;
  child: Child;
  base: string;
  apiKey: string;
  scanId: string;
  cleanup(): Promise<void>;
}

/** A fresh PostgreSQL schema for one server; its URL and a function that drops it. */
async function freshSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `vbench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

/**
 * Seeds the store the way a server that has run for a while has it: 200 scans of the benchmarked tenant
 * among 100 other tenants' 100 scans each, so a tenant's reads find their rows among others'.
 */
async function seed(env: Record<string, string>, tenantId: string): Promise<string> {
  const store = await openStore({ dataDir: env.VIGIL_DATA_DIR!, databaseUrl: env.DATABASE_URL });
  try {
    const base = Date.UTC(2026, 0, 1);
    const others = Array.from({ length: 100 }, (_, i) => `bench-other-${i}`);
    await store.db
      .insertInto('tenants')
      .values(
        others.map((id) => ({
          id,
          email: null,
          plan: 'pro' as const,
          status: 'active' as const,
          created_at: new Date(base).toISOString(),
          updated_at: new Date(base).toISOString(),
        })),
      )
      .execute();
    const statuses = ['completed', 'completed', 'completed', 'failed', 'cancelled'] as const;
    let first = '';
    for (let batch = 0; batch < 11; batch += 1) {
      const rows = Array.from({ length: 1000 }, (_, j) => {
        const n = batch * 1000 + j;
        return seededScan(n, n < 200 ? tenantId : others[n % 100]!, base, statuses[n % statuses.length]!);
      });
      if (!first) first = rows[0]!.id;
      await store.db.insertInto('scans').values(rows).execute();
    }
    return first;
  } finally {
    await store.close();
  }
}

/** Starts `vigil serve` in its own process on a fresh store, with one enterprise tenant created by `vigil tenants create`. */
async function startVigil(name: string, distributed: boolean, tuned: Record<string, string>): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const schema = distributed ? await freshSchema() : undefined;
  const port = await freePort();
  const env: Record<string, string> = { VIGIL_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ...tuned };
  if (schema) {
    env.DATABASE_URL = schema.url;
    env.REDIS_URL = REDIS_URL;
  }
  // The bench's own environment must not leak a store or a log level into the server.
  const clean = { DATABASE_URL: undefined, REDIS_URL: undefined, VIGIL_LOG_LEVEL: undefined, VIGIL_ROLE: undefined, ...env };
  const created = JSON.parse(await runToEnd('node', [CLI, 'tenants', 'create', '--plan', 'enterprise', '--id', 'bench', '--json'], clean)) as {
    api_key: string;
  };
  const scanId = await seed(env, 'bench');
  const child = startProcess('node', [CLI, 'serve'], clean, join(dataDir, 'server.log'));
  const base = `http://127.0.0.1:${port}/api/v1`;
  await waitForUrl(`${base}/health`, 60_000, child);
  return {
    name,
    child,
    base,
    apiKey: created.api_key,
    scanId,
    cleanup: async () => {
      await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
      await schema?.drop();
    },
  };
}

async function redisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000 });
  try {
    await redis.connect();
    await redis.flushdb();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
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

const DEFAULT = {};
const TUNED = { VIGIL_LOG_LEVEL: 'silent', VIGIL_ROLE: 'api' };
/** Role api at the default log level: against TUNED, the cost of logging alone (no worker beside the API). */
const LOGGING = { VIGIL_ROLE: 'api' };

async function throughput(): Promise<void> {
  const distributed = (await postgresReachable()) && (await redisReachable());
  const barePort = await freePort();
  const bareLog = join(tmpdir(), `vigil-bench-bare-${process.pid}.log`);
  const bare = startProcess('node', [join(ROOT, 'bench/lib/bare-fastify.mjs')], { PORT: String(barePort) }, bareLog);
  const servers: Server[] = [];
  try {
    await waitForUrl(`http://127.0.0.1:${barePort}/bare`, 30_000, bare);
    servers.push(await startVigil('embedded, default (info, role all)', false, DEFAULT));
    servers.push(await startVigil('embedded, logging (info, role api)', false, LOGGING));
    servers.push(await startVigil('embedded, tuned (silent, role api)', false, TUNED));
    if (distributed) {
      servers.push(await startVigil('distributed, default (info, role all)', true, DEFAULT));
      servers.push(await startVigil('distributed, tuned (silent, role api)', true, TUNED));
    }
    const routes = [
      { name: 'GET /usage', path: () => '/usage' },
      { name: 'GET /scans?per_page=20', path: () => '/scans?per_page=20' },
      { name: 'GET /scan/{id}', path: (s: Server) => `/scan/${s.scanId}` },
    ];
    const targets = [
      { name: 'bare Fastify route (own process)', url: `http://127.0.0.1:${barePort}/bare`, headers: {}, pid: bare.pid },
      ...servers.flatMap((s) =>
        routes.map((r) => ({ name: `${r.name}  ${s.name}`, url: `${s.base}${r.path(s)}`, headers: { 'X-API-Key': s.apiKey }, pid: s.child.pid })),
      ),
    ];
    // Warm-up: a second of load on each target (JIT, connection pools, SQLite page cache).
    for (const t of targets) await load(t.url, t.headers, t.pid, 1);
    const rounds: Load[][] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const measured: Load[] = [];
      for (const t of targets) measured.push(await load(t.url, t.headers, t.pid));
      rounds.push(measured);
    }
    process.stdout.write(
      `\nAuthenticated reads, ${ROUNDS} rounds of ${DURATION} s per row, ${CONNECTIONS} connections; every server in its own process; ` +
        `median (min-max) over the rounds; ${loadLine()}\n`,
    );
    if (!distributed) process.stdout.write(`PostgreSQL ${PG_URL} or Redis ${REDIS_URL} not reachable: the distributed rows are left out\n`);
    process.stdout.write(
      `${'route and server'.padEnd(72)} ${'req/s'.padStart(18)}  ${'of bare'.padStart(14)}  ${'server CPU us/req'.padStart(18)}  p99 ms  errors\n`,
    );
    targets.forEach((t, i) => {
      const loads = rounds.map((r) => r[i]!);
      const ratios = rounds.map((r) => (r[i]!.rps / r[0]!.rps) * 100);
      const errors = loads.reduce((n, l) => n + l.errors, 0);
      process.stdout.write(
        `${t.name.padEnd(72)} ${spread(loads.map((l) => l.rps)).padStart(18)}  ${(i === 0 ? '' : spread(ratios, 0, '%')).padStart(14)}  ` +
          `${spread(loads.map((l) => l.serverCpu)).padStart(18)}  ${String(median(loads.map((l) => l.p99))).padStart(6)}  ${errors}\n`,
      );
    });
    const client = median(rounds.flatMap((r) => r.map((l) => l.clientCpu)));
    process.stdout.write(`load generator (autocannon, this process): ${client.toFixed(0)} us of CPU per request (median over all rows)\n`);
    process.stdout.write('targets: distributed reads at least 40% of the bare route, embedded at least 55%\n');
  } finally {
    for (const s of servers) await s.cleanup();
    await bare.stop();
    rmSync(bareLog, { force: true });
    if (distributed) await redisReachable();
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
    const rows = await server.vigil.services.store.db
      .selectFrom('scans')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    const exact = admitted === 500 && used === 500 && Number(rows.n) === 500;
    process.stdout.write(
      `POST /scan at concurrency 50 (${label}, in-process server): ${(total / seconds).toFixed(0)} starts/s, ${admitted} admitted, ${refused} refused (quota 500), ` +
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
    const statuses = ['completed', 'completed', 'completed', 'failed', 'cancelled'] as const;
    const base = Date.UTC(2026, 0, 1);
    for (let batch = 0; batch < 100; batch += 1) {
      const rows = Array.from({ length: 1000 }, (_, j) => {
        const n = batch * 1000 + j;
        return seededScan(n, tenants[n % 1000]!.tenantId, base, statuses[n % statuses.length]!);
      });
      await db.insertInto('scans').values(rows).execute();
    }
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
    process.stdout.write(
      `GET /scans with 100,000 scans / 1,000 tenants (${label}, in-process server, one request at a time): p50 ${p(0.5)} ms, p95 ${p(0.95)} ms, p99 ${p(0.99)} ms (target p95 < 20 ms)\n`,
    );
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<void> {
  await throughput();
  if (process.env.BENCH_ONLY_THROUGHPUT) return;
  process.env.VIGIL_TEST_RUN = Date.now().toString(36);
  const saved = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  try {
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
