import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLabel } from '../helpers/server.js';
import { WEBHOOK_SECRET, startBilling, type BillingHarness } from './harness.js';
import { postWebhook, signatureHeader } from './signing.js';

describe(`billing webhook signatures (${storeLabel})`, () => {
  let h: BillingHarness;
  let tenant: Awaited<ReturnType<BillingHarness['subscribedTenant']>>;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    h = await startBilling();
    tenant = await h.subscribedTenant('pro');
  });
  afterAll(async () => h?.stop());

  /** A deletion that would take the tenant to free if it were accepted. */
  const deletion = () => {
    const sub = h.provider.updateSubscription(tenant.subscriptionId, {});
    return JSON.stringify(h.event('customer.subscription.deleted', { ...sub, status: 'canceled' }));
  };

  async function expectRejected(payload: string, headers: Record<string, string>) {
    const before = await h.server.vigil.services.store.db
      .selectFrom('billing_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await postWebhook(h.api, payload, headers);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, error: 'INVALID_SIGNATURE' });
    expect(typeof res.body.message).toBe('string');
    expect((await h.status(tenant.apiKey)).plan).toBe('pro');
    const after = await h.server.vigil.services.store.db
      .selectFrom('billing_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  }

  it("our signing helper produces exactly the provider's header (the SDK's own test header)", () => {
    const payload = '{"id":"evt_1"}';
    const t = now();
    expect(signatureHeader(payload, WEBHOOK_SECRET, { timestamp: t })).toBe(
      Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: t }),
    );
  });

  it('400 without the Provider-Signature header', async () => {
    await expectRejected(deletion(), {});
  });

  it('400 with a signature made with another secret, or garbage', async () => {
    const payload = deletion();
    await expectRejected(payload, { 'Provider-Signature': signatureHeader(payload, 'whsec_other') });
    await expectRejected(payload, { 'Provider-Signature': 'nonsense' });
    await expectRejected(payload, { 'Provider-Signature': `t=${now()}` });
    await expectRejected(payload, { 'Provider-Signature': `t=${now()},v0=${'a'.repeat(64)}` });
  });

  it('400 when the body changed after signing (even only whitespace)', async () => {
    const payload = deletion();
    const header = signatureHeader(payload, WEBHOOK_SECRET);
    await expectRejected(payload.replace('"canceled"', '"active"'), { 'Provider-Signature': header });
    await expectRejected(`${payload} `, { 'Provider-Signature': header });
    await expectRejected(JSON.stringify(JSON.parse(payload), null, 2), { 'Provider-Signature': header });
  });

  it('400 for a timestamp older than 5 minutes (a replay), accepted just inside it', async () => {
    const payload = deletion();
    await expectRejected(payload, { 'Provider-Signature': signatureHeader(payload, WEBHOOK_SECRET, { timestamp: now() - 301 - 5 }) });
    const ok = JSON.stringify(h.event('customer.created', { id: 'cus_x', object: 'customer' }));
    const inside = await postWebhook(h.api, ok, { 'Provider-Signature': signatureHeader(ok, WEBHOOK_SECRET, { timestamp: now() - 240 }) });
    expect(inside.status).toBe(200);
  });

  it('future timestamps: up to 5 minutes ahead accepted (clock skew), further ahead refused', async () => {
    const payload = deletion();
    await expectRejected(payload, { 'Provider-Signature': signatureHeader(payload, WEBHOOK_SECRET, { timestamp: now() + 310 }) });
    await expectRejected(payload, { 'Provider-Signature': signatureHeader(payload, WEBHOOK_SECRET, { timestamp: now() + 86400 }) });
    const ok = JSON.stringify(h.event('customer.created', { id: 'cus_y', object: 'customer' }));
    const skewed = await postWebhook(h.api, ok, { 'Provider-Signature': signatureHeader(ok, WEBHOOK_SECRET, { timestamp: now() + 120 }) });
    expect(skewed.status).toBe(200);
  });

  it('two t= values: the future rule applies to the timestamp the SDK verified (the last), whatever comes first', async () => {
    // Signed for a day ahead, with a current t= put in front: the SDK verifies the last t=, so the future rule must see it.
    const payload = deletion();
    const future = signatureHeader(payload, WEBHOOK_SECRET, { timestamp: now() + 86400 });
    await expectRejected(payload, { 'Provider-Signature': `t=${now()},${future}` });
    await expectRejected(payload, { 'Provider-Signature': `${future},t=${now()}` });
    await expectRejected(payload, { 'Provider-Signature': `t=${now()},t=${now() + 86400},${future.split(',')[1]}` });
    // Signed now with a future t= in front: the SDK verifies the current one, which is within the tolerance.
    const ok = JSON.stringify(h.event('customer.created', { id: 'cus_t2', object: 'customer' }));
    const current = signatureHeader(ok, WEBHOOK_SECRET);
    const res = await postWebhook(h.api, ok, { 'Provider-Signature': `t=${now() + 86400},${current}` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, outcome: 'ignored' });
    // ...and a signature over a timestamp that is not the last t= does not verify.
    await expectRejected(payload, { 'Provider-Signature': `${signatureHeader(payload, WEBHOOK_SECRET)},t=${now() + 1}` });
  });

  it('several v1 signatures (a rolled secret): accepted when one matches, refused when none does', async () => {
    const ok = JSON.stringify(h.event('customer.created', { id: 'cus_z', object: 'customer' }));
    const header = signatureHeader(ok, WEBHOOK_SECRET, { extraSignatures: ['0'.repeat(64), 'f'.repeat(64)] });
    expect(header.match(/v1=/g)).toHaveLength(3);
    const res = await postWebhook(h.api, ok, { 'Provider-Signature': header });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, outcome: 'ignored', type: 'customer.created' });

    const payload = deletion();
    const t = now();
    const wrong = [signatureHeader(payload, 'whsec_a', { timestamp: t }), signatureHeader(payload, 'whsec_b', { timestamp: t })].map((s) => s.split(',v1=')[1]);
    await expectRejected(payload, { 'Provider-Signature': `t=${t},v1=${wrong[0]},v1=${wrong[1]}` });
  });

  it('a validly signed body that is not an event, or not JSON: 400, nothing changed', async () => {
    for (const payload of ['{"hello":"world"}', '{"id":', '[]']) {
      const res = await postWebhook(h.api, payload, { 'Provider-Signature': signatureHeader(payload, WEBHOOK_SECRET) });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_REQUEST');
    }
    expect((await h.status(tenant.apiKey)).plan).toBe('pro');
  });

  it("any content type reaches the signature check; the provider's own Stripe-Signature header name is accepted too", async () => {
    const ok = JSON.stringify(h.event('customer.created', { id: 'cus_w', object: 'customer' }));
    const plain = await postWebhook(h.api, ok, { 'content-type': 'text/plain', 'Provider-Signature': signatureHeader(ok, WEBHOOK_SECRET) });
    expect(plain.status).toBe(200);
    const native = await postWebhook(h.api, ok.replace('cus_w', 'cus_v'), {
      'Stripe-Signature': signatureHeader(ok.replace('cus_w', 'cus_v'), WEBHOOK_SECRET),
    });
    expect(native.status).toBe(200);
    const unsignedPlain = await postWebhook(h.api, 'hello', { 'content-type': 'text/plain' });
    expect(unsignedPlain.status).toBe(400);
  });

  it('the correctly signed deletion is applied (the tests above changed nothing only because of the signature)', async () => {
    const payload = deletion();
    const res = await postWebhook(h.api, payload, { 'Provider-Signature': signatureHeader(payload, WEBHOOK_SECRET) });
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('applied');
    expect((await h.status(tenant.apiKey)).plan).toBe('free');
  });
});
