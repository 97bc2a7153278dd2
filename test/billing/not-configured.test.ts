import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/app/config.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { runVigil } from '../helpers/process.js';
import { signatureHeader } from './signing.js';

describe(`billing without payment keys (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    // Self-hosted, sync secret set, no PAYMENT_* keys (a price id alone does not configure billing).
    server = await startServer({ env: { SERVICE_APP_SYNC_KEY: 'sync', PAYMENT_PRICE_ID_PRO: 'price_pro' } });
    ({ apiKey } = await server.createTenant('pro'));
  });
  afterAll(async () => server?.stop());

  const auth = () => ({ 'X-API-Key': apiKey });
  const cases: Array<[string, () => Promise<{ status: number; body: any }>]> = [
    [
      'POST /billing/checkout',
      () => call(`${server.api}/billing/checkout`, { headers: auth(), json: { plan: 'pro', success_url: 'https://a.test', cancel_url: 'https://a.test' } }),
    ],
    ['POST /billing/checkout (invalid body)', () => call(`${server.api}/billing/checkout`, { headers: auth(), json: { plan: 'nope' } })],
    ['POST /billing/portal', () => call(`${server.api}/billing/portal`, { headers: auth(), json: { return_url: 'https://a.test' } })],
    ['GET /billing/status', () => call(`${server.api}/billing/status`, { headers: auth() })],
    ['GET /billing/checkout-sessions/{id}/key', () => call(`${server.api}/billing/checkout-sessions/cs_1/key`, { headers: { 'X-Sync-Key': 'sync' } })],
    ['POST /billing/signup (no key)', () => call(`${server.api}/billing/signup`, { json: { plan: 'pro' } })],
    ['POST /billing/checkout-sessions/{id}/claim (no key)', () => call(`${server.api}/billing/checkout-sessions/cs_1/claim`, { json: { claim_token: 'x' } })],
    [
      'POST /billing/webhook',
      () => {
        const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid', created: 1, data: { object: {} } });
        return call(`${server.api}/billing/webhook`, {
          headers: { 'content-type': 'application/json', 'Provider-Signature': signatureHeader(payload, 'whsec_x') },
          body: payload,
        });
      },
    ],
  ];

  it.each(cases)('503 PAYMENT_NOT_CONFIGURED: %s', async (_label, request) => {
    const res = await request();
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'PAYMENT_NOT_CONFIGURED', status: 503 });
    expect(typeof res.body.message).toBe('string');
  });

  it('GET /billing/signup says sign-up is not available (no 503: the sign-in page asks it on every visit)', async () => {
    const res = await call(`${server.api}/billing/signup`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ available: false, plans: [] });
  });

  it('sync-tenant still works', async () => {
    const res = await call(`${server.api}/billing/sync-tenant`, {
      headers: { 'X-Sync-Key': 'sync' },
      json: { tenant_id: 'synced', email: 'a@b.test', plan: 'team' },
    });
    expect(res.status).toBe(200);
    expect(res.body.plan).toBe('team');
  });

  it('one key alone is not enough', async () => {
    const half = await startServer({ env: { PAYMENT_SECRET_KEY: 'sk_test_x' } });
    try {
      const { apiKey: key } = await half.createTenant('free');
      const res = await call(`${half.api}/billing/status`, { headers: { 'X-API-Key': key } });
      expect(res.status).toBe(503);
    } finally {
      await half.stop();
    }
  });
});

describe('hosted deployment without billing keys', () => {
  it('refuses to start, naming the missing variable in one line', () => {
    const base = { VIGIL_DEPLOYMENT: 'hosted', VIGIL_DATA_DIR: '/tmp/none' };
    expect(() => loadConfig(base)).toThrow(ConfigError);
    expect(() => loadConfig(base)).toThrow(/PAYMENT_SECRET_KEY/);
    expect(() => loadConfig({ ...base, PAYMENT_SECRET_KEY: 'sk_live_x' })).toThrow(/PAYMENT_WEBHOOK_SECRET/);
    expect(() => loadConfig({ ...base, PAYMENT_SECRET_KEY: 'sk_live_x', PAYMENT_WEBHOOK_SECRET: 'whsec_x' })).not.toThrow();
    try {
      loadConfig(base);
    } catch (error) {
      expect((error as Error).message.split('\n')).toHaveLength(1);
    }
  });

  it('the vigil process exits non-zero with that line instead of serving', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-hosted-'));
    try {
      const vigil = runVigil(['serve'], {
        VIGIL_DEPLOYMENT: 'hosted',
        VIGIL_DATA_DIR: dataDir,
        PORT: '0',
        PAYMENT_SECRET_KEY: '',
        PAYMENT_WEBHOOK_SECRET: '',
        DATABASE_URL: '',
        REDIS_URL: '',
      });
      const code = await vigil.exited;
      expect(code).not.toBe(0);
      expect(vigil.output()).toMatch(/PAYMENT_SECRET_KEY is required when VIGIL_DEPLOYMENT=hosted/);
      expect(vigil.output()).not.toMatch(/listening/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
