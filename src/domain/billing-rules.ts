/**
 * Billing rules, with no I/O: which plan a subscription gives, which provider events are stale, and the
 * changes an event makes to the stored billing state, as patches. The billing service reads the rows inside
 * the transaction that records the event, asks these functions, and writes what they return.
 */
import { PLANS, type PaidPlan, type Plan } from './plans.js';

/** Provider event times (`created`): unix seconds. Bigint columns come back as text on PostgreSQL. */
type UnixTime = number | string;

/** A provider subscription as an event shows it, already checked. */
export interface SubscriptionSnapshot {
  id: string;
  customerId: string;
  status: string;
  priceId: string | undefined;
  periodStart: string | null;
  periodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  metadataTenantId: string | undefined;
}

/** What the rules read of a stored subscription (the store's row has these columns). */
export interface StoredSubscription {
  status: string;
  plan: Plan | null;
  current_period_end: string | null;
  /** `created` of the full refund that revoked the plan, until a later payment. */
  revoked_created: UnixTime | null;
  last_event_created: UnixTime;
}

/** What the rules read of a tenant's billing account. */
export interface StoredAccount {
  subscription_id: string | null;
  payment_failed_created: UnixTime | null;
  last_paid_created: UnixTime | null;
}

/** A subscription's state as of one event: the columns a subscription event writes. */
export interface SubscriptionState {
  customer_id: string | null;
  status: string;
  price_id: string | null;
  plan: Plan | null;
  current_period_start: string | null;
  current_period_end: string | null;
  cancel_at_period_end: number;
  last_event_created: number;
  last_event_id: string;
  updated_at: string;
}

export interface SubscriptionPatch {
  revoked_created?: number | null;
  current_period_start?: string;
  current_period_end?: string;
}

export interface AccountPatch {
  last_paid_created?: number;
  payment_failed_at?: string | null;
  payment_failed_created?: number | null;
  payment_failure?: string | null;
}

/** An event older than the state it would change: it changes nothing. */
export const STALE = 'stale';
export type Stale = typeof STALE;

export interface ProviderEventStamp {
  id: string;
  /** The event's creation time (unix seconds): the order events are applied in. */
  created: number;
}

/** Statuses that keep the paid plan: a failed renewal keeps access while the provider retries. */
export const ENTITLED_STATUSES: readonly string[] = ['active', 'trialing', 'past_due'];

/** The contract's four subscription_status values. */
export function contractStatus(status: string): 'active' | 'trialing' | 'past_due' | 'canceled' {
  switch (status) {
    case 'active':
    case 'trialing':
      return status;
    case 'canceled':
    case 'incomplete_expired':
      return 'canceled';
    default:
      // past_due, unpaid, incomplete, paused: payment is needed.
      return 'past_due';
  }
}

/** The status the billing resource shows: a fully refunded subscription is canceled whatever the provider says. */
export function shownStatus(sub: StoredSubscription): ReturnType<typeof contractStatus> {
  return sub.revoked_created !== null ? 'canceled' : contractStatus(sub.status);
}

/** The configured price of each paid plan, and the plan of a configured price. */
export class PriceTable {
  constructor(private readonly priceIds: Partial<Record<PaidPlan, string>>) {}

  priceFor(plan: Plan): string | undefined {
    return plan === 'free' ? undefined : this.priceIds[plan];
  }

  planFor(priceId: string | null | undefined): PaidPlan | undefined {
    if (!priceId) return undefined;
    return PLANS.find((p): p is PaidPlan => p !== 'free' && this.priceIds[p] === priceId);
  }
}

/** Entitled to its plan: a status that keeps access, and no full refund since the last payment. */
export function isEntitled(sub: StoredSubscription | undefined): boolean {
  return sub !== undefined && ENTITLED_STATUSES.includes(sub.status) && sub.revoked_created === null;
}

/**
 * The tenant's plan given its current subscription: the subscription's plan while entitled (one on a price
 * Vigil does not know keeps the plan the tenant has), free once canceled, unpaid or refunded; without a
 * subscription the plan stays as it is (set by sync-tenant or an operator).
 */
export function planFromSubscription(sub: StoredSubscription | undefined, tenantPlan: Plan): Plan {
  if (!sub) return tenantPlan;
  return isEntitled(sub) ? (sub.plan ?? tenantPlan) : 'free';
}

/**
 * A subscription event against the stored subscription: the first one inserts it; a later one replaces its
 * state, keeping the stored plan when the price is unknown (`plan` undefined). Stale when an event created
 * after this one was applied already, or when it would bring a canceled subscription back: cancelation is final.
 */
