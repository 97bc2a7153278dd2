import { describe, expect, it } from 'vitest';
import {
  alertsFor,
  calendarPeriod,
  isApproaching,
  nextPeriod,
  periodAt,
  quotaLimit,
  quotasFor,
  remaining,
  renewedPeriod,
  type Period,
} from '../../src/domain/usage.js';

const at = (iso: string) => new Date(iso);
const period = (start: string, end: string): Period => ({ start, end });

describe('calendar periods (tenants without a subscription)', () => {
  it.each([
    ['mid-month', '2026-03-20T12:00:00.000Z', period('2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z')],
    ['the first instant of a month', '2026-04-01T00:00:00.000Z', period('2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z')],
    ['the last instant of a month', '2026-04-30T23:59:59.999Z', period('2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z')],
    ['December runs into the next year', '2026-12-31T23:00:00.000Z', period('2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z')],
    ['February of a common year', '2026-02-14T00:00:00.000Z', period('2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z')],
    ['February of a leap year', '2028-02-29T12:00:00.000Z', period('2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z')],
  ])('%s', (_name, when, expected) => {
    expect(calendarPeriod(at(when))).toEqual(expected);
  });
});

describe('the period after the last one', () => {
  it.each([
    ['no period yet: the calendar month', undefined, '2026-03-20T12:00:00.000Z', period('2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z')],
    [
      'a calendar period stays calendar, even months later',
      period('2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'),
      '2026-05-03T00:00:00.000Z',
      period('2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'),
    ],
    [
      'a subscription period keeps its anchor day and time',
      period('2026-02-15T09:30:00.000Z', '2026-03-15T09:30:00.000Z'),
      '2026-03-20T00:00:00.000Z',
      period('2026-03-15T09:30:00.000Z', '2026-04-15T09:30:00.000Z'),
    ],
    [
      'a subscription period skips the months nobody used',
      period('2026-02-15T09:30:00.000Z', '2026-03-15T09:30:00.000Z'),
      '2026-06-16T00:00:00.000Z',
      period('2026-06-15T09:30:00.000Z', '2026-07-15T09:30:00.000Z'),
    ],
    [
      'the new period starts exactly when the last one ended',
      period('2026-02-15T09:30:00.000Z', '2026-03-15T09:30:00.000Z'),
      '2026-03-15T09:30:00.000Z',
      period('2026-03-15T09:30:00.000Z', '2026-04-15T09:30:00.000Z'),
    ],
    [
      'month-end clamping: Jan 31 -> Feb 28 in a common year',
      period('2026-01-15T08:00:00.000Z', '2026-01-31T08:00:00.000Z'),
      '2026-02-05T00:00:00.000Z',
      period('2026-01-31T08:00:00.000Z', '2026-02-28T08:00:00.000Z'),
    ],
    [
      'month-end clamping: Jan 31 -> Feb 29 in a leap year',
      period('2028-01-15T08:00:00.000Z', '2028-01-31T08:00:00.000Z'),
      '2028-02-05T00:00:00.000Z',
      period('2028-01-31T08:00:00.000Z', '2028-02-29T08:00:00.000Z'),
    ],
    [
      'month-end clamping: Mar 31 -> Apr 30',
      period('2026-03-10T00:00:00.000Z', '2026-03-31T00:00:00.000Z'),
      '2026-04-01T00:00:00.000Z',
      period('2026-03-31T00:00:00.000Z', '2026-04-30T00:00:00.000Z'),
    ],
    [
      'a clamped anchor stays clamped (Jan 31 -> Feb 28 -> Mar 28)',
      period('2026-01-15T08:00:00.000Z', '2026-01-31T08:00:00.000Z'),
      '2026-03-01T00:00:00.000Z',
      period('2026-02-28T08:00:00.000Z', '2026-03-28T08:00:00.000Z'),
    ],
    [
      'December to January',
      period('2026-11-20T00:00:00.000Z', '2026-12-20T00:00:00.000Z'),
      '2026-12-24T00:00:00.000Z',
      period('2026-12-20T00:00:00.000Z', '2027-01-20T00:00:00.000Z'),
    ],
  ] as const)('%s', (_name, previous, when, expected) => {
    expect(nextPeriod(previous, at(when))).toEqual(expected);
  });
});

describe('the period a read shows', () => {
  const march = period('2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z');
  it.each([
    ['inside the latest period: that one', march, '2026-03-31T23:59:59.999Z', march],
    ['at its first instant: that one', march, '2026-03-01T00:00:00.000Z', march],
    ['at its end: the next one', march, '2026-04-01T00:00:00.000Z', period('2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z')],
    ['no period yet: the calendar month', undefined, '2026-03-05T00:00:00.000Z', march],
  ] as const)('%s', (_name, latest, when, expected) => {
    expect(periodAt(latest, at(when))).toEqual(expected);
  });
});

