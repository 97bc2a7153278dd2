import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, storeLabel } from '../helpers/server.js';
import { PRICES, SYNC_KEY, startBilling, type BillingHarness } from './harness.js';

const now = () => Math.floor(Date.now() / 1000);
const iso = (unix: number) => new Date(unix * 1000).toISOString();

function liveSocket(api: string, apiKey: string): Promise<{ socket: WebSocket; messages: any[] }> {
  const url = `${api.replace(/^http/, 'ws').replace(/\/api\/v1$/, '')}/ws/live?api_key=${apiKey}`;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const messages: any[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.once('open', () => resolve({ socket, messages }));
    socket.once('error', reject);
  });
}

describe(`billing webhook events (${storeLabel})`, () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBilling();
  });
  afterAll(async () => h?.stop());

  const usage = async (apiKey: string) => (await call(`${h.api}/usage`, { headers: { 'X-API-Key': apiKey } })).body;
  const claim = (sessionId: string, key = SYNC_KEY) => call(`${h.api}/billing/checkout-sessions/${sessionId}/key`, { headers: { 'X-Sync-Key': key } });

  /** A checkout session the web application opened itself for a new customer (no tenant yet). */
  async function webAppSession(metadata: Record<string, string> = {}): Promise<string> {
    const form = new URLSearchParams({
      mode: 'subscription',
      'line_items[0][price]': PRICES.pro,
      'line_items[0][quantity]': '1',
      success_url: 'https://app.test/ok',
      customer_email: 'new@buyer.test',
    });
    for (const [k, v] of Object.entries(metadata)) form.set(`metadata[${k}]`, v);
    const res = await fetch(`${h.provider.url}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.provider.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    return ((await res.json()) as { id: string }).id;
  }

  it('checkout.session.completed links an existing tenant: plan, status, customer, period; quotas follow at once', async () => {
    const { apiKey } = await h.server.createTenant('free');
    expect((await usage(apiKey)).monthly_security_scan_quota).toBe(0);
    const denied = await call(`${h.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'https://target.test', mode: 'security' } });
    expect(denied.status).toBe(402);

    const res = await call(`${h.api}/billing/checkout`, {
      headers: { 'X-API-Key': apiKey },
      json: { plan: 'pro', success_url: 'https://a.test/ok', cancel_url: 'https://a.test/no' },
    });
    const { session, subscription } = h.provider.completeCheckout(res.body.session_id);
    const delivered = await h.deliver(h.event('checkout.session.completed', session));
    expect(delivered.status).toBe(200);
    expect(delivered.body.outcome).toBe('applied');
    expect(await h.status(apiKey)).toEqual({
      plan: 'pro',
      subscription_status: 'active',
      current_period_end: iso(subscription.items.data[0].current_period_end),
      cancel_at_period_end: false,
      payment_customer_id: session.customer,
      payment_subscription_id: subscription.id,
      payment_failed: null,
    });
    const u = await usage(apiKey);
    expect(u).toMatchObject({ plan: 'pro', scans_limit: 500, monthly_security_scan_quota: 100 });
    // The linked tenant keeps its key: there is no key to hand over for this session.
    expect((await claim(session.id)).status).toBe(409);
  });

  it('checkout.session.completed for a new customer creates a tenant whose key the web application retrieves once', async () => {
    const sessionId = await webAppSession();
    const early = await claim(sessionId);
    expect(early.status).toBe(404);
    const { session } = h.provider.completeCheckout(sessionId, { email: 'new@buyer.test' });
    expect((await h.deliver(h.event('checkout.session.completed', session))).status).toBe(200);

    expect((await claim(sessionId, 'wrong')).status).toBe(401);
    expect((await call(`${h.api}/billing/checkout-sessions/${sessionId}/key`)).status).toBe(401);
    const first = await claim(sessionId);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ api_key: expect.stringMatching(/^svc_pk_[0-9A-Za-z]{43}$/), plan: 'pro', status: 'active' });
    const tenant = await h.server.vigil.services.tenants.get(first.body.tenant_id);
    expect(tenant?.email).toBe('new@buyer.test');
    expect(await h.status(first.body.api_key)).toMatchObject({ plan: 'pro', payment_customer_id: session.customer });
    const second = await claim(sessionId);
    expect(second.status).toBe(410);
    // The key is not kept at rest once handed over.
    const row = await h.server.vigil.services.store.db
      .selectFrom('billing_checkout_keys')
      .selectAll()
      .where('session_id', '=', sessionId)
      .executeTakeFirstOrThrow();
    expect(row.sealed_key).toBeNull();
    expect((await claim('cs_unknown')).status).toBe(404);
  });

  it('checkout.session.completed naming a tenant id that does not exist yet creates it with that id', async () => {
    const wanted = `acme-${Math.random().toString(36).slice(2, 8)}`;
    const sessionId = await webAppSession({ tenant_id: wanted });
    const { session } = h.provider.completeCheckout(sessionId);
    expect((await h.deliver(h.event('checkout.session.completed', session))).body).toMatchObject({ outcome: 'applied', tenant_id: wanted });
    expect((await h.server.vigil.services.tenants.get(wanted))?.plan).toBe('pro');
  });

  it('the same checkout.session.completed delivered concurrently creates one tenant and one key', async () => {
    const sessionId = await webAppSession();
    const { session } = h.provider.completeCheckout(sessionId);
    const event = h.event('checkout.session.completed', session);
    const before = await h.server.vigil.services.tenants.count();
    const results = await Promise.all(Array.from({ length: 6 }, () => h.deliver(event)));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(results.filter((r) => r.body.outcome === 'applied')).toHaveLength(1);
    expect(results.filter((r) => r.body.outcome === 'duplicate')).toHaveLength(5);
    expect(await h.server.vigil.services.tenants.count()).toBe(before + 1);
    const claims = await Promise.all([claim(sessionId), claim(sessionId), claim(sessionId)]);
    expect(claims.filter((c) => c.status === 200)).toHaveLength(1);
    expect(claims.filter((c) => c.status === 410)).toHaveLength(2);
  });

  it('customer.subscription.updated: plan from the price, status, period end, cancel_at_period_end', async () => {
    const t = await h.subscribedTenant('pro');
    const end = now() + 40 * 86400;
    const sub = h.provider.updateSubscription(t.subscriptionId, { price: PRICES.team, periodEnd: end });
    expect((await h.deliver(h.event('customer.subscription.updated', sub))).body.outcome).toBe('applied');
    expect(await h.status(t.apiKey)).toMatchObject({ plan: 'team', subscription_status: 'active', current_period_end: iso(end), cancel_at_period_end: false });
    expect(await usage(t.apiKey)).toMatchObject({ plan: 'team', scans_limit: 2000, monthly_security_scan_quota: 500 });

    const canceling = h.provider.updateSubscription(t.subscriptionId, { cancel_at_period_end: true });
    await h.deliver(h.event('customer.subscription.updated', canceling));
    expect(await h.status(t.apiKey)).toMatchObject({ plan: 'team', cancel_at_period_end: true });

    const pastDue = h.provider.updateSubscription(t.subscriptionId, { status: 'past_due', cancel_at_period_end: false });
    await h.deliver(h.event('customer.subscription.updated', pastDue));
    expect(await h.status(t.apiKey)).toMatchObject({ plan: 'team', subscription_status: 'past_due', cancel_at_period_end: false });

    const unpaid = h.provider.updateSubscription(t.subscriptionId, { status: 'unpaid' });
    await h.deliver(h.event('customer.subscription.updated', unpaid));
    expect(await h.status(t.apiKey)).toMatchObject({ plan: 'free', subscription_status: 'past_due' });
    const active = h.provider.updateSubscription(t.subscriptionId, { status: 'active' });
    await h.deliver(h.event('customer.subscription.updated', active));
    expect((await h.status(t.apiKey)).plan).toBe('team');
  });

  it('customer.subscription.deleted: free, canceled', async () => {
    const t = await h.subscribedTenant('team');
    const sub = h.provider.updateSubscription(t.subscriptionId, { status: 'canceled' });
    expect((await h.deliver(h.event('customer.subscription.deleted', sub))).body.outcome).toBe('applied');
    expect(await h.status(t.apiKey)).toMatchObject({ plan: 'free', subscription_status: 'canceled', payment_subscription_id: t.subscriptionId });
    expect(await usage(t.apiKey)).toMatchObject({ plan: 'free', scans_limit: 50, monthly_security_scan_quota: 0 });
  });

  it('out of order: an older subscription.updated arriving after the deletion does not bring the plan back', async () => {
    const t = await h.subscribedTenant('pro');
    const upgraded = h.provider.updateSubscription(t.subscriptionId, { price: PRICES.team });
    const lateUpdate = h.event('customer.subscription.updated', upgraded, now() + 5);
    const deleted = h.event('customer.subscription.deleted', { ...upgraded, status: 'canceled' }, now() + 10);
    expect((await h.deliver(deleted)).body.outcome).toBe('applied');
    const late = await h.deliver(lateUpdate);
    expect(late.status).toBe(200);
    expect(late.body.outcome).toBe('stale');
    expect(await h.status(t.apiKey)).toMatchObject({ plan: 'free', subscription_status: 'canceled' });
    // Even an update stamped later cannot revive a canceled subscription.
    await h.deliver(h.event('customer.subscription.updated', { ...upgraded, status: 'active' }, now() + 20));
    expect((await h.status(t.apiKey)).plan).toBe('free');
  });

  it('racing events for one subscription: the newest state wins whatever the interleaving', async () => {
    for (let round = 0; round < 3; round++) {
      const t = await h.subscribedTenant('pro');
      const base = now() + 10;
      const sub = h.provider.updateSubscription(t.subscriptionId, {});
      const events = [
        h.event('customer.subscription.updated', { ...sub, items: { data: [{ ...sub.items.data[0], price: { id: PRICES.team } }] } }, base + 1),
        h.event('customer.subscription.deleted', { ...sub, status: 'canceled' }, base + 3),
        h.event('customer.subscription.updated', { ...sub, cancel_at_period_end: true }, base + 2),
        h.event('invoice.paid', h.provider.invoice(t.subscriptionId), base),
      ];
      const results = await Promise.all([...events, ...events].map((e) => h.deliver(e)));
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(results.filter((r) => r.body.outcome === 'duplicate')).toHaveLength(4);
      expect(await h.status(t.apiKey)).toMatchObject({ plan: 'free', subscription_status: 'canceled' });
    }
  });

  it('out of order between updates: the newest change wins whatever the arrival order', async () => {
    const t = await h.subscribedTenant('pro');
    const toTeam = h.event('customer.subscription.updated', h.provider.updateSubscription(t.subscriptionId, { price: PRICES.team }), now() + 2);
    const toPro = h.event('customer.subscription.updated', h.provider.updateSubscription(t.subscriptionId, { price: PRICES.pro }), now() + 1);
    await h.deliver(toTeam);
    expect((await h.deliver(toPro)).body.outcome).toBe('stale');
    expect((await h.status(t.apiKey)).plan).toBe('team');
  });

  it('invoice.paid starts a new usage period: quotas reset, visible in GET /usage, one quota_reset alert', async () => {
    const t = await h.subscribedTenant('pro');
    const services = h.server.vigil.services;
    const period = await services.usage.currentPeriod(t.tenantId, 'pro');
    for (let i = 0; i < 3; i++) expect(await services.usage.consume(period, 'pro', ['functional'])).toBe(true);
    expect((await usage(t.apiKey)).scans_used).toBe(3);

    // The renewal: a period that began a minute ago and ends after the first one.
    const start = now() - 60;
    const end = now() + 31 * 86400;
    h.provider.updateSubscription(t.subscriptionId, { periodStart: start, periodEnd: end });
    const paid = h.event('invoice.paid', h.provider.invoice(t.subscriptionId));
    expect((await h.deliver(paid)).body.outcome).toBe('applied');
    const u = await usage(t.apiKey);
    expect(u).toMatchObject({ scans_used: 0, scans_limit: 500, period_start: iso(start), period_end: iso(end), quota_reset_date: iso(end) });
    expect((await h.status(t.apiKey)).current_period_end).toBe(iso(end));
    const alerts = await call(`${h.api}/usage/alerts?type=quota_reset`, { headers: { 'X-API-Key': t.apiKey } });
    expect(alerts.body.alerts.filter((a: any) => a.period_start === iso(start))).toHaveLength(1);

    // The same invoice again (a provider retry): nothing happens twice.
    await services.usage.consume(await services.usage.currentPeriod(t.tenantId, 'pro'), 'pro', ['functional']);
    expect((await h.deliver(paid)).body.outcome).toBe('duplicate');
    expect((await usage(t.apiKey)).scans_used).toBe(1);
    const again = await call(`${h.api}/usage/alerts?type=quota_reset`, { headers: { 'X-API-Key': t.apiKey } });
    expect(again.body.total).toBe(alerts.body.total);
  });

  it('invoice.payment_failed: a payment_failed message on the live socket, once; shown in status; plan unchanged; settled by a later payment', async () => {
    const t = await h.subscribedTenant('pro');
    const { socket, messages } = await liveSocket(h.api, t.apiKey);
    try {
      const failed = h.event('invoice.payment_failed', h.provider.invoice(t.subscriptionId, { paid: false }), now() - 5);
      const results = await Promise.all([h.deliver(failed), h.deliver(failed), h.deliver(failed)]);
      expect(results.filter((r) => r.body.outcome === 'applied')).toHaveLength(1);
      await expect.poll(() => messages.filter((m) => m.type === 'payment_failed').length).toBe(1);
      await new Promise((r) => setTimeout(r, 200));
      expect(messages.filter((m) => m.type === 'payment_failed')).toHaveLength(1);
      expect(messages[0]).toMatchObject({
        type: 'payment_failed',
        tenant_id: t.tenantId,
        amount_due: 4900,
        currency: 'usd',
        invoice_id: failed.data.object.id,
      });
      const status = await h.status(t.apiKey);
      expect(status.plan).toBe('pro');
      expect(status.payment_failed).toMatchObject({ invoice_id: failed.data.object.id, amount_due: 4900 });

      await h.deliver(h.event('invoice.paid', h.provider.invoice(t.subscriptionId)));
      expect((await h.status(t.apiKey)).payment_failed).toBeNull();
      // A failure older than that payment, delivered late, is not announced.
      const stale = await h.deliver(h.event('invoice.payment_failed', h.provider.invoice(t.subscriptionId, { paid: false }), now() - 60));
      expect(stale.body.outcome).toBe('stale');
      await new Promise((r) => setTimeout(r, 200));
      expect(messages.filter((m) => m.type === 'payment_failed')).toHaveLength(1);
    } finally {
      socket.close();
    }
  });

  it("invoice.payment_failed also reaches the tenant's configured webhooks (team and up), signed; plans without outbound webhooks get none", async () => {
    const received: Array<{ body: string; signature: string | undefined }> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-vigil-signature'] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/billing-hook`;
    try {
      const team = await h.subscribedTenant('team');
      const put = await call(`${h.api}/notifications`, {
        method: 'PUT',
        headers: { 'X-API-Key': team.apiKey },
        json: { channels: [{ kind: 'webhook', url: hook, secret: 'hook-secret', events: ['payment_failed'] }] },
      });
      expect(put.status, put.text).toBe(200);
      const failed = h.event('invoice.payment_failed', h.provider.invoice(team.subscriptionId, { paid: false }), now() - 5);
      expect((await h.deliver(failed)).body.outcome).toBe('applied');
      await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
      const event = JSON.parse(received[0]!.body);
      expect(event).toMatchObject({
        event: 'payment_failed',
        tenant_id: team.tenantId,
        invoice_id: failed.data.object.id,
        amount_due: 14900,
        currency: 'usd',
        billing_url: expect.stringMatching(/\/billing$/),
      });
      expect(received[0]!.signature).toBe(`sha256=${createHmac('sha256', 'hook-secret').update(received[0]!.body).digest('hex')}`);

      // A pro tenant cannot configure channels (402), so its failure goes to the live socket only.
      const pro = await h.subscribedTenant('pro');
      expect(
        (await call(`${h.api}/notifications`, { method: 'PUT', headers: { 'X-API-Key': pro.apiKey }, json: { channels: [{ kind: 'webhook', url: hook }] } }))
          .status,
      ).toBe(402);
      expect((await h.deliver(h.event('invoice.payment_failed', h.provider.invoice(pro.subscriptionId, { paid: false }), now() - 5))).body.outcome).toBe(
        'applied',
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(received).toHaveLength(1);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('charge.refunded: a partial refund changes nothing, a full refund takes the tenant to free', async () => {
    const t = await h.subscribedTenant('team');
    const partial = await h.deliver(h.event('charge.refunded', h.provider.charge(t.customerId, { amount: 14900, refunded: 1000 })));
    expect(partial.body.outcome).toBe('ignored');
    expect((await h.status(t.apiKey)).plan).toBe('team');
    const full = await h.deliver(h.event('charge.refunded', h.provider.charge(t.customerId, { amount: 14900 })));
    expect(full.body.outcome).toBe('applied');
    expect(await h.status(t.apiKey)).toMatchObject({ plan: 'free', subscription_status: 'canceled' });
    expect((await usage(t.apiKey)).scans_limit).toBe(50);
  });

  it('unknown event types: 200, ignored, nothing recorded', async () => {
    const res = await h.deliver(h.event('payout.paid', { id: 'po_1', object: 'payout' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, outcome: 'ignored', type: 'payout.paid' });
  });

  it('events for customers Vigil does not know: 200, ignored', async () => {
    const res = await h.deliver(h.event('invoice.paid', { id: 'in_x', object: 'invoice', customer: 'cus_stranger', lines: { data: [] } }));
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('ignored');
  });

  it('a subscription event that arrives before its checkout is kept and used when the checkout links it', async () => {
    const { apiKey } = await h.server.createTenant('free');
    const res = await call(`${h.api}/billing/checkout`, {
      headers: { 'X-API-Key': apiKey },
      json: { plan: 'pro', success_url: 'https://a.test/ok', cancel_url: 'https://a.test/no' },
    });
    const { session, subscription } = h.provider.completeCheckout(res.body.session_id);
    const upgraded = h.provider.updateSubscription(subscription.id, { price: PRICES.team });
    // Session metadata names the tenant, so even the early event finds it.
    expect((await h.deliver(h.event('customer.subscription.updated', upgraded, now() + 1))).status).toBe(200);
    await h.deliver(h.event('checkout.session.completed', session, now()));
    expect((await h.status(apiKey)).plan).toBe('team');
  });
});
