import type { Kysely } from 'kysely';
import {
  STALE,
  adoptsSubscription,
  planFromSubscription,
  subscriptionChange,
  type AccountPatch,
  type PriceTable,
  type ProviderEventStamp,
  type SubscriptionPatch,
  type SubscriptionSnapshot,
} from '../domain/billing-rules.js';
import type { Plan } from '../domain/plans.js';
import type { AuditLogRepository } from '../store/audit-log.js';
import type { Database } from '../store/schema.js';
import type { TenantRepository } from '../store/tenants.js';

export type Db = Kysely<Database>;
export type AccountRow = Database['billing_accounts'];
export type SubscriptionRow = Database['billing_subscriptions'];

/** Who changes a plan from a webhook event, in the tenant's audit log (docs/sso.md#audit-log). */
export const PROVIDER_ACTOR = { type: 'system', name: 'payment provider webhook' } as const;

/** The event that caused a change, as the audit entry names it. */
export interface EventCause {
  id: string;
  type: string;
}

/** Attempts at a subscription change that a concurrent event for the same subscription keeps overtaking. */
const SUBSCRIPTION_CHANGE_ATTEMPTS = 5;

/**
 * Billing state in the store, always used inside the transaction that records the event being applied.
 * The rules (domain/billing-rules.ts) decide; this class reads the rows they need and writes their patches.
 * Writes to one tenant's billing rows are serialised by `lockAccount` (an UPDATE of the account row, which
 * holds a row lock on PostgreSQL until commit; SQLite transactions are serialised anyway). The tenant's plan
 * is written through the tenant repository.
 */
export class BillingState {
  constructor(
    private readonly tenants: TenantRepository,
    private readonly prices: PriceTable,
    private readonly now: () => Date,
    private readonly audit: AuditLogRepository,
  ) {}

  /**
   * Sets the tenant's plan because of `event` and records it in the tenant's audit log (`plan.changed`:
   * from, to, the event), in the same transaction: the plan never changes without its entry.
   */
  async setPlan(db: Db, tenantId: string, from: Plan, to: Plan, event: EventCause): Promise<void> {
    if (from === to) return;
    await this.tenants.setPlan(tenantId, to, db);
    await this.audit.record(
      tenantId,
      PROVIDER_ACTOR,
      'plan.changed',
      { target: tenantId, detail: { from, to, event_id: event.id, event_type: event.type } },
      db,
    );
  }

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
      .values({
        tenant_id: tenantId,
        customer_id: null,
        subscription_id: null,
        payment_failed_at: null,
        payment_failed_created: null,
        payment_failure: null,
        last_paid_created: null,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('tenant_id').doNothing())
      .execute();
    await db.updateTable('billing_accounts').set({ updated_at: now }).where('tenant_id', '=', tenantId).execute();
    if (customerId) {
      await db.updateTable('billing_accounts').set({ customer_id: customerId }).where('tenant_id', '=', tenantId).where('customer_id', 'is', null).execute();
    }
    return (await this.account(db, tenantId))!;
  }

  async patchAccount(db: Db, tenantId: string, patch: AccountPatch): Promise<void> {
    if (Object.keys(patch).length === 0) return;
    await db.updateTable('billing_accounts').set(patch).where('tenant_id', '=', tenantId).execute();
  }

  async patchSubscription(db: Db, id: string, patch: SubscriptionPatch): Promise<void> {
    if (Object.keys(patch).length === 0) return;
    await db.updateTable('billing_subscriptions').set(patch).where('id', '=', id).execute();
  }

  /**
   * Applies a subscription's state as of the event (see `subscriptionChange`: stale events and the revival
   * of a canceled subscription change nothing). Returns whether the state was applied. The write is
   * conditional on the row the rule read (its last event), so a concurrent event for the same subscription
   * (not always under the account lock: it may have no tenant yet) makes this one decide again.
   */
  async applySubscription(db: Db, snap: SubscriptionSnapshot, event: ProviderEventStamp): Promise<boolean> {
    const plan = this.prices.planFor(snap.priceId);
    for (let attempt = 0; attempt < SUBSCRIPTION_CHANGE_ATTEMPTS; attempt += 1) {
      const stored = await this.subscription(db, snap.id);
      const change = subscriptionChange(stored, snap, plan, event, this.now().toISOString());
      if (change === STALE) return false;
      if ('insert' in change) {
        const inserted = await db
          .insertInto('billing_subscriptions')
          .values({ id: snap.id, ...change.insert, revoked_created: null })
          .onConflict((oc) => oc.column('id').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return true;
        continue;
      }
      const updated = await db
        .updateTable('billing_subscriptions')
        .set(change.update)
        .where('id', '=', snap.id)
        .where('last_event_id', '=', stored!.last_event_id)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return true;
    }
    throw new Error(`subscription ${snap.id} kept changing while event ${event.id} was applied; retry`);
  }

  /** Makes `subscriptionId` the tenant's current subscription when the rule says so (see `adoptsSubscription`). */
  async adopt(db: Db, tenantId: string, subscriptionId: string, force = false): Promise<void> {
    const account = await this.account(db, tenantId);
    if (!account) return;
    const current = await this.subscription(db, account.subscription_id);
    const candidate = await this.subscription(db, subscriptionId);
    if (adoptsSubscription(account, current, subscriptionId, candidate, force)) {
      await db.updateTable('billing_accounts').set({ subscription_id: subscriptionId }).where('tenant_id', '=', tenantId).execute();
    }
  }

  /** Sets the tenant's plan from its current subscription (see `planFromSubscription`); returns it. */
  async recomputePlan(db: Db, tenantId: string, event: EventCause): Promise<Plan | undefined> {
    const tenant = await this.tenants.get(tenantId, db);
    if (!tenant) return undefined;
    const account = await this.account(db, tenantId);
    const plan = planFromSubscription(await this.subscription(db, account?.subscription_id), tenant.plan);
    await this.setPlan(db, tenantId, tenant.plan, plan, event);
    return plan;
  }
}
