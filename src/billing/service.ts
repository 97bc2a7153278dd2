import type { PaymentFailedEvent } from '../notifications/events.js';
import { createHash, randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { constantTimeEqual } from '../domain/api-keys.js';
import { PriceTable, isEntitled, shownStatus, type PaymentFailure } from '../domain/billing-rules.js';
import { PLANS, isPlan, type PaidPlan, type Plan } from '../domain/plans.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { EventBus } from '../events/bus.js';
import { storableText } from '../store/database.js';
import type { AuditLogRepository } from '../store/audit-log.js';
import type { Database } from '../store/schema.js';
import type { Tenant, TenantRepository } from '../store/tenants.js';
import type { UsageRepository } from '../store/usage.js';
import { EVENT_HANDLERS, type HandlerContext, type Outcome, type ProviderEvent } from './events.js';
import { createProvider, type Provider } from './provider.js';
import type { BillingSettings } from './settings.js';
import { UnusableEvent } from './snapshot.js';
import { BillingState } from './state.js';
import { WebhookRefusal, verifyWebhook } from './webhook.js';

/** Signature tolerance in seconds, both ways: older timestamps are replays, newer ones are refused too. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** A problem the caller can act on; the route turns it into an ApiError. */
export class BillingError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BillingError';
  }
}

export interface BillingStatus {
  plan: Plan;
  subscription_status: 'active' | 'trialing' | 'past_due' | 'canceled';
  current_period_end: string;
  cancel_at_period_end: boolean;
  payment_customer_id: string | null;
  payment_subscription_id: string | null;
  payment_failed: (PaymentFailure & { failed_at: string | null }) | null;
}

export interface CheckoutStarted {
  checkout_url: string;
  session_id: string;
  expires_at: string | null;
}

/** A new customer's checkout: the session, and the one-time token that claims the new tenant's key. */
export interface SignupStarted extends CheckoutStarted {
  claim_token: string;
}

/** The key of a tenant a checkout created, as handed over once. */
export interface ClaimedKey {
  tenant_id: string;
  api_key: string;
  plan: Plan;
  status: string;
}

/** SHA-256 (hex) of a claim token: what the store keeps. */
function claimTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface WebhookResult {
  event_id: string;
  type: string;
  outcome: Outcome | 'duplicate';
  tenant_id?: string;
  reason?: string;
}

export interface BillingDeps {
  settings: BillingSettings;
  db: Kysely<Database>;
  tenants: TenantRepository;
  usage: UsageRepository;
  /** Plan changes are recorded in the tenant's audit log. */
  audit: AuditLogRepository;
  bus: EventBus;
  secretBox: SecretBox;
  logger: Logger;
  clock?: () => Date;
  /** Tests may pass a client; by default one is built from the configuration. */
  provider?: Provider;
  /** Sends a payment failure to the tenant's notification channels (plan-gated, never throws). */
  notifyPaymentFailed?: (event: PaymentFailedEvent) => Promise<void>;
}

/** Checkout, portal, status, webhook events and the one-time key hand-over of checkout-created tenants. */
export class BillingService {
  readonly prices: PriceTable;
  private readonly provider?: Provider;
  private readonly state: BillingState;
  private readonly now: () => Date;

  constructor(private readonly deps: BillingDeps) {
    this.now = deps.clock ?? (() => new Date());
    this.prices = new PriceTable(deps.settings.priceIds);
    this.provider = deps.provider ?? createProvider(deps.settings);
    this.state = new BillingState(deps.tenants, this.prices, this.now, deps.audit);
  }

  /** False on a self-hosted server without PAYMENT_SECRET_KEY and PAYMENT_WEBHOOK_SECRET. */
  get configured(): boolean {
    return this.provider !== undefined && Boolean(this.deps.settings.webhookSecret);
  }

