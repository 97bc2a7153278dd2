/**
 * The heartbeat thread renews a claimed scan's lease at once. When that first renewal fails (the
 * database away for a moment: refused connections on PostgreSQL, a writer holding the SQLite file past
 * the busy timeout), the claim's own lease still runs: the scan stays this worker's, as it would after
 * any later renewal's failure, instead of being given up, left "running" for the reaper and costing an
 * attempt. Only when the claim's lease has run out too is the scan let go.
 */
import SQLite from 'better-sqlite3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFileIn, type StoreOptions } from '../../src/store/database.js';
import { ScanLeases } from '../../src/store/scan-leases.js';
import { ScanStates } from '../../src/store/scan-states.js';
import { UsageRepository } from '../../src/store/usage.js';
import { call, freshStore, startServer, storeLabel, usingPostgres, type TestServer, type TestStore } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const WORKER = 'first-renewal-worker';

describe(`a failing first lease renewal (${storeLabel})`, () => {
  let store: TestStore;
  let api: TestServer;
  let key: string;
  let states: ScanStates;

  beforeAll(async () => {
    store = await freshStore();
    // No worker in this process: the test claims the scans itself.
    api = await startServer({ store, env: { VIGIL_ROLE: 'api' } });
    key = (await api.createTenant('enterprise')).apiKey;
    const { db, dialect } = api.vigil.services.store;
    states = new ScanStates(db, dialect, new UsageRepository(db));
  });
  afterAll(async () => {
    await api?.stop();
    await store?.dispose();
  });

  const claimed = async (leaseSeconds: number) => {
    const res = await call(`${api.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: 'http://target.test/', mode: 'functional' } });
    expect(res.status, res.text).toBe(202);
    const scan = await states.claim(WORKER, leaseSeconds);
    expect(scan?.id).toBe(res.body.scan_id);
    return scan!;
  };

  /**
   * Leases whose renewals fail: on PostgreSQL a heartbeat thread pointed at a port nobody listens on;
   * on SQLite the real file, with another connection holding its write lock (released by `unblock`).
   */
  const failingLeases = async () => {
    const dataDir = store.env.VIGIL_DATA_DIR!;
    let unblock = () => {};
    let options: StoreOptions = { dataDir };
    if (usingPostgres) {
      options = { dataDir, databaseUrl: 'postgres://postgres@127.0.0.1:1/test' };
    } else {
      const blocker = new SQLite(sqliteFileIn(dataDir));
      blocker.exec('BEGIN EXCLUSIVE');
      unblock = () => {
        blocker.exec('ROLLBACK');
        blocker.close();
      };
    }
    const leases = new ScanLeases({ store: options, workerId: WORKER, leaseSeconds: 60, logger: pino({ level: 'silent' }) });
    await leases.start();
    return { leases, unblock };
  };

  it("inside the claim's lease, the scan stays this worker's and nothing reports it lost", async () => {
    const scan = await claimed(60);
    const { leases, unblock } = await failingLeases();
    const losses: string[] = [];
    try {
      const lease = await leases.hold(scan.id, scan.lease_expires_at, (why) => losses.push(why));
      expect(lease, "the claim's lease still runs: the scan must not be given up").toBeDefined();
      expect(await lease!.confirm()).toBe(true);
      lease!.release();
    } finally {
      unblock();
      await leases.stop();
    }
    expect(losses).toEqual([]);
    const row = await api.vigil.services.store.db
      .selectFrom('scans')
      .select(['status', 'lease_owner', 'attempts'])
      .where('id', '=', scan.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'running', lease_owner: WORKER, attempts: 1 });
  }, 60_000);

  it("past the claim's lease as well, the scan is let go", async () => {
    const scan = await claimed(1);
    await until(() => Date.now() > Date.parse(scan.lease_expires_at!), "the claim's lease to run out", 10_000);
    const { leases, unblock } = await failingLeases();
    try {
      expect(await leases.hold(scan.id, scan.lease_expires_at, () => {})).toBeUndefined();
    } finally {
      unblock();
      await leases.stop();
    }
  }, 60_000);
});
