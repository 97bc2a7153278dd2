import { createHash, randomInt } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, storeLabel } from '../helpers/server.js';
import { PRICES, startBilling, type BillingHarness } from './harness.js';

/**
 * The dashboard's sign-up for a new customer: a public checkout whose return addresses are the server's
 * own, and a one-time claim token that fetches, once, the key of the tenant the completed checkout creates.
 * The provider is the fake one; "paying" is its completeCheckout plus the signed webhook it would send.
 */
describe(`new-customer sign-up and key claim (${storeLabel})`, () => {
  let h: BillingHarness;
  let origin: string;
  // A high limit: with Redis the per-address counters are shared by every test server of the run.
  beforeAll(async () => {
    h = await startBilling({ VIGIL_SIGNUP_RATE_LIMIT: '100000' });
    origin = new URL(h.api).origin;
  });
  afterAll(async () => h?.stop());

  const signup = (json: unknown) => call(`${h.api}/billing/signup`, { json });
  const claim = (sessionId: string, json: unknown) => call(`${h.api}/billing/checkout-sessions/${encodeURIComponent(sessionId)}/claim`, { json });
  const claimRows = () => h.server.vigil.services.store.db.selectFrom('billing_checkout_claims').selectAll().execute();
  /** What the provider does when the customer pays: the session completes and its webhook is delivered. */
  async function pay(sessionId: string, email = 'new@customer.test'): Promise<void> {
    const { session } = h.provider.completeCheckout(sessionId, { email });
    const delivered = await h.deliver(h.event('checkout.session.completed', session));
    expect(delivered.body).toMatchObject({ outcome: 'applied' });
  }

  it('GET /billing/signup names the plans with a configured price', async () => {
    const res = await call(`${h.api}/billing/signup`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ available: true, plans: ['pro', 'team'] });
  });

  it("starts a checkout with no tenant and no customer, returning to this server's dashboard; only the token's hash is stored", async () => {
    const res = await signup({ plan: 'pro' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.checkout_url).toMatch(/^https:\/\/checkout\.provider\.test\/c\/pay\/cs_test_/);
    expect(res.body.claim_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Date(res.body.expires_at).getTime()).toBeGreaterThan(Date.now());
    const session = h.provider.sessions.get(res.body.session_id)!;
    expect(session).toMatchObject({
      mode: 'subscription',
      customer: null,
      client_reference_id: null,
      success_url: `${origin}/app/welcome?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${origin}/app/?signup=cancelled`,
      metadata: { plan: 'pro' },
    });
    expect(session.line_items[0].price).toBe(PRICES.pro);
    expect(h.provider.successUrl(res.body.session_id)).toBe(`${origin}/app/welcome?session_id=${res.body.session_id}`);
    const row = (await claimRows()).find((r) => r.session_id === res.body.session_id)!;
    expect(row.token_hash).toBe(createHash('sha256').update(res.body.claim_token).digest('hex'));
    expect(JSON.stringify(await claimRows())).not.toContain(res.body.claim_token);
  });

  it('claim: 404 until the webhook, a wrong or missing token refused (403) and changing nothing, then the key once, then 410', async () => {
    const started = await signup({ price_id: PRICES.team });
    expect(started.status).toBe(200);
    const { session_id: sessionId, claim_token: token } = started.body;

    const early = await claim(sessionId, { claim_token: token });
    expect(early.status).toBe(404);
    expect(early.body).toMatchObject({ error: 'NOT_FOUND', status: 404 });
    // Before the webhook too, a wrong token learns nothing about the checkout.
    expect((await claim(sessionId, { claim_token: `${token.slice(0, -1)}A` === token ? `${token.slice(0, -1)}B` : `${token.slice(0, -1)}A` })).status).toBe(
      403,
    );

    await pay(sessionId);

    for (const body of [{ claim_token: 'not-the-token' }, {}, { claim_token: '' }]) {
      const refused = await claim(sessionId, body);
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.body).toMatchObject({ error: 'INVALID_CLAIM_TOKEN', status: 403 });
      expect(refused.text).not.toContain('svc_pk_');
    }
    // Another sign-up's token does not open this checkout.
    const other = await signup({ plan: 'pro' });
    expect((await claim(sessionId, { claim_token: other.body.claim_token })).status).toBe(403);

    const claimed = await claim(sessionId, { claim_token: token });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body).toMatchObject({ plan: 'team', status: 'active' });
    expect(claimed.body.api_key).toMatch(/^svc_pk_/);
    const usage = await call(`${h.api}/usage`, { headers: { 'X-API-Key': claimed.body.api_key } });
    expect(usage.status).toBe(200);
    expect((await h.status(claimed.body.api_key)).plan).toBe('team');
    const tenant = await h.server.vigil.services.tenants.get(claimed.body.tenant_id);
    expect(tenant?.email).toBe('new@customer.test');

    const again = await claim(sessionId, { claim_token: token });
    expect(again.status).toBe(410);
    expect(again.body).toMatchObject({ error: 'KEY_ALREADY_RETRIEVED', status: 410 });
    expect(again.text).not.toContain('svc_pk_');
    // A wrong token is still refused first.
    expect((await claim(sessionId, { claim_token: 'nope' })).status).toBe(403);
    // The operator route sees the same state: handed over.
    expect((await call(`${h.api}/billing/checkout-sessions/${sessionId}/key`, { headers: { 'X-Sync-Key': 'the-sync-secret' } })).status).toBe(410);
  });

  it("a checkout no sign-up started (an existing tenant's) cannot be claimed with any token: 403", async () => {
    const { apiKey } = await h.server.createTenant('free');
    const res = await call(`${h.api}/billing/checkout`, {
      headers: { 'X-API-Key': apiKey },
      json: { plan: 'pro', success_url: 'https://app.test/ok', cancel_url: 'https://app.test/no' },
    });
    expect(res.status).toBe(200);
    await pay(res.body.session_id);
    expect((await claim(res.body.session_id, { claim_token: 'anything' })).status).toBe(403);
    expect((await claim('cs_test_unknown', { claim_token: 'anything' })).status).toBe(403);
  });

  it("409 KEY_NOT_ISSUED when the sign-up's checkout was linked to an existing tenant (its customer already had one)", async () => {
    const { apiKey } = await h.server.createTenant('free');
    const existing = await call(`${h.api}/billing/checkout`, {
      headers: { 'X-API-Key': apiKey },
      json: { plan: 'pro', success_url: 'https://app.test/ok', cancel_url: 'https://app.test/no' },
    });
    const customer = h.provider.sessions.get(existing.body.session_id)!.customer;
    const started = await signup({ plan: 'team' });
    // The provider let the customer pay as the existing customer (e.g. a prefilled email it matched).
    h.provider.sessions.get(started.body.session_id)!.customer = customer;
    await pay(started.body.session_id);
    const res = await claim(started.body.session_id, { claim_token: started.body.claim_token });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'KEY_NOT_ISSUED', status: 409 });
  });

  it.each([
    ['unknown plan', { plan: 'platinum' }, 422, 'VALIDATION_ERROR'],
    ['neither plan nor price_id', {}, 422, 'VALIDATION_ERROR'],
    ["a success_url (the addresses are the server's own)", { plan: 'pro', success_url: 'https://evil.test/steal' }, 422, 'VALIDATION_ERROR'],
    ['a cancel_url', { plan: 'pro', cancel_url: 'https://evil.test/' }, 422, 'VALIDATION_ERROR'],
    ['plan and price_id disagree', { plan: 'team', price_id: PRICES.pro }, 422, 'VALIDATION_ERROR'],
    ['unknown price_id', { price_id: 'price_nope' }, 400, 'INVALID_PRICE_ID'],
    ['a plan without a price (enterprise)', { plan: 'enterprise' }, 400, 'INVALID_PRICE_ID'],
    ['free', { plan: 'free' }, 400, 'INVALID_PRICE_ID'],
  ])('%s: refused, no checkout started, nothing stored', async (_label, body, status, code) => {
    const sessions = h.provider.sessions.size;
    const claims = (await claimRows()).length;
    const res = await signup(body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: code, status });
    expect(h.provider.sessions.size).toBe(sessions);
    expect((await claimRows()).length).toBe(claims);
  });

  it('400 for a body that is not JSON; 502 PAYMENT_PROVIDER_ERROR when the provider fails, nothing stored', async () => {
    const notJson = await call(`${h.api}/billing/signup`, { headers: { 'content-type': 'application/json' }, body: '{plan' });
    expect(notJson.status).toBe(400);
    const claims = (await claimRows()).length;
    const heal = h.provider.inject('POST', /^\/v1\/checkout\/sessions$/, 500);
    try {
      const res = await signup({ plan: 'pro' });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ error: 'PAYMENT_PROVIDER_ERROR', status: 502 });
    } finally {
      heal();
    }
    expect((await claimRows()).length).toBe(claims);
  });
});

