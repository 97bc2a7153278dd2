import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, storeLabel } from '../helpers/server.js';
import { PRICES, WEBHOOK_SECRET, startBilling, type BillingHarness } from './harness.js';
import { postWebhook, signatureHeader } from './signing.js';

type Obj = Record<string, any>;
const now = () => Math.floor(Date.now() / 1000);

/**
 * Correctly signed events that Vigil cannot apply: the envelope is not an event (400, nothing recorded), or
 * the object lacks what the handler needs (200 `ignored`, a warning log line with the reason, nothing stored).
 */
describe(`billing webhook: signed but malformed events (${storeLabel})`, () => {
  let h: BillingHarness;
  let tenant: Awaited<ReturnType<BillingHarness['subscribedTenant']>>;
  let sub: Obj;

  beforeAll(async () => {
    h = await startBilling();
    tenant = await h.subscribedTenant('pro');
    sub = h.provider.updateSubscription(tenant.subscriptionId, {});
  });
  afterAll(async () => h?.stop());

  const db = () => h.server.vigil.services.store.db;
  const count = async (table: 'billing_subscriptions' | 'billing_accounts' | 'tenants' | 'billing_events') =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const snapshot = async () => ({
    subscriptions: await count('billing_subscriptions'),
    accounts: await count('billing_accounts'),
    tenants: await count('tenants'),
  });

  /** A web-application checkout (no Vigil tenant), completed at the fake provider; returns the session. */
  async function completedSession(over: Obj = {}): Promise<Obj> {
    const form = new URLSearchParams({
      mode: 'subscription',
      'line_items[0][price]': PRICES.pro,
      success_url: 'https://app.test/ok',
      customer_email: 'x@buyer.test',
    });
    const res = await fetch(`${h.provider.url}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.provider.secretKey}` },
      body: form,
    });
    const { id } = (await res.json()) as { id: string };
    return { ...h.provider.completeCheckout(id).session, ...over };
  }

  async function expectIgnored(event: Obj, reason: RegExp) {
    const before = await snapshot();
    const res = await h.deliver(event);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ received: true, event_id: event.id, outcome: 'ignored', reason: expect.stringMatching(reason) });
    expect(await snapshot()).toEqual(before);
    const line = h.logs.find((l) => l.event_id === event.id && l.level === 40);
    expect(line, 'a warning names the event and why it was ignored').toMatchObject({ reason: expect.stringMatching(reason) });
    const bogus = await db().selectFrom('billing_subscriptions').select('id').where('id', 'in', ['undefined', 'null', '[object Object]', '']).execute();
    expect(bogus).toEqual([]);
    expect((await h.status(tenant.apiKey)).plan).toBe('pro');
    // Recorded as handled: the provider's retry of it is a duplicate, not a second attempt.
    expect((await h.deliver(event)).body.outcome).toBe('duplicate');
  }

  async function expectRefused(payload: string) {
    const before = { ...(await snapshot()), events: await count('billing_events') };
    const res = await postWebhook(h.api, payload, { 'Provider-Signature': signatureHeader(payload, WEBHOOK_SECRET) });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toEqual({ error: 'INVALID_REQUEST', message: expect.any(String), status: 400 });
    expect({ ...(await snapshot()), events: await count('billing_events') }).toEqual(before);
    expect((await h.status(tenant.apiKey)).plan).toBe('pro');
  }

  describe('an envelope that is not an event: 400 INVALID_REQUEST, nothing recorded', () => {
    const base = () => h.event('customer.subscription.deleted', { ...sub, status: 'canceled' });
    it.each<[string, (e: Obj) => unknown]>([
      ['no data.object', (e) => ({ ...e, data: {} })],
      ['data.object null', (e) => ({ ...e, data: { object: null } })],
      ['data.object an array', (e) => ({ ...e, data: { object: [e.data.object] } })],
      ['data.object a string', (e) => ({ ...e, data: { object: 'sub_1' } })],
      ['data not an object', (e) => ({ ...e, data: 'x' })],
      ['id missing', (e) => ({ ...e, id: undefined })],
      ['id a number', (e) => ({ ...e, id: 42 })],
      ['id empty', (e) => ({ ...e, id: '' })],
      ['id longer than 255 characters', (e) => ({ ...e, id: `evt_${'x'.repeat(300)}` })],
      ['id with a control character', (e) => ({ ...e, id: 'evt_a\u0000b' })],
      ['type missing', (e) => ({ ...e, type: undefined })],
      ['type an object', (e) => ({ ...e, type: { x: 1 } })],
      ['type longer than 128 characters', (e) => ({ ...e, type: `customer.${'x'.repeat(200)}` })],
      ['created a string', (e) => ({ ...e, created: String(now()) })],
      ['created a fraction', (e) => ({ ...e, created: now() + 0.5 })],
      ['created beyond any date', (e) => ({ ...e, created: 1e300 })],
      ['created negative', (e) => ({ ...e, created: -1 })],
      ['the body an array of events', (e) => [e]],
      ['the body a number', () => 12],
    ])('%s', async (_label, mutate) => {
      await expectRefused(JSON.stringify(mutate(base())));
    });
  });

  describe('subscription events the handler cannot use: 200 ignored, nothing stored', () => {
    const item = (over: Obj) => ({ items: { object: 'list', data: [{ ...sub.items.data[0], ...over }] } });
    it.each<[string, () => Obj, RegExp]>([
      ['no subscription id', () => ({ id: undefined }), /subscription id/],
      ['a numeric subscription id', () => ({ id: 123 }), /subscription id/],
      ['a subscription id with a control character', () => ({ id: 'sub_\u0007x' }), /subscription id/],
      ['a subscription id longer than 255 characters', () => ({ id: `sub_${'x'.repeat(300)}` }), /subscription id/],
      ['no customer', () => ({ customer: undefined }), /customer/],
      ['a customer object without an id', () => ({ customer: { object: 'customer' } }), /customer/],
      ['a customer id longer than 255 characters', () => ({ customer: `cus_${'x'.repeat(300)}` }), /customer/],
      ['no status', () => ({ status: undefined }), /status/],
      ['a numeric status', () => ({ status: 5 }), /status/],
      ['a status the provider does not have', () => ({ status: 'x'.repeat(40) }), /status/],
      ['a period end beyond any date', () => item({ price: { id: PRICES.team }, current_period_end: 1e20 }), /period/],
      ['a price id longer than 255 characters', () => item({ price: { id: `price_${'x'.repeat(300)}` } }), /price/],
    ])('%s', async (_label, over, reason) => {
      // Would move the tenant to team if it were applied.
      await expectIgnored(h.event('customer.subscription.updated', { ...sub, ...item({ price: { id: PRICES.team } }), ...over() }, now() + 5), reason);
    });

    it('items of the wrong types do not crash: the plan is left alone', async () => {
      const event = h.event('customer.subscription.updated', { ...sub, items: { data: 'nope' } }, now() + 6);
      const res = await h.deliver(event);
      expect(res.status).toBe(200);
      expect((await h.status(tenant.apiKey)).plan).toBe('pro');
    });
  });

  describe('invoice and charge events the handler cannot use: 200 ignored', () => {
    it('invoice.paid with lines of the wrong type is applied without them, never a 500', async () => {
      const invoice = { ...h.provider.invoice(tenant.subscriptionId), lines: { data: { not: 'a list' } } };
      const res = await h.deliver(h.event('invoice.paid', invoice));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await h.status(tenant.apiKey)).plan).toBe('pro');
    });

    it.each<[string, string, () => Obj, RegExp]>([
      ['invoice.paid without a customer', 'invoice.paid', () => ({ ...h.provider.invoice(tenant.subscriptionId), customer: undefined }), /customer/],
      [
        'invoice.payment_failed with a numeric customer',
        'invoice.payment_failed',
        () => ({ ...h.provider.invoice(tenant.subscriptionId, { paid: false }), customer: 7 }),
        /customer/,
      ],
      ['charge.refunded without a customer', 'charge.refunded', () => ({ ...h.provider.charge(tenant.customerId), customer: null }), /customer/],
      [
        'invoice.paid whose metadata tenant is an object',
        'invoice.paid',
        () => ({
          ...h.provider.invoice(tenant.subscriptionId),
          customer: 'cus_nobody',
          parent: { subscription_details: { metadata: { tenant_id: { $ne: 1 } } } },
        }),
        /tenant/,
      ],
    ])('%s', async (_label, type, object, reason) => {
      await expectIgnored(h.event(type, object()), reason);
    });
  });

  describe('checkout.session.completed the handler cannot use: 200 ignored, no tenant created', () => {
    it.each<[string, Obj, RegExp]>([
      ['client_reference_id with a space', { client_reference_id: 'a b' }, /client_reference_id/],
      ['client_reference_id longer than 128 characters', { client_reference_id: 'a'.repeat(200) }, /client_reference_id/],
      ['client_reference_id a number', { client_reference_id: 42 }, /client_reference_id/],
      ['client_reference_id an object', { client_reference_id: { id: 'x' } }, /client_reference_id/],
      ['metadata.tenant_id with a control character', { client_reference_id: null, metadata: { tenant_id: 'acme\u0000' } }, /tenant_id/],
      ['no customer', { customer: null }, /customer/],
      ['no session id', { id: undefined }, /session id/],
    ])('%s', async (_label, over, reason) => {
      await expectIgnored(h.event('checkout.session.completed', await completedSession(over)), reason);
    });

    it('a subscription the provider does not know (404): ignored, logged, nothing created', async () => {
      await expectIgnored(h.event('checkout.session.completed', await completedSession({ subscription: 'sub_unknown_at_provider' })), /provider/);
    });

    it('the provider failing on the subscription lookup (500): 502 PAYMENT_PROVIDER_ERROR, nothing recorded, and the retry applies it', async () => {
      const session = await completedSession();
      const event = h.event('checkout.session.completed', session);
      const before = { ...(await snapshot()), events: await count('billing_events') };
      const clear = h.provider.inject('GET', /^\/v1\/subscriptions\//, 500);
      try {
        const res = await h.deliver(event);
        expect(res.status).toBe(502);
        expect(res.body).toEqual({ error: 'PAYMENT_PROVIDER_ERROR', message: expect.any(String), status: 502 });
      } finally {
        clear();
      }
      expect({ ...(await snapshot()), events: await count('billing_events') }).toEqual(before);
      const retry = await h.deliver(event);
      expect(retry.status).toBe(200);
      expect(retry.body.outcome).toBe('applied');
      const claimed = await call(`${h.api}/billing/checkout-sessions/${session.id}/key`, { headers: { 'X-Sync-Key': 'the-sync-secret' } });
      expect(claimed.status).toBe(200);
    });
  });
});
