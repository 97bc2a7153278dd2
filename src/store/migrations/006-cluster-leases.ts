import type { Kysely } from 'kysely';

/**
 * `cluster_leases`: jobs that run once per cluster (the maintenance job) are held by one process at a
 * time. The holder renews its row; when it stops renewing (it died), another process takes the expired row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cluster_leases')
    .ifNotExists()
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('holder', 'varchar(256)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cluster_leases').ifExists().execute();
}
