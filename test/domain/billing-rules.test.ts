import { describe, expect, it } from 'vitest';
import {
  PriceTable,
  STALE,
  adoptsSubscription,
  contractStatus,
  invoicePaidAccount,
  invoicePaidSubscription,
  isEntitled,
  isFullRefund,
  paidPeriod,
  paymentFailedAccount,
  planFromSubscription,
  refundedSubscription,
  shownStatus,
  subscriptionChange,
  type StoredAccount,
  type StoredSubscription,
  type SubscriptionSnapshot,
} from '../../src/domain/billing-rules.js';

const sub = (over: Partial<StoredSubscription> = {}): StoredSubscription => ({
  status: 'active',
  plan: 'pro',
  current_period_end: '2026-06-01T00:00:00.000Z',
  revoked_created: null,
  last_event_created: 1000,
  ...over,
});
const account = (over: Partial<StoredAccount> = {}): StoredAccount => ({
  subscription_id: 'sub_a',
  payment_failed_created: null,
  last_paid_created: null,
  ...over,
});
const snapshot = (over: Partial<SubscriptionSnapshot> = {}): SubscriptionSnapshot => ({
  id: 'sub_a',
  customerId: 'cus_a',
  status: 'active',
  priceId: 'price_team',
  periodStart: '2026-05-01T00:00:00.000Z',
  periodEnd: '2026-06-01T00:00:00.000Z',
  cancelAtPeriodEnd: false,
  metadataTenantId: undefined,
  ...over,
});
const NOW = '2026-05-10T00:00:00.000Z';

describe('prices', () => {
  const prices = new PriceTable({ pro: 'price_pro', team: 'price_team' });
  it.each([
    ['price_pro', 'pro'],
    ['price_team', 'team'],
    ['price_unknown', undefined],
    ['', undefined],
    [null, undefined],
    [undefined, undefined],
  ] as const)('the plan of price %j is %s', (price, plan) => {
    expect(prices.planFor(price)).toBe(plan);
  });

  it.each([
    ['free', undefined],
    ['pro', 'price_pro'],
    ['team', 'price_team'],
    ['enterprise', undefined],
  ] as const)('the price of %s is %s', (plan, price) => {
    expect(prices.priceFor(plan)).toBe(price);
  });
});

describe('which plan a subscription gives', () => {
  it.each([
    ['active', 'active', true],
    ['trialing', 'trialing', true],
    // Access is kept while the provider retries the payment.
    ['past_due', 'past_due', true],
    ['unpaid', 'past_due', false],
    ['incomplete', 'past_due', false],
    ['paused', 'past_due', false],
    ['canceled', 'canceled', false],
    ['incomplete_expired', 'canceled', false],
  ] as const)('%s: shown as %s, entitled %s', (status, contract, entitled) => {
    expect(contractStatus(status)).toBe(contract);
    expect(shownStatus(sub({ status }))).toBe(contract);
    expect(isEntitled(sub({ status }))).toBe(entitled);
    // A full refund shows the subscription canceled and takes the plan until a later payment.
    expect(shownStatus(sub({ status, revoked_created: 1200 }))).toBe('canceled');
    expect(isEntitled(sub({ status, revoked_created: '1200' }))).toBe(false);
  });

  it.each([
    ['no subscription: the plan stays (sync-tenant, operator)', undefined, 'team', 'team'],
    ['active pro', sub(), 'free', 'pro'],
    ['trialing team', sub({ status: 'trialing', plan: 'team' }), 'free', 'team'],
    ['past_due keeps the paid plan', sub({ status: 'past_due' }), 'pro', 'pro'],
    ['canceled: down to free', sub({ status: 'canceled' }), 'pro', 'free'],
    ['unpaid: down to free', sub({ status: 'unpaid' }), 'pro', 'free'],
    ['incomplete_expired: down to free', sub({ status: 'incomplete_expired' }), 'pro', 'free'],
    ['fully refunded: down to free, whatever the status', sub({ revoked_created: 1200 }), 'pro', 'free'],
    ['entitled on a price Vigil does not know: the plan stays', sub({ plan: null }), 'enterprise', 'enterprise'],
  ] as const)('%s', (_name, subscription, tenantPlan, plan) => {
    expect(isEntitled(undefined)).toBe(false);
    expect(planFromSubscription(subscription, tenantPlan)).toBe(plan);
  });
});

