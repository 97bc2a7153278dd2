import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import { MemoryEventBus } from '../../src/events/bus.js';
import { Maintenance, MAINTENANCE_LEASE } from '../../src/queue/maintenance.js';
import { ClusterLeases } from '../../src/store/cluster-leases.js';
import { openStore, type Store } from '../../src/store/database.js';
import { freshStore, storeLabel, type TestStore } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every run of a job by any instance: who ran it, and how many instances were inside it at the time. */
class RunLog {
  readonly runs: Array<{ who: string; job: string }> = [];
  inside = 0;
  mostInside = 0;

  async run<T>(who: string, job: string, value: T): Promise<T> {
    this.inside += 1;
    this.mostInside = Math.max(this.mostInside, this.inside);
    this.runs.push({ who, job });
    await sleep(150);
    this.inside -= 1;
    return value;
  }

  by(who: string): number {
    return this.runs.filter((r) => r.who === who).length;
  }
}

/**
 * Two processes' maintenance jobs on one database, each with its own connection (as two processes
 * have): one runs the job, the other waits; when the holder dies (its connection gone, no release),
 * the other takes over once the lease expires.
 */
describe(`maintenance runs once per cluster (${storeLabel})`, () => {
  let store: TestStore;
  const opened: Store[] = [];
  const log = new RunLog();
  const instances: Maintenance[] = [];

  const open = async () => {
    const s = await openStore({ dataDir: store.env.VIGIL_DATA_DIR!, databaseUrl: store.env.DATABASE_URL });
    opened.push(s);
    return s;
  };
  const maintenance = (who: string, s: Store) => {
    const m = new Maintenance({
      holder: who,
      leases: new ClusterLeases(s.db),
      states: { reap: () => log.run(who, 'reap', { requeued: [], ended: [], unannounced: [] }) },
      usage: { sweep: () => log.run(who, 'sweep', 0) },
      bus: new MemoryEventBus(),
      finished: { publish: async () => {} },
      logger: createLogger('silent'),
      leaseSeconds: 2,
      stallSeconds: 60,
      sweepMs: 0,
    });
    instances.push(m);
    return m;
  };

  beforeAll(async () => {
    store = await freshStore();
  });
  afterAll(async () => {
    for (const m of instances) await m.stop();
    for (const s of opened) await s.close().catch(() => {});
    await store?.dispose();
  });

  it('one instance runs the job, never both at once; when the holder dies the other takes over', async () => {
    const first = maintenance('first', await open());
    const dying = opened[0]!;
    const second = maintenance('second', await open());
    first.start();
    await until(() => log.by('first') > 0, 'the first run');
    second.start();

    // Several turns of both: only the holder runs.
    await sleep(4 * first.intervalMs);
    expect(log.by('first')).toBeGreaterThanOrEqual(6);
    expect(log.by('second')).toBe(0);
    expect(first.holding).toBe(true);
    expect(second.holding).toBe(false);
    expect(await new ClusterLeases(opened[1]!.db).holder(MAINTENANCE_LEASE)).toBe('first');

    // The holder dies: its connection is gone, it neither renews nor releases the lease.
    await dying.close();
    const diedAt = Date.now();
    await until(() => log.by('second') > 0, 'the second instance taking over');
    expect(Date.now() - diedAt).toBeGreaterThanOrEqual((first.leaseTtlSeconds - 1.5) * 1000);
    expect(second.holding).toBe(true);
    expect(await new ClusterLeases(opened[1]!.db).holder(MAINTENANCE_LEASE)).toBe('second');

    const runsBefore = log.by('first');
    await sleep(3 * second.intervalMs);
    expect(log.by('first')).toBe(runsBefore);
    expect(log.by('second')).toBeGreaterThanOrEqual(4);
    expect(log.mostInside).toBe(1);
    // Each turn reaps, then sweeps (sweepMs 0: every turn).
    expect(
      log.runs
        .filter((r) => r.who === 'second')
        .map((r) => r.job)
        .slice(0, 2),
    ).toEqual(['reap', 'sweep']);
  });

  it('a clean stop releases the lease, so another instance takes over at its next turn', async () => {
    const s = opened[1]!;
    const current = instances[1]!;
    const successor = maintenance('successor', s);
    successor.start();
    await sleep(2 * successor.intervalMs);
    expect(log.by('successor')).toBe(0);
    await current.stop();
    const stoppedAt = Date.now();
    await until(() => log.by('successor') > 0, 'the successor taking over');
    expect(Date.now() - stoppedAt).toBeLessThan(successor.intervalMs + 1000);
    expect(log.mostInside).toBe(1);
  });
});
