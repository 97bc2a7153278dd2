import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

function expectErrorShape(body: any, status: number, code: string) {
  expect(body).toMatchObject({ error: code, status });
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
}

describe(`error responses (${storeLabel})`, () => {
  let server: TestServer;
  const syncHeaders = { 'X-Sync-Key': 'sync-secret' };

  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_APP_SYNC_KEY: 'sync-secret', VIGIL_BODY_LIMIT_BYTES: '2048' } });
  });
  afterAll(async () => server?.stop());

  it('unknown route: 404 NOT_FOUND in the error shape, for any method', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await call(`${server.api}/does-not-exist`, { method });
      expect(res.status).toBe(404);
      expectErrorShape(res.body, 404, 'NOT_FOUND');
    }
    expectErrorShape((await call(`${server.api.replace('/api/v1', '')}/elsewhere`)).body, 404, 'NOT_FOUND');
  });

  it('body that is not JSON: 400 INVALID_REQUEST', async () => {
    const res = await call(`${server.api}/billing/sync-tenant`, { headers: { ...syncHeaders, 'content-type': 'application/json' }, body: '{"tenant_id": ' });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'INVALID_REQUEST');
  });

  it.each([['[]'], ['"text"'], ['42'], ['null']])('JSON body that is not an object (%s): 400 INVALID_REQUEST', async (body) => {
    const res = await call(`${server.api}/billing/sync-tenant`, { headers: { ...syncHeaders, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'INVALID_REQUEST');
  });

  it('missing body: 400 INVALID_REQUEST', async () => {
    const res = await call(`${server.api}/billing/sync-tenant`, { method: 'POST', headers: syncHeaders });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'INVALID_REQUEST');
  });

  it('schema failure: 422 VALIDATION_ERROR naming every failed field', async () => {
    const res = await call(`${server.api}/billing/sync-tenant`, { headers: syncHeaders, json: { plan: 'gold', email: 'not-an-email' } });
    expect(res.status).toBe(422);
    expectErrorShape(res.body, 422, 'VALIDATION_ERROR');
    const fields = (res.body.fields as Array<{ field: string }>).map((f) => f.field).sort();
    expect(fields).toEqual(['email', 'plan', 'tenant_id']);
    expect(res.body.message).toContain('tenant_id');
  });

  it('oversized body: 413 in the error shape', async () => {
    const res = await call(`${server.api}/billing/sync-tenant`, {
      headers: syncHeaders,
      json: { tenant_id: 'x', email: 'a@b.co', plan: 'free', pad: 'x'.repeat(4096) },
    });
    expect(res.status).toBe(413);
    expectErrorShape(res.body, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('unsupported content type: 415 in the error shape, never 500', async () => {
    const res = await call(`${server.api}/billing/sync-tenant`, { headers: { ...syncHeaders, 'content-type': 'application/xml' }, body: '<a/>' });
    expect(res.status).toBe(415);
    expectErrorShape(res.body, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('every response carries a request id', async () => {
    const res = await call(`${server.api}/health`);
    expect(res.headers.get('x-request-id')).toMatch(/\S+/);
  });

  it('unexpected failure: 500 INTERNAL_ERROR with a request id and no internals; health says 503', async () => {
    const broken = await startServer();
    const { apiKey } = await broken.createTenant('pro');
    // A failure nobody planned for, its message full of internals. (A closed store is no longer the way
    // to cause one: on PostgreSQL the key lookup meets the ended pool, which is "database unavailable",
    // a 503 with Retry-After.)
    vi.spyOn(broken.vigil.services.tenants, 'rotateKey').mockRejectedValue(
      new Error('SqliteError: no such table: api_keys\n    at Statement.run (node_modules/kysely/dist/esm/query.js:12:7) (pg-pool)'),
    );
    try {
      const res = await call(`${broken.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': apiKey } });
      expect(res.status).toBe(500);
      expectErrorShape(res.body, 500, 'INTERNAL_ERROR');
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
      expect(res.text).not.toMatch(/at .*\.(ts|js):\d+|stack|kysely|sqlite|pg-pool|Error:/i);
      await broken.vigil.services.store.close();
      const health = await call(`${broken.api}/health`);
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'unavailable', error: 'STORE_UNAVAILABLE' });
    } finally {
      await broken.vigil.http?.close();
      await broken.store.dispose();
    }
  });
});
