import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

/**
 * Authenticated requests through POST /keys/rotate, which exists on every build; each call keeps
 * the newest key so the chain of requests stays authenticated.
 */
function rotatingClient(server: TestServer, firstKey: string) {
  let key = firstKey;
  return async () => {
    const res = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': key } });
    if (res.status === 200) key = res.body.api_key;
    return res;
  };
}

describe(`rate limits (${storeLabel})`, () => {
  let server: TestServer;
  let unlimited: TestServer;

  beforeAll(async () => {
    // A short window keeps the reset test fast without waiting for a whole minute.
    server = await startServer({ env: { VIGIL_RATE_LIMITS: 'free=3,pro=5,team=200', VIGIL_RATE_LIMIT_WINDOW_SECONDS: '2' } });
    unlimited = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
    await unlimited?.stop();
  });

  it('sends the three X-RateLimit headers on every authenticated response and 429s past the limit', async () => {
    const request = rotatingClient(server, (await server.createTenant('free')).apiKey);
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await request());
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(seen.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    expect(seen.every((r) => r.headers.get('x-ratelimit-limit') === '3')).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    for (const r of seen) {
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(now);
      expect(reset).toBeLessThanOrEqual(now + 3);
    }
    const refused = seen[3];
    expect(refused.body).toMatchObject({ error: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(refused.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retry_after));
  });

  it('keeps tenants apart: one tenant at its limit does not touch another', async () => {
    const first = rotatingClient(server, (await server.createTenant('free')).apiKey);
    const second = rotatingClient(server, (await server.createTenant('free')).apiKey);
    for (let i = 0; i < 3; i++) await first();
    expect((await first()).status).toBe(429);
    const other = await second();
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('does not count unauthenticated requests against a tenant', async () => {
    const request = rotatingClient(server, (await server.createTenant('free')).apiKey);
    expect((await request()).headers.get('x-ratelimit-remaining')).toBe('2');
    const anonymous = await call(`${server.api}/keys/rotate`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-ratelimit-limit')).toBeNull();
    expect((await request()).headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('applies a plan change on the next request', async () => {
    const { tenantId, apiKey } = await server.createTenant('free');
    const request = rotatingClient(server, apiKey);
    expect((await request()).headers.get('x-ratelimit-limit')).toBe('3');
    await server.vigil.services.tenants.setPlan(tenantId, 'pro');
    const after = await request();
    expect(after.headers.get('x-ratelimit-limit')).toBe('5');
    expect(after.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('opens a new window once the old one has passed', async () => {
    const request = rotatingClient(server, (await server.createTenant('free')).apiKey);
    const first = await request();
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    await request();
    await request();
    expect((await request()).status).toBe(429);
    await new Promise((r) => setTimeout(r, Math.max(0, reset * 1000 - Date.now()) + 150));
    expect((await request()).status).toBe(200);
  });

  it('self-hosted without configured limits is unlimited, and still sends the three headers', async () => {
    const request = rotatingClient(unlimited, (await unlimited.createTenant('free')).apiKey);
    for (let i = 0; i < 25; i++) {
      const res = await request();
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('2147483647');
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(2147483647 - (i + 1));
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it('hosted applies the plan defaults (free: 10 per minute)', async () => {
    const hosted = await startServer({ env: { VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk_test_x', PAYMENT_WEBHOOK_SECRET: 'whsec_x' } });
    try {
      const res = await rotatingClient(hosted, (await hosted.createTenant('free')).apiKey)();
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('9');
    } finally {
      await hosted.stop();
    }
  });
});
