import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, storeLabel } from '../helpers/server.js';
import { PRICES, SYNC_KEY, startBilling, type BillingHarness } from './harness.js';

const now = () => Math.floor(Date.now() / 1000);
const urls = { success_url: 'https://app.test/ok', cancel_url: 'https://app.test/cancel' };

/** A tenant the web application provisions with the customer (and subscription) it already has at the provider. */
describe(`sync-tenant with a payment customer: events and checkouts use the link (${storeLabel})`, () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBilling();
  });
  afterAll(async () => h?.stop());

  /** The web application's own signup: a customer and a pro subscription at the provider, no tenant metadata. */
  function webAppCustomer(): { customerId: string; subscriptionId: string } {
    const customer = h.provider.createCustomer({ email: 'web@app.test', metadata: {} });
    const subscription = h.provider.createSubscription({ customer: customer.id, price: PRICES.pro });
    return { customerId: customer.id, subscriptionId: subscription.id };
  }

  async function sync(json: Record<string, unknown>): Promise<string> {
    const res = await call(`${h.api}/billing/sync-tenant`, { headers: { 'X-Sync-Key': SYNC_KEY }, json: { email: 'web@app.test', ...json } });
    expect(res.status, res.text).toBe(200);
    return res.body.api_key;
  }

  it("the status shows the link; that customer's subscription and invoice events apply to the tenant", async () => {
    const { customerId, subscriptionId } = webAppCustomer();
    const tenantId = `web-${Math.random().toString(36).slice(2, 8)}`;
    const apiKey = await sync({ tenant_id: tenantId, plan: 'pro', payment_customer_id: customerId, payment_subscription_id: subscriptionId });
    expect(await h.status(apiKey)).toMatchObject({ plan: 'pro', payment_customer_id: customerId, payment_subscription_id: subscriptionId });

    const toTeam = h.provider.updateSubscription(subscriptionId, { price: PRICES.team });
    const updated = await h.deliver(h.event('customer.subscription.updated', toTeam));
    expect(updated.body).toMatchObject({ outcome: 'applied', tenant_id: tenantId });
    expect(await h.status(apiKey)).toMatchObject({
      plan: 'team',
      subscription_status: 'active',
      payment_customer_id: customerId,
      payment_subscription_id: subscriptionId,
    });

    const failed = await h.deliver(h.event('invoice.payment_failed', h.provider.invoice(subscriptionId, { paid: false })));
    expect(failed.body).toMatchObject({ outcome: 'applied', tenant_id: tenantId });
    expect((await h.status(apiKey)).payment_failed).toMatchObject({ amount_due: 14900 });

    const deleted = await h.deliver(h.event('customer.subscription.deleted', h.provider.updateSubscription(subscriptionId, { status: 'canceled' }), now() + 1));
    expect(deleted.body).toMatchObject({ outcome: 'applied', tenant_id: tenantId });
    expect(await h.status(apiKey)).toMatchObject({ plan: 'free', subscription_status: 'canceled' });
  });

  it('a later checkout reuses the customer: passed to the session, no second customer created; the portal opens for it', async () => {
    const { customerId } = webAppCustomer();
    const apiKey = await sync({ tenant_id: `web-${Math.random().toString(36).slice(2, 8)}`, plan: 'free', payment_customer_id: customerId });
    expect(await h.status(apiKey)).toMatchObject({ payment_customer_id: customerId, payment_subscription_id: null });
    const customersBefore = h.provider.customers.size;
    const requestsBefore = h.provider.requests.length;

    const res = await call(`${h.api}/billing/checkout`, { headers: { 'X-API-Key': apiKey }, json: { ...urls, plan: 'team' } });
    expect(res.status, res.text).toBe(200);
    const made = h.provider.requests.slice(requestsBefore);
    expect(made.filter((r) => r.path === '/v1/customers')).toEqual([]);
    expect(made.find((r) => r.path === '/v1/checkout/sessions')?.body.customer).toBe(customerId);
    expect(h.provider.customers.size).toBe(customersBefore);

    // The completed checkout's new subscription (created by the provider for that customer) is the tenant's.
    const { session, subscription } = h.provider.completeCheckout(res.body.session_id);
    expect(session.customer).toBe(customerId);
    expect((await h.deliver(h.event('checkout.session.completed', session))).body.outcome).toBe('applied');
    expect(await h.status(apiKey)).toMatchObject({ plan: 'team', payment_customer_id: customerId, payment_subscription_id: subscription.id });

    const portal = await call(`${h.api}/billing/portal`, { headers: { 'X-API-Key': apiKey }, json: { return_url: 'https://app.test/billing' } });
    expect(portal.status).toBe(200);
    expect([...h.provider.portalSessions.values()].at(-1)?.customer).toBe(customerId);
  });

  it('customer only: the subscription the provider creates for it later is adopted from its first event', async () => {
    const customer = h.provider.createCustomer({ email: 'later@app.test', metadata: {} });
    const apiKey = await sync({ tenant_id: `web-${Math.random().toString(36).slice(2, 8)}`, plan: 'free', payment_customer_id: customer.id });
    const subscription = h.provider.createSubscription({ customer: customer.id, price: PRICES.pro });
    expect((await h.deliver(h.event('customer.subscription.created', subscription))).body.outcome).toBe('applied');
    expect(await h.status(apiKey)).toMatchObject({ plan: 'pro', payment_subscription_id: subscription.id });
  });
});
