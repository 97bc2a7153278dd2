import { sql, type Kysely } from 'kysely';

/**
 * `scans.queued_at`: when the scan last entered the queue (admitted, put back at shutdown, re-queued after
 * its lease lapsed). A claim overwrites `updated_at`, so without it the wait of a re-queued scan cannot be
 * measured. Filled for existing scans from `updated_at` (a queued scan's last change is its queueing) or
 * `created_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scans').addColumn('queued_at', 'varchar(32)').execute();
  await sql`update scans set queued_at = case when status = 'queued' then updated_at else created_at end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scans').dropColumn('queued_at').execute();
}
