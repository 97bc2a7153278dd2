import type { Kysely } from 'kysely';

/**
 * Billing: the provider customer and current subscription of each tenant, the last known state of every
 * provider subscription (with the `created` of the last event applied to it, for ordering), every
 * webhook event applied (its id is the primary key: applied at most once), and the API keys issued to
 * tenants created by a checkout, sealed until the web application retrieves them once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('billing_accounts')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('customer_id', 'varchar(255)', (c) => c.unique())
    .addColumn('subscription_id', 'varchar(255)')
    .addColumn('payment_failed_at', 'varchar(32)')
    .addColumn('payment_failed_created', 'bigint')
    .addColumn('payment_failure', 'text')
    .addColumn('last_paid_created', 'bigint')
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('billing_subscriptions')
    .ifNotExists()
    .addColumn('id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('customer_id', 'varchar(255)')
    .addColumn('status', 'varchar(32)', (c) => c.notNull())
    .addColumn('price_id', 'varchar(255)')
    .addColumn('plan', 'varchar(32)')
    .addColumn('current_period_start', 'varchar(32)')
    .addColumn('current_period_end', 'varchar(32)')
    .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('revoked_created', 'bigint')
    .addColumn('last_event_created', 'bigint', (c) => c.notNull())
    .addColumn('last_event_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('billing_subscriptions_customer').ifNotExists().on('billing_subscriptions').column('customer_id').execute();

  await db.schema
    .createTable('billing_events')
    .ifNotExists()
    .addColumn('id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('type', 'varchar(128)', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('tenant_id', 'varchar(128)')
    .addColumn('outcome', 'varchar(32)', (c) => c.notNull())
    .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('billing_checkout_keys')
    .ifNotExists()
    .addColumn('session_id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('sealed_key', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('claimed_at', 'varchar(32)')
    .execute();
}
