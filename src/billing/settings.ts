import type { PaidPlan } from '../domain/plans.js';

/** What billing reads of the configuration (the composition root passes it). */
export interface BillingSettings {
  /** PAYMENT_SECRET_KEY and PAYMENT_WEBHOOK_SECRET: both, or billing answers 503 (self-hosted only). */
  secretKey?: string;
  webhookSecret?: string;
  /** PAYMENT_PRICE_ID_*: the price each paid plan is sold at. */
  priceIds: Partial<Record<PaidPlan, string>>;
  /** PAYMENT_API_BASE: another address for the provider's API (a local fake in tests, or a proxy). */
  apiBase?: string;
  /** The web application, where tenants manage billing (links in payment notifications). */
  appUrl: string;
}
