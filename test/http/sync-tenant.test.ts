import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

describe(`POST /billing/sync-tenant (${storeLabel})`, () => {
  let server: TestServer;
  let unconfigured: TestServer;
  const headers = { 'X-Sync-Key': 'the-sync-secret' };
  const body = (over: Record<string, unknown> = {}) => ({ tenant_id: `acme-${Math.random().toString(36).slice(2, 8)}`, email: 'ops@acme.example', plan: 'pro', ...over });

  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_APP_SYNC_KEY: 'the-sync-secret' } });
    unconfigured = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
    await unconfigured?.stop();
  });

  it('200: creates the tenant and returns a working svc_pk_ key, shown once', async () => {
    const input = body({ payment_customer_id: 'cus_123', plan: 'team' });
    const res = await call(`${server.api}/billing/sync-tenant`, { headers, json: input });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tenant_id: input.tenant_id, api_key: expect.stringMatching(/^svc_pk_[0-9A-Za-z]{43}$/), plan: 'team', status: 'active' });
    const use = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': res.body.api_key } });
    expect(use.status).toBe(200);
    expect(use.body.tenant_id).toBe(input.tenant_id);
  });

  it('409 TENANT_EXISTS for a tenant already registered, and the first key keeps working', async () => {
    const input = body();
    const first = await call(`${server.api}/billing/sync-tenant`, { headers, json: input });
    const again = await call(`${server.api}/billing/sync-tenant`, { headers, json: { ...input, plan: 'free' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'TENANT_EXISTS', status: 409 });
    const tenant = await server.vigil.services.tenants.get(input.tenant_id);
    expect(tenant?.plan).toBe('pro');
    expect((await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': first.body.api_key } })).status).toBe(200);
  });

  it('409 once when the same tenant is synced concurrently', async () => {
    const input = body();
    const results = await Promise.all(Array.from({ length: 8 }, () => call(`${server.api}/billing/sync-tenant`, { headers, json: input })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
  });

  it.each([
    ['tenant_id missing', { tenant_id: undefined }, 'tenant_id'],
    ['email missing', { email: undefined }, 'email'],
    ['plan missing', { plan: undefined }, 'plan'],
    ['plan unknown', { plan: 'platinum' }, 'plan'],
    ['email invalid', { email: 'nope' }, 'email'],
    ['tenant_id with spaces', { tenant_id: 'a b' }, 'tenant_id'],
  ])('422 VALIDATION_ERROR: %s', async (_label, over, field) => {
    const res = await call(`${server.api}/billing/sync-tenant`, { headers, json: JSON.parse(JSON.stringify(body(over))) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('401 for a missing or wrong X-Sync-Key, before looking at the body', async () => {
    const cases: Record<string, string>[] = [{}, { 'X-Sync-Key': 'wrong' }, { 'X-Sync-Key': 'the-sync-secret-and-more' }, { 'X-API-Key': 'the-sync-secret' }];
    for (const h of cases) {
      const res = await call(`${server.api}/billing/sync-tenant`, { headers: h, json: body() });
      expect(res.status).toBe(401);
      expect(res.body.status).toBe(401);
    }
    const garbage = await call(`${server.api}/billing/sync-tenant`, { headers: { 'X-Sync-Key': 'wrong' }, json: { nonsense: true } });
    expect(garbage.status).toBe(401);
  });

  it('503 SYNC_NOT_CONFIGURED when the server has no sync secret, and nothing is created', async () => {
    const input = body();
    const res = await call(`${unconfigured.api}/billing/sync-tenant`, { headers, json: input });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'SYNC_NOT_CONFIGURED', status: 503 });
    expect(await unconfigured.vigil.services.tenants.get(input.tenant_id)).toBeUndefined();
  });

  it('400 INVALID_REQUEST for malformed JSON, and nothing is created', async () => {
    const before = await server.vigil.services.tenants.count();
    const res = await call(`${server.api}/billing/sync-tenant`, { headers: { ...headers, 'content-type': 'application/json' }, body: '{"tenant_id":"x",' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_REQUEST');
    expect(await server.vigil.services.tenants.count()).toBe(before);
  });
});
