import type { Kysely } from 'kysely';
import { newId } from '../domain/ids.js';
import type { StoredResults } from '../domain/stored-scan.js';
import { functionalFindingFingerprints, taskFingerprint, type StoredSuppression } from '../domain/suppressions.js';
import type { Database } from './schema.js';
import type { Page } from './usage.js';

export type NewSuppression = Pick<StoredSuppression, 'fingerprint' | 'target' | 'reason' | 'author' | 'expires_at'>;

/**
 * How many of a tenant's most recent finished scans a fingerprint prefix is resolved against: the findings
 * a team triages are those of its recent scans, and reading every result a tenant ever stored would not scale.
 */
export const FINGERPRINT_LOOKBACK_SCANS = 500;

/** A tenant's server-side suppressions (both stores); every query is scoped by tenant. */
export class SuppressionRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(tenantId: string, fields: NewSuppression): Promise<StoredSuppression> {
    const row: StoredSuppression = { id: newId('sup'), tenant_id: tenantId, ...fields, created_at: this.clock().toISOString() };
    await this.db.insertInto('suppressions').values(row).execute();
    return row;
  }

  /** Newest first. */
  async list(tenantId: string, page: number, perPage: number): Promise<Page<StoredSuppression>> {
    const base = this.db.selectFrom('suppressions').where('tenant_id', '=', tenantId);
    const [items, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  /** Every suppression of the tenant (expired ones included: the caller knows the time and the target). */
  async all(tenantId: string): Promise<StoredSuppression[]> {
    return this.db.selectFrom('suppressions').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id').execute();
  }

  /** The removed suppression, or undefined when the tenant has none with this id. */
  async delete(tenantId: string, id: string): Promise<StoredSuppression | undefined> {
    const row = await this.db.selectFrom('suppressions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    await this.db.deleteFrom('suppressions').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
    return row;
  }

  /** The fingerprints of the findings (failed tasks) of the tenant's recent finished scans. */
  async findingFingerprints(tenantId: string): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('scans')
      .select('results')
      .where('tenant_id', '=', tenantId)
      .where('results', 'is not', null)
      .orderBy('created_at', 'desc')
      .limit(FINGERPRINT_LOOKBACK_SCANS)
      .execute();
    const out = new Set<string>();
    for (const row of rows) {
      const results = JSON.parse(row.results!) as StoredResults;
      for (const task of results.tasks ?? []) {
        const fingerprint = taskFingerprint(task);
        if (fingerprint) out.add(fingerprint);
      }
      // Functional findings: visual diffs and accessibility violations, by page.
      if (results.functional) for (const fingerprint of functionalFindingFingerprints(results.functional)) out.add(fingerprint);
    }
    return out;
  }
}
