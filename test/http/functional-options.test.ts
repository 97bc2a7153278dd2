/**
 * The functional options a scan request carries (options.budgets, options.throttling) are validated
 * by the API and reach the engine as sent, defaults filled in. The engines' handling of them is tested
 * in test/engines/functional (budgets, throttling), which never start a Vigil server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/test-engine.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

describe(`options.budgets through the API (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  const seen: unknown[] = [];

  beforeAll(async () => {
    const engines = testEngines();
    const functional = engines.functional;
    const run = functional.run.bind(functional);
    functional.run = async (c) => {
      seen.push(c.input.options.budgets);
      return run(c);
    };
    server = await startServer({ engines });
    apiKey = (await server.createTenant('pro')).apiKey;
  });
  afterAll(async () => server?.stop());

  const start = (budgets: unknown) =>
    call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'http://target.test/', mode: 'functional', options: { budgets } } });

  it('a budget without one limit, with the wrong kind of limit, or an unknown metric is 422 naming it', async () => {
    const bad = [
      [{ metric: 'lcp' }],
      [{ metric: 'lcp', max: 1, min: 1 }],
      [{ metric: 'performance', max: 90 }],
      [{ metric: 'cls', min: 0.1 }],
      [{ metric: 'speed', max: 1 }],
      [{ metric: 'lcp', max: 1, level: 'fatal' }],
      'lcp=2500',
    ];
    for (const budgets of bad) {
      const res = await start(budgets);
      expect(res.status, JSON.stringify(budgets)).toBe(422);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
      expect(res.body.fields.map((f: { field: string }) => f.field).join(' '), JSON.stringify(budgets)).toMatch(/options\.budgets/);
    }
    expect(seen).toEqual([]);
  });

  it('valid budgets reach the engine, level error by default', async () => {
    const res = await start([
      { metric: 'lcp', max: 2500, page: '/cart*' },
      { metric: 'performance', min: 90, level: 'warn' },
    ]);
    expect(res.status).toBe(202);
    const deadline = Date.now() + 60_000;
    while (seen.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(seen[0]).toEqual([
      { metric: 'lcp', max: 2500, page: '/cart*', level: 'error' },
      { metric: 'performance', min: 90, level: 'warn' },
    ]);
  }, 90_000);
});

describe(`options.throttling through the API (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  const seen: Array<string | undefined> = [];

  beforeAll(async () => {
    const engines = testEngines();
    const functional = engines.functional;
    const run = functional.run.bind(functional);
    functional.run = async (c) => {
      seen.push(c.input.options.throttling);
      return run(c);
    };
    server = await startServer({ engines, env: { VIGIL_CONCURRENT_SCANS: 'free=1,pro=10,team=10,enterprise=25' } });
    apiKey = (await server.createTenant('pro')).apiKey;
  });
  afterAll(async () => server?.stop());

  const start = (options: Record<string, unknown>) =>
    call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'http://target.test/', mode: 'functional', options } });

  it('an unknown value is 422 VALIDATION_ERROR naming options.throttling', async () => {
    for (const value of ['fast', 'provided', '', 4]) {
      const res = await start({ throttling: value });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
      expect(res.body.fields.map((f: { field: string }) => f.field)).toContain('options.throttling');
    }
  });

  it('each value reaches the engine; absent is simulate', async () => {
    for (const options of [{ throttling: 'devtools' }, { throttling: 'none' }, { throttling: 'simulate' }, {}]) {
      const res = await start(options);
      expect(res.status).toBe(202);
    }
    const deadline = Date.now() + 60_000;
    while (seen.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(seen.slice().sort()).toEqual(['devtools', 'none', 'simulate', 'simulate']);
  }, 90_000);
});
