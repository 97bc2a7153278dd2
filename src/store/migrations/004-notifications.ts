import type { Kysely } from 'kysely';

/** Per-tenant outbound notification settings; channel URLs, headers and secrets sealed with the SecretBox. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_settings')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notification_settings').ifExists().execute();
}
