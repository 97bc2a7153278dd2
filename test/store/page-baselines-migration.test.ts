import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseBaselineStore } from '../../src/store/baselines.js';
import { openStore, type Store } from '../../src/store/database.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { freshStore, storeLabel, type TestStore } from '../helpers/server.js';

/** Kysely on the test store without the product's migrate-to-latest, to stop at a given migration. */
function rawDb(store: TestStore): Kysely<any> {
  const url = store.env.DATABASE_URL;
  if (url) return new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }) });
  return new Kysely({ dialect: new SqliteDialect({ database: new SQLite(join(store.env.VIGIL_DATA_DIR, 'vigil.db')) }) });
}

async function migrateTo(db: Kysely<any>, name: string): Promise<void> {
  const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db).catch(() => undefined))?.rows[0]?.schema;
  const { error } = await new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema }).migrateTo(name);
  if (error) throw error;
}

/**
 * Migration 007: baselines keyed by absolute URL become baselines keyed by path and query on the default
 * branch, so scans after the upgrade keep comparing against them, whichever host they reach the page on.
 */
describe(`migration 007: URL-keyed baselines to page keys (${storeLabel})`, () => {
  let store: TestStore;
  let opened: Store;
  beforeAll(async () => {
    store = await freshStore();
    const db = rawDb(store);
    await migrateTo(db, '006-cluster-leases');
    const now = '2026-11-20T00:00:00.000Z';
    for (const id of ['t1', 't2'])
      await db
        .insertInto('tenants')
        .values({ id, plan: 'pro', status: 'active', email: `${id}@x.test`, created_at: now, updated_at: now })
        .execute();
    await db
      .insertInto('baselines')
      .values([
        { tenant_id: 't1', page_url: 'http://localhost:3000/', viewport: '1280x800', artifact_id: 'art_home_old', updated_at: '2026-11-01T00:00:00.000Z' },
        { tenant_id: 't1', page_url: 'http://127.0.0.1:3000/', viewport: '1280x800', artifact_id: 'art_home_new', updated_at: '2026-11-02T00:00:00.000Z' },
        {
          tenant_id: 't1',
          page_url: 'https://shop.example.com/pricing?plan=pro#top',
          viewport: '1280x800',
          artifact_id: 'art_pricing',
          updated_at: '2026-11-03T00:00:00.000Z',
        },
        {
          tenant_id: 't1',
          page_url: 'https://shop.example.com/pricing?plan=pro',
          viewport: '375x667',
          artifact_id: 'art_pricing_small',
          updated_at: '2026-11-03T00:00:00.000Z',
        },
        { tenant_id: 't2', page_url: 'http://localhost:3000/', viewport: '1280x800', artifact_id: 'art_t2_home', updated_at: '2026-11-01T00:00:00.000Z' },
      ])
      .execute();
    await db.destroy();
    opened = await openStore({ dataDir: store.env.VIGIL_DATA_DIR, databaseUrl: store.env.DATABASE_URL });
  });
  afterAll(async () => {
    await opened?.close();
    await store?.dispose();
  });

  it('keeps every baseline under its path and query on main/desktop; of two hosts, the newer capture', async () => {
    const baselines = new DatabaseBaselineStore(opened.db);
    const key = (page_key: string, viewport = '1280x800') => ({ page_key, viewport, device: 'desktop' as const, branch: 'main' });
    expect(await baselines.get('t1', key('/'))).toBe('art_home_new');
    expect(await baselines.get('t1', key('/pricing?plan=pro'))).toBe('art_pricing');
    expect(await baselines.get('t1', key('/pricing?plan=pro', '375x667'))).toBe('art_pricing_small');
    expect(await baselines.get('t2', key('/'))).toBe('art_t2_home');
    expect(await baselines.get('t1', { ...key('/'), device: 'mobile' })).toBeUndefined();
    const listed = await baselines.list('t1', {}, 1, 20);
    expect(listed.total).toBe(3);
    for (const b of listed.items) {
      expect(b.id).toMatch(/^bln_/);
      expect(b.scan_id).toBeNull();
      expect(b.page_url).toMatch(/^https?:\/\//);
    }
  });

  it('drops the URL-keyed table', async () => {
    const gone = await sql`select count(*) as n from baselines`.execute(opened.db).then(
      () => false,
      () => true,
    );
    expect(gone).toBe(true);
  });

  it('migrates back down to URL keys: main/desktop baselines return under the URL they were captured at', async () => {
    const baselines = new DatabaseBaselineStore(opened.db);
    await baselines.set('t1', { page_key: '/', viewport: '1280x800', device: 'desktop', branch: 'feature/x' }, 'art_branch', {
      page_url: 'http://localhost:3000/',
    });
    await migrateTo(opened.db, '006-cluster-leases');
    const rows = await sql<{
      tenant_id: string;
      page_url: string;
      viewport: string;
      artifact_id: string;
    }>`select tenant_id, page_url, viewport, artifact_id from baselines order by tenant_id, page_url, viewport`.execute(opened.db);
    expect(rows.rows).toEqual([
      { tenant_id: 't1', page_url: 'http://127.0.0.1:3000/', viewport: '1280x800', artifact_id: 'art_home_new' },
      { tenant_id: 't1', page_url: 'https://shop.example.com/pricing?plan=pro', viewport: '375x667', artifact_id: 'art_pricing_small' },
      { tenant_id: 't1', page_url: 'https://shop.example.com/pricing?plan=pro#top', viewport: '1280x800', artifact_id: 'art_pricing' },
      { tenant_id: 't2', page_url: 'http://localhost:3000/', viewport: '1280x800', artifact_id: 'art_t2_home' },
    ]);
  });
});
