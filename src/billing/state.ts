import type { Kysely } from 'kysely';
import type { Plan } from '../domain/plans.js';
import type { Database } from '../store/schema.js';
import type { TenantRepository } from '../store/tenants.js';
import type { PriceTable } from './provider.js';
import { ENTITLED_STATUSES, type SubscriptionSnapshot } from './snapshot.js';

export type Db = Kysely<Database>;
export type AccountRow = Database['billing_accounts'];
export type SubscriptionRow = Database['billing_subscriptions'];

/**
 * Billing state in the store, always used inside the transaction that records the event being applied.
 * Writes to one tenant's billing rows are serialised by `lockAccount` (an UPDATE of the account row, which
 * holds a row lock on PostgreSQL until commit; SQLite transactions are serialised anyway).
 */
export class BillingState {
  constructor(
    private readonly tenants: TenantRepository,
    private readonly prices: PriceTable,
    private readonly now: () => Date,
  ) {}

  async accountByCustomer(db: Db, customerId: string | undefined): Promise<AccountRow | undefined> {
    if (!customerId) return undefined;
    return db.selectFrom('billing_accounts').selectAll().where('customer_id', '=', customerId).executeTakeFirst();
  }

  async account(db: Db, tenantId: string): Promise<AccountRow | undefined> {
    return db.selectFrom('billing_accounts').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  }

  async subscription(db: Db, id: string | null | undefined): Promise<SubscriptionRow | undefined> {
    if (!id) return undefined;
    return db.selectFrom('billing_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Creates the tenant's account row if needed and locks it for the rest of the transaction. */
  async lockAccount(db: Db, tenantId: string, customerId?: string): Promise<AccountRow> {
    const now = this.now().toISOString();
    await db
      .insertInto('billing_accounts')
      .values({ tenant_id: tenantId, customer_id: null, subscription_id: null, payment_failed_at: null, payment_failed_created: null, payment_failure: null, last_paid_created: null, updated_at: now })
      .onConflict((oc) => oc.column('tenant_id').doNothing())
      .execute();
    await db.updateTable('billing_accounts').set({ updated_at: now }).where('tenant_id', '=', tenantId).execute();
    if (customerId) {
      await db.updateTable('billing_accounts').set({ customer_id: customerId }).where('tenant_id', '=', tenantId).where('customer_id', 'is', null).execute();
    }
    return (await this.account(db, tenantId))!;
  }

  /**
   * Applies a subscription's state as of `created` (the event's creation time). Older than the last
   * change applied to this subscription: nothing changes ('stale'). A canceled subscription is final:
   * nothing brings it back. Returns whether the state was applied.
   */
  async applySubscription(db: Db, snap: SubscriptionSnapshot, created: number, eventId: string): Promise<boolean> {
    const now = this.now().toISOString();
    const plan = this.prices.planFor(snap.priceId) ?? null;
    const values = {
      customer_id: snap.customerId ?? null,
      status: snap.status,
      price_id: snap.priceId ?? null,
      current_period_start: snap.periodStart,
      current_period_end: snap.periodEnd,
      cancel_at_period_end: snap.cancelAtPeriodEnd ? 1 : 0,
      last_event_created: created,
      last_event_id: eventId,
      updated_at: now,
    };
    const inserted = await db
      .insertInto('billing_subscriptions')
      .values({ id: snap.id, ...values, plan, revoked_created: null })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return true;
    // One conditional UPDATE: atomic against a concurrent event for the same subscription.
    let update = db
      .updateTable('billing_subscriptions')
      .set((eb) => ({ ...values, plan: plan ?? eb.ref('plan') }))
      .where('id', '=', snap.id)
      .where('last_event_created', '<=', created);
    if (snap.status !== 'canceled') update = update.where('status', '!=', 'canceled');
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  entitled(sub: SubscriptionRow | undefined): boolean {
    return sub !== undefined && ENTITLED_STATUSES.includes(sub.status) && sub.revoked_created === null;
  }

  /**
   * Makes `subscriptionId` the tenant's current subscription when it is entitled to a plan and the current
   * one is not (or there is none), or when it is already the current one.
   */
  async adopt(db: Db, tenantId: string, subscriptionId: string, force = false): Promise<void> {
    const account = await this.account(db, tenantId);
    if (!account) return;
    if (account.subscription_id === subscriptionId) return;
    const candidate = await this.subscription(db, subscriptionId);
    const current = await this.subscription(db, account.subscription_id);
    if (force || !account.subscription_id || (!this.entitled(current) && (this.entitled(candidate) || !current))) {
      await db.updateTable('billing_accounts').set({ subscription_id: subscriptionId }).where('tenant_id', '=', tenantId).execute();
    }
  }

  /** The tenant's plan from its current subscription: the price's plan while entitled, free otherwise. */
  async recomputePlan(db: Db, tenantId: string): Promise<Plan | undefined> {
    const tenant = await db.selectFrom('tenants').select(['plan']).where('id', '=', tenantId).executeTakeFirst();
    if (!tenant) return undefined;
    const account = await this.account(db, tenantId);
    const sub = await this.subscription(db, account?.subscription_id);
    if (!sub) return tenant.plan;
    // An entitled subscription on a price Vigil does not know keeps the plan the tenant has.
    const plan: Plan = this.entitled(sub) ? (sub.plan ?? tenant.plan) : 'free';
    if (plan !== tenant.plan) await this.tenants.setPlanWithin(db, tenantId, plan);
    return plan;
  }
}
