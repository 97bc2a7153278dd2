import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/database.js';
import { TenantRepository } from '../../src/store/tenants.js';

/**
 * Several processes share one SQLite file (api, workers, the CLI). A transaction that read before
 * another process committed a write must still be able to write: found by test/process/chaos.test.ts
 * as a 500 on POST /scan ("database is locked") with two api processes.
 */
describe('SQLite transactions shared with another process', () => {
  let dir: string;
  let store: Store;
  let other: SQLite.Database;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-sqlite-'));
    store = await openStore({ dataDir: dir });
    // Another process's connection; no busy wait, so the test cannot hang on a lock.
    other = new SQLite(join(dir, 'vigil.db'));
    other.pragma('busy_timeout = 0');
  });
  afterAll(async () => {
    other?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a transaction holds the write lock from its start, so a write from elsewhere cannot slip in between its read and its write', async () => {
    const tenants = new TenantRepository(store.db);
    const { tenant } = await tenants.create({ plan: 'pro' });
    const { tenant: neighbour } = await tenants.create({ plan: 'pro' });
    let interleaved: unknown;
    await store.db.transaction().execute(async (trx) => {
      await trx.selectFrom('tenants').select('plan').where('id', '=', tenant.id).executeTakeFirstOrThrow();
      try {
        other.prepare("update tenants set email = 'x@neighbour.test' where id = ?").run(neighbour.id);
        interleaved = 'committed';
      } catch (error) {
        interleaved = (error as Error).message;
      }
      await trx.updateTable('tenants').set({ email: 'mine@tenant.test' }).where('id', '=', tenant.id).execute();
    });
    expect(interleaved).toBe('database is locked');
    expect((await tenants.get(tenant.id))?.email).toBe('mine@tenant.test');
    // Once the transaction is over, the other connection writes normally.
    expect(other.prepare("update tenants set email = 'x@neighbour.test' where id = ?").run(neighbour.id).changes).toBe(1);
  });
});