export function subscriptionChange(
  stored: StoredSubscription | undefined,
  snap: SubscriptionSnapshot,
  plan: Plan | undefined,
  event: ProviderEventStamp,
  now: string,
): { insert: SubscriptionState } | { update: SubscriptionState } | Stale {
  const state = (keptPlan: Plan | null): SubscriptionState => ({
    customer_id: snap.customerId ?? null,
    status: snap.status,
    price_id: snap.priceId ?? null,
    plan: plan ?? keptPlan,
    current_period_start: snap.periodStart,
    current_period_end: snap.periodEnd,
    cancel_at_period_end: snap.cancelAtPeriodEnd ? 1 : 0,
    last_event_created: event.created,
    last_event_id: event.id,
    updated_at: now,
  });
  if (!stored) return { insert: state(null) };
  if (Number(stored.last_event_created) > event.created) return STALE;
  if (stored.status === 'canceled' && snap.status !== 'canceled') return STALE;
  return { update: state(stored.plan) };
}

/**
 * Whether `candidate` becomes the account's current subscription: always when forced (a completed checkout)
 * or when the account has none; otherwise only when the current one is not entitled and the candidate is
 * (or the current one is unknown to the store).
 */
export function adoptsSubscription(
  account: Pick<StoredAccount, 'subscription_id'>,
  current: StoredSubscription | undefined,
  candidateId: string,
  candidate: StoredSubscription | undefined,
  force: boolean,
): boolean {
  if (account.subscription_id === candidateId) return false;
  if (force || !account.subscription_id) return true;
  return !isEntitled(current) && (isEntitled(candidate) || !current);
}

/** Paid since (a later payment was applied already): a payment, failure or refund created before it is old news. */
export function paidSince(account: StoredAccount, created: number): boolean {
  return account.last_paid_created !== null && Number(account.last_paid_created) > created;
}

/** invoice.paid on the account: the payment's time, and a failure at or before it settled. */
export function invoicePaidAccount(account: StoredAccount, created: number): AccountPatch | Stale {
  if (paidSince(account, created)) return STALE;
  const settles = account.payment_failed_created !== null && Number(account.payment_failed_created) <= created;
  return { last_paid_created: created, ...(settles ? { payment_failed_at: null, payment_failed_created: null, payment_failure: null } : {}) };
}

/**
 * invoice.paid on the subscription it pays: a payment after a full refund restores the plan; a paid period
 * that ends later than the stored one becomes the subscription's period. Empty when nothing changes.
 */
export function invoicePaidSubscription(sub: StoredSubscription, paid: { start: string; end: string } | undefined, created: number): SubscriptionPatch {
  const patch: SubscriptionPatch = {};
  if (sub.revoked_created !== null && Number(sub.revoked_created) < created) patch.revoked_created = null;
  if (paid && (!sub.current_period_end || paid.end > sub.current_period_end)) {
    patch.current_period_start = paid.start;
    patch.current_period_end = paid.end;
  }
  return patch;
}

/** The period an invoice pays for: its own subscription line's, else the subscription's stored period. */
export function paidPeriod(
  fromInvoice: { start: string; end: string } | undefined,
  sub: { current_period_start: string | null; current_period_end: string | null } | undefined,
): { start: string; end: string } | undefined {
  if (fromInvoice) return fromInvoice;
  return sub?.current_period_start && sub.current_period_end ? { start: sub.current_period_start, end: sub.current_period_end } : undefined;
}

/** What the billing status shows of the last failed payment (stored as JSON on the account). */
export interface PaymentFailure {
  invoice_id: string | null;
  amount_due: number | null;
  currency: string | null;
  attempt_count: number | null;
  next_payment_attempt: string | null;
  hosted_invoice_url: string | null;
}

/** invoice.payment_failed: the failure (shown by the status resource until a later payment); the plan is unchanged. */
export function paymentFailedAccount(account: StoredAccount, created: number, failure: PaymentFailure): (AccountPatch & { payment_failed_at: string }) | Stale {
  if (paidSince(account, created)) return STALE;
  return { payment_failed_at: new Date(created * 1000).toISOString(), payment_failed_created: created, payment_failure: JSON.stringify(failure) };
}

/** A refund of the whole charge (a partial refund changes no plan). */
export function isFullRefund(charge: { refunded?: unknown; amount?: unknown; amount_refunded?: unknown }): boolean {
  return (
    charge.refunded === true || (typeof charge.amount === 'number' && typeof charge.amount_refunded === 'number' && charge.amount_refunded >= charge.amount)
  );
}

/** charge.refunded (a full refund): the subscription's plan is revoked until a later payment. */
export function refundedSubscription(account: StoredAccount, created: number): SubscriptionPatch | Stale {
  if (paidSince(account, created)) return STALE;
  return { revoked_created: created };
}
