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

/** The columns of a scan's status (GET /scan/{id}), by name (prepared statements name their columns). */
export const STATUS_COLUMNS = [
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
] as const;
export type ScanStatusRow = Pick<ScanRow, (typeof STATUS_COLUMNS)[number]>;
export type ScanStatusView = ScanListItem & Pick<StoredScan, 'failure_reason' | 'phase' | 'findings_so_far'>;

export function decodeStatusRow(row: ScanStatusRow): ScanStatusView {
  return { ...row, ci: decodeCi(row.ci) };
}

/** The columns of a list item, by name (prepared statements name their columns). */
const LIST_COLUMNS = ['id', 'mode', 'status', 'url', 'created_at', 'updated_at', 'completed_at', 'passed', 'failed', 'total', 'progress', 'ci'] as const;

const LIST_FILTERS = ['status', 'mode', 'url', 'branch'] as const;
type ListFilter = (typeof LIST_FILTERS)[number];
type ListFilters = Record<ListFilter, string | undefined>;
const LIST_FILTER_COLUMN = { status: 'status', mode: 'mode', url: 'url', branch: 'ci_branch' } as const satisfies Record<ListFilter, keyof ScanRow>;

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
  async status(tenantId: string, scanId: string): Promise<ScanStatusView | undefined> {
    if (!storableText(scanId)) return undefined;
    const [row] = await this.statusQuery(this.db, tenantId, scanId);
    return row && decodeStatusRow(row);
  }

  private readonly statusQuery = preparedQuery((tenantId: string, scanId: string) =>
    this.db.selectFrom('scans').select(STATUS_COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', scanId),
  );

  /**
   * Most recent first; ties on created_at broken by id so pages never overlap. `filter`: only this mode,
   * only this target URL (exact), only this CI branch. The page and the total come from one statement.
   */
  async list(
    tenantId: string,
    status: ScanStatus | undefined,
    page: number,
    perPage: number,
    filter: { mode?: ScanMode; url?: string; branch?: string } = {},
  ): Promise<Page<ScanListItem>> {
    const filters: ListFilters = { status, mode: filter.mode, url: filter.url, branch: filter.branch };
    const given = LIST_FILTERS.filter((name) => filters[name] !== undefined && filters[name] !== '');
    const shape = given.join(',');
    let queries = this.listQueries.get(shape);
    if (!queries) this.listQueries.set(shape, (queries = this.listStatements(given)));
    const values = given.map((name) => filters[name]!);
    const rows = await queries.page(this.db, tenantId, ...values, tenantId, ...values, perPage, (page - 1) * perPage);
    const items = rows.map(({ n: _n, ...row }) => ({ ...row, ci: decodeCi(row.ci) }));
    if (rows.length > 0) return { items, total: Number(rows[0]!.n) };
    // An empty first page means nothing matches; past the end, the total needs a statement of its own.
    if (page === 1) return { items, total: 0 };
    const [count] = await queries.count(this.db, tenantId, ...values);
    return { items, total: Number(count?.n ?? 0) };
  }

  /** The prepared list statements of each set of filters given (at most 2^4). */
  private readonly listQueries = new Map<string, ReturnType<ScanRepository['listStatements']>>();

  /**
   * `page`: the page, each row carrying the tenant's count under the filters (`n`, an uncorrelated
   * subquery, evaluated once, that reads the (tenant_id, ...) index alone: a window count, `count(*) over
   * ()`, would read every matching row in full). `count`: that count alone, for a page past the end.
   * Arguments: the tenant id and the filters' values (for the count), again (for the page), then the
   * limit and the offset.
   */
  private listStatements(given: ListFilter[]) {
    const filtered = (tenantId: string, values: string[]) =>
      given.reduce((q, name, i) => q.where(LIST_FILTER_COLUMN[name], '=', values[i]! as never), this.db.selectFrom('scans').where('tenant_id', '=', tenantId));
    const counted = (tenantId: string, values: string[]) => filtered(tenantId, values).select((eb) => eb.fn.countAll<number | string>().as('n'));
    const n = given.length;
    return {
      page: preparedQuery((...args: Array<string | number>) =>
        filtered(args[n + 1] as string, args.slice(n + 2, 2 * n + 2) as string[])
          .select(counted(args[0] as string, args.slice(1, n + 1) as string[]).as('n'))
          .select(LIST_COLUMNS)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(args[2 * n + 2] as number)
          .offset(args[2 * n + 3] as number),
      ),
      count: preparedQuery((...args: string[]) => counted(args[0]!, args.slice(1))),
    };
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