describe('subscription events', () => {
  const event = (created: number) => ({ id: `evt_${created}`, created });
  const state = (over: object = {}) => ({
    customer_id: 'cus_a',
    status: 'active',
    price_id: 'price_team',
    plan: 'team',
    current_period_start: '2026-05-01T00:00:00.000Z',
    current_period_end: '2026-06-01T00:00:00.000Z',
    cancel_at_period_end: 0,
    last_event_created: 1100,
    last_event_id: 'evt_1100',
    updated_at: NOW,
    ...over,
  });

  it.each([
    ['the first event stores the subscription', undefined, snapshot(), 'team', 1100, { insert: state() }],
    [
      'the first event on an unknown price: no plan yet',
      undefined,
      snapshot({ priceId: 'price_other' }),
      undefined,
      1100,
      { insert: state({ price_id: 'price_other', plan: null }) },
    ],
    ['a newer event replaces the state', sub(), snapshot({ cancelAtPeriodEnd: true }), 'team', 1100, { update: state({ cancel_at_period_end: 1 }) }],
    ['an event created in the same second as the last one applies', sub({ last_event_created: 1100 }), snapshot(), 'team', 1100, { update: state() }],
    [
      'an unknown price keeps the stored plan',
      sub({ plan: 'pro' }),
      snapshot({ priceId: 'price_other' }),
      undefined,
      1100,
      { update: state({ price_id: 'price_other', plan: 'pro' }) },
    ],
    ['bigint columns read as text on PostgreSQL', sub({ last_event_created: '1000' }), snapshot(), 'team', 1100, { update: state() }],
    ['an older event is stale', sub({ last_event_created: 1200 }), snapshot(), 'team', 1100, STALE],
    ['an older event is stale (text column)', sub({ last_event_created: '1200' }), snapshot(), 'team', 1100, STALE],
    ['cancelation is final: a later active event is stale', sub({ status: 'canceled' }), snapshot({ status: 'active' }), 'team', 1100, STALE],
    [
      'a later canceled event still applies to a canceled subscription',
      sub({ status: 'canceled' }),
      snapshot({ status: 'canceled' }),
      'team',
      1100,
      { update: state({ status: 'canceled' }) },
    ],
    ['cancelation applies', sub(), snapshot({ status: 'canceled' }), 'team', 1100, { update: state({ status: 'canceled' }) }],
  ] as const)('%s', (_name, stored, snap, plan, created, expected) => {
    expect(subscriptionChange(stored, snap, plan, event(created), NOW)).toEqual(expected);
  });

  it.each([
    ['already the current one', account({ subscription_id: 'sub_b' }), sub(), sub(), false, false],
    ['already the current one, even forced', account({ subscription_id: 'sub_b' }), sub(), sub(), true, false],
    ['the account has none', account({ subscription_id: null }), undefined, sub(), false, true],
    ['forced (a completed checkout) over an entitled one', account(), sub(), sub(), true, true],
    ['the current one is entitled: it stays', account(), sub(), sub(), false, false],
    ['the current one is canceled and the candidate entitled', account(), sub({ status: 'canceled' }), sub(), false, true],
    ['both canceled: the current one stays', account(), sub({ status: 'canceled' }), sub({ status: 'canceled' }), false, false],
    ['the current one is unknown to the store', account(), undefined, sub({ status: 'canceled' }), false, true],
    ['the current one was refunded and the candidate is entitled', account(), sub({ revoked_created: 900 }), sub(), false, true],
  ] as const)('adopting sub_b: %s', (_name, acc, current, candidate, force, adopted) => {
    expect(adoptsSubscription(acc, current, 'sub_b', candidate, force)).toBe(adopted);
  });
});

