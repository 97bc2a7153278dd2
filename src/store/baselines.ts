import type { Kysely } from 'kysely';
import type { Baseline, BaselineKey, BaselineSource, BaselineStore } from '../domain/artifacts.js';
import { newId } from '../domain/ids.js';
import { storableText } from './database.js';
import type { Database } from './schema.js';
import type { Page } from './usage.js';

/** Narrows a list of baselines; every field given must match exactly. */
export interface BaselineFilter {
  branch?: string;
  page_key?: string;
}

const COLUMNS = ['id', 'page_key', 'viewport', 'device', 'branch', 'artifact_id', 'page_url', 'scan_id', 'created_at', 'updated_at'] as const;

/** Visual baselines per tenant + page key + viewport + device + branch, in the shared database (both stores). */
export class DatabaseBaselineStore implements BaselineStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private byKey(tenantId: string, key: BaselineKey) {
    return this.db
      .selectFrom('page_baselines')
      .where('tenant_id', '=', tenantId)
      .where('page_key', '=', key.page_key)
      .where('viewport', '=', key.viewport)
      .where('device', '=', key.device)
      .where('branch', '=', key.branch);
  }

  async get(tenantId: string, key: BaselineKey): Promise<string | undefined> {
    const row = await this.byKey(tenantId, key).select('artifact_id').executeTakeFirst();
    return row?.artifact_id;
  }

  /** Sets (or replaces) the baseline under `key`; its id stays the same when it is replaced. */
  async set(tenantId: string, key: BaselineKey, artifactId: string, source: BaselineSource): Promise<Baseline> {
    const now = this.clock().toISOString();
    const changes = { artifact_id: artifactId, page_url: source.page_url, scan_id: source.scan_id ?? null, updated_at: now };
    await this.db
      .insertInto('page_baselines')
      .values({ id: newId('bln'), tenant_id: tenantId, ...key, ...changes, created_at: now })
      .onConflict((oc) => oc.columns(['tenant_id', 'page_key', 'viewport', 'device', 'branch']).doUpdateSet(changes))
      .execute();
    return this.byKey(tenantId, key).select(COLUMNS).executeTakeFirstOrThrow();
  }

  /** The tenant's baselines ordered by branch, page key, viewport and device. */
  async list(tenantId: string, filter: BaselineFilter, page: number, perPage: number): Promise<Page<Baseline>> {
    if (filter.page_key !== undefined && !storableText(filter.page_key)) return { items: [], total: 0 };
    let base = this.db.selectFrom('page_baselines').where('tenant_id', '=', tenantId);
    if (filter.branch !== undefined) base = base.where('branch', '=', filter.branch);
    if (filter.page_key !== undefined) base = base.where('page_key', '=', filter.page_key);
    const [items, count] = await Promise.all([
      base
        .select(COLUMNS)
        .orderBy('branch')
        .orderBy('page_key')
        .orderBy('viewport')
        .orderBy('device')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  /** The tenant's baseline `id`; another tenant's is undefined, like a missing one. */
  async find(tenantId: string, id: string): Promise<Baseline | undefined> {
    if (!storableText(id)) return undefined;
    return this.db.selectFrom('page_baselines').select(COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  }

  /** True when the tenant's baseline `id` existed and is gone. Its screenshot stays (reports may show it). */
  async delete(tenantId: string, id: string): Promise<boolean> {
    if (!storableText(id)) return false;
    const result = await this.db.deleteFrom('page_baselines').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
