import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';

interface OldBaseline {
  tenant_id: string;
  page_url: string;
  viewport: string;
  artifact_id: string;
  updated_at: string;
}

interface PageBaseline {
  id: string;
  tenant_id: string;
  page_key: string;
  viewport: string;
  device: string;
  branch: string;
  artifact_id: string;
  page_url: string | null;
  scan_id: string | null;
  created_at: string;
  updated_at: string;
}

interface Tables {
  baselines: OldBaseline;
  page_baselines: PageBaseline;
}

/** The key of 007: path and query. Written out here so a later change of the product's key cannot change this migration. */
function pathAndQuery(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return undefined;
  }
}

/**
 * `page_baselines`: baselines by tenant + stable page key (path and query, or a label) + viewport + device +
 * branch, each with an id the API names them by, replacing `baselines` (keyed by absolute URL). Existing
 * baselines move over on the default branch `main` and device `desktop` (every screenshot before this
 * was taken with desktop emulation); when several hosts had the same path, the most recent one is kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('page_baselines')
    .ifNotExists()
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('page_key', 'varchar(2048)', (c) => c.notNull())
    .addColumn('viewport', 'varchar(32)', (c) => c.notNull())
    .addColumn('device', 'varchar(16)', (c) => c.notNull())
    .addColumn('branch', 'varchar(255)', (c) => c.notNull())
    .addColumn('artifact_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('page_url', 'varchar(2048)')
    .addColumn('scan_id', 'varchar(64)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('page_baselines_key', ['tenant_id', 'page_key', 'viewport', 'device', 'branch'])
    .execute();
  await db.schema.createIndex('page_baselines_branch').ifNotExists().on('page_baselines').columns(['tenant_id', 'branch', 'page_key']).execute();

  const tables = db as Kysely<Tables>;
  const old = await tables.selectFrom('baselines').selectAll().orderBy('updated_at', 'desc').execute();
  const kept = new Map<string, PageBaseline>();
  for (const row of old) {
    const pageKey = pathAndQuery(row.page_url);
    if (pageKey === undefined) continue;
    const unique = JSON.stringify([row.tenant_id, pageKey, row.viewport]);
    if (kept.has(unique)) continue; // an older capture of the same path on another host
    kept.set(unique, {
      id: `bln_${randomBytes(12).toString('base64url')}`,
      tenant_id: row.tenant_id,
      page_key: pageKey,
      viewport: row.viewport,
      device: 'desktop',
      branch: 'main',
      artifact_id: row.artifact_id,
      page_url: row.page_url,
      scan_id: null,
      created_at: row.updated_at,
      updated_at: row.updated_at,
    });
  }
  const rows = [...kept.values()];
  for (let i = 0; i < rows.length; i += 100)
    await tables
      .insertInto('page_baselines')
      .values(rows.slice(i, i + 100))
      .execute();
  await db.schema.dropTable('baselines').execute();
}

/** Back to URL keys: default-branch desktop baselines that remember the URL they were captured at. */
export async function down(db: Kysely<unknown>): Promise<void> {
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
  const tables = db as Kysely<Tables>;
  const rows = await tables
    .selectFrom('page_baselines')
    .select(['tenant_id', 'page_url', 'viewport', 'artifact_id', 'updated_at'])
    .where('branch', '=', 'main')
    .where('device', '=', 'desktop')
    .where('page_url', 'is not', null)
    .orderBy('updated_at', 'desc')
    .execute();
  // A label and a path key captured at one URL: the most recent capture keeps it.
  const byUrl = new Map(rows.reverse().map((r) => [JSON.stringify([r.tenant_id, r.page_url, r.viewport]), { ...r, page_url: r.page_url! }]));
  const back = [...byUrl.values()];
  for (let i = 0; i < back.length; i += 100)
    await tables
      .insertInto('baselines')
      .values(back.slice(i, i + 100))
      .execute();
  await db.schema.dropTable('page_baselines').execute();
}
