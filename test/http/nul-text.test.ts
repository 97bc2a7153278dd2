/**
 * A NUL character in a path parameter names nothing (404) and in a query value is malformed (400), on
 * every route, whatever the store: PostgreSQL refuses NUL in text, and the member and single-sign-on lookups passed
 * it on (500 on the distributed store, found by the API fuzz suite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

describe(`NUL in the path or query string (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await startServer();
    ({ apiKey } = await server.createTenant('enterprise'));
  });
  afterAll(async () => server?.stop());

  it.each([
    ['DELETE', '/members/a%00b', 404, 'NOT_FOUND'],
    ['PATCH', '/members/m%00', 404, 'NOT_FOUND'],
    ['GET', '/sso/login?tenant=a%00b', 400, 'INVALID_REQUEST'],
    ['GET', '/sso/login?email=a%00b%40example.com', 400, 'INVALID_REQUEST'],
    ['GET', '/scan/scn_%00', 404, 'NOT_FOUND'],
    ['GET', '/scans?status=completed&url=%00', 400, 'INVALID_REQUEST'],
  ] as const)('%s %s is %i %s and changes nothing', async (method, path, status, error) => {
    const res = await call(`${server.api}${path}`, {
      method,
      headers: { 'X-API-Key': apiKey, ...(method === 'PATCH' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'PATCH' ? { body: '{"role":"viewer"}' } : {}),
    });
    expect(res.status, res.text).toBe(status);
    expect(res.body).toMatchObject({ error, status });
    expect(res.body.message).toContain('NUL');
  });

  it('the same requests without the NUL are answered normally', async () => {
    expect((await call(`${server.api}/members/nobody`, { method: 'DELETE', headers: { 'X-API-Key': apiKey } })).status).toBe(404);
    expect((await call(`${server.api}/scan/scn_missing`, { headers: { 'X-API-Key': apiKey } })).status).toBe(404);
  });
});
