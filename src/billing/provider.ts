import Stripe from 'stripe';
import type { BillingSettings } from './settings.js';

export type Provider = Stripe;

/**
 * The provider client: the official SDK, or none when either secret is missing. PAYMENT_API_BASE points it
 * elsewhere (a local fake in tests, or a proxy) through the SDK's own host/port/protocol options.
 */
export function createProvider(settings: BillingSettings): Provider | undefined {
  const key = settings.secretKey;
  if (!key || !settings.webhookSecret) return undefined;
  const options: Stripe.StripeConfig = { maxNetworkRetries: 2, timeout: 20_000, telemetry: false, appInfo: { name: 'vigil' } };
  if (settings.apiBase) {
    const base = new URL(settings.apiBase);
    const protocol = base.protocol === 'http:' ? 'http' : 'https';
    options.host = base.hostname;
    options.port = base.port || (protocol === 'http' ? 80 : 443);
    options.protocol = protocol;
  }
  return new Stripe(key, options);
}
