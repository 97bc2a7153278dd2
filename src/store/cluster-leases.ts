import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Named leases that make a job run in one process of the cluster at a time (a lease row rather than a
 * PostgreSQL advisory lock, so SQLite processes sharing a data dir are covered the same way). The holder
 * renews before each run; a holder that stops renewing loses the lease once it expires.
 */
export class ClusterLeases {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Takes or renews `name` for `holder` for `seconds`. False while another holder's lease runs. */
  async acquire(name: string, holder: string, seconds: number): Promise<boolean> {
    const now = this.clock();
    const expires = new Date(now.getTime() + seconds * 1000).toISOString();
    const renewed = await this.db
      .updateTable('cluster_leases')
      .set({ holder, expires_at: expires })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', now.toISOString())]))
      .executeTakeFirst();
    if (Number(renewed.numUpdatedRows) > 0) return true;
    const created = await this.db
      .insertInto('cluster_leases')
      .values({ name, holder, expires_at: expires })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(created.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Gives the lease up at once (a clean shutdown), so another process need not wait for it to expire. */
  async release(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom('cluster_leases').where('name', '=', name).where('holder', '=', holder).execute();
  }

  async holder(name: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('cluster_leases').select(['holder', 'expires_at']).where('name', '=', name).executeTakeFirst();
    return row && row.expires_at >= this.clock().toISOString() ? row.holder : undefined;
  }
}
