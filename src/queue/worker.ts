import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { StoredScan } from '../domain/stored-scan.js';
import type { EventBus } from '../events/bus.js';
import type { ScanStates } from '../store/scan-states.js';
import type { ScanExecution } from './execution.js';

export interface WorkerOptions {
  states: ScanStates;
  execution: ScanExecution;
  bus: EventBus;
  logger: Logger;
  concurrency: number;
  leaseSeconds: number;
  /** How often an idle worker looks for queued scans it was not told about. */
  pollMs?: number;
}

type StopReason = 'cancelled' | 'shutdown' | 'lost';

interface ActiveScan {
  controller: AbortController;
  reason?: StopReason;
  done: Promise<void>;
}

/** The worker role: claims queued scans, keeps their leases alive, stops them when cancelled, lost or shutting down. */
export class ScanWorker {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly active = new Map<string, ActiveScan>();
  private readonly unsubscribe: Array<() => void> = [];
  private poll?: NodeJS.Timeout;
  private stopping = false;
  private filling = false;
  private refill = false;

  constructor(private readonly options: WorkerOptions) {}

  get runningScans(): string[] {
    return [...this.active.keys()];
  }

  start(): void {
    const { bus } = this.options;
    this.unsubscribe.push(bus.subscribe('scan-queued', () => void this.fill()));
    this.unsubscribe.push(bus.subscribe('scan-cancelled', ({ scan_id }) => this.abort(scan_id, 'cancelled')));
    // The poll timer stays referenced: it is what keeps a worker-only process alive until stop().
    this.poll = setInterval(() => void this.fill(), this.options.pollMs ?? 1000);
    void this.fill();
  }

  /**
   * Stops claiming, gives running scans `graceMs` to finish, then stops their engines and puts them back
   * in the queue for another worker.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.poll);
    for (const off of this.unsubscribe) off();
    const all = () => Promise.allSettled([...this.active.values()].map((a) => a.done));
    await Promise.race([all(), delay(graceMs)]);
    for (const id of this.active.keys()) this.abort(id, 'shutdown');
    await Promise.race([all(), delay(5000)]);
  }

  private abort(scanId: string, reason: StopReason): void {
    const entry = this.active.get(scanId);
    if (!entry || entry.controller.signal.aborted) return;
    entry.reason = reason;
    entry.controller.abort(new Error(`scan ${reason}`));
  }

  private async fill(): Promise<void> {
    if (this.filling) {
      this.refill = true;
      return;
    }
    this.filling = true;
    try {
      do {
        this.refill = false;
        while (!this.stopping && this.active.size < this.options.concurrency) {
          const scan = await this.options.states.claim(this.workerId, this.options.leaseSeconds);
          if (!scan) break;
          this.launch(scan);
        }
      } while (this.refill && !this.stopping);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'claiming a scan failed; retrying at the next poll');
    } finally {
      this.filling = false;
    }
  }

  private launch(scan: StoredScan): void {
    const entry: ActiveScan = { controller: new AbortController(), done: Promise.resolve() };
    this.active.set(scan.id, entry);
    entry.done = this.run(scan, entry)
      .catch((error) => this.options.logger.error({ err: error, scan_id: scan.id }, 'scan worker error'))
      .finally(() => {
        this.active.delete(scan.id);
        void this.fill();
      });
  }

  private async run(scan: StoredScan, entry: ActiveScan): Promise<void> {
    const heartbeat = this.keepLease(scan.id);
    try {
      if ((await this.options.execution.run(scan, this.workerId, entry.controller.signal)) === 'aborted') await this.afterAbort(scan, entry);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Renews the lease while the scan runs; a scan no longer this worker's (cancelled, reaped) is stopped as lost. */
  private keepLease(scanId: string): NodeJS.Timeout {
    const { states, leaseSeconds, logger } = this.options;
    const heartbeat = setInterval(() => {
      states
        .heartbeat(scanId, this.workerId, leaseSeconds)
        .then((held) => {
          if (!held) this.abort(scanId, 'lost');
        })
        .catch((err) => logger.warn({ err, scan_id: scanId }, 'lease renewal failed'));
    }, Math.max(250, (leaseSeconds * 1000) / 3));
    heartbeat.unref();
    return heartbeat;
  }

  /** Cancelled or lost scans were finished by whoever took them; a shutdown puts the scan back in the queue. */
  private async afterAbort(scan: StoredScan, entry: ActiveScan): Promise<void> {
    if (entry.reason !== 'shutdown') return;
    if (await this.options.states.release(scan.id, this.workerId)) {
      this.options.logger.info({ scan_id: scan.id }, 'scan re-queued at shutdown');
      await this.options.bus.publish('scan-queued', { scan_id: scan.id });
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
