import type { PaymentFailedEvent } from '../notifications/events.js';
import type { Logger } from 'pino';
import { TenantExistsError } from '../store/tenants.js';
import type { Provider } from './provider.js';
import {
  UnusableEvent,
  idOf,
  integerOrNull,
  invoicePeriod,
  invoiceSubscriptionId,
  invoiceTenantReference,
  isoFromUnix,
  requiredId,
  subscriptionSnapshot,
  tenantReference,
  textOrNull,
  type Obj,
} from './snapshot.js';
import {
  STALE,
  invoicePaidAccount,
  invoicePaidSubscription,
  isEntitled,
  isFullRefund,
  paidPeriod,
  paymentFailedAccount,
  refundedSubscription,
  type PaymentFailure,
  type SubscriptionSnapshot,
} from '../domain/billing-rules.js';
import type { BillingState, Db } from './state.js';
import type { TenantRepository } from '../store/tenants.js';
import type { UsageRepository } from '../store/usage.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { EventBus } from '../events/bus.js';

/** What the handlers may use. */
export interface HandlerContext {
  state: BillingState;
  tenants: TenantRepository;
  usage: UsageRepository;
  secretBox: SecretBox;
  bus: EventBus;
  provider: Provider;
  logger: Logger;
  now: () => Date;
  notifyPaymentFailed?: (event: PaymentFailedEvent) => Promise<void>;
  /** Where a tenant manages billing in the web application (links in notifications). */
  billingUrl: string;
}

export interface ProviderEvent {
  id: string;
  type: string;
  created: number;
  data: { object: Obj };
}

export type Outcome = 'applied' | 'stale' | 'ignored';

export interface Applied {
  outcome: Outcome;
  tenantId?: string;
  /** Why an event was ignored (answered to the provider and logged). */
  reason?: string;
  /** Side effects outside the store, run once the transaction has committed. */
  after?: Array<() => Promise<void>>;
}

/**
 * One handler per event type. `read` checks the event's object and takes what the handler needs (throws
 * UnusableEvent when it cannot be applied); `prepare` runs before the transaction (provider reads, so no
 * lock is held across a network call); `apply` runs inside the transaction that records the event id.
 */
export interface EventHandler<I = unknown, P = unknown> {
  read(object: Obj): I;
  prepare?(input: I, event: ProviderEvent, ctx: HandlerContext): Promise<P>;
  apply(db: Db, event: ProviderEvent, ctx: HandlerContext, input: I, prepared: P): Promise<Applied>;
}

/** Inside a transaction every read goes through `db` (on SQLite another connection would wait for this one). */
async function tenantExists(db: Db, ctx: HandlerContext, id: string): Promise<boolean> {
  return (await ctx.tenants.get(id, db)) !== undefined;
}

/** The tenant an object belongs to: by its provider customer, else by tenant id metadata. */
async function tenantFor(db: Db, ctx: HandlerContext, customerId: string, metadataTenantId?: string): Promise<string | undefined> {
  const account = await ctx.state.accountByCustomer(db, customerId);
  if (account) return account.tenant_id;
  if (metadataTenantId && (await tenantExists(db, ctx, metadataTenantId))) {
    const existing = await ctx.state.account(db, metadataTenantId);
    if (!existing?.customer_id || existing.customer_id === customerId) return metadataTenantId;
  }
  return undefined;
}

/** Subscription created/updated/deleted: the subscription's state, then the tenant's plan from it. */
async function applySubscriptionEvent(db: Db, event: ProviderEvent, ctx: HandlerContext, snap: SubscriptionSnapshot): Promise<Applied> {
  const tenantId = await tenantFor(db, ctx, snap.customerId, snap.metadataTenantId);
  if (tenantId) await ctx.state.lockAccount(db, tenantId, snap.customerId);
  // Stored even when no tenant is linked yet (the checkout event may arrive later and adopts it).
  const applied = await ctx.state.applySubscription(db, snap, event);
  if (!tenantId)
    return { outcome: applied ? 'applied' : 'stale', reason: `no tenant is linked to customer ${snap.customerId} yet; the subscription is kept for it` };
  if (!applied) return { outcome: 'stale', tenantId };
  await ctx.state.adopt(db, tenantId, snap.id);
  await ctx.state.recomputePlan(db, tenantId, event);
  return { outcome: 'applied', tenantId };
}

const subscriptionChanged: EventHandler<SubscriptionSnapshot> = {
  read: (sub) => subscriptionSnapshot(sub),
  apply: (db, event, ctx, snap) => applySubscriptionEvent(db, event, ctx, snap),
};

const subscriptionDeleted: EventHandler<SubscriptionSnapshot> = {
  read: (sub) => subscriptionSnapshot(sub, 'canceled'),
  apply: (db, event, ctx, snap) => applySubscriptionEvent(db, event, ctx, snap),
};

interface CheckoutInput {
  sessionId: string;
  mode: string;
  /** What a subscription checkout links; absent for other modes (ignored). */
  link?: { subscriptionId: string; customerId: string; reference: string | undefined; email: string | null };
}