describe(`sign-up and claim are rate-limited per client address (${storeLabel})`, () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBilling({ VIGIL_SIGNUP_RATE_LIMIT: '3' });
  });
  afterAll(async () => h?.stop());

  /** A POST from a given loopback address (the whole 127/8 reaches the server): one client per test. */
  function postFrom(
    localAddress: string,
    path: string,
    json: unknown,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
    return new Promise((resolve, reject) => {
      const url = new URL(`${h.api}${path}`);
      const req = request(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(json));
    });
  }
  // Fresh addresses: with Redis the counters outlive this server (other runs, other test servers).
  const address = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

  it('the fourth sign-up from one address in the window is 429 RATE_LIMIT_EXCEEDED with Retry-After; another address is not limited', async () => {
    const client = address();
    for (let i = 0; i < 3; i++) {
      const ok = await postFrom(client, '/billing/signup', { plan: 'pro' });
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-limit']).toBe('3');
    }
    const sessions = h.provider.sessions.size;
    const limited = await postFrom(client, '/billing/signup', { plan: 'pro' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBe(limited.body.retry_after);
    expect(h.provider.sessions.size).toBe(sessions);
    expect((await postFrom(address(), '/billing/signup', { plan: 'pro' })).status).toBe(200);
  });

  it('claims are counted apart from sign-ups: the fourth guess from one address is 429', async () => {
    const client = address();
    const started = await postFrom(client, '/billing/signup', { plan: 'pro' });
    expect(started.status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await postFrom(client, `/billing/checkout-sessions/${started.body.session_id}/claim`, { claim_token: `guess-${i}` })).status).toBe(403);
    const limited = await postFrom(client, `/billing/checkout-sessions/${started.body.session_id}/claim`, { claim_token: started.body.claim_token });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'RATE_LIMIT_EXCEEDED', status: 429 });
  });
});
