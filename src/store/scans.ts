import type { Kysely } from 'kysely';
import type { ScanCi } from '../domain/ci.js';
import type { ScanMode, ScanStatus } from '../domain/scan.js';
import type { StoredResults, StoredScan, StoredScanInput } from '../domain/stored-scan.js';
import { storableText } from './database.js';
import { preparedQuery } from './prepared.js';
import type { Database, ScansTable } from './schema.js';
import type { Page } from './usage.js';

/** The scans table's row as stored: input and results are JSON text. */
export type ScanRow = ScansTable;
export type ScanListItem = Pick<
  StoredScan,
  'id' | 'mode' | 'status' | 'url' | 'created_at' | 'updated_at' | 'completed_at' | 'passed' | 'failed' | 'total' | 'progress' | 'ci'
>;

/** A scan's CI metadata column (016) decoded: null when the scan has none. */
export function decodeCi(text: string | null | undefined): ScanCi | null {
  return typeof text === 'string' && text.length > 0 ? (JSON.parse(text) as ScanCi) : null;
}

/** The one place a stored scan's JSON columns are decoded. */
export function decodeScanRow(row: ScanRow): StoredScan {
  const { ci_branch: _branch, ...rest } = row;
  return {
    ...rest,
    input: JSON.parse(row.input) as StoredScanInput,
    results: row.results === null ? null : (JSON.parse(row.results) as StoredResults),
    ci: decodeCi(row.ci),
  };
}

/** A finished scan the changes of another are told against (GET /scan/{id}/changes). */
export type PreviousScanBasis = 'same_branch' | 'base_branch' | 'target';

/** Scans as tenants see them (reads; every status change is in scan-states.ts). Every query is scoped by the tenant id resolved from the API key. */
export class ScanRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(tenantId: string, scanId: string): Promise<StoredScan | undefined> {
    if (!storableText(scanId)) return undefined;
    const row = await this.db.selectFrom('scans').selectAll().where('tenant_id', '=', tenantId).where('id', '=', scanId).executeTakeFirst();
    return row && decodeScanRow(row);
  }

  /** Status of one scan without its (possibly large) results. */
  async status(tenantId: string, scanId: string): Promise<(ScanListItem & Pick<StoredScan, 'failure_reason' | 'phase' | 'findings_so_far'>) | undefined> {
    if (!storableText(scanId)) return undefined;
    const [row] = await this.statusQuery(this.db, tenantId, scanId);
    return row && { ...row, ci: decodeCi(row.ci) };
  }

  private readonly statusQuery = preparedQuery((tenantId: string, scanId: string) =>
    this.db
      .selectFrom('scans')
      .select([
        'id',
        'mode',
        'status',
        'url',
        'created_at',
        'updated_at',
        'completed_at',
        'passed',
        'failed',
        'total',
        'progress',
        'failure_reason',
        'phase',
        'findings_so_far',
        'ci',
      ])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', scanId),
  );

  /** Most recent first; ties on created_at broken by id so pages never overlap. `filter`: only this mode, only this target URL (exact), only this CI branch. */
  async list(
    tenantId: string,
    status: ScanStatus | undefined,
    page: number,
    perPage: number,
    filter: { mode?: ScanMode; url?: string; branch?: string } = {},
  ): Promise<Page<ScanListItem>> {
    let base = this.db.selectFrom('scans').where('tenant_id', '=', tenantId);
    if (status) base = base.where('status', '=', status);
    if (filter.mode) base = base.where('mode', '=', filter.mode);
    if (filter.url) base = base.where('url', '=', filter.url);
    if (filter.branch) base = base.where('ci_branch', '=', filter.branch);
    const [rows, count] = await Promise.all([
      base
        .select(['id', 'mode', 'status', 'url', 'created_at', 'updated_at', 'completed_at', 'passed', 'failed', 'total', 'progress', 'ci'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map((row) => ({ ...row, ci: decodeCi(row.ci) })), total: Number(count.n) };
  }

  /**
   * The completed scan of the same target (URL and mode) before `scan` that its findings are compared
   * with: the latest on its CI branch; else, for a branch's first scan, the latest on its base branch;
   * else the latest of the target on any branch (a scan without branch first looks at scans without
   * one). Only the tenant's own scans.
   */
  async previousCompleted(
    scan: Pick<StoredScan, 'tenant_id' | 'id' | 'url' | 'mode' | 'created_at' | 'ci'>,
  ): Promise<{ scan: StoredScan; basis: PreviousScanBasis } | undefined> {
    const latest = async (branch: string | null | undefined) => {
      let q = this.db
        .selectFrom('scans')
        .selectAll()
        .where('tenant_id', '=', scan.tenant_id)
        .where('url', '=', scan.url)
        .where('mode', '=', scan.mode)
        .where('status', '=', 'completed')
        .where('id', '!=', scan.id)
        .where((eb) => eb.or([eb('created_at', '<', scan.created_at), eb.and([eb('created_at', '=', scan.created_at), eb('id', '<', scan.id)])]));
      if (branch === null) q = q.where('ci_branch', 'is', null);
      else if (branch !== undefined) q = q.where('ci_branch', '=', branch);
      const row = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
      return row && decodeScanRow(row);
    };
    const branch = scan.ci?.branch;
    const base = scan.ci?.base_branch;
    const steps: Array<[string | null | undefined, PreviousScanBasis]> = branch
      ? [[branch, 'same_branch'], ...(base && base !== branch ? [[base, 'base_branch'] as [string, PreviousScanBasis]] : []), [undefined, 'target']]
      : [
          [null, 'same_branch'],
          [undefined, 'target'],
        ];
    for (const [b, basis] of steps) {
      const found = await latest(b);
      if (found) return { scan: found, basis };
    }
    return undefined;
  }
}
