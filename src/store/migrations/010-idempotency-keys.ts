import type { Kysely } from 'kysely';

/**
 * `idempotency_keys`: the first answer to a creating POST sent with an `Idempotency-Key` header, per
 * tenant and key, with the SHA-256 (hex) of the request (method, path, body) it answered. `state` is
 * `pending` while the first request runs (`locked_at` says since when) and `done` once its answer is
 * stored. Rows older than 24 h are ignored and swept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('idem_key', 'varchar(255)', (c) => c.notNull())
    .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('locked_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').ifNotExists().on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').ifExists().execute();
}
