/**
 * Bodies within the byte limit whose shape would make parsing or validation hold the event loop (tens
 * of thousands of keys, huge arrays, deep nesting) are refused before any schema work, on an
 * authenticated route and on a public one, and the process keeps answering others meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_BOUNDS, exceededJsonBound } from '../../src/http/json-bounds.js';
import { startBilling, type BillingHarness } from '../billing/harness.js';
import { call, storeLabel, type TestServer } from '../helpers/server.js';

/** `{"k0":0,"k1":0,...}` with `keys` members: short keys so that 10^6 of them stay within the 10 MiB body limit. */
function manyKeys(keys: number): string {
  const parts = new Array<string>(keys);
  for (let i = 0; i < keys; i++) parts[i] = `"${i.toString(36)}":0`;
  return `{"url":"http://127.0.0.1:1","mode":"security",${parts.join(',')}}`;
}

describe(`JSON bodies with many keys (${storeLabel})`, () => {
  // Billing is configured (against the fake provider) so that the public sign-up route parses its body.
  let billing: BillingHarness;
  let server: TestServer;
  let apiKey: string;

  beforeAll(async () => {
    // Sign-ups are limited per client address, and in Redis that count is shared by every test server
    // of the run (all at 127.0.0.1): this file tests body bounds, not that limit, so it lifts it.
    billing = await startBilling({ VIGIL_SIGNUP_RATE_LIMIT: '1000000' });
    server = billing.server;
    ({ apiKey } = await server.createTenant('enterprise'));
  });
  afterAll(async () => billing?.stop());

  const routes = [
    { name: 'POST /scan (with a key)', path: '/scan', auth: true },
    { name: 'POST /billing/signup (public)', path: '/billing/signup', auth: false },
  ];

  for (const keys of [100_000, 1_000_000]) {
    for (const route of routes) {
      it(`refuses ${keys.toExponential(0)} keys on ${route.name} at once with 400, while others are served`, async () => {
        const body = manyKeys(keys);
        const started = performance.now();
        const big = call(`${server.api}${route.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(route.auth ? { 'X-API-Key': apiKey } : {}) },
          body,
        });
        const health = call(`${server.api}/health`);
        const [answer, healthAnswer] = await Promise.all([big, health]);
        const elapsed = performance.now() - started;
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body).toMatchObject({ error: 'INVALID_REQUEST', status: 400 });
        expect(answer.body.message).toContain(`more than ${JSON_BOUNDS.keysPerObject} keys`);
        expect(healthAnswer.status).toBe(200);
        // Before the bound, 10^5 keys held the loop for about a minute and 10^6 for hours (quadratic
        // error listing); the check is one pass over the text, so a generous bound tells the two apart.
        expect(elapsed).toBeLessThan(keys < 1_000_000 ? 15_000 : 30_000);
      });
    }
  }

  it('refuses deep nesting and huge arrays before validation', async () => {
    const deep = `{"url":"http://127.0.0.1:1","options":${'['.repeat(JSON_BOUNDS.depth + 5)}${']'.repeat(JSON_BOUNDS.depth + 5)}}`;
    const wide = `{"url":"http://127.0.0.1:1","options":{"exclude":[${new Array(JSON_BOUNDS.totalValues + 1).fill('"/x"').join(',')}]}}`;
    for (const [body, words] of [
      [deep, `deeper than ${JSON_BOUNDS.depth}`],
      [wide, `more than ${JSON_BOUNDS.totalValues} keys and array elements`],
    ] as const) {
      const answer = await call(`${server.api}/scan`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-API-Key': apiKey }, body });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'INVALID_REQUEST', status: 400 });
      expect(answer.body.message).toContain(words);
    }
  });

  it('still validates bodies within the bounds, listing a bounded number of problems', async () => {
    const answer = await call(`${server.api}/scan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-Key': apiKey },
      body: manyKeys(200),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('VALIDATION_ERROR');
    expect(answer.body.fields.length).toBeGreaterThan(0);
    expect(answer.body.fields.length).toBeLessThanOrEqual(50);
    expect(answer.body.fields[0]).toEqual({ field: '0', message: 'is not a known field' });
    // An ordinary request is unaffected (the prototype-poisoning refusal is kept too).
    const poisoned = await call(`${server.api}/scan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-Key': apiKey },
      body: '{"url":"http://a.test","__proto__":{"x":1}}',
    });
    expect(poisoned.status).toBe(400);
    expect(poisoned.body.error).toBe('INVALID_REQUEST');
  });
});

describe('the JSON shape check', () => {
  it('counts keys and array elements outside strings only', () => {
    expect(exceededJsonBound('{"a":"::::,,,,{{{{[[[[","b":[1,2,"x\\"y"],"c":{}}', { keysPerObject: 3, totalValues: 7, depth: 2 })).toBeUndefined();
    expect(exceededJsonBound('{"a":1,"b":2,"c":3,"d":4}', { keysPerObject: 3, totalValues: 100, depth: 5 })).toMatch(/more than 3 keys/);
    expect(exceededJsonBound('[[],[],[1]]', { keysPerObject: 3, totalValues: 4, depth: 5 })).toBeUndefined();
    expect(exceededJsonBound('[[],[],[1],2]', { keysPerObject: 3, totalValues: 4, depth: 5 })).toMatch(/more than 4 keys and array elements/);
    expect(exceededJsonBound('[[[]]]', { keysPerObject: 3, totalValues: 30, depth: 2 })).toMatch(/deeper than 2/);
    expect(exceededJsonBound('"unterminated \\"', JSON_BOUNDS)).toBeUndefined();
  });
});
