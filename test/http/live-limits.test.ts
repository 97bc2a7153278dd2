import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ConfigError, loadConfig } from '../../src/app/config.js';
import { createLogger } from '../../src/app/logger.js';
import { LiveSocketSlots } from '../../src/events/live-slots.js';
import { rawRequest } from '../helpers/raw-http.js';
import { call, freshStore, startServer, storeLabel, usingRedis, type TestServer, type TestStore } from '../helpers/server.js';

function wsUrl(api: string, apiKey?: string): string {
  const base = `${api.replace(/^http/, 'ws').replace(/\/api\/v1$/, '')}/ws/live`;
  return apiKey ? `${base}?api_key=${apiKey}` : base;
}

type Upgrade = { open: true; socket: WebSocket } | { open: false; status: number; headers: Record<string, string | string[] | undefined>; body: any };

/** Opens a live socket, or returns the refused upgrade's status, headers and JSON body. */
function upgrade(url: string): Promise<Upgrade> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => resolve({ open: true, socket }));
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ open: false, status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    socket.once('error', reject);
  });
}

async function openSocket(url: string): Promise<WebSocket> {
  const result = await upgrade(url);
  if (!result.open) throw new Error(`upgrade refused: ${result.status} ${JSON.stringify(result.body)}`);
  return result.socket;
}

function closeAll(sockets: WebSocket[]): Promise<unknown> {
  return Promise.all(
    sockets.map((s) =>
      s.readyState === s.CLOSED
        ? undefined
        : new Promise((resolve) => {
            s.once('close', resolve);
            s.close();
          }),
    ),
  );
}

/** Waits until the server no longer counts a closed socket (the slot is given back when its connection closes). */
async function waitForCount(server: TestServer, tenantId: string, expected: number): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if ((await server.vigil.services.liveSlots.count(tenantId)) === expected) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`tenant ${tenantId} still holds ${await server.vigil.services.liveSlots.count(tenantId)} slots, expected ${expected}`);
}

