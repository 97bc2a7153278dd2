/**
 * The lease heartbeat thread, as JavaScript source for `new Worker(src, { eval: true })` (why a string:
 * see engines/security/checks/jwt/secret-search-worker.ts). Keep it plain CommonJS JavaScript with no
 * backticks or `${`. scan-leases.ts starts it and speaks to it.
 *
 * It renews the leases of the scans its worker runs, every `intervalMs`, on a database connection of
 * its own: an event loop held up by an engine's synchronous work cannot let a lease lapse. A renewal is
 * the same guarded write as every other write of a running scan (this worker's lease, status running):
 * when it changes no row the scan was taken (cancelled, re-queued by the reaper, run by another worker);
 * when it fails (database away) past the last renewal's lease, the lease may be anyone's by now.
 * Either way the scan is lost: its shared state says so at once (the main thread reads it without
 * waiting for its event loop), and a `lost` message tells the worker to stop the run.
 *
 * workerData: { dialect: 'postgres' | 'sqlite', driverUrl (pg or better-sqlite3, resolved by the main
 * thread), databaseUrl, sqliteFile, workerId, leaseMs, intervalMs }.
 * Messages in: { type: 'hold', scanId, state (SharedArrayBuffer: BigInt64 [lost 0|1, confirmed-until
 * epoch ms]), ask, offsetMs } (renews at once and answers), { type: 'renew', scanId, ask, offsetMs },
 * { type: 'drop', scanId }, { type: 'clock' }, { type: 'stop' }. `offsetMs` (on any message): the
 * application clock minus the real one, as lease times are in the application's clock.
 * Messages out: { type: 'ready' } | { type: 'failed', error } once; { type: 'answer', ask, held };
 * { type: 'lost', scanId, why: 'taken' | 'expired' }.
 */
export const SCAN_LEASE_THREAD_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const d = workerData;
const RENEW = "update scans set lease_expires_at = ? where id = ? and lease_owner = ? and status = 'running'";
const held = new Map();
let offsetMs = 0;
let stopped = false;
let close = () => Promise.resolve();

const ready = import(d.driverUrl).then((mod) => {
  const driver = mod.default || mod;
  if (d.dialect === 'postgres') {
    const pool = new driver.Pool({ connectionString: d.databaseUrl, max: 1, connectionTimeoutMillis: 5000, query_timeout: d.leaseMs });
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    close = () => pool.end();
    let n = 0;
    const sql = RENEW.replace(/\?/g, () => '$' + String(++n));
    return (id, until) => pool.query(sql, [until, id, d.workerId]).then((r) => r.rowCount > 0);
  }
  const db = new driver(d.sqliteFile, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  close = () => Promise.resolve(db.close());
  const statement = db.prepare(RENEW);
  return (id, until) => Promise.resolve().then(() => statement.run(until, id, d.workerId).changes > 0);
});

function lose(id, state, why) {
  if (held.get(id) !== state) return;
  held.delete(id);
  Atomics.store(state, 0, 1n);
  parentPort.postMessage({ type: 'lost', scanId: id, why: why });
}

function renew(id) {
  const state = held.get(id);
  if (!state) return Promise.resolve(false);
  const started = Date.now();
  const until = new Date(started + offsetMs + d.leaseMs).toISOString();
  return ready
    .then((write) => write(id, until))
    .then(
      (ok) => {
        if (!ok) {
          lose(id, state, 'taken');
          return false;
        }
        if (Number(Atomics.load(state, 1)) < started + d.leaseMs) Atomics.store(state, 1, BigInt(started + d.leaseMs));
        return held.get(id) === state;
      },
      () => {
        if (Date.now() < Number(Atomics.load(state, 1))) return held.get(id) === state;
        lose(id, state, 'expired');
        return false;
      },
    );
}

function answer(ask, promise) {
  promise.then((ok) => parentPort.postMessage({ type: 'answer', ask: ask, held: ok }));
}

parentPort.on('message', (m) => {
  if (typeof m.offsetMs === 'number') offsetMs = m.offsetMs;
  if (m.type === 'hold') {
    held.set(m.scanId, new BigInt64Array(m.state));
    answer(m.ask, renew(m.scanId));
  } else if (m.type === 'renew') {
    answer(m.ask, renew(m.scanId));
  } else if (m.type === 'drop') {
    held.delete(m.scanId);
  } else if (m.type === 'stop') {
    stopped = true;
    held.clear();
    ready.then(() => close()).catch(() => {}).then(() => parentPort.close());
  }
});

ready.then(
  () => parentPort.postMessage({ type: 'ready' }),
  (err) => parentPort.postMessage({ type: 'failed', error: String((err && err.message) || err) }),
);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
(async () => {
  try {
    await ready;
  } catch {
    return;
  }
  while (!stopped) {
    await Promise.all(Array.from(held.keys(), renew));
    await sleep(d.intervalMs);
  }
})();
`;
