import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../../src/app/config.js';
import { createLogger } from '../../src/app/logger.js';
import { createVigil, type Vigil } from '../../src/app/vigil.js';
import type { Plan } from '../../src/domain/plans.js';
import type { EngineRegistry } from '../../src/queue/execution.js';
import { trackVigilServer } from './openapi-responses.js';
import { testEngines } from './test-engine.js';

/**
 * The store every test uses follows the environment, exactly as the product does: SQLite in a
 * temporary data dir by default; PostgreSQL (a fresh schema per server) when DATABASE_URL is set;
 * Redis for rate limits and events when REDIS_URL is set. CI runs the suite both ways.
 */
export const usingPostgres = Boolean(process.env.DATABASE_URL);
export const usingRedis = Boolean(process.env.REDIS_URL);
export const storeLabel = `${usingPostgres ? 'postgres' : 'sqlite'}${usingRedis ? '+redis' : ''}`;

/** Shared by every test process so api and worker processes can read each other's sealed secrets. */
export const TEST_ENCRYPTION_KEY = 'a'.repeat(64);

export interface TestStore {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** A fresh, empty store: a temp dir for SQLite, or a new schema in the test database. */
export async function freshStore(): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-test-'));
  const base = process.env.DATABASE_URL;
  if (!base) {
    return { env: { VIGIL_DATA_DIR: dataDir }, dispose: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  // vt_<run>_: the global setup drops this run's schemas when the run ends (not during it).
  const run = process.env.VIGIL_TEST_RUN ?? Date.now().toString(36);
  const schema = `vt_${run}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    env: { VIGIL_DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

export interface TestServer {
  vigil: Vigil;
  config: Config;
  /** e.g. http://127.0.0.1:43121/api/v1 */
  api: string;
  announced: string[];
  store: TestStore;
  createTenant(plan: Plan, id?: string): Promise<{ tenantId: string; apiKey: string }>;
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse a store (for restarts and several instances on one store). */
  store?: TestStore;
  /** Engines for the worker: the test engine by default; 'real' for the product's own (security + functional). */
  engines?: EngineRegistry | 'real';
  clock?: () => Date;
  logger?: Logger;
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const store = options.store ?? (await freshStore());
  const env: Record<string, string | undefined> = {
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: process.env.REDIS_URL,
    VIGIL_LOG_LEVEL: 'silent',
    VIGIL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...store.env,
    ...options.env,
  };
  const config = loadConfig(env);
  const announced: string[] = [];
  const vigil = await createVigil(config, {
    logger: options.logger ?? createLogger('silent'),
    announce: (line) => announced.push(line),
    engines: options.engines === 'real' ? undefined : (options.engines ?? testEngines()),
    clock: options.clock,
  });
  await vigil.start();
  if (vigil.url) await trackVigilServer(vigil.url);
  return {
    vigil,
    config,
    api: `${vigil.url}/api/v1`,
    announced,
    store,
    async createTenant(plan, id) {
      const { tenant, apiKey } = await vigil.services.tenants.create({ id, plan, email: `${plan}@tenant.test` });
      return { tenantId: tenant.id, apiKey };
    },
    async stop() {
      await vigil.stop();
      if (!options.store) await store.dispose();
    },
  };
}

/** fetch with JSON in and out; returns status, headers and parsed body. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown; body?: string } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...init.headers };
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { method: init.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Polls GET /scan/{id} until its status is one of `statuses`. */
export async function waitForScan(
  api: string,
  apiKey: string,
  scanId: string,
  statuses: string[] = ['completed', 'failed', 'cancelled'],
  timeoutMs = 30_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(`${api}/scan/${scanId}`, { headers: { 'X-API-Key': apiKey } });
    if (res.status === 200 && statuses.includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`scan ${scanId} still ${res.body?.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
