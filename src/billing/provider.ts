import Stripe from 'stripe';
import type { Config } from '../app/config.js';
import { PLANS, type Plan } from '../domain/plans.js';

export type PaidPlan = Exclude<Plan, 'free'>;
export type Provider = Stripe;

/** Both secrets are needed for billing; without them (self-hosted only) billing answers 503. */
export function paymentConfigured(config: Config): boolean {
  return Boolean(config.payment.secretKey && config.payment.webhookSecret);
}

/**
 * The provider client: the official SDK. PAYMENT_API_BASE points it elsewhere (a local fake in tests, or
 * a proxy) through the SDK's own host/port/protocol options.
 */
export function createProvider(config: Config): Provider | undefined {
  const key = config.payment.secretKey;
  if (!key || !config.payment.webhookSecret) return undefined;
  const options: Stripe.StripeConfig = { maxNetworkRetries: 2, timeout: 20_000, telemetry: false, appInfo: { name: 'vigil' } };
  if (config.payment.apiBase) {
    const base = new URL(config.payment.apiBase);
    const protocol = base.protocol === 'http:' ? 'http' : 'https';
    options.host = base.hostname;
    options.port = base.port || (protocol === 'http' ? 80 : 443);
    options.protocol = protocol;
  }
  return new Stripe(key, options);
}

/** The configured price of a plan, and the plan of a configured price. */
export class PriceTable {
  constructor(private readonly priceIds: Partial<Record<PaidPlan, string>>) {}

  priceFor(plan: Plan): string | undefined {
    return plan === 'free' ? undefined : this.priceIds[plan];
  }

  planFor(priceId: string | null | undefined): PaidPlan | undefined {
    if (!priceId) return undefined;
    return (PLANS.filter((p) => p !== 'free') as PaidPlan[]).find((p) => this.priceIds[p] === priceId);
  }

  configured(): string[] {
    return Object.values(this.priceIds).filter((v): v is string => Boolean(v));
  }
}
