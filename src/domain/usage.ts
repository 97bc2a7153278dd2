/** Usage periods, quota arithmetic and alert rules (DESIGN.md "Quotas"), with no I/O. */
import { planRules, type Plan } from './plans.js';
import type { ScanMode } from './scan.js';

export interface Period {
  start: string;
  end: string;
}

/** `specifications`: new API specifications scanned this period (domain/spec-identity.ts). */
export type Quota = 'functional' | 'security' | 'specifications';
export type AlertType = 'approaching_limit' | 'quota_exceeded' | 'quota_reset';
export const ALERT_TYPES: readonly AlertType[] = ['approaching_limit', 'quota_exceeded', 'quota_reset'];

/** Above this share of a quota, `approaching_limit` is true and the alert fires. */
export const APPROACHING_SHARE = 0.8;

/** The calendar month (UTC) that contains `at`: the period of tenants without a subscription. */
export function calendarPeriod(at: Date): Period {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start: start.toISOString(), end: end.toISOString() };
}

function addMonths(iso: string, months: number): string {
  const d = new Date(iso);
  const day = d.getUTCDate();
  const moved = new Date(
    Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()),
  );
  // Keep the anchor day, clamped to the month's length (Jan 31 -> Feb 28 -> Mar 31 is not reachable; accepted).
  const lastDay = new Date(Date.UTC(moved.getUTCFullYear(), moved.getUTCMonth() + 1, 0)).getUTCDate();
  moved.setUTCDate(Math.min(day, lastDay));
  return moved.toISOString();
}

function isCalendarAligned(period: Period): boolean {
  const aligned = calendarPeriod(new Date(period.start));
  return aligned.start === period.start && aligned.end === period.end;
}

/**
 * The period after `previous` that contains `at`. Calendar periods stay calendar months; a period set by
 * the billing provider (a subscription's) keeps its anchor and advances a month at a time until
 * `invoice.paid` sets the real one.
 */
export function nextPeriod(previous: Period | undefined, at: Date): Period {
  if (!previous || isCalendarAligned(previous)) return calendarPeriod(at);
  let start = previous.end;
  let end = addMonths(start, 1);
  for (let i = 0; i < 1200 && end <= at.toISOString(); i += 1) {
    start = end;
    end = addMonths(start, 1);
  }
  return { start, end };
}

/**
 * The period that contains `at` given the tenant's latest stored one: that one while it lasts, else the
 * one a roll-over opens. Reads show it; only the write paths (admission, the sweep) store it.
 */
export function periodAt(latest: Period | undefined, at: Date): Period {
  const now = at.toISOString();
  if (latest && latest.start <= now && now < latest.end) return latest;
  return nextPeriod(latest, at);
}

/**
 * The usage period a paid invoice starts, given the start of the tenant's latest period: none once the
 * paid period has ended; never in the future (the period containing now must exist, so it starts at
 * `at` at the latest); never before the latest period (a late invoice does not reopen old counts).
 */
export function renewedPeriod(paid: Period, latestStart: string | undefined, at: Date): Period | undefined {
  const now = at.toISOString();
  if (paid.end <= now) return undefined;
  const start = paid.start < now ? paid.start : now;
  if (latestStart !== undefined && start < latestStart) return undefined;
  return { start, end: paid.end };
}

export function quotaLimit(plan: Plan, quota: Quota): number | null {
  const rules = planRules(plan);
  if (quota === 'specifications') return rules.specificationQuota;
  return quota === 'functional' ? rules.functionalQuota : rules.securityQuota;
}

/**
 * The quotas a scan of `mode` consumes: `full` takes one of each scan quota; a security or full scan of
 * a specification not yet scanned this period also takes one of the API specifications quota.
 */
export function quotasFor(mode: ScanMode, newSpecification = false): Quota[] {
  const scans: Quota[] = mode === 'full' ? ['functional', 'security'] : [mode];
  return newSpecification && mode !== 'functional' ? [...scans, 'specifications'] : scans;
}

/** How people read a quota's name in messages. */
export function quotaName(quota: Quota): string {
  if (quota === 'specifications') return 'API specification';
  return quota === 'functional' ? 'Functional scan' : 'Security scan';
}

export function isApproaching(used: number, limit: number | null): boolean {
  return limit !== null && limit > 0 && used > limit * APPROACHING_SHARE;
}

export function remaining(used: number, limit: number | null): number | null {
  return limit === null ? null : Math.max(0, limit - used);
}

/** Alerts that `used` (after a scan was counted) calls for; the store keeps each once per period and quota. */
export function alertsFor(quota: Quota, used: number, limit: number | null): Array<{ type: AlertType; message: string }> {
  if (limit === null || limit === 0) return [];
  const name = quotaName(quota);
  const out: Array<{ type: AlertType; message: string }> = [];
  if (isApproaching(used, limit)) {
    out.push({ type: 'approaching_limit', message: `${name} usage is above ${APPROACHING_SHARE * 100}% of the quota: ${used} of ${limit} used this period` });
  }
  if (used >= limit) {
    const refused =
      quota === 'specifications' ? 'security and full scans of specifications not scanned this period are refused' : `new ${quota} scans are refused`;
    out.push({ type: 'quota_exceeded', message: `${name} quota of ${limit} is used up for this period; ${refused} until it resets` });
  }
  return out;
}
