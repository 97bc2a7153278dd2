import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBilling, SYNC_KEY, type BillingHarness } from '../billing/harness.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

/**
 * An id holding NUL cannot exist (PostgreSQL text cannot store it): every route that looks a scan or a
 * checkout session up answers 404 like for any missing one, on both stores, instead of the database
 * error (a 500 on PostgreSQL, found by the fuzz suite).
 */
describe(`scan ids that no store can hold (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;

  beforeAll(async () => {
    server = await startServer();
    ({ apiKey } = await server.createTenant('enterprise'));
  });
  afterAll(async () => server?.stop());

  const routes: Array<[string, string]> = [
    ['GET', '/scan/{id}'],
    ['GET', '/scan/{id}/results'],
    ['POST', '/scan/{id}/cancel'],
    ['GET', '/scan/{id}/export?format=csv'],
    ['GET', '/scan/{id}/functional-results'],
    ['GET', '/scan/{id}/visual-regression'],
    ['GET', '/scan/{id}/accessibility'],
    ['GET', '/scan/{id}/performance'],
    ['GET', '/scan/{id}/compliance'],
  ];

  it.each(routes)('%s %s with an unknown id longer than any issued one (65, 101, 2000 characters) answers 404 NOT_FOUND', async (method, route) => {
    for (const id of ['s'.repeat(65), `scn_${'x'.repeat(97)}`, 'z'.repeat(2000)]) {
      const res = await call(`${server.api}${route.replace('{id}', id)}`, { method, headers: { 'X-API-Key': apiKey } });
      expect({ length: id.length, status: res.status, body: res.body }).toMatchObject({
        length: id.length,
        status: 404,
        body: { error: 'NOT_FOUND', status: 404 },
      });
    }
  });

  it('an unknown baseline id of any length: DELETE /baselines/{id} answers 404 NOT_FOUND', async () => {
    for (const id of ['b'.repeat(65), 'b'.repeat(3000)]) {
      const res = await call(`${server.api}/baselines/${id}`, { method: 'DELETE', headers: { 'X-API-Key': apiKey } });
      expect({ length: id.length, status: res.status, error: res.body?.error }).toEqual({ length: id.length, status: 404, error: 'NOT_FOUND' });
    }
  });

  it.each(routes)('%s %s with a NUL in the id answers 404 NOT_FOUND', async (method, route) => {
    for (const id of ['%00', 'scn_a%00b', '%01%00%7F']) {
      const res = await call(`${server.api}${route.replace('{id}', id)}`, { method, headers: { 'X-API-Key': apiKey } });
      expect({ id, status: res.status, body: res.body }).toMatchObject({ id, status: 404, body: { error: 'NOT_FOUND', status: 404 } });
    }
  });
});

describe(`checkout session ids that no store can hold (${storeLabel})`, () => {
  let billing: BillingHarness;

  beforeAll(async () => {
    billing = await startBilling();
  });
  afterAll(async () => billing?.stop());

  it('GET /billing/checkout-sessions/{id}/key with a NUL in the id answers 404 NOT_FOUND', async () => {
    for (const id of ['%00', 'cs_test_a%00b']) {
      const res = await call(`${billing.api}/billing/checkout-sessions/${id}/key`, { headers: { 'X-Sync-Key': SYNC_KEY } });
      expect({ id, status: res.status, body: res.body }).toMatchObject({ id, status: 404, body: { error: 'NOT_FOUND', status: 404 } });
    }
  });

  it('GET /billing/checkout-sessions/{id}/key with an unknown id of 300 or 5000 characters answers 404 NOT_FOUND', async () => {
    for (const id of ['cs_'.padEnd(300, 'q'), 'cs_'.padEnd(5000, 'q')]) {
      const res = await call(`${billing.api}/billing/checkout-sessions/${id}/key`, { headers: { 'X-Sync-Key': SYNC_KEY } });
      expect({ length: id.length, status: res.status, error: res.body?.error }).toEqual({ length: id.length, status: 404, error: 'NOT_FOUND' });
    }
  });
});
