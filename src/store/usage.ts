import { sql, type Kysely } from 'kysely';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/plans.js';
import { alertsFor, isApproaching, nextPeriod, quotaLimit, remaining, type AlertType, type Quota } from '../domain/usage.js';
import { preparedQuery } from './prepared.js';
import type { Database, UsageAlertsTable, UsagePeriodsTable } from './schema.js';

export type UsagePeriod = UsagePeriodsTable;
export type UsageAlert = UsageAlertsTable;

/** The Usage resource (contract's primary field set plus remaining counts). */
export interface UsageView {
  tenant_id: string;
  plan: Plan;
  scans_used: number;
  scans_limit: number | null;
  scans_remaining: number | null;
  security_scan_count: number;
  monthly_security_scan_quota: number | null;
  security_scans_remaining: number | null;
  approaching_limit: boolean;
  quota_reset_date: string;
  period_start: string;
  period_end: string;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** Usage periods and alerts. Every method is scoped by tenant id; `db` may be a transaction. */
export class UsageRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  now(): Date {
    return this.clock();
  }

  // Runs on most requests. A bound LIMIT parameter makes SQLite's plan several times slower than a literal.
  private readonly latestPeriod = preparedQuery((tenantId: string) =>
    this.db.selectFrom('usage_periods').selectAll().where('tenant_id', '=', tenantId).orderBy('period_start', 'desc').limit(sql.lit(1)),
  );

  /**
   * The tenant's period that contains now, rolling over (and firing `quota_reset`) when the last one has
   * ended. Safe to race: a period row is created at most once.
   */
  async currentPeriod(tenantId: string, plan: Plan, db: Kysely<Database> = this.db): Promise<UsagePeriod> {
    const now = this.clock();
    const [latest] = await this.latestPeriod(db, tenantId);
    if (latest && latest.period_end > now.toISOString() && latest.period_start <= now.toISOString()) return latest;
    const period = nextPeriod(latest ? { start: latest.period_start, end: latest.period_end } : undefined, now);
    return this.openPeriod(tenantId, plan, period.start, period.end, latest !== undefined, db);
  }

  /**
   * Starts a new period at `start` (the billing provider renewed the subscription): counters start at zero.
   * The open period is closed at `start`. Idempotent per start.
   */
  async startPeriod(tenantId: string, plan: Plan, start: string, end: string, db: Kysely<Database> = this.db): Promise<UsagePeriod> {
    await db
      .updateTable('usage_periods')
      .set({ period_end: start, updated_at: this.clock().toISOString() })
      .where('tenant_id', '=', tenantId)
      .where('period_start', '<', start)
      .where('period_end', '>', start)
      .execute();
    return this.openPeriod(tenantId, plan, start, end, true, db);
  }