  private client(): Provider {
    if (!this.provider)
      throw new BillingError(503, 'PAYMENT_NOT_CONFIGURED', 'Billing is not configured on this server (PAYMENT_SECRET_KEY, PAYMENT_WEBHOOK_SECRET)');
    return this.provider;
  }

  /** The plan a checkout asks for: by plan name or configured price id (both: they must agree). */
  resolvePrice(input: { plan?: string; price_id?: string }): { plan: Plan; priceId: string } {
    if (input.price_id !== undefined) {
      const plan = this.prices.planFor(input.price_id);
      if (!plan) throw new BillingError(400, 'INVALID_PRICE_ID', `price_id ${input.price_id} is not one of this service's prices`);
      if (input.plan !== undefined && input.plan !== plan)
        throw new BillingError(422, 'VALIDATION_ERROR', `price_id ${input.price_id} is the ${plan} plan, not ${input.plan}`);
      return { plan, priceId: input.price_id };
    }
    if (input.plan === undefined || !isPlan(input.plan)) throw new BillingError(422, 'VALIDATION_ERROR', 'plan or price_id is required');
    const priceId = this.prices.priceFor(input.plan);
    if (!priceId) throw new BillingError(400, 'INVALID_PRICE_ID', `No price is configured for the ${input.plan} plan`);
    return { plan: input.plan, priceId };
  }

  async checkout(tenant: Tenant, input: { plan?: string; price_id?: string; success_url: string; cancel_url: string }): Promise<CheckoutStarted> {
    this.client();
    const { plan, priceId } = this.resolvePrice(input);
    const { db } = this.deps;
    const account = await this.state.account(db, tenant.id);
    const current = await this.state.subscription(db, account?.subscription_id);
    if (isEntitled(current) && tenant.plan === plan) {
      throw new BillingError(409, 'ALREADY_SUBSCRIBED', `The tenant already has an active ${plan} subscription; manage it in the billing portal`);
    }
    const customerId = account?.customer_id ?? (await this.createCustomer(tenant));
    return this.createSession({
      mode: 'subscription',
      customer: customerId,
      client_reference_id: tenant.id,
      line_items: [{ price: priceId, quantity: 1 }],
      success_url: input.success_url,
      cancel_url: input.cancel_url,
      metadata: { tenant_id: tenant.id, plan },
      subscription_data: { metadata: { tenant_id: tenant.id, plan } },
    });
  }

  /** The plans a new customer can buy here (those with a configured price); none when billing is not configured. */
  signupPlans(): PaidPlan[] {
    if (!this.configured) return [];
    return PLANS.filter((plan): plan is PaidPlan => plan !== 'free' && this.prices.priceFor(plan) !== undefined);
  }

  /**
   * A checkout for a new customer (no tenant yet; the provider creates the customer). The completed
   * checkout creates the tenant (see events.ts); the returned claim token, whose hash alone is stored,
   * fetches its key once (claimWithToken). The addresses are the server's own, never the caller's.
   */
  async signup(input: { plan?: string; price_id?: string }, urls: { success_url: string; cancel_url: string }): Promise<SignupStarted> {
    this.client();
    const { plan, priceId } = this.resolvePrice(input);
    const started = await this.createSession({
      mode: 'subscription',
      line_items: [{ price: priceId, quantity: 1 }],
      success_url: urls.success_url,
      cancel_url: urls.cancel_url,
      metadata: { plan, signup: 'dashboard' },
      subscription_data: { metadata: { plan } },
    });
    const claimToken = randomBytes(32).toString('base64url');
    await this.deps.db
      .insertInto('billing_checkout_claims')
      .values({ session_id: started.session_id, token_hash: claimTokenHash(claimToken), plan, created_at: this.now().toISOString() })
      .execute();
    return { ...started, claim_token: claimToken };
  }

