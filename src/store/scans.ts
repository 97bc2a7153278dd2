import type { Kysely } from 'kysely';
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
  'id' | 'mode' | 'status' | 'url' | 'created_at' | 'updated_at' | 'completed_at' | 'passed' | 'failed' | 'total' | 'progress'
>;

/** The one place a stored scan's JSON columns are decoded. */
export function decodeScanRow(row: ScanRow): StoredScan {
  return { ...row, input: JSON.parse(row.input) as StoredScanInput, results: row.results === null ? null : (JSON.parse(row.results) as StoredResults) };
}

/** Scans as tenants see them (reads; every status change is in scan-states.ts). Every query is scoped by the tenant id resolved from the API key. */
export class ScanRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(tenantId: string, scanId: string): Promise<StoredScan | undefined> {
    if (!storableText(scanId)) return undefined;
    const row = await this.db.selectFrom('scans').selectAll().where('tenant_id', '=', tenantId).where('id', '=', scanId).executeTakeFirst();
    return row && decodeScanRow(row);
  }

  /** Status of one scan without its (possibly large) results. */
  async status(tenantId: string, scanId: string): Promise<ScanListItem & Pick<StoredScan, 'failure_reason' | 'phase' | 'findings_so_far'> | undefined> {
    if (!storableText(scanId)) return undefined;
    const [row] = await this.statusQuery(this.db, tenantId, scanId);
    return row;
  }

  private readonly statusQuery = preparedQuery((tenantId: string, scanId: string) =>
    this.db
      .selectFrom('scans')
      .select(['id', 'mode', 'status', 'url', 'created_at', 'updated_at', 'completed_at', 'passed', 'failed', 'total', 'progress', 'failure_reason', 'phase', 'findings_so_far'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', scanId),
  );

  /** Most recent first; ties on created_at broken by id so pages never overlap. `filter`: only this mode, only this target URL (exact). */
  async list(tenantId: string, status: ScanStatus | undefined, page: number, perPage: number, filter: { mode?: ScanMode; url?: string } = {}): Promise<Page<ScanListItem>> {
    let base = this.db.selectFrom('scans').where('tenant_id', '=', tenantId);
    if (status) base = base.where('status', '=', status);
    if (filter.mode) base = base.where('mode', '=', filter.mode);
    if (filter.url) base = base.where('url', '=', filter.url);
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
}
