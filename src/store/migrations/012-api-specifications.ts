import type { Kysely } from 'kysely';

/**
 * The API-specification quota (docs/api.md): `usage_periods` counts the new specifications scanned in each
 * period (`specifications_used`, with the limit of the plan when last counted), and `period_specifications`
 * lists which specifications (by their stable key, domain/spec-identity.ts) a tenant has scanned in a
 * period, so a scan of a known one is not counted again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('usage_periods')
    .addColumn('specifications_used', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('usage_periods').addColumn('specifications_limit', 'integer').execute();
  await db.schema
    .createTable('period_specifications')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('period_start', 'varchar(32)', (c) => c.notNull())
    .addColumn('spec_key', 'varchar(80)', (c) => c.notNull())
    .addColumn('label', 'varchar(255)', (c) => c.notNull())
    .addColumn('first_scan_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('period_specifications_pk', ['tenant_id', 'period_start', 'spec_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('period_specifications').ifExists().execute();
  await db.schema.alterTable('usage_periods').dropColumn('specifications_limit').execute();
  await db.schema.alterTable('usage_periods').dropColumn('specifications_used').execute();
}
