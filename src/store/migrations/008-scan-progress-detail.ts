import type { Kysely } from 'kysely';

/**
 * `scans.phase` and `scans.findings_so_far`: what a running scan is doing (an engine's phase, e.g.
 * `discovery`, `read`, `pages`) and how many failed tasks it has found so far, written with its progress.
 * Both are null until an engine reports them (and for every scan before this migration).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scans').addColumn('phase', 'varchar(64)').execute();
  await db.schema.alterTable('scans').addColumn('findings_so_far', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scans').dropColumn('findings_so_far').execute();
  await db.schema.alterTable('scans').dropColumn('phase').execute();
}
