/**
 * Reading provider objects. Webhook payloads follow the API version of the endpoint that sent them, so
 * these readers accept both the current shapes (period on subscription items, invoice subscription under
 * `parent.subscription_details`) and the older ones (period and subscription at the top level).
 */

// Provider payloads are read defensively, field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value) return value;
  if (value && typeof value === 'object' && typeof (value as Obj).id === 'string') return (value as Obj).id;
  return undefined;
}

export function isoFromUnix(seconds: unknown): string | null {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null;
}

export interface SubscriptionSnapshot {
  id: string;
  customerId: string | undefined;
  status: string;
  priceId: string | undefined;
  periodStart: string | null;
  periodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  metadataTenantId: string | undefined;
}

export function subscriptionSnapshot(sub: Obj): SubscriptionSnapshot {
  const item: Obj | undefined = sub.items?.data?.[0];
  const price = item?.price ?? item?.plan ?? sub.plan;
  return {
    id: String(sub.id),
    customerId: idOf(sub.customer),
    status: typeof sub.status === 'string' ? sub.status : 'active',
    priceId: idOf(price),
    periodStart: isoFromUnix(item?.current_period_start ?? sub.current_period_start),
    periodEnd: isoFromUnix(item?.current_period_end ?? sub.current_period_end),
    cancelAtPeriodEnd: sub.cancel_at_period_end === true,
    metadataTenantId: typeof sub.metadata?.tenant_id === 'string' ? sub.metadata.tenant_id : undefined,
  };
}

/** The subscription an invoice bills, in either API shape. */
export function invoiceSubscriptionId(invoice: Obj): string | undefined {
  return idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription) ?? idOf(invoice.lines?.data?.find((l: Obj) => l.subscription)?.subscription);
}

/**
 * The service period an invoice pays for: the period of its subscription line. (The invoice's own
 * period_start/period_end describe the previous period for subscription invoices, so they are a last resort.)
 */
export function invoicePeriod(invoice: Obj): { start: string; end: string } | undefined {
  const lines: Obj[] = invoice.lines?.data ?? [];
  const line =
    lines.find((l) => l.parent?.type === 'subscription_item_details' || l.type === 'subscription' || l.subscription || l.parent?.subscription_item_details) ??
    lines.find((l) => l.period);
  const start = isoFromUnix(line?.period?.start);
  const end = isoFromUnix(line?.period?.end);
  if (start && end && end > start) return { start, end };
  return undefined;
}

/** Statuses that keep the paid plan: a failed renewal keeps access while the provider retries. */
export const ENTITLED_STATUSES = ['active', 'trialing', 'past_due'];

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