/** A provider 404 for an object the event names: retrying will not make it exist. */
function isMissingAtProvider(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

/**
 * checkout.session.completed: links the session's customer and subscription to the tenant named by
 * client_reference_id / metadata.tenant_id, or creates a tenant (the key is sealed until the web
 * application fetches it once). The session carries no price, so the subscription is read from the provider.
 */
const checkoutCompleted: EventHandler<CheckoutInput, SubscriptionSnapshot | undefined> = {
  read(session) {
    const sessionId = requiredId(session.id, 'checkout session id');
    const mode = textOrNull(session.mode, 32) ?? 'unknown';
    if (mode !== 'subscription') return { sessionId, mode };
    const metadata = session.metadata && typeof session.metadata === 'object' ? session.metadata : {};
    return {
      sessionId,
      mode,
      link: {
        subscriptionId: requiredId(session.subscription, 'checkout session subscription'),
        customerId: requiredId(session.customer, 'checkout session customer'),
        reference:
          tenantReference(session.client_reference_id, 'client_reference_id') ?? tenantReference(metadata.tenant_id, 'checkout session metadata.tenant_id'),
        email: textOrNull(session.customer_details?.email, 320) ?? textOrNull(session.customer_email, 320),
      },
    };
  },
  async prepare(input, event, ctx) {
    if (!input.link) return undefined;
    const expanded = event.data.object.subscription;
    if (expanded && typeof expanded === 'object' && expanded.items) return subscriptionSnapshot(expanded);
    let subscription: Obj;
    try {
      subscription = (await ctx.provider.subscriptions.retrieve(input.link.subscriptionId)) as unknown as Obj;
    } catch (error) {
      if (isMissingAtProvider(error)) throw new UnusableEvent(`subscription ${input.link.subscriptionId} does not exist at the payment provider`);
      throw error;
    }
    return subscriptionSnapshot(subscription);
  },
  async apply(db, event, ctx, input, snap) {
    if (!input.link || !snap) return { outcome: 'ignored', reason: `a ${input.mode}-mode checkout session has no subscription to link` };
    const { customerId, reference, email } = input.link;
    const byCustomer = await ctx.state.accountByCustomer(db, customerId);
    let tenantId = byCustomer?.tenant_id;
    let issuedKey: string | undefined;
    if (!tenantId && reference && (await tenantExists(db, ctx, reference))) tenantId = reference;
    if (!tenantId) {
      try {
        const issued = await ctx.tenants.create({ id: reference, email, plan: 'free' }, db);
        tenantId = issued.tenant.id;
        issuedKey = issued.apiKey;
      } catch (error) {
        if (error instanceof TenantExistsError) throw new Error(`tenant ${reference} appeared concurrently; retry`);
        throw error;
      }
    }
    const account = await ctx.state.lockAccount(db, tenantId, customerId);
    const previous = account.subscription_id ? await ctx.state.subscription(db, account.subscription_id) : undefined;
    await ctx.state.applySubscription(db, snap, event);
    await ctx.state.adopt(db, tenantId, snap.id, true);
    await ctx.state.recomputePlan(db, tenantId, event);
    await db
      .insertInto('billing_checkout_keys')
      .values({
        session_id: input.sessionId,
        tenant_id: tenantId,
        sealed_key: issuedKey ? ctx.secretBox.seal(issuedKey) : null,
        created_at: ctx.now().toISOString(),
        claimed_at: null,
      })
      .onConflict((oc) => oc.column('session_id').doNothing())
      .execute();

    const after: Array<() => Promise<void>> = [];
    // A checkout for another plan replaces the subscription the tenant had: cancel the old one (prorated).
    if (previous && previous.id !== snap.id && isEntitled(previous)) {
      const oldId = previous.id;
      after.push(async () => {
        await ctx.provider.subscriptions.cancel(oldId, { prorate: true });
        ctx.logger.info({ tenant_id: tenantId, subscription: oldId }, 'billing: replaced subscription canceled');
      });
    }
    return { outcome: 'applied', tenantId, after };
  },
};

interface PaymentObject {
  customerId: string;
  reference: string | undefined;
}

/** Invoices and charges: whose they are. */
function readInvoice(invoice: Obj): PaymentObject {
  return { customerId: requiredId(invoice.customer, 'invoice customer'), reference: invoiceTenantReference(invoice) };
}

const noTenant = (customerId: string): Applied => ({ outcome: 'ignored', reason: `no tenant is linked to customer ${customerId}` });

/** invoice.paid: a new usage period (quotas reset, quota_reset alert) from the invoice's service period. */
const invoicePaid: EventHandler<PaymentObject> = {
  read: readInvoice,
  async apply(db, event, ctx, { customerId, reference }) {
    const invoice = event.data.object;
    const subscriptionId = invoiceSubscriptionId(invoice);
    const tenantId = await tenantFor(db, ctx, customerId, reference);
    if (!tenantId) return noTenant(customerId);
    const account = await ctx.state.lockAccount(db, tenantId, customerId);
    const accountPatch = invoicePaidAccount(account, event.created);
    if (accountPatch === STALE) return { outcome: 'stale', tenantId };
    await ctx.state.patchAccount(db, tenantId, accountPatch);
    const sub = await ctx.state.subscription(db, subscriptionId);
    const period = paidPeriod(invoicePeriod(invoice), sub);
    if (sub) {
      await ctx.state.patchSubscription(db, sub.id, invoicePaidSubscription(sub, period, event.created));
      await ctx.state.adopt(db, tenantId, sub.id);
    }
    const plan = (await ctx.state.recomputePlan(db, tenantId, event)) ?? 'free';
    if (period) await ctx.usage.renewPeriod(tenantId, plan, period, db);
    return { outcome: 'applied', tenantId };
  },
};

/** invoice.payment_failed: recorded on the account and pushed to the tenant's live sockets; the plan is unchanged. */
const invoicePaymentFailed: EventHandler<PaymentObject> = {
  read: readInvoice,
  async apply(db, event, ctx, { customerId, reference }) {
    const invoice = event.data.object;
    const tenantId = await tenantFor(db, ctx, customerId, reference);
    if (!tenantId) return noTenant(customerId);
    const account = await ctx.state.lockAccount(db, tenantId, customerId);
    const failure: PaymentFailure = {
      invoice_id: idOf(invoice.id) ?? null,
      amount_due: integerOrNull(invoice.amount_due),
      currency: textOrNull(invoice.currency, 16),
      attempt_count: integerOrNull(invoice.attempt_count),
      next_payment_attempt: isoFromUnix(invoice.next_payment_attempt),
      hosted_invoice_url: textOrNull(invoice.hosted_invoice_url),
    };
    // Paid since (a retry succeeded, delivered first): the failure is old news.
    const patch = paymentFailedAccount(account, event.created, failure);
    if (patch === STALE) return { outcome: 'stale', tenantId };
    await ctx.state.patchAccount(db, tenantId, patch);
    const failedAt = patch.payment_failed_at;
    const payload = {
      type: 'payment_failed',
      tenant_id: tenantId,
      message: 'A payment for your subscription failed; update the payment method in the billing portal. Your plan is unchanged while the payment is retried.',
      ...failure,
      failed_at: failedAt,
      timestamp: ctx.now().toISOString(),
    };
    const notify = ctx.notifyPaymentFailed;
    return {
      outcome: 'applied',
      tenantId,
      after: [
        () => ctx.bus.publish('usage', { tenant_id: tenantId, payload }),
        ...(notify
          ? [
              () =>
                notify({
                  event: 'payment_failed',
                  timestamp: payload.timestamp,
                  tenant_id: tenantId,
                  message: payload.message,
                  ...failure,
                  billing_url: ctx.billingUrl,
                }),
            ]
          : []),
      ],
    };
  },
};

/** charge.refunded: a full refund takes the tenant to free (a later payment restores the plan). */
const chargeRefunded: EventHandler<PaymentObject> = {
  read: (charge) => ({
    customerId: requiredId(charge.customer, 'charge customer'),
    reference: tenantReference(charge.metadata && typeof charge.metadata === 'object' ? charge.metadata.tenant_id : undefined, 'charge metadata.tenant_id'),
  }),
  async apply(db, event, ctx, { customerId, reference }) {
    const charge = event.data.object;
    const tenantId = await tenantFor(db, ctx, customerId, reference);
    if (!tenantId) return noTenant(customerId);
    if (!isFullRefund(charge)) return { outcome: 'ignored', tenantId, reason: 'a partial refund changes no plan' };
    const account = await ctx.state.lockAccount(db, tenantId, customerId);
    const revoked = refundedSubscription(account, event.created);
    if (revoked === STALE) return { outcome: 'stale', tenantId };
    const sub = await ctx.state.subscription(db, account.subscription_id);
    if (sub) {
      await ctx.state.patchSubscription(db, sub.id, revoked);
      await ctx.state.recomputePlan(db, tenantId, event);
    } else {
      // No subscription to revoke: the refund takes the tenant to free directly.
      const tenant = await ctx.tenants.get(tenantId, db);
      if (tenant) await ctx.state.setPlan(db, tenantId, tenant.plan, 'free', event);
    }
    return { outcome: 'applied', tenantId };
  },
};

/** The events Vigil acts on. Anything else is answered 200 and ignored (logged). */
export const EVENT_HANDLERS: Record<string, EventHandler<any, any>> = {
  'checkout.session.completed': checkoutCompleted,
  'customer.subscription.created': subscriptionChanged,
  'customer.subscription.updated': subscriptionChanged,
  'customer.subscription.deleted': subscriptionDeleted,
  'invoice.paid': invoicePaid,
  'invoice.payment_failed': invoicePaymentFailed,
  'charge.refunded': chargeRefunded,
};
