import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

describe(`authentication (${storeLabel})`, () => {
  let server: TestServer;
  let hosted: TestServer;
  let key: string;
  let hostedKey: string;

  beforeAll(async () => {
    server = await startServer();
    ({ apiKey: key } = await server.createTenant('pro'));
    hosted = await startServer({ env: { VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk_test_x', PAYMENT_WEBHOOK_SECRET: 'whsec_x' } });
    ({ apiKey: hostedKey } = await hosted.createTenant('pro'));
  });
  afterAll(async () => {
    await server?.stop();
    await hosted?.stop();
  });

  const endpoint = () => `${server.api}/keys/rotate`;

  it('accepts a valid X-API-Key and refuses a missing one with 401 INVALID_API_KEY', async () => {
    const missing = await call(endpoint(), { method: 'POST' });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: 'INVALID_API_KEY', status: 401 });
    expect(typeof missing.body.message).toBe('string');
  });

  it.each([
    ['wrong prefix', 'sk_live_0123456789012345678901234567890123456789012'],
    ['too short', 'svc_pk_abc'],
    ['unknown key of the right shape', `svc_pk_${'A'.repeat(43)}`],
    ['bad characters', `svc_pk_${'-'.repeat(43)}`],
  ])('refuses a %s', async (_label, bad) => {
    const res = await call(endpoint(), { method: 'POST', headers: { 'X-API-Key': bad } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('INVALID_API_KEY');
  });

  it('refuses whitespace inside the presented value, a doubled header, and a doubled space after Bearer', async () => {
    const { hostname, port } = new URL(server.api);
    const cases = [
      `X-API-Key: svc_pk_ ${key.slice(7)}`,
      `X-API-Key: ${key} x`,
      `X-API-Key: ${key}\r\nX-API-Key: ${key}`,
      `Authorization: Bearer  ${key}`,
      `Authorization: bearer ${key}`,
    ];
    for (const line of cases) {
      const rotate = await rawRequest(
        server.api,
        `POST /api/v1/keys/rotate HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${line}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      expect(rotate.status, line).toBe(401);
    }
    const ok = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': key } });
    expect(ok.status).toBe(200);
  });

  it('accepts Authorization: Bearer on self-hosted', async () => {
    const { apiKey } = await server.createTenant('team');
    const res = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toMatch(/^svc_pk_/);
  });

  it('refuses Authorization: Bearer on hosted, even with a valid key, and accepts X-API-Key there', async () => {
    const bearer = await call(`${hosted.api}/keys/rotate`, { method: 'POST', headers: { Authorization: `Bearer ${hostedKey}` } });
    expect(bearer.status).toBe(401);
    expect(bearer.body.error).toBe('INVALID_API_KEY');
    const both = await call(`${hosted.api}/keys/rotate`, { method: 'POST', headers: { Authorization: `Bearer ${hostedKey}`, 'X-API-Key': hostedKey } });
    expect(both.status).toBe(401);
    const ok = await call(`${hosted.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': hostedKey } });
    expect(ok.status).toBe(200);
    hostedKey = ok.body.api_key;
  });

  it('leaves public routes open: health, docs, openapi.json', async () => {
    for (const path of ['/health', '/openapi.json', '/docs/', '/redoc']) {
      const res = await call(`${server.api}${path}`);
      expect(res.status, path).toBe(200);
    }
  });

  it('rotation refuses the old key on the very next request', async () => {
    const { apiKey: oldKey } = await server.createTenant('pro');
    const rotated = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': oldKey } });
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.api_key as string;
    expect(newKey).not.toBe(oldKey);
    expect(rotated.body.key_prefix).toBe(newKey.slice(0, 11));
    const withOld = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': oldKey } });
    expect(withOld.status).toBe(401);
    const withNew = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': newKey } });
    expect(withNew.status).toBe(200);
  });

  it('stores only a hash and a display prefix of keys', async () => {
    const { apiKey, tenantId } = await server.createTenant('free');
    const rows = await server.vigil.services.store.db.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenantId).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(apiKey);
    expect(JSON.stringify(rows)).not.toContain(apiKey.slice(11));
    expect(rows[0].key_prefix).toBe(apiKey.slice(0, 11));
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
