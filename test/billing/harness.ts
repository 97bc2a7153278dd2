import { Writable } from 'node:stream';
import { createLogger } from '../../src/app/logger.js';
import { call, startServer, type TestServer } from '../helpers/server.js';
import { FakeProvider, providerEvent } from './fake-provider.js';
import { postWebhook, signatureHeader } from './signing.js';

export const WEBHOOK_SECRET = 'whsec_test_secret';
export const SYNC_KEY = 'the-sync-secret';
export const PRICES = { pro: 'price_pro_monthly', team: 'price_team_monthly' } as const;

export interface BillingHarness {
  server: TestServer;
  provider: FakeProvider;
  api: string;
  /** Signs and delivers an event; returns the webhook's answer. */
  deliver(event: Record<string, any>): Promise<{ status: number; body: any }>;
  event: typeof providerEvent;
  /** A tenant with a completed checkout for `plan` (checkout via the API, then the completed event). */
  subscribedTenant(plan: 'pro' | 'team'): Promise<{ tenantId: string; apiKey: string; subscriptionId: string; customerId: string }>;
  status(apiKey: string): Promise<any>;
  /** The server's log lines (info and above), parsed. */
  logs: Array<Record<string, any>>;
  stop(): Promise<void>;
}

/** A Vigil server whose SDK talks to a fresh fake provider (prices for pro and team; none for enterprise). */
export async function startBilling(env: Record<string, string> = {}): Promise<BillingHarness> {
  const provider = await new FakeProvider().start();
  provider.addPrice(PRICES.pro, 4900);
  provider.addPrice(PRICES.team, 14900);
  const logs: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  });
  const server = await startServer({
    logger: createLogger('info', sink),
    env: {
      PAYMENT_SECRET_KEY: provider.secretKey,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYMENT_PRICE_ID_PRO: PRICES.pro,
      PAYMENT_PRICE_ID_TEAM: PRICES.team,
      PAYMENT_API_BASE: provider.url,
      SERVICE_APP_SYNC_KEY: SYNC_KEY,
      ...env,
    },
  });
  const api = server.api;
  const harness: BillingHarness = {
    server,
    provider,
    api,
    logs,
    event: providerEvent,
    async deliver(event) {
      const payload = JSON.stringify(event);
      return postWebhook(api, payload, { 'Provider-Signature': signatureHeader(payload, WEBHOOK_SECRET) });
    },
    async subscribedTenant(plan) {
      const { tenantId, apiKey } = await server.createTenant('free');
      const res = await call(`${api}/billing/checkout`, {
        headers: { 'X-API-Key': apiKey },
        json: { plan, success_url: 'https://app.test/ok', cancel_url: 'https://app.test/cancel' },
      });
      if (res.status !== 200) throw new Error(`checkout failed: ${res.status} ${res.text}`);
      const { session, subscription } = provider.completeCheckout(res.body.session_id);
      const delivered = await harness.deliver(providerEvent('checkout.session.completed', session));
      if (delivered.status !== 200) throw new Error(`webhook failed: ${delivered.status} ${JSON.stringify(delivered.body)}`);
      return { tenantId, apiKey, subscriptionId: subscription.id, customerId: session.customer };
    },
    async status(apiKey) {
      const res = await call(`${api}/billing/status`, { headers: { 'X-API-Key': apiKey } });
      if (res.status !== 200) throw new Error(`status failed: ${res.status} ${res.text}`);
      return res.body;
    },
    async stop() {
      await server.stop();
      await provider.stop();
    },
  };
  return harness;
}
