import type { Logger } from 'pino';
import type { EventBus } from '../events/bus.js';
import type { ScanFinishedPublisher } from '../scans/finished.js';
import type { ClusterLeases } from '../store/cluster-leases.js';
import type { ScanStates } from '../store/scan-states.js';
import type { UsageRepository } from '../store/usage.js';

export interface MaintenanceOptions {
  /** Who competes for the lease (the worker's id). */
  holder: string;
  leases: ClusterLeases;
  states: Pick<ScanStates, 'reap'>;
  usage: Pick<UsageRepository, 'sweep'>;
  /** Idempotency keys past their 24 h, swept with the usage periods. */
  idempotency?: { sweep(): Promise<void> };
  bus: EventBus;
  finished: Pick<ScanFinishedPublisher, 'publish'>;
  logger: Logger;
  /** The scans' lease: a scan not renewed for this long is lost; a final state not announced for this long is announced again. */
  leaseSeconds: number;
  /** A running scan with no progress for this long is failed as timed out. */
  stallSeconds: number;
  /** How often the usage periods are swept. */
  sweepMs?: number;
}

/** The name of the cluster lease the maintenance job runs under. */
export const MAINTENANCE_LEASE = 'maintenance';

/**
 * The cluster's housekeeping, run by one process at a time (every worker-capable process competes for
 * the `maintenance` cluster lease; the holder renews it at each run): lost scans re-queued or failed,
 * stalled scans failed, final states whose finisher died announced, usage periods swept.
 */
export class Maintenance {
  readonly intervalMs: number;
  /** How long the lease outlives its holder's last run: three runs missed. */
  readonly leaseTtlSeconds: number;
  private readonly sweepMs: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private lastSweep = 0;
  private held = false;

  constructor(private readonly options: MaintenanceOptions) {
    this.intervalMs = Math.max(1000, Math.min(5000, (options.leaseSeconds * 1000) / 2));
    this.leaseTtlSeconds = (3 * this.intervalMs) / 1000;
    this.sweepMs = options.sweepMs ?? 10 * 60 * 1000;
  }

  /** Whether this process ran the job at its last turn. */
  get holding(): boolean {
    return this.held;
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    if (this.held) await this.options.leases.release(MAINTENANCE_LEASE, this.options.holder).catch(() => {});
    this.held = false;
  }

  /** One turn: runs the job if this process holds (or takes) the lease. Turns never overlap in one process. */
  private tick(): Promise<void> {
    if (!this.running) this.running = this.turn().finally(() => (this.running = undefined));
    return this.running;
  }

  private async turn(): Promise<void> {
    const { leases, holder, logger } = this.options;
    const since = Date.now();
    try {
      const held = await leases.acquire(MAINTENANCE_LEASE, holder, this.leaseTtlSeconds);
      if (held !== this.held) logger.info({ holder }, held ? 'maintenance taken over by this process' : 'maintenance held by another process');
      this.held = held;
      if (!held) return;
    } catch (error) {
      logger.warn({ err: error }, 'maintenance lease check failed; retrying');
      return;
    }
    await this.reap();
    // A turn that ran past half the lease leaves the sweep to its next turn: by the time the lease ran out,
    // another process could have taken it (the reaper's writes are guarded row by row; a sweep is not).
    if (Date.now() - since < (this.leaseTtlSeconds * 1000) / 2 && Date.now() - this.lastSweep >= this.sweepMs) {
      this.lastSweep = Date.now();
      await this.options.usage.sweep().catch((err) => logger.warn({ err }, 'usage sweep failed'));
      await this.options.idempotency?.sweep().catch((err) => logger.warn({ err }, 'idempotency key sweep failed'));
    }
  }

  private async reap(): Promise<void> {
    const { states, bus, finished, logger } = this.options;
    try {
      const { requeued, ended, unannounced } = await states.reap(this.options.stallSeconds, this.options.leaseSeconds);
      for (const id of requeued) {
        logger.warn({ scan_id: id }, 'scan lease lapsed; re-queued');
        // A nudge only: idle workers poll the queue, so an unreachable Redis must not stop the announcements below.
        await bus.publish('scan-queued', { scan_id: id }).catch((err) => logger.warn({ err, scan_id: id }, 'scan-queued not published'));
      }
      for (const scan of ended) {
        logger.warn({ scan_id: scan.id }, 'scan failed by the reaper');
        await finished.publish(scan);
      }
      // Whoever finished these died before announcing them; the live socket drops a repeat.
      for (const scan of unannounced) {
        logger.warn({ scan_id: scan.id }, 'scan finish announced late');
        await finished.publish(scan);
      }
    } catch (error) {
      logger.warn({ err: error }, 'reaping failed; retrying');
    }
  }
}
