import type { PaymentFailedEvent } from '../notifications/events.js';
import type { Logger } from 'pino';
import { TenantExistsError } from '../store/tenants.js';
import type { Provider } from './provider.js';
import { idOf, invoicePeriod, invoiceSubscriptionId, isoFromUnix, subscriptionSnapshot, type Obj, type SubscriptionSnapshot } from './snapshot.js';
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
  /** Side effects outside the store, run once the transaction has committed. */
  after?: Array<() => Promise<void>>;
}

/**
 * One handler per event type. `prepare` runs before the transaction (provider reads, so no lock is held
 * across a network call); `apply` runs inside the transaction that records the event id.
 */
export interface EventHandler<P = unknown> {
  prepare?(event: ProviderEvent, ctx: HandlerContext): Promise<P>;
  apply(db: Db, event: ProviderEvent, ctx: HandlerContext, prepared: P): Promise<Applied>;
}

/** Inside a transaction every read goes through `db` (on SQLite another connection would wait for this one). */
async function tenantExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('tenants').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The tenant an object belongs to: by its provider customer, else by tenant id metadata. */
async function tenantFor(db: Db, ctx: HandlerContext, customerId: string | undefined, metadataTenantId?: string): Promise<string | undefined> {
  const account = await ctx.state.accountByCustomer(db, customerId);
  if (account) return account.tenant_id;
  if (metadataTenantId && (await tenantExists(db, metadataTenantId))) {
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
  const applied = await ctx.state.applySubscription(db, snap, event.created, event.id);
  if (!tenantId) return { outcome: applied ? 'applied' : 'stale' };
  if (!applied) return { outcome: 'stale', tenantId };
  await ctx.state.adopt(db, tenantId, snap.id);
  await ctx.state.recomputePlan(db, tenantId);
  return { outcome: 'applied', tenantId };
}

const subscriptionChanged: EventHandler = {
  apply: (db, event, ctx) => applySubscriptionEvent(db, event, ctx, subscriptionSnapshot(event.data.object)),
};

const subscriptionDeleted: EventHandler = {
  apply: (db, event, ctx) => applySubscriptionEvent(db, event, ctx, { ...subscriptionSnapshot(event.data.object), status: 'canceled' }),
};

/**
 * checkout.session.completed: links the session's customer and subscription to the tenant named by
 * client_reference_id / metadata.tenant_id, or creates a tenant (the key is sealed until the web
 * application fetches it once). The session carries no price, so the subscription is read from the provider.
 */
const checkoutCompleted: EventHandler<Obj | undefined> = {
  async prepare(event, ctx) {
    const session = event.data.object;
    const subscriptionId = idOf(session.subscription);
    if (session.mode !== 'subscription' || !subscriptionId) return undefined;
    if (typeof session.subscription === 'object' && session.subscription.items) return session.subscription as Obj;
    return (await ctx.provider.subscriptions.retrieve(subscriptionId)) as unknown as Obj;
  },
  async apply(db, event, ctx, subscription) {
    const session = event.data.object;
    if (session.mode !== 'subscription' || !subscription) {
      ctx.logger.info({ event_id: event.id, mode: session.mode }, 'billing: checkout session without a subscription ignored');
      return { outcome: 'ignored' };
    }
    const customerId = idOf(session.customer);
    const reference: string | undefined = session.client_reference_id ?? session.metadata?.tenant_id ?? undefined;
    const byCustomer = await ctx.state.accountByCustomer(db, customerId);
    let tenantId = byCustomer?.tenant_id;
    let issuedKey: string | undefined;
    if (!tenantId && reference && (await tenantExists(db, reference))) tenantId = reference;
    if (!tenantId) {
      const email: string | null = session.customer_details?.email ?? session.customer_email ?? null;
      try {
        const issued = await ctx.tenants.createWithin(db, { id: reference, email, plan: 'free' });
        tenantId = issued.tenant.id;
        issuedKey = issued.apiKey;
      } catch (error) {
        if (error instanceof TenantExistsError) throw new Error(`tenant ${reference} appeared concurrently; retry`);
        throw error;
      }
    }
    const account = await ctx.state.lockAccount(db, tenantId, customerId);
    const previous = account.subscription_id ? await ctx.state.subscription(db, account.subscription_id) : undefined;
    const snap = subscriptionSnapshot(subscription);
    await ctx.state.applySubscription(db, snap, event.created, event.id);
    await ctx.state.adopt(db, tenantId, snap.id, true);
    await ctx.state.recomputePlan(db, tenantId);
    await db
      .insertInto('billing_checkout_keys')
      .values({ session_id: String(session.id), tenant_id: tenantId, sealed_key: issuedKey ? ctx.secretBox.seal(issuedKey) : null, created_at: ctx.now().toISOString(), claimed_at: null })
      .onConflict((oc) => oc.column('session_id').doNothing())
      .execute();

    const after: Array<() => Promise<void>> = [];
    // A checkout for another plan replaces the subscription the tenant had: cancel the old one (prorated).
    if (previous && previous.id !== snap.id && ctx.state.entitled(previous)) {
      const oldId = previous.id;
      after.push(async () => {
        await ctx.provider.subscriptions.cancel(oldId, { prorate: true });
        ctx.logger.info({ tenant_id: tenantId, subscription: oldId }, 'billing: replaced subscription canceled');
      });
    }
    return { outcome: 'applied', tenantId, after };
  },
};

/** invoice.paid: a new usage period (quotas reset, quota_reset alert) from the invoice's service period. */
const invoicePaid: EventHandler = {
  async apply(db, event, ctx) {
    const invoice = event.data.object;
    const subscriptionId = invoiceSubscriptionId(invoice);
    const tenantId = await tenantFor(db, ctx, idOf(invoice.customer), invoice.parent?.subscription_details?.metadata?.tenant_id);
    if (!tenantId) return { outcome: 'ignored' };
    const account = await ctx.state.lockAccount(db, tenantId, idOf(invoice.customer));
    if (account.last_paid_created !== null && Number(account.last_paid_created) > event.created) {
      return { outcome: 'stale', tenantId };
    }
    await db
      .updateTable('billing_accounts')
      .set({ last_paid_created: event.created })
      .where('tenant_id', '=', tenantId)
      .execute();
    // A payment at or after the last failure settles it.
    if (account.payment_failed_created !== null && Number(account.payment_failed_created) <= event.created) {
      await db.updateTable('billing_accounts').set({ payment_failed_at: null, payment_failed_created: null, payment_failure: null }).where('tenant_id', '=', tenantId).execute();
    }
    const sub = await ctx.state.subscription(db, subscriptionId);
    const period = invoicePeriod(invoice) ?? (sub?.current_period_start && sub.current_period_end ? { start: sub.current_period_start, end: sub.current_period_end } : undefined);
    if (sub) {
      // A payment after a full refund restores the plan.
      if (sub.revoked_created !== null && Number(sub.revoked_created) < event.created) {
        await db.updateTable('billing_subscriptions').set({ revoked_created: null }).where('id', '=', sub.id).execute();
      }
      if (period && (!sub.current_period_end || period.end > sub.current_period_end)) {
        await db.updateTable('billing_subscriptions').set({ current_period_start: period.start, current_period_end: period.end }).where('id', '=', sub.id).execute();
      }
      await ctx.state.adopt(db, tenantId, sub.id);
    }
    const plan = (await ctx.state.recomputePlan(db, tenantId)) ?? 'free';
    const now = ctx.now().toISOString();
    if (period && period.end > now) {
      const latest = await db.selectFrom('usage_periods').select('period_start').where('tenant_id', '=', tenantId).orderBy('period_start', 'desc').limit(1).executeTakeFirst();
      // Never in the future (the period containing now must exist), never before the latest period.
      const start = period.start < now ? period.start : now;
      if (!latest || start >= latest.period_start) await ctx.usage.startPeriod(tenantId, plan, start, period.end, db);
    }
    return { outcome: 'applied', tenantId };
  },
};

/** invoice.payment_failed: recorded on the account and pushed to the tenant's live sockets; the plan is unchanged. */
const invoicePaymentFailed: EventHandler = {
  async apply(db, event, ctx) {
    const invoice = event.data.object;
    const tenantId = await tenantFor(db, ctx, idOf(invoice.customer), invoice.parent?.subscription_details?.metadata?.tenant_id);
    if (!tenantId) return { outcome: 'ignored' };
    const account = await ctx.state.lockAccount(db, tenantId, idOf(invoice.customer));
    // Paid since (a retry succeeded, delivered first): the failure is old news.
    if (account.last_paid_created !== null && Number(account.last_paid_created) > event.created) return { outcome: 'stale', tenantId };
    const failure = {
      invoice_id: idOf(invoice.id) ?? null,
      amount_due: typeof invoice.amount_due === 'number' ? invoice.amount_due : null,
      currency: typeof invoice.currency === 'string' ? invoice.currency : null,
      attempt_count: typeof invoice.attempt_count === 'number' ? invoice.attempt_count : null,
      next_payment_attempt: isoFromUnix(invoice.next_payment_attempt),
      hosted_invoice_url: typeof invoice.hosted_invoice_url === 'string' ? invoice.hosted_invoice_url : null,
    };
    const failedAt = new Date(event.created * 1000).toISOString();
    await db
      .updateTable('billing_accounts')
      .set({ payment_failed_at: failedAt, payment_failed_created: event.created, payment_failure: JSON.stringify(failure) })
      .where('tenant_id', '=', tenantId)
      .execute();
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
          ? [() => notify({ event: 'payment_failed', timestamp: payload.timestamp, tenant_id: tenantId, message: payload.message, ...failure, billing_url: ctx.billingUrl })]
          : []),
      ],
    };
  },
};

