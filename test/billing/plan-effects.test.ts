import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, storeLabel } from '../helpers/server.js';
import { startBilling, type BillingHarness } from './harness.js';

describe(`plan changes from billing events take effect at once (${storeLabel})`, () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBilling({ VIGIL_RATE_LIMITS: 'free=4,pro=100,team=200', VIGIL_RATE_LIMIT_WINDOW_SECONDS: '600' });
  });
  afterAll(async () => h?.stop());

  it('rate limit, quotas and features follow the plan on the very next request, up and down', async () => {
    const { apiKey } = await h.server.createTenant('free');
    const headers = { 'X-API-Key': apiKey };
    const checkout = await call(`${h.api}/billing/checkout`, {
      headers,
      json: { plan: 'pro', success_url: 'https://a.test/ok', cancel_url: 'https://a.test/no' },
    });
    expect(checkout.status).toBe(200);
    const security = await call(`${h.api}/scan`, { headers, json: { url: 'https://target.test/', mode: 'security' } });
    expect(security.status).toBe(402);
    for (let i = 0; i < 2; i++) expect((await call(`${h.api}/usage`, { headers })).status).toBe(200);
    const limited = await call(`${h.api}/usage`, { headers });
    expect(limited.status).toBe(429);

    const { session, subscription } = h.provider.completeCheckout(checkout.body.session_id);
    expect((await h.deliver(h.event('checkout.session.completed', session))).status).toBe(200);

    const usage = await call(`${h.api}/usage`, { headers });
    expect(usage.status).toBe(200);
    expect(usage.headers.get('x-ratelimit-limit')).toBe('100');
    expect(usage.body).toMatchObject({ plan: 'pro', scans_limit: 500, monthly_security_scan_quota: 100 });
    const allowed = await call(`${h.api}/scan`, { headers, json: { url: 'https://target.test/', mode: 'security' } });
    expect(allowed.status).toBe(202);

    await h.deliver(h.event('customer.subscription.deleted', { ...subscription, status: 'canceled' }, Math.floor(Date.now() / 1000) + 1));
    const after = await call(`${h.api}/usage`, { headers });
    expect(after.status).toBe(429);
    expect(after.headers.get('x-ratelimit-limit')).toBe('4');
  });

  it("records each plan change in the tenant's audit log: the provider's webhook as who, from and to, the event, when; nothing for an event that changes no plan", async () => {
    const { tenantId, apiKey, subscriptionId } = await h.subscribedTenant('pro');
    const headers = { 'X-API-Key': apiKey };
    const planChanges = async () => (await call(`${h.api}/audit-log?action=plan.changed`, { headers })).body;
    const first = await planChanges();
    expect(first.total).toBe(1);
    expect(first.entries[0]).toMatchObject({
      actor_type: 'system',
      actor: 'payment provider webhook',
      action: 'plan.changed',
      target: tenantId,
      detail: { from: 'free', to: 'pro', event_type: 'checkout.session.completed' },
      address: null,
    });
    expect(Date.parse(first.entries[0].at)).toBeGreaterThan(Date.now() - 60_000);

    // The same subscription again (no plan change): no entry; its deletion: pro -> free
    const subscription = h.provider.subscriptions.get(subscriptionId)!;
    expect((await h.deliver(h.event('customer.subscription.updated', subscription, Math.floor(Date.now() / 1000) + 1))).status).toBe(200);
    expect((await planChanges()).total).toBe(1);
    const deleted = h.event('customer.subscription.deleted', { ...subscription, status: 'canceled' }, Math.floor(Date.now() / 1000) + 2);
    expect((await h.deliver(deleted)).status).toBe(200);
    // A redelivery of the same event applies once
    expect((await h.deliver(deleted)).status).toBe(200);
    const second = await planChanges();
    expect(second.total).toBe(2);
    expect(second.entries[0]).toMatchObject({
      actor: 'payment provider webhook',
      detail: { from: 'pro', to: 'free', event_id: deleted.id, event_type: 'customer.subscription.deleted' },
    });
    // Another tenant's log holds none of it
    const other = await h.server.createTenant('free');
    expect((await call(`${h.api}/audit-log?action=plan.changed`, { headers: { 'X-API-Key': other.apiKey } })).body.total).toBe(0);
  });
});
