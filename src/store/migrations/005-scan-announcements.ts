import { sql, type Kysely } from 'kysely';

/**
 * `scans.announced_at`: when the scan's final state was announced (its usage_update published). A worker
 * that dies between writing a final state and announcing it leaves it null, and a reaper announces it
 * late. Scans that were final before this migration count as announced.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scans').addColumn('announced_at', 'varchar(32)').execute();
  await sql`update scans set announced_at = coalesce(completed_at, updated_at) where status in ('completed', 'failed', 'cancelled')`.execute(db);
  // Only scans not yet announced (active ones, and the rare final one a dead worker left) are in it.
  await db.schema.createIndex('scans_unannounced').ifNotExists().on('scans').column('completed_at').where(sql.ref('announced_at'), 'is', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('scans_unannounced').ifExists().execute();
  await db.schema.alterTable('scans').dropColumn('announced_at').execute();
}
