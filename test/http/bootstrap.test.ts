import { describe, expect, it } from 'vitest';
import { call, freshStore, startServer, storeLabel } from '../helpers/server.js';

describe(`bootstrap on first start (${storeLabel})`, () => {
  it('creates a default enterprise tenant once, prints its key once, and the key works', async () => {
    const store = await freshStore();
    try {
      const first = await startServer({ store });
      const printed = first.announced.join('\n');
      const key = /(svc_pk_[0-9A-Za-z]{43})/.exec(printed)?.[1];
      expect(key, printed).toBeDefined();
      const tenant = await first.vigil.services.tenants.get('default');
      expect(tenant).toMatchObject({ id: 'default', plan: 'enterprise', status: 'active' });
      const res = await call(`${first.api}/keys/rotate`, { method: 'POST', headers: { 'X-API-Key': key! } });
      expect(res.status).toBe(200);
      expect(res.body.tenant_id).toBe('default');
      expect(first.announced.some((l) => l.includes('listening on http://127.0.0.1:'))).toBe(true);
      await first.stop();

      const second = await startServer({ store });
      expect(second.announced.join('\n')).not.toMatch(/svc_pk_/);
      expect(await second.vigil.services.tenants.count()).toBe(1);
      await second.stop();
    } finally {
      await store.dispose();
    }
  });

  it('does not bootstrap on hosted deployments', async () => {
    const hosted = await startServer({ env: { VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk_test_x', PAYMENT_WEBHOOK_SECRET: 'whsec_x' } });
    try {
      expect(await hosted.vigil.services.tenants.count()).toBe(0);
      expect(hosted.announced.join('\n')).not.toMatch(/svc_pk_/);
    } finally {
      await hosted.stop();
    }
  });
});