/** charge.refunded: a full refund takes the tenant to free (a later payment restores the plan). */
const chargeRefunded: EventHandler = {
  async apply(db, event, ctx) {
    const charge = event.data.object;
    const full = charge.refunded === true || (typeof charge.amount === 'number' && typeof charge.amount_refunded === 'number' && charge.amount_refunded >= charge.amount);
    const tenantId = await tenantFor(db, ctx, idOf(charge.customer), charge.metadata?.tenant_id);
    if (!tenantId) return { outcome: 'ignored' };
    if (!full) return { outcome: 'ignored', tenantId };
    const account = await ctx.state.lockAccount(db, tenantId, idOf(charge.customer));
    if (account.last_paid_created !== null && Number(account.last_paid_created) > event.created) return { outcome: 'stale', tenantId };
    const sub = await ctx.state.subscription(db, account.subscription_id);
    if (sub) {
      await db.updateTable('billing_subscriptions').set({ revoked_created: event.created }).where('id', '=', sub.id).execute();
      await ctx.state.recomputePlan(db, tenantId);
    } else {
      await ctx.tenants.setPlanWithin(db, tenantId, 'free');
    }
    return { outcome: 'applied', tenantId };
  },
};

/** The events Vigil acts on. Anything else is answered 200 and ignored (logged). */
export const EVENT_HANDLERS: Record<string, EventHandler<any>> = {
  'checkout.session.completed': checkoutCompleted,
  'customer.subscription.created': subscriptionChanged,
  'customer.subscription.updated': subscriptionChanged,
  'customer.subscription.deleted': subscriptionDeleted,
  'invoice.paid': invoicePaid,
  'invoice.payment_failed': invoicePaymentFailed,
  'charge.refunded': chargeRefunded,
};
