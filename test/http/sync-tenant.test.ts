import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

describe(`POST /billing/sync-tenant (${storeLabel})`, () => {
  let server: TestServer;
  let unconfigured: TestServer;
  const headers = { 'X-Sync-Key': 'the-sync-secret' };
  const body = (over: Record<string, unknown> = {}): Record<string, any> => ({
    tenant_id: `acme-${Math.random().toString(36).slice(2, 8)}`,
    email: 'ops@acme.example',
    plan: 'pro',
    ...over,
  });

  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_APP_SYNC_KEY: 'the-sync-secret' } });
    unconfigured = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
    await unconfigured?.stop();
  });

  it('200: creates the tenant and returns a working svc_pk_ key, shown once', async () => {
    const input = body({ payment_customer_id: `cus_${Math.random().toString(36).slice(2, 10)}`, plan: 'team' });
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

  const suffix = () => Math.random().toString(36).slice(2, 10);
  const link = async (tenantId: string) =>
    server.vigil.services.store.db
      .selectFrom('billing_accounts')
      .select(['customer_id', 'subscription_id'])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();

  it("keeps payment_customer_id and payment_subscription_id as the tenant's billing link", async () => {
    const input = body({ payment_customer_id: `cus_${suffix()}`, payment_subscription_id: `sub_${suffix()}` });
    const res = await call(`${server.api}/billing/sync-tenant`, { headers, json: input });
    expect(res.status).toBe(200);
    expect(await link(input.tenant_id)).toEqual({ customer_id: input.payment_customer_id, subscription_id: input.payment_subscription_id });
    const customerOnly = body({ payment_customer_id: `cus_${suffix()}` });
    expect((await call(`${server.api}/billing/sync-tenant`, { headers, json: customerOnly })).status).toBe(200);
    expect(await link(customerOnly.tenant_id)).toEqual({ customer_id: customerOnly.payment_customer_id, subscription_id: null });
  });

  it.each([
    ['payment_customer_id without the cus_ prefix', { payment_customer_id: 'abc123' }, 'payment_customer_id'],
    ['payment_customer_id that is only the prefix', { payment_customer_id: 'cus_' }, 'payment_customer_id'],
    ['payment_customer_id with a space', { payment_customer_id: 'cus_a b' }, 'payment_customer_id'],
    ['payment_customer_id with a NUL', { payment_customer_id: 'cus_a\u0000b' }, 'payment_customer_id'],
    ['payment_customer_id with a newline', { payment_customer_id: 'cus_ab\n' }, 'payment_customer_id'],
    ['payment_customer_id longer than 255 characters', { payment_customer_id: `cus_${'a'.repeat(252)}` }, 'payment_customer_id'],
    ['payment_customer_id a number', { payment_customer_id: 42 }, 'payment_customer_id'],
    ['a subscription id as payment_customer_id', { payment_customer_id: 'sub_123' }, 'payment_customer_id'],
    ['a customer id as payment_subscription_id', { payment_customer_id: 'cus_ok1', payment_subscription_id: 'cus_123' }, 'payment_subscription_id'],
    ['payment_subscription_id empty', { payment_customer_id: 'cus_ok2', payment_subscription_id: '' }, 'payment_subscription_id'],
    ['payment_subscription_id without payment_customer_id', { payment_subscription_id: 'sub_123' }, 'payment_subscription_id'],
  ])('422 VALIDATION_ERROR, nothing created: %s', async (_label, over, field) => {
    const input = body(over);
    const res = await call(`${server.api}/billing/sync-tenant`, { headers, json: input });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(await server.vigil.services.tenants.get(input.tenant_id)).toBeUndefined();
  });

  it('a customer id of exactly 255 characters is accepted', async () => {
    const input = body({ payment_customer_id: `cus_${suffix().padEnd(251, 'a')}` });
    expect(input.payment_customer_id).toHaveLength(255);
    expect((await call(`${server.api}/billing/sync-tenant`, { headers, json: input })).status).toBe(200);
  });

  it('409 PAYMENT_LINK_CONFLICT for a customer or subscription already linked to another tenant; nothing created, the first link kept', async () => {
    const first = body({ payment_customer_id: `cus_${suffix()}`, payment_subscription_id: `sub_${suffix()}` });
    expect((await call(`${server.api}/billing/sync-tenant`, { headers, json: first })).status).toBe(200);
    for (const over of [
      { payment_customer_id: first.payment_customer_id },
      { payment_customer_id: `cus_${suffix()}`, payment_subscription_id: first.payment_subscription_id },
    ]) {
      const second = body(over);
      const res = await call(`${server.api}/billing/sync-tenant`, { headers, json: second });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: 'PAYMENT_LINK_CONFLICT', status: 409, message: expect.any(String) });
      expect(await server.vigil.services.tenants.get(second.tenant_id)).toBeUndefined();
    }
    expect(await link(first.tenant_id)).toEqual({ customer_id: first.payment_customer_id, subscription_id: first.payment_subscription_id });
  });

  it('two tenants synced concurrently with one customer: one is created, the other 409 PAYMENT_LINK_CONFLICT', async () => {
    const customer = `cus_${suffix()}`;
    const inputs = Array.from({ length: 6 }, () => body({ payment_customer_id: customer }));
    const results = await Promise.all(inputs.map((json) => call(`${server.api}/billing/sync-tenant`, { headers, json })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.error === 'PAYMENT_LINK_CONFLICT')).toHaveLength(5);
    const created = await Promise.all(inputs.map((i) => server.vigil.services.tenants.get(i.tenant_id)));
    expect(created.filter(Boolean)).toHaveLength(1);
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
