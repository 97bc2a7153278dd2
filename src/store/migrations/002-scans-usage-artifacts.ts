import type { Kysely } from 'kysely';

/** Scans (which are also the job queue), usage periods, alerts, visual baselines and artifacts. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scans')
    .ifNotExists()
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('mode', 'varchar(16)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('spec_url', 'text')
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('secret', 'text')
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(128)')
    .addColumn('lease_expires_at', 'varchar(32)')
    .addColumn('last_progress_at', 'varchar(32)')
    .addColumn('failure_reason', 'text')
    .addColumn('passed', 'integer')
    .addColumn('failed', 'integer')
    .addColumn('total', 'integer')
    .addColumn('elapsed_seconds', 'double precision')
    .addColumn('agent_count', 'integer')
    .addColumn('results', 'text')
    .addColumn('period_start', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('started_at', 'varchar(32)')
    .addColumn('completed_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('scans_tenant_created').ifNotExists().on('scans').columns(['tenant_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('scans_tenant_status_created').ifNotExists().on('scans').columns(['tenant_id', 'status', 'created_at', 'id']).execute();
  await db.schema.createIndex('scans_status_created').ifNotExists().on('scans').columns(['status', 'created_at']).execute();

  await db.schema
    .createTable('usage_periods')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('period_start', 'varchar(32)', (c) => c.notNull())
    .addColumn('period_end', 'varchar(32)', (c) => c.notNull())
    .addColumn('plan', 'varchar(32)', (c) => c.notNull())
    .addColumn('functional_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('security_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('functional_limit', 'integer')
    .addColumn('security_limit', 'integer')
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_periods_pk', ['tenant_id', 'period_start'])
    .execute();

  await db.schema
    .createTable('usage_alerts')
    .ifNotExists()
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('type', 'varchar(32)', (c) => c.notNull())
    .addColumn('quota', 'varchar(16)', (c) => c.notNull())
    .addColumn('period_start', 'varchar(32)', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('scans_used', 'integer', (c) => c.notNull())
    .addColumn('scans_limit', 'integer')
    .addColumn('triggered_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('usage_alerts_once', ['tenant_id', 'period_start', 'type', 'quota'])
    .execute();
  await db.schema.createIndex('usage_alerts_tenant').ifNotExists().on('usage_alerts').columns(['tenant_id', 'triggered_at']).execute();

  await db.schema
    .createTable('baselines')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('page_url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('viewport', 'varchar(32)', (c) => c.notNull())
    .addColumn('artifact_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('baselines_pk', ['tenant_id', 'page_url', 'viewport'])
    .execute();

  // Used by the database artifact store (distributed mode); the embedded store keeps files in the data dir.
  await db.schema
    .createTable('artifacts')
    .ifNotExists()
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('content_type', 'varchar(128)', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}
