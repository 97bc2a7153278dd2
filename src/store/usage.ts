import { sql, type Kysely } from 'kysely';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/plans.js';
import { alertsFor, isApproaching, periodAt, quotaLimit, remaining, renewedPeriod, type AlertType, type Period, type Quota } from '../domain/usage.js';
import { preparedQuery } from './prepared.js';
import type { Database, UsageAlertsTable, UsagePeriodsTable } from './schema.js';

export type UsagePeriod = UsagePeriodsTable;

/** A period's columns by name (prepared statements name their columns: see preparedQuery). */
const PERIOD_COLUMNS = [
  'tenant_id',
  'period_start',
  'period_end',
  'plan',
  'functional_used',
  'security_used',
  'functional_limit',
  'security_limit',
  'specifications_used',
  'specifications_limit',
  'updated_at',
] as const satisfies ReadonlyArray<keyof UsagePeriod>;

const USED_COLUMN = { functional: 'functional_used', security: 'security_used', specifications: 'specifications_used' } as const satisfies Record<
  Quota,
  keyof UsagePeriod
>;
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
  /** New API specifications scanned (security or full) this period. */
  api_specifications_used: number;
  /** null = unlimited. */
  api_specifications_limit: number | null;
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
    this.db.selectFrom('usage_periods').select(PERIOD_COLUMNS).where('tenant_id', '=', tenantId).orderBy('period_start', 'desc').limit(sql.lit(1)),
  );

  /**
   * The tenant's period that contains now, rolling over (and firing `quota_reset`) when the last one has
   * ended: a write, for the write paths only (admission inside its transaction, the sweep). Safe to race: a
   * period row is created at most once.
   */
  async currentPeriod(tenantId: string, plan: Plan, db: Kysely<Database> = this.db): Promise<UsagePeriod> {
    const [latest] = await this.latestPeriod(db, tenantId);
    const period = periodAt(latest && periodOf(latest), this.clock());
    if (latest && latest.period_start === period.start) return latest;
    return this.openPeriod(tenantId, plan, period.start, period.end, latest !== undefined, db);
  }

  /**
   * The tenant's period that contains now as reads show it, without writing: the stored one, or (until a
   * write path rolls it over) the new period as it will be opened, with nothing used yet.
   */
  private async shownPeriod(tenantId: string, plan: Plan, db: Kysely<Database>): Promise<{ period: UsagePeriod; stored: boolean }> {
    const [latest] = await this.latestPeriod(db, tenantId);
    return this.shownAfter(latest, tenantId, plan);
  }

  /** `shownPeriod` given the tenant's latest stored period (undefined before its first). */
  private shownAfter(latest: UsagePeriod | undefined, tenantId: string, plan: Plan): { period: UsagePeriod; stored: boolean } {
    const now = this.clock();
    const period = periodAt(latest && periodOf(latest), now);
    if (latest && latest.period_start === period.start) return { period: latest, stored: true };
    return { period: newPeriodRow(tenantId, plan, period, now.toISOString()), stored: false };
  }

  /**
   * Opens the period a paid invoice starts (see `renewedPeriod`): inside the webhook's transaction, after
   * the plan the payment gives is set.
   */
  async renewPeriod(tenantId: string, plan: Plan, paid: Period, db: Kysely<Database> = this.db): Promise<void> {
    const [latest] = await this.latestPeriod(db, tenantId);
    const period = renewedPeriod(paid, latest?.period_start, this.clock());
    if (period) await this.startPeriod(tenantId, plan, period.start, period.end, db);
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
    const inserted = await db
      .insertInto('usage_periods')
      .values(newPeriodRow(tenantId, plan, { start, end }, this.clock().toISOString()))
      .onConflict((oc) => oc.columns(['tenant_id', 'period_start']).doNothing())
      .executeTakeFirst();
    if (isReset && Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) {
      await this.recordAlert(
        { tenantId, type: 'quota_reset', quota: 'all', periodStart: start, used: 0, limit: quotaLimit(plan, 'functional') },
        `Quotas reset for the period starting ${start.slice(0, 10)}`,
        db,
      );
    }
    return db.selectFrom('usage_periods').selectAll().where('tenant_id', '=', tenantId).where('period_start', '=', start).executeTakeFirstOrThrow();
  }

  /**
   * Counts one scan against each quota (and a new API specification against `specifications`), only while
   * every one of them is below its limit (one UPDATE, so the counter never passes a limit whatever the
   * concurrency). Returns false when a quota is used up.
   */
  async consume(period: UsagePeriod, plan: Plan, quotas: Quota[], db: Kysely<Database> = this.db): Promise<boolean> {
    const limit = (quota: Quota) => quotaLimit(plan, quota);
    const takes = (quota: Quota) => quotas.includes(quota);
    let update = db
      .updateTable('usage_periods')
      .set((eb) => ({
        functional_used: takes('functional') ? eb('functional_used', '+', 1) : eb.ref('functional_used'),
        security_used: takes('security') ? eb('security_used', '+', 1) : eb.ref('security_used'),
        specifications_used: takes('specifications') ? eb('specifications_used', '+', 1) : eb.ref('specifications_used'),
        plan,
        functional_limit: limit('functional'),
        security_limit: limit('security'),
        specifications_limit: limit('specifications'),
        updated_at: this.clock().toISOString(),
      }))
      .where('tenant_id', '=', period.tenant_id)
      .where('period_start', '=', period.period_start);
    for (const quota of quotas) {
      const max = limit(quota);
      if (max !== null) update = update.where(USED_COLUMN[quota], '<', max);
    }
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;

    const after = await db
      .selectFrom('usage_periods')
      .select(['functional_used', 'security_used', 'specifications_used'])
      .where('tenant_id', '=', period.tenant_id)
      .where('period_start', '=', period.period_start)
      .executeTakeFirstOrThrow();
    for (const quota of quotas) {
      const used = after[USED_COLUMN[quota]];
      for (const alert of alertsFor(quota, used, limit(quota))) {
        await this.recordAlert(
          { tenantId: period.tenant_id, type: alert.type, quota, periodStart: period.period_start, used, limit: limit(quota) },
          alert.message,
          db,
        );
      }
    }
    return true;
  }

  /** Whether the tenant scanned the API specification `specKey` in the period already. */
  async knowsSpecification(period: UsagePeriod, specKey: string, db: Kysely<Database> = this.db): Promise<boolean> {
    const row = await db
      .selectFrom('period_specifications')
      .select('spec_key')
      .where('tenant_id', '=', period.tenant_id)
      .where('period_start', '=', period.period_start)
      .where('spec_key', '=', specKey)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Remembers that `scanId` was the period's first scan of the specification (inside admission, after `consume`). */
  async rememberSpecification(period: UsagePeriod, spec: { key: string; label: string }, scanId: string, db: Kysely<Database> = this.db): Promise<void> {
    await db
      .insertInto('period_specifications')
      .values({
        tenant_id: period.tenant_id,
        period_start: period.period_start,
        spec_key: spec.key,
        label: spec.label,
        first_scan_id: scanId,
        created_at: this.clock().toISOString(),
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'period_start', 'spec_key']).doNothing())
      .execute();
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

  /** The Usage resource; a read: it never rolls a period over nor records an alert. */
  async view(tenantId: string, plan: Plan, db: Kysely<Database> = this.db): Promise<UsageView> {
    const { period } = await this.shownPeriod(tenantId, plan, db);
    return toView(period, plan);
  }

  /** `view`, given the tenant's latest stored period as read just now (with the key: TenantRepository.findByApiKeyWithPeriod). */
  viewAfter(latest: UsagePeriod | undefined, tenantId: string, plan: Plan): UsageView {
    return toView(this.shownAfter(latest, tenantId, plan).period, plan);
  }

  /** Past periods and the current one, most recent first; a read, like `view`. */
  async history(tenantId: string, plan: Plan, page: number, perPage: number): Promise<Page<UsagePeriod & { current: boolean }>> {
    const current = await this.shownPeriod(tenantId, plan, this.db);
    // A current period not stored yet comes first, ahead of the stored rows.
    const unstored = current.stored ? 0 : 1;
    const first = (page - 1) * perPage;
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('usage_periods')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('period_start', 'desc')
        .limit(first === 0 ? perPage - unstored : perPage)
        .offset(Math.max(0, first - unstored))
        .execute(),
      this.db
        .selectFrom('usage_periods')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow(),
    ]);
    const items = rows.map((row) => {
      const isCurrent = row.period_start === current.period.period_start;
      // The open period shows the limits of the plan as it is now.
      return isCurrent
        ? {
            ...row,
            plan,
            functional_limit: quotaLimit(plan, 'functional'),
            security_limit: quotaLimit(plan, 'security'),
            specifications_limit: quotaLimit(plan, 'specifications'),
            current: true,
          }
        : { ...row, current: false };
    });
    if (unstored && first === 0) items.unshift({ ...current.period, current: true });
    return { items, total: Number(count.n) + unstored };
  }

  async alerts(tenantId: string, type: AlertType | undefined, page: number, perPage: number): Promise<Page<UsageAlert>> {
    let base = this.db.selectFrom('usage_alerts').where('tenant_id', '=', tenantId);
    if (type) base = base.where('type', '=', type);
    const [items, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('triggered_at', 'desc')
        .orderBy('id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
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

function periodOf(row: UsagePeriod): Period {
  return { start: row.period_start, end: row.period_end };
}

/** A period as it is opened: nothing used, the plan's limits. */
function newPeriodRow(tenantId: string, plan: Plan, period: Period, now: string): UsagePeriod {
  return {
    tenant_id: tenantId,
    period_start: period.start,
    period_end: period.end,
    plan,
    functional_used: 0,
    security_used: 0,
    functional_limit: quotaLimit(plan, 'functional'),
    security_limit: quotaLimit(plan, 'security'),
    specifications_used: 0,
    specifications_limit: quotaLimit(plan, 'specifications'),
    updated_at: now,
  };
}

export function toView(period: UsagePeriod, plan: Plan): UsageView {
  const fLimit = quotaLimit(plan, 'functional');
  const sLimit = quotaLimit(plan, 'security');
  const specLimit = quotaLimit(plan, 'specifications');
  return {
    tenant_id: period.tenant_id,
    plan,
    scans_used: period.functional_used,
    scans_limit: fLimit,
    scans_remaining: remaining(period.functional_used, fLimit),
    security_scan_count: period.security_used,
    monthly_security_scan_quota: sLimit,
    security_scans_remaining: remaining(period.security_used, sLimit),
    api_specifications_used: period.specifications_used,
    api_specifications_limit: specLimit,
    approaching_limit:
      isApproaching(period.functional_used, fLimit) || isApproaching(period.security_used, sLimit) || isApproaching(period.specifications_used, specLimit),
    quota_reset_date: period.period_end,
    period_start: period.period_start,
    period_end: period.period_end,
  };
}
