/**
 * PostgreSQL: a request waiting for a pooled connection waits as long as it takes, not
 * CONNECT_TIMEOUT_MS (that bound is for reaching a database that is down). Admissions of one tenant are
 * serialised on its row lock; with the lock held past 5 s by another transaction, more starts than the
 * pool has connections queue behind it. They used to fail with 503 ("timeout exceeded when trying to
 * connect") while the database was up; each must end admitted or refused by the quota.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, usingPostgres, type TestServer } from '../helpers/server.js';

if (!usingPostgres) console.log('[pool-queue] skipped: the pool and its queue exist only with DATABASE_URL (PostgreSQL)');

describe.skipIf(!usingPostgres)('starts queued behind a held tenant lock on PostgreSQL', () => {
  let server: TestServer;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    // No worker: the scans stay queued, so only the admission is measured.
    server = await startServer({ env: { VIGIL_ROLE: 'api' } });
    const tenant = await server.createTenant('enterprise');
    key = tenant.apiKey;
    tenantId = tenant.tenantId;
  });
  afterAll(async () => server?.stop());

  it('all end admitted, none 503, though they waited longer than the connect timeout', async () => {
    const holder = new pg.Client({ connectionString: server.store.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select plan from tenants where id = $1 for update', [tenantId]);
      const starts = Promise.all(
        Array.from({ length: 25 }, () =>
          call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: 'http://target.test/', mode: 'functional' } }),
        ),
      );
      // Longer than CONNECT_TIMEOUT_MS (5 s): the queued requests must still be waiting, not failed.
      await new Promise((r) => setTimeout(r, 6500));
      await holder.query('commit');
      const statuses = (await starts).map((r) => r.status);
      expect(statuses.filter((s) => s !== 202)).toEqual([]);
    } finally {
      await holder.end();
    }
  }, 120_000);
});