describe('live socket configuration', () => {
  it('defaults to free 5, pro 20, team 50, enterprise 200 per tenant and 10,000 per process; VIGIL_LIVE_SOCKETS overrides per plan', () => {
    expect(loadConfig({})).toMatchObject({ liveSockets: { free: 5, pro: 20, team: 50, enterprise: 200 }, liveSocketsPerProcess: 10_000 });
    expect(loadConfig({ VIGIL_LIVE_SOCKETS: 'free=1, team=7', VIGIL_LIVE_SOCKETS_MAX_PER_PROCESS: '500' })).toMatchObject({
      liveSockets: { free: 1, pro: 20, team: 7, enterprise: 200 },
      liveSocketsPerProcess: 500,
    });
  });

  it.each([
    [{ VIGIL_LIVE_SOCKETS: 'free=0' }, 'VIGIL_LIVE_SOCKETS'],
    [{ VIGIL_LIVE_SOCKETS: 'gold=5' }, 'VIGIL_LIVE_SOCKETS'],
    [{ VIGIL_LIVE_SOCKETS: 'free=99999999999999999999' }, 'VIGIL_LIVE_SOCKETS'],
    [{ VIGIL_LIVE_SOCKETS_MAX_PER_PROCESS: '0' }, 'VIGIL_LIVE_SOCKETS_MAX_PER_PROCESS'],
    [{ VIGIL_LIVE_SOCKETS_MAX_PER_PROCESS: 'lots' }, 'VIGIL_LIVE_SOCKETS_MAX_PER_PROCESS'],
  ])('refuses %j with one line naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});

describe(`live socket limits (${storeLabel})`, () => {
  let server: TestServer;
  const opened: WebSocket[] = [];
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await closeAll(opened);
    await server?.stop();
  });

  it('a free tenant opens up to its plan cap (5); the next upgrade is 429 TOO_MANY_SOCKETS in the error shape; another tenant is unaffected', async () => {
    const t = await server.createTenant('free');
    for (let i = 0; i < 5; i += 1) opened.push(await openSocket(wsUrl(server.api, t.apiKey)));
    const refused = await upgrade(wsUrl(server.api, t.apiKey));
    expect(refused.open).toBe(false);
    if (refused.open) return;
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'TOO_MANY_SOCKETS', message: expect.stringContaining('5 live sockets'), status: 429, limit: 5, retry_after: 5 });
    // Every 429 carries Retry-After (the contract's rule 4).
    expect(refused.headers['retry-after']).toBe('5');

    const other = await server.createTenant('free');
    opened.push(await openSocket(wsUrl(server.api, other.apiKey)));
    expect(await server.vigil.services.liveSlots.count(t.tenantId)).toBe(5);
    expect(await server.vigil.services.liveSlots.count(other.tenantId)).toBe(1);
  });

  it('closing a socket gives its slot back', async () => {
    const t = await server.createTenant('free');
    const mine: WebSocket[] = [];
    for (let i = 0; i < 5; i += 1) mine.push(await openSocket(wsUrl(server.api, t.apiKey)));
    opened.push(...mine);
    expect((await upgrade(wsUrl(server.api, t.apiKey))).open).toBe(false);
    await closeAll([mine[0]!]);
    await waitForCount(server, t.tenantId, 4);
    opened.push(await openSocket(wsUrl(server.api, t.apiKey)));
    const refused = await upgrade(wsUrl(server.api, t.apiKey));
    expect(refused.open ? 101 : refused.status).toBe(429);
  });

  it('2,000 sockets from one free tenant are not possible: of 60 simultaneous upgrades exactly 5 open', async () => {
    const t = await server.createTenant('free');
    const results = await Promise.all(Array.from({ length: 60 }, () => upgrade(wsUrl(server.api, t.apiKey))));
    const sockets = results.flatMap((r) => (r.open ? [r.socket] : []));
    opened.push(...sockets);
    expect(sockets).toHaveLength(5);
    expect(results.filter((r) => !r.open && r.status === 429 && r.body.error === 'TOO_MANY_SOCKETS')).toHaveLength(55);
    expect(await server.vigil.services.liveSlots.count(t.tenantId)).toBe(5);
  });

  it('a refused or failed upgrade holds no slot', async () => {
    const t = await server.createTenant('free');
    // A handshake the WebSocket server refuses (no Sec-WebSocket-Key) after the slot was taken.
    const { host } = new URL(server.api);
    const res = await rawRequest(
      server.api,
      `GET /ws/live?api_key=${t.apiKey} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    expect(res.status).toBe(400);
    await waitForCount(server, t.tenantId, 0);
    opened.push(await openSocket(wsUrl(server.api, t.apiKey)));
  });

  it('a plain GET of the socket address is 426 UPGRADE_REQUIRED in the error shape, and takes no slot', async () => {
    const t = await server.createTenant('free');
    const res = await call(wsUrl(server.api).replace(/^ws/, 'http'), { headers: { 'X-API-Key': t.apiKey } });
    expect(res.status).toBe(426);
    expect(res.body).toEqual({ error: 'UPGRADE_REQUIRED', message: expect.any(String), status: 426 });
    expect(res.headers.get('upgrade')).toBe('websocket');
    expect(await server.vigil.services.liveSlots.count(t.tenantId)).toBe(0);
  });
});

describe(`live socket upgrades count against the rate limit (${storeLabel})`, () => {
  let server: TestServer;
  const opened: WebSocket[] = [];
  beforeAll(async () => {
    server = await startServer({ env: { VIGIL_RATE_LIMITS: 'free=3', VIGIL_RATE_LIMIT_WINDOW_SECONDS: '3600' } });
  });
  afterAll(async () => {
    await closeAll(opened);
    await server?.stop();
  });

  it('with a limit of 3, the 4th upgrade is 429 RATE_LIMIT_EXCEEDED with retry_after and Retry-After; upgrades and requests share the counter', async () => {
    const t = await server.createTenant('free');
    for (let i = 0; i < 3; i += 1) opened.push(await openSocket(wsUrl(server.api, t.apiKey)));
    const refused = await upgrade(wsUrl(server.api, t.apiKey));
    expect(refused.open).toBe(false);
    if (refused.open) return;
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'RATE_LIMIT_EXCEEDED', message: expect.any(String), status: 429, retry_after: expect.any(Number) });
    expect(refused.headers['retry-after']).toBe(String(refused.body.retry_after));
    expect(refused.headers['x-ratelimit-limit']).toBe('3');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // The refused upgrade took no socket slot.
    expect(await server.vigil.services.liveSlots.count(t.tenantId)).toBe(3);
    expect((await call(`${server.api}/usage`, { headers: { 'X-API-Key': t.apiKey } })).status).toBe(429);

    const other = await server.createTenant('free');
    expect((await call(`${server.api}/usage`, { headers: { 'X-API-Key': other.apiKey } })).status).toBe(200);
    opened.push(await openSocket(wsUrl(server.api, other.apiKey)));
    opened.push(await openSocket(wsUrl(server.api, other.apiKey)));
    expect((await call(`${server.api}/usage`, { headers: { 'X-API-Key': other.apiKey } })).status).toBe(429);
  });
});

describe(`live sockets per process (${storeLabel})`, () => {
  it('over VIGIL_LIVE_SOCKETS_MAX_PER_PROCESS the upgrade is 429 SOCKET_CAPACITY_REACHED, whatever the tenant; VIGIL_LIVE_SOCKETS sets the per-plan cap', async () => {
    const server = await startServer({ env: { VIGIL_LIVE_SOCKETS_MAX_PER_PROCESS: '3', VIGIL_LIVE_SOCKETS: 'free=2' } });
    const opened: WebSocket[] = [];
    try {
      const a = await server.createTenant('free');
      const b = await server.createTenant('enterprise');
      for (let i = 0; i < 2; i += 1) opened.push(await openSocket(wsUrl(server.api, a.apiKey)));
      const overPlan = await upgrade(wsUrl(server.api, a.apiKey));
      expect(overPlan.open ? 101 : overPlan.body).toMatchObject({ error: 'TOO_MANY_SOCKETS', status: 429, limit: 2 });
      opened.push(await openSocket(wsUrl(server.api, b.apiKey)));
      const full = await upgrade(wsUrl(server.api, b.apiKey));
      expect(full.open).toBe(false);
      if (full.open) return;
      expect(full.status).toBe(429);
      expect(full.body).toEqual({ error: 'SOCKET_CAPACITY_REACHED', message: expect.any(String), status: 429, retry_after: 5 });
      expect(full.headers['retry-after']).toBe('5');
      expect(full.headers['retry-after']).toBe('5');
      await closeAll([opened.pop()!]);
      for (let i = 0; i < 200 && server.vigil.services.liveSlots.heldHere > 2; i += 1) await new Promise((r) => setTimeout(r, 25));
      opened.push(await openSocket(wsUrl(server.api, b.apiKey)));
    } finally {
      await closeAll(opened);
      await server.stop();
    }
  });
});

if (!usingRedis) console.log('[skip] live sockets across api processes: needs REDIS_URL (without Redis the tenant cap holds per process)');

describe.skipIf(!usingRedis)(`live sockets across api processes (${storeLabel})`, () => {
  let store: TestStore;
  let a: TestServer;
  let b: TestServer;
  let redis: Redis;
  const opened: WebSocket[] = [];
  beforeAll(async () => {
    store = await freshStore();
    a = await startServer({ store, env: { VIGIL_ROLE: 'api' } });
    b = await startServer({ store, env: { VIGIL_ROLE: 'api' } });
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(async () => {
    await closeAll(opened);
    await a?.stop();
    await b?.stop();
    await store?.dispose();
    redis?.disconnect();
  });

  it('the tenant cap holds across two api processes', async () => {
    const t = await a.createTenant('free');
    for (let i = 0; i < 3; i += 1) opened.push(await openSocket(wsUrl(a.api, t.apiKey)));
    for (let i = 0; i < 2; i += 1) opened.push(await openSocket(wsUrl(b.api, t.apiKey)));
    for (const server of [a, b]) {
      const refused = await upgrade(wsUrl(server.api, t.apiKey));
      expect(refused.open ? 101 : refused.body).toMatchObject({ error: 'TOO_MANY_SOCKETS', status: 429 });
    }
    await closeAll([opened.pop()!]);
    await waitForCount(a, t.tenantId, 4);
    opened.push(await openSocket(wsUrl(a.api, t.apiKey)));
  });

  it('slots carry an expiry that refreshes push forward, and slots a dead process left behind stop counting once expired', async () => {
    const logger = createLogger('silent');
    const perPlan = { free: 2, pro: 20, team: 50, enterprise: 200 };
    const tenantId = `ten_slots_${Date.now().toString(36)}`;
    const key = `vigil:ws:${tenantId}`;
    const crashed = new LiveSocketSlots({ perPlan, perProcess: 100, ttlSeconds: 60, redis, logger });
    const alive = new LiveSocketSlots({ perPlan, perProcess: 100, ttlSeconds: 60, redis, logger });
    expect(await crashed.acquire(tenantId, 'free')).toMatchObject({ ok: true });
    expect(await crashed.acquire(tenantId, 'free')).toMatchObject({ ok: true });
    expect(await alive.acquire(tenantId, 'free')).toEqual({ ok: false, reason: 'tenant', limit: 2 });

    const serverNowMs = async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    const before = (await redis.zrange(key, 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    const now = await serverNowMs();
    for (const expiry of before) {
      expect(expiry).toBeGreaterThan(now);
      expect(expiry).toBeLessThanOrEqual(now + 60_000);
    }
    await new Promise((r) => setTimeout(r, 20));
    await crashed.refresh();
    const after = (await redis.zrange(key, 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    expect(Math.min(...after)).toBeGreaterThan(Math.max(...before));

    // The holder dies without giving its slots back: once their expiry passes they no longer count.
    const members = (await redis.zrange(key, 0, -1)) as string[];
    for (const member of members) await redis.zadd(key, now - 1, member);
    expect(await alive.count(tenantId)).toBe(0);
    expect(await alive.acquire(tenantId, 'free')).toMatchObject({ ok: true });
    expect(await redis.pttl(key)).toBeGreaterThan(0);
    await alive.close();
    expect(await redis.exists(key)).toBe(0);
  });
});
