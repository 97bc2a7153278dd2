import type { Kysely } from 'kysely';

/**
 * `suppressions`: findings a tenant's team has triaged as accepted (docs/triage in docs/api.md), by full
 * fingerprint, optionally only on one target URL, with the reason, the author (the audit log's actor)
 * and an optional expiry.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('suppressions')
    .ifNotExists()
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
    .addColumn('target', 'varchar(2048)')
    .addColumn('reason', 'varchar(500)', (c) => c.notNull())
    .addColumn('author', 'varchar(512)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('suppressions_tenant_created').ifNotExists().on('suppressions').columns(['tenant_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('suppressions').ifExists().execute();
}
