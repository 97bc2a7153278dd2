import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/process.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';

describe(`vigil scan under a rate limit (${storeLabel})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    // 3 requests per 2 s window: the CLI's polling hits 429 and must wait for Retry-After.
    server = await startServer({ env: { VIGIL_RATE_LIMITS: 'pro=3', VIGIL_RATE_LIMIT_WINDOW_SECONDS: '2' } });
    const { apiKey } = await server.createTenant('pro');
    env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('honours Retry-After while polling and still finishes with exit 0', async () => {
    const p = runVigil(['scan', 'http://target.test/?delay_ms=3000', '--poll-interval', '0.05', '--json'], env);
    const code = await p.exited;
    expect(code, p.output()).toBe(0);
    const json = JSON.parse(p.output().slice(p.output().indexOf('{')));
    expect(json.status).toBe('completed');
    expect(p.output()).not.toMatch(/^error /m);
  });
});