  private async createSession(params: Stripe.Checkout.SessionCreateParams): Promise<CheckoutStarted> {
    const provider = this.client();
    try {
      const session = await provider.checkout.sessions.create(params);
      if (typeof session.url !== 'string' || !session.url)
        throw new BillingError(502, 'PAYMENT_PROVIDER_ERROR', 'The payment provider returned no checkout URL');
      return { checkout_url: session.url, session_id: session.id, expires_at: session.expires_at ? new Date(session.expires_at * 1000).toISOString() : null };
    } catch (error) {
      throw this.providerError(error, true);
    }
  }

  /** The tenant's provider customer, created once (an idempotency key makes concurrent creations one customer). */
  private async createCustomer(tenant: Tenant): Promise<string> {
    const provider = this.client();
    let customer: Stripe.Customer;
    try {
      customer = await provider.customers.create(
        { email: tenant.email ?? undefined, metadata: { tenant_id: tenant.id } },
        { idempotencyKey: `vigil-customer-${tenant.id}` },
      );
    } catch (error) {
      throw this.providerError(error, false);
    }
    const now = this.now().toISOString();
    const { db } = this.deps;
    await db
      .insertInto('billing_accounts')
      .values({
        tenant_id: tenant.id,
        customer_id: customer.id,
        subscription_id: null,
        payment_failed_at: null,
        payment_failed_created: null,
        payment_failure: null,
        last_paid_created: null,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('tenant_id').doNothing())
      .execute();
    await db.updateTable('billing_accounts').set({ customer_id: customer.id }).where('tenant_id', '=', tenant.id).where('customer_id', 'is', null).execute();
    const account = await this.state.account(db, tenant.id);
    return account?.customer_id ?? customer.id;
  }

  async portal(tenant: Tenant, returnUrl: string): Promise<{ portal_url: string }> {
    const provider = this.client();
    const account = await this.state.account(this.deps.db, tenant.id);
    if (!account?.customer_id) throw new BillingError(409, 'NO_PAYMENT_CUSTOMER', 'The tenant has no billing account yet; start a checkout first');
    try {
      const session = await provider.billingPortal.sessions.create({ customer: account.customer_id, return_url: returnUrl });
      if (typeof session.url !== 'string' || !session.url) throw new BillingError(502, 'PAYMENT_PROVIDER_ERROR', 'The payment provider returned no portal URL');
      return { portal_url: session.url };
    } catch (error) {
      throw this.providerError(error, false);
    }
  }

  /** From the store only (webhooks keep it current); never a provider call. */
  async status(tenant: Tenant): Promise<BillingStatus> {
    this.client();
    const { db } = this.deps;
    const account = await this.state.account(db, tenant.id);
    const sub = await this.state.subscription(db, account?.subscription_id);
    const failure = account?.payment_failure ? { failed_at: account.payment_failed_at, ...(JSON.parse(account.payment_failure) as PaymentFailure) } : null;
    if (!sub) {
      const usage = await this.deps.usage.view(tenant.id, tenant.plan);
      return {
        plan: tenant.plan,
        subscription_status: 'active',
        current_period_end: usage.period_end,
        cancel_at_period_end: false,
        payment_customer_id: account?.customer_id ?? null,
        // A subscription the web application linked (sync-tenant) before any event about it arrived.
        payment_subscription_id: account?.subscription_id ?? null,
        payment_failed: failure,
      };
    }
    return {
      plan: tenant.plan,
      subscription_status: shownStatus(sub),
      current_period_end: sub.current_period_end ?? (await this.deps.usage.view(tenant.id, tenant.plan)).period_end,
      cancel_at_period_end: Number(sub.cancel_at_period_end) === 1,
      payment_customer_id: account?.customer_id ?? sub.customer_id,
      payment_subscription_id: sub.id,
      payment_failed: failure,
    };
  }

  /**
   * Verifies the signature header over the raw body with the SDK's constructEvent and applies the future
   * rule to the timestamp the SDK verified (see webhook.ts); 400 for any failure.
   */
  verify(raw: Buffer, header: string | undefined): ProviderEvent {
    const secret = this.deps.settings.webhookSecret;
    if (!secret || !this.provider) throw new BillingError(503, 'PAYMENT_NOT_CONFIGURED', 'Billing is not configured on this server');
    if (!header) throw new BillingError(400, 'INVALID_SIGNATURE', 'Missing Provider-Signature header');
    try {
      return verifyWebhook(this.provider, raw, header, secret, SIGNATURE_TOLERANCE_SECONDS, this.now().getTime());
    } catch (error) {
      if (error instanceof WebhookRefusal) throw new BillingError(400, error.code, error.message);
      throw error;
    }
  }

  /**
   * Applies an event at most once: the event id is inserted into billing_events in the same transaction
   * that applies it, so a duplicate (even a concurrent one) finds the id taken and changes nothing. An
   * event whose object the handler cannot use is recorded as ignored (the provider's retries are
   * duplicates) and logged with the reason.
   */
  async handle(event: ProviderEvent): Promise<WebhookResult> {
    const base = { event_id: event.id, type: event.type };
    // Own entries only: a type named after an Object.prototype member (`constructor`) is just unknown.
    const handler = Object.hasOwn(EVENT_HANDLERS, event.type) ? EVENT_HANDLERS[event.type] : undefined;
    if (!handler) {
      this.deps.logger.info({ event_id: event.id, type: event.type }, 'billing: event type not handled; ignored');
      return { ...base, outcome: 'ignored', reason: 'event type not handled' };
    }
    const ctx = this.context();
    let input: unknown;
    let prepared: unknown;
    try {
      input = handler.read(event.data.object);
      prepared = handler.prepare
        ? await handler.prepare(input, event, ctx).catch((error) => Promise.reject(error instanceof UnusableEvent ? error : this.providerError(error, false)))
        : undefined;
    } catch (error) {
      if (error instanceof UnusableEvent) return this.ignoreUnusable(event, error.reason);
      throw error;
    }
    const result = await this.deps.db.transaction().execute(async (trx) => {
      if (!(await this.record(trx, event, 'applying'))) return { outcome: 'duplicate' as const };
      const applied = await handler.apply(trx, event, ctx, input, prepared);
      await trx
        .updateTable('billing_events')
        .set({ outcome: applied.outcome, tenant_id: applied.tenantId ?? null })
        .where('id', '=', event.id)
        .execute();
      return applied;
    });
    if ('after' in result && result.after) {
      for (const effect of result.after) {
        await effect().catch((err) => this.deps.logger.error({ err, event_id: event.id }, 'billing: follow-up of an applied event failed'));
      }
    }
    const tenantId = 'tenantId' in result ? result.tenantId : undefined;
    const reason = 'reason' in result ? result.reason : undefined;
    this.deps.logger.info({ event_id: event.id, type: event.type, outcome: result.outcome, tenant_id: tenantId, reason }, 'billing: event handled');
    return { ...base, outcome: result.outcome, ...(tenantId ? { tenant_id: tenantId } : {}), ...(reason ? { reason } : {}) };
  }

  /** Inserts the event id; false when it was there already (a duplicate). */
  private async record(db: Kysely<Database>, event: ProviderEvent, outcome: string): Promise<boolean> {
    const inserted = await db
      .insertInto('billing_events')
      .values({ id: event.id, type: event.type, created: event.created, tenant_id: null, outcome, received_at: this.now().toISOString() })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** A signed event that cannot be applied: acknowledged (a retry would not help), recorded as ignored, logged. */
  private async ignoreUnusable(event: ProviderEvent, reason: string): Promise<WebhookResult> {
    const base = { event_id: event.id, type: event.type };
    if (!(await this.record(this.deps.db, event, 'ignored'))) return { ...base, outcome: 'duplicate' };
    this.deps.logger.warn({ event_id: event.id, type: event.type, reason }, 'billing: signed event cannot be applied; ignored');
    return { ...base, outcome: 'ignored', reason };
  }

  /**
   * The key of a dashboard sign-up's tenant, for the browser holding the checkout's claim token: a missing
   * or wrong token (or a session no sign-up started) is 403 and changes nothing, before anything is said
   * about the checkout; then exactly claimKey.
   */
  async claimWithToken(sessionId: string, token: string | undefined): Promise<ClaimedKey> {
    this.client();
    const row = storableText(sessionId)
      ? await this.deps.db.selectFrom('billing_checkout_claims').select('token_hash').where('session_id', '=', sessionId).executeTakeFirst()
      : undefined;
    // Hashes of equal length compared in constant time; a missing row is compared too (against a hash no token has).
    const presented = claimTokenHash(token ?? '');
    if (!constantTimeEqual(presented, row?.token_hash ?? '-'.repeat(64)) || !row || !token) {
      throw new BillingError(403, 'INVALID_CLAIM_TOKEN', 'Missing or wrong claim_token for this checkout session');
    }
    return this.claimKey(sessionId);
  }

  /** The key of a tenant created by a checkout, handed over once; later calls get 410. */
  async claimKey(sessionId: string): Promise<ClaimedKey> {
    this.client();
    const { db } = this.deps;
    // A session id the store cannot hold (NUL) names no checkout: not found, rather than a database error.
    const row = storableText(sessionId)
      ? await db.selectFrom('billing_checkout_keys').selectAll().where('session_id', '=', sessionId).executeTakeFirst()
      : undefined;
    if (!row)
      throw new BillingError(404, 'NOT_FOUND', `No completed checkout session ${sessionId} yet; the webhook may still be on its way (retry in a few seconds)`);
    if (row.claimed_at) throw new BillingError(410, 'KEY_ALREADY_RETRIEVED', 'The key of this checkout was already retrieved; rotate it to get a new one');
    if (!row.sealed_key) throw new BillingError(409, 'KEY_NOT_ISSUED', `The checkout was linked to the existing tenant ${row.tenant_id}; its key is unchanged`);
    const claimed = await db
      .updateTable('billing_checkout_keys')
      .set({ claimed_at: this.now().toISOString(), sealed_key: null })
      .where('session_id', '=', sessionId)
      .where('claimed_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0)
      throw new BillingError(410, 'KEY_ALREADY_RETRIEVED', 'The key of this checkout was already retrieved; rotate it to get a new one');
    const tenant = await this.deps.tenants.get(row.tenant_id);
    if (!tenant) throw new BillingError(404, 'NOT_FOUND', 'The tenant of this checkout no longer exists');
    return { tenant_id: tenant.id, api_key: this.deps.secretBox.open(row.sealed_key), plan: tenant.plan, status: tenant.status };
  }

  private context(): HandlerContext {
    return {
      state: this.state,
      tenants: this.deps.tenants,
      usage: this.deps.usage,
      secretBox: this.deps.secretBox,
      bus: this.deps.bus,
      notifyPaymentFailed: this.deps.notifyPaymentFailed,
      billingUrl: `${this.deps.settings.appUrl.replace(/\/+$/, '')}/billing`,
      provider: this.client(),
      logger: this.deps.logger,
      now: this.now,
    };
  }

  /** Provider failures: a rejected price is the caller's 400; anything else is 502. */
  private providerError(error: unknown, priceRequest: boolean): Error {
    if (error instanceof BillingError) return error;
    const e = error as { type?: string; code?: string; param?: string; message?: string };
    if (priceRequest && e.type === 'StripeInvalidRequestError' && (e.param ?? '').includes('price')) {
      return new BillingError(400, 'INVALID_PRICE_ID', 'The payment provider does not know this price');
    }
    this.deps.logger.error({ err: { type: e.type, code: e.code, message: e.message } }, 'billing: payment provider request failed');
    return new BillingError(502, 'PAYMENT_PROVIDER_ERROR', 'The payment provider could not be reached or refused the request; try again');
  }
}
