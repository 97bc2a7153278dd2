import type { Kysely } from 'kysely';

/**
 * `billing_checkout_claims`: the checkouts a new customer started from the dashboard (POST /billing/signup),
 * each with the SHA-256 (hex) of the one-time claim token handed to the browser that started it. Whoever
 * presents that token may fetch, once, the key of the tenant the completed checkout creates
 * (POST /billing/checkout-sessions/{id}/claim); the token itself is never stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('billing_checkout_claims')
    .ifNotExists()
    .addColumn('session_id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('plan', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('billing_checkout_claims').ifExists().execute();
}
