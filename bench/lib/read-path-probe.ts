/**
 * Probe of the authenticated read path on one store (not a benchmark of record): starts `vigil serve`
 * (tuned: silent, role api) on a fresh store seeded like bench/api.bench.ts, loads each route with
 * autocannon, and prints per request: the server's CPU, PostgreSQL statements (pg_stat_database
 * xact_commit of the bench schema's database, autocommit statements) and Redis commands (INFO stats
 * total_commands_processed). PROBE_STORE=embedded|distributed, PROBE_SECONDS, PROBE_PROFILE=dir writes a
 * .cpuprofile of the server (node --cpu-prof) and prints its summary.
 *
 *   npm run build && node --import tsx bench/lib/read-path-probe.ts
 */
import autocannon from 'autocannon';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { openStore } from '../../src/store/database.js';
import { freePort, loadLine, processCpuUs, runToEnd, startProcess, waitForUrl } from './procs.js';
import { summarise } from './profile-summary.js';
import { seededScan } from './seeded-scans.js';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = `${process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'}/9`;
const ROOT = new URL('../..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist/operator/main.js');
const distributed = (process.env.PROBE_STORE ?? 'distributed') === 'distributed';
const seconds = Number(process.env.PROBE_SECONDS ?? 5);
const profileDir = process.env.PROBE_PROFILE;
const only = process.env.PROBE_ROUTE;

async function pgCommits(): Promise<number> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  // Stats are flushed by backends at transaction end, at most every second or so: wait for them.
  await new Promise((r) => setTimeout(r, 1500));
  const r = await c.query('select xact_commit from pg_stat_database where datname = current_database()');
  await c.end();
  return Number(r.rows[0].xact_commit);
}

async function redisCommands(): Promise<number> {
  const r = new Redis(REDIS_URL);
  const info = await r.info('stats');
  r.disconnect();
  return Number(/total_commands_processed:(\d+)/.exec(info)![1]);
}

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-probe-'));
const port = await freePort();
const env: Record<string, string | undefined> = {
  VIGIL_DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  VIGIL_LOG_LEVEL: 'silent',
  VIGIL_ROLE: 'api',
  DATABASE_URL: undefined,
  REDIS_URL: undefined,
};
const schema = `vprobe_${Date.now().toString(36)}`;
if (distributed) {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  env.DATABASE_URL = url.toString();
  env.REDIS_URL = REDIS_URL;
}
const created = JSON.parse(await runToEnd('node', [CLI, 'tenants', 'create', '--plan', 'enterprise', '--id', 'bench', '--json'], env)) as { api_key: string };
const store = await openStore({ dataDir, databaseUrl: env.DATABASE_URL });
// The benchmarked tenant's 200 scans (bench/api.bench.ts seeds other tenants' beside them; the plans are the same).
const rows = Array.from({ length: 200 }, (_, n) => seededScan(n, 'bench', Date.UTC(2026, 0, 1)));
const scanId = rows[0]!.id;
await store.db.insertInto('scans').values(rows).execute();
await store.close();
const args = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, CLI, 'serve'] : [CLI, 'serve'];
const child = startProcess('node', args, env, join(dataDir, 'server.log'));
const base = `http://127.0.0.1:${port}/api/v1`;
try {
  await waitForUrl(`${base}/health`, 60_000, child);
  const headers = { 'X-API-Key': created.api_key };
  const routes = ['/usage', '/scans?per_page=20', `/scan/${scanId}`].filter((r) => !only || r.includes(only));
  for (const r of routes) await autocannon({ url: `${base}${r}`, headers, connections: 20, duration: 1 });
  process.stdout.write(`${distributed ? 'distributed' : 'embedded'}, tuned; ${loadLine()}\n`);
  for (const r of routes) {
    const pg0 = distributed ? await pgCommits() : 0;
    const redis0 = distributed ? await redisCommands() : 0;
    const cpu0 = processCpuUs(child.pid);
    const res = await autocannon({ url: `${base}${r}`, headers, connections: 20, duration: seconds });
    const cpu = processCpuUs(child.pid) - cpu0;
    const n = res.requests.total;
    const pgN = distributed ? (await pgCommits()) - pg0 - 2 : 0; // the probe's own two stat queries
    const redisN = distributed ? (await redisCommands()) - redis0 - 1 : 0;
    process.stdout.write(
      `${r.padEnd(40)} ${res.requests.average.toFixed(0).padStart(6)} req/s  ${(cpu / n).toFixed(0).padStart(4)} us CPU/req  ` +
        `${distributed ? `${(pgN / n).toFixed(2)} pg statements/req  ${(redisN / n).toFixed(2)} redis commands/req` : ''}  non-2xx ${res.non2xx}\n`,
    );
  }
} finally {
  await child.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (distributed) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
    const r = new Redis(REDIS_URL);
    await r.flushdb();
    r.disconnect();
  }
}
if (profileDir) {
  const file = readdirSync(profileDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .at(-1);
  if (file) {
    const s = summarise(join(profileDir, file), ROOT, /^dist\//, 25);
    process.stdout.write(`busy ${s.busyMs.toFixed(0)} ms\nself by file:\n`);
    for (const x of s.byFile) process.stdout.write(`  ${(x.share * 100).toFixed(1).padStart(5)}%  ${x.name}\n`);
    process.stdout.write('self by function:\n');
    for (const x of s.bySelf) process.stdout.write(`  ${(x.share * 100).toFixed(1).padStart(5)}%  ${x.name}\n`);
    process.stdout.write('inclusive (dist/):\n');
    for (const x of s.byFunction) process.stdout.write(`  ${(x.share * 100).toFixed(1).padStart(5)}%  ${x.name}\n`);
  }
}
process.exit(0);
