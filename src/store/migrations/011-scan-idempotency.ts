import type { Kysely } from 'kysely';

/**
 * `scan_idempotency`: which scan a tenant's `Idempotency-Key` admitted, written in the admission's own
 * transaction. A retry whose first attempt died after the scan was committed but before its answer was
 * stored finds the scan here and is answered with it, instead of admitting (and charging) a second one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scan_idempotency')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('idem_key', 'varchar(255)', (c) => c.notNull())
    .addColumn('scan_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_idempotency_pk', ['tenant_id', 'idem_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scan_idempotency').ifExists().execute();
}
