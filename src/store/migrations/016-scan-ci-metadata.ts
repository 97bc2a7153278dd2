import type { Kysely } from 'kysely';

/**
 * `scans.ci`: what a CI run scanned (JSON of domain/ci.ts's ScanCi: repository, branch, commit, pull
 * request, run), and `scans.ci_branch`, its branch on its own so that the previous scan of a target on
 * a branch is found by an index (GET /scan/{id}/changes, GET /scans?branch=). Both null for scans
 * started without CI metadata, older ones included.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scans').addColumn('ci', 'text').execute();
  await db.schema.alterTable('scans').addColumn('ci_branch', 'varchar(255)').execute();
  await db.schema.createIndex('scans_tenant_url_branch').ifNotExists().on('scans').columns(['tenant_id', 'url', 'ci_branch', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('scans_tenant_url_branch').ifExists().execute();
  await db.schema.alterTable('scans').dropColumn('ci_branch').execute();
  await db.schema.alterTable('scans').dropColumn('ci').execute();
}