  private async openPeriod(tenantId: string, plan: Plan, start: string, end: string, isReset: boolean, db: Kysely<Database>): Promise<UsagePeriod> {
    const now = this.clock().toISOString();
    const inserted = await db
      .insertInto('usage_periods')
      .values({
        tenant_id: tenantId,
        period_start: start,
        period_end: end,
        plan,
        functional_used: 0,
        security_used: 0,
        functional_limit: quotaLimit(plan, 'functional'),
        security_limit: quotaLimit(plan, 'security'),
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'period_start']).doNothing())
      .executeTakeFirst();
    if (isReset && Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) {
      await this.recordAlert(
        { tenantId, type: 'quota_reset', quota: 'all', periodStart: start, used: 0, limit: quotaLimit(plan, 'functional') },
        `Quotas reset for the period starting ${start.slice(0, 10)}`,
        db,
      );
    }
    return db
      .selectFrom('usage_periods')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('period_start', '=', start)
      .executeTakeFirstOrThrow();
  }

  /**
   * Counts one scan against each quota, only while every one of them is below its limit (one UPDATE, so
   * the counter never passes a limit whatever the concurrency). Returns false when a quota is used up.
   */
  async consume(period: UsagePeriod, plan: Plan, quotas: Quota[], db: Kysely<Database> = this.db): Promise<boolean> {
    const fLimit = quotaLimit(plan, 'functional');
    const sLimit = quotaLimit(plan, 'security');
    const takesF = quotas.includes('functional');
    const takesS = quotas.includes('security');
    let update = db
      .updateTable('usage_periods')
      .set((eb) => ({
        functional_used: takesF ? eb('functional_used', '+', 1) : eb.ref('functional_used'),
        security_used: takesS ? eb('security_used', '+', 1) : eb.ref('security_used'),
        plan,
        functional_limit: fLimit,
        security_limit: sLimit,
        updated_at: this.clock().toISOString(),
      }))
      .where('tenant_id', '=', period.tenant_id)
      .where('period_start', '=', period.period_start);
    if (takesF && fLimit !== null) update = update.where('functional_used', '<', fLimit);
    if (takesS && sLimit !== null) update = update.where('security_used', '<', sLimit);
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;

    const after = await db
      .selectFrom('usage_periods')
      .select(['functional_used', 'security_used'])
      .where('tenant_id', '=', period.tenant_id)
      .where('period_start', '=', period.period_start)
      .executeTakeFirstOrThrow();
    for (const quota of quotas) {
      const used = quota === 'functional' ? after.functional_used : after.security_used;
      const limit = quota === 'functional' ? fLimit : sLimit;
      for (const alert of alertsFor(quota, used, limit)) {
        await this.recordAlert({ tenantId: period.tenant_id, type: alert.type, quota, periodStart: period.period_start, used, limit }, alert.message, db);
      }
    }
    return true;
  }

  /** Records an alert unless one of the same type and quota exists for the period. Returns whether it was new. */
  async recordAlert(
    alert: { tenantId: string; type: AlertType; quota: Quota | 'all'; periodStart: string; used: number; limit: number | null },
    message: string,
    db: Kysely<Database> = this.db,
  ): Promise<boolean> {
    const result = await db
      .insertInto('usage_alerts')
      .values({
        id: newId('alt'),
        tenant_id: alert.tenantId,
        type: alert.type,
        quota: alert.quota,
        period_start: alert.periodStart,
        message,
        scans_used: alert.used,
        scans_limit: alert.limit,
        triggered_at: this.clock().toISOString(),
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'period_start', 'type', 'quota']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async view(tenantId: string, plan: Plan, db: Kysely<Database> = this.db): Promise<UsageView> {
    const period = await this.currentPeriod(tenantId, plan, db);
    return toView(period, plan);
  }

  async history(tenantId: string, plan: Plan, page: number, perPage: number): Promise<Page<UsagePeriod & { current: boolean }>> {
    const current = await this.currentPeriod(tenantId, plan);
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('usage_periods')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('period_start', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      this.db.selectFrom('usage_periods').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow(),
    ]);
    return {
      items: rows.map((row) => {
        const isCurrent = row.period_start === current.period_start;
        // The open period shows the limits of the plan as it is now.
        return isCurrent
          ? { ...row, plan, functional_limit: quotaLimit(plan, 'functional'), security_limit: quotaLimit(plan, 'security'), current: true }
          : { ...row, current: false };
      }),
      total: Number(count.n),
    };
  }

  async alerts(tenantId: string, type: AlertType | undefined, page: number, perPage: number): Promise<Page<UsageAlert>> {
    let base = this.db.selectFrom('usage_alerts').where('tenant_id', '=', tenantId);
    if (type) base = base.where('type', '=', type);
    const [items, count] = await Promise.all([
      base.selectAll().orderBy('triggered_at', 'desc').orderBy('id', 'desc').limit(perPage).offset((page - 1) * perPage).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  /** Rolls over every tenant whose latest period has ended (the periodic sweep). Returns how many rolled. */
  async sweep(): Promise<number> {
    const now = this.clock().toISOString();
    const ended = await this.db
      .selectFrom('usage_periods')
      .innerJoin('tenants', 'tenants.id', 'usage_periods.tenant_id')
      .select(['usage_periods.tenant_id', 'tenants.plan'])
      .groupBy(['usage_periods.tenant_id', 'tenants.plan'])
      .having((eb) => eb.fn.max('usage_periods.period_end'), '<=', now)
      .execute();
    for (const row of ended) await this.currentPeriod(row.tenant_id, row.plan);
    return ended.length;
  }
}

export function toView(period: UsagePeriod, plan: Plan): UsageView {
  const fLimit = quotaLimit(plan, 'functional');
  const sLimit = quotaLimit(plan, 'security');
  return {
    tenant_id: period.tenant_id,
    plan,
    scans_used: period.functional_used,
    scans_limit: fLimit,
    scans_remaining: remaining(period.functional_used, fLimit),
    security_scan_count: period.security_used,
    monthly_security_scan_quota: sLimit,
    security_scans_remaining: remaining(period.security_used, sLimit),
    approaching_limit: isApproaching(period.functional_used, fLimit) || isApproaching(period.security_used, sLimit),
    quota_reset_date: period.period_end,
    period_start: period.period_start,
    period_end: period.period_end,
  };
}