describe('the period a paid invoice starts', () => {
  const now = at('2026-05-10T12:00:00.000Z');
  it.each([
    [
      'the paid period as it is',
      period('2026-05-08T00:00:00.000Z', '2026-06-08T00:00:00.000Z'),
      '2026-05-01T00:00:00.000Z',
      period('2026-05-08T00:00:00.000Z', '2026-06-08T00:00:00.000Z'),
    ],
    [
      'no period yet',
      period('2026-05-08T00:00:00.000Z', '2026-06-08T00:00:00.000Z'),
      undefined,
      period('2026-05-08T00:00:00.000Z', '2026-06-08T00:00:00.000Z'),
    ],
    [
      'paid ahead: starts now, never in the future',
      period('2026-05-20T00:00:00.000Z', '2026-06-20T00:00:00.000Z'),
      '2026-05-01T00:00:00.000Z',
      period('2026-05-10T12:00:00.000Z', '2026-06-20T00:00:00.000Z'),
    ],
    [
      'the same start as the latest period (a repeat)',
      period('2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'),
      '2026-05-01T00:00:00.000Z',
      period('2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'),
    ],
    ['before the latest period: none', period('2026-04-20T00:00:00.000Z', '2026-05-20T00:00:00.000Z'), '2026-05-01T00:00:00.000Z', undefined],
    ['already ended: none', period('2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z'), undefined, undefined],
    ['ending now: none', period('2026-04-10T12:00:00.000Z', '2026-05-10T12:00:00.000Z'), undefined, undefined],
  ] as const)('%s', (_name, paid, latestStart, expected) => {
    expect(renewedPeriod(paid, latestStart, now)).toEqual(expected);
  });
});

describe('quotas', () => {
  it.each([
    ['free', 'functional', 50],
    ['free', 'security', 0],
    ['pro', 'functional', 500],
    ['pro', 'security', 100],
    ['team', 'functional', 2000],
    ['team', 'security', 500],
    ['enterprise', 'functional', null],
    ['enterprise', 'security', null],
  ] as const)('%s %s: %s', (plan, quota, limit) => {
    expect(quotaLimit(plan, quota)).toBe(limit);
  });

  it.each([
    ['functional', ['functional']],
    ['security', ['security']],
    ['full', ['functional', 'security']],
  ] as const)('a %s scan takes %j', (mode, quotas) => {
    expect(quotasFor(mode)).toEqual(quotas);
  });

  it.each([
    [0, 50, 50],
    [49, 50, 1],
    [50, 50, 0],
    [51, 50, 0],
    [10, null, null],
  ] as const)('%i used of %s: %s remaining', (used, limit, left) => {
    expect(remaining(used, limit)).toBe(left);
  });
});

describe('alerts', () => {
  const approaching = (used: number, limit: number) => ({
    type: 'approaching_limit',
    message: `Functional scan usage is above 80% of the quota: ${used} of ${limit} used this period`,
  });
  const exceeded = (limit: number) => ({
    type: 'quota_exceeded',
    message: `Functional scan quota of ${limit} is used up for this period; new functional scans are refused until it resets`,
  });

  it.each([
    ['at 80%: not above it yet', 400, 500, []],
    ['just above 80%', 401, 500, [approaching(401, 500)]],
    ['at 100%: both', 500, 500, [approaching(500, 500), exceeded(500)]],
    ['a small quota: 41 of 50', 41, 50, [approaching(41, 50)]],
    ['a small quota: 40 of 50', 40, 50, []],
    ['unlimited: never', 10 ** 6, null, []],
    ['a quota of 0 (free security): never', 0, 0, []],
  ] as const)('%s', (_name, used, limit, expected) => {
    expect(alertsFor('functional', used, limit)).toEqual(expected);
    expect(isApproaching(used, limit)).toBe(expected.length > 0);
  });

  it('each threshold is first crossed by one scan: 80% at the first count above it, 100% at the limit', () => {
    const firstCount = (type: string) =>
      Array.from({ length: 100 }, (_, i) => i + 1).find((used) => alertsFor('security', used, 100).some((a) => a.type === type));
    expect(firstCount('approaching_limit')).toBe(81);
    expect(firstCount('quota_exceeded')).toBe(100);
    expect(alertsFor('security', 81, 100)[0]!.message).toBe('Security scan usage is above 80% of the quota: 81 of 100 used this period');
  });
});