describe('payments', () => {
  const settled = { payment_failed_at: null, payment_failed_created: null, payment_failure: null };
  it.each([
    ['the first payment', account(), 1000, { last_paid_created: 1000 }],
    ['a later payment', account({ last_paid_created: 900 }), 1000, { last_paid_created: 1000 }],
    ['a payment in the same second as the last one', account({ last_paid_created: 1000 }), 1000, { last_paid_created: 1000 }],
    ['a payment after a failure settles it', account({ payment_failed_created: 950 }), 1000, { last_paid_created: 1000, ...settled }],
    ['a payment in the same second as a failure settles it', account({ payment_failed_created: '1000' }), 1000, { last_paid_created: 1000, ...settled }],
    ['a payment before a failure leaves it', account({ payment_failed_created: 1050 }), 1000, { last_paid_created: 1000 }],
    ['a payment older than the last one is stale', account({ last_paid_created: '1100' }), 1000, STALE],
  ] as const)('invoice.paid on the account: %s', (_name, acc, created, expected) => {
    expect(invoicePaidAccount(acc, created)).toEqual(expected);
  });

  const paid = { start: '2026-06-01T00:00:00.000Z', end: '2026-07-01T00:00:00.000Z' };
  it.each([
    ['a later period extends the subscription', sub(), paid, 1000, { current_period_start: paid.start, current_period_end: paid.end }],
    ['the same period: nothing', sub({ current_period_end: paid.end }), paid, 1000, {}],
    ['an earlier period: nothing', sub({ current_period_end: '2026-08-01T00:00:00.000Z' }), paid, 1000, {}],
    ['no stored period: the paid one', sub({ current_period_end: null }), paid, 1000, { current_period_start: paid.start, current_period_end: paid.end }],
    ['no paid period: nothing', sub(), undefined, 1000, {}],
    ['a payment after a full refund restores the plan', sub({ revoked_created: 900, current_period_end: paid.end }), paid, 1000, { revoked_created: null }],
    ['a payment before the refund does not', sub({ revoked_created: 1100, current_period_end: paid.end }), paid, 1000, {}],
    ['nor one in the same second', sub({ revoked_created: '1000', current_period_end: paid.end }), paid, 1000, {}],
  ] as const)('invoice.paid on the subscription: %s', (_name, subscription, period, created, expected) => {
    expect(invoicePaidSubscription(subscription, period, created)).toEqual(expected);
  });

  it.each([
    ['the invoice line period first', paid, { current_period_start: '2026-05-01T00:00:00.000Z', current_period_end: '2026-06-01T00:00:00.000Z' }, paid],
    [
      'else the stored subscription period',
      undefined,
      { current_period_start: '2026-05-01T00:00:00.000Z', current_period_end: '2026-06-01T00:00:00.000Z' },
      { start: '2026-05-01T00:00:00.000Z', end: '2026-06-01T00:00:00.000Z' },
    ],
    ['a half-known stored period is none', undefined, { current_period_start: null, current_period_end: '2026-06-01T00:00:00.000Z' }, undefined],
    ['no subscription', undefined, undefined, undefined],
  ] as const)('the period an invoice pays for: %s', (_name, fromInvoice, subscription, expected) => {
    expect(paidPeriod(fromInvoice, subscription)).toEqual(expected);
  });

  const failure = { invoice_id: 'in_1', amount_due: 4900, currency: 'usd', attempt_count: 1, next_payment_attempt: null, hosted_invoice_url: null };
  it.each([
    [
      'recorded with its time',
      account(),
      1_780_000_000,
      { payment_failed_at: '2026-05-28T20:26:40.000Z', payment_failed_created: 1_780_000_000, payment_failure: JSON.stringify(failure) },
    ],
    [
      'after an older payment: recorded',
      account({ last_paid_created: 1_779_999_999 }),
      1_780_000_000,
      { payment_failed_at: '2026-05-28T20:26:40.000Z', payment_failed_created: 1_780_000_000, payment_failure: JSON.stringify(failure) },
    ],
    ['paid since (a retry succeeded, delivered first): stale', account({ last_paid_created: 1_780_000_001 }), 1_780_000_000, STALE],
  ] as const)('invoice.payment_failed: %s', (_name, acc, created, expected) => {
    expect(paymentFailedAccount(acc, created, failure)).toEqual(expected);
  });
});

describe('refunds', () => {
  it.each([
    ['marked refunded', { refunded: true, amount: 4900, amount_refunded: 100 }, true],
    ['the whole amount', { amount: 4900, amount_refunded: 4900 }, true],
    ['more than the amount', { amount: 4900, amount_refunded: 5000 }, true],
    ['part of it', { amount: 4900, amount_refunded: 4899 }, false],
    ['amounts missing', { refunded: false }, false],
    ['amounts of the wrong type', { amount: '4900', amount_refunded: '4900' }, false],
  ] as const)('%s: full is %s', (_name, charge, full) => {
    expect(isFullRefund(charge)).toBe(full);
  });

  it.each([
    ['revokes the plan from the refund on', account(), 1000, { revoked_created: 1000 }],
    ['a payment in the same second does not make it stale', account({ last_paid_created: 1000 }), 1000, { revoked_created: 1000 }],
    ['paid since: stale', account({ last_paid_created: 1001 }), 1000, STALE],
  ] as const)('a full refund %s', (_name, acc, created, expected) => {
    expect(refundedSubscription(acc, created)).toEqual(expected);
  });
});
