/**
 * Reading provider objects. Webhook payloads follow the API version of the endpoint that sent them, so
 * these readers accept both the current shapes (period on subscription items, invoice subscription under
 * `parent.subscription_details`) and the older ones (period and subscription at the top level).
 */

import type { SubscriptionSnapshot } from '../domain/billing-rules.js';
import { isTenantId } from '../store/tenants.js';

// Provider payloads are read defensively, field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

/** A signed event Vigil cannot apply (a field missing or of the wrong shape): acknowledged as ignored, with this reason logged. */
export class UnusableEvent extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UnusableEvent';
  }
}

/** Provider object ids (`cus_...`, `sub_...`, `evt_...`): letters, digits, `_` and `-`, at most 255 characters (the columns' size). */
export const PROVIDER_ID_MAX_LENGTH = 255;
const PROVIDER_ID = /^[A-Za-z0-9_-]+$/;

/** What POST /billing/sync-tenant accepts: provider ids of the right kind, so swapped or mistyped ids are refused. */
export const CUSTOMER_ID_PATTERN = '^cus_[A-Za-z0-9_-]+$';
export const SUBSCRIPTION_ID_PATTERN = '^sub_[A-Za-z0-9_-]+$';

export function isProviderId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= PROVIDER_ID_MAX_LENGTH && PROVIDER_ID.test(value);
}

/** The id of a reference that may be a bare id or an expanded object; undefined when absent or not a provider id. */
export function idOf(value: unknown): string | undefined {
  const id = value && typeof value === 'object' ? (value as Obj).id : value;
  return isProviderId(id) ? id : undefined;
}

/** A reference the handler needs: a provider id, or UnusableEvent naming `what`. */
export function requiredId(value: unknown, what: string): string {
  const id = idOf(value);
  if (!id) throw new UnusableEvent(`${what} missing or not a provider id`);
  return id;
}

/** A reference that may be absent; present, it must be a provider id. */
export function optionalId(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  return requiredId(value, what);
}

/** A tenant id named by the provider object (client_reference_id, metadata.tenant_id): absent, or a valid tenant id. */
export function tenantReference(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (!isTenantId(value)) throw new UnusableEvent(`${field} is not a valid tenant id`);
  return value;
}

/** The last unix second with a four-digit year (9999-12-31T23:59:59Z): beyond it a Date cannot be written as ISO 8601. */
export const MAX_UNIX_SECONDS = 253_402_300_799;

export function isUnixSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_UNIX_SECONDS;
}

export function isoFromUnix(seconds: unknown): string | null {
  return isUnixSeconds(seconds) ? new Date(seconds * 1000).toISOString() : null;
}

/** A time the handler relies on: absent is null; present, it must be a unix time. */
function optionalTime(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  const iso = isoFromUnix(value);
  if (!iso) throw new UnusableEvent(`${what} is not a unix time`);
  return iso;
}

function objectOrEmpty(value: unknown): Obj {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
}

function listOf(value: unknown): Obj[] {
  const data = objectOrEmpty(value).data;
  return Array.isArray(data) ? data.filter((item): item is Obj => Boolean(item) && typeof item === 'object') : [];
}

/** The provider's subscription statuses. */
export const SUBSCRIPTION_STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'];

/** A subscription object, checked; `status` overrides the object's own (a deletion is final whatever it says). Throws UnusableEvent. */
export function subscriptionSnapshot(sub: Obj, status?: string): SubscriptionSnapshot {
  const id = requiredId(sub.id, 'subscription id');
  const customerId = requiredId(sub.customer, 'subscription customer');
  const state = status ?? sub.status;
  if (typeof state !== 'string' || !SUBSCRIPTION_STATUSES.includes(state))
    throw new UnusableEvent("subscription status missing or not one of the provider's statuses");
  const item: Obj | undefined = listOf(sub.items)[0];
  const price = item?.price ?? item?.plan ?? sub.plan;
  return {
    id,
    customerId,
    status: state,
    priceId: optionalId(price, 'subscription price id'),
    periodStart: optionalTime(item?.current_period_start ?? sub.current_period_start, 'subscription period start'),
    periodEnd: optionalTime(item?.current_period_end ?? sub.current_period_end, 'subscription period end'),
    cancelAtPeriodEnd: sub.cancel_at_period_end === true,
    metadataTenantId: tenantReference(objectOrEmpty(sub.metadata).tenant_id, 'subscription metadata.tenant_id'),
  };
}

/** The subscription an invoice bills, in either API shape. */
export function invoiceSubscriptionId(invoice: Obj): string | undefined {
  return (
    idOf(objectOrEmpty(objectOrEmpty(invoice.parent).subscription_details).subscription) ??
    idOf(invoice.subscription) ??
    idOf(listOf(invoice.lines).find((l) => l.subscription)?.subscription)
  );
}

/** The tenant id an invoice's subscription metadata names (either API shape). */
export function invoiceTenantReference(invoice: Obj): string | undefined {
  const details = objectOrEmpty(objectOrEmpty(invoice.parent).subscription_details);
  return tenantReference(
    objectOrEmpty(details.metadata).tenant_id ?? objectOrEmpty(invoice.subscription_details).metadata?.tenant_id,
    'invoice subscription metadata.tenant_id',
  );
}

/**
 * The service period an invoice pays for: the period of its subscription line. (The invoice's own
 * period_start/period_end describe the previous period for subscription invoices, so they are a last resort.)
 */
export function invoicePeriod(invoice: Obj): { start: string; end: string } | undefined {
  const lines = listOf(invoice.lines);
  const line =
    lines.find((l) => l.parent?.type === 'subscription_item_details' || l.type === 'subscription' || l.subscription || l.parent?.subscription_item_details) ??
    lines.find((l) => l.period);
  const period = objectOrEmpty(line?.period);
  const start = isoFromUnix(period.start);
  const end = isoFromUnix(period.end);
  if (start && end && end > start) return { start, end };
  return undefined;
}

/** An amount or count as the status resource shows it (an integer), else null. */
export function integerOrNull(value: unknown): number | null {
  return Number.isSafeInteger(value) ? (value as number) : null;
}

/** A short display string (currency, URL) from the provider, else null. */
export function textOrNull(value: unknown, maxLength = 2048): string | null {
  return typeof value === 'string' && value.length <= maxLength ? value : null;
}
