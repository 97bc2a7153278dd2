import type { Kysely } from 'kysely';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/plans.js';
import type { ScanMode, ScanStatus } from '../domain/scan.js';
import type { StoredResults, StoredScan, StoredScanInput } from '../domain/stored-scan.js';
import { quotaLimit, quotasFor, type Quota } from '../domain/usage.js';
import { storableText, type Dialect } from './database.js';
import { preparedQuery } from './prepared.js';
import type { Database, ScansTable } from './schema.js';
import type { Page, UsageRepository } from './usage.js';

/** The scans table's row as stored: input and results are JSON text. */
export type ScanRow = ScansTable;
export type ScanListItem = Pick<
  StoredScan,
  'id' | 'mode' | 'status' | 'url' | 'created_at' | 'updated_at' | 'completed_at' | 'passed' | 'failed' | 'total' | 'progress'
>;

/** The one place a stored scan's JSON columns are decoded. */
export function decodeScanRow(row: ScanRow): StoredScan {
  return { ...row, input: JSON.parse(row.input) as StoredScanInput, results: row.results === null ? null : (JSON.parse(row.results) as StoredResults) };
}

export const ACTIVE_STATUSES: readonly ScanStatus[] = ['queued', 'running'];
export const FINAL_STATUSES: readonly ScanStatus[] = ['completed', 'failed', 'cancelled'];

export class QuotaExceededError extends Error {
  constructor(
    readonly quota: Quota,
    readonly limit: number,
    readonly resetDate: string,
  ) {
    super(`${quota === 'functional' ? 'Functional' : 'Security'} scan quota of ${limit} per period is used up; it resets on ${resetDate}`);
  }
}

export class ConcurrentLimitError extends Error {
  constructor(readonly limit: number) {
    super(`${limit} scan${limit === 1 ? ' is' : 's are'} already queued or running for this tenant, the most the plan allows at once; start this one when one finishes`);
  }
}

export interface NewScan {
  mode: ScanMode;
  url: string;
  specUrl: string | null;
  /** The scan input without target credentials, as JSON. */
  input: string;
  /** Sealed target credentials, or null. */
  secret: string | null;
}

/** Scans as tenants see them. Every query is scoped by the tenant id resolved from the API key. */
export class ScanRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly usage: UsageRepository,
  ) {}

  /**
   * Admission in one transaction, serialised per tenant: quota (402), then concurrency (429), then the
   * quota is consumed and the scan queued. Nothing changes when it is refused.
   */
  async admit(tenantId: string, scan: NewScan, concurrentLimit: (plan: Plan) => number): Promise<StoredScan> {
    return this.db.transaction().execute(async (trx) => {
      let lock = trx.selectFrom('tenants').select('plan').where('id', '=', tenantId);
      if (this.dialect === 'postgres') lock = lock.forUpdate();
      const { plan } = await lock.executeTakeFirstOrThrow();

      const period = await this.usage.currentPeriod(tenantId, plan, trx);
      const quotas = quotasFor(scan.mode);
      for (const quota of quotas) {
        const limit = quotaLimit(plan, quota);
        const used = quota === 'functional' ? period.functional_used : period.security_used;
        if (limit !== null && used >= limit) throw new QuotaExceededError(quota, limit, period.period_end);
      }
      const limit = concurrentLimit(plan);
      const active = await trx
        .selectFrom('scans')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('status', 'in', ACTIVE_STATUSES)
        .executeTakeFirstOrThrow();
      if (Number(active.n) >= limit) throw new ConcurrentLimitError(limit);
      if (!(await this.usage.consume(period, plan, quotas, trx))) {
        const quota = quotas[0] ?? 'functional';
        throw new QuotaExceededError(quota, quotaLimit(plan, quota) ?? 0, period.period_end);
      }

      const now = this.usage.now().toISOString();
      const row: ScanRow = {
        id: newId('scn'),
        tenant_id: tenantId,
        mode: scan.mode,
        status: 'queued',
        url: scan.url,
        spec_url: scan.specUrl,
        input: scan.input,
        secret: scan.secret,
        progress: 0,
        attempts: 0,
        lease_owner: null,
        lease_expires_at: null,
        last_progress_at: null,
        failure_reason: null,
        passed: null,
        failed: null,
        total: null,
        elapsed_seconds: null,
        agent_count: null,
        results: null,
        period_start: period.period_start,
        created_at: now,
        updated_at: now,
        started_at: null,
        completed_at: null,
        announced_at: null,
      };
      await trx.insertInto('scans').values(row).execute();
      return decodeScanRow(row);
    });
  }

  async get(tenantId: string, scanId: string): Promise<StoredScan | undefined> {
    if (!storableText(scanId)) return undefined;
    const row = await this.db.selectFrom('scans').selectAll().where('tenant_id', '=', tenantId).where('id', '=', scanId).executeTakeFirst();
    return row && decodeScanRow(row);
  }

  /** Status of one scan without its (possibly large) results. */
  async status(tenantId: string, scanId: string): Promise<ScanListItem & { failure_reason: string | null } | undefined> {
    if (!storableText(scanId)) return undefined;
    const [row] = await this.statusQuery(this.db, tenantId, scanId);
    return row;
  }

  private readonly statusQuery = preparedQuery((tenantId: string, scanId: string) =>
    this.db
      .selectFrom('scans')
      .select(['id', 'mode', 'status', 'url', 'created_at', 'updated_at', 'completed_at', 'passed', 'failed', 'total', 'progress', 'failure_reason'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', scanId),
  );

  /** Most recent first; ties on created_at broken by id so pages never overlap. */
  async list(tenantId: string, status: ScanStatus | undefined, page: number, perPage: number): Promise<Page<ScanListItem>> {
    let base = this.db.selectFrom('scans').where('tenant_id', '=', tenantId);
    if (status) base = base.where('status', '=', status);
    const [items, count] = await Promise.all([
      base
        .select(['id', 'mode', 'status', 'url', 'created_at', 'updated_at', 'completed_at', 'passed', 'failed', 'total', 'progress'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  /** Records that the scan's final state was announced, so no reaper announces it again. */
  async markAnnounced(scanId: string): Promise<void> {
    await this.db
      .updateTable('scans')
      .set({ announced_at: this.usage.now().toISOString() })
      .where('id', '=', scanId)
      .where('status', 'in', FINAL_STATUSES)
      .where('announced_at', 'is', null)
      .execute();
  }

  /** Cancels a queued or running scan. Returns the scan as it is afterwards, or undefined if it is not the tenant's. */
  async cancel(tenantId: string, scanId: string): Promise<{ scan: StoredScan; changed: boolean } | undefined> {
    if (!storableText(scanId)) return undefined;
    const now = this.usage.now().toISOString();
    const result = await this.db
      .updateTable('scans')
      .set({ status: 'cancelled', failure_reason: 'Cancelled by request', secret: null, lease_owner: null, lease_expires_at: null, completed_at: now, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', scanId)
      .where('status', 'in', ACTIVE_STATUSES)
      .executeTakeFirst();
    const scan = await this.get(tenantId, scanId);
    return scan ? { scan, changed: Number(result.numUpdatedRows) > 0 } : undefined;
  }
}
