import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, storeLabel } from '../helpers/server.js';
import { PRICES, startBilling, type BillingHarness } from './harness.js';

const urls = { success_url: 'https://app.test/billing/done', cancel_url: 'https://app.test/billing' };

describe(`billing checkout and portal (${storeLabel})`, () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBilling();
  });
  afterAll(async () => h?.stop());

  const checkout = (apiKey: string, json: unknown) => call(`${h.api}/billing/checkout`, { headers: { 'X-API-Key': apiKey }, json });

  it("by plan: a subscription-mode session for the tenant's new provider customer, with the tenant id attached", async () => {
    const { tenantId, apiKey } = await h.server.createTenant('free');
    const res = await checkout(apiKey, { ...urls, plan: 'pro' });
    expect(res.status).toBe(200);
    expect(res.body.checkout_url).toMatch(/^https:\/\/checkout\.provider\.test\/c\/pay\/cs_test_/);
    const session = h.provider.sessions.get(res.body.session_id)!;
    expect(session).toMatchObject({
      mode: 'subscription',
      client_reference_id: tenantId,
      success_url: urls.success_url,
      cancel_url: urls.cancel_url,
      metadata: { tenant_id: tenantId, plan: 'pro' },
    });
    expect(session.line_items[0].price).toBe(PRICES.pro);
    expect(h.provider.customers.get(session.customer)?.metadata).toEqual({ tenant_id: tenantId });
    // A second checkout reuses the same customer.
    const again = await checkout(apiKey, { ...urls, plan: 'team' });
    expect(again.status).toBe(200);
    expect(h.provider.sessions.get(again.body.session_id)!.customer).toBe(session.customer);
    expect(new Date(res.body.expires_at).getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
  });

  it('by price_id, and with both when they agree', async () => {
    const { apiKey } = await h.server.createTenant('free');
    const res = await checkout(apiKey, { ...urls, price_id: PRICES.team });
    expect(res.status).toBe(200);
    expect(h.provider.sessions.get(res.body.session_id)!.line_items[0].price).toBe(PRICES.team);
    const both = await checkout(apiKey, { ...urls, price_id: PRICES.pro, plan: 'pro' });
    expect(both.status).toBe(200);
  });

  it.each([
    ['unknown price_id', { price_id: 'price_nope' }],
    ['plan without a configured price (enterprise)', { plan: 'enterprise' }],
    ['free (no price)', { plan: 'free' }],
  ])('400 INVALID_PRICE_ID: %s', async (_label, selector) => {
    const { apiKey } = await h.server.createTenant('free');
    const before = h.provider.sessions.size;
    const res = await checkout(apiKey, { ...urls, ...selector });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_PRICE_ID', status: 400 });
    expect(h.provider.sessions.size).toBe(before);
  });

  it.each([
    ['unknown plan', { ...urls, plan: 'platinum' }],
    ['no plan and no price_id', { ...urls }],
    ['success_url missing', { cancel_url: urls.cancel_url, plan: 'pro' }],
    ['cancel_url missing', { success_url: urls.success_url, plan: 'pro' }],
    ['relative success_url', { ...urls, success_url: '/done', plan: 'pro' }],
    ['non-http cancel_url', { ...urls, cancel_url: 'javascript:alert(1)', plan: 'pro' }],
    ['plan and price_id disagree', { ...urls, plan: 'team', price_id: PRICES.pro }],
  ])('422 VALIDATION_ERROR: %s', async (_label, body) => {
    const { apiKey } = await h.server.createTenant('free');
    const res = await checkout(apiKey, body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
  });

  it('400 INVALID_REQUEST for a body that is not JSON; 401 without a key', async () => {
    const { apiKey } = await h.server.createTenant('free');
    const bad = await call(`${h.api}/billing/checkout`, { headers: { 'X-API-Key': apiKey, 'content-type': 'application/json' }, body: '{"plan":' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('INVALID_REQUEST');
    const anon = await call(`${h.api}/billing/checkout`, { json: { ...urls, plan: 'pro' } });
    expect(anon.status).toBe(401);
  });

  it('409 ALREADY_SUBSCRIBED for the plan already active; another plan is allowed and replaces it on completion', async () => {
    const t = await h.subscribedTenant('pro');
    expect((await h.status(t.apiKey)).plan).toBe('pro');
    const same = await checkout(t.apiKey, { ...urls, plan: 'pro' });
    expect(same.status).toBe(409);
    expect(same.body).toMatchObject({ error: 'ALREADY_SUBSCRIBED', status: 409 });
    const samePrice = await checkout(t.apiKey, { ...urls, price_id: PRICES.pro });
    expect(samePrice.status).toBe(409);

    const upgrade = await checkout(t.apiKey, { ...urls, plan: 'team' });
    expect(upgrade.status).toBe(200);
    const { session, subscription } = h.provider.completeCheckout(upgrade.body.session_id);
    expect((await h.deliver(h.event('checkout.session.completed', session))).status).toBe(200);
    const status = await h.status(t.apiKey);
    expect(status).toMatchObject({ plan: 'team', payment_subscription_id: subscription.id, subscription_status: 'active' });
    // The replaced subscription is canceled at the provider, so the tenant is not billed twice.
    await expect.poll(() => h.provider.subscriptions.get(t.subscriptionId)?.status).toBe('canceled');
    // Its deletion event does not touch the tenant's new subscription.
    const deleted = await h.deliver(h.event('customer.subscription.deleted', h.provider.subscriptions.get(t.subscriptionId)!));
    expect(deleted.status).toBe(200);
    expect((await h.status(t.apiKey)).plan).toBe('team');
  });

  it('portal: 409 before the tenant has a provider customer, then a portal URL for that customer', async () => {
    const { apiKey } = await h.server.createTenant('free');
    const none = await call(`${h.api}/billing/portal`, { headers: { 'X-API-Key': apiKey }, json: { return_url: 'https://app.test/billing' } });
    expect(none.status).toBe(409);
    expect(none.body.status).toBe(409);
    expect(typeof none.body.error).toBe('string');

    const t = await h.subscribedTenant('pro');
    const res = await call(`${h.api}/billing/portal`, { headers: { 'X-API-Key': t.apiKey }, json: { return_url: 'https://app.test/billing' } });
    expect(res.status).toBe(200);
    expect(res.body.portal_url).toMatch(/^https:\/\/billing\.provider\.test\//);
    const portal = [...h.provider.portalSessions.values()].at(-1)!;
    expect(portal).toMatchObject({ customer: t.customerId, return_url: 'https://app.test/billing' });

    const invalid = await call(`${h.api}/billing/portal`, { headers: { 'X-API-Key': t.apiKey }, json: { return_url: 'not a url' } });
    expect(invalid.status).toBe(422);
    const missing = await call(`${h.api}/billing/portal`, { headers: { 'X-API-Key': t.apiKey }, json: {} });
    expect(missing.status).toBe(422);
  });

  it('portal: 502 PAYMENT_PROVIDER_ERROR in the error shape when the provider returns no URL, fails, or does not know the customer', async () => {
    const t = await h.subscribedTenant('pro');
    const portal = () => call(`${h.api}/billing/portal`, { headers: { 'X-API-Key': t.apiKey }, json: { return_url: 'https://app.test/billing' } });
    const path = /^\/v1\/billing_portal\/sessions$/;
    const answers: Array<[number, Record<string, unknown>]> = [
      [200, { id: 'bps_nourl', object: 'billing_portal.session', customer: t.customerId, url: null }],
      [200, { id: 'bps_nourl', object: 'billing_portal.session', customer: t.customerId }],
      [500, { error: { type: 'api_error', message: 'provider down' } }],
      [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such customer: '${t.customerId}'`, param: 'customer' } }],
    ];
    for (const [status, body] of answers) {
      const clear = h.provider.inject('POST', path, status, body);
      try {
        const res = await portal();
        expect(res.status, `${status} ${JSON.stringify(body)}`).toBe(502);
        expect(res.body).toEqual({ error: 'PAYMENT_PROVIDER_ERROR', message: expect.any(String), status: 502 });
      } finally {
        clear();
      }
    }
    expect((await portal()).status).toBe(200);
  });

  it("status without a subscription: the tenant's plan, active, the usage period end, no customer", async () => {
    const { apiKey } = await h.server.createTenant('free');
    const status = await h.status(apiKey);
    const usage = await call(`${h.api}/usage`, { headers: { 'X-API-Key': apiKey } });
    expect(status).toEqual({
      plan: 'free',
      subscription_status: 'active',
      current_period_end: usage.body.period_end,
      cancel_at_period_end: false,
      payment_customer_id: null,
      payment_subscription_id: null,
      payment_failed: null,
    });
  });
});
